"""Breakpoints over DAP, which sets them a whole list at a time.

``setBreakpoints`` replaces one source file's list, ``setFunctionBreakpoints``
and ``setDataBreakpoints`` replace theirs; so we keep every breakpoint the user
asked for, with dbg's own stable id, and send the whole list again on each
change. The adapter's view of each (verified, bound line, message) is updated
from the responses and from ``breakpoint`` events (gdb binds pending ones
later). Hits are counted from ``hitBreakpointIds`` when the adapter sends
them, else from the stop's location. ``--temp`` is done here: a temporary
breakpoint is removed after the stop it caused.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

import dbg_dap.watchscope as watchscope
from dbg_dap.host import AdapterHost
from dbg_dap.locations import resolve
from dbg_dap.profile_base import AdapterProfile
from dbgcore.api import (
    BreakLoc,
    BreakOptions,
    Breakpoint,
    Location,
    Message,
    OpFailed,
    UsageError,
    function_span,
    no_code_message,
    real_path,
)

#: delve's answer for a line without a statement (it does not move it).
_NO_STATEMENT_RE = re.compile(r"could not find statement")
#: Why an unverified breakpoint the adapter said nothing about is not bound.
UNBOUND = "no code for it is loaded yet; it binds when code for it loads"
#: How far a breakpoint on a line without code may move down, within its function.
_MOVE_LIMIT = 20


@dataclass
class BpRecord:
    id: int
    kind: str  # "source" | "function" | "watch" | "instruction"
    options: BreakOptions
    requested: str
    file: str | None = None
    line: int | None = None
    name: str | None = None  # function name, watched expression, or instruction address
    data_id: str | None = None
    dap: Message = field(default_factory=dict)
    hits: int = 0
    internal: bool = False
    #: Made with a console command; removed with one too.
    console: bool = False
    #: Why it is not bound yet, when dbg knows better than the adapter.
    pending: str = ""
    #: The line the user asked for, when dbg moved it to one with code.
    asked_line: int | None = None
    #: The function the user asked for, when dbg placed it as a line breakpoint.
    asked_function: str | None = None
    #: A watch the debuggee checks line by line (AdapterProfile.line_watch):
    #: its hidden line breakpoints' ids, and whether its frame still runs.
    by_lines: bool = False
    lines: list[int] = field(default_factory=list)
    running: bool = True
    #: A hidden line breakpoint of such watches (one a line, shared by the
    #: watches of one frame): their ids.
    watch_of: list[int] = field(default_factory=list)
    #: A watch on a local: its frame, as (depth from the stack's bottom,
    #: function); the watch ends when that frame returns (dbg_dap.watchscope).
    frame: tuple[int, str] | None = None

    def to_breakpoint(self) -> Breakpoint:
        bound = self.dap.get("line") or self.line
        source = self.dap.get("source") or {}
        file = source.get("path") or self.file
        return Breakpoint(
            id=self.id, file=file, line=bound,
            function=self.name if self.kind == "function" else self.asked_function,
            verified=bool(self.dap.get("verified", False)),
            condition=self.options.condition, hits=self.hits, requested=self.requested,
            requested_line=self.asked_line or (
                self.line if self.line and bound and bound != self.line else None),
            temporary=self.options.temporary, hit_count=self.options.hit_count,
            log_message=self.options.log_message,
            kind="function" if self.asked_function else self.kind,
            message=str(self.dap.get("message") or "") or (
                (self.pending or UNBOUND) if not self.dap.get("verified") else ""),
        )


class BreakpointTable:
    def __init__(self, backend: AdapterHost, profile: AdapterProfile) -> None:
        self.backend = backend
        self.profile = profile
        self.records: dict[int, BpRecord] = {}
        #: The records by the adapter's id for them (_by_dap_id).
        self._dap_index: dict[object, list[BpRecord]] = {}
        self._dap_indexed = 0
        self._ids = itertools.count(1)
        # dbg's own breakpoints (entry, until) get ids users never see.
        self._internal_ids = itertools.count(-1, -1)

    # -- adding ---------------------------------------------------------------

    def _gate(self, options: BreakOptions, function: bool) -> None:
        dap = self.backend.dap_session()
        tool = self.backend.tool_name
        if function:
            dap.require("supportsFunctionBreakpoints", "function breakpoints", tool,
                        "set it by FILE:LINE instead")
        if options.condition:
            dap.require("supportsConditionalBreakpoints", "conditional breakpoints", tool)
        if options.hit_count:
            dap.require("supportsHitConditionalBreakpoints", "hit counts", tool)
        if options.log_message:
            dap.require("supportsLogPoints", "logpoints", tool)

    def add(self, loc: BreakLoc, options: BreakOptions, timeout: float, internal: bool = False,
            strict: bool = False) -> Breakpoint:
        """Place a breakpoint. ``strict`` (for `until`): a line without code
        is an error instead of moving to the next line that has some."""
        function = loc.function is not None
        self._gate(options, function)
        if options.condition:
            broken = self.profile.condition_error(self.backend, options.condition,
                                                          timeout)
            if broken:
                raise OpFailed(f"the condition does not compile: {broken}",
                               "write it in the program's language; nothing was set")
        record = BpRecord(next(self._internal_ids if internal else self._ids),
                          "function" if function else "source", options, str(loc),
                          internal=internal)
        if function:
            assert loc.function is not None
            line_of = self.profile.function_line(self.backend, loc.module, loc.function,
                                                         timeout)
            if line_of is None:
                record.name = self.profile.function_name(loc.module, loc.function)
                # Refused here when the adapter would take a name that binds nothing.
                self.profile.check_function(self.backend, loc.module, loc.function,
                                                    timeout)
                bp = self._place(record, timeout)
                if not record.dap.get("verified") and \
                        self.profile.function_search_is_final:
                    self.remove(record.id, timeout)
                    why = str(record.dap.get("message") or "not found")
                    raise OpFailed(f"no function {loc.function}: {self.backend.tool_name}: {why}",
                                   "all the program's code is loaded and has no such "
                                   "function; nothing was set")
                if not (self.profile.function_stops_at_declaration and bp.verified
                        and bp.file and bp.line
                        and self.profile.body_below(bp.file, bp.line)):
                    return bp
                # Stop at its first statement, like the other debuggers: a line
                # breakpoint below the declaration, under the same id.
                self.remove(record.id, timeout)
                record = BpRecord(record.id, "source", options, str(loc), internal=internal)
                line_of = (bp.file, bp.line + 1)
            record.kind, (record.file, record.line) = "source", line_of
            record.asked_function = loc.function
        else:
            record.file, record.line, record.pending = self._file_line(loc, strict, timeout)
            if loc.line is not None and record.line != loc.line:
                record.asked_line = loc.line
        bp = self._place(record, timeout)
        return self._settle(record, bp, strict, function, timeout)

    def _settle(self, record: BpRecord, bp: Breakpoint, strict: bool, function: bool,
                timeout: float) -> Breakpoint:
        """After the adapter answered for ``record``: refuse it (removed
        again), move it down to a statement, or keep it as bound."""
        refused = self._refusal(record)
        if refused is None and not record.pending:
            if strict and (not record.dap.get("verified") or bp.line != record.line):
                refused = OpFailed(f"no code at {record.file}:{record.line}",
                                   "give a line that holds a statement")
            elif _NO_STATEMENT_RE.search(str(record.dap.get("message") or "")):
                return self._move_down(record, bp, timeout, function)
        if refused is not None:
            self.remove(record.id, timeout)
            raise refused
        return bp

    def add_many(self, locs: list[BreakLoc], timeout: float,
                 options: list[BreakOptions] | None = None) -> list[Breakpoint | Exception]:
        """Many breakpoints (``options``: each one's) in one request a kind
        and file, whatever their number: one ``setBreakpoints`` a file, one
        ``setFunctionBreakpoints`` for the functions set by name; each answer
        as :meth:`add` gives it (a breakpoint, or the error that refused it,
        which left no trace)."""
        wanted = options or [BreakOptions()] * len(locs)
        records: list[BpRecord | Exception] = []
        # A file named 1,000 times is looked for once (a name's search may
        # walk the program's folder or ask the debugger).
        resolved: dict[str, tuple[str, str]] = {}
        for loc, opts in zip(locs, wanted, strict=True):
            try:
                records.append(self._new_record(loc, opts, timeout, resolved))
            except Exception as exc:
                records.append(exc)
        placed = [r for r in records if isinstance(r, BpRecord)]
        for record in placed:
            self.records[record.id] = record
        sent: dict[tuple[str, str | None], BpRecord] = {}
        for record in placed:
            sent.setdefault((record.kind, record.file), record)
        try:
            for first in sent.values():
                self._sync(first, timeout)
        except Exception:
            for record in placed:
                self.records.pop(record.id, None)
            raise
        out: list[Breakpoint | Exception] = []
        for loc, opts, item in zip(locs, wanted, records, strict=True):
            try:
                if isinstance(item, Exception):
                    raise item
                if item.kind == "function":
                    out.append(self._settle_function(item, loc, opts, timeout))
                else:
                    out.append(self._settle(item, item.to_breakpoint(), False,
                                            item.asked_function is not None, timeout))
            except Exception as exc:
                out.append(exc)
        return out

    def _new_record(self, loc: BreakLoc, options: BreakOptions, timeout: float,
                    resolved: dict[str, tuple[str, str]] | None = None) -> BpRecord:
        """What :meth:`add` checks and finds before it sends (the options
        the adapter takes, a condition that compiles, the file and line or
        the function's name), as a record not yet kept."""
        function = loc.function is not None
        self._gate(options, function)
        if options.condition:
            broken = self.profile.condition_error(self.backend, options.condition, timeout)
            if broken:
                raise OpFailed(f"the condition does not compile: {broken}",
                               "write it in the program's language; nothing was set")
        record = BpRecord(next(self._ids), "function" if function else "source", options,
                          str(loc))
        if loc.function is not None:
            line_of = self.profile.function_line(self.backend, loc.module, loc.function,
                                                 timeout)
            if line_of is None:
                record.name = self.profile.function_name(loc.module, loc.function)
                self.profile.check_function(self.backend, loc.module, loc.function, timeout)
                return record
            record.kind, (record.file, record.line) = "source", line_of
            record.asked_function = loc.function
            return record
        record.file, record.line, record.pending = self._file_line(loc, False, timeout,
                                                                   resolved)
        if loc.line is not None and record.line != loc.line:
            record.asked_line = loc.line
        return record

    def _settle_function(self, record: BpRecord, loc: BreakLoc, options: BreakOptions,
                         timeout: float) -> Breakpoint:
        """A function breakpoint sent by name in a batch, as :meth:`add`
        would leave it: refused when the adapter's search is final and found
        none; one the debugger stops at on its declaration (delve) set again
        alone by :meth:`add`, which moves it to the body (rare enough not to
        batch)."""
        bp = record.to_breakpoint()
        if not record.dap.get("verified") and self.profile.function_search_is_final:
            self.remove(record.id, timeout)
            why = str(record.dap.get("message") or "not found")
            raise OpFailed(f"no function {loc.function}: {self.backend.tool_name}: {why}",
                           "all the program's code is loaded and has no such "
                           "function; nothing was set")
        if self.profile.function_stops_at_declaration and bp.verified and bp.file \
                and bp.line and self.profile.body_below(bp.file, bp.line):
            self.remove(record.id, timeout)
            return self.add(loc, options, timeout)
        return bp

    def add_lines(self, file: str, lines: list[int], timeout: float) -> list[int]:
        """dbg's own temporary breakpoints on many lines of one file, sent
        in one request; their ids."""
        return self._add_internal([
            BpRecord(next(self._internal_ids), "source", BreakOptions(temporary=True),
                     f"{file}:{line}", file=file, line=line, internal=True)
            for line in lines], timeout)

    def add_instructions(self, addresses: list[str], timeout: float,
                         condition: str | None = None) -> list[int]:
        """dbg's own breakpoints on instructions, sent in one request (each
        with ``condition``, in the debugger's words); their ids."""
        return self._add_internal([
            BpRecord(next(self._internal_ids), "instruction", BreakOptions(condition=condition),
                     address, name=address, internal=True) for address in addresses], timeout)

    def _add_internal(self, records: list[BpRecord], timeout: float) -> list[int]:
        """Records of one kind (and file) sent in one request; none kept if it fails."""
        for record in records:
            self.records[record.id] = record
        try:
            self._sync(records[0], timeout)
        except Exception:
            for record in records:
                self.records.pop(record.id, None)
            raise
        return [record.id for record in records]

    def _refusal(self, record: BpRecord) -> OpFailed | None:
        """An adapter that refuses a condition it cannot compile says so by
        leaving the breakpoint unverified, with its parser's message."""
        message = str(record.dap.get("message") or "")
        if record.options.condition and not record.dap.get("verified") and message and \
                record.dap.get("reason") != "pending" and not _NO_STATEMENT_RE.search(message):
            return OpFailed(f"the condition does not compile: {message}",
                            "write it in the program's language; nothing was set")
        return None

    def _move_down(self, record: BpRecord, bp: Breakpoint, timeout: float,
                   from_function: bool = False) -> Breakpoint:
        """For adapters that refuse a line without a statement (delve): the
        next line of the same function that takes the breakpoint, as gdb does."""
        assert record.file is not None and record.line is not None
        span = function_span(record.file, record.line)
        last = min(span[1] if span else record.line + _MOVE_LIMIT, record.line + _MOVE_LIMIT)
        requested = record.line
        for line in range(requested + 1, last + 1):
            record.line = line
            self._sync(record, timeout)
            if record.dap.get("verified"):
                # Sent again with every change to the file: it stays moved.
                record.dap.setdefault("line", line)
                record.asked_line = None if from_function else requested
                return record.to_breakpoint()
        record.line = requested
        self._sync(record, timeout)
        return bp

    def _file_line(self, loc: BreakLoc, strict: bool, timeout: float,
                   resolved: dict[str, tuple[str, str]] | None = None) -> tuple[str, int, str]:
        """The file to send (a real path, or the name as typed when pending),
        the line, and why it is pending ("": it is not); ``resolved``: the
        files a batch found so far, by the name given."""
        assert loc.line is not None
        if loc.file is None:
            frames = self.backend.stack_frames(timeout) if self.backend.state() == "stopped" \
                else []
            current = (frames[0].get("source") or {}).get("path") if frames else None
            if not current:
                raise UsageError("a bare line number needs a current file", "give FILE:LINE")
            path, pending = str(current), ""
        elif resolved is not None and loc.file in resolved:
            path, pending = resolved[loc.file]
        else:
            path, pending = resolve(self.backend, self.profile, loc.file, timeout)
            if resolved is not None:
                resolved[loc.file] = path, pending
        if pending:
            return path, loc.line, pending
        line = self.profile.code_line(path, loc.line)
        if line is None or (strict and line != loc.line):
            raise OpFailed(no_code_message(path, loc.line), "give a line that holds a statement")
        return path, line, ""

    def add_watch(self, expression: str, timeout: float) -> Breakpoint:
        dap = self.backend.stopped_session("watch")
        tool = self.backend.tool_name
        if not dap.supports("supportsDataBreakpoints") and self.profile.console_watch:
            return self._add_console_watch(expression, timeout)
        if not dap.supports("supportsDataBreakpoints") and self.profile.line_watches:
            return self._add_line_watch(expression, timeout)
        dap.require("supportsDataBreakpoints", "watchpoints", tool,
                    self.profile.watch_hint())
        info = dap.request("dataBreakpointInfo", self._data_info_arguments(expression, timeout),
                           timeout)
        if not info.get("dataId"):
            raise OpFailed(f"cannot watch {expression}: "
                           f"{info.get('description') or 'the adapter gave no data id'}")
        record = BpRecord(next(self._ids), "watch", BreakOptions(), expression,
                          name=expression, data_id=str(info["dataId"]),
                          frame=watchscope.local_frame(self.backend, expression, timeout))
        return self._place(record, timeout)

    def _data_info_arguments(self, expression: str, timeout: float) -> Message:
        """dataBreakpointInfo's arguments: a variable by its scope when the
        expression names one (what the spec means), else the expression as
        the adapter wants it (lldb-dap evaluates it to an address)."""
        backend = self.backend
        if expression.isidentifier():
            for scope in backend.scopes(timeout):
                if scope.get("expensive"):
                    continue
                reference = int(scope["variablesReference"])
                if any(v.get("name") == expression
                       for v in backend.variables(reference, timeout)):
                    return {"variablesReference": reference, "name": expression}
        arguments: Message = {"name": self.profile.data_watch_expression(expression)}
        frame_id = backend.current_frame_id(timeout)
        if frame_id is not None:
            arguments["frameId"] = frame_id
        return arguments

    def _add_console_watch(self, expression: str, timeout: float) -> Breakpoint:
        """A watchpoint made with the debugger's own command (gdb: `watch`),
        for adapters without data breakpoints that still report its hits
        as stops with its number in hitBreakpointIds."""
        profile = self.profile
        answer = self.backend.console(profile.console_watch.format(expr=expression), timeout)
        number = profile.console_watch_number(answer)
        if number is None:
            raise OpFailed(f"cannot watch {expression}: {answer.strip() or 'no answer'}")
        record = BpRecord(next(self._ids), "watch", BreakOptions(), expression,
                          name=expression, dap={"id": number, "verified": True}, console=True,
                          frame=watchscope.local_frame(self.backend, expression, timeout))
        self.records[record.id] = record
        return record.to_breakpoint()

    def _add_line_watch(self, expression: str, timeout: float) -> Breakpoint:
        """A watch the debuggee checks at each line of the selected frame's
        code: hidden breakpoints there, whose condition asks it whether this
        is that frame and the value changed; their stops are the watch's."""
        watch_id = next(self._ids)
        placed = self.profile.line_watch(self.backend, watch_id, expression, timeout)
        record = BpRecord(watch_id, "watch", BreakOptions(), expression, name=expression,
                          dap={"verified": True, "message": placed.note}, by_lines=True)
        # The adapter keeps one breakpoint a line: the watches of one frame
        # share its hidden ones (their condition checks every watch there).
        shared = {r.line: r for r in self.records.values()
                  if r.watch_of and r.file == placed.file}
        new = [BpRecord(next(self._internal_ids), "source",
                        BreakOptions(condition=placed.condition), f"{placed.file}:{line}",
                        file=placed.file, line=line, internal=True)
               for line in placed.lines if line not in shared]
        self.records[record.id] = record
        try:
            if new:
                self._add_internal(new, timeout)
        except Exception:
            self.records.pop(record.id, None)
            self.profile.line_unwatch(self.backend, watch_id, timeout)
            raise
        for hidden in [shared[line] for line in placed.lines if line in shared] + new:
            hidden.watch_of.append(watch_id)
            record.lines.append(hidden.id)
        return record.to_breakpoint()

    def add_instruction(self, address: str, options: BreakOptions,
                        timeout: float) -> Breakpoint:
        self._gate(options, False)
        record = BpRecord(next(self._ids), "instruction", options, address, name=address)
        return self._place(record, timeout)

    def _place(self, record: BpRecord, timeout: float) -> Breakpoint:
        """Add ``record`` and send its list; a refused list leaves no trace."""
        self.records[record.id] = record
        try:
            self._sync(record, timeout)
        except Exception:
            self.records.pop(record.id, None)
            raise
        return record.to_breakpoint()

    # -- sending whole lists ---------------------------------------------------

    def _options(self, record: BpRecord) -> Message:
        out: Message = {}
        if record.options.condition:
            out["condition"] = record.options.condition
        if record.options.hit_count:
            out["hitCondition"] = self.profile.hit_condition(record.options.hit_count)
        if record.options.log_message:
            out["logMessage"] = record.options.log_message
        return out

    def _sync(self, changed: BpRecord, timeout: float) -> None:
        dap = self.backend.dap_session()
        same = [r for r in self.records.values() if r.kind == changed.kind and not r.console
                and not r.by_lines and (changed.kind != "source" or r.file == changed.file)]
        # An adapter keeps one breakpoint a line (pydevd: the last one sent):
        # a watch's hidden ones go first, so that any other breakpoint on the
        # same line is the one kept.
        same.sort(key=lambda r: not r.watch_of)
        if changed.kind == "source":
            self.profile.before_set_breakpoints(self.backend, changed.file, timeout)
            body = dap.request("setBreakpoints", {
                "source": {"path": changed.file},
                "breakpoints": [{"line": r.line, **self._options(r)} for r in same],
                "lines": [r.line for r in same],
            }, timeout)
        elif changed.kind == "function":
            body = dap.request("setFunctionBreakpoints", {
                "breakpoints": [{"name": r.name, **self._options(r)} for r in same]}, timeout)
        elif changed.kind == "watch":
            body = dap.request("setDataBreakpoints", {
                "breakpoints": [{"dataId": r.data_id, "accessType": "write"} for r in same]},
                timeout)
        else:
            body = dap.request("setInstructionBreakpoints", {
                "breakpoints": [{"instructionReference": r.name, **self._options(r)}
                                for r in same]}, timeout)
        answers = body.get("breakpoints") or []
        for record, answer in zip(same, answers, strict=False):
            record.dap = dict(answer)
        self._dap_index = {}  # the adapter may have numbered them anew

    # -- removing ---------------------------------------------------------------

    def remove(self, bp_id: int, timeout: float) -> None:
        record = self.records.pop(bp_id, None)
        if record is None:
            raise OpFailed(f"no breakpoint {bp_id}", "list them with `dbg breaks`")
        if record.by_lines:
            self._remove_line_watch(record, timeout)
            return
        self._resync_after_removal(record, timeout)

    def end_watch(self, record: BpRecord, timeout: float) -> None:
        """A watch whose local's frame returned goes (dbg_dap.watchscope):
        gdb deleted its own already, so only dbg's record of it does."""
        if record.console:
            self.records.pop(record.id, None)
        elif record.id in self.records:
            self.remove(record.id, timeout)

    def _remove_line_watch(self, record: BpRecord, timeout: float) -> None:
        unused = []
        for hidden_id in record.lines:
            hidden = self.records.get(hidden_id)
            if hidden is not None and record.id in hidden.watch_of:
                hidden.watch_of.remove(record.id)
                if not hidden.watch_of:
                    unused.append(self.records.pop(hidden_id))
        if self.backend.state() == "exited":
            return
        if unused:
            self._resync_after_removal(unused[0], timeout)
        self.profile.line_unwatch(self.backend, record.id, timeout)

    def _resync_after_removal(self, record: BpRecord, timeout: float) -> None:
        if record.console:
            profile = self.profile
            if self.backend.state() != "exited":
                self.backend.console(profile.console_delete.format(id=record.dap.get("id")),
                                     timeout)
            return
        others = [r for r in self.records.values() if r.kind == record.kind and not r.console
                  and not r.by_lines and (record.kind != "source" or r.file == record.file)]
        if others:
            self._sync(others[0], timeout)
            return
        dap = self.backend.dap_session()
        if record.kind == "source":
            self.profile.before_set_breakpoints(self.backend, record.file, timeout)
            dap.request("setBreakpoints", {"source": {"path": record.file},
                                           "breakpoints": [], "lines": []}, timeout)
        elif record.kind == "function":
            dap.request("setFunctionBreakpoints", {"breakpoints": []}, timeout)
        elif record.kind == "watch":
            dap.request("setDataBreakpoints", {"breakpoints": []}, timeout)
        else:
            dap.request("setInstructionBreakpoints", {"breakpoints": []}, timeout)

    def discard_internal(self, bp_id: int, timeout: float) -> None:
        record = self.records.get(bp_id)
        if record is not None and record.internal and self.backend.state() != "exited":
            self.remove(record.id, timeout)
        else:
            self.records.pop(bp_id, None)

    # -- what the adapter tells us ------------------------------------------------

    def on_event(self, body: Message) -> None:
        update = body.get("breakpoint") or {}
        dap_id = update.get("id")
        if dap_id is None:
            return
        for record in self._by_dap_id(dap_id):
            if body.get("reason") == "removed":
                record.dap["verified"] = False
            else:
                record.dap.update(update)

    def _by_dap_id(self, dap_id: object) -> list[BpRecord]:
        """The records the adapter numbers ``dap_id``. gdb sends two events a
        breakpoint after a `setBreakpoints` of 1,000: looked up in an index,
        not in a walk of every record each, the index checked against the
        records on each use and made again when it no longer matches them."""
        def current(found: list[BpRecord]) -> bool:
            return all(self.records.get(r.id) is r and r.dap.get("id") == dap_id for r in found)

        found = self._dap_index.get(dap_id)
        if found is not None and self._dap_indexed == len(self.records) and current(found):
            return found
        index: dict[object, list[BpRecord]] = {}
        for record in self.records.values():
            number = record.dap.get("id")
            if number is not None:
                index.setdefault(number, []).append(record)
        self._dap_index, self._dap_indexed = index, len(self.records)
        return index.get(dap_id, [])

    def record_hits(self, dap_ids: list[int], location: Location | None,
                    watch: bool = False, at_breakpoint: bool = True,
                    count: bool = True) -> list[BpRecord]:
        """The records a stop hit (and count it): by the ids the adapter gave,
        or, for an adapter that gives none, the breakpoints on the line of a
        stop whose reason is a breakpoint (``at_breakpoint``: a step or a
        finish that ends on such a line, mid-line after a return, hit none)."""
        watches = [r for r in self.records.values() if r.kind == "watch"]
        if watch and not dap_ids and len(watches) == 1:
            # A watchpoint stop without ids: it is the one watch there is.
            hit = watches
        elif dap_ids:
            hit = [r for r in self.records.values() if r.dap.get("id") in dap_ids]
        elif at_breakpoint and location is not None and location.file and location.line:
            # Not a watch's hidden breakpoints: a step that ends on one of
            # their lines did not stop for them.
            real = real_path(location.file)
            hit = [r for r in self.records.values() if r.kind == "source" and not r.watch_of
                   and r.file == real and (r.dap.get("line") or r.line) == location.line]
        else:
            hit = []
        # A hidden line breakpoint's stop is its watches' (the core shows
        # which of them changed).
        mapped: dict[int, BpRecord] = {}
        for record in hit:
            for owner in ([self.records[w] for w in record.watch_of if w in self.records]
                          if record.watch_of else [record]):
                mapped[owner.id] = owner
        hit = list(mapped.values())
        for record in hit:
            record.hits += count  # not a stop of a run backwards
        return hit

    def after_stop(self, hit: list[BpRecord], timeout: float) -> None:
        """After a stop that ``hit`` these (the user's): temporary ones go;
        a stop of watches checked line by line keeps, in ``hit``, only
        those that changed."""
        for record in hit:
            if record.options.temporary and not record.internal and record.id in self.records:
                self.remove(record.id, timeout)
        watches = [r for r in self.records.values() if r.by_lines and r.running]
        stopped_by = [r for r in hit if r.by_lines]
        if not watches and not stopped_by:
            return
        from dbgcore.api import pywatch

        ended, changed = self.profile.line_watch_stop(self.backend, [r.id for r in watches],
                                                      timeout)
        for record in watches:
            if record.id in ended:
                # Its frame returned: it cannot change any more, said in
                # `dbg breaks` from this stop on (gdb deletes it and says so).
                record.running = False
                record.dap["message"] = str(record.dap.get("message", "")) + pywatch.GONE
        if changed:
            # The hidden breakpoint names every watch of its frame.
            for record in stopped_by:
                if record.id not in changed:
                    hit.remove(record)
                    record.hits -= 1

    def listing(self) -> list[Breakpoint]:
        return [r.to_breakpoint() for r in self.records.values() if not r.internal]

    def payload(self) -> list[Message]:
        return [b.to_dict() for b in self.listing()]
