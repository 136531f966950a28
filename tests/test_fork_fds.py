"""A daemon forked off a process that holds open files (an in-process front
end: the bench, an embedding program) lets each inherited descriptor go
without freeing its number: the caller's objects live on in the fork, and
one finalized there later closes its number. A freed number was reused by
the daemon's first files (an early adapter's pipes), which were then closed
under them and read the store's SQLite file as the adapter's output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from dbgcore.shared import procutil
from dbgcore.testing import Dbg

FORKER = textwrap.dedent("""
    import os, sys
    from dbgcore.start.daemonfork import fork_daemon
    held = [open(sys.argv[1], "rb") for _ in range(3)]  # what the caller holds
    log = os.open(os.devnull, os.O_WRONLY)
    pid = fork_daemon(["forked"], log)
    print(pid, *[f.fileno() for f in held])
""")


def test_the_callers_descriptors_are_let_go_but_not_freed(dbg: Dbg, tmp_path: Path) -> None:
    mine = tmp_path / "held.txt"
    mine.write_text("the caller's file\n")
    out = subprocess.run([sys.executable, "-c", FORKER, str(mine)], env=dbg.env,
                         capture_output=True, text=True, check=True).stdout.split()
    daemon, held = int(out[0]), [int(n) for n in out[1:]]
    dbg.sessions.add("forked")
    try:
        for fd in held:
            # Still taken, and no longer the caller's file.
            assert os.readlink(f"/proc/{daemon}/fd/{fd}") == os.devnull
    finally:
        if procutil.alive(daemon):
            os.kill(daemon, signal.SIGKILL)
