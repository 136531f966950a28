"""`dbg watch EXPR` for Python, inside the debugged program.

Python has no hardware watchpoints: a watch is checked line by line in the
frame where it was set. This module runs in the *program's* interpreter
(standard library only, Python 3.8 syntax); a backend loads it by its file
path (:func:`load_expression`) and keeps, per watch id, the frame object,
the expression's compiled code and the last value seen (its repr).

Two ways to ask it:
- a debugger whose own trace function sees the frame's line events (pdb's)
  calls :func:`check` with that frame;
- a debugger that only evaluates breakpoint conditions (pydevd) puts a call
  of :func:`changed` as the condition of a hidden breakpoint on every line
  of the frame's code (:func:`add` gives them): the condition runs in the
  debugger's trace function, which the traced frame called, so the traced
  frame is the first caller that is not the debugger's.

Either answers True only in the watched frame, and only when the value's repr
changed since the last time it was seen (the stop is then at the line after
the statement that changed it, as gdb's software watchpoints stop). An
expression that fails to evaluate there is never a change: the last value it
had stays the one compared with.
"""

from __future__ import annotations

import dis
import os
import sys
import threading
from types import CodeType, FrameType

#: A value's repr up to this long is kept as is; a longer one by its length
#: and hash (a large list is compared whole, not kept whole).
KEPT_CHARS = 4096

_FAILED = object()


#: The builtin a hidden breakpoint's condition calls: ``CONDITION_NAME + "()"``.
CONDITION_NAME = "__dbg_watch_changed__"


class WatchRefused(Exception):
    """The expression does not evaluate in the frame now."""


def _error_line(exc: BaseException) -> str:
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


class _Watch:
    __slots__ = ("code", "expression", "frame", "last", "thread")

    def __init__(self, frame: FrameType, code: CodeType, expression: str, last: object) -> None:
        self.frame = frame
        self.code = code
        self.expression = expression
        self.last = last
        self.thread = threading.get_ident()


_watches: dict[int, _Watch] = {}
#: Module-name prefixes of the debugger's own frames (see changed).
_skip: tuple[str, ...] = ()
#: The watches that changed where :func:`changed` last answered True.
_hits: list[int] = []


def _reading(code: CodeType, frame: FrameType) -> object:
    """The expression's value in ``frame``, as compared (_FAILED: none)."""
    try:
        text = repr(eval(code, frame.f_globals, frame.f_locals))
    except Exception:
        return _FAILED
    return text if len(text) <= KEPT_CHARS else (len(text), hash(text))


def _same_file(a: str, b: str) -> bool:
    return a == b or os.path.realpath(a) == os.path.realpath(b)


def _find_frame(file: str, line: int, nth: int) -> FrameType:
    """The ``nth`` frame (1: the innermost) up the caller chain that runs
    ``line`` of ``file``: the one a debugger's frame list names by place."""
    frame: FrameType | None = sys._getframe(2)
    seen = 0
    while frame is not None:
        if frame.f_lineno == line and _same_file(frame.f_code.co_filename, file):
            seen += 1
            if seen == nth:
                return frame
        frame = frame.f_back
    raise LookupError(f"the selected frame ({file}:{line}) is not on this thread's stack")


def _lines(code: CodeType) -> list[int]:
    """The lines of ``code`` itself (not of the functions it defines): where
    its line events can happen. A function's `def` line is left out: no line
    event of the function's own frame happens there."""
    lines = {line for _, line in dis.findlinestarts(code) if line}
    if code.co_name != "<module>":
        lines.discard(code.co_firstlineno)
    return sorted(lines)


def add(watch_id: int, expression: str, frame: FrameType | None = None,
        where: tuple[str, int, int] | None = None,
        skip: tuple[str, ...] = ()) -> dict[str, object]:
    """Watch ``expression`` in ``frame`` (or in the frame ``where`` =
    (file, line, nth) names, see _find_frame). Refused (an exception) when it
    does not compile or does not evaluate there now."""
    code = compile(expression, "<watch>", "eval")
    if frame is None:
        if where is None:
            raise ValueError("a watch needs its frame")
        frame = _find_frame(*where)
    try:
        text = repr(eval(code, frame.f_globals, frame.f_locals))
    except Exception as exc:
        # Said with the frame: after `dbg restart` it is the new run's first
        # one, not the one the watch was set in.
        raise WatchRefused(f"{_error_line(exc)}, in the frame of {frame.f_code.co_name} "
                           f"({os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno})"
                           ) from exc
    _watches[watch_id] = _Watch(frame, code, expression,
                                text if len(text) <= KEPT_CHARS else (len(text), hash(text)))
    global _skip
    _skip = tuple(skip)
    # A condition is compiled at each line it is checked at: the shortest
    # text that calls `changed` (a builtin's name) costs half of an import.
    import builtins

    setattr(builtins, CONDITION_NAME, changed)
    return {"file": os.path.realpath(frame.f_code.co_filename), "function": frame.f_code.co_name,
            "line": frame.f_lineno, "lines": _lines(frame.f_code)}


