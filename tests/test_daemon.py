"""The session daemon: crashes, leftovers, several sessions, idle timeout,
private runtime files, and stale files that must not be trusted.

Processes are checked by pid *and* start time (a pid alone can be reused),
and a zombie counts as gone.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.shared import procutil

if TYPE_CHECKING:
    from conftest import Dbg, Target

pytestmark = pytest.mark.usefixtures("pdb_ready")


def session_dir(dbg: Dbg, name: str = "default") -> Path:
    return dbg.home / "sessions" / name


def read_status(dbg: Dbg, name: str = "default") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((session_dir(dbg, name) / "status.json").read_text())
    return data


def wait_until(predicate: Any, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return bool(predicate())


def gone(pid: int, started: int | None) -> bool:
    return not procutil.alive(pid, started)


def group_gone(pgid: int) -> bool:
    for entry in os.listdir("/proc"):
        if entry.isdigit() and procutil.pgid_of(int(entry)) == pgid \
                and not procutil.is_zombie(int(entry)):
            return False
    return True


@pytest.fixture
def reaper() -> Iterator[list[int]]:
    """Pids a test's program started; any still alive at the end are killed
    (the test has already failed by then), so none outlives the test."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if procutil.alive(pid):
            os.kill(pid, signal.SIGKILL)


def start_spawner(dbg: Dbg, target: Any, reaper: list[int],
                  session: str = "default") -> tuple[Target, int, int]:
    """spawner.py stopped at @loop; returns it, the pid of the child it
    started, and that child's start time."""
    prog = target("spawner.py")
    snap = dbg.json("-s", session, "start", "--backend", "pdb", "--break", prog.loc("loop"), "--run", str(prog.path))
    assert snap["ok"] and snap["location"]["line"] == prog.lines["loop"], snap
    out = "".join(c["text"] for c in dbg.json("-s", session, "output")["chunks"])
    child = int(out.split()[1])
    reaper.append(child)
    started = procutil.start_time(child)
    assert started is not None and procutil.alive(child, started)
    return prog, child, started


def test_no_process_outlives_dbg_kill(dbg: Dbg, target: Any, reaper: list[int]) -> None:
    _, child, child_started = start_spawner(dbg, target, reaper)
    status = read_status(dbg)
    daemon = (status["pid"], status["start_time"])
    pdb = [(c["pid"], c["start_time"]) for c in status["children"] if c["role"] == "pdb"]
    assert len(pdb) == 1 and procutil.alive(*pdb[0]) and procutil.alive(*daemon)
    pgid = procutil.pgid_of(pdb[0][0])
    assert pgid is not None and procutil.pgid_of(child) == pgid

    assert dbg.json("kill")["ok"]
    # The daemon removes its status file before it answers; the processes
    # follow within the grace periods.
    assert not (session_dir(dbg) / "status.json").exists()
    assert wait_until(lambda: gone(*daemon) and gone(*pdb[0]) and gone(child, child_started))
    assert wait_until(lambda: group_gone(pgid))
    assert not (session_dir(dbg) / "daemon.sock").exists()
    assert not Path(status["socket"]).exists()
    assert dbg.json("sessions")["sessions"] == []


