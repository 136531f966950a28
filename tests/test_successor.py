"""A session's spare daemon (dbgcore.start.successor): the next start of an ended
session through the CLI is served by it, only on the terms it was made on,
and it lives no longer than the session."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_debugpy import processes_of

from dbgcore.shared import procutil
from dbgcore.testing import Dbg


def live_of(home: Path, wanted: Callable[[Path], bool]) -> set[int]:
    """Live processes that carry this test's DBG_HOME and whose /proc folder
    ``wanted`` takes."""
    marker = f"DBG_HOME={home}".encode()
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            taken = wanted(entry) and marker in (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if taken and not procutil.is_zombie(int(entry.name)):
            found.add(int(entry.name))
    return found


def spares(home: Path) -> set[int]:
    """Live processes named dbg-spare that carry this test's DBG_HOME."""
    return live_of(home, lambda entry: (entry / "comm").read_text().strip() == "dbg-spare")


def wait_for(check: Callable[[], object], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def daemon_pid(folder: Path) -> int:
    return int(json.loads((folder / "status.json").read_text())["pid"])


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_the_next_start_of_an_ended_session_is_its_spares(short_dbg: Dbg, target, backend_ready,
                                                          backend: str) -> None:
    """While the program runs the spare waits, listening nowhere; once it has
    ended the spare listens, with the session's debugger spawned early, and
    the next start through the CLI is that spare's, the debugger adopted.
    Again and again (a taken spare has its own). Killed, the session leaves
    no process of dbg's behind: no spare, no early debugger."""
    backend_ready(backend)
    dbg = short_dbg
    cart = target("cart.py")
    folder = dbg.home / "sessions" / "default"
    first = dbg.json("start", "--backend", backend, "--break", cart.loc("main-first"), "--run",
                     str(cart.path))
    assert first["state"] == "stopped", first
    assert not (folder / "spare.sock").exists()  # the program has not ended
    assert len(spares(dbg.home)) == 1
    for _ in range(2):
        assert dbg.json("continue")["state"] == "exited"
        assert wait_for(lambda: (folder / "spare.sock").exists()), "no spare listens"
        ready = spares(dbg.home)
        old = daemon_pid(folder)
        log_size = (folder / "daemon.log").stat().st_size
        again = dbg.json("start", "--backend", backend, "--break", cart.loc("main-first"), "--run",
                         str(cart.path))
        assert again["state"] == "stopped" and again["note"].startswith(
            "replaced session 'default'"), again
        new = daemon_pid(folder)
        assert new in ready, (new, ready)
        assert dbg.json("locals")["ok"]
        log = (folder / "daemon.log").read_text()[log_size:]
        assert "adopted the early" in log, log
        assert wait_for(lambda old=old: not procutil.alive(old)), "the replaced daemon did not end"
        # The new daemon's own spare waits; the taken one's ended with it.
        assert wait_for(lambda: len(spares(dbg.home)) == 1), spares(dbg.home)
        assert not (folder / "spare.sock").exists()
    assert dbg.json("kill")["ok"]
    assert wait_for(lambda: not processes_of(dbg.home)), processes_of(dbg.home)


def test_a_start_from_another_environment_or_folder_is_not_the_spares(
        short_dbg: Dbg, target, pdb_ready, tmp_path: Path) -> None:
    """What the spare loaded and spawned hangs on the environment, the folder,
    the umask and the resource limits of the client that started the
    session: a start with another is refused by it and forks its own daemon,
    and works as ever; the spare then ends with the session it belonged to."""
    dbg = short_dbg
    cart = target("cart.py")
    folder = dbg.home / "sessions" / "default"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for env, cwd in (({"DBG_TEST_OTHER": "1"}, None), ({}, elsewhere)):
        assert dbg.json("start", "--backend", "pdb", "--run", str(cart.path))["state"] == "exited"
        assert wait_for(lambda: (folder / "spare.sock").exists()), "no spare listens"
        ready = spares(dbg.home)
        again = dbg.json("start", "--backend", "pdb", "--break", cart.loc("main-first"), "--run",
                         str(cart.path), env=env, cwd=cwd)
        assert again["state"] == "stopped", again
        assert daemon_pid(folder) not in ready
        assert dbg.json("locals", env=env, cwd=cwd)["ok"]
        # The refused spare (and its own) ended with the replaced session.
        assert wait_for(lambda ready=ready: not spares(dbg.home) & ready), spares(dbg.home) & ready
        assert dbg.json("kill", env=env, cwd=cwd)["ok"]
        assert wait_for(lambda: not processes_of(dbg.home)), processes_of(dbg.home)


def test_no_spare_when_turned_off(short_dbg: Dbg, target, pdb_ready) -> None:
    dbg = short_dbg
    cart = target("cart.py")
    off = {"DBG_NO_SPARE": "1"}
    assert dbg.json("start", "--backend", "pdb", "--run", str(cart.path), env=off)["ok"]
    assert not spares(dbg.home)
    assert dbg.json("kill", env=off)["ok"]


def test_a_spare_whose_loaded_files_changed_is_not_used(short_dbg: Dbg, target, pdb_ready,
                                                        tmp_path: Path) -> None:
    """A package installed (a plugin among them) or a module of dbg's or a
    plugin's changed since the spare loaded them: a new daemon would load
    something else, so the spare refuses the start and ends."""
    dbg = short_dbg
    cart = target("cart.py")
    folder = dbg.home / "sessions" / "default"
    site = tmp_path / "site"
    site.mkdir()
    env = {"PYTHONPATH": str(site)}
    assert dbg.json("start", "--backend", "pdb", "--run", str(cart.path),
                    env=env)["state"] == "exited"
    assert wait_for(lambda: (folder / "spare.sock").exists()), "no spare listens"
    # Loaded once it has forked its own spare.
    assert wait_for(lambda: len(spares(dbg.home)) == 2), spares(dbg.home)
    ready = spares(dbg.home)
    time.sleep(0.05)  # a folder's time moves on at the clock's tick
    (site / "newly_installed.py").write_text("")
    again = dbg.json("start", "--backend", "pdb", "--break", cart.loc("main-first"), "--run",
                     str(cart.path), env=env)
    assert again["state"] == "stopped", again
    assert daemon_pid(folder) not in ready
    assert wait_for(lambda: not spares(dbg.home) & ready), spares(dbg.home) & ready
    assert dbg.json("kill", env=env)["ok"]
