"""Run as the sitecustomize of a debugpy debuggee (and of debugpy's launcher),
whose PYTHONPATH dbg gives this folder (sitecustomize.py runs this file's
bytecode, see there): sets TCP_NODELAY on pydevd's
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

As ``pydevd`` is imported, its 0.1 s sleep as it connects to the adapter
goes (_NetworkStartTime), and its wait for its own threads at the program's end
is replaced (see _wait_for_pydevd_threads): pydevd's threads waited for each
other there, and every program under debugpy ended 0.5 s late; the objects
there are by then are frozen for the collector (_freeze_startup_objects). Each
``stopped`` event it sends carries what a step needs to know of the stop
(_stop_facts), and debugpy's startup reports are built only for a log
(dbg_debugpy_quiet.py; in debugpy's launcher too, which runs this file).

debugpy's own modules are loaded from bytecode dbg keeps for the program's
interpreter (see _DebugpyLoader) when that interpreter has none of its own.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import os
import socket
import sys
import threading
import time
from collections.abc import Sequence
from types import CodeType, FrameType, ModuleType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from dbg_dap.pyboot import dbg_bytecode
else:  # this folder is on the program's path, as a folder of top-level modules
    dbg_bytecode = importlib.import_module("dbg_bytecode")

if TYPE_CHECKING:
    # Not at run time: importlib.abc imports importlib.resources, and with
    # it pathlib, tempfile, inspect... (on 3.12, 5-10 ms of the launcher's
    # start, which needs none of them). The import system asks a finder for
    # find_spec and a loader for exec_module, nothing of these classes.
    import importlib.abc

_COMM = "_pydevd_bundle.pydevd_comm"
_PYDEVD = "pydevd"
_HERE = os.path.dirname(os.path.abspath(__file__))
#: The modules still to patch as they are imported.
_targets: set[str] = set()


def _patch_comm(module: ModuleType) -> None:
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


#: pydevd's threads now in _wait_for_pydevd_threads.
_waiting: set[threading.Thread] = set()


def _wait_for_pydevd_threads(py_db: object, timeout: float) -> None:
    """Returns once pydevd's threads (its writer, reader, command thread)
    have ended or are waiting here themselves, or after ``timeout``.

    As the program ends, pydevd's command thread, its reader and its
    check-alive thread each call PyDB.dispose_and_kill_all_pydevd_threads,
    which waits for pydevd's other threads to end; the first caller loops
    until they have, the later ones wait for the first. Two of them wait for
    each other, and each program ended only at the 0.5 s timeout. Here a
    thread waits only for the threads that still work (the writer still
    sending the program's last output, above all), never for another waiter."""
    me = threading.current_thread()
    _waiting.add(me)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            threads = dict(getattr(py_db, "created_pydb_daemon_threads", {}))
            pending = [t for t in threads if t is not me and t not in _waiting
                       and t is not getattr(py_db, "check_alive_thread", None)]
            if not pending:
                return
            for thread in pending:
                # pydevd's command thread clears its wake-up event after the
                # kill set it, and slept 0.2 s more before it saw the kill.
                event = getattr(thread, "_py_db_command_thread_event", None)
                if event is not None and getattr(thread, "_kill_received", False):
                    event.set()
            # Back as soon as the first of them ends (the program's end
            # waited out this poll several times over), at most 5 ms later.
            pending[0].join(0.005)
    finally:
        _waiting.discard(me)


def _end_promptly() -> None:
    """As the program's main thread ends (threading's shutdown, before it
    waits for the other threads) with no other thread of the program's left:
    pydevd's threads saw that by polling every 0.2 s; now they look every
    10 ms, and are woken to look at once."""
    pydevd = sys.modules.get(_PYDEVD)
    if pydevd is None:
        return
    try:
        py_db = pydevd.get_global_debugger()
        own = dict(getattr(py_db, "created_pydb_daemon_threads", {}))
        if any(not t.daemon and t is not threading.current_thread() and t not in own
               for t in threading.enumerate()):
            # The program goes on in threads of its own: pydevd's polls as
            # they were (a 10 ms poll for as long as they run, or while one
            # of them is stopped, would cost the CPU for nothing).
            return
        pydevd.TIMEOUT_SLOW = 0.01  # type: ignore[attr-defined]
        for thread in list(own):
            for name in ("_wait_event", "_py_db_command_thread_event"):
                event = getattr(thread, name, None)
                if event is not None:
                    event.set()
    except Exception:
        pass  # pydevd as it is: the program ends up to 0.2 s later


def _freeze_startup_objects() -> None:
    """The objects there are as pydevd is loaded, before the program's
    first line (the interpreter's start, site, debugpy's and pydevd's
    modules: 14,000 more than a bare run has), go to the collector's
    permanent generation (``gc.freeze``). A full collection visited them all
    each time, and the interpreter's end makes several: the end of a
    ten-test pytest run on 3.12 took 190 ms (from atexit to the process's
    exit, strace) against 30 with them frozen, and 30-40 in a bare run.
    Every object the program makes is collected as before; only a cycle
    among these earlier ones stays until the process ends. From 3.11 on:
    before, dbg's call tracer can look up a function's qualified name
    through ``gc.get_referrers``, which does not see frozen objects."""
    import gc

    if sys.version_info >= (3, 11):
        gc.freeze()


class _NetworkStartTime:
    """pydevd's ``time`` (its module's global), with one sleep taken out.

    PyDB.initialize_network, as pydevd connects to the adapter, starts its
    reader and writer threads and then sleeps 0.1 s "to give them time to
    start"; but Thread.start returns only once the thread runs, and the
    handshake (initialize, launch, the breakpoints, configurationDone) goes
    on in the reader meanwhile. Every program (and every child process it
    starts) began 0.1 s after that handshake was done: configurationDone ->
    the program's first line 97 ms, now a few. A sleep of pydevd's anywhere
    else, or on another thread, is the module's own."""

    def __init__(self, real: ModuleType) -> None:
        self._real = real
        #: Threads inside initialize_network now.
        self.connecting: set[int] = set()

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)

    def sleep(self, seconds: float) -> None:
        if threading.get_ident() in self.connecting:
            return
        self._real.sleep(seconds)


