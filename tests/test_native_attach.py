"""Attaching by pid when the kernel refuses ptrace: one clear line that says
why, no session left behind."""

from __future__ import annotations

import ctypes
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

PTRACE_SEIZE = 0x4206
PTRACE_DETACH = 17


@pytest.fixture
def traced_sleeper() -> Iterator[int]:
    """A process this test already traces: no debugger can attach to it."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    libc = ctypes.CDLL(None, use_errno=True)
    time.sleep(0.2)
    if libc.ptrace(PTRACE_SEIZE, child.pid, 0, 0) != 0:
        child.kill()
        child.wait()
        pytest.skip(f"this test cannot ptrace its own child (errno {ctypes.get_errno()})")
    try:
        yield child.pid
    finally:
        libc.ptrace(PTRACE_DETACH, child.pid, 0, 0)
        child.kill()
        child.wait()


@pytest.mark.parametrize("backend", ["gdb", "lldb", "dlv", "debugpy"])
def test_attach_refused_by_the_kernel_says_why(
        dbg: Any, traced_sleeper: int, backend_ready: Callable[[str], None],
        backend: str) -> None:
    backend_ready(backend)
    result = dbg("attach", "--backend", backend, "--pid", str(traced_sleeper))
    assert result.code == 1, result
    assert result.err.count("\n") == 1, result.err
    assert "Traceback" not in result.err
    assert "already traced by process" in result.err, result.err
    assert "detach that one first" in result.err
    listed = dbg.json("sessions")
    assert listed.get("sessions") == [], listed.get("error")
