"""Runs a Python program under pdb with its output kept apart from pdb's.

Started by the pdb backend inside a pseudo-terminal, by the *target's* Python
(so this folder avoids syntax newer than Python 3.8), through launch.py,
which loads this folder and calls :func:`main` with

    sys.argv[1:] == [PROMPT, STDOUT_FIFO, STDERR_FIFO, STDIN, CATCH, (-m MODULE | SCRIPT), ARGS...]

STDIN is the file the program reads as its stdin (dbg's FIFO for `dbg input`,
the user's file, or /dev/null). CATCH is ``catch`` (stop post mortem on an
uncaught exception) or ``nocatch``. From the environment (taken out of the
program's): DBG_PDB_TEST=1, a test run (stop where a test fails: the
runner's hooks, see _stop_at_failures); DBG_PDB_COLUMNS and DBG_PDB_LINES,
the terminal size the program is told (default 80x24).

pdb keeps the terminal (a duplicate of its fds); the program's fds 1 and 2 go
to the FIFOs and its fd 0 is STDIN, so nothing the program prints can be
mistaken for pdb's answers and the program cannot read pdb's commands.

pdb itself is unchanged except for a sentinel prompt and a few extra
commands (all named ``_dbg_*``) that answer in JSON, framed as
``\\x1edbg:KIND:{json}\\x1f``: the stop location and stack at every stop,
locals, expression values, breakpoints. The program's end is reported the same
way with its exit code, instead of pdb's "will be restarted" loop.
"""

from __future__ import annotations

import bdb
import io
import os
import sys
import threading
import traceback
from types import CodeType, TracebackType
from typing import TYPE_CHECKING, TextIO

from . import stops
from .debugger import _PYTRACE, DbgPdb
from .stops import _internal
from .values import keep_order

if TYPE_CHECKING:  # (subscripted types: the program's Python may be 3.8)
    import unittest
    from typing import Protocol

    from _typeshed import OptExcInfo

    class FailureStop(Protocol):
        """What the hooks into the program's runners ask of the debugger."""

        def test_failure(self, kind: type[BaseException] | None, exc: BaseException | None,
                         tb: TracebackType | None) -> None: ...

        def thread_failure(self, exc: BaseException | None,
                           tb: TracebackType | None) -> None: ...


def _program_environment() -> bool:
    """Take the launcher's settings out of the environment the program sees;
    give it the terminal size the user's environment had (the debugger's
    terminal is 4,000 columns wide, and test runners draw lines across the
    width they are told). Returns whether this is a test run."""
    for name, default in (("COLUMNS", "80"), ("LINES", "24")):
        os.environ[name] = os.environ.pop("DBG_PDB_" + name, "") or default
    path = os.environ.pop("DBG_PDB_PYREPR", "")
    if path:
        keep_order(stops.load_core_helpers(path))
    return os.environ.pop("DBG_PDB_TEST", "") == "1"


def main() -> None:
    prompt, stdout_fifo, stderr_fifo, stdin, catch = sys.argv[1:6]
    rest = sys.argv[6:]
    is_module = bool(rest) and rest[0] == "-m"
    if is_module:
        rest = rest[1:]
    target, args = rest[0], rest[1:]
    console_in, console_out = _console_streams()
    _program_streams(stdin, stdout_fifo, stderr_fifo)
    test_run = _program_environment()
    debugger = DbgPdb(console_in, console_out)
    debugger.prompt = prompt
    debugger.stop_uncaught = catch == "catch"
    stop_at_thread_failures(debugger)
    if test_run:
        stop_at_failures(debugger)
    sys.argv = [target] + list(args)
    # The standard library's folders too: dbg asked them at the first stop,
    # one more exchange on every start.
    import sysconfig

    stdlib = sorted({sysconfig.get_path(key) for key in ("stdlib", "platstdlib")} - {None})
    debugger.emit("hello", {"python": sys.version.split()[0], "pid": os.getpid(),
                            "stdlib": stdlib})
    code = 0
    try:
        statement, namespace = _statement(is_module, target, debugger)
        debugger.run(statement, namespace, namespace)
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = int(exc.code)  # sys.exit(True), as unittest.main ends, is 1
        else:
            sys.stderr.write("%s\n" % exc.code)
            code = 1
    except BaseException as exc:
        # The traceback `python SCRIPT` would print: without the launcher's
        # and bdb's own frames above the program's.
        shown = exc.__traceback__
        while shown is not None and _internal(shown.tb_frame):
            shown = shown.tb_next
        traceback.print_exception(type(exc), exc, shown)
        sys.stderr.flush()
        if debugger.stop_uncaught:
            _post_mortem(debugger, exc, shown)
        code = 1
    tracer = sys.modules.get(_PYTRACE)
    if tracer is not None:
        tracer.finish()  # its last word (calls past --max): os._exit runs no atexit hook
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    debugger.emit("exit", {"code": code})
    os._exit(0)



def _post_mortem(debugger: DbgPdb, exc: BaseException, shown: TracebackType | None) -> None:
    """Stop where the uncaught exception was raised, with its story ready."""
    debugger.report.describe(exc, shown)
    debugger.catching = None
    debugger.post_mortem = True
    debugger.reset()
    try:
        debugger.interaction(None, exc.__traceback__)
    except bdb.BdbQuit:
        pass



def _console_streams() -> tuple[TextIO, TextIO]:
    console_in = io.TextIOWrapper(io.FileIO(os.dup(0), "r"), encoding="utf-8",
                                  errors="replace")
    console_out = io.TextIOWrapper(io.FileIO(os.dup(1), "w"), encoding="utf-8",
                                   errors="backslashreplace", line_buffering=True)
    return console_in, console_out


