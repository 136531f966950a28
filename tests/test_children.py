"""Child processes (issue 21): on debugpy each child is a session of its own
(PARENT/NAME-PID) with the parent's breakpoints; kill of the parent ends them
and leaves no process; other backends run children undebugged, no hang."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from dbgcore.shared import procutil
from dbgcore.testing import Dbg, require_backend


def _sessions(dbg: Dbg) -> dict[str, dict[str, Any]]:
    listing = dbg.json("sessions")
    return {s["name"]: s for s in listing["sessions"]}


def _children(dbg: Dbg, parent: str = "default", state: str | None = None,
              count: int = 1, wait: float = 30) -> list[str]:
    """The names of the parent's child sessions (at least ``count`` in ``state``)."""
    deadline = time.monotonic() + wait
    while True:
        found = [name for name, s in _sessions(dbg).items() if name.startswith(parent + "/")
                 and (state is None or s.get("state") == state)]
        if len(found) >= count or time.monotonic() > deadline:
            return sorted(found)
        time.sleep(0.2)


def _python_processes_of(folder: Path) -> list[int]:
    """Live processes whose command line names a file under ``folder``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().decode("utf-8", "replace")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(folder) in cmdline and state != "Z":
            found.append(int(entry))
    return found


def _gone(folder: Path, wait: float = 10) -> list[int]:
    deadline = time.monotonic() + wait
    while (left := _python_processes_of(folder)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_debugpy_pool_child_is_a_session(dbg: Dbg, target: Any, method: str) -> None:
    require_backend("debugpy")
    assert dbg.json("caps", "--backend", "debugpy")["backends"][0]["ops"]["children"] == "native"
    pool = target("children/pool.py")
    started = dbg.json("start", "--backend", "debugpy", "--break",
                       pool.loc("square"), "--run", pool.path, method, timeout=90)
    assert started["ok"], started
    # The parent waits for its pool; its answer names the child that stopped.
    assert started["state"] == "running" and started["children_stopped"], started
    told = started["children_stopped"][0]
    assert told["location"]["line"] == pool.lines["square"], told
    children = _children(dbg, state="stopped", count=1)
    assert told["session"] in children, _sessions(dbg)
    child = children[0]
    assert child.startswith("default/") and child.rsplit("-", 1)[1].isdigit(), child
    listing = _sessions(dbg)[child]
    assert listing["backend"] == "debugpy"
    where = dbg.json("-s", child, "wait")
    assert where["location"]["line"] == pool.lines["square"], where
    local = dbg.json("-s", child, "locals")
    assert any(v["name"] == "n" for v in local["variables"]), local
    assert dbg.json("-s", child, "breaks")["breakpoints"], "the parent's breakpoint"
    # Run every child to its end: the pool finishes, the parent prints and ends.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if _sessions(dbg)["default"]["state"] == "exited":
            break
        for name in _children(dbg, state="stopped", count=0, wait=0):
            dbg("--timeout", "2", "-s", name, "continue")
        time.sleep(0.1)
    assert _sessions(dbg)["default"]["state"] == "exited", _sessions(dbg)
    assert "squares [0, 1, 4, 9]" in dbg.output("stdout")
    killed = dbg("kill")
    assert killed.code == 0, killed
    assert not _children(dbg, count=0, wait=0), _sessions(dbg)
    assert not _gone(pool.path.parent), "processes left after kill"


def test_debugpy_kill_of_parent_ends_stopped_children(dbg: Dbg, target: Any) -> None:
    require_backend("debugpy")
    pool = target("children/pool.py")
    dbg.json("start", "--backend", "debugpy", "--break", pool.loc("square"),
             "--run", pool.path, "fork", timeout=90)
    assert _children(dbg, state="stopped", count=1)
    killed = dbg("kill")
    assert killed.code == 0, killed
    assert not _sessions(dbg), "every session ended"
    assert not _gone(pool.path.parent), "processes left after kill"


def test_debugpy_subprocess_run_child(dbg: Dbg, target: Any) -> None:
    require_backend("debugpy")
    runner = target("children/runner.py")
    child_py = target("children/child.py")
    started = dbg.json("start", "--backend", "debugpy", "--break",
                       child_py.loc("triple"), "--run", runner.path, timeout=90)
    assert started["ok"], started
    children = _children(dbg, state="stopped", count=1)
    assert children and children[0].startswith("default/child-"), _sessions(dbg)
    assert dbg.json("-s", children[0], "wait")["location"]["line"] == child_py.lines["triple"]
    local = dbg.json("-s", children[0], "locals")
    assert {v["name"]: v["value"] for v in local["variables"]}.get("n") == "7", local
    ended = dbg.json("-s", children[0], "continue")
    assert ended["state"] == "exited", ended
    parent = dbg.json("wait", timeout=60)
    assert parent["state"] == "exited", parent
    assert "child exited 0" in dbg.output("stdout")
    dbg("kill")
    assert not _gone(runner.path.parent)


def test_debugpy_break_in_the_parent_reaches_live_children(dbg: Dbg, target: Any) -> None:
    # The parent stops once its pool's workers run; a breakpoint set then
    # reaches the workers' sessions, and the map stops in one of them.
    require_backend("debugpy")
    pool = target("children/pool.py")
    stop = dbg.json("start", "--backend", "debugpy", "--break", pool.loc("ready"), "--run",
                    pool.path, "fork", timeout=90)
    assert stop["state"] == "stopped", stop
    workers = _children(dbg, state="running", count=2)
    assert len(workers) == 2, _sessions(dbg)
    placed = dbg.json("break", pool.loc("square"))
    assert sorted(t["session"] for t in placed["children"] if t["ok"]) == workers, (placed.get("children"), _sessions(dbg))
    for worker in workers:
        lines = {b["line"] for b in dbg.json("-s", worker, "breaks")["breakpoints"]}
        assert pool.lines["square"] in lines, (worker, lines)
    removed = dbg.json("unbreak", str(placed["breakpoint"]["id"]))
    assert len([t for t in removed["children"] if t["ok"]]) == 2, removed
    for worker in workers:
        lines = {b["line"] for b in dbg.json("-s", worker, "breaks")["breakpoints"]}
        assert pool.lines["square"] not in lines, (worker, lines)
    again = dbg("break", pool.loc("square"))
    assert all(f"also in child session {worker}" in again.out for worker in workers), again
    went = dbg.json("continue", timeout=60)
    # (An answer without it failed once in CI, under load: said whole.)
    stopped = went.get("children_stopped") or [{}]
    assert (stopped[0].get("location") or {}).get("line") == pool.lines["square"], \
        (went, _sessions(dbg))
    dbg("kill")
    assert not _gone(pool.path.parent)


def test_debugpy_child_keeps_the_parents_condition(dbg: Dbg, target: Any) -> None:
    # A conditional breakpoint of the parent's is conditional in the child
    # too: n is 7 there, so the child runs through and the program ends.
    require_backend("debugpy")
    runner = target("children/runner.py")
    child_py = target("children/child.py")
    assert dbg.json("start", "--backend", "debugpy", runner.path, timeout=90)["ok"]
    placed = dbg.json("break", child_py.loc("triple"), "--if", "n != 7")
    assert placed["ok"], placed
    ended = dbg.json("continue", timeout=60)
    assert ended["state"] == "exited", (ended, _sessions(dbg))
    assert "child exited 0" in dbg.output("stdout")
    dbg("kill")
    assert not _gone(runner.path.parent)


@pytest.mark.parametrize("backend", ["gdb", "lldb", "debugpy", "dlv"])
def test_kill_of_an_attached_program_detaches_and_says_so(dbg: Dbg, tmp_path: Path,
                                                          target: Any, backend: str) -> None:
    require_backend(backend)
    import subprocess
    import sys

    import builds

    program = tmp_path / "nap.py"
    # It has a child of its own, which stays too.
    program.write_text("import subprocess, sys, time\n"
                       "subprocess.Popen(['sleep', '300'])\n"
                       "while True:\n    time.sleep(0.05)\n", encoding="utf-8")
    argv = ["sh", "-c", "sleep 300 & wait"] if backend != "debugpy" \
        else [sys.executable, str(program)]
    if backend == "dlv":
        gosleep = target("children/gosleep/main.go").path.parent
        shutil.copy(builds.TARGETS / "children" / "gosleep" / "go.mod", gosleep)
        argv = [str(builds.build_go(gosleep))]
    napper = subprocess.Popen(argv)
    try:
        deadline = time.monotonic() + 10
        while not procutil.descendants(napper.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        children = procutil.descendants(napper.pid)
        assert children
        attached = dbg.json("attach", "--backend", backend, "--pid", str(napper.pid),
                            timeout=90)
        assert attached["ok"], attached
        killed = dbg.json("kill")
        assert killed["program"] == "detached, still running", killed
        time.sleep(0.3)
        assert napper.poll() is None, "the attached program was ended"
        assert all(procutil.alive(pid) for pid in children), "its child was ended"
    finally:
        for pid in procutil.descendants(napper.pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        napper.kill()
        napper.wait()


def test_kill_of_a_launched_program_says_it_ended(dbg: Dbg, target: Any) -> None:
    require_backend("debugpy")
    runner = target("children/runner.py")
    started = dbg("start", "--backend", "debugpy", runner.path, timeout=90)
    assert started.code == 0, started
    killed = dbg("kill")
    assert killed.out.strip().endswith("its program: ended"), killed
    assert not _gone(runner.path.parent)


# Each backend that does not follow children: the program runs its child
# undebugged and stops at a breakpoint after it (no hang), as (backend,
# target, program arguments).
UNFOLLOWED = [
    ("gdb", "children/forker.c", []),
    ("lldb", "children/forker.c", []),
    ("dlv", "children/gospawn/main.go", []),
    ("node", "children/spawn.js", []),
    ("perl", "children/fork.pl", []),
    ("jdb", "children/Spawn.java", []),
    ("pdb", "children/pool.py", ["fork"]),
    ("pdb", "children/pool.py", ["spawn"]),
    ("pdb", "children/runner.py", []),
]


@pytest.mark.parametrize(("backend", "name", "args"), UNFOLLOWED,
                         ids=[f"{b}-{Path(n).stem}{'-' + a[0] if a else ''}"
                              for b, n, a in UNFOLLOWED])
def test_children_run_undebugged_without_hanging(dbg: Dbg, target: Any, backend: str,
                                                 name: str, args: list[str]) -> None:
    require_backend(backend)
    import builds

    source = target(name)
    if name.endswith("runner.py"):
        target("children/child.py")
    program: Path = source.path
    if source.path.suffix == ".c":
        program = builds.build_c(source.path)
    elif source.path.suffix == ".go":
        shutil.copy(builds.TARGETS / "children" / "gospawn" / "go.mod", source.path.parent)
        program = builds.build_go(source.path.parent)
    caps = dbg.json("caps", "--backend", backend)
    assert caps["backends"][0]["ops"]["children"] == "none", caps
    mark = "after" if "after" in source.lines else "done"
    began = time.monotonic()
    stop = dbg.json("--timeout", "30", "start", "--backend", backend, "--break",
                    f"{source.path}:{source.lines[mark]}", "--run", str(program), *args,
                    timeout=90)
    assert stop.get("state") == "stopped" and stop["location"]["line"] == source.lines[mark], \
        stop
    assert time.monotonic() - began < 25, "the child held the program up"
    assert dbg("kill").code == 0
    assert not _gone(source.path.parent)


@pytest.mark.parametrize("backend", ["debugpy", "pdb"])
def test_kill_ends_a_child_that_left_the_process_group(dbg: Dbg, target: Any,
                                                       backend: str) -> None:
    require_backend(backend)
    escaper = target("children/escaper.py")
    stop = dbg.json("start", "--backend", backend, "--break", escaper.loc("started"), "--run",
                    escaper.path, timeout=90)
    assert stop["state"] == "stopped", stop
    assert len(_python_processes_of(escaper.path.parent)) >= 2, "program and its child"
    assert dbg("kill").code == 0
    assert not _gone(escaper.path.parent, wait=5), "a process left after kill"


def test_debugpy_os_fork_child(dbg: Dbg, target: Any) -> None:
    require_backend("debugpy")
    forks = target("children/forks.py")
    started = dbg.json("start", "--backend", "debugpy", "--break", forks.loc("work"), "--run",
                       forks.path, timeout=90)
    told = started["children_stopped"][0]
    assert told["location"]["line"] == forks.lines["work"], started
    local = dbg.json("-s", told["session"], "locals")
    assert {v["name"]: v["value"] for v in local["variables"]}.get("n") == "41", local
    assert dbg.json("-s", told["session"], "continue")["state"] == "exited"
    assert dbg.json("wait", timeout=60)["state"] == "exited"
    assert "child got 42\nparent done 0" in dbg.output("stdout")
    dbg("kill")
    assert not _gone(forks.path.parent)


@pytest.mark.parametrize("name", ["children/pool.py", "children/forks.py"])
def test_debugpy_children_not_followed_run_undebugged(dbg: Dbg, target: Any,
                                                      name: str) -> None:
    require_backend("debugpy")
    config = dbg.home / "config" / "dbg"
    config.mkdir(parents=True, exist_ok=True)
    (config / "backends.yaml").write_text(
        "backends:\n  debugpy:\n    options:\n      follow_children: false\n", encoding="utf-8")
    assert dbg.json("caps", "--backend", "debugpy")["backends"][0]["ops"]["children"] == "none"
    program = target(name)
    inside = "square" if "square" in program.lines else "work"
    began = time.monotonic()
    # A breakpoint only the (forked) children reach: they must not hang on it.
    ended = dbg.json("start", "--backend", "debugpy", "--break", program.loc(inside), "--run",
                     program.path, timeout=90)
    assert (ended["state"], ended.get("exit_code")) == ("exited", 0), ended
    assert time.monotonic() - began < 15
    assert not _children(dbg, count=0, wait=0), "no child sessions"
    out = dbg.output("stdout")
    assert "squares [0, 1, 4, 9]" in out or "child got 42" in out, out
    assert "PYDEV DEBUGGER WARNING" not in dbg.output("stderr")
    dbg("kill")
    assert not _gone(program.path.parent)


def test_pause_stops_a_start_run_that_has_not_stopped_yet(dbg: Dbg, target: Any) -> None:
    # The program of issue 21 answered "running" to start --run and ignored
    # pause: the adapter had not stopped it once, and dbg only paused a
    # program it had seen resume.
    require_backend("debugpy")
    import subprocess

    from dbgcore.testing import DBG

    spin = target("spin.py")
    starting = subprocess.Popen([*DBG, "--json", "start", "--backend", "debugpy", "--run",
                                 str(spin.path)], cwd=dbg.cwd, env=dbg.env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while (seen := _sessions(dbg).get("default", {})).get("state") != "running":
            if starting.poll() is not None or time.monotonic() > deadline:
                out, err = starting.communicate(timeout=30)
                pytest.fail(f"the program never ran: last listed {seen}; "
                            f"start said {out or err}")
            time.sleep(0.1)
        paused = dbg.json("--timeout", "10", "pause")
        assert (paused.get("state"), paused.get("reason")) == ("stopped", "pause"), \
            paused.get("error")
        out, _ = starting.communicate(timeout=30)
    finally:
        if starting.poll() is None:
            starting.kill()
            starting.wait()
    assert '"reason": "pause"' in out, out