def _no_network_start_wait(module: ModuleType, debugger: type) -> None:
    real = getattr(module, "time", None)
    original = getattr(debugger, "initialize_network", None)
    if not isinstance(real, ModuleType) or original is None or \
            not callable(getattr(real, "sleep", None)):
        return  # another pydevd: its own wait, as before
    proxy = _NetworkStartTime(real)

    def initialize_network(self: object, *args: object, **kwargs: object) -> object:
        me = threading.get_ident()
        proxy.connecting.add(me)
        try:
            return original(self, *args, **kwargs)
        finally:
            proxy.connecting.discard(me)

    module.time = proxy  # type: ignore[attr-defined]
    debugger.initialize_network = initialize_network  # type: ignore[attr-defined]


def _patch_pydevd(module: ModuleType) -> None:
    if _debugpy_path_hook in sys.path_hooks:
        sys.path_hooks.remove(_debugpy_path_hook)
    if _fast_end:
        _freeze_startup_objects()
    debugger = getattr(module, "PyDB", None)
    if _fast_end and debugger is not None and \
            hasattr(debugger, "_PyDB__wait_for_threads_to_finish"):
        debugger._PyDB__wait_for_threads_to_finish = _wait_for_pydevd_threads
        # Python 3.9+: called by threading's shutdown, before it marks the
        # main thread ended and waits for the others.
        register = getattr(threading, "_register_atexit", None)
        if register is not None and isinstance(getattr(module, "TIMEOUT_SLOW", None), float):
            register(_end_promptly)
    if _stop_facts_on:
        _patch_stop_event()
    if _fast_start and debugger is not None:
        _no_network_start_wait(module, debugger)


def _patch_log(module: ModuleType) -> None:
    quiet = importlib.import_module("dbg_debugpy_quiet")
    quiet.quiet_describe(module)
    if _lazy_metadata is not None:
        # Only debugpy's log holds it now: the program imports its own.
        quiet.drop_lazy(_lazy_metadata)


#: Where the facts of a stop go in pydevd's ``stopped`` event (its body).
STOP_FACTS_KEY = "dbgStopFacts"
_RETURNING = ("RETURN", "YIELD", "INSTRUMENTED_RETURN", "INSTRUMENTED_YIELD")


