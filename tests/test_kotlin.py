"""Kotlin on jdb: `dbg start shop.kt` builds a jar with kotlinc, says so, and
debugs it as Kotlin reads: breakpoints on the file's lines (in a class's
body or among top-level functions), `ShopKt`'s frames in the .kt file,
objects expanded, the runtime's main(String[]) bridge out of the stack
(issue 42, parts 5 and 6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import builds
import pytest

pytestmark = pytest.mark.backend("jdb")


@pytest.fixture(autouse=True)
def kotlin_ready(backend_ready: Callable[[str], None]) -> None:
    backend_ready("jdb")
    builds._need("kotlinc")


def test_a_kotlin_file_is_built_and_stops_in_a_class_body(dbg: Any, target: Any) -> None:
    source = target("kotlin/shop.kt")
    stop = dbg.json("start", "--break", source.loc("loop"), "--run", str(source.path))
    assert stop["_exit"] == 0, stop
    assert stop["via"]["tool"] == "jdb"  # chosen by the extension
    command = stop["build"]["command"]
    assert command.startswith(f"kotlinc {source.path} -d ") and command.endswith("/shop.jar")
    assert str(dbg.home) in command, command  # the session's folder, not beside the source
    assert (stop["reason"], stop["location"]["file"], stop["location"]["line"]) == \
        ("breakpoint", str(source.path), source.lines["loop"]), stop
    assert stop["location"]["function"] == "Basket.total"
    item = next(v for v in stop["locals"] if v["name"] == "item")
    assert item["value"] == 'Item {name: "apple", price: 3, quantity: 2}', item
    assert dbg.json("print", "item.getName()")["value"] == '"apple"'
    frames = dbg.json("stack")["frames"]
    # main(String[]), the JVM's entry that calls main(), has no lines: hidden.
    assert [(f["function"], f["file"], f["line"]) for f in frames] == [
        ("Basket.total", str(source.path), source.lines["loop"]),
        ("ShopKt.main", str(source.path), source.lines["report"])], frames
    nxt = dbg.json("next")
    assert nxt["location"]["line"] == source.lines["loop"] + 1
    assert next(v for v in nxt["locals"] if v["name"] == "cost")["value"] == "6"
    assert dbg.json("kill")["_exit"] == 0


def test_a_packaged_file_stops_at_entry_at_its_breakpoints_and_where_it_throws(
        dbg: Any, target: Any) -> None:
    source = target("kotlin/orders.kt")
    entry = dbg.json("start", str(source.path))
    assert (entry["reason"], entry["location"]["line"]) == ("entry", source.lines["first"])
    assert entry["location"]["function"] == "shop.orders.OrdersKt.main"
    assert dbg.json("break", source.loc("sum"))["breakpoint"]["verified"] is True
    first = dbg.json("continue")
    assert (first["reason"], first["location"]["line"]) == ("breakpoint", source.lines["sum"])
    assert dbg.json("print", "order.getId()")["value"] == "1"
    assert dbg.json("continue")["location"]["line"] == source.lines["sum"]
    thrown = dbg.json("continue")
    assert thrown["reason"] == "exception", thrown
    assert thrown["location"]["line"] == source.lines["divide"]
    assert "java.lang.ArithmeticException: / by zero" in thrown["description"], thrown
    assert [f["line"] for f in dbg.json("stack")["frames"]] == \
        [source.lines["divide"], source.lines["call"]]
    assert dbg.json("kill")["_exit"] == 0


def test_with_no_build_a_kotlin_file_is_refused_with_how_to_compile_it(
        dbg: Any, target: Any) -> None:
    source = target("kotlin/shop.kt")
    result = dbg("start", "--no-build", str(source.path))
    assert result.code == 1, result
    assert "shop.kt is a Kotlin source file, not a program" in result.err, result.err
    assert "kotlinc shop.kt -d shop.jar; then: dbg start shop.jar" in result.err, result.err
    assert dbg("status").code != 0  # no session was left
