"""Loaded by dbg's sitecustomize into a test run under debugpy (`dbg test`,
`dbg start -m pytest`): stops the program where a test fails.

A test runner catches a failing test's exception to report it, so no
exception filter of debugpy's sees it end anything; its `userUnhandled`
filter stops on exceptions a test expects (`pytest.raises`, `assertRaises`,
`pytest.skip`, an xfail). The runner itself knows which exceptions are
failures: pytest calls `pytest_exception_interact` for them (this module is
a pytest plugin, loaded through PYTEST_PLUGINS), unittest calls
`TestResult.addError` and `addFailure` (wrapped here). There the exception
goes to `debugpy.trigger_exception_handler`, which stops post mortem in the
frame that raised it; the run goes on when the user continues.

Written for the debuggee's Python: nothing newer than Python 3.8.
PYTEST_DONT_REWRITE (imported before pytest starts: pytest would warn that
it cannot rewrite this plugin's asserts).
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dbg_dap.pyboot import dbg_bytecode
else:  # this folder is on the program's path, as a folder of top-level modules
    dbg_bytecode = importlib.import_module("dbg_bytecode")

if TYPE_CHECKING:
    # Only named in annotations: pytest is the run's, if it is one.
    import unittest

    import pytest

    #: An exception as unittest hands it over (sys.exc_info()'s).
    _ExcInfo = tuple[type[BaseException], BaseException, TracebackType] | tuple[None, None, None]

#: The pytest session whose failures stop (pytester's inner runs do not).
_sessions: list[pytest.Config] = []
#: unittest's TestResult, once wrapped.
_wrapped: list[type[unittest.TestResult]] = []
_PLUGIN = __name__


def _stop(kind: type[BaseException] | None, exc: BaseException | None,
          tb: TracebackType | None) -> None:
    if kind is None or exc is None or tb is None:
        return
    debugpy = sys.modules.get("debugpy")
    trigger = getattr(debugpy, "trigger_exception_handler", None)
    if trigger is None:
        return  # not under debugpy, or one without a way to stop post mortem
    try:
        trigger((kind, exc, _to_program(tb)), as_uncaught=False)
    except Exception:
        pass  # the test run goes on as it would without the debugger


def _to_program(tb: TracebackType) -> TracebackType:
    """``tb`` from the first to the last frame of the program's own code
    (a copy: the runner reports the whole). debugpy stops in the last one:
    a failed assertEqual stops in the test, not in unittest's code that
    raised. It shows the first one's callers too, and a frame both among
    them and in the traceback (a subTest's) with the callers' line."""
    entries = []
    entry: TracebackType | None = tb
    while entry is not None:
        entries.append(entry)
        entry = entry.tb_next
    own = [i for i, e in enumerate(entries) if not _library_file(e.tb_frame.f_code.co_filename)]
    if not own or (own[0] == 0 and own[-1] == len(entries) - 1):
        return tb
    copy: TracebackType | None = None
    for entry in reversed(entries[own[0]:own[-1] + 1]):
        copy = TracebackType(copy, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return copy if copy is not None else tb


#: dbgcore/inprogram/libfiles.py, loaded by install from the path dbg gives.
_libfiles: list[ModuleType] = []


def _library_file(path: str) -> bool:
    """Whether ``path`` is the standard library's or an installed package's
    (libfiles.library_file)."""
    found: bool = _libfiles[0].library_file(path)
    return found


def _load_libfiles(path: str) -> None:
    """dbg's rule for a library's file, as the program's ``_dbg_libfiles``,
    from dbg's bytecode for it (dbg_bytecode: not compiled in every run)."""
    module = sys.modules.get("_dbg_libfiles")
    if module is None:
        module = ModuleType("_dbg_libfiles")
        module.__file__ = path
        exec(dbg_bytecode.code_of(path), module.__dict__)
        sys.modules["_dbg_libfiles"] = module
    _libfiles.append(module)


# -- pytest ----------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    if not _sessions:
        _sessions.append(config)
        _forget_plugin_variable()


def pytest_exception_interact(node: pytest.Item | pytest.Collector, call: pytest.CallInfo[object],
                              report: pytest.TestReport | pytest.CollectReport) -> None:
    if not _sessions or getattr(node, "config", None) is not _sessions[0]:
        return
    info = getattr(call, "excinfo", None)
    if info is not None:
        _stop(info.type, info.value, info.tb)


def _forget_plugin_variable() -> None:
    """Take this module out of PYTEST_PLUGINS again, so that pytest runs the
    tests start themselves (pytester, a subprocess) do not load it."""
    names = [n for n in os.environ.get("PYTEST_PLUGINS", "").split(",")
             if n.strip() and n.strip() != _PLUGIN]
    if names:
        os.environ["PYTEST_PLUGINS"] = ",".join(names)
    else:
        os.environ.pop("PYTEST_PLUGINS", None)


# -- unittest ----------------------------------------------------------------------


def _wrap_unittest() -> None:
    import unittest.result

    result = unittest.result.TestResult
    if _wrapped:
        return
    _wrapped.append(result)
    add_error, add_failure, add_subtest = result.addError, result.addFailure, result.addSubTest

    def addError(self: unittest.TestResult, test: unittest.TestCase, err: _ExcInfo) -> None:
        _stop(*err)
        add_error(self, test, err)

    def addFailure(self: unittest.TestResult, test: unittest.TestCase, err: _ExcInfo) -> None:
        _stop(*err)
        add_failure(self, test, err)

    def addSubTest(self: unittest.TestResult, test: unittest.TestCase, subtest: unittest.TestCase,
                   err: _ExcInfo | None) -> None:
        if err is not None:
            _stop(*err)
        add_subtest(self, test, subtest, err)

    result.addError = addError  # type: ignore[method-assign]
    result.addFailure = addFailure  # type: ignore[method-assign]
    result.addSubTest = addSubTest  # type: ignore[method-assign]


def install(libfiles: str) -> None:
    """Stop where a test fails, under pytest and unittest alike.
    ``libfiles``: the path of dbgcore/inprogram/libfiles.py."""
    _load_libfiles(libfiles)
    plugins = os.environ.get("PYTEST_PLUGINS", "")
    os.environ["PYTEST_PLUGINS"] = f"{plugins},{_PLUGIN}" if plugins else _PLUGIN
    _wrap_unittest()
