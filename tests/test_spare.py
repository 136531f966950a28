"""One spare protocol (dbgcore.start.spare) for both kinds of spare: a
session's spare, readied by the daemon of its ended run for the CLI's next
start, and `dbg mcp`'s fork helper's spare. Each is asked the same way
(dbgcore.start.launch.start_daemon over its way), takes a real start (the
session's daemon is the spare's process), and refuses a start on other
terms, which then takes the next way; nothing is left behind."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_launch import _cmdline, _killed, _listening, _of_this_home, _ping
from test_successor import spares, wait_for

from dbgcore.shared.sessionsocket import ask
from dbgcore.testing import Dbg

#: In a fresh interpreter: ready what argv[1] names ("session": nothing, the
#: session's spare is ready already; "helper": this process's fork helper,
#: whose spare it waits for), say "ready", wait for a line, then (with
#: argv[2] "refuse", in another environment than the spare's) start
#: session argv[3]'s daemon through start_daemon: the spare's way first,
#: then a fork (session) or the helper's and a new interpreter (helper).
#: Prints the pid.
SCRIPT = """
import os, sys, time
from dbgcore.shared.homecheck import open_log
from dbgcore.shared.paths import private_dir, session_dir
from dbgcore.start import forkserver, launch
kind, refuse, name = sys.argv[1], sys.argv[2] == "refuse", sys.argv[3]
folder = str(private_dir(session_dir(name)))
log_path = os.path.join(folder, "daemon.log")
fd = open_log(log_path)
words = ["start", "--backend", "pdb"]
if kind == "helper":
    forkserver.use()
    path = forkserver.current().spare_path
    deadline = time.monotonic() + 30
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    start = launch.Launch(name, folder, fd, log_path, words)
    ways = (launch.take_helper_spare, launch.ask_fork_helper, launch.new_interpreter)
else:
    start = launch.Launch(name, folder, fd, log_path, words,
                          replacing_at=os.path.join(folder, "launch.sock"))
    ways = (launch.take_spare, launch.fork_before_import)
    path = os.path.join(folder, "spare.sock")
print("ready", path, flush=True)
sys.stdin.readline()
if refuse:
    os.environ["DBG_TEST_ANOTHER_TERM"] = "1"
print(launch.start_daemon(start, ways), flush=True)
forkserver.stop()
"""


def _listeners(path: str) -> set[int]:
    """The pids of the processes holding the socket listening at ``path``."""
    inodes = {line.split()[6] for line in Path("/proc/net/unix").read_text().splitlines()[1:]
              if line.split()[-1] == path and line.split()[3] == "00010000"}  # listening
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                for fd in (entry / "fd").iterdir():
                    if os.readlink(fd) in {f"socket:[{i}]" for i in inodes}:
                        found.add(int(entry.name))
    return found


def _run(dbg: Dbg, kind: str, refuse: bool, name: str) -> tuple[int, int]:
    """The spare listening once the script is ready, and the pid it started."""
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, kind,
                             "refuse" if refuse else "take", name],
                            cwd=dbg.cwd, env=dbg.env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        said, path = proc.stdout.readline().split()
        assert said == "ready"
        # One spare holds it (its maker may hold it a moment more, and a
        # process the spare forks holds it too until it closes its fds): the
        # holder is read from the look that found one.
        seen: list[int] = []

        def one_spare() -> bool:
            held = _listeners(path)
            seen[:] = sorted(held)
            return len(held) == 1 and held <= spares(dbg.home)

        assert wait_for(one_spare), (seen, spares(dbg.home))
        (waiting,) = seen
        proc.stdin.write("go\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, err
    return waiting, int(out.split()[-1])


@pytest.mark.usefixtures("pdb_ready")
@pytest.mark.parametrize("refuse", [False, True], ids=["taken", "refused"])
def test_a_sessions_spare_and_the_helpers_are_asked_alike(short_dbg: Dbg, target,
                                                          refuse: bool) -> None:
    dbg = short_dbg
    cart = target("cart.py")
    # The session's spare: readied once the session's program has ended.
    folder = dbg.home / "sessions" / "default"
    assert dbg.json("start", "--backend", "pdb", "--run", str(cart.path))["state"] == "exited"
    assert wait_for(lambda: (folder / "spare.sock").exists()), "no spare listens"
    waiting, pid = _run(dbg, "session", refuse, "default")
    # It listens beside the ended session, for its client's start.
    assert wait_for(lambda: (folder / "launch.sock").exists())
    answer = _ping(str(folder / "launch.sock"))["result"]["pid"]
    assert answer == pid
    if refuse:
        # Refused: the next way (a fork of the script) took the start.
        assert pid != waiting and "-c" in _cmdline(pid)
    else:
        assert pid == waiting
    assert json.loads(ask(str(folder / "launch.sock"),
                          b'{"op":"kill","args":{},"timeout":10}\n', 15))["ok"]
    _killed(dbg, "default")

    # The helper's spare, for the backend a start spawned last (pdb's).
    waiting, pid = _run(dbg, "helper", refuse, "helped")
    _listening(dbg, "helped", pid)
    if refuse:
        # Refused by the spare and by the helper alike (the same terms):
        # a new interpreter took the start.
        assert pid != waiting
        assert "dbgcore.daemon.server" in _cmdline(pid), _cmdline(pid)
    else:
        assert pid == waiting
        assert "dbgcore.start.forkhelper" in _cmdline(pid), _cmdline(pid)
    _killed(dbg, "helped")
    assert not _of_this_home(dbg)
