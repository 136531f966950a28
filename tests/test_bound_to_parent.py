"""procutil.bound_to_parent: a child spawned with it dies when the process
that spawned it is killed outright, runs with its own argv, and a program
that cannot be found still fails in Popen as it did."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from dbgcore.shared import procutil

SPAWNER = textwrap.dedent("""
    import subprocess, sys, time
    from dbgcore.shared import procutil
    argv, preexec = procutil.bound_to_parent(sys.argv[1:], cwd=None)
    child = subprocess.Popen(argv, preexec_fn=preexec, stdin=subprocess.DEVNULL)
    print(child.pid, flush=True)
    time.sleep(600)
""")


def _wait_until(check: object, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


def test_the_child_dies_with_its_parent_and_keeps_its_argv(tmp_path: Path) -> None:
    program = tmp_path / "napper"
    program.write_text("#!/bin/sh\nexec sleep 600\n")
    program.chmod(0o755)
    spawner = subprocess.Popen([sys.executable, "-c", SPAWNER, str(program), "one", "two"],
                               stdout=subprocess.PIPE, text=True)
    child = 0
    try:
        assert spawner.stdout is not None
        child = int(spawner.stdout.readline())
        started = procutil.start_time(child)
        assert started is not None
        # Once it has exec'd, the child is the program with its own words
        # (sh then execs sleep). Only then is the signal surely set: a parent
        # killed in the millisecond before (setpriv not yet at its prctl)
        # would leave it behind, as one killed between a fork and its
        # preexec_fn would.
        assert _wait_until(lambda: _cmdline(child) == ["sleep", "600"]), _cmdline(child)
        spawner.kill()
        spawner.wait()
        assert _wait_until(lambda: not procutil.alive(child, started)), \
            "the child outlived the process that spawned it"
    finally:
        spawner.kill()
        spawner.wait()
        if child and procutil.alive(child):
            os.kill(child, signal.SIGKILL)


@pytest.mark.parametrize("program", ["no-such-program-of-dbg", "./no-such-program-of-dbg",
                                     "/nonexistent/dbg/program"])
def test_a_missing_program_still_fails_in_popen(tmp_path: Path, program: str) -> None:
    argv, preexec = procutil.bound_to_parent([program], cwd=str(tmp_path))
    with pytest.raises(FileNotFoundError):
        subprocess.Popen(argv, preexec_fn=preexec, cwd=tmp_path)


def test_a_program_relative_to_the_childs_folder_is_found(tmp_path: Path) -> None:
    program = tmp_path / "hello"
    program.write_text("#!/bin/sh\necho hello \"$@\"\n")
    program.chmod(0o755)
    argv, preexec = procutil.bound_to_parent(["./hello", "there"], cwd=str(tmp_path))
    out = subprocess.run(argv, preexec_fn=preexec, cwd=tmp_path, capture_output=True,
                         text=True, check=True)
    assert out.stdout == "hello there\n"
