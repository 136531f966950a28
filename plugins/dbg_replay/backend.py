"""The replay backend: a session whose stops are read from a recorded run
(`dbg replay RUN`), not from a live program. Nothing runs: `step`, `next`,
`finish` and `continue` move through the events `dbg trace --lines`
recorded (:mod:`dbg_replay.record`), forwards and with ``--back``; `locals`
and `print NAME` answer the values recorded as of that point; anything that
would evaluate new code is refused, in one line, with what to do instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import ClassVar

from dbg_replay.record import Record
from dbgcore.api import (
    Backend,
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    CallSink,
    Frame,
    LaunchRequest,
    Location,
    OpFailed,
    Readiness,
    ReturnValue,
    SessionContext,
    StopEvent,
    StopState,
    Support,
    TraceOutcome,
    UnsupportedOp,
    Value,
    Variable,
    recorded_run,
)

#: What every refusal says instead of `dbg raw` (there is no debugger to send it to).
REPLAY_ONLY = ("a replay of a recorded run only reads what was recorded; run the program live "
               "with `dbg start` for this")


def _same_file(asked: str, recorded: str | None) -> bool:
    """A file as typed (``cart.py``, ``src/cart.py``, an absolute path) is
    the recorded one: the same path, or its last parts."""
    if not recorded:
        return False
    if asked == recorded or os.path.realpath(asked) == os.path.realpath(recorded):
        return True
    tail = asked if not os.path.isabs(asked) else os.path.basename(asked)
    tail = tail[2:] if tail.startswith("./") else tail
    return recorded.endswith("/" + tail)


def _same_function(recorded: str, asked: str) -> bool:
    return recorded == asked or recorded.endswith("." + asked)


class ReplayBackend(Backend):
    id: ClassVar[str] = "replay"
    tool: ClassVar[str] = "replay"
    # Nothing runs: these are the record's, or refused.
    op_support: ClassVar[dict[str, Support]] = {"trace": "none", "set": "none", "raw": "none"}
    features: ClassVar[dict[str, Support]] = {"return-value": "native", "reverse": "native"}

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self.recorded: Record | None = None
        self.run_id = 0
        self.program = ""
        #: Where the replay is: an index into the record's events.
        self.point = 0
        self.selected = 0
        self.breaks: dict[int, tuple[Breakpoint, Callable[[int], bool]]] = {}
        self._next_id = 1

    # -- availability ----------------------------------------------------------------

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        return Readiness(True, "the runs `dbg trace --lines` recorded in the session store")

    def version(self) -> str:
        return ""

    @classmethod
    def unsupported_for(cls, spec: BackendSpec, op: str, hint: str | None = None,
                        title: str | None = None) -> UnsupportedOp:
        return UnsupportedOp(title or op, cls.tool_for(spec), hint or "", instead=REPLAY_ONLY)

    def _refused(self, what: str) -> UnsupportedOp:
        return UnsupportedOp(what, self.tool_name, instead=(
            f"this session replays run {self.run_id}, whose values are only those recorded; "
            f"re-run it live with `dbg start {self.program}` to evaluate"))

    # -- lifecycle -------------------------------------------------------------------

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        asked = request.replays
        if asked is None:
            raise OpFailed("a replay needs a recorded run", "dbg replay RUN (ids from `dbg runs`)")
        found = recorded_run(int(asked))
        self.run_id = int(found["run"]["id"])
        self.program = os.path.basename(str(found["run"].get("program") or "PROGRAM"))
        self.recorded = Record(found["calls"])
        if not self.recorded.line_points:
            raise OpFailed(f"run {self.run_id} has no recorded lines to replay",
                           "record one with `dbg trace FUNCTION... --lines`")
        self.point = self.recorded.line_points[0]
        note = "" if self.recorded.numbered else (
            "; its tracer did not number its events, so each call's lines are replayed one "
            "call after another")
        return self._stop("entry", f"nothing runs in a replay: each stop is read from the "
                          f"record{note}")

    def state(self) -> StopState:
        return "stopped"

    def poll(self, timeout: float) -> StopEvent | None:
        return self._stop("step") if self.recorded is not None else None

    def terminate(self) -> None:
        self.recorded = None

    # -- the stop --------------------------------------------------------------------

    @property
    def _record(self) -> Record:
        if self.recorded is None:
            raise OpFailed("the replay has not begun", "dbg replay RUN")
        return self.recorded

    def _stop(self, reason: str, description: str = "", hits: list[int | str] | None = None,
              ) -> StopEvent:
        record = self._record
        self.selected = 0
        frames = record.frames(self.point)
        call = record.call_of(self.point)
        returned = None
        if record.events[self.point].line is None:
            # The end of a call: its caller, at the call, with what it returned.
            if call.outcome == "returned" and call.value is not None:
                returned = ReturnValue(call.value)
            elif call.outcome == "raised":
                description = "; ".join(d for d in (
                    description, f"{call.function} raised {call.value or 'an exception'}") if d)
        function, file, line, _ = frames[0] if frames else (call.function, call.file, None, 0)
        total = len(record.line_points)
        done = sum(1 for i in record.line_points if i <= self.point)
        after = "after " if record.events[self.point].line is None else ""
        where = f"replay of run {self.run_id}, {after}recorded line {done} of {total}"
        return StopEvent(state="stopped", reason=reason, location=Location(file, line, function),
                         thread=None if call.thread in (None, "MainThread") else call.thread,
                         description="; ".join(d for d in (description, where) if d),
                         hit_breakpoints=hits or [], return_value=returned)

    def _move(self, target: int | None, reason: str, back: bool,
              hits: Callable[[int], list[int | str]] | None = None) -> StopEvent:
        record = self._record
        if target is None:
            # Past either end: the replay stays at the record's first or last line.
            edge = record.line_points[0] if back else record.line_points[-1]
            self.point = edge
            said = ("start of the record: nothing was recorded before this line" if back else
                    "end of the record: nothing was recorded after this line")
            return self._stop("start of record" if back else "end of record", said)
        self.point = target
        return self._stop(reason, hits=hits(target) if hits else None)

    # -- motions ---------------------------------------------------------------------

    def _not_inside(self, seq: int) -> Callable[[int], bool]:
        record = self._record

        def keep(i: int) -> bool:
            here = record.events[i].seq
            return here == seq or not record.inside(here, seq)

        return keep

    def _current(self) -> int | None:
        """The call the replay is in: at a call's end, its caller (None when
        the caller was not traced)."""
        event = self._record.events[self.point]
        return event.seq if event.line is not None else self._record.calls[event.seq].parent

    def step(self, timeout: float) -> StopEvent:
        return self._move(self._record.next_line(self.point, False), "step", False)

    def next(self, timeout: float) -> StopEvent:
        seq = self._current()
        keep = self._not_inside(seq) if seq is not None else None
        return self._move(self._record.next_line(self.point, False, keep), "step", False)

    def finish(self, timeout: float) -> StopEvent:
        record = self._record
        seq = self._current()
        if seq is None:
            # Out of a call whose caller was not traced: nothing of it to finish.
            return self._move(record.next_line(self.point, False), "step", False)
        end = record.end_of(seq)
        if end is None or end <= self.point:
            return self._move(None, "step", False)
        self.point = end
        return self._stop("step")

    def cont(self, timeout: float) -> StopEvent:
        return self._to_break(False)

    def reverse(self, motion: str, timeout: float) -> StopEvent:
        record = self._record
        if motion == "continue":
            return self._to_break(True)
        if motion == "step":
            return self._move(record.next_line(self.point, True), "step", True)
        current = self._current()
        if current is None:
            return self._move(record.next_line(self.point, True), "step", True)
        seq = current
        if motion == "next":
            return self._move(record.next_line(self.point, True, self._not_inside(seq)),
                              "step", True)
        # finish --back: the caller's line where this call was made.
        call = record.calls[seq]
        before = record.next_line(self.point, True, lambda i: not record.inside(
            record.events[i].seq, seq))
        if before is not None and record.inside(seq, record.events[before].seq):
            return self._move(before, "step", True)
        first = next((i for i in record.line_points if record.events[i].seq == seq),
                     record.line_points[0])
        if before is None and first == record.line_points[0]:
            return self._move(None, "step", True)
        self.point = first
        caller = call.caller
        who = f" ({caller[2] or '?'} at {os.path.basename(caller[0] or '?')}:{caller[1]})" \
            if caller else ""
        said = f"{call.function}'s caller{who} was not traced: this is the call's first " \
            "recorded line"
        return self._stop("step", said)

    def _to_break(self, back: bool) -> StopEvent:
        record = self._record

        def hit(i: int) -> list[int | str]:
            return [bp_id for bp_id, (_, matches) in self.breaks.items() if matches(i)]

        target = record.next_line(self.point, back, lambda i: bool(hit(i)))
        return self._move(target, "breakpoint", back, hits=hit)

    # -- breakpoints -----------------------------------------------------------------

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        self.refuse_break_options(options, "a replay stops at recorded lines only")
        record = self._record
        if loc.function:
            name = loc.function

            def matches(i: int) -> bool:
                event = record.events[i]
                return event.line == 0 and _same_function(record.calls[event.seq].function, name)

            file, line, function = None, None, name
        else:
            if loc.line is None:
                raise OpFailed(f"bad location {loc.text or loc.key()}", "FILE:LINE or FUNCTION")
            here = record.call_of(self.point).file
            asked = loc.file

            def matches(i: int) -> bool:
                call = record.call_of(i)
                return record.line_at(i) == loc.line and (
                    _same_file(asked, call.file) if asked else call.file == here)

            recorded = next((record.call_of(i).file for i in record.line_points if matches(i)),
                            None)
            file, line, function = recorded or asked or here, loc.line, None
        reached = sum(1 for i in record.line_points if matches(i))
        bp = Breakpoint(self._next_id, file=file, line=line, function=function,
                        requested=loc.text or loc.key(),
                        message="" if reached else "no recorded line reaches it")
        self.breaks[self._next_id] = (bp, matches)
        self._next_id += 1
        return bp

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        self.breaks.pop(int(bp_id), None)

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        return [bp for bp, _ in self.breaks.values()]

    # -- inspection ------------------------------------------------------------------

    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        frames = [Frame(i, function, file, line, current=i == self.selected)
                  for i, (function, file, line, _) in enumerate(
                      self._record.frames(self.point))]
        return frames[:levels] if levels else frames

    def select_frame(self, index: int, timeout: float) -> Frame:
        frames = self.stack(None, timeout)
        if not 0 <= index < len(frames):
            raise OpFailed(f"no frame {index}: the recorded stack has {len(frames)}",
                           "dbg stack lists them")
        self.selected = index
        return Frame(index, frames[index].function, frames[index].file, frames[index].line,
                     current=True)

    def _values(self) -> list[tuple[str, str]]:
        record = self._record
        frames = record.frames(self.point)
        if self.selected >= len(frames):
            return []
        _, _, _, place = frames[self.selected]
        if place is None:
            return []  # a caller that was not traced: nothing of it recorded
        chain = record.ancestors(record.events[self.point].seq)
        at_line = record.events[self.point].line is not None
        call = chain[self.selected if at_line else self.selected + 1] \
            if (self.selected if at_line else self.selected + 1) < len(chain) else None
        return record.locals_of(call, place) if call is not None else []

    def locals(self, timeout: float) -> list[Variable]:
        return [Variable(name, value) for name, value in self._values()]

    def evaluate(self, expression: str, timeout: float) -> Value:
        name = expression.strip()
        values = dict(self._values())
        if name in values:
            return Value(values[name])
        if name.isidentifier() and any(name == n for c in self._record.calls.values()
                                       for _, changed, _ in c.lines for n, _ in changed):
            raise OpFailed(f"{name} has no recorded value in this frame at this point",
                           "`dbg locals` lists the values recorded here")
        shown = name if len(name) <= 40 else name[:39] + "…"
        raise self._refused(f"print {shown}")

    def set_variable(self, lhs: str, value: str, timeout: float) -> Value:
        raise self._refused("set")

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        raise self._refused("raw commands")

    def trace(self, functions: list[str], lines: bool, max_calls: int,
              timeout: float, sink: CallSink) -> TraceOutcome:
        raise self._refused("trace")
