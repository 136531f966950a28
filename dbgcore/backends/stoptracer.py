"""dbg's own call tracer, for a backend whose debugger cannot trace by itself:
built out of the backend's op methods, as a user would do it by hand.

An internal breakpoint on each traced function; at each hit the call is
recorded (its arguments, its caller, its thread) and ``finish`` runs it to
its return, which gives the return value. A traced call made inside it (a
recursion) hits its breakpoint first: it is recorded and finished in turn,
and the outer one finished after it. With ``--lines`` the call is walked
with ``next`` instead, recording the locals that changed at each line, and
finished from a line that begins with ``return`` (so its value is known;
a call that ends otherwise, falling off its end, has none).

Each call costs a few round trips to the debugger, so this is for the
debuggers that have no better means; :meth:`dbgcore.backends.contract.Backend.trace`
says which do.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dbgcore.lang.rules import runner_temporary
from dbgcore.lang.sourcetext import source_window
from dbgcore.shared.errors import DbgError, OpFailed
from dbgcore.vocab.location import BreakLoc
from dbgcore.vocab.model import BreakOptions, StopEvent
from dbgcore.vocab.traces import CallRecord, CallSink, LineRecord, TraceOutcome, cut

if TYPE_CHECKING:
    from dbgcore.backends.contract import Backend
    from dbgcore.vocab.model import Frame

#: Time kept back from the op's timeout to pause the program and clean up.
_MARGIN = 2.0
#: Reasons a stop is an exception or a signal, not a step of ours.
_FATAL = ("exception", "signal", "panic")
#: Of those, the ones that leave the open calls by an exception (a signal
#: stops the program inside them: they stay unfinished).
_RAISED = ("exception", "panic")


@dataclass
class _Open:
    record: CallRecord
    #: The stack's depth in the traced call's own frame.
    depth: int
    #: Each local's value at the call's previous line (--lines).
    seen: dict[str, str]


class _Tracer:
    def __init__(self, backend: Backend, functions: list[str], lines: bool,
                 max_calls: int, timeout: float, sink: CallSink) -> None:
        self.backend = backend
        self.sink = sink
        self.lines = lines
        self.max_calls = max_calls
        self.deadline = time.monotonic() + max(timeout - _MARGIN, timeout / 2)
        self.functions = functions
        self.ours: dict[int | str, str] = {}
        self.calls: list[CallRecord] = []
        #: The open calls of each thread (a goroutine's), and those of the
        #: thread of the stop at hand.
        self.open_by: dict[int | str | None, list[_Open]] = {}
        self.open: list[_Open] = []
        #: Each traced function's return stops (Backend.return_stops), once
        #: set at its first call; ``by_returns`` until the backend says it
        #: has none (then each call is finished). Not with --lines, which
        #: steps anyway.
        self.returns: dict[str, list[int | str]] = {}
        self.by_returns = not lines
        self.dropped = 0
        self.timed_out = False
        #: Running an unrecorded call (past --max) out, inside a recorded one.
        self.skipping = False

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def run(self) -> TraceOutcome:
        backend = self.backend
        for name in self.functions:
            try:
                bp = backend.set_breakpoint(BreakLoc.parse(name), BreakOptions(),
                                            max(self.left(), 1.0))
            except DbgError as exc:
                self.remove()
                if self.backend.list_breakpoints(max(self.left(), 1.0)):
                    # Some debuggers take one breakpoint per function.
                    raise OpFailed(f"trace {name}: {exc.message}",
                                   "a breakpoint of yours on it may stand in the way: "
                                   "`dbg breaks`, then `dbg unbreak ID`") from None
                raise
            self.ours[bp.id] = name
        try:
            event = self.walk(backend.cont(max(self.left(), 0.1)))
        finally:
            self.remove()
        if event.state == "stopped" and event.reason in _RAISED:
            # An exception that would end the program leaves every open call.
            for entry in self.open:
                entry.record.outcome = "raised"
                entry.record.value = cut(event.description or event.reason)
                self.sink.record(entry.record)
        unknown = self.lines and any(c.outcome == "returned" and c.value is None
                                     for c in self.calls)
        return TraceOutcome(
            calls=sorted(self.calls, key=lambda c: c.seq), event=event, dropped=self.dropped,
            means="dbg's breakpoints on calls and returns" if self.by_returns and self.calls
            else "dbg's breakpoints and step out", timed_out=self.timed_out,
            note="with --lines, a return value is read where the returning line starts with "
            "`return`; the others are not known" if unknown else "")

    def remove(self) -> None:
        for name in list(self.returns):
            with contextlib.suppress(DbgError):
                self.backend.discard_return_stops(self.returns.pop(name), max(self.left(), 1.0))
        for bp_id in list(self.ours):
            with contextlib.suppress(DbgError):
                self.backend.remove_breakpoint(bp_id, max(self.left(), 1.0))
            del self.ours[bp_id]

    def walk(self, event: StopEvent) -> StopEvent:
        """Go on from each stop of ours until one that is not: the stop the
        trace ends at."""
        while True:
            if event.state == "running":  # the op's time ran out
                self.timed_out = True
                return self.backend.pause(_MARGIN)
            if event.state != "stopped":
                return event
            self.open = self.open_by.setdefault(event.thread, [])
            hit = [b for b in event.hit_breakpoints if b in self.ours]
            others = [b for b in event.hit_breakpoints if b not in self.ours]
            frames = self.backend.stack(None, max(self.left(), 0.1))
            depth = len(frames)
            ours = not event.hit_breakpoints and event.reason not in _FATAL
            if hit:
                self.set_return_stops(self.ours[hit[0]])
                # The thread (goroutine) of each call where calls are kept
                # per thread by their return stops; the other tracers'
                # answers stay as they were.
                recorded = self.enter(frames, event.thread if self.by_returns else None)
                if others:
                    return event  # a breakpoint of the user's at the same place
                if not recorded and self.open and not self.by_returns:
                    # Past --max inside a recorded call: run this one out, then
                    # go on with the recorded one.
                    self.skipping = True
                    event = self.backend.finish(max(self.left(), 0.1))
                    continue
            elif self.returns and event.reason == "until" and not event.hit_breakpoints:
                # At a return stop: the innermost open call of this thread
                # returns (one of an unrecorded call, or of a call made
                # before the trace began, has none open at its depth).
                if self.open and self.open[-1].depth == depth:
                    done = self.open.pop().record
                    if self._same_call(done, frames):
                        done.outcome = "returned"
                        value = self.backend.returned_value(max(self.left(), 0.1))
                        done.value = cut(value.value) if value is not None else None
                        self.sink.record(done)
            elif self.open and self.returned(event, depth):
                pass
            elif self.open and ours and self.skipping and depth > self.open[-1].depth:
                # Still inside unrecorded calls (one made inside another): out.
                event = self.backend.finish(max(self.left(), 0.1))
                continue
            elif self.open and ours and self.skipping and depth == self.open[-1].depth:
                self.skipping = False  # back in the recorded call
            elif self.open and ours and depth == self.open[-1].depth and self.lines:
                self.line(event)
            else:
                return event  # the user's breakpoint, an exception, a signal: theirs
            if self.left() <= 0:
                self.timed_out = True
                return event
            event = self.advance(event)

    def advance(self, event: StopEvent) -> StopEvent:
        """Run on: through the innermost open call (line by line with
        --lines, out of it at a `return` line, where finishing it tells its
        value), or to the next call."""
        if not self.open or self.by_returns:
            return self.backend.cont(max(self.left(), 0.1))
        if self.lines and not _returns_here(event):
            return self.backend.next(max(self.left(), 0.1))
        return self.backend.finish(max(self.left(), 0.1))

    def _same_call(self, record: CallRecord, frames: list[Frame]) -> bool:
        """Whether the call returning at ``frames`` is ``record``'s, by its
        arguments: delve does not report every hit of goroutines that reach
        a breakpoint at once, and a later call's return in the same thread
        must not be taken for an earlier one's whose return went unseen
        (that one stays unfinished)."""
        if not frames:
            return False
        with contextlib.suppress(DbgError):
            self.backend.frame_args([frames[0]], max(self.left(), 0.1))
        return [(a.name, cut(a.value)) for a in frames[0].args or []] == record.args

    def set_return_stops(self, name: str) -> None:
        """At the first call of ``name``, stopped at its entry: its return
        stops, or (the backend has none) finishing each call from now on."""
        if not self.by_returns or name in self.returns:
            return
        try:
            stops = self.backend.return_stops(max(self.left(), 0.1))
        except DbgError:
            stops = None
        if stops is None:
            self.by_returns = False
            for other in list(self.returns):  # they would stop for nothing now
                with contextlib.suppress(DbgError):
                    self.backend.discard_return_stops(self.returns.pop(other),
                                                      max(self.left(), 1.0))
        else:
            self.returns[name] = stops

    def enter(self, frames: list[Frame], thread: int | str | None = None) -> bool:
        """Record the call the stop at ``frames`` began (False: past --max,
        counted only)."""
        depth = len(frames)
        # Calls whose frame is gone without our seeing them return (an
        # exception caught outside them, a longjmp).
        while self.open and self.open[-1].depth >= depth:
            self.open.pop()
        if len(self.calls) >= self.max_calls:
            self.dropped += 1
            return False
        top = frames[0] if frames else None
        caller = frames[1] if len(frames) > 1 else None
        args: list[tuple[str, str]] = []
        if top is not None:
            with contextlib.suppress(DbgError):
                self.backend.frame_args([top], max(self.left(), 0.1))
            args = [(a.name, cut(a.value)) for a in top.args or []]
        record = CallRecord(
            seq=len(self.calls) + 1,
            function=(top.function if top else None) or "?",
            args=args, file=top.file if top else None, line=top.line if top else None,
            caller=(caller.file, caller.line, caller.function) if caller else None,
            thread=thread, depth=len(self.open),
            parent=self.open[-1].record.seq if self.open else None)
        self.calls.append(record)
        self.open.append(_Open(record, depth, {}))
        if self.lines:
            self.line(None)
        self.sink.record(record)
        return True

    def returned(self, event: StopEvent, depth: int) -> bool:
        """A stop past the innermost open call's return: record it."""
        if depth >= self.open[-1].depth:
            return False
        while self.open and self.open[-1].depth > depth:
            done = self.open.pop().record
            done.outcome = "returned"
            if event.return_value is not None:
                done.value = cut(event.return_value.value)
            self.sink.record(done)
        return True

    def line(self, event: StopEvent | None) -> None:
        """With --lines: the line the innermost open call is at, and the
        locals changed since its previous line."""
        entry = self.open[-1]
        try:
            variables = self.backend.locals(max(self.left(), 0.1))
        except DbgError:
            return
        now = {v.name: cut(v.value) for v in variables if not runner_temporary(v.name)}
        changed = [(n, v) for n, v in now.items() if entry.seen.get(n) != v]
        entry.seen = now
        where = event.location.line if event is not None and event.location else \
            entry.record.line
        if where is not None:
            entry.record.lines.append(LineRecord(where, changed))
            self.sink.record(entry.record)


