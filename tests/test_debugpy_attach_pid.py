"""`dbg attach --backend debugpy --pid` on stuck programs: a Python blocked
in ``lock.acquire`` is attached to and its waiting threads are seen; a pid
that is no Python (the shell that started it, a ``sleep``) fails within
seconds with one line that says why and which pid to give, instead of
debugpy's injector printing ``Py_IsInitialized not found.`` into the
program's output and the attach waiting out its timeout. No session or
process is left behind."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from dbgcore.testing import require_backend

#: A refusal read from /proc answers within this (it took the attach's
#: whole timeout: 30 s and more).
PROMPT = 5.0


@pytest.fixture(autouse=True)
def _debugpy() -> None:
    require_backend("debugpy")


@contextmanager
def _running(argv: list[str], ready: str | None = None) -> Iterator[subprocess.Popen[str]]:
    """``argv`` running (once it printed ``ready``), its children killed after."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        if ready is not None:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == ready
        else:
            time.sleep(0.3)
        yield proc
    finally:
        import os
        import signal

        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # (ended by itself)
        proc.wait()


def _refused_fast(dbg: Any, pid: int) -> str:
    began = time.monotonic()
    result = dbg("attach", "--backend", "debugpy", "--pid", str(pid))
    took = time.monotonic() - began
    assert result.code == 1, result
    assert took < PROMPT, (took, result)
    assert result.err.count("\n") == 1 and "Traceback" not in result.err, result.err
    assert dbg.json("sessions").get("sessions") == []
    return result.err


def test_a_shell_wrapping_the_program_names_its_python_child(dbg: Any, target: Any) -> None:
    program = target("stuck/deadlock.py")
    with _running(["bash", "-c", f"{sys.executable} {program.path}; true"],
                  "deadlocked") as shell:
        err = _refused_fast(dbg, shell.pid)
        assert f"process {shell.pid} (" in err and "not a Python" in err, err
        children = subprocess.run(["ps", "--ppid", str(shell.pid), "-o", "pid="],
                                  capture_output=True, text=True).stdout.split()
        assert len(children) == 1, children
        assert f"--pid {children[0]}" in err, err


def test_a_process_that_is_no_python_is_refused_at_once(dbg: Any) -> None:
    with _running(["sleep", "60"]) as sleeper:
        err = _refused_fast(dbg, sleeper.pid)
        assert "/sleep) is not a Python" in err and "Py_IsInitialized" in err, err
        assert "pgrep -af python" in err, err


def test_a_gone_process_is_refused_at_once(dbg: Any) -> None:
    with _running(["sleep", "0"]) as gone:
        gone.wait()
        err = _refused_fast(dbg, gone.pid)
        assert f"no process {gone.pid}" in err, err


def test_a_python_blocked_on_a_lock_is_attached_to(dbg: Any, target: Any) -> None:
    program = target("stuck/deadlock.py")
    with _running([sys.executable, str(program.path)], "deadlocked") as stuck:
        snap = dbg.json("attach", "--backend", "debugpy", "--pid", str(stuck.pid))
        try:
            assert snap["_exit"] == 0 and snap["state"] in ("stopped", "running"), snap
            # Blocked in C, the threads are out of reach of debugpy's pause:
            # `dbg stacks` reads them in the attached session.
            stacks = dbg("stacks")
            assert stacks.code == 0, stacks
            assert "holds-first" in stacks.out and "holds-second" in stacks.out, stacks.out
        finally:
            dbg("kill")
        assert stuck.poll() is None  # detached from, still running
