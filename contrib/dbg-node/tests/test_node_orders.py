"""On real Node.js, with programs/orders/orders.js: objects shown by their
contents (in `finish`'s return value, `print` and locals), a closure's
captured variables among `locals`, `dbg scopes`, and the async chain of a
stop inside an async function."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dbgcore.testing import Dbg, marked_lines, require_backend

MAIN = Path(__file__).resolve().parent / "programs" / "orders" / "orders.js"
LINES = marked_lines(MAIN)


@pytest.fixture
def node(dbg: Dbg) -> Dbg:
    require_backend("node")
    return dbg


def start_at(dbg: Dbg, mark: str, *args: str) -> dict[str, Any]:
    snap = dbg.json("start", "--backend", "node", "--break", f"orders.js:{LINES[mark]}",
                    "--run", str(MAIN), *args)
    assert snap["ok"] and snap["location"]["line"] == LINES[mark], snap
    return snap


MADE = ("{id: 3, name: 'x', tags: ['a', 'b'], owner: {name: 'ada'}, "
        "owners: Map(2) {1 => {id: 1, name: 'ada'}, 2 => {id: 2, name: 'bob'}}}")


def test_an_object_is_shown_by_its_contents_not_its_class(node: Dbg) -> None:
    start_at(node, "describe")
    shown = node.json("print", "made")
    assert (shown["value"], shown["type"]) == (MADE, "Object"), shown
    back = node.json("finish")
    assert back["return_value"] == {"value": MADE, "type": "Object", "kind": "returned"}, back
    made = next(v for v in node.json("locals")["variables"] if v["name"] == "made")
    assert made["value"] == MADE, made


def test_long_and_deep_values_are_cut_and_say_so(node: Dbg) -> None:
    start_at(node, "describe")
    big = node.json("print", "Array.from({length: 30}, (_, i) => i)")["value"]
    assert big == f"[{', '.join(map(str, range(20)))}, +10 more]", big
    many = node.json("print", "({a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7})")["value"]
    assert many == "{a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7}", many
    deep = node.json("print", "({a: {b: {c: {d: 1}}}, get g() { return 1; }})")["value"]
    assert deep == "{a: {b: {c: {…}}}, g: [Getter]}", deep
    looped = node.json("print", "(() => { const o = {n: 1}; o.self = o; return o; })()")
    assert looped["value"] == "{n: 1, self: [Circular]}", looped
