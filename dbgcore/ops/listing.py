"""`dbg list`: the source, named as `dbg break` names code (FILE:LINE with
the file found as break finds it, LINE, FUNCTION), or a whole file
(``FILE``) or a range (``FILE:A-B``).

Answered in the client (a local op): a FILE needs no session, so an agent
can read the program before starting it; with a live session the daemon
answers, which knows the program's folder, its current line and (for a
FUNCTION) where the backend finds functions. Past the end of a file the
window is clamped to its last lines and the answer says how long the file
is, instead of failing on a line that is not there.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from dbgcore.shared.errors import NoSession, OpFailed, UsageError
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front
    from dbgcore.ops.opsession import OpSession as Session
    from dbgcore.shared.jsontypes import JsonObject
    from dbgcore.vocab.location import BreakLoc
    from dbgcore.vocab.opspec import Payload, Via

#: `dbg list FILE` shows at most this many lines; the answer says how to see on.
WHOLE_FILE_LINES = 400
#: A word without ``:`` that ends so is a file (``app.py``), not a function.
_SOURCE_SUFFIX_RE = re.compile(
    r"\.(py|pyw|c|h|cc|cpp|cxx|hpp|hh|go|rs|java|kt|js|mjs|cjs|ts|pl|pm|rb|txt|md)$")
_RANGE_RE = re.compile(r"([0-9]+)-([0-9]+)")
_HINT = "e.g. dbg list app.py:20, dbg list app.py, dbg list app.py:10-40, dbg list FUNCTION"


def parse_list(text: str | None, cwd: str) -> JsonObject:
    """What `dbg list TEXT` asks for, as sent to the daemon: ``location``
    (a parsed FILE:LINE, LINE or FUNCTION, as `dbg break` parses it), or
    ``file`` with ``first`` and ``last`` (a range; neither: the whole
    file; no file: the current one). A relative file that names one in
    ``cwd`` is made absolute."""
    from dbgcore.vocab.location import BreakLoc, _line_number

    if text is None:
        return {}
    spec = text.strip()
    file, _, tail = spec.rpartition(":")
    span = _RANGE_RE.fullmatch(tail if file else spec)
    if span is not None:
        first, last = (_line_number(n, text) for n in span.groups())
        if first > last:
            raise UsageError(f"bad range {span.group(0)}: it ends before it begins", _HINT)
        return {"file": _anchored(file, cwd) if file else None, "first": first, "last": last}
    # A bare word is a function (`divide`, even beside a program named so)
    # unless it reads as a file: a path, a source's suffix, or a dotted name
    # of a file here (`./Makefile` names one without a dot).
    if spec and ":" not in spec and not _RANGE_RE.fullmatch(spec) and (
            "/" in spec or _SOURCE_SUFFIX_RE.search(spec)
            or ("." in spec and os.path.isfile(os.path.join(cwd, spec)))):
        return {"file": _anchored(spec, cwd), "first": None, "last": None}
    return {"location": BreakLoc.parse(spec).anchored(cwd).to_wire()}


def _anchored(file: str, cwd: str) -> str:
    candidate = os.path.join(cwd, file)
    return os.path.abspath(candidate) if os.path.isfile(candidate) else file


def run_list(values: Payload, session: str, timeout: float,
             front: Front | None) -> tuple[Payload, Via | None]:
    """Asked of the session's daemon when there is one; else, for a file,
    answered here from the file (found from this folder)."""
    from dbgcore.shared import client
    from dbgcore.shared.errors import DbgError

    asked = parse_list(values.get("location"), os.getcwd())
    asked["context"] = int(values.get("context", 5))
    try:
        response = client.call(session, "list", asked, timeout)
    except NoSession as exc:
        at = asked.get("location")
        if isinstance(at, dict) and at.get("file") and (at.get("line") or at.get("match")):
            asked = {"file": at["file"], "line": at.get("line"), "context": asked["context"],
                     **({"match": at["match"], "shown": at.get("text")} if at.get("match")
                        else {})}
        if asked.get("file") is None:
            raise NoSession(exc.message, "a FILE, FILE:LINE or FILE:A-B needs none; LINE, "
                            "FUNCTION and the current line need a session") from None
        return _local_list(asked), None
    if not response.get("ok"):
        raise DbgError.from_wire(response.get("error") or {})
    return response.get("result") or {}, response.get("via")


def _local_list(asked: JsonObject) -> Payload:
    from dbgcore.lang.sourcefind import resolve_source, walk_sources

    file = str(asked["file"])
    here = os.getcwd()
    found = resolve_source(file, [here], [lambda: walk_sources(here, (_suffix(file),))])
    if found is None:
        raise OpFailed(f"no file matches {file} here or below {here}",
                       "give a path (relative to here) or an absolute one; with a session, "
                       "files are also found in the program's folder")
    if asked.get("match"):
        from dbgcore.lang.linetext import find_line

        line = find_line(found, str(asked.pop("match")), None, str(asked.pop("shown")))
        asked = {**asked, "line": line}
    return window(found, asked, None)


def _suffix(file: str) -> str:
    return os.path.splitext(file)[1] or os.path.basename(file)


def handle_list(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.ops.breakpoints import found_line
    from dbgcore.shared.errors import DbgError
    from dbgcore.vocab.model import BreakLoc, Location

    current = session.last.location if session.last is not None else None
    if session.backend is not None and session.backend.state() == "stopped":
        # The selected frame (after `dbg up` / `dbg frame N`), not just the stop.
        try:
            selected = next((f for f in session.backend.stack(None, timeout) if f.current),
                            None)
        except DbgError:
            selected = None
        if selected is not None and selected.file and selected.line:
            current = Location(selected.file, selected.line, selected.function)
    asked = _checked(args)
    note = ""
    if asked.get("location") is not None:
        loc = found_line(session, BreakLoc.from_wire(asked.pop("location")))
        if loc.function is not None:
            file, line, note = _function_place(session, loc, timeout)
            asked.update(file=file, line=line)
        else:
            asked.update(file=loc.file or (current.file if current else None), line=loc.line)
    elif asked.get("file") is None:
        if asked.get("first") is None and (current is None or not current.line):
            raise OpFailed("no current location to list", "give one: dbg list FILE:LINE")
        asked["file"] = current.file if current else None
        if asked.get("first") is None and current is not None:
            asked["line"] = current.line
    if not asked.get("file"):
        raise OpFailed("no current file to list", "give one: dbg list FILE:LINE")
    asked["file"] = _program_file(session, str(asked["file"]))
    here = current.line if current is not None and current.file == asked["file"] else None
    shown = window(str(asked["file"]), asked, here)
    if note:
        shown["note"] = "; ".join(filter(None, [note, shown.get("note")]))
    return shown


def _checked(args: Payload) -> JsonObject:
    """The daemon's check of what a wire client sent (dbg's front end sends
    :func:`parse_list`'s answer): a file is a line of text, lines are
    positive numbers within bounds."""
    from dbgcore.shared.bounds import MAX_LINE
    from dbgcore.vocab.opspec import breaks_line

    unknown = set(args) - {"location", "file", "first", "last", "context"}
    if unknown:
        raise UsageError(f"list takes no argument {', '.join(sorted(unknown))}", _HINT)
    file = args.get("file")
    if file is not None and (not isinstance(file, str) or not file or breaks_line(file)):
        raise UsageError("list: file must be a non-empty line of text", _HINT)
    for name in ("first", "last", "context"):
        value = args.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < (0 if name == "context" else 1)
                                  or value > MAX_LINE):
            raise UsageError(f"list: {name} must be a whole number from "
                             f"{0 if name == 'context' else 1} to {MAX_LINE}", _HINT)
    if args.get("last") is not None and args.get("first") is None:
        raise UsageError("list: a range needs its first line", _HINT)
    return dict(args)


def _function_place(session: Session, loc: BreakLoc, timeout: float) -> tuple[str, int, str]:
    """Where `dbg break FUNCTION` binds ``loc`` (its first place), and a
    note naming the others."""
    assert session.backend is not None
    places = session.backend.function_places(loc, timeout)
    if places is None:
        return (*_bound_at(session, loc, timeout), "")
    if not places or not places[0].file or not places[0].line:
        raise OpFailed(f"no function {loc} in the program's sources",
                       "check the name, or give FILE:LINE")
    first = places[0]
    assert first.file is not None and first.line is not None
    others = ", ".join(f"{p.function} at {p.file}:{p.line}" for p in places[1:])
    note = f"{loc} is in {len(places)} places; also {others}" if others else ""
    return first.file, first.line, note


def _bound_at(session: Session, loc: BreakLoc, timeout: float) -> tuple[str, int]:
    """Where the debugger binds a breakpoint on ``loc``, asked of it by one
    it sets and removes at once, for a backend that does not find functions
    in the program's sources itself (gdb, lldb, delve...): the same place
    `dbg break` would bind. Only at a stop, where a breakpoint changes nothing."""
    from dbgcore.shared.errors import DbgError
    from dbgcore.vocab.model import BreakOptions

    backend = session.backend
    assert backend is not None
    if backend.state() != "stopped":
        raise OpFailed(f"list {loc}: the debugger is asked where {loc} is at a stop, and the "
                       "program is not stopped", "give FILE:LINE, or stop it first")
    bp = backend.set_breakpoint(loc, BreakOptions(temporary=True), timeout)
    try:
        backend.remove_breakpoint(bp.id, timeout)
    except DbgError:
        pass  # a temporary one: it goes at its first stop anyway
    if not bp.file or not bp.line or not bp.verified:
        raise OpFailed(f"{backend.tool_name} did not bind {loc} to a line"
                       + (f": {bp.message}" if bp.message else ""), "give FILE:LINE")
    return bp.file, bp.line


def _program_file(session: Session, file: str) -> str:
    """The file a typed name means as `dbg break` finds it: absolute, or
    relative to the program's run folder or its own folder, or a name or
    path suffix among the files below the program's folder."""
    from dbgcore.lang.sourcefind import resolve_source, walk_sources

    launch = session.launch_request
    if os.path.isabs(file) or launch is None:
        return file
    folder = os.path.dirname(os.path.abspath(launch.program)) if launch.program else ""
    if launch.program and os.path.isdir(launch.program):
        folder = os.path.abspath(launch.program)
    roots = [r for r in (launch.cwd, folder) if r]
    found = resolve_source(file, roots, [
        lambda: (f for root in dict.fromkeys(roots) for f in walk_sources(root, (_suffix(file),)))])
    return found or os.path.join(launch.cwd or os.getcwd(), file)


