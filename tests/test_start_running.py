"""`start --break X --run` on a program that has not reached X when the
start's --timeout runs out answers "running", with the breakpoint placed,
on every Python backend, and the session goes on: `dbg wait` stops there.
(pdb once answered that it "cannot take 'breaks' while the program runs"
and ended the session with its program.)"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_a_start_still_running_at_its_timeout_answers_running(backend: str, dbg: Dbg,
                                                              target: Any) -> None:
    require_backend(backend)
    program = target("sleeper.py")
    line = program.lines["done"]
    started = dbg.json("--timeout", "1.5", "start", "--backend", backend, "--break",
                       f"sleeper.py:{line}", "--run", str(program.path), "4")
    assert started["ok"] and started["state"] == "running", started
    assert [b["line"] for b in started["breakpoints"]] == [line], started
    stop = dbg.json("--timeout", "30", "wait")
    assert stop["state"] == "stopped" and stop["location"]["line"] == line, stop
