"""The op table and what is made from it: click commands, the fast path,
the MCP schemas, the docs' reference; the snapshot's arrangement of locals."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from dbgcore.backends.pluginhost import PluginHost
from dbgcore.daemon.snapshot import BUDGET, arrange
from dbgcore.docgen import BEGIN, END, reference
from dbgcore.frontends.cli.app import cli
from dbgcore.frontends.mcp.server import call_tool, input_schema
from dbgcore.lang.rules import python_object_repr, split_expressions
from dbgcore.ops.table import BUILTIN, Arg, Op, OpTable, builtin_table, front, full_table
from dbgcore.shared.errors import UsageError
from dbgcore.vocab.model import Variable
from dbgcore.vocab.values import check_values

ROOT = Path(__file__).resolve().parents[2]


def test_docs_reference_is_current() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert section.strip() == reference(full_table(PluginHost())).strip(), \
        "docs/cli.md is stale: run python -m dbgcore.docgen"


def test_every_op_has_a_command_and_every_command_an_op() -> None:
    ctx = click.Context(cli)
    commands = set(cli.list_commands(ctx))
    table = full_table(PluginHost())
    for op in table:
        if op.path:
            assert op.path[0] in commands, op
            for alias in op.aliases:
                assert alias in commands
    words = {op.path[0] for op in table if op.path} | {a for op in table for a in op.aliases}
    assert commands - words == set()


def test_a_name_is_taken_once() -> None:
    table = OpTable(BUILTIN)
    with pytest.raises(ValueError, match="already defined"):
        table.add(Op("print", "again"))
    with pytest.raises(ValueError, match="reserved"):
        table.add(Op("other", "x", (Arg("session"),)))


def test_fast_path_reads_the_table() -> None:
    read = builtin_table().read_words
    found = read(["print", "x", "+", "y"])
    assert found is not None
    assert (found[0].name, found[1]) == ("print", {"expression": "x + y"})
    assert read(["n"])[0].name == "next"  # type: ignore[index]
    assert read(["up", "2"])[1] == {"count": "2"}  # type: ignore[index]
    for words in ([], ["print"], ["up", "1", "2"], ["break", "x.py:3"], ["start", "p.py"],
                  ["stack", "--all"], ["memory", "read", "0", "4"], ["frobnicate"]):
        assert read(words) is None, words


def test_values_are_checked_against_the_arguments() -> None:
    table = builtin_table()
    frame = table.find("frame")
    assert frame is not None
    assert check_values(frame, {"index": "3"}) == {"index": 3}
    for bad in ({"index": -1}, {"index": "x"}, {"index": True}, {}, {"index": 1, "other": 2}):
        with pytest.raises(UsageError):
            check_values(frame, bad)
    brk = table.find("break")
    assert brk is not None
    checked = check_values(brk, {"location": "ledger.py:12"}, cwd="/nowhere")
    assert checked["location"]["file"] == "ledger.py" and checked["location"]["line"] == 12


def test_mcp_schema_and_a_bad_call() -> None:
    host = PluginHost()
    table = full_table(host)
    up = table.find("up")
    assert up is not None
    schema = input_schema(up)
    assert schema["properties"]["count"] == {
        "type": "integer", "minimum": 1, "description": "How many levels.", "default": 1}
    assert schema["additionalProperties"] is False
    answer = call_tool(front(lambda: host), "dbg_up", {"count": 0})
    assert not answer.ok and answer.to_json()["error"]["kind"] == "usage"
    assert call_tool(front(lambda: host), "dbg_nothing", {}).to_json()["error"]["kind"] == "usage"
    assert call_tool(front(lambda: host), "dbg_up", {"session": "../x"}).error is not None


def test_expressions_split_at_semicolons_outside_quotes_and_brackets() -> None:
    assert split_expressions("x + y") == ["x + y"]
    assert split_expressions("a; b[1]; f(1, ';')") == ["a", "b[1]", "f(1, ';')"]
    assert split_expressions("'a;;b'") == ["'a;;b'"]
    assert split_expressions("s[';'] ; \"x;\\\"y\"") == ["s[';']", '"x;\\"y"']
    assert split_expressions(";;") == []


def test_arrange_orders_marks_and_budgets() -> None:
    many = [Variable(f"v{n}", str(n), "int") for n in range(40)]
    line = "total += v30 * i"
    variables = [Variable("i", "2", "int"), *many, Variable("total", "100", "int")]
    previous = {"i": "1", "total": "100", "v3": "0"}
    kept, more = arrange(variables, line, previous)
    assert [v.name for v in kept[:3]] == ["total", "v30", "i"]
    assert [v.name for v in kept if v.changed][:2] == ["v30", "i"]
    assert more == len(variables) - len(kept) and more > 0
    assert sum(len(v.name) + len(v.value) + 9 for v in kept) <= BUDGET + 20
    long = [Variable("blob", "x" * 5000, "str")]
    (cut,), _ = arrange(long, "", None)
    assert cut.cut == 5000 and len(cut.value) == 100 and not cut.changed


def test_a_closures_variable_keeps_its_scope_mark_through_snapshot_and_text() -> None:
    from dbgcore.ops.inspecting import cap_variables, cut_value
    from dbgcore.ops.table import render

    count = Variable("count", "1" * 200, "number", scope="closure makeCounter")
    (kept,), _ = arrange([count], "", None)
    assert kept.scope == "closure makeCounter" and kept.to_dict()["scope"] == kept.scope
    assert cut_value(count, 60).scope == kept.scope
    assert cap_variables([count], None, 60)[0][0].scope == kept.scope
    assert "scope" not in Variable("x", "1").to_dict()
    text = render("locals", {"variables": [Variable("by", "1", "number").to_dict(),
                                           Variable("step", "2", "number",
                                                    scope="closure makeCounter").to_dict()]})
    assert text.splitlines() == ["by = 1 (number)",
                                 "step = 2 (number)  [closure makeCounter]"]


def test_opaque_values_are_expanded_one_level() -> None:
    from dbg_dap.profiles import AdapterProfile, DebugpyProfile

    from dbgcore.backends.contract import BackendSpec

    spec = BackendSpec(name="any", plugin="dap")

    assert python_object_repr("<__main__.Cart object at 0x7f00aa>")
    assert not python_object_repr("[1, 2, 3]") and not python_object_repr("{'a': 1}")
    # Which values hide their fields is each backend's to say.
    assert AdapterProfile(spec).hides_fields("{...}") and not AdapterProfile(spec).hides_fields("3")
    assert DebugpyProfile(spec).hides_fields("<__main__.Cart object at 0x7f00aa>")
    assert not DebugpyProfile(spec).hides_fields("{'a': 1}")
    variables = [Variable("cart", "<__main__.Cart object at 0x7f00aa>", "Cart")]
    kept, _ = arrange(variables, "", None,
                      lambda v: [Variable("items", "['a']", "list"), Variable("n", "1", "int")])
    shows_all, _ = arrange([Variable("xs", "[1]", "list")], "", None, lambda v: None)
    assert shows_all[0].fields is None
    assert [(f.name, f.value) for f in kept[0].fields or []] == [("items", "['a']"), ("n", "1")]
    failing, _ = arrange(variables, "", None, lambda v: 1 / 0)  # type: ignore[arg-type,return-value]
    assert failing[0].fields is None
