"""Interrupt from anywhere: while one client blocks in `dbg continue` on a
program that never stops, a second client's `status`, `output`, `sessions`
and `pause` answer at once (the pause's stop is also the continue's answer),
ops that need a stopped program are refused at once, and `kill` ends it all;
on every backend, through the CLI, and through `dbg mcp`."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from builds import build_c, copy_tree

from dbgcore.testing import DBG, Dbg

#: backend -> the spin program it runs, from tests/targets/spin.
PROGRAMS = {"pdb": "spin.py", "debugpy": "spin.py", "gdb": "spin.c", "lldb": "spin.c",
            "dlv": "go", "jdb": "Spin.java", "node": "spin.js", "perl": "spin.pl"}

#: Far below the 30 s a waiting op would hold a second client before; the
#: figures themselves are measured in bench/interrupt.py.
PROMPT = 5.0


def _program(backend: str, work: Path) -> Path:
    source = copy_tree(f"spin/{PROGRAMS[backend]}", work / backend)
    if source.suffix == ".c":
        return build_c(source)
    return source


def _running(dbg: Dbg) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status = dbg.json("status")
        if status.get("state") == "running" and status.get("busy") == "continue":
            return
        time.sleep(0.1)
    raise AssertionError(f"the continue never got going: {status}")


def _timed(dbg: Dbg, *args: str) -> tuple[dict[str, object], float]:
    began = time.monotonic()
    answer = dbg.json(*args)
    return answer, time.monotonic() - began


@pytest.mark.parametrize("backend", list(PROGRAMS))
def test_second_client_interrupts_a_blocked_continue(
        backend: str, dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready(backend)
    program = _program(backend, tmp_path)
    started = dbg.json("start", "--backend", backend, str(program), timeout=120)
    # The error itself when it failed: pytest cuts a long answer short.
    assert started["ok"] and started["state"] == "stopped", started.get("error") or started
    blocked = subprocess.Popen([*DBG, "--json", "continue"], cwd=dbg.cwd, env=dbg.env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL)
    try:
        _running(dbg)
        status, took = _timed(dbg, "status")
        assert status["ok"] and status["state"] == "running", status
        assert took < PROMPT, took
        output, took = _timed(dbg, "output")
        assert output["ok"] and took < PROMPT, (output, took)
        listed, took = _timed(dbg, "sessions")
        assert [s["state"] for s in listed["sessions"]] == ["running"], listed
        assert took < PROMPT
        refused, took = _timed(dbg, "locals")
        assert refused["_exit"] == 1 and refused["error"]["kind"] == "not_stopped", refused
        assert "dbg pause" in refused["error"]["hint"] and took < PROMPT
        paused, took = _timed(dbg, "pause")
        assert paused["ok"] and paused["state"] == "stopped", paused
        assert paused["reason"] == "pause", paused
        assert took < PROMPT, took
        out, err = blocked.communicate(timeout=60)
    finally:
        if blocked.poll() is None:
            blocked.kill()
    import json

    continued = json.loads(out)
    # The blocked call returns the pause's stop.
    assert continued["ok"] and continued["state"] == "stopped", (continued, err)
    assert continued["reason"] == "pause"
    assert continued["location"] == paused["location"]
    # The session is usable as ever: step on, then kill while another call blocks.
    assert dbg.json("next")["state"] == "stopped"
    blocked = subprocess.Popen([*DBG, "continue"], cwd=dbg.cwd, env=dbg.env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL)
    try:
        _running(dbg)
        killed, took = _timed(dbg, "kill")
        assert killed["ok"] and took < PROMPT, (killed, took)
        blocked.communicate(timeout=60)
    finally:
        if blocked.poll() is None:
            blocked.kill()
    assert dbg.json("sessions")["sessions"] == []


def test_mcp_pause_while_continue_is_in_flight(dbg: Dbg, tmp_path: Path,
                                               backend_ready: Callable[[str], None]) -> None:
    """Through `dbg mcp`: a dbg_pause call is answered while a dbg_continue
    call of the same client is still waiting."""
    backend_ready("debugpy")
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    program = _program("debugpy", tmp_path)
    params = StdioServerParameters(command=sys.executable, args=["-m", "dbgcore", "mcp"],
                                   env=dict(dbg.env), cwd=str(dbg.cwd))
    answers: dict[str, object] = {}

    async def main() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as streams, \
                    ClientSession(*streams) as client:
                await client.initialize()
                start = await client.call_tool("dbg_start", {"program": str(program),
                                                             "backend": "debugpy"})
                assert not start.is_error, start

                async def keep_going() -> None:
                    result = await client.call_tool("dbg_continue", {})
                    answers["continue"] = result.structured_content

                async with anyio.create_task_group() as group:
                    group.start_soon(keep_going)
                    await anyio.sleep(1.5)
                    began = time.monotonic()
                    result = await client.call_tool("dbg_pause", {})
                    answers["pause_seconds"] = time.monotonic() - began
                    answers["pause"] = result.structured_content
                await client.call_tool("dbg_kill", {})

    anyio.run(main)
    pause, continued = answers["pause"], answers["continue"]
    assert isinstance(pause, dict) and isinstance(continued, dict)
    assert pause["ok"] and pause["reason"] == "pause", pause
    assert continued["ok"] and continued["reason"] == "pause", continued
    assert isinstance(answers["pause_seconds"], float) and answers["pause_seconds"] < PROMPT

