"""`dbg stacks` on a running native program (gdb, lldb): two threads
deadlocked on two mutexes taken in opposite orders
(tests/targets/native/deadlock.c). The debugger reads stacks only at a stop:
dbg pauses the program for the walk and resumes it, so each thread's stack
names the line it blocks at, and the session is still running after,
with no stop recorded for the read."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from builds import build_c, copy_target

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from pathlib import Path

    from conftest import Dbg


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
def test_a_deadlocked_c_program_s_threads_each_at_its_blocking_line_and_it_runs_on(
        backend: str, dbg: Dbg, tmp_path: Path) -> None:
    require_backend(backend)
    target = copy_target("native/deadlock.c", tmp_path)
    program = build_c(target.path)
    assert dbg.json("start", "--backend", backend, str(program))["ok"]
    running = dbg.json("--timeout", "2", "continue")
    assert running["ok"] and running["state"] == "running", running
    stops_before = dbg.json("hits")["total"]

    answer = dbg.json("stacks")
    assert answer["ok"], answer
    assert "paused for" in answer["note"] and "then resumed" in answer["note"], answer
    where = {}
    for thread in answer["threads"]:
        own = [f for f in thread["frames"] if f.get("file", "").endswith("deadlock.c")]
        assert own, thread
        where[own[0]["function"]] = own[0]["line"]
    assert where == {"main": target.lines["main-waits"],
                     "forward": target.lines["forward-blocks"],
                     "backward": target.lines["backward-blocks"]}, answer
    # Still running, and the read was no stop of the session's.
    assert dbg.json("status")["state"] == "running"
    assert dbg.json("hits")["total"] == stops_before
    text = dbg("stacks")
    assert text.code == 0 and "forward at " in text.out, text
    assert f"deadlock.c:{target.lines['backward-blocks']}" in text.out, text.out
    paused = dbg.json("pause")
    assert paused["ok"] and paused["state"] == "stopped", paused
