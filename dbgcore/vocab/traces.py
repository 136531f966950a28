"""Call traces: what `dbg trace` records of each call of the functions it is
given, and the one record format every tracer writes.

A backend traces in one of two ways:

- with the debugger's own means, in the debuggee or the debugger (Python's
  profile hook, gdb's Python breakpoints): it overrides
  :meth:`dbgcore.backends.contract.Backend.trace`, runs the program and returns a
  :class:`TraceOutcome`. A tracer that runs in another process writes the
  *trace file* (below), which :func:`read_trace_file` turns into records;
- without them, by the fallback of :mod:`dbgcore.backends.stoptracer`: internal
  breakpoints on the functions, `finish` for each return, `next` for each
  line with ``--lines``, out of the backend's own op methods.

**The trace file** is JSON Lines, one event per line, written as they happen
(so a program that dies keeps what it did before), with these keys:

``{"e": "call", "seq": 1, "fn": "tri", "args": [["n", "4"]], "file": "/abs/t.py",
"line": 3, "caller": ["/abs/t.py", 9, "main"], "thread": "MainThread",
"depth": 0, "parent": null}``
    a call entered. ``seq`` numbers calls in the order they were entered,
    from 1; ``depth`` counts the traced calls it is inside, ``parent`` is
    the ``seq`` of the innermost one (null: none). ``line`` is where the
    function starts (its first line), ``caller`` where it was called from
    (file, line, function; null when unknown).
``{"e": "return", "seq": 1, "value": "10", "ns": 41250}``
    that call returned ``value`` (the debugger's text of it; null when it
    cannot know), ``ns`` nanoseconds after it was entered (wall time, as the
    tracer measures it; absent when it cannot);
``{"e": "raise", "seq": 1, "value": "ValueError: bad entry -3", "ns": 9000}``
    that call ended by an exception (or a panic, a longjmp: the debugger's
    words) leaving it;
``{"e": "line", "seq": 1, "line": 12, "changed": [["charge", "8"]]}``
    with ``--lines``: that call reached line 12, and these locals had
    changed since its previous line (all of them at its first line);
``"n": 14`` (in any of the four above, optional)
    numbers the events of one trace in the order they happened, across its
    calls (a call's lines and its callees' interleave): what a replay of
    the record (`dbg replay`) follows. A tracer that cannot number them
    leaves it out, and a replay takes each call's lines one call after another;
``{"e": "dropped", "count": 7}``
    the last word of a tracer that stopped recording at ``--max``: this many
    more calls were made and not recorded.

Values are the debugger's text, cut at :data:`VALUE_CHARS`.

**What a trace records is kept as it comes**, not when the op ends: a
backend's ``trace`` is given a :class:`CallSink` and hands it each call as
it is entered and again as it ends (the core's sink writes them to the store
in batches, :mod:`dbgcore.store.recording`). A tracer that writes a trace file
has it read as it grows by :func:`follow_trace_file`, which feeds the sink.
"""

from __future__ import annotations

import contextlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from dbgcore.shared.jsontypes import JsonObject

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from dbgcore.vocab.model import StopEvent

#: How long a value may be in a record (args, return values, changed locals).
VALUE_CHARS = 200
#: Time a trace keeps back from its op's timeout to pause the program and
#: stop its tracer.
TRACE_MARGIN = 2.0
#: `--max`'s default: calls recorded by one `dbg trace`.
DEFAULT_MAX_CALLS = 10_000
#: How a call ended: returned, left by an exception, or still running when
#: the trace ended (the program stopped inside it, or died in it).
Outcome = Literal["returned", "raised", "unfinished"]
#: How often a trace file is read while it is written, in seconds.
FOLLOW_SECONDS = 0.1


