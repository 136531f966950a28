"""The tools' names: an op of the agent's is a tool ``dbg_<op>`` of its own,
or reached through the one tool ``dbg_more`` (see :mod:`.server`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dbgcore.vocab.opspec import Op, OpTable

#: The one tool for every other op.
MORE = "dbg_more"


def tool_name(op: Op) -> str:
    return "dbg_" + op.name.replace("-", "_")


def agent_ops(table: OpTable) -> list[Op]:
    return [op for op in table if op.agent]


def split_ops(table: OpTable) -> tuple[list[Op], list[Op]]:
    """The agent's ops: those that are tools of their own, and those behind
    dbg_more (every other, a plugin's too unless it declares ``own_tool``)."""
    ops = agent_ops(table)
    return [op for op in ops if op.own_tool], [op for op in ops if not op.own_tool]