def test_daemon_killed_with_sigkill(dbg: Dbg, target: Any, reaper: list[int]) -> None:
    prog, child, child_started = start_spawner(dbg, target, reaper)
    dbg.json("continue")
    assert dbg.json("print", "1")["ok"]
    status = read_status(dbg)
    pdb = next((c["pid"], c["start_time"]) for c in status["children"])
    os.kill(status["pid"], signal.SIGKILL)
    assert wait_until(lambda: gone(status["pid"], status["start_time"]))

    # The next command says what happened, and tidies up after the daemon:
    # the debugger, and the debuggee's child that ignores SIGHUP.
    result = dbg("locals")
    assert result.code == 1 and result.out == "", result
    assert f"daemon (pid {status['pid']}) died" in result.err and "dbg hits" in result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    assert wait_until(lambda: gone(*pdb) and gone(child, child_started)), "leftover processes"
    assert not (session_dir(dbg) / "status.json").exists()
    assert not Path(status["socket"]).exists()
    assert dbg.json("status")["error"]["kind"] == "no_session"
    assert dbg.json("sessions")["sessions"] == []

    # What was recorded before the crash is still there...
    hits = dbg.json("hits", prog.loc("loop"))["hits"]
    assert [h["line"] for h in hits] == [prog.lines["loop"]] * 2
    # ...and the session name can be used again.
    cart = target("cart.py")
    again = dbg.json("start", "--backend", "pdb", "--break", cart.loc("loop"), "--run", str(cart.path))
    assert again["ok"] and again["location"]["line"] == cart.lines["loop"], again
    every = dbg.json("hits", "--all")["hits"]
    assert {h["file"] for h in every if h["reason"] == "breakpoint"} == {
        str(prog.path), str(cart.path)}


def test_several_named_sessions(dbg: Dbg, target: Any) -> None:
    cart, counter = target("cart.py"), target("counter.py")
    assert dbg.json("-s", "one", "start", "--backend", "pdb", "--break", cart.loc("loop"), "--run",
                    str(cart.path))["ok"]
    assert dbg.json("--session", "two", "start", "--backend", "pdb", "--break", counter.loc("accumulate"), "--run",
                    str(counter.path))["ok"]
    assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]
    rows = {s["name"]: s for s in dbg.json("sessions")["sessions"]}
    assert set(rows) == {"one", "two", "default"}
    assert rows["two"] == {"name": "two", "backend": "pdb", "tool": "pdb", "state": "stopped",
                           "program": str(counter.path)}
    assert "two: stopped" in dbg("sessions").out
    # Each answers from its own program; DBG_SESSION picks one too.
    assert dbg.json("-s", "one", "print", "item['name']")["value"] == "'apple'"
    assert dbg.json("print", "i", env={"DBG_SESSION": "two"})["value"] == "0"
    assert dbg.json("-s", "two", "continue")["location"]["line"] == counter.lines["accumulate"]
    assert dbg.json("-s", "one", "locals")["variables"][1] == {
        "name": "total", "value": "0", "type": "int"}
    assert dbg.json("status")["location"]["line"] == 1

    assert dbg.json("-s", "one", "kill")["ok"]
    assert {s["name"] for s in dbg.json("sessions")["sessions"]} == {"two", "default"}
    assert dbg.json("-s", "two", "print", "i")["value"] == "1"
    assert dbg.json("-s", "one", "status")["error"]["kind"] == "no_session"


def test_idle_session_ends_by_itself(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    assert dbg.json("-s", "idle", "start", "--backend", "pdb", "--idle-timeout", "2", str(cart.path))["ok"]
    status = read_status(dbg, "idle")
    assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]  # the default timeout: stays
    pdb = next((c["pid"], c["start_time"]) for c in status["children"])
    assert wait_until(lambda: not (session_dir(dbg, "idle") / "status.json").exists(), 10)
    assert wait_until(lambda: gone(status["pid"], status["start_time"]) and gone(*pdb))
    assert dbg.json("-s", "idle", "status")["error"]["kind"] == "no_session"
    assert [s["name"] for s in dbg.json("sessions")["sessions"]] == ["default"]
    assert dbg.json("-s", "idle", "hits")["hits"][0]["reason"] == "entry"
    bad = dbg("start", "--backend", "pdb", "--idle-timeout", "0", str(cart.path))
    assert bad.code == 2 and "Traceback" not in bad.err


