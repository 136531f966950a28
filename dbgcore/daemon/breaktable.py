"""The session's breakpoints and watchpoints, with ids that last as long as
the session.

Backends number breakpoints their own way, and start again from 1 when
`dbg restart` starts a new debugger. The user sees only this table's ids:
each entry keeps what the user asked for (a location and options, or a
watched expression) and the id the current backend gave it, so restart can
set everything again under the same ids, `unbreak` can find an entry by the
location as typed or as bound, and a stop's hit breakpoints are reported by
the user's ids.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, replace

from dbgcore.backends.contract import Backend
from dbgcore.lang.linetext import LineAnchor, anchor, clipped, code_line_text, follow
from dbgcore.lang.sourcefind import suffix_matches
from dbgcore.shared.errors import DbgError, OpFailed
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.vocab.location import BreakLoc
from dbgcore.vocab.model import BreakOptions, Breakpoint, Location


@dataclass
class Entry:
    id: int
    #: "break", "watch", or "adopted" (made by a backend-specific op, such as
    #: `dbg break-instruction`, and not set again on restart).
    kind: str
    loc: BreakLoc | None = None
    expression: str | None = None
    options: BreakOptions | None = None
    #: The current backend's id for it; None while it is not set (it could
    #: not be set again after a restart: ``error`` says why).
    backend_id: int | str | None = None
    error: str = ""
    #: The backend's last word on it (where it bound, hits).
    last: Breakpoint | None = None
    #: A watch: the expression's value when last seen.
    value: str | None = None
    #: A watch: the frame it was set in, as (file, function, stack depth);
    #: its value is read again only at stops in such a frame (elsewhere the
    #: same name is another frame's variable).
    scope: tuple[str | None, str | None, int] | None = None
    #: A source breakpoint: the text of its line when set, which a restart
    #: looks for in the edited file (:meth:`BreakTable.follow_edits`).
    anchor: LineAnchor | None = None
    #: That text, when the last restart found it on no line.
    gone: str | None = None

    def requested(self) -> str:
        if self.loc is not None:
            return str(self.loc)
        return self.expression or ""


class BreakTable:
    def __init__(self) -> None:
        self.entries: dict[int, Entry] = {}
        self._ids = itertools.count(1)

    # -- adding and removing -------------------------------------------------------

    def add(self, backend: Backend, loc: BreakLoc, options: BreakOptions,
            timeout: float) -> Breakpoint:
        bp = backend.set_breakpoint(loc, options, timeout)
        entry = Entry(next(self._ids), "break", loc=loc, options=options, backend_id=bp.id,
                      anchor=_anchor(loc, bp))
        return self._keep(entry, bp)

    def add_many(self, backend: Backend, locs: list[BreakLoc], timeout: float,
                 options: list[BreakOptions] | None = None,
                 functions: list[str | None] | None = None) -> list[Breakpoint | Exception]:
        """Breakpoints through :meth:`Backend.set_breakpoints` (one request
        a file and kind where the debugger allows; ``options``: each one's):
        each kept as :meth:`add` keeps it, or the error that refused it.
        ``functions``: the function each place is of, when a name's places
        were found here (:meth:`add_all_many`)."""
        wanted = options or [BreakOptions()] * len(locs)
        named = functions or [None] * len(locs)
        out: list[Breakpoint | Exception] = []
        answers = backend.set_breakpoints(locs, timeout, wanted)
        for loc, opts, function, bp in zip(locs, wanted, named, answers, strict=True):
            if isinstance(bp, Exception):
                out.append(bp)
                continue
            entry = Entry(next(self._ids), "break", loc=loc, options=opts, backend_id=bp.id,
                          anchor=_anchor(loc, bp))
            out.append(self._keep(entry, replace(bp, function=function) if function else bp))
        return out

    def add_all_many(self, backend: Backend, locs: list[BreakLoc], timeout: float,
                     options: list[BreakOptions] | None = None
                     ) -> list[list[Breakpoint] | Exception]:
        """:meth:`add_all` for many locations in one batch (:meth:`add_many`):
        a function's every place in the program's code is one more location
        of the batch. For each location asked, its breakpoints or the error
        that refused it (a function's places all or none)."""
        wanted = options or [BreakOptions()] * len(locs)
        flat: list[BreakLoc] = []
        flat_options: list[BreakOptions] = []
        flat_functions: list[str | None] = []
        spans: list[tuple[int, int] | Exception] = []
        for loc, opts in zip(locs, wanted, strict=True):
            try:
                places = backend.function_places(loc, timeout) if loc.function else None
            except DbgError as exc:
                spans.append(exc)
                continue
            begin = len(flat)
            if places and len(places) >= 2:
                for place in places:
                    assert place.file is not None and place.line is not None
                    flat.append(BreakLoc(file=place.file, line=place.line, text=str(loc)))
                    flat_functions.append(place.function)
                    flat_options.append(opts)
            else:
                flat.append(loc)
                flat_functions.append(None)
                flat_options.append(opts)
            spans.append((begin, len(flat)))
        answers = self.add_many(backend, flat, timeout, flat_options, flat_functions) \
            if flat else []
        out: list[list[Breakpoint] | Exception] = []
        for span in spans:
            if isinstance(span, Exception):
                out.append(span)
                continue
            mine = answers[span[0]:span[1]]
            refused = next((a for a in mine if isinstance(a, Exception)), None)
            if refused is None:
                out.append([a for a in mine if not isinstance(a, Exception)])
                continue
            # All or nothing: the other places of this name go again.
            self.remove(backend, [int(a.id) for a in mine if not isinstance(a, Exception)],
                        timeout)
            out.append(refused)
        return out

    def add_all(self, backend: Backend, loc: BreakLoc, options: BreakOptions,
                timeout: float) -> tuple[list[Breakpoint], list[Location] | None]:
        """A breakpoint at each place of the program's own code the function
        ``loc`` names (:meth:`Backend.function_places`), each an entry of its
        own at its FILE:LINE, shown as asked (``normalize``); one breakpoint
        as the backend binds it where it names one place or the backend does
        not tell. Also the places (None: not told)."""
        places = backend.function_places(loc, timeout) if loc.function else None
        if not places or len(places) < 2:
            return [self.add(backend, loc, options, timeout)], places
        placed: list[Breakpoint] = []
        try:
            for place in places:
                assert place.file is not None and place.line is not None
                at = BreakLoc(file=place.file, line=place.line, text=str(loc))
                bp = backend.set_breakpoint(at, options, timeout)
                entry = Entry(next(self._ids), "break", loc=at, options=options,
                              backend_id=bp.id, anchor=_anchor(at, bp))
                placed.append(self._keep(entry, replace(bp, function=place.function)))
        except DbgError:
            # All or nothing: the places set before this one go again.
            self.remove(backend, [int(b.id) for b in placed], timeout)
            raise
        return placed, places

    def watch(self, backend: Backend, expression: str, timeout: float) -> Breakpoint:
        bp = backend.watch(expression, timeout)
        entry = Entry(next(self._ids), "watch", expression=expression, backend_id=bp.id)
        return self._keep(entry, bp)

    def _keep(self, entry: Entry, bp: Breakpoint) -> Breakpoint:
        self.entries[entry.id] = entry
        return self._view(entry, bp)

    def _view(self, entry: Entry, bp: Breakpoint) -> Breakpoint:
        shown = replace(bp, id=entry.id, requested=entry.requested() or bp.requested,
                        line_text=_line_text(entry, bp),
                        text_gone=clipped(entry.gone) if entry.gone else None)
        entry.last = shown
        return shown

    def remove(self, backend: Backend, ids: list[int], timeout: float) -> list[Breakpoint]:
        removed = []
        for entry_id in ids:
            entry = self.entries[entry_id]
            if entry.backend_id is not None and backend.state() not in ("exited",
                                                                         "debugger_lost"):
                backend.remove_breakpoint(entry.backend_id, timeout)
            del self.entries[entry_id]
            if entry.last is not None:
                removed.append(entry.last)
        return removed

    # -- reading -----------------------------------------------------------------------

    def listing(self, backend: Backend, timeout: float) -> list[Breakpoint]:
        """Every entry as the backend sees it now, by the user's ids. Entries
        the backend dropped (a temporary breakpoint that fired) are dropped
        here too; breakpoints a backend-specific op made are taken in."""
        if backend.state() in ("exited", "debugger_lost"):
            current = [e.last for e in self.entries.values() if e.last is not None]
            return current
        seen: set[int] = set()
        out = []
        # Looked up by the backend's id once for all (1,000 breakpoints: not
        # 1,000 walks of the table).
        by_backend: dict[str, Entry] = {}
        for known in self.entries.values():
            if known.backend_id is not None:
                by_backend.setdefault(str(known.backend_id), known)
        for bp in backend.list_breakpoints(timeout):
            entry = by_backend.get(str(bp.id))
            if entry is None:
                entry = Entry(next(self._ids), "adopted", backend_id=bp.id)
                self.entries[entry.id] = entry
                by_backend[str(bp.id)] = entry
            seen.add(entry.id)
            out.append(self._view(entry, bp))
        for entry in list(self.entries.values()):
            if entry.id in seen:
                continue
            if entry.backend_id is None:
                out.append(self._unset_view(entry))
            else:
                del self.entries[entry.id]  # the backend let it go
        return sorted(out, key=lambda b: int(b.id))

    def _unset_view(self, entry: Entry) -> Breakpoint:
        base = entry.last or Breakpoint(id=entry.id, kind=entry.kind)
        return replace(base, id=entry.id, verified=False, requested=entry.requested(),
                       message=entry.error)

    def _by_backend_id(self, backend_id: int | str) -> Entry | None:
        for entry in self.entries.values():
            if entry.backend_id is not None and str(entry.backend_id) == str(backend_id):
                return entry
        return None

    def user_ids(self, backend: Backend, backend_ids: list[int | str],
                 timeout: float) -> list[int | str]:
        """A stop's hit breakpoints, by the user's ids."""
        out: list[int | str] = []
        for backend_id in backend_ids:
            entry = self._by_backend_id(backend_id)
            if entry is None:
                self.listing(backend, timeout)  # takes in breakpoints made behind our back
                entry = self._by_backend_id(backend_id)
            out.append(entry.id if entry is not None else backend_id)
        return out

    def matching(self, backend: Backend, wanted: BreakLoc, timeout: float) -> list[int]:
        """Ids of the entries at ``wanted``: as the user typed it then, or
        where the breakpoint bound (a file given by name or path suffix); a
        line's text not yet found (no ``line``): the entries set by it."""
        found = []
        for bp in self.listing(backend, timeout):
            entry = self.entries[int(bp.id)]
            if entry.loc is not None and entry.loc == wanted:
                found.append(entry.id)
            elif wanted.match is not None and wanted.line is None:
                if entry.loc is not None and entry.loc.match == wanted.match \
                        and entry.loc.file == wanted.file:
                    found.append(entry.id)  # set by this text, wherever its line is now
            elif wanted.function is not None and entry.loc is not None \
                    and entry.loc.function is None and entry.loc.text == str(wanted):
                found.append(entry.id)  # one of the places a function name bound
            elif wanted.function is not None:
                if bp.function and (bp.function == wanted.function
                                    or bp.function.endswith("." + wanted.function)):
                    found.append(entry.id)
            elif bp.file and wanted.file and wanted.line in (bp.line, bp.requested_line) and (
                    suffix_matches(wanted.file, [bp.file])
                    or os.path.realpath(wanted.file) == os.path.realpath(bp.file)):
                found.append(entry.id)
        return found

    # -- a new debugger ----------------------------------------------------------------

    def follow_edits(self) -> list[JsonObject]:
        """Before a restart sets them again: each source breakpoint whose
        line's text is now on another line of its edited file goes there
        (the nearest such line to the old one); one whose text is on no line
        stays and is flagged. What moved or is gone, one record each."""
        told: list[JsonObject] = []
        for entry in self.entries.values():
            kept, loc = entry.anchor, entry.loc
            if entry.kind != "break" or kept is None or loc is None:
                continue
            how, line = follow(kept, loc.match)
            if how == "unreadable":
                continue  # nothing to compare: set again as it was
            if how == "gone" or line is None:
                entry.gone = kept.text
                told.append({"id": entry.id, "file": kept.path, "line": kept.line,
                             "gone": clipped(kept.text)})
                continue
            entry.gone = None
            if how == "moved":
                entry.loc = _moved(loc, kept.path, line)
                told.append({"id": entry.id, "file": kept.path, "from": kept.line, "to": line,
                             "text": clipped(kept.text)})
            # The line as it is now: the user's text may sit in an edited line.
            entry.anchor = anchor(kept.path, line) or replace(kept, line=line)
        return told

    def replay(self, backend: Backend,
               timeout: float) -> tuple[list[Breakpoint], list[JsonObject]]:
        """Set every entry again on a new backend (after `dbg restart`), under
        the same ids, the breakpoints in one batch (:meth:`add_many`'s
        :meth:`Backend.set_breakpoints`), the watches one by one; what cannot
        be set again is kept, unset, with why."""
        placed: list[Breakpoint] = []
        failed: list[JsonObject] = []
        breaks: list[Entry] = []
        for entry in list(self.entries.values()):
            if entry.kind == "adopted":
                del self.entries[entry.id]
            elif entry.kind == "break":
                breaks.append(entry)
        locs = [e.loc for e in breaks if e.loc is not None]
        options = [e.options or BreakOptions() for e in breaks if e.loc is not None]
        answers = iter(backend.set_breakpoints(locs, timeout, options) if locs else [])
        for entry in list(self.entries.values()):
            bp: Breakpoint | Exception
            try:
                if entry.kind == "watch":
                    assert entry.expression is not None
                    bp = backend.watch(entry.expression, timeout)
                else:
                    assert entry.loc is not None and entry.options is not None
                    bp = next(answers)
                if isinstance(bp, DbgError):
                    raise bp
                if isinstance(bp, Exception):
                    raise OpFailed(str(bp)) from bp
            except DbgError as exc:
                entry.backend_id, entry.error = None, f"not set again: {exc.message}"
                failed.append({"id": entry.id, "location": entry.requested(),
                               "error": exc.message})
                continue
            entry.backend_id, entry.error = bp.id, ""
            placed.append(self._view(entry, bp))
        return placed, failed

    def require(self, ids: list[int]) -> None:
        missing = [str(i) for i in ids if i not in self.entries]
        if missing:
            raise OpFailed(f"no breakpoint {', '.join(missing)}", "list them with `dbg breaks`")


def _anchor(loc: BreakLoc, bp: Breakpoint) -> LineAnchor | None:
    """What a source breakpoint keeps of its line: the line its text was
    found on, else the line the backend bound (a requested blank line
    binds at the next line of code), in a file dbg can read."""
    if loc.line is None:
        return None  # a function's breakpoint: the debugger finds the function again
    line = loc.line if loc.match is not None else (bp.line or loc.line)
    paths = (loc.file, bp.file) if loc.match is not None else (bp.file, loc.file)
    for path in paths:
        if path and os.path.isabs(path) and (kept := anchor(path, line)) is not None:
            return kept
    return None


def _line_text(entry: Entry, bp: Breakpoint) -> str | None:
    """The text shown beside a breakpoint's line: what it held when set
    (the program runs that, even if the file was edited since), else the
    file's line as it is (after a restart that found the text gone, the
    program runs the edited line)."""
    kept = entry.anchor
    if kept is not None and not entry.gone and (bp.line is None or bp.line == kept.line):
        return clipped(kept.text)
    if bp.file and bp.line and os.path.isabs(bp.file):
        text = code_line_text(bp.file, bp.line)
        return clipped(text) if text else None
    return None


def _moved(loc: BreakLoc, path: str, line: int) -> BreakLoc:
    """``loc`` at ``line``, its text too when it was typed as a number."""
    text = loc.text
    if loc.match is None and loc.line is not None:
        head, sep, number = text.rpartition(":")
        if number == str(loc.line):
            text = f"{head}{sep}{line}"
    return replace(loc, file=loc.file or path, line=line, text=text)