def _stop_facts(waiting: FrameType, stop: FrameType) -> dict[str, object]:
    """What dbg asked of each step's stop with an evaluate (three round
    trips a step): whether the function the stop's frame called is leaving
    by an exception (pydevd stops on its return event either way, the callee
    still on the stack at the instruction that raised), and the exception the
    thread handles (JSON [its id, its text, where it was raised], or null).
    ``waiting`` is pydevd's do_wait_suspend, called below the callee."""
    import json
    import traceback

    callee = waiting.f_back
    while callee is not None and callee is not stop and (
            "/debugpy/" in callee.f_code.co_filename
            or "pydevd" in callee.f_code.co_filename.rsplit("/", 1)[-1]):
        callee = callee.f_back
    unwinding = False
    if callee is not None and callee is not stop and callee.f_back is stop:
        import dis

        code = callee.f_code.co_code
        lasti = callee.f_lasti
        unwinding = 0 <= lasti < len(code) and not dis.opname[code[lasti]].startswith(_RETURNING)
    handled = sys.exc_info()[1]
    handling = None
    if handled is not None:
        where = list(traceback.walk_tb(handled.__traceback__))
        message = str(handled).strip().splitlines()
        handling = [id(handled), type(handled).__name__ + (": " + message[0] if message else ""),
                    f"{where[-1][0].f_code.co_name} at {where[-1][0].f_code.co_filename}:"
                    f"{where[-1][1]}" if where else ""]
    return {"unwinding": unwinding, "handling": json.dumps(handling)}


def _patch_stop_event() -> None:
    """Each ``stopped`` event pydevd sends from the stopped thread carries
    that stop's facts (_stop_facts), which dbg read with an evaluate at every
    step before: the same answers, with no round trip."""
    schema = sys.modules.get("_pydevd_bundle._debug_adapter.pydevd_schema")
    body_class = getattr(schema, "StoppedEventBody", None)
    if body_class is None:
        return
    plain_init = body_class.__init__

    def init(self: object, *args: object, **kwargs: object) -> None:
        plain_init(self, *args, **kwargs)
        try:
            frame: FrameType | None = sys._getframe(1)
            while frame is not None and frame.f_code.co_name != "do_wait_suspend":
                frame = frame.f_back
            stop = frame.f_locals.get("frame") if frame is not None else None
            if frame is not None and isinstance(stop, FrameType):
                self.kwargs[STOP_FACTS_KEY] = _stop_facts(frame, stop)  # type: ignore[attr-defined]
        except Exception:
            pass  # no facts: dbg asks with an evaluate, as without this patch

    body_class.__init__ = init


_LOG = "debugpy.common.log"
_PATCHES = {_COMM: _patch_comm, _PYDEVD: _patch_pydevd, _LOG: _patch_log}


class _DebugpyLoader(importlib.machinery.SourceFileLoader):
    """debugpy's modules, compiled once per interpreter version into dbg's
    folder ``$DBG_PYC_DIR``. debugpy is installed for the interpreter dbg
    runs on; a program on another Python version (or with
    PYTHONDONTWRITEBYTECODE, or a debugpy it cannot write beside) compiled
    all of pydevd at every start: 0.3-0.5 s, its 840 kB protocol schema
    alone 0.15-0.3 s. Bytecode Python keeps beside the source is used first."""

    def get_code(self, fullname: str) -> CodeType | None:
        source_path = self.get_filename(fullname)
        try:
            beside = importlib.util.cache_from_source(source_path)
            if os.path.exists(beside):
                return super().get_code(fullname)
        except (NotImplementedError, ValueError):
            pass
        head = dbg_bytecode.header(source_path)
        cached = dbg_bytecode.kept_path(_pyc_dir, source_path)
        code = dbg_bytecode.read(cached, head)
        if code is None:
            code = self.source_to_code(self.get_data(source_path), source_path)
            dbg_bytecode.write(cached, head, code)
        return code


def _debugpy_path_hook(folder: str) -> importlib.abc.PathEntryFinder:
    # Only debugpy's own folders (their FileFinders stay in
    # sys.path_importer_cache, so pydevd's later imports use them too).
    # Python also asks the path hooks about a script it is given to run
    # (`python pydevd.py ...`, as pydevd starts a child process): a file
    # accepted here would be run as a zip of modules ("can't find
    # '__main__' module").
    if not (folder + os.sep).startswith(_debugpy_root + os.sep) or not os.path.isdir(folder):
        raise ImportError
    return importlib.machinery.FileFinder(
        folder, (_DebugpyLoader, importlib.machinery.SOURCE_SUFFIXES),
        (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES),
        (importlib.machinery.SourcelessFileLoader, importlib.machinery.BYTECODE_SUFFIXES))


_pyc_dir = os.environ.get("DBG_PYC_DIR", "")
_debugpy_root = os.path.normpath(os.environ.get("DBG_DEBUGPY_ROOT", "") or os.sep)
if _pyc_dir and _debugpy_root != os.sep:
    sys.path_hooks.insert(0, _debugpy_path_hook)
    # Out of the path hooks once pydevd is loaded: the program's own
    # folders (its script's, first) must not meet dbg's code.
    _targets.add(_PYDEVD)
    # dbg's own modules in this folder (the test hook, the quiet log...)
    # from that bytecode too: on a Python that writes none beside them, each
    # was compiled in every program (the test hook 5-10 ms on 3.12).
    for _entry in sys.path:
        if os.path.abspath(_entry or ".") == _HERE:
            sys.path_importer_cache[_entry] = importlib.machinery.FileFinder(
                _HERE, (_DebugpyLoader, importlib.machinery.SOURCE_SUFFIXES))


