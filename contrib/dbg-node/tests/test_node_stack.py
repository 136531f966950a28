"""dbg stack on real Node.js: each frame's arguments (names from the
function's source, values from V8's local scope), node's internals marked as
library frames."""

from __future__ import annotations

from pathlib import Path

from dbgcore.testing import Dbg, marked_lines, require_backend

from dbg_node.functions import parameter_names

MAIN = Path(__file__).resolve().parent / "programs" / "ledger" / "ledger.js"
LINES = marked_lines(MAIN)


def test_parameter_names_are_read_from_where_v8_says_the_function_starts() -> None:
    assert parameter_names("(amount) {") == ["amount"]
    assert parameter_names("(a, b = f(1, 2), ...rest) {") == ["a", "b", "rest"]
    assert parameter_names("({x, y}, z) =>") == ["z"]
    assert parameter_names("x => x * 2") == ["x"]
    assert parameter_names("() {") == []
    assert parameter_names("= 3") is None


def test_the_stack_shows_arguments_and_marks_nodes_internals(dbg: Dbg) -> None:
    require_backend("node")
    snap = dbg.json("start", "--backend", "node", "--break", f"ledger.js:{LINES['fee']}",
                    "--run", str(MAIN))
    assert snap["ok"] and snap["location"]["line"] == LINES["fee"], snap
    frames = dbg.json("stack")["frames"]
    assert [f["function"] for f in frames] == ["fee", "main", "<module>"], frames
    assert [(a["name"], a["value"]) for a in frames[0]["args"]] == [("amount", "1000")]
    assert [a["name"] for a in frames[1]["args"]] == ["argv"], frames[1]
    assert frames[2]["args"] == []
    assert dbg("stack").out.splitlines()[1].startswith("> #0  fee(amount=1000) at ")
    internals = dbg.json("stack", "--all")["frames"][3:]
    assert internals and all(f["library"] and f["library_name"] == "node" and f["internal"]
                             for f in internals), internals
