"""Process identity (pid + start time) and process-group shutdown, on real
processes: ones that die, linger as zombies, or ignore SIGINT and SIGTERM."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dbgcore.shared import procutil

TICKS = os.sysconf("SC_CLK_TCK")


def uptime_ticks() -> float:
    return float(Path("/proc/uptime").read_text().split()[0]) * TICKS


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes a test starts; whatever is left is killed at the end."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                proc.kill()
            proc.wait(timeout=10)


def test_start_time_and_alive_for_this_process() -> None:
    mine = procutil.start_time(os.getpid())
    assert isinstance(mine, int)
    assert 0 <= mine <= uptime_ticks() + TICKS
    assert procutil.alive(os.getpid())
    assert procutil.alive(os.getpid(), mine)


def test_a_different_start_time_means_a_different_process() -> None:
    # What a reused pid looks like: the pid is live, its start time is not ours.
    mine = procutil.start_time(os.getpid())
    assert mine is not None
    assert not procutil.alive(os.getpid(), mine + 1)
    assert not procutil.alive(os.getpid(), mine - 1)


def test_nonexistent_and_invalid_pids() -> None:
    assert not procutil.alive(0)
    assert not procutil.alive(-1)
    # pid_max bounds real pids; one past it never exists.
    beyond = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    assert procutil.start_time(beyond) is None
    assert not procutil.alive(beyond)


def test_start_time_with_parentheses_and_spaces_in_the_name(
        tmp_path: Path, procs: list[subprocess.Popen[str]]) -> None:
    # The command name in /proc/PID/stat is free text; a parser that splits
    # on spaces reads the wrong field.
    sleeper = tmp_path / "x) (y z"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", sleeper)
    before = uptime_ticks()
    proc = subprocess.Popen([str(sleeper), "30"], text=True)
    procs.append(proc)
    after = uptime_ticks()
    started = procutil.start_time(proc.pid)
    assert started is not None
    assert before - TICKS <= started <= after + TICKS
    assert procutil.alive(proc.pid, started)


def test_dead_and_zombie_processes_are_not_alive(procs: list[subprocess.Popen[str]]) -> None:
    proc = subprocess.Popen(["sleep", "30"], text=True)
    procs.append(proc)
    started = procutil.start_time(proc.pid)
    assert procutil.alive(proc.pid, started)
    proc.kill()
    deadline = time.monotonic() + 5
    while not procutil.is_zombie(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert procutil.is_zombie(proc.pid), "not reaped yet, so it is a zombie"
    assert not procutil.alive(proc.pid)
    assert not procutil.alive(proc.pid, started)
    proc.wait()
    assert procutil.start_time(proc.pid) is None
    assert not procutil.alive(proc.pid, started)


STUBBORN = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    ignore = [getattr(signal, name) for name in sys.argv[1:]]
    # The rest at their defaults, whatever the tests' own shell ignored (a
    # shell's background job starts with SIGINT ignored).
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN if sig in ignore else signal.SIG_DFL)
    # A grandchild in the same process group, ignoring the same signals
    # (SIG_IGN survives exec), which must go down with the group.
    child = subprocess.Popen(["sleep", "60"])
    print(child.pid, flush=True)
    while True:
        time.sleep(1)
""")


def start_group(procs: list[subprocess.Popen[str]], *ignored: str) -> tuple[int, int]:
    proc = subprocess.Popen([sys.executable, "-c", STUBBORN, *ignored], text=True,
                            stdout=subprocess.PIPE, start_new_session=True)
    procs.append(proc)
    assert proc.stdout is not None
    grandchild = int(proc.stdout.readline())
    assert procutil.pgid_of(grandchild) == proc.pid
    return proc.pid, grandchild


@pytest.mark.parametrize(("ignored", "ended_by"), [
    ((), signal.SIGINT),
    (("SIGINT",), signal.SIGTERM),
    (("SIGINT", "SIGTERM"), signal.SIGKILL),
])
def test_terminate_groups_escalates(procs: list[subprocess.Popen[str]], ignored: tuple[str, ...],
                                    ended_by: signal.Signals) -> None:
    leader, grandchild = start_group(procs, *ignored)
    grace = 0.4
    begun = time.monotonic()
    procutil.terminate_groups([leader], grace=grace, reap=[leader])
    took = time.monotonic() - begun

    # Reaped by terminate_groups itself: there is no zombie left to wait for.
    with pytest.raises(ChildProcessError):
        os.waitpid(leader, os.WNOHANG)
    assert not procutil.alive(leader)
    assert not procutil.alive(grandchild)
    assert procutil.pgid_of(grandchild) is None or procutil.is_zombie(grandchild)
    # SIGINT gets a quarter of the grace; SIGTERM and SIGKILL the whole of it.
    bound = {signal.SIGINT: grace / 4, signal.SIGTERM: grace * 1.25,
             signal.SIGKILL: grace * 2.25}[ended_by]
    assert took < bound + 1.0, f"took {took:.2f}s"


def test_the_signal_that_ended_it(procs: list[subprocess.Popen[str]]) -> None:
    # Without `reap`, the leader is left for its parent: the exit status says
    # which signal ended it.
    for ignored, expected in (((), -signal.SIGINT), (("SIGINT",), -signal.SIGTERM),
                              (("SIGINT", "SIGTERM"), -signal.SIGKILL)):
        leader, _ = start_group(procs, *ignored)
        procutil.terminate_groups([leader], grace=0.4)
        assert procs[-1].wait(timeout=5) == expected, ignored


def test_terminate_groups_with_nothing_to_do_returns_at_once() -> None:
    begun = time.monotonic()
    procutil.terminate_groups([], grace=5)
    beyond = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    procutil.terminate_groups([beyond], grace=5)
    assert time.monotonic() - begun < 1.0
