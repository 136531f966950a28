"""`dbg mcp`'s spare daemon (the fork helper's, dbgcore.start.sparedaemon.run_for_helper)
holds no debugger while it waits: no process below it, even when the record
names the backend a start spawned last (which it once spawned ahead). A
start through `dbg mcp` takes it, and its debugger is spawned then and
adopted; the session works, and so does the next start, which takes the
next spare, on debugpy, lldb, gdb and pdb."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import builds
import pytest
from test_successor import daemon_pid, spares, wait_for

from dbgcore.shared import procutil
from dbgcore.testing import Dbg


def _the_spare(home: Path) -> int:
    """The one spare of this DBG_HOME, once it has waited half a second
    with nothing below it (a debugger spawned ahead would be there by then:
    the spare spawned it before it listened)."""
    assert wait_for(lambda: len(spares(home)) == 1), spares(home)
    (spare,) = spares(home)
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        below = procutil.descendants(spare)
        assert not below, [Path(f"/proc/{p}/cmdline").read_bytes() for p in below]
        time.sleep(0.05)
    return spare


@pytest.mark.parametrize("backend", ["debugpy", "lldb", "gdb", "pdb"])
def test_the_spare_holds_no_debugger_and_each_start_takes_one(
        dbg: Dbg, target: Any, backend_ready: Any, backend: str) -> None:
    from mcpclient import run_mcp

    backend_ready(backend)
    if backend in ("gdb", "lldb"):
        source = target("native/cart.c")
        program = builds.build_c(source.path)
    else:
        source = target("cart.py")
        program = source.path
    # A start first, so that the record names the backend (what a spare
    # once spawned ahead for `dbg mcp`'s next start).
    assert dbg.json("-s", "seed", "start", "--backend", backend, str(program))["ok"]
    dbg("-s", "seed", "kill")
    taken: dict[str, int] = {}

    async def scenario(session: Any) -> None:
        for name in ("one", "two"):
            spare = _the_spare(dbg.home)
            started = await session.call_tool("dbg_start", {
                "session": name, "program": str(program), "backend": backend,
                "breaks": [source.loc("loop")], "run": True})
            data = started.structured_content or {}
            assert data.get("reason") == "breakpoint", started
            taken[name] = spare
            assert daemon_pid(dbg.home / "sessions" / name) == spare
            answer = await session.call_tool("dbg_locals", {"session": name})
            assert not answer.is_error, answer
            stepped = await session.call_tool("dbg_next", {"session": name})
            assert (stepped.structured_content or {}).get("state") == "stopped", stepped
        for name in ("one", "two"):
            await session.call_tool("dbg_kill", {"session": name})

    run_mcp(dbg, scenario)
    for name in ("one", "two"):
        log = (dbg.home / "sessions" / name / "daemon.log").read_text()
        # Its debugger was spawned as the start took the spare, and adopted.
        assert "adopted the early" in log, log
    # The third spare ended with `dbg mcp`.
    assert wait_for(lambda: not spares(dbg.home)), spares(dbg.home)
