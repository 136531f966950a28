"""A program's stdout survives its crash: lines printed before a SIGSEGV
(C, on gdb and lldb) or a SIGKILL (Python, on pdb and debugpy) are in
`dbg output`, as in a terminal, where stdout is line-buffered."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import builds
import pytest

if TYPE_CHECKING:
    from conftest import Dbg


def _printed(dbg: Dbg) -> str:
    return "".join(str(c["text"]) for c in dbg.json("output")["chunks"]
                   if c["category"] == "stdout")


@pytest.mark.parametrize("native", ["gdb", "lldb"])
def test_c_lines_printed_before_a_segfault_are_shown(
        dbg: Dbg, target: Any, native: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(native)
    program = target("native/printcrash.c")
    binary = builds.build_c(program.path)
    stop = dbg.json("start", "--backend", native, "--run", str(binary))
    assert stop["reason"] == "signal" and stop["location"]["line"] == program.lines["crash"], stop
    assert _printed(dbg) == "first line\nsecond line\n"


@pytest.mark.parametrize("python", ["pdb", "debugpy"])
def test_python_lines_printed_before_a_kill_are_shown(
        dbg: Dbg, target: Any, python: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(python)
    program = target("printkill.py")
    dbg.json("start", "--backend", python, "--run", str(program.path))
    assert _printed(dbg).replace("\r\n", "\n") == "first line\nsecond line\n"