def cut(text: str, limit: int = VALUE_CHARS) -> str:
    """``text`` within ``limit`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class LineRecord:
    """With ``--lines``: a line a traced call reached, and the locals that
    changed there (name, value)."""

    line: int
    changed: list[tuple[str, str]] = field(default_factory=list)
    #: Its place among the trace's events (the trace file's ``n``), if numbered.
    n: int | None = None

    def to_dict(self) -> JsonObject:
        out: JsonObject = {"line": self.line,
                           "changed": [{"name": n, "value": v} for n, v in self.changed]}
        if self.n is not None:
            out["n"] = self.n
        return out


@dataclass
class CallRecord:
    """One call of a traced function."""

    seq: int
    function: str
    args: list[tuple[str, str]] = field(default_factory=list)
    file: str | None = None
    line: int | None = None
    #: Where it was called from: (file, line, function).
    caller: tuple[str | None, int | None, str | None] | None = None
    thread: str | int | None = None
    depth: int = 0
    parent: int | None = None
    outcome: Outcome = "unfinished"
    #: The return value (returned) or the exception's text (raised); None
    #: when the debugger cannot know it or the call has not ended.
    value: str | None = None
    lines: list[LineRecord] = field(default_factory=list)
    #: Seconds from its entry to its end, when the tracer measures them.
    duration: float | None = None
    #: The places of its entry and of its end among the trace's events (the
    #: trace file's ``n``), when the tracer numbers them.
    n: int | None = None
    end_n: int | None = None

    def to_dict(self) -> JsonObject:
        out: JsonObject = {
            "seq": self.seq, "function": self.function,
            "args": [{"name": n, "value": v} for n, v in self.args],
            "file": self.file, "line": self.line, "thread": self.thread,
            "depth": self.depth, "parent": self.parent,
            "outcome": self.outcome, "value": self.value,
        }
        if self.caller is not None:
            file, line, function = self.caller
            out["caller"] = {"file": file, "line": line, "function": function}
        if self.duration is not None:
            out["duration"] = self.duration
        if self.n is not None:
            out["n"] = self.n
        if self.end_n is not None:
            out["end_n"] = self.end_n
        if self.lines:
            out["lines"] = [r.to_dict() for r in self.lines]
        return out

    @classmethod
    def from_dict(cls, data: JsonObject) -> CallRecord:
        caller = data.get("caller")
        return cls(
            seq=int(data["seq"]), function=str(data["function"]),
            args=[(str(a["name"]), str(a["value"])) for a in data.get("args") or []],
            file=data.get("file"), line=data.get("line"),
            caller=(caller.get("file"), caller.get("line"), caller.get("function"))
            if isinstance(caller, dict) else None,
            thread=data.get("thread"), depth=int(data.get("depth") or 0),
            parent=data.get("parent"), outcome=data.get("outcome") or "unfinished",
            value=data.get("value"), duration=data.get("duration"),
            n=data.get("n"), end_n=data.get("end_n"),
            lines=[LineRecord(int(r["line"]), [(str(c["name"]), str(c["value"]))
                                               for c in r.get("changed") or []], r.get("n"))
                   for r in data.get("lines") or []])


@dataclass
class TraceOutcome:
    """What a backend's :meth:`~dbgcore.backends.contract.Backend.trace` returns: the
    calls recorded (in the order they were entered), where the run ended, and
    how many calls went unrecorded past ``--max``."""

    calls: list[CallRecord]
    #: Where the program stopped (a breakpoint, an exception, the end, or a
    #: pause when the op's time ran out).
    event: StopEvent
    dropped: int = 0
    #: How it traced, for the answer ("profile hook in the debuggee").
    means: str = ""
    #: Anything the user should know about the records (what it could not see).
    note: str = ""
    #: The op's time ran out and the program was paused there.
    timed_out: bool = False


class CallSink(Protocol):
    """Where a trace's calls go as they are recorded (the store, in batches:
    dbgcore.store.recording.StoredCalls)."""

    def record(self, call: CallRecord) -> None:
        """``call`` was entered, or has changed since it was given (it
        returned, raised, reached a line): keep it as it is now. Called from
        the thread that records; cheap (the sink writes later)."""


class Discard:
    """A sink that keeps nothing: for a trace whose calls only its answer needs."""

    def record(self, call: CallRecord) -> None:
        return None


def traced_run(resume: Callable[[float], StopEvent], pause: Callable[[float], StopEvent],
               timeout: float) -> tuple[StopEvent, bool]:
    """Run the program on, a tracer in place, until it stops by itself; when
    the op's time runs out (:data:`TRACE_MARGIN` kept back), pause it.
    Returns where it stopped and whether the time ran out."""
    running = max(timeout - TRACE_MARGIN, timeout / 2)
    event = resume(running)
    if event.state != "running":
        return event, False
    return pause(max(timeout - running, 1.0)), True


def read_trace_file(path: Path) -> tuple[list[CallRecord], int]:
    """The calls a tracer wrote to ``path`` (see the module's docstring), in
    the order they were entered, and the count of calls it did not record.
    A torn last line (a tracer killed mid-write) is skipped; a missing file
    is no calls."""
    reader = TraceFileReader(path)
    reader.read(final=True)
    return reader.calls(), reader.dropped


class TraceFileReader:
    """A trace file read as it grows: each :meth:`read` applies the lines
    completed since the last one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._calls: dict[int, CallRecord] = {}
        self.dropped = 0
        self._offset = 0
        #: The start of a line not completed yet.
        self._partial = b""

    def read(self, final: bool = False) -> list[CallRecord]:
        """Apply what was written since; the calls it entered or changed.
        ``final``: the tracer has stopped, a last line without its newline
        is read too (if it is whole)."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                data = fh.read()
        except FileNotFoundError:
            return []
        self._offset += len(data)
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        if final and self._partial:
            lines.append(self._partial)
            self._partial = b""
        touched: dict[int, CallRecord] = {}
        for raw in lines:
            try:
                event = json.loads(raw.decode("utf-8", errors="replace"))
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            with contextlib.suppress(KeyError, TypeError, ValueError):
                record = _apply(self._calls, event)
                if record is not None:
                    touched[record.seq] = record
                if event.get("e") == "dropped":
                    self.dropped += int(event["count"])
        return list(touched.values())

    def calls(self) -> list[CallRecord]:
        """The calls read so far, in the order they were entered."""
        return [self._calls[k] for k in sorted(self._calls)]


@contextlib.contextmanager
def follow_trace_file(path: Path, sink: CallSink) -> Iterator[TraceFileReader]:
    """Read the trace file at ``path`` every :data:`FOLLOW_SECONDS` while the
    block runs (the tracer writing it), handing the sink each call entered
    or changed; at the block's end, once more to its last line. The reader
    it yields has the calls and the count dropped, after the block."""
    reader = TraceFileReader(path)
    done = threading.Event()

    def follow() -> None:
        while not done.wait(FOLLOW_SECONDS):
            for call in reader.read():
                sink.record(call)

    thread = threading.Thread(target=follow, name="dbg-trace-follow", daemon=True)
    thread.start()
    try:
        yield reader
    finally:
        done.set()
        thread.join()
        for call in reader.read(final=True):
            sink.record(call)


def _apply(calls: dict[int, CallRecord], event: JsonObject) -> CallRecord | None:
    """Apply one event of a trace file; the call it entered or changed."""
    kind = event.get("e")
    if kind == "call":
        caller = event.get("caller")
        seq = int(event["seq"])
        calls[seq] = CallRecord(
            seq=seq, function=str(event["fn"]),
            args=[(str(n), cut(str(v))) for n, v in event.get("args") or []],
            file=event.get("file"), line=event.get("line"),
            caller=(caller[0], caller[1], caller[2]) if isinstance(caller, list)
            and len(caller) == 3 else None,
            thread=event.get("thread"), depth=int(event.get("depth") or 0),
            parent=event.get("parent"), n=_order(event))
        return calls[seq]
    if kind not in ("return", "raise", "line"):
        return None
    record = calls.get(int(event.get("seq", 0)))
    if record is None:
        return None
    if kind in ("return", "raise"):
        record.outcome = "returned" if kind == "return" else "raised"
        value = event.get("value")
        record.value = None if value is None else cut(str(value))
        if isinstance(event.get("ns"), int):
            record.duration = event["ns"] / 1e9
        record.end_n = _order(event)
    else:
        record.lines.append(LineRecord(int(event["line"]), [
            (str(n), cut(str(v))) for n, v in event.get("changed") or []], _order(event)))
    return record


def recorded_events(calls: list[JsonObject]) -> tuple[list[tuple[int, int | None]], bool]:
    """The events of a run's traced calls (CallRecord dicts, as the store
    keeps them) in the order they happened: (the call's index in ``calls``,
    the index of a line in its ``lines``, or None for its end), and whether
    the tracer numbered them (``n``). Several traces in one run each number
    from 1: a call entered at or before the previous call's number begins
    the next trace. Without numbers: call after call, each call's lines and
    then its end."""
    numbered = bool(calls) and all(
        c.get("n") is not None and all(r.get("n") is not None for r in c.get("lines") or [])
        and (c.get("end_n") is not None or c.get("outcome") not in ("returned", "raised"))
        for c in calls)
    keyed: list[tuple[tuple[int, int], tuple[int, int | None]]] = []
    trace, last, counter = 0, 0, 0
    for index in sorted(range(len(calls)), key=lambda i: int(calls[i]["seq"])):
        call = calls[index]
        if numbered:
            if int(call["n"]) <= last:
                trace += 1
            last = int(call["n"])
        for at, row in enumerate(call.get("lines") or []):
            counter += 1
            keyed.append(((trace, int(row["n"]) if numbered else counter), (index, at)))
        if call.get("outcome") in ("returned", "raised"):
            counter += 1
            keyed.append(((trace, int(call["end_n"]) if numbered else counter), (index, None)))
    keyed.sort(key=lambda pair: pair[0])
    return [event for _, event in keyed], numbered


def _order(event: JsonObject) -> int | None:
    """An event's ``n`` (its place in the trace), None when not numbered."""
    n = event.get("n")
    return n if isinstance(n, int) and not isinstance(n, bool) else None
