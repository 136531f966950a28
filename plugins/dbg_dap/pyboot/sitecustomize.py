"""Put on a debugpy debuggee's PYTHONPATH by dbg: sets TCP_NODELAY on pydevd's
connection to the debugpy adapter, marks a normal end of the program, and
gives the program the standard input dbg names in ``$DBG_STDIN``.

debugpy reports a death by signal N as exit code 256 - N, the same as an
exit with that code; a program that ends normally runs its atexit hooks,
so one of ours leaves a file ``$DBG_EXIT_MARK-PID`` that tells them apart.

Without it every answer that crosses that socket waits ~40 ms for Nagle's
algorithm and the peer's delayed ACK (debugpy issue #2054). We wrap
``_pydevd_bundle.pydevd_comm.start_client`` as the module is imported, before
pydevd binds the name, and touch no other socket. Then we hand over to any
sitecustomize this one shadows, so the user's own still runs.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import socket
import sys
import threading
from collections.abc import Sequence
from types import FrameType, ModuleType

_TARGET = "_pydevd_bundle.pydevd_comm"
_HERE = os.path.dirname(os.path.abspath(__file__))


def _patch(module: ModuleType) -> None:
    original = getattr(module, "start_client", None)
    if original is None or getattr(original, "_dbg_nodelay", False):
        return

    def start_client(host: str, port: int) -> socket.socket:
        sock: socket.socket = original(host, port)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except (OSError, AttributeError):
            pass
        return sock

    start_client._dbg_nodelay = True  # type: ignore[attr-defined]
    setattr(module, "start_client", start_client)  # noqa: B010


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        _patch(module)
        # Done: out of every later import. Left in, it is the first code of
        # the program's that runs (runpy asks it for a -m MODULE), and
        # debugpy's stop on entry would stop in it.
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Finder)]


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != _TARGET:
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


if os.environ.get("DBG_TCP_NODELAY") == "1":
    sys.meta_path.insert(0, _Finder())


def _mark_normal_end() -> None:
    mark = os.environ.get("DBG_EXIT_MARK")
    if not mark:
        return
    import atexit

    def ended() -> None:
        try:
            open(f"{mark}-{os.getpid()}", "w").close()
        except OSError:
            pass

    atexit.register(ended)


_mark_normal_end()


def _test_run() -> None:
    # `dbg test`: stop where a test fails (see dbg_testhook). Taken out of
    # the environment, so the programs the tests start are not test runs.
    if os.environ.pop("DBG_TEST_RUN", "") != "1":
        return
    importlib.import_module("dbg_testhook").install()
    if os.environ.pop("DBG_LAZY_TRACE", "") == "1":
        importlib.import_module("dbg_lazytrace").install()


_test_run()


def _stdin_from_dbg() -> None:
    # debugpy's launcher gives the debuggee its own stdin (/dev/null); dbg
    # names the program's in $DBG_STDIN (its FIFO for `dbg input`, which opens
    # at once since dbg holds the write end, or the user's file). Only debugpy's
    # launch passes the variable; it goes now, so the program's own children
    # inherit fd 0 as it is. sys.stdin reads fd 0 and has read nothing yet.
    path = os.environ.pop("DBG_STDIN", None)
    if not path:
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        sys.stderr.write(f"dbg: cannot open the program's stdin {path}: {exc.strerror}\n")
        return
    if fd != 0:
        os.dup2(fd, 0)
        os.close(fd)


_stdin_from_dbg()


def _children_undebugged() -> None:
    # A backend option turns following children off (subProcess false): a
    # forked child still carries pydevd's tracing and breakpoints, with no
    # thread left to answer them, and would hang at the first one it hits.
    # It stops tracing instead and runs undebugged. (Children of a new
    # interpreter, spawn or subprocess, never had pydevd.)
    if os.environ.get("DBG_CHILDREN_UNDEBUGGED") != "1" or not hasattr(os, "register_at_fork"):
        return
    # Taken now, before pydevd loads: it replaces sys.settrace with one that
    # prints a warning.
    settrace, thread_settrace = sys.settrace, threading.settrace

    def untrace() -> None:
        os.environ.pop("DBG_CHILDREN_UNDEBUGGED", None)
        thread_settrace(None)
        settrace(None)
        frame: FrameType | None = sys._getframe()
        while frame is not None:
            frame.f_trace = None
            frame = frame.f_back
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            # Python 3.12+: pydevd traces with sys.monitoring, as the debugger.
            tool = monitoring.DEBUGGER_ID
            with contextlib.suppress(ValueError):
                monitoring.set_events(tool, 0)
                for name in dir(monitoring.events):
                    event = getattr(monitoring.events, name)
                    if name.isupper() and isinstance(event, int) and event:
                        monitoring.register_callback(tool, event, None)

    os.register_at_fork(after_in_child=untrace)


_children_undebugged()


def _chain() -> None:
    # Run the sitecustomize this file shadows, if there is one.
    rest = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_chain()
