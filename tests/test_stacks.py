"""`dbg stacks`: every thread's stack of a running Python program, read by
real py-spy without stopping it: a deadlock (two threads, two locks) names
both threads and the lines where they wait, on Python 3.11, 3.12 and 3.13;
an endless loop shows the loop's line; in a live debugpy or pdb session too,
and `dbg pause` on the deadlock answers within seconds with the stacks
instead of waiting out its timeout. Bad pids get one line and a non-zero
exit. Nothing is left running."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from builds import Target, copy_target

from dbgcore.backends import pyspy
from dbgcore.ops.table import render
from dbgcore.testing import Dbg, require, require_backend

#: A pause on a program blocked in C answers within this (it used to wait
#: out its whole timeout: 21.7 s).
PROMPT = 6.0


def _python(version: str) -> str | None:
    """An interpreter of ``version`` ("3.12"): this one, or pyenv's."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    found = sorted((Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python"))
    return str(found[-1]) if found else None


@contextmanager
def _running(python: str, target: Target, ready: str) -> Iterator[subprocess.Popen[str]]:
    """The target running under ``python``, once it printed ``ready``; killed after."""
    proc = subprocess.Popen([python, str(target.path)], stdout=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == ready
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _by_name(answer: dict[str, object]) -> dict[str, dict[str, object]]:
    threads = answer["threads"]
    assert isinstance(threads, list)
    return {str(t["name"]): t for t in threads}


def _waits_where_it_deadlocks(answer: dict[str, object], target: Target) -> None:
    threads = _by_name(answer)
    first, second = threads["holds-first"], threads["holds-second"]
    for thread, mark in ((first, "waits_for_second"), (second, "waits_for_first")):
        top = thread["frames"][0]  # type: ignore[index]
        assert (top["file"], top["line"]) == (str(target.path), target.lines[mark]), thread
        assert thread["state"] == "idle" and thread["gil"] is False, thread


@pytest.fixture(autouse=True)
def _pyspy() -> None:
    require(pyspy.find() is not None, f"py-spy is not installed: {pyspy.INSTALL}")


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])
def test_stacks_of_a_deadlocked_program_by_pid(version: str, dbg: Dbg, tmp_path: Path) -> None:
    python = _python(version)
    require(python is not None, f"no Python {version} here (pyenv has none)")
    assert python is not None
    target = copy_target("stuck/deadlock.py", tmp_path)
    with _running(python, target, "deadlocked") as proc:
        answer = dbg.json("stacks", "--pid", str(proc.pid))
        assert answer["ok"] and answer["pid"] == proc.pid, answer
        _waits_where_it_deadlocks(answer, target)
        main = answer["threads"][0]
        assert main["name"] == "MainThread" and main["frames"][0]["library"], main
        # The library frames are folded, and the program's join is shown.
        assert any(f["line"] == target.lines["joins"] for f in main["frames"]), main
        text = dbg("stacks", "--pid", str(proc.pid)).out
        assert "'holds-first'" in text and "'holds-second'" in text, text
        assert f"deadlock.py:{target.lines['waits_for_second']}" in text, text
        assert "frames of threading" in text, text
        assert proc.poll() is None  # read, not stopped or killed


def test_stacks_with_locals_and_every_frame(dbg: Dbg, tmp_path: Path) -> None:
    target = copy_target("stuck/deadlock.py", tmp_path)
    with _running(sys.executable, target, "deadlocked") as proc:
        answer = dbg.json("stacks", "--pid", str(proc.pid), "--locals", "--all")
        main = answer["threads"][0]
        assert main["hidden"] == [] and main["frames"][1]["function"].endswith("join"), main
        assert [a["name"] for a in main["frames"][1]["args"]][:1] == ["self"], main


def test_stacks_of_an_endless_loop_show_its_line(dbg: Dbg, tmp_path: Path) -> None:
    target = copy_target("stuck/endless.py", tmp_path)
    with _running(sys.executable, target, "spinning") as proc:
        answer = dbg.json("stacks", "--pid", str(proc.pid))
        main = answer["threads"][0]
        assert main["state"] == "running", main
        assert (main["frames"][0]["function"], main["frames"][0]["line"]) == (
            "spin", target.lines["loop"]), main


def test_stacks_refuse_a_dead_or_non_python_process(dbg: Dbg) -> None:
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        result = dbg("stacks", "--pid", str(sleeper.pid))
        assert result.code != 0 and "is not a Python program" in result.err, result
        assert len(result.err.strip().splitlines()) == 1, result
    finally:
        sleeper.kill()
        sleeper.wait()
    result = dbg("stacks", "--pid", str(sleeper.pid))
    assert result.code != 0 and f"no process {sleeper.pid}" in result.err, result
    assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err
    # No session and no --pid: one line that says what to do.
    result = dbg("stacks")
    assert result.code != 0 and len(result.err.strip().splitlines()) == 1, result


@pytest.mark.parametrize("backend", ["debugpy", "pdb"])
def test_stacks_and_pause_in_a_live_session(backend: str, dbg: Dbg, tmp_path: Path) -> None:
    require_backend(backend)
    target = copy_target("stuck/deadlock.py", tmp_path)
    started = dbg.json("start", "--backend", backend, str(target.path), timeout=120)
    assert started["ok"], started
    running = dbg.json("--timeout", "3", "continue")
    assert running["ok"] and running["state"] == "running", running
    deadline = time.monotonic() + 20
    while True:  # the two threads reach their locks
        answer = dbg.json("stacks")
        assert answer["ok"], answer
        try:
            _waits_where_it_deadlocks(answer, target)
            break
        except (AssertionError, KeyError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    began = time.monotonic()
    paused = dbg.json("pause")
    took = time.monotonic() - began
    assert took < PROMPT, (took, paused)
    assert paused["ok"] and paused["state"] == "running" and paused["blocked"], paused
    _waits_where_it_deadlocks(paused, target)
    # (A second pause is no test of this: pdb then stops in its own SIGINT handler.)
    text = render("pause", paused)
    assert "every thread is blocked in C" in text and "'holds-first'" in text, text
    assert dbg.json("kill")["ok"]
    pid = answer["pid"]
    assert isinstance(pid, int)
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text(
    ).split()[2], "the program outlived its session"