def add_answer(watch_id: int, expression: str, where: tuple[str, int, int],
               skip: tuple[str, ...] = ()) -> str:
    """:func:`add`'s answer as JSON, for a debugger that evaluates it: the
    reason it was refused as {"error": ...}."""
    import json

    try:
        placed = add(watch_id, expression, where=where, skip=skip)
    except WatchRefused as exc:
        placed = {"error": str(exc)}
    except Exception as exc:
        placed = {"error": _error_line(exc)}
    return json.dumps(placed)


def remove(watch_id: int) -> bool:
    # The frame is let go: a watch keeps its frame's locals alive until then.
    return _watches.pop(watch_id, None) is not None


def check(watch_id: int, frame: FrameType) -> bool:
    """At a line event of ``frame``: whether it is the watched frame and the
    value changed there (it is then the value compared with next)."""
    watch = _watches.get(watch_id)
    if watch is None or frame is not watch.frame:
        return False
    now = _reading(watch.code, frame)
    if now is _FAILED or now == watch.last:
        return False
    watch.last = now
    return True


def changed() -> bool:
    """A hidden breakpoint's condition: :func:`check` of every watch in the
    frame the debugger is tracing. Frame 1 is the condition's own; above it,
    the debugger's frames (by module name), then the traced frame. Never
    raises: a condition that raised would stop the program."""
    try:
        if not _watches:
            return False
        frame = _program_frame(sys._getframe(2))
        if frame is None:
            return False
        # Each one, not the first that changed: each keeps its last value.
        hits = [watch_id for watch_id in list(_watches) if check(watch_id, frame)]
        if hits:
            _hits[:] = hits
        return bool(hits)
    except Exception:
        return False


def _program_frame(frame: FrameType | None) -> FrameType | None:
    """The first frame from ``frame`` up that is not the debugger's."""
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_skip):
        frame = frame.f_back
    return frame


def at_stop(watch_ids: list[int]) -> dict[str, list[int]]:
    """At a stop, from an expression the debugger evaluates in the stopped
    thread: "gone", :func:`not_running` of ``watch_ids``, and "changed", the
    watches that changed where :func:`changed` last stopped the program
    (since the last stop). A watch whose frame is the one stopped in takes
    its value now as seen: a change made at a line that nothing checked (one
    holding another of the debugger's breakpoints) is shown at this stop, not
    reported later at a line that did not make it."""
    here = _program_frame(sys._getframe(2))  # 1: the evaluated expression's own
    for watch in _watches.values():
        if watch.frame is here:
            now = _reading(watch.code, here)
            if now is not _FAILED:
                watch.last = now
    hits = list(_hits)
    del _hits[:]
    return {"gone": not_running(watch_ids), "changed": hits}


def not_running(watch_ids: list[int]) -> list[int]:
    """The watches among ``watch_ids`` whose frame is on no thread's stack
    now: returned (or, a generator's, suspended): they cannot change until
    it runs again, if ever. Asked while the program is stopped."""
    stacks = sys._current_frames()
    out = []
    for watch_id in watch_ids:
        watch = _watches.get(watch_id)
        if watch is None:
            continue
        frame: FrameType | None = stacks.get(watch.thread)
        while frame is not None and frame is not watch.frame:
            frame = frame.f_back
        if frame is None:
            out.append(watch_id)
    return out


def note(function: str, file: str, line: int) -> str:
    """Where a watch was set, as `dbg breaks` says it (read by dbg, not here)."""
    return f"in the frame of {function} ({os.path.basename(file)}:{line} when set)"


#: Added to the note of a watch whose frame is not running any more.
GONE = (", a frame not running any more (it returned): the watch cannot change; "
        "`dbg unbreak` removes it")


def load_expression(path: str, name: str = "_dbg_pywatch") -> str:
    """A Python expression that gives this module in the program, loading it
    from ``path`` the first time (once per process, kept in sys.modules)."""
    return (f"(lambda s, t: s.modules.get({name!r}) or (lambda m: (s.modules.__setitem__({name!r}, "
            f"m), exec(compile(__import__('pathlib').Path({path!r}).read_text('utf-8'), {path!r}, "
            "'exec'), m.__dict__), m)[2])"
            f"(t.ModuleType({name!r})))(__import__('sys'), __import__('types'))"
            )
