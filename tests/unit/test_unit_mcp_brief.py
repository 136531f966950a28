"""The MCP listing's brief descriptions (issue 41: dbg_print's was cut at its quoted `;`)."""

from __future__ import annotations

from dbgcore.frontends.mcp.server import brief, input_schema
from dbgcore.ops.table import builtin_table


def test_a_quoted_semicolon_does_not_end_the_clause() -> None:
    assert brief("One expression, or several separated by `;` (`dbg print 'x; y'`).",
                 clause=True) == "One expression, or several separated by `;`."
    assert brief("First part; second part.", clause=True) == "First part."


def test_dbg_prints_expression_is_described_whole() -> None:
    op = builtin_table().find("print")
    assert op is not None
    text = input_schema(op)["properties"]["expression"]["description"]
    assert text.endswith("separated by `;`."), text
