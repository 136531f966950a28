"""Loaded by dbg's sitecustomize into a test run under debugpy on Python
3.11 and older: the program's main thread runs with no trace function until
something needs pydevd's tracing, as bdb leaves a program untraced when it
has no breakpoints.

Before Python 3.12 pydevd traces with sys.settrace: every call of every
thread goes through its trace function, breakpoints or not. A test run
(pytest imports and rewrites many modules, then calls many small functions)
took 4x its time without the debugger, and any trace function at all, even
one that returns None, costs 1.6-1.9x. So when the program starts with no
line or function breakpoint and no exception filter that watches raised
exceptions, its main thread runs with no trace function. Tracing comes back,
from pydevd's side, when a breakpoint or such a filter is set or a pause is
asked (pydevd's own way of tracing threads it did not start, as when it
attaches); from then on the thread stays traced, as pydevd has it. What
needs no tracing goes on without it: a failing test stops through
dbg_testhook (post mortem), and an uncaught exception of the untraced main
thread stops from sys.excepthook. Threads the program starts are traced by
pydevd as they begin.

Python 3.12 and later: pydevd uses sys.monitoring instead; nothing is done
here.

Written for the debuggee's Python: nothing newer than Python 3.8.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Callable, Sequence
from types import ModuleType, TracebackType
from typing import Any

_CLI = "debugpy.server.cli"
#: Idents of the threads this module left untraced.
_untraced: set[int] = set()
_lock = threading.Lock()
_installed: list[Any] = []


def _pydevd() -> tuple[Any, Any] | None:
    """pydevd's debugger and its tracing module, when they are in settrace mode."""
    pydevd = sys.modules.get("pydevd")
    tracing = sys.modules.get("pydevd_tracing")
    constants = sys.modules.get("_pydevd_bundle.pydevd_constants")
    if pydevd is None or tracing is None or constants is None or \
            getattr(constants, "PYDEVD_USE_SYS_MONITORING", True):
        return None
    py_db = pydevd.get_global_debugger()
    if py_db is None or not getattr(py_db, "ready_to_run", False):
        return None
    return py_db, tracing


def _needs_tracing(py_db: Any) -> bool:
    """Whether anything pydevd was told needs its trace function."""
    return bool(any(py_db.breakpoints.values()) or py_db.function_breakpoint_name_to_breakpoint
                or py_db.break_on_caught_exceptions or py_db.break_on_user_uncaught_exceptions
                or py_db.has_plugin_line_breaks or py_db.has_plugin_exception_breaks)


def _untrace(py_db: Any, tracing: Any) -> None:
    """In the main thread as the program starts: no trace function, unless
    the run was configured with something that needs one."""
    with _lock:
        if not _needs_tracing(py_db):
            _untraced.add(threading.get_ident())
            tracing.SetTrace(None)


def _trace_untraced(py_db: Any, tracing: Any) -> None:
    """From another thread (pydevd's reader): trace the threads left untraced,
    as pydevd traces a thread it attaches to; then the frames they are in."""
    with _lock:
        if not _untraced:
            return
        alive = {t.ident for t in threading.enumerate()}
        idents = [i for i in _untraced if i in alive]
        _untraced.clear()
        if not idents:
            return
        try:
            failed = tracing.set_trace_to_threads(py_db.trace_dispatch, thread_idents=idents,
                                                  create_dummy_thread=False) != 0
        except Exception:
            failed = True
    if failed:
        sys.stderr.write("dbg: could not trace the test run again: a breakpoint or a pause "
                         "may not stop it (backend option lazy_tracing: false)\n")
    py_db.set_tracing_for_untraced_contexts()


def _wrap_debugger(py_db: Any, tracing: Any) -> None:
    if _installed:
        return
    _installed.append(py_db)
    # On the instance: pydevd (and its Cython tracer) calls them as py_db.NAME(...).
    on_breakpoints_changed = py_db.on_breakpoints_changed
    set_suspend = py_db.set_suspend

    def breakpoints_changed(*args: Any, **kwargs: Any) -> Any:
        result = on_breakpoints_changed(*args, **kwargs)
        if _needs_tracing(py_db):
            _trace_untraced(py_db, tracing)
        return result

    def suspend(*args: Any, **kwargs: Any) -> Any:
        # A pause (asked from pydevd's reader thread) of threads that run
        # untraced would never be seen. A thread that stops itself (a failing
        # test's post mortem stop) goes on untraced after it.
        thread = args[0] if args else kwargs.get("thread")
        if getattr(thread, "ident", None) != threading.get_ident():
            _trace_untraced(py_db, tracing)
        return set_suspend(*args, **kwargs)

    # Not do_wait_suspend (to leave a thread untraced again as it resumes):
    # with any function between pydevd's tracer and it, a step over ends in
    # the caller of the function stepped in.
    py_db.on_breakpoints_changed = breakpoints_changed
    py_db.set_suspend = suspend
    _wrap_excepthook()


def _wrap_excepthook() -> None:
    previous = sys.excepthook

    def excepthook(kind: type[BaseException], exc: BaseException,
                   tb: TracebackType | None) -> None:
        # pydevd sees an uncaught exception from its trace function in the
        # thread's first frame; an untraced main thread needs this instead.
        if threading.get_ident() in _untraced and tb is not None:
            debugpy = sys.modules.get("debugpy")
            trigger = getattr(debugpy, "trigger_exception_handler", None)
            if trigger is not None:
                try:
                    trigger((kind, exc, tb), as_uncaught=True)
                except Exception:
                    pass
        previous(kind, exc, tb)

    sys.excepthook = excepthook


def _program_starts() -> None:
    found = _pydevd()
    if found is None:
        return
    py_db, tracing = found
    _wrap_debugger(py_db, tracing)
    _untrace(py_db, tracing)


def _patch_cli(module: ModuleType) -> None:
    start_debugging: Callable[..., Any] | None = getattr(module, "start_debugging", None)
    if start_debugging is None:
        return

    def start(*args: Any, **kwargs: Any) -> Any:
        # Returns once the client has configured the run (its breakpoints
        # are set), just before the program's code runs: no frame of ours
        # stays under the program's.
        result = start_debugging(*args, **kwargs)
        try:
            _program_starts()
        except Exception:
            pass  # the run goes on traced, as without this module
        return result

    setattr(module, "start_debugging", start)  # noqa: B010


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        _patch_cli(module)
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Finder)]


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != _CLI:
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            spec: importlib.machinery.ModuleSpec | None = getattr(
                finder, "find_spec", lambda *a: None)(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader)
                return spec
        return None


def install() -> None:
    """Leave the run untraced while nothing needs tracing (before 3.12)."""
    if sys.version_info >= (3, 12) or _CLI in sys.modules:
        return
    sys.meta_path.insert(0, _Finder())
