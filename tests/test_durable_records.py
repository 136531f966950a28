"""What `dbg trace` and `dbg history --at` record is in the store as it is
recorded, not when the op ends: the session's daemon is killed with SIGKILL
while one of them runs a long program (tests/targets/longrun.py and
native/longrun.c, 20,000 calls that note each call's number in a progress
file as it begins), and `dbg runs`, `dbg calls` and `dbg history` still
show most of what was made until then, in a run marked cut short.

Counts are compared with what the program itself made, never with a time:
at least half of it is kept (the store is written every fraction of a
second, the program makes a few hundred calls a second)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from builds import build_c, copy_target

from dbgcore.shared import procutil
from dbgcore.testing import DBG, require_backend

if TYPE_CHECKING:
    from conftest import Dbg, Target

#: Records the store must hold before the daemon is killed: enough that
#: keeping half of what was made is not luck.
LEAST = 400


def start(dbg: Dbg, backend: str, program: Path, tmp_path: Path) -> Path:
    """Start a session on a long-running program; the progress file it writes."""
    require_backend(backend)
    progress = tmp_path / "progress"
    started = dbg.json("start", "--backend", backend, str(program), str(progress))
    assert started["ok"] and started["state"] == "stopped", started
    return progress


def stored(dbg: Dbg, table: str) -> int:
    """Rows the store holds now, read beside the daemon writing them."""
    db = sqlite3.connect(f"file:{dbg.home / 'store.sqlite3'}?mode=ro", uri=True, timeout=10)
    try:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # the table is not made yet
    finally:
        db.close()


def made(progress: Path) -> int:
    """Calls the program had begun: the numbers it wrote, whole lines only."""
    text = progress.read_text() if progress.exists() else ""
    return text.count("\n")


def killed_mid_op(dbg: Dbg, op: list[str], table: str, progress: Path) -> tuple[int, int]:
    """Run `dbg OP` (it runs the program on) from another client; once the
    store holds LEAST of its records (and `dbg runs` shows its run in
    progress), SIGKILL the session's daemon. Returns the records the store
    held just before, and the calls the program had made by the kill."""
    status = json.loads((dbg.home / "sessions" / "default" / "status.json").read_text())
    running = subprocess.Popen([*DBG, "--json", "--timeout", "600", *op], cwd=dbg.cwd,
                               env=dbg.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        seen_in_progress = False
        deadline = time.monotonic() + 300
        while (held := stored(dbg, table)) < LEAST:
            assert running.poll() is None, running.communicate()  # it must still run
            assert time.monotonic() < deadline, (held, made(progress))
            if held and not seen_in_progress:
                # While the op runs, its run is there, in progress, with what it has so far.
                (run,) = dbg.json("runs")["runs"]
                assert run.get("state") == "in progress", run
                assert run["calls"] + run.get("values", 0) > 0, run
                seen_in_progress = True
            time.sleep(0.05)
        os.kill(int(status["pid"]), signal.SIGKILL)
        calls = made(progress)
        died = running.communicate(timeout=60)
        assert running.returncode != 0, died
    finally:
        if running.poll() is None:
            running.kill()
            running.communicate()
    deadline = time.monotonic() + 10
    while procutil.alive(int(status["pid"])) and time.monotonic() < deadline:
        time.sleep(0.02)
    return held, calls


def cut_short(dbg: Dbg) -> dict[str, Any]:
    """The session's one run, as `dbg runs` tells it after the kill."""
    (run,) = dbg.json("runs")["runs"]
    assert run["state"] == "cut short" and run["ended_at"] is None, run
    assert "daemon" in run["cut_short"] and "died" in run["cut_short"], run
    assert "cut short (its daemon" in dbg("runs").out
    return run


def python_longrun(target: Any) -> Target:
    return target("longrun.py")  # type: ignore[no-any-return]


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_a_trace_killed_midway_keeps_its_calls_in_a_run_cut_short(
        dbg: Dbg, target: Any, tmp_path: Path, backend: str) -> None:
    longrun = python_longrun(target)
    progress = start(dbg, backend, longrun.path, tmp_path)
    held, calls = killed_mid_op(dbg, ["trace", "work"], "calls", progress)
    kept_calls(dbg, held, calls)


def kept_calls(dbg: Dbg, held: int, calls: int) -> None:
    run = cut_short(dbg)
    answer = dbg.json("calls", "--limit", "100000")
    assert answer["ok"] and answer["run_state"] == "cut short", answer
    assert "cut short" in answer["note"], answer
    total = answer["total"]
    # All the store held before the kill, and most of what the program made.
    assert total == run["calls"] and total >= held >= LEAST, (total, held)
    assert total >= calls // 2, (total, calls)
    rows = answer["calls"]
    # In order, each its own call, none twice: work(0), work(1), ...
    assert [r["args"][0]["value"] for r in rows] == [str(i) for i in range(total)]
    # Those that returned with the value they returned; the last may be open.
    assert all(r["value"] == str(2 * i) for i, r in enumerate(rows[:-1])), rows[-3:]
    assert {r["outcome"] for r in rows[:-1]} == {"returned"}


def test_a_native_trace_killed_midway_keeps_its_calls(
        dbg: Dbg, tmp_path: Path) -> None:
    source = copy_target("native/longrun.c", tmp_path / "work")
    program = build_c(source.path)
    progress = start(dbg, "gdb", program, tmp_path)
    held, calls = killed_mid_op(dbg, ["trace", "work"], "calls", progress)
    kept_calls(dbg, held, calls)


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_history_at_killed_midway_keeps_its_values(
        dbg: Dbg, target: Any, tmp_path: Path, backend: str) -> None:
    longrun = python_longrun(target)
    progress = start(dbg, backend, longrun.path, tmp_path)
    where = f"{longrun.path.name}:{longrun.lines['work-return']}"
    held, calls = killed_mid_op(
        dbg, ["history", "i * 3", "--at", where, "--max", "100000"], "samples", progress)
    run = cut_short(dbg)
    # Read back from the store, with no daemon: the values --at took.
    answer = dbg.json("history", "i * 3", "--limit", "100000")
    assert answer["ok"], answer
    history = answer["history"]
    assert "cut short" in history["note"], history
    assert where in history["source"], history
    total = history["total"]
    assert total == run["values"] and total >= held >= LEAST, (total, held)
    assert total >= calls // 2, (total, calls)
    # Each hit's value, in the order they were taken.
    assert [v["value"] for v in history["values"]] == [str(3 * i) for i in range(total)]
    assert "cut short" in dbg("history", "i * 3", "--limit", "2").out
