"""Each way of starting a daemon (dbgcore.start.launch), for real: each
starts a daemon that listens and answers, is the process that way makes (a
fork of its caller, of `dbg mcp`'s fork helper, a new interpreter, the
session's spare), and leaves no process behind once the session is killed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_successor import live_of, spares, wait_for

from dbgcore.shared import procutil
from dbgcore.shared.sessionsocket import ask
from dbgcore.testing import Dbg

#: Starts session argv[1]'s daemon the way argv[2] names, in a fresh
#: interpreter (one thread, dbg imported), and prints its pid.
SCRIPT = """
import os, sys, threading, time
from dbgcore.shared.homecheck import open_log
from dbgcore.shared.paths import private_dir, session_dir
from dbgcore.start import forkserver, launch
name, way = sys.argv[1], sys.argv[2]
folder = str(private_dir(session_dir(name)))
log_path = os.path.join(folder, "daemon.log")
fd = open_log(log_path)
start = launch.Launch(name, folder, fd, log_path, first_client=way == "fork_before_import")
if way == "ask_fork_helper":
    forkserver.use()
if way == "with_a_thread":
    threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
    print(launch.fork_after_import(start))
elif way == "in_order":
    print(launch.start_daemon(start, (lambda launch: None, launch.new_interpreter)))
else:
    print(getattr(launch, way)(start))
forkserver.stop()
"""


def _start(dbg: Dbg, name: str, way: str) -> int | None:
    out = subprocess.run([sys.executable, "-c", SCRIPT, name, way], cwd=dbg.cwd, env=dbg.env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    answer = out.stdout.split()[-1]
    return None if answer == "None" else int(answer)


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


def _of_this_home(dbg: Dbg) -> set[int]:
    return live_of(dbg.home, lambda entry: True)


def _ping(socket: str) -> dict[str, object]:
    return json.loads(ask(socket, b'{"op":"ping","args":{},"timeout":5}\n', 10))


def _listening(dbg: Dbg, name: str, pid: int) -> None:
    """The daemon ``pid`` is session ``name``'s, and answers."""
    status = dbg.home / "sessions" / name / "status.json"
    assert wait_for(lambda: status.exists() and json.loads(status.read_text())["pid"] == pid), \
        (dbg.home / "sessions" / name / "daemon.log").read_text()
    answer = _ping(json.loads(status.read_text())["socket"])
    assert answer["ok"] and answer["result"]["pid"] == pid, answer


def _killed(dbg: Dbg, name: str) -> None:
    assert dbg.json("-s", name, "kill")["ok"], name
    assert wait_for(lambda: not _of_this_home(dbg)), [_cmdline(p) for p in _of_this_home(dbg)]


@pytest.mark.parametrize(("way", "made_by"), [
    ("fork_after_import", "-c"),
    ("fork_before_import", "-c"),
    ("ask_fork_helper", "dbgcore.start.forkhelper"),
    ("new_interpreter", "dbgcore.daemon.server"),
    ("in_order", "dbgcore.daemon.server"),
])
def test_each_way_starts_a_daemon_that_leaves_nothing_behind(short_dbg: Dbg, way: str,
                                                             made_by: str) -> None:
    dbg = short_dbg
    pid = _start(dbg, "launched", way)
    assert pid is not None
    # A fork carries its caller's command line (the script's, the helper's);
    # a new interpreter its own.
    assert made_by in _cmdline(pid), _cmdline(pid)
    _listening(dbg, "launched", pid)
    _killed(dbg, "launched")
    assert not procutil.alive(pid)


def test_a_process_with_threads_does_not_fork_and_no_spare_is_no_start(short_dbg: Dbg) -> None:
    dbg = short_dbg
    assert _start(dbg, "threaded", "with_a_thread") is None
    # No spare in the session's folder: the next way is tried.
    assert _start(dbg, "threaded", "take_spare") is None
    assert not _of_this_home(dbg)


@pytest.mark.usefixtures("pdb_ready")
def test_the_session_spare_takes_the_start_of_its_client(short_dbg: Dbg, target) -> None:
    """The spare an ended session's daemon readied takes a start on the
    terms of the client that started the session (this script's), runs as
    the session's next daemon, and ends with the session, its early
    debugger too."""
    dbg = short_dbg
    cart = target("cart.py")
    folder = dbg.home / "sessions" / "default"
    assert dbg.json("start", "--backend", "pdb", "--run", str(cart.path))["state"] == "exited"
    assert wait_for(lambda: (folder / "spare.sock").exists()), "no spare listens"
    ready = spares(dbg.home)
    assert len(ready) == 1
    script = SCRIPT.replace("first_client=way", "words=['start', '--backend', 'pdb'], "
                            "replacing_at=os.path.join(folder, 'launch.sock'), first_client=way")
    out = subprocess.run([sys.executable, "-c", script, "default", "take_spare"], cwd=dbg.cwd,
                         env=dbg.env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert {int(out.stdout.split()[-1])} == ready
    # It listens beside the ended session, for its client's start.
    assert wait_for(lambda: (folder / "launch.sock").exists())
    assert _ping(str(folder / "launch.sock"))["result"]["pid"] in ready
    assert json.loads(ask(str(folder / "launch.sock"),
                          b'{"op":"kill","args":{},"timeout":10}\n', 15))["ok"]
    _killed(dbg, "default")
