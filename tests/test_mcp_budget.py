"""`dbg mcp`'s tool listing at an agent's token budget: measured from a real
`dbg mcp` process through the MCP SDK's client, every op still reachable
(a tool of its own, or behind dbg_more), the schemas strict; dbg_more
describes and runs the rarer ops on a real session (pdb)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from mcp.client.session import ClientSession
from mcpclient import run_mcp

from dbgcore.backends.pluginhost import PluginHost
from dbgcore.frontends.mcp.server import INSTRUCTIONS, LISTING_BUDGET, MORE, SAID_ONCE, tool_name
from dbgcore.ops.table import full_table

if TYPE_CHECKING:
    from conftest import Dbg, Target


async def call(client: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    data = result.structured_content
    assert isinstance(data, dict), result
    assert data["ok"] is not result.is_error, result
    data["_text"] = result.content[0].text  # type: ignore[union-attr]
    return data


def _strict(schema: dict[str, Any], where: str) -> None:
    """Every object closed, every property typed and (but session, timeout
    and those of SAID_ONCE, which the server's instructions describe once)
    described."""
    assert schema["type"] == "object" and schema["additionalProperties"] is False, where
    for name, one in schema["properties"].items():
        assert "type" in one, (where, name)
        if name not in ("session", "timeout", *SAID_ONCE):
            assert one.get("description"), (where, name)


def test_the_arguments_said_once_are_said_in_the_instructions() -> None:
    for name in SAID_ONCE:
        assert f"`{name}`" in INSTRUCTIONS, name


def test_the_listing_fits_the_budget_and_reaches_every_op(dbg: Dbg) -> None:
    table = full_table(PluginHost())
    offered = [op for op in table if op.agent]

    async def scenario(session: ClientSession) -> None:
        listed = await session.list_tools()
        # The bytes the client receives for tools/list (the result's JSON).
        size = len(listed.model_dump_json(by_alias=True, exclude_none=True))
        assert size <= LISTING_BUDGET <= 10_240, size
        tools = {t.name: t for t in listed.tools}
        more = tools[MORE].input_schema
        _strict(more, MORE)
        assert more["required"] == ["op"]
        behind = more["properties"]["op"]["enum"]
        for op in offered:
            if op.own_tool:
                schema = tools[tool_name(op)].input_schema
                _strict(schema, op.name)
                assert schema.get("required", []) == [a.name for a in op.args if a.required]
                assert op.name not in behind
            else:
                assert tool_name(op) not in tools and op.name in behind, op
        assert len(tools) == 1 + sum(op.own_tool for op in offered)
        for common in ("dbg_start", "dbg_test", "dbg_break", "dbg_continue", "dbg_next",
                       "dbg_step", "dbg_finish", "dbg_print", "dbg_locals", "dbg_stack",
                       "dbg_raw", "dbg_kill", "dbg_status"):
            assert common in tools, sorted(tools)
        for rare in ("disasm", "memory-read", "up", "threads", "doctor", "caps"):
            assert rare in behind, behind

    run_mcp(dbg, scenario)


def test_dbg_more_describes_and_runs_the_rarer_ops(dbg: Dbg, target: Callable[[str], Target],
                                                    pdb_ready: None) -> None:
    cart = target("cart.py")

    async def scenario(session: ClientSession) -> None:
        # Described in full on request, without a session.
        up = await call(session, MORE, op="up", describe=True)
        assert up["describes"] == "up", up
        count = up["input_schema"]["properties"]["count"]
        assert (count["type"], count["minimum"], count["default"]) == ("integer", 1, 1), count
        assert up["input_schema"]["properties"]["session"]["description"], up
        assert "count (integer)" in up["_text"], up["_text"]

        snap = await call(session, "dbg_start", program=str(cart.path), backend="pdb",
                          breaks=[cart.loc("loop")], run=True)
        assert snap["reason"] == "breakpoint", snap
        # A rarer op, run through dbg_more on the session dbg_start made.
        moved = await call(session, MORE, op="up", args={"count": 1})
        assert moved["op"] == "up" and "main" in moved["_text"], moved
        breaks = await call(session, MORE, op="breaks", session="default", timeout=10)
        assert str(cart.lines["loop"]) in breaks["_text"], breaks
        # The op's own tool name still answers, though no longer listed.
        down = await call(session, "dbg_down")
        assert down["ok"], down

        # Bad calls are one usage error each, and the session stays usable.
        for arguments, words in (
                ({"op": "no-such"}, "no op 'no-such'"),
                ({"op": "up", "args": [1]}, "args must be an object"),
                ({"op": "up", "args": {"session": "x"}}, "beside op"),
                ({"op": "up", "colour": "red"}, "colour"),
                ({"op": "up", "args": {"count": 0}}, "COUNT"),
                ({"op": "up", "describe": "yes"}, "describe")):
            bad = await call(session, MORE, **arguments)
            assert bad["error"]["kind"] == "usage", (arguments, bad)
            assert words in bad["error"]["message"], (arguments, bad)
        assert (await call(session, "dbg_print", expression="item"))["ok"]
        assert (await call(session, "dbg_kill"))["ok"]

    run_mcp(dbg, scenario)


@pytest.mark.parametrize("op", ["hits", "plugins"])
def test_a_local_op_behind_dbg_more(dbg: Dbg, op: str) -> None:
    async def scenario(session: ClientSession) -> None:
        answer = await call(session, MORE, op=op)
        assert answer["op"] == op and "_text" in answer, answer

    run_mcp(dbg, scenario)