@pytest.mark.parametrize("home", ["short", "long"])
def test_a_deleted_session_folder_ends_its_daemon(dbg: Dbg, target: Any, home: str) -> None:
    # Nobody can reach or kill a daemon whose socket is gone (a temporary
    # DBG_HOME removed, a session folder deleted by hand): it ends itself.
    # With a long DBG_HOME the socket is in /tmp, and stays: the folder's
    # status file is what clients find the session by.
    import shutil

    if home == "long":
        dbg.env["DBG_HOME"] = str(dbg.home.parent / ("h" * 90))
        dbg.home = Path(dbg.env["DBG_HOME"])
    cart = target("cart.py")
    assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]
    status = read_status(dbg)
    pdb = next((c["pid"], c["start_time"]) for c in status["children"])
    shutil.rmtree(session_dir(dbg))
    assert wait_until(lambda: gone(status["pid"], status["start_time"]) and gone(*pdb), 10)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_runtime_files_are_private(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]
    status = read_status(dbg)
    sock = Path(status["socket"])
    assert stat.S_ISSOCK(sock.stat().st_mode)
    assert mode(sock) == 0o600
    assert mode(sock.parent) == 0o700
    for folder in (dbg.home, dbg.home / "sessions", session_dir(dbg)):
        assert mode(folder) == 0o700, folder
    for name in ("status.json", "daemon.log", "debugger.log"):
        assert mode(session_dir(dbg) / name) == 0o600, name
    assert mode(dbg.home / "store.sqlite3") == 0o600


def test_long_home_gets_a_short_private_socket(dbg: Dbg, tmp_path: Path, target: Any) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    runner = type(dbg)(deep / "home", tmp_path / "work")
    cart = target("cart.py")
    try:
        assert runner.json("start", "--backend", "pdb", str(cart.path))["ok"]
        sock = Path(read_status(runner)["socket"])
        assert len(str(sock)) < 108 and not str(sock).startswith(str(deep))
        assert mode(sock) == 0o600 and mode(sock.parent) == 0o700
        assert runner.json("print", "1 + 1")["value"] == "2"
    finally:
        runner.kill_all()
    assert not sock.exists()


def test_stale_socket_without_status_is_removed(dbg: Dbg, target: Any) -> None:
    folder = session_dir(dbg)
    folder.mkdir(parents=True, mode=0o700)
    leftover = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    leftover.bind(str(folder / "daemon.sock"))
    leftover.close()  # bound, never listening: what a crashed daemon leaves
    result = dbg("status")
    assert result.code == 1 and "no session named 'default'" in result.err, result
    assert not (folder / "daemon.sock").exists()
    cart = target("cart.py")
    assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]


def test_status_of_a_dead_daemon_is_not_trusted(dbg: Dbg, target: Any) -> None:
    folder = session_dir(dbg)
    folder.mkdir(parents=True, mode=0o700)
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    sock = folder / "daemon.sock"
    sock.write_text("")
    (folder / "status.json").write_text(json.dumps({
        "pid": finished.pid, "start_time": 1, "socket": str(sock), "session": "default",
        "children": []}))
    result = dbg("print", "1")
    assert result.code == 1 and f"daemon (pid {finished.pid}) died" in result.err, result
    assert not sock.exists() and not (folder / "status.json").exists()
    cart = target("cart.py")
    assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]
    assert dbg.json("print", "6 * 7")["value"] == "42"


def test_reused_pids_are_neither_trusted_nor_killed(dbg: Dbg, target: Any) -> None:
    # A status file whose pids now belong to other processes (same pid,
    # another start time): the daemon is dead, and those processes are not
    # its children, so they must be left alone.
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                 start_new_session=True)
    try:
        started = procutil.start_time(bystander.pid)
        assert started is not None
        folder = session_dir(dbg)
        folder.mkdir(parents=True, mode=0o700)
        (folder / "status.json").write_text(json.dumps({
            "pid": bystander.pid, "start_time": started - 1, "socket": str(folder / "x.sock"),
            "session": "default", "children": [
                {"pid": bystander.pid, "start_time": started - 1, "pgid": bystander.pid,
                 "role": "pdb"}]}))
        result = dbg("status")
        assert result.code == 1 and "died" in result.err, result
        assert bystander.poll() is None and procutil.alive(bystander.pid, started)
        cart = target("cart.py")
        assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]
    finally:
        bystander.kill()
        bystander.wait()
