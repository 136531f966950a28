"""The debugger of a `dbg restart` spawned ahead (dbgcore.start.prespawn.spawn_ahead):
when the program stops at a failure, where a rerun is likely, the session's
daemon spawns what the restart would, and the restart adopts it; on debugpy
its launcher then starts the program's interpreter ahead too. Nothing else
is spawned ahead, and nothing of it outlives the session.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest
from test_debugpy import processes_of
from test_early_spawn import _log as daemon_log
from test_successor import wait_for
from test_warm_debuggee import WARM_WAIT, warm_debuggees

from dbgcore.testing import Dbg, marked_lines

PROGRAM = textwrap.dedent('''\
    import sys

    with open("/proc/self/cmdline", "rb") as cmdline:
        print("ahead", b"\\0--connect\\0-\\0" in cmdline.read())
    print("argv", sys.argv[1:])


    def check(total):
        if total != 4:  # @check
            raise ValueError(f"total {total}")  # @raise


    check(sum(range(3)))
''')


@pytest.fixture
def program(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    path = folder / "prog.py"
    path.write_text(PROGRAM)
    return path


def test_a_failure_stop_spawns_the_restart_ahead_and_the_restart_takes_it(
        short_dbg: Dbg, program: Path, backend_ready) -> None:
    backend_ready("debugpy")
    dbg = short_dbg
    lines = marked_lines(program)
    stop = dbg.json("start", "--backend", "debugpy", "--break", f"prog.py:{lines['check']}",
                    "--run", "prog.py", "one", cwd=program.parent)
    assert (stop["reason"], stop["location"]["line"]) == ("breakpoint", lines["check"]), stop
    # A breakpoint's stop is no failure: nothing is spawned ahead.
    time.sleep(1.5)
    assert not warm_debuggees(dbg.home)
    failed = dbg.json("continue")
    assert (failed["reason"], failed["location"]["line"]) == ("exception", lines["raise"]), failed
    assert wait_for(lambda: warm_debuggees(dbg.home), WARM_WAIT), "nothing started ahead"
    assert dbg.json("restart")["reason"] == "entry"
    assert "adopted the early adapter" in daemon_log(dbg, "default").partition("op restart")[2]
    again = dbg.json("continue")
    assert (again["reason"], again["location"]["line"]) == ("breakpoint", lines["check"]), again
    out = dbg.output("stdout")
    # The first run's program started at its launch, the rerun's ahead of it,
    # with the same arguments.
    assert out.count("ahead False") == 1 and out.count("ahead True") == 1, out
    assert out.count("argv ['one']") == 2, out
    # The rerun goes on as the first did.
    rerun_failed = dbg.json("continue")
    assert {k: rerun_failed[k] for k in ("state", "reason", "location", "description")} == \
        {k: failed[k] for k in ("state", "reason", "location", "description")}
    assert dbg.json("kill")["ok"]
    assert wait_for(lambda: not processes_of(dbg.home)), processes_of(dbg.home)


def test_what_was_spawned_ahead_ends_with_the_session(short_dbg: Dbg, program: Path,
                                                      backend_ready) -> None:
    backend_ready("debugpy")
    dbg = short_dbg
    failed = dbg.json("start", "--backend", "debugpy", "--run", "prog.py", cwd=program.parent)
    assert failed["reason"] == "exception", failed
    assert wait_for(lambda: warm_debuggees(dbg.home), WARM_WAIT), "nothing started ahead"
    assert dbg.json("kill")["ok"]
    assert wait_for(lambda: not processes_of(dbg.home)), processes_of(dbg.home)
    assert "no restart came for it" in daemon_log(dbg, "default")


@pytest.mark.parametrize("early", [True, False])
def test_pdb_restart_takes_its_launcher_spawned_ahead(short_dbg: Dbg, program: Path,
                                                      backend_ready, early: bool) -> None:
    backend_ready("pdb")
    dbg = short_dbg
    env = {} if early else {"DBG_NO_EARLY_SPAWN": "1"}
    failed = dbg.json("start", "--backend", "pdb", "--run", "prog.py", cwd=program.parent,
                      env=env)
    assert failed["reason"] == "exception", failed
    assert dbg.json("restart", env=env)["reason"] == "entry"
    again = dbg.json("continue", env=env)
    assert again["reason"] == "exception", again
    assert {k: again[k] for k in ("location", "description")} == \
        {k: failed[k] for k in ("location", "description")}
    restart_log = daemon_log(dbg, "default").partition("op restart")[2]
    assert ("adopted the early console" in restart_log) is early, restart_log
    assert dbg.json("kill", env=env)["ok"]
    assert wait_for(lambda: not processes_of(dbg.home)), processes_of(dbg.home)
