"""The program's threads under pdb, which traces only the thread it runs in
(``sys.settrace`` is per thread): the trace spread to the other threads
whenever the program goes on with something to stop at, so that a
breakpoint stops in any thread (a request handler of a
``ThreadingHTTPServer``, a pool's worker); and the threads as dbg lists
them, the one a stop is in, and the exception it handles there.

Threads started from then on get the trace through ``threading.settrace``.
Threads already running get it through ``threading.settrace_all_threads``
(Python 3.12+), and their running frames in the files with breakpoints
(or all of them, while `dbg catch` is set) get their ``f_trace``; before
3.12 a thread that started with no trace set cannot be given one from
another thread, and runs on untraced.

Apart from the debugger class because none of this is pdb's: the debugger
asks it after each stop, and for its stop reports.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING

from .stops import _debugger_frame, _exception_info, _from_program, _library_file

if TYPE_CHECKING:  # (subscripted types: the program's Python may be 3.8)
    from collections.abc import Callable
    from types import FrameType
    from typing import Any

    from _typeshed import TraceFunction

    JsonObject = dict[str, Any]

#: Python 3.12's way to set a trace function in every thread at once.
_EVERY_THREAD = getattr(threading, "settrace_all_threads", None)


def spread_trace(trace: TraceFunction | None, traced: Callable[[FrameType], bool],
                 lines: bool) -> None:
    """Trace every thread with ``trace`` (None: threads started from now on
    are not traced; the ones traced before keep it, finding nothing to stop
    at). ``traced``: whether a running frame of another thread must get
    ``trace`` as its own (its file has a breakpoint); with ``lines`` False,
    for its exception events only."""
    threading.settrace(trace)
    if trace is None:
        return
    if _EVERY_THREAD is not None:
        _EVERY_THREAD(trace)
    me = threading.get_ident()
    for ident, frame in sys._current_frames().items():
        if ident == me:
            continue
        running: FrameType | None = frame
        while running is not None:
            if running.f_trace is None and not _debugger_frame(running):
                wanted = traced(running)
                if wanted or not lines:
                    running.f_trace = trace  # type: ignore[assignment]
                    running.f_trace_lines = wanted
            running = running.f_back


def current_thread() -> JsonObject | None:
    """The thread this runs in, as a stop names it; None for the main
    thread (a program of one thread says nothing of threads)."""
    thread = threading.current_thread()
    if thread is threading.main_thread():
        return None
    return {"id": _thread_id(thread), "name": thread.name}


def handled_exception() -> JsonObject | None:
    """The exception this thread handles now (a stop inside an ``except``
    block, or below one), as `dbg exception` tells it; None: none."""
    exc = sys.exc_info()[1]
    if exc is None:
        return None
    info = _exception_info(exc, _from_program(exc.__traceback__))
    info["handled"] = True
    return info


def _thread_id(thread: threading.Thread) -> int:
    """The system's id of ``thread`` (py-spy's and `dbg stacks`'s too)."""
    return int(getattr(thread, "native_id", None) or thread.ident or 0)


def thread_list() -> list[JsonObject]:
    """The program's threads, main first, each with its place: the innermost
    frame of the program's own code (else of any code but the debugger's)."""
    frames = sys._current_frames()
    me = threading.get_ident()
    listed = []
    main = threading.main_thread()
    for thread in sorted(threading.enumerate(), key=lambda t: t is not main):
        row: JsonObject = {"id": _thread_id(thread), "name": thread.name,
                           "current": thread.ident == me}
        place = _place(frames.get(thread.ident or 0))
        if place is not None:
            row.update(place)
        listed.append(row)
    return listed


def _place(frame: FrameType | None) -> JsonObject | None:
    fallback = None
    while frame is not None:
        if not _debugger_frame(frame):
            code = frame.f_code
            place = {"function": code.co_name, "file": code.co_filename,
                     "line": frame.f_lineno}
            if not _library_file(code.co_filename):
                return place
            fallback = fallback or place
        frame = frame.f_back
    return fallback
