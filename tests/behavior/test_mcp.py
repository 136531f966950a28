"""`dbg mcp` through the MCP SDK's own client, over stdio: a real `dbg mcp`
process and real debuggers (debugpy, gdb, and the PTY backend pdb)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcpclient import run_mcp
from twins import (
    Program,
    alive,
    debugger_in_program,
    kill_and_wait,
    session_processes,
    twin_program,
)

if TYPE_CHECKING:
    from conftest import Dbg

MCP_BACKENDS = ["debugpy", "gdb", "pdb"]


@pytest.fixture(params=MCP_BACKENDS)
def mprog(request: pytest.FixtureRequest, dbg: Dbg, backend_ready: Callable[[str], None],
          _built: Callable[[str], tuple[Path, Path]]) -> Program:
    return twin_program(request.param, dbg, backend_ready, _built)


async def call(client: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    data = result.structured_content
    assert isinstance(data, dict), result
    text = result.content[0].text  # type: ignore[union-attr]
    # The same answer as the CLI's: JSON as --json prints it, text as it prints.
    assert data["ok"] is not result.is_error, result
    if data["ok"] and data["via"]["tool"] != "dbg":
        assert text.startswith(f"[via {data['via']['tool']}"), text
    data["_text"] = text
    return data


def test_tools_are_the_op_table(dbg: Dbg) -> None:
    from dbgcore.backends.pluginhost import PluginHost
    from dbgcore.frontends.mcp.hints import described_in_mcp_words
    from dbgcore.frontends.mcp.server import input_schema
    from dbgcore.ops.table import full_table

    async def scenario(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        # The rarer ops are behind dbg_more (the listing's budget: test_mcp_budget.py).
        behind = tools["dbg_more"].input_schema["properties"]["op"]["enum"]
        for name in ("dbg_start", "dbg_break", "dbg_unbreak", "dbg_continue", "dbg_next",
                     "dbg_step", "dbg_finish", "dbg_until", "dbg_locals", "dbg_print",
                     "dbg_set", "dbg_stack", "dbg_frame", "dbg_threads", "dbg_watch",
                     "dbg_catch", "dbg_raw", "dbg_output", "dbg_hits", "dbg_sessions",
                     "dbg_kill", "dbg_caps", "dbg_backends", "dbg_display", "dbg_disasm",
                     "dbg_memory_read"):
            assert name in tools or name[4:].replace("_", "-") in behind, sorted(tools)
        assert "dbg_mcp" not in tools and "mcp" not in behind
        table = full_table(PluginHost())
        for op in table:
            if op.agent and op.own_tool:
                assert tools[f"dbg_{op.name.replace('-', '_')}"].input_schema == \
                    described_in_mcp_words(input_schema(op), table)
            elif op.agent:
                assert op.name in behind, op
        start = tools["dbg_start"].input_schema
        assert start["required"] == ["program"]
        assert start["properties"]["breaks"]["type"] == "array"
        assert start["properties"]["run"]["type"] == "boolean"
        index = tools["dbg_frame"].input_schema["properties"]["index"]
        assert (index["type"], index["minimum"]) == ("integer", 0), index
        # Told in MCP's words: the tool that shows the stack, not the CLI command.
        assert index["description"].startswith("The frame's index in dbg_stack()"), index
        # The backends without watchpoints are named (plugins installed beside
        # dbg, such as contrib/dbg-node); pdb and debugpy, which have them, not.
        watch = tools["dbg_watch"].description or ""
        assert re.search(r"Not on: [^.]*\bnode\b", watch), watch
        assert not re.search(r"Not on: [^.]*\b(pdb|debugpy)\b", watch), watch

        # Bad input is a tool error, and the server keeps serving.
        bad = await call(session, "dbg_frame", index="two")
        assert bad["error"]["kind"] == "usage", bad
        bad = await call(session, "dbg_print", expression="1", colour="red")
        assert bad["error"]["kind"] == "usage" and "colour" in bad["error"]["message"], bad
        none = await call(session, "dbg_status", session="nobody")
        assert none["error"]["kind"] == "no_session", none
        assert (await call(session, "dbg_sessions"))["sessions"] == []

    run_mcp(dbg, scenario)


def test_hints_name_tools_not_commands(dbg: Dbg, pdb_ready: None) -> None:
    """An error's hint and an op's note say what to do next as the tool call
    that does it: an MCP client has tools, not a shell."""
    program = dbg.cwd / "count.py"
    program.write_text("total = 0\nfor i in range(3):\n    total += i\nprint(total)\n")

    async def scenario(session: ClientSession) -> None:
        started = await call(session, "dbg_start", program=str(program), backend="pdb",
                             session="hints")
        assert started["ok"], started
        again = await call(session, "dbg_start", program=str(program), backend="pdb",
                           session="hints")
        hint = again["error"]["hint"]
        assert again["error"]["kind"] == "session_exists", again
        assert 'dbg_more(op="restart", session="hints")' in hint, hint
        assert 'dbg_kill(session="hints")' in hint and "`dbg" not in again["_text"], again
        # pdb has no logpoints: the escape hatch is the raw tool, with its argument.
        logged = await call(session, "dbg_break", location=f"{program}:3", log="{total}",
                            session="hints")
        assert logged["error"]["kind"] == "unsupported", logged
        assert 'dbg_raw(text="<native command>")' in logged["error"]["message"], logged
        # The CLI on the same session still says its commands in its own words.
        cli = dbg("-s", "hints", "break", f"{program}:3", "--log", "{total}")
        assert cli.code == 3 and "`dbg raw <native command>`" in cli.err, cli
        assert (await call(session, "dbg_kill", session="hints"))["ok"]

    run_mcp(dbg, scenario)


def test_a_whole_session(mprog: Program) -> None:
    """Start at a breakpoint, locals, several expressions, finish with the
    return value, a failed op, the CLI on the same session, kill."""
    dbg, twin = mprog.dbg, mprog.twin

    async def scenario(session: ClientSession) -> None:
        snap = await call(session, "dbg_start", program=str(mprog.path), backend=twin.backend,
                          breaks=[mprog.at("fee")], run=True)
        mprog.stopped_at(snap, "fee")
        assert snap["reason"] == "breakpoint" and "locals:" in snap["_text"], snap
        names = [v["name"] for v in (await call(session, "dbg_locals"))["variables"]]
        assert "amount" in names, names
        printed = await call(session, "dbg_print", expression="amount; amount + 1; nope_x")
        values = printed["values"]
        assert [v.get("value") for v in values[:2]] == ["1000", "1001"], values
        assert values[2]["expression"] == "nope_x" and values[2]["error"], values
        done = await call(session, "dbg_finish")
        assert done["return_value"]["value"] == "1020", done
        assert done["_text"].splitlines()[1] == f"returned: {done['return_value']['value']}" + (
            f" ({done['return_value']['type']})" if done["return_value"].get("type") else "")
        failed = await call(session, "dbg_frame", index=99)
        assert failed["ok"] is False and failed["error"]["kind"] == "failed", failed
        # The CLI sees the session the agent started, and can move it.
        status = dbg.json("status")
        assert status["state"] == "stopped" and status["backend"] == twin.backend, status
        assert dbg.json("print", "total")["value"] == "1000"
        again = await call(session, "dbg_status")
        assert again["state"] == "stopped", again
        killed = await call(session, "dbg_kill")
        assert killed["ok"], killed
        assert (await call(session, "dbg_sessions"))["sessions"] == []

    run_mcp(dbg, scenario)


def test_the_server_outlives_a_dead_debugger(mprog: Program) -> None:
    dbg = mprog.dbg
    # Started by the CLI, inspected through MCP.
    mprog.stopped_at(mprog.start(breaks=(mprog.at("loop"),), run=True), "loop")
    tool = dbg.json("tool")["tool"]
    processes = session_processes(dbg)

    async def scenario(session: ClientSession) -> None:
        hits = await session.read_resource("dbg://session/default/hits")
        assert '"reason": "breakpoint"' in hits.contents[0].text  # type: ignore[union-attr]
        debugger = next(p for p in session_processes(dbg) if p["role"] == tool)
        kill_and_wait(int(debugger["pid"]))
        await anyio.sleep(0.3)
        lost = await call(session, "dbg_next")
        status = await call(session, "dbg_status")
        if debugger_in_program(mprog.twin.backend):
            # pdb is the program's own process: its death is the program's.
            assert lost["ok"] and lost["signal"] == "SIGKILL", lost
            assert status["state"] == "exited", status
        else:
            assert lost["ok"] is False and lost["error"]["kind"] == "backend", lost
            assert status["state"] == "debugger_lost", status
        assert (await call(session, "dbg_backends"))["ok"]
        assert (await call(session, "dbg_kill"))["ok"]

    run_mcp(dbg, scenario)
    assert dbg.json("status")["_exit"] != 0
    # dbg_kill cleaned up after the lost debugger: nothing of the session is left.
    time.sleep(0.5)
    assert [p for p in processes if alive(int(p["pid"]))] == []