def _program_streams(stdin: str, stdout_fifo: str, stderr_fifo: str) -> None:
    # dbg's FIFO opens at once: dbg holds its write end open.
    source = os.open(stdin, os.O_RDONLY)
    os.dup2(source, 0)
    os.close(source)
    for fd, path in ((1, stdout_fifo), (2, stderr_fifo)):
        target = os.open(path, os.O_WRONLY)
        os.dup2(target, fd)
        os.close(target)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True,
                                  write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True,
                                  write_through=True)


def _statement(is_module: bool, target: str,
               debugger: DbgPdb) -> tuple[CodeType, dict[str, object]]:
    """Set up __main__ like `python SCRIPT` / `python -m MODULE` would, and
    return the statement for bdb to run."""
    import runpy

    import __main__

    if is_module:
        _, spec, code = runpy._get_module_details(target)  # type: ignore[attr-defined]
        filename = code.co_filename
        namespace = {"__name__": "__main__", "__file__": filename, "__package__": spec.parent,
                     "__loader__": spec.loader, "__spec__": spec,
                     "__builtins__": __builtins__}
        sys.argv[0] = filename
        sys.path[0] = os.getcwd()
    else:
        filename = os.path.realpath(target)
        sys.path[0] = os.path.dirname(filename)
        with io.open_code(filename) as fh:
            source = fh.read()
        code = compile(source, filename, "exec")
        # __spec__ None as `python SCRIPT` has it: multiprocessing's spawn
        # reads it to start its children.
        namespace = {"__name__": "__main__", "__file__": filename, "__spec__": None,
                     "__package__": None, "__builtins__": __builtins__}
    __main__.__dict__.clear()
    __main__.__dict__.update(namespace)
    debugger._wait_for_mainpyfile = True
    debugger.mainpyfile = debugger.canonic(filename)
    debugger._user_requested_quit = False  # type: ignore[attr-defined]
    return code, __main__.__dict__


def stop_at_thread_failures(debugger: FailureStop) -> None:
    """An exception that ends a thread stops the program there, as one that
    ends the main thread does (and as on debugpy): threading's excepthook
    reports it as Python does, then stops."""
    report = threading.excepthook

    def excepthook(args: threading.ExceptHookArgs) -> None:
        report(args)
        try:
            sys.stderr.flush()
        except Exception:
            pass
        debugger.thread_failure(args.exc_value, args.exc_traceback)

    threading.excepthook = excepthook


# -- hooks into the program's runners: stops where a thread or a test fails

# -- test runs --------------------------------------------------------------------

#: The name the pytest plugin below is registered under (PYTEST_PLUGINS).
_PYTEST_PLUGIN = "_dbg_pdb_testhook"


def stop_at_failures(debugger: FailureStop) -> None:
    """A test run: stop where a test fails. pytest calls
    `pytest_exception_interact` for a failure (not for a skip, an xfail or
    an exception pytest.raises expected), as its own --pdb does; unittest
    calls TestResult.addError or addFailure (an assertRaises keeps the
    exception from them). Both hand the exception to test_failure."""
    import types

    # pytest's objects, of a pytest this module does not import: read by name.
    sessions: list[object] = []

    def pytest_configure(config: object) -> None:
        if sessions:
            return
        sessions.append(config)
        # Out of the environment again: pytest runs the tests start
        # (pytester, a subprocess) are not ours to stop.
        names = [n for n in os.environ.get("PYTEST_PLUGINS", "").split(",")
                 if n.strip() and n.strip() != _PYTEST_PLUGIN]
        if names:
            os.environ["PYTEST_PLUGINS"] = ",".join(names)
        else:
            os.environ.pop("PYTEST_PLUGINS", None)

    def pytest_exception_interact(node: object, call: object, report: object) -> None:
        info = getattr(call, "excinfo", None)
        if info is not None and sessions and getattr(node, "config", None) is sessions[0]:
            debugger.test_failure(info.type, info.value, info.tb)

    # PYTEST_DONT_REWRITE: pytest would warn that it cannot rewrite the
    # asserts of a plugin imported before it started.
    plugin = types.ModuleType(_PYTEST_PLUGIN, "dbg's stops at failing tests. PYTEST_DONT_REWRITE")
    plugin.pytest_configure = pytest_configure  # type: ignore[attr-defined]
    plugin.pytest_exception_interact = pytest_exception_interact  # type: ignore[attr-defined]
    sys.modules[_PYTEST_PLUGIN] = plugin
    plugins = os.environ.get("PYTEST_PLUGINS", "")
    os.environ["PYTEST_PLUGINS"] = plugins + "," + _PYTEST_PLUGIN if plugins else _PYTEST_PLUGIN

    import unittest.result

    result = unittest.result.TestResult
    add_error, add_failure, add_subtest = result.addError, result.addFailure, result.addSubTest

    def addError(self: unittest.result.TestResult, test: unittest.TestCase,
                 err: OptExcInfo) -> None:
        debugger.test_failure(*err)
        add_error(self, test, err)

    def addFailure(self: unittest.result.TestResult, test: unittest.TestCase,
                   err: OptExcInfo) -> None:
        debugger.test_failure(*err)
        add_failure(self, test, err)

    def addSubTest(self: unittest.result.TestResult, test: unittest.TestCase,
                   subtest: unittest.TestCase, err: OptExcInfo | None) -> None:
        if err is not None:
            debugger.test_failure(*err)
        add_subtest(self, test, subtest, err)

    result.addError = addError  # type: ignore[method-assign]
    result.addFailure = addFailure  # type: ignore[method-assign]
    result.addSubTest = addSubTest  # type: ignore[method-assign]


#: dbgcore/inprogram/pyrepr.py in the program, once dbg has said where it
