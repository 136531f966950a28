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
    wide = node.json("print", "Array.from({length: 6}, () => ({s: 'y'.repeat(70)}))")["value"]
    assert len(wide) == 300 and wide.startswith("[{s: 'yyy") and wide.endswith("…"), wide
    looped = node.json("print", "(() => { const o = {n: 1}; o.self = o; return o; })()")
    assert looped["value"] == "{n: 1, self: [Circular]}", looped


def _chain(dbg: Dbg) -> list[tuple[str, str | None]]:
    """`dbg stack`'s frames as (function, boundary crossed before it)."""
    return [(f["function"], f.get("async_boundary")) for f in dbg.json("stack")["frames"]]


def test_a_stop_after_an_await_shows_who_awaits_it(node: Dbg) -> None:
    start_at(node, "loaded")
    assert _chain(node)[:4] == [("loadOrder", None), ("checkout", "await"), ("main", None),
                                ("<module>", None)]
    frames = node.json("stack")["frames"]
    assert [f.get("asynchronous", False) for f in frames[:3]] == [False, True, True], frames
    assert (frames[1]["line"], frames[2]["line"]) == (LINES["await-load"],
                                                     LINES["await-checkout"]), frames
    text = node("stack").out.splitlines()
    assert text[2:4] == ["   -- await --",
                         f"  #1  checkout at {MAIN}:{LINES['await-load']}"], text
    refused = node("frame", "1")
    assert refused.code != 0 and "async caller" in refused.err, refused
    assert len(refused.err.strip().splitlines()) == 1, refused
    assert node.json("frame", "0")["ok"]  # the session goes on
    assert node.json("up")["ok"] is False  # the live stack is one frame


def test_a_rejected_promise_stops_with_its_async_chain(node: Dbg) -> None:
    snap = node.json("start", "--backend", "node", "--run", str(MAIN), "reject")
    assert snap["reason"] == "exception" and snap["location"]["line"] == LINES["reject"], snap
    assert _chain(node)[:2] == [("checkout", None), ("main", "await")]


def test_a_then_callback_names_its_boundary(node: Dbg) -> None:
    start_at(node, "then")
    assert _chain(node)[:3] == [("(anonymous)", None), ("main", "Promise.then"),
                                ("<module>", "await")]


def test_async_depth_in_backends_yaml_turns_the_chain_off_or_is_refused(node: Dbg) -> None:
    config = node.home / "config" / "dbg" / "backends.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("backends:\n  node:\n    options:\n      async_depth: 0\n",
                      encoding="utf-8")
    start_at(node, "loaded")
    assert _chain(node) == [("loadOrder", None)]
    node.json("kill")
    config.write_text("backends:\n  node:\n    options:\n      async_depth: lots\n",
                      encoding="utf-8")
    bad = node("start", "--backend", "node", str(MAIN))
    assert bad.code != 0 and "async_depth" in bad.err and "Traceback" not in bad.err, bad
    assert len(bad.err.strip().splitlines()) == 1, bad


def test_locals_in_a_closure_show_what_it_captured_marked(node: Dbg) -> None:
    snap = start_at(node, "bump")
    listed = {v["name"]: (v["value"], v.get("scope")) for v in node.json("locals")["variables"]}
    assert listed == {"doubled": ("2", None), "by": ("1", None), "before": ("10", None),
                      "count": ("10", "closure makeCounter"),
                      "step": ("2", "closure makeCounter")}, listed
    # The module's own top level (every function of it) is no closure's capture.
    assert "loadOrder" not in listed
    assert {v["name"] for v in snap["locals"]} == set(listed), snap["locals"]
    assert "count = 10 (number)  [closure makeCounter]" in node("locals").out
    assert node.json("set", "count", "40")["value"] == "40"
    assert node.json("print", "count")["value"] == "40"


def test_scopes_lists_the_chain_and_leaves_global_folded(node: Dbg) -> None:
    start_at(node, "bump")
    scopes = node.json("scopes")["scopes"]
    names = [s["name"] for s in scopes]
    assert names[:3] == ["Block", "Local", "Closure (makeCounter)"], names
    assert names[-1] == "Global", names
    by_name = {s["name"]: s for s in scopes}
    assert [v["name"] for v in by_name["Closure (makeCounter)"]["variables"]] == ["count",
                                                                                  "step"]
    glob = by_name["Global"]
    assert glob["expensive"] and "variables" not in glob, glob
    listed = node.json("vars", str(glob["reference"]), "--count", "500")
    rows = {v["name"]: v["value"] for v in listed["variables"]}
    assert rows["process"] == "[Getter/Setter]" and rows["Array"] == "[Function: Array]", rows
    text = node("scopes").out
    assert "Closure (makeCounter): ref 3\n  count = 10 (number)\n  step = 2 (number)" in text, text
    bad = node("vars", "99")
    assert bad.code != 0 and "no reference 99" in bad.err and len(bad.err.splitlines()) == 1
    assert node.json("vars", "({a: {b: 1}})")["variables"][0]["value"] == "{b: 1}"