class _Loader:
    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        if module.__name__ == _LOG and _quiet:
            with importlib.import_module("dbg_debugpy_quiet").platform_unasked():
                self.inner.exec_module(module)
        else:
            self.inner.exec_module(module)
        _PATCHES[module.__name__](module)
        _targets.discard(module.__name__)
        if not _targets:
            # Done: out of every later import. Left in, it is the first code
            # of the program's that runs (runpy asks it for a -m MODULE), and
            # debugpy's stop on entry would stop in it.
            sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Finder)]


class _Finder:
    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        global _lazy_metadata
        if fullname not in _targets:
            return None
        if fullname == _LOG and _quiet:
            # Made lazy for debugpy's log alone as it loads: after any
            # sitecustomize of the program's, which gets the usual module.
            made = importlib.import_module("dbg_debugpy_quiet").lazy_metadata()
            _lazy_metadata = made or _lazy_metadata
        for finder in sys.meta_path:
            if finder is self:
                continue
            spec: importlib.machinery.ModuleSpec | None = getattr(
                finder, "find_spec", lambda *a: None)(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = cast("importlib.abc.Loader", _Loader(spec.loader))
                return spec
        return None


if os.environ.get("DBG_TCP_NODELAY") == "1":
    _targets.add(_COMM)
_fast_end = os.environ.get("DBG_PYDEVD_END") == "1"
_fast_start = os.environ.get("DBG_PYDEVD_START") == "1"
_stop_facts_on = os.environ.get("DBG_STOP_FACTS") == "1"
if _fast_end or _fast_start or _stop_facts_on:
    _targets.add(_PYDEVD)
# debugpy's startup reports (pyboot/dbg_debugpy_quiet.py) in the program, and
# in debugpy's launcher, which takes the variable out of what the program
# inherits from it.
_quiet = os.environ.get("DBG_DEBUGPY_QUIET") == "1"
if os.environ.pop("DBG_LAUNCHER_QUIET", "") == "1":
    _quiet = True
if _quiet:
    _targets.add(_LOG)
#: importlib.metadata made lazy for debugpy.common.log (dbg_debugpy_quiet).
_lazy_metadata: ModuleType | None = None
if _targets:
    sys.meta_path.insert(0, _Finder())


#: The file whose ``-PID`` a normal end leaves (``$DBG_EXIT_MARK``), read
#: again when an interpreter started ahead takes on its launch (each
#: session has its own: dbg_warm_debuggee.py).
_exit_mark = ""


def mark_normal_end() -> None:
    """Leave ``$DBG_EXIT_MARK-PID`` at a normal end (the hook registered
    once, the mark the environment's now)."""
    global _exit_mark
    first = not _exit_mark
    _exit_mark = os.environ.get("DBG_EXIT_MARK", "")
    if not (first and _exit_mark):
        return
    import atexit

    def ended() -> None:
        try:
            open(f"{_exit_mark}-{os.getpid()}", "w").close()
        except OSError:
            pass

    atexit.register(ended)


mark_normal_end()


def _test_run() -> None:
    # `dbg test`: stop where a test fails (see dbg_testhook). Taken out of
    # the environment, so the programs the tests start are not test runs.
    # Its value is the path of dbg's rule for a library's file (libfiles.py).
    libfiles = os.environ.pop("DBG_TEST_RUN", "")
    if not libfiles:
        return
    importlib.import_module("dbg_testhook").install(libfiles)
    # From 3.12 pydevd traces with sys.monitoring and dbg_lazytrace does
    # nothing: not even loaded.
    if os.environ.pop("DBG_LAZY_TRACE", "") == "1" and sys.version_info < (3, 12):
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
# A program started before its launch (dbg_warm_debuggee.py) is given its
# stdin once the launch names it: it finds this module, and the function,
# by this name.
stdin_from_dbg = _stdin_from_dbg
sys.modules.setdefault("dbg_boot", sys.modules[__name__])


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


def _warm_start() -> None:
    # A program's interpreter started ahead of its launch
    # (dbg_warm_debuggee.py): once its start is done, it waits here for the
    # launch, then runs debugpy's __main__.py as the interpreter would have.
    if "DBG_WARM_ORDER_FD" in os.environ:
        importlib.import_module("dbg_warm_debuggee").wait_for_launch()


_warm_start()
