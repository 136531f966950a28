"""A recorded run as a replay walks it: the calls `dbg trace --lines`
recorded, and their events (each line a call reached, each call's end) in
the order they happened.

The tracer numbers every event of a trace (the record's ``n``), so a call's
lines and its callees' interleave as they ran. Several traces in one run
each number from 1: a call entered at or before the previous call's number
begins the next trace. A record without numbers (a tracer that does not
number its events) is taken call after call, each call's lines then its end
(:func:`dbgcore.api.recorded_events` says which order).

A point of the replay is an index into :attr:`Record.events`. The locals at
a line are the changes recorded up to it in its call, accumulated: what the
tracer saw as that line was about to run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dbgcore.api import recorded_events

Payload = dict[str, Any]


@dataclass
class Call:
    """One recorded call of a traced function."""

    seq: int
    function: str
    file: str | None
    parent: int | None
    #: Where it was called from: (file, line, function), when recorded.
    caller: tuple[str | None, int | None, str | None] | None
    thread: str | int | None
    outcome: str
    value: str | None
    #: (line, changed locals, place in the record) of each line it reached.
    lines: list[tuple[int, list[tuple[str, str]], int]] = field(default_factory=list)
    #: Its entry's place in the record.
    entered: int = 0


@dataclass
class Event:
    """A point of the replay: a line a call reached (``line`` the index in
    its lines), or the end of a call (``line`` None)."""

    seq: int
    line: int | None


class Record:
    """The events of a run's traced calls in the order they happened
    (:func:`dbgcore.api.recorded_events`); a place in the record is an
    event's index, and a call is entered just before its first event."""

    def __init__(self, calls: list[Payload]) -> None:
        order, self.numbered = recorded_events(calls)
        self.calls: dict[int, Call] = {}
        by_index: dict[int, Call] = {}
        for index, data in enumerate(calls):
            caller = data.get("caller")
            call = Call(int(data["seq"]), str(data.get("function") or "?"), data.get("file"),
                        data.get("parent"),
                        (caller.get("file"), caller.get("line"), caller.get("function"))
                        if isinstance(caller, dict) else None,
                        data.get("thread"), str(data.get("outcome") or "unfinished"),
                        data.get("value"), entered=len(order))
            self.calls[call.seq] = call
            by_index[index] = call
        self.events: list[Event] = []
        for place, (index, at) in enumerate(order):
            call = by_index[index]
            if (not call.lines and at is None) or at == 0:
                call.entered = place
            if at is not None:
                row = calls[index]["lines"][at]
                changed = [(str(c["name"]), str(c["value"])) for c in row.get("changed") or []]
                call.lines.append((int(row["line"]), changed, place))
                at = len(call.lines) - 1
            self.events.append(Event(call.seq, at))
        #: Indexes of the line events.
        self.line_points = [i for i, e in enumerate(self.events) if e.line is not None]

    # -- what a point is -----------------------------------------------------------

    def call_of(self, point: int) -> Call:
        return self.calls[self.events[point].seq]

    def line_at(self, point: int) -> int | None:
        event = self.events[point]
        return None if event.line is None else self.calls[event.seq].lines[event.line][0]

    def ancestors(self, seq: int) -> list[Call]:
        """The call ``seq`` and the traced calls it is inside, innermost first."""
        out: list[Call] = []
        at: int | None = seq
        while at is not None and at in self.calls and len(out) < 10_000:
            out.append(self.calls[at])
            at = self.calls[at].parent
        return out

    def inside(self, seq: int, outer: int) -> bool:
        """Whether call ``seq`` is ``outer`` or runs inside it."""
        return any(c.seq == outer for c in self.ancestors(seq))

    def locals_of(self, call: Call, before: int) -> list[tuple[str, str]]:
        """``call``'s locals as of the place ``before`` (its lines up to
        that place, their changes accumulated), in the order first seen."""
        values: dict[str, str] = {}
        for _, changed, place in call.lines:
            if place > before:
                break
            for name, value in changed:
                values[name] = value
        return list(values.items())

    def line_before(self, call: Call, place: int) -> int | None:
        """The line ``call`` was at just before ``place`` (its last line
        before it: where it called what runs at ``place``)."""
        found = None
        for line, _, at in call.lines:
            if at >= place:
                break
            found = line
        return found

    def frames(self, point: int) -> list[tuple[str, str | None, int | None, int | None]]:
        """The stack at ``point``, innermost first: (function, file, line,
        the place its locals are read as of; None for a caller that was not
        traced). At a call's end: its caller's frames."""
        event = self.events[point]
        place = point
        chain = self.ancestors(event.seq)
        out: list[tuple[str, str | None, int | None, int | None]] = []
        if event.line is not None:
            out.append((chain[0].function, chain[0].file, self.line_at(point), place))
        inner = chain[0]
        for outer in chain[1:]:
            line = self.line_before(outer, inner.entered)
            if line is None and inner.caller is not None:
                line = inner.caller[1]
            out.append((outer.function, outer.file, line, inner.entered))
            inner = outer
        if inner.caller is not None:
            file, line, function = inner.caller
            out.append((function or "?", file, line, None))
        return out

    # -- where a motion goes ---------------------------------------------------------

    def next_line(self, point: int, back: bool, keep: Any = None) -> int | None:
        """The next (``back``: previous) line event from ``point`` for which
        ``keep(index)`` holds (default: any); None past the record's end."""
        step = -1 if back else 1
        i = point + step
        while 0 <= i < len(self.events):
            if self.events[i].line is not None and (keep is None or keep(i)):
                return i
            i += step
        return None

    def end_of(self, seq: int) -> int | None:
        """The event of call ``seq``'s end (None: it did not end in the record)."""
        return next((i for i, e in enumerate(self.events) if e.seq == seq and e.line is None),
                    None)
