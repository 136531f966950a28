"""The values canonical ops take and return, shared by every backend.

All of them are plain dataclasses with ``to_dict`` so the daemon can send them
to the client as JSON and the session store can record them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Literal

from dbgcore.shared.jsontypes import JsonObject
from dbgcore.vocab.location import BreakLoc

#: "debugger_lost": the debugger died under the session (see DebuggerLost).
StopState = Literal["stopped", "running", "exited", "debugger_lost"]

__all__ = ["BreakLoc"]  # re-exported: it lives in dbgcore.vocab.location, cheap to import

#: The values :func:`_plain` hands on as they are (immutable).
_LEAVES = (str, int, float, bool, type(None))
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _plain(value: object) -> object:
    """What :func:`dataclasses.asdict` makes of ``value``, without its deep
    copy of every string and number (immutable): a stop snapshot is turned
    into JSON twice per stop (its answer and its record), and asdict's
    copying was most of that time."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    names = _FIELD_NAMES.get(kind)
    if names is None and hasattr(kind, "__dataclass_fields__"):
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(value))  # type: ignore[arg-type]
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return kind(*[_plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return kind(_plain(v) for v in value)  # type: ignore[call-arg]
    if isinstance(value, dict):
        return kind((_plain(k), _plain(v)) for k, v in value.items())  # type: ignore[call-arg]
    return copy.deepcopy(value)


def _record(value: object) -> JsonObject:
    """A dataclass instance as :func:`_plain` makes it: a JSON object."""
    data = _plain(value)
    assert isinstance(data, dict)
    return data


@dataclass
class BreakOptions:
    """What a breakpoint does beyond stopping: its condition, hit count, log
    message, and whether it goes at its first hit."""

    condition: str | None = None
    hit_count: int | None = None
    log_message: str | None = None
    temporary: bool = False


@dataclass
class Location:
    """Where the program is: a file and line, and the function (each None
    when the debugger cannot tell)."""

    file: str | None
    line: int | None
    function: str | None

    def __str__(self) -> str:
        where = f"{self.file or '?'}:{self.line or '?'}"
        return f"{where} in {self.function}" if self.function else where


@dataclass
class Breakpoint:
    """A breakpoint as the debugger holds it, with what was asked for."""

    id: int | str
    file: str | None = None
    line: int | None = None
    function: str | None = None
    verified: bool = True
    condition: str | None = None
    hits: int = 0
    requested: str = ""
    requested_line: int | None = None
    temporary: bool = False
    hit_count: int | None = None
    log_message: str | None = None
    kind: str = "source"
    message: str = ""
    #: The text of its line (stripped, cut short), when dbg could read it.
    line_text: str | None = None
    #: The text its line held when it was set, flagged when a restart found
    #: it on no line of the edited file (the breakpoint stayed at its line).
    text_gone: str | None = None

    def to_dict(self) -> JsonObject:
        data = _record(self)
        # Only when known: answers without them keep the shape they had.
        for name in ("line_text", "text_gone"):
            if data[name] is None:
                data.pop(name)
        return data


@dataclass
class Frame:
    """One frame of a stack, innermost first (index 0)."""

    index: int
    function: str | None
    file: str | None
    line: int | None
    current: bool = False
    #: The debugger's, the runner's or the runtime's own frame (runpy, libc's
    #: __libc_start_main, Go's runtime.main), not the program's. Stacks hide
    #: the outermost run of them unless `dbg stack --all`.
    internal: bool = False
    #: A library's or a test runner's frame (the standard library,
    #: site-packages, Go's testing package...) rather than the program's own
    #: code: `dbg stack` hides it unless `--all`, and says how many it hid.
    library: bool = False
    #: Whose code a library frame is: its package or library ("_pytest",
    #: "testing", "java.util", "libc.so.6"), for `dbg stack`'s count of the
    #: frames it hid (None: not a library frame, or the backend cannot tell).
    library_name: str | None = None
    #: The frame's arguments, in order (None: the backend cannot tell).
    args: list[Variable] | None = None
    #: An async caller (:meth:`dbgcore.backends.contract.Backend.async_callers`):
    #: a call waiting on the one above it (an ``await``, a ``.then``), not a
    #: live frame: it has no locals to show and cannot be selected.
    asynchronous: bool = False
    #: On the first async caller of a run: the boundary crossed to reach it,
    #: as the runtime names it (V8's "await", "Promise.then", "setTimeout").
    async_boundary: str | None = None

    def to_dict(self) -> JsonObject:
        data = _record(self)
        if not self.asynchronous:  # the frames of every stack but an async one's
            data.pop("asynchronous")
        if self.async_boundary is None:
            data.pop("async_boundary")
        if self.library_name is None:
            data.pop("library_name")
        if self.args is None:
            data.pop("args")
        else:
            data["args"] = [a.to_dict() for a in self.args]
        return data


@dataclass
class Variable:
    """A named value: a local, an argument, a field."""

    name: str
    value: str
    type: str | None = None
    #: In a stop snapshot: the value differs from the previous stop in this frame.
    changed: bool = False
    #: The value's length before the snapshot cut it (None: not cut).
    cut: int | None = None
    #: A struct's or an object's fields, one level (a stop snapshot expands them).
    fields: list[Variable] | None = None
    #: How many of those fields the snapshot left out.
    fields_more: int = 0
    #: Among a frame's locals, the scope of a variable that is not the
    #: frame's own: a closure's captured one ("closure makeCounter"); None:
    #: the frame's own.
    scope: str | None = None

    def to_dict(self) -> JsonObject:
        data: JsonObject = {"name": self.name, "value": self.value, "type": self.type}
        if self.scope is not None:
            data["scope"] = self.scope
        if self.changed:
            data["changed"] = True
        if self.cut is not None:
            data["cut"] = self.cut
        if self.fields is not None:
            data["fields"] = [f.to_dict() for f in self.fields]
        if self.fields_more:
            data["fields_more"] = self.fields_more
        return data


class FieldList(list[Variable]):
    """The first fields of a value, when a backend reads only so many of them
    (:meth:`dbgcore.backends.contract.Backend.fields`): ``total`` counts them
    all, so what is left out can be counted."""

    def __init__(self, first: list[Variable], total: int) -> None:
        super().__init__(first)
        self.total = total


@dataclass
class Value:
    """The value of an expression (`dbg print`)."""

    value: str
    type: str | None = None

    def to_dict(self) -> JsonObject:
        return _record(self)


@dataclass
class ReturnValue:
    """What the function that `finish` ran out of returned (or, for a
    generator, yielded)."""

    value: str
    type: str | None = None
    kind: Literal["returned", "yielded"] = "returned"

    def to_dict(self) -> JsonObject:
        return _record(self)


@dataclass
class Thread:
    """One thread of the program; where a debugger can tell cheaply (delve's
    goroutines), the place its own code is at (``function``, ``file``,
    ``line``: its innermost frame of the program's code, below the
    library's and runtime's) and why it waits (``state`` "waiting" or
    "blocked", ``waits`` as for :class:`ThreadStack`)."""

    id: int | str
    name: str
    current: bool = False
    function: str | None = None
    file: str | None = None
    line: int | None = None
    state: str | None = None
    waits: str | None = None

    def to_dict(self) -> JsonObject:
        # The place and wait only where the debugger said them: a thread of
        # any other backend answers as it always did.
        return {key: value for key, value in _record(self).items()
                if value is not None or key not in _THREAD_EXTRAS}


#: :class:`Thread`'s fields a backend may leave unknown (None).
_THREAD_EXTRAS = frozenset(("function", "file", "line", "state", "waits"))


@dataclass
class ThreadStack:
    """One thread and its whole stack, innermost frame first, as `dbg
    stacks` reads it from a program that may be running."""

    id: int | str
    name: str
    frames: list[Frame]
    #: What the thread was doing, where the tool can tell: "running" (it
    #: runs Python code, or holds the GIL), "idle" (blocked in C: a lock,
    #: a read, a sleep), "stopped" (the debugger holds it), "blocked" (it
    #: waits to take a lock), "waiting" (it waits to be woken: a wait, a
    #: join, a sleep); None: unknown.
    state: str | None = None
    #: Holds CPython's global interpreter lock (None: not Python, or unknown).
    gil: bool | None = None
    #: The thread the session's debugger has selected.
    current: bool = False
    #: Each frame's local variables by frame index (`dbg stacks --locals`).
    locals: dict[int, list[Variable]] | None = None
    #: What it waits for, where the tool says ("waiting to lock a
    #: java.lang.Object held by 'backward'"); None: nothing, or unknown.
    waits: str | None = None


@dataclass
class StopEvent:
    """What a backend reports after a stopping op: the bare facts of the stop.

    The core turns it into a StopSnapshot by adding the source context and the
    locals, so every backend's snapshot has the same shape.
    """

    state: StopState
    reason: str = ""
    location: Location | None = None
    thread: int | str | None = None
    #: The thread's name, where the debugger tells it beside its id (a
    #: thread other than the main one; None: not said).
    thread_name: str | None = None
    #: How the program ended: its exit status, or the signal that killed it
    #: ("SIGSEGV"; exit_code is then None).
    exit_code: int | None = None
    signal: str | None = None
    description: str = ""
    hit_breakpoints: list[int | str] = field(default_factory=list)
    return_value: ReturnValue | None = None


@dataclass
class SourceLine:
    """A line of source around a stop."""

    line: int
    text: str
    current: bool = False


@dataclass
class StopSnapshot:
    """Everything a stop answers with: the stop's facts (:class:`StopEvent`),
    the source around it, the locals, the watched and shown values."""

    state: StopState
    reason: str = ""
    thread: int | str | None = None
    thread_name: str | None = None
    location: Location | None = None
    exit_code: int | None = None
    signal: str | None = None
    description: str = ""
    hit_breakpoints: list[int | str] = field(default_factory=list)
    return_value: ReturnValue | None = None
    source: list[SourceLine] = field(default_factory=list)
    locals: list[Variable] = field(default_factory=list)
    locals_truncated: bool = False
    #: How many locals the snapshot left out (`dbg locals` shows them all).
    locals_more: int = 0
    #: `dbg display` expressions and `--show` ones, each with its value or error.
    shown: list[JsonObject] = field(default_factory=list)
    #: At a watchpoint stop: each watch that changed, with its old and new value.
    watch: list[JsonObject] = field(default_factory=list)
    #: At the program's end: the breakpoints it never stopped at in this run.
    never_hit: list[JsonObject] = field(default_factory=list)
    #: At an end with a non-zero code or a signal: the last lines the program
    #: wrote to stderr (a usage error, a traceback).
    stderr_tail: list[str] = field(default_factory=list)

    @classmethod
    def from_event(cls, event: StopEvent) -> StopSnapshot:
        return cls(
            state=event.state,
            reason=event.reason,
            thread=event.thread,
            thread_name=event.thread_name,
            location=event.location,
            exit_code=event.exit_code,
            signal=event.signal,
            description=event.description,
            hit_breakpoints=list(event.hit_breakpoints),
            return_value=event.return_value,
        )

    def to_dict(self) -> JsonObject:
        data = _record(self)
        data["locals"] = [v.to_dict() for v in self.locals]
        for key in ("never_hit", "stderr_tail", "thread_name"):
            if not data[key]:
                del data[key]  # said only at an end that has them, a thread that has one
        return data


def signal_name(number: int) -> str:
    """``11`` -> ``"SIGSEGV"`` (``"signal 77"`` for a number Python does not know)."""
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def ended(status: int | None) -> StopEvent:
    """The end of a program from a wait status as Python gives it
    (``Popen.returncode``: negative for a signal), as a StopEvent."""
    if status is not None and status < 0:
        return StopEvent(state="exited", reason="exited", signal=signal_name(-status))
    return StopEvent(state="exited", reason="exited", exit_code=status)