def window(file: str, asked: JsonObject, here: int | None) -> Payload:
    """The lines of ``file`` asked for (around ``line`` with ``context``, a
    range ``first``..``last``, or the whole file up to WHOLE_FILE_LINES),
    clamped to the file's length; ``here`` marks the current line."""
    from dbgcore.lang.sourcetext import SourceUnreadable, source_lines

    try:
        text = source_lines(file)
    except SourceUnreadable as exc:
        raise OpFailed(str(exc), "give a source file's path") from None
    if text and text[-1] == "":
        text = text[:-1]  # the text after the last newline is not a line
    total = len(text)
    name = os.path.basename(file)
    note = ""
    end = 0
    line = asked.get("line")
    if line is not None:
        context = int(asked.get("context", 5))
        first, last = int(line) - context, int(line) + context
        if int(line) > total:
            note = f"{name} has {total} lines; line {line} is past its end"
            first, last = total - 2 * context, total
        elif last > total:
            note = f"{name} has {total} lines"
    elif asked.get("first") is not None:
        first, last = int(asked["first"]), int(asked.get("last") or asked["first"])
        if first > total:
            raise OpFailed(f"line {first} is past the end of {file}: it has {total} lines",
                           f"e.g. dbg list {name}:{max(1, total - 20)}-{total}")
        if last > total:
            note = f"{name} has {total} lines"
        end = min(last, total)  # of the range asked for
        last = min(last, first + WHOLE_FILE_LINES - 1)
    else:
        first, last = 1, WHOLE_FILE_LINES
        end = total
    first, last = max(1, first), min(total, last)
    if total == 0:
        note = f"{name} is empty"
    lines = [{"line": n, "text": text[n - 1], "current": n == here}
             for n in range(first, last + 1)]
    payload: Payload = {"file": file, "lines": lines, "total": total}
    if line is None and end > last:
        payload["more"] = end - last  # lines after the cap: `dbg list FILE:A-B` shows on
    if note:
        payload["note"] = note
    return payload


