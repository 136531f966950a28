"""Go's answers through delve where they were wrong or missing (issue 41's
Go bullet): a deadlock's stop in the program's own frame, goroutines with
their places and waits, `trace` over goroutines, and a failing test's whole
message."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from builds import build_go, copy_tree

from dbgcore.testing import marked_lines, require_backend

if TYPE_CHECKING:
    from pathlib import Path

    from conftest import Dbg


def test_a_deadlock_stops_in_the_program_frame_that_waits(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("dlv")
    package = copy_tree("golock", tmp_path)
    program = build_go(package)
    lines = marked_lines(package / "main.go")
    stop = dbg.json("start", "--backend", "dlv", "--run", str(program))
    assert stop["ok"] and stop["state"] == "stopped", stop
    # The runtime's words, and main's wg.Wait(), not sync.runtime_Semacquire.
    assert stop["description"] == "fatal error: all goroutines are asleep - deadlock!", stop
    assert stop["location"]["function"] == "main.main", stop
    assert os.path.realpath(stop["location"]["file"]) == os.path.realpath(package / "main.go")
    assert stop["location"]["line"] == lines["main-waits"], stop
    frames = dbg.json("stack")["frames"]
    assert next(f for f in frames if f.get("current"))["function"] == "main.main", frames
    assert any(v["name"] == "results" for v in dbg.json("locals")["variables"])