def _returns_here(event: StopEvent) -> bool:
    """The stop's line is a `return` statement (in the languages dbg drives,
    the word that begins it)."""
    where = event.location
    if where is None or not where.file or not where.line:
        return False
    text = next((t for n, t in source_window(where.file, where.line, 0, 0)
                 if n == where.line), "")
    return re.match(r"\s*return\b", text) is not None


def trace(backend: Backend, functions: list[str], lines: bool, max_calls: int,
          timeout: float, sink: CallSink) -> TraceOutcome:
    """`dbg trace` on ``backend``: by its debugger's own means where it has
    them (it overrides :meth:`~dbgcore.backends.contract.Backend.trace`), else by dbg's
    fallback where it can, else refused. Each call goes to ``sink`` as it is
    recorded and as it ends."""
    from dbgcore.backends.contract import Backend

    if type(backend).trace is Backend.trace and backend.has_fallback("trace"):
        return trace_by_stops(backend, functions, lines, max_calls, timeout, sink)
    return backend.trace(functions, lines, max_calls, timeout, sink)


def trace_by_stops(backend: Backend, functions: list[str], lines: bool, max_calls: int,
                   timeout: float, sink: CallSink) -> TraceOutcome:
    """:meth:`dbgcore.backends.contract.Backend.trace` by breakpoints and `finish`."""
    if not functions:
        raise OpFailed("trace: no function named", "name one: dbg trace FUNCTION")
    return _Tracer(backend, functions, lines, max_calls, timeout, sink).run()