def render_list(p: Payload) -> str:
    from dbgcore.ops.stops import source_lines

    out = [p["file"], *source_lines(p.get("lines") or [])]
    if p.get("more"):
        shown = p.get("lines") or []
        after = shown[-1]["line"] + 1 if shown else 1
        out.append(f"+{p['more']} more lines; dbg list {p['file']}:{after}-"
                   f"{min(after + WHOLE_FILE_LINES - 1, after + p['more'] - 1)}")
    if p.get("note"):
        out.append(f"note: {p['note']}")
    return "\n".join(out)


#: `dbg list`, in the op table's order (before dbgcore.ops.program's).
OPS: tuple[Op, ...] = (
    Op("list", "Show source around the current line, or at FILE:LINE, LINE, FUNCTION, a "
       "whole FILE or FILE:A-B (a FILE needs no session).", (
        Arg("location", "str", "Where: FILE:LINE, LINE, FUNCTION (in a session), FILE (the "
            "whole file, up to 400 lines) or FILE:A-B / A-B (a range); a file is found as "
            "`dbg break` finds it.", one_line=True, metavar="WHERE"),
        Arg("context", "int", "Lines before and after.", flags=("--context",), default=5,
            minimum=0),
    ), needs="none", send="local", run=run_list, handler=handle_list, render=render_list,
       ended_ok=True, details=(
           "Past the end of a file the last lines are shown, with the file's length; a "
           "range that starts past the end is an error naming it. Without a session a FILE "
           "is found from the current folder (a name or path suffix: below it); in a "
           "session as `dbg break` finds it (the program's folder, then its tree).\n\n"
           "  dbg list app.py\n"
           "  dbg list app.py:120-160\n"
           "  dbg list ledger.py:41 --context 10\n"
           "  dbg list parse_line")),
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
