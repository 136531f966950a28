"""A stop's locals from every local scope an adapter answers (gdb: Arguments
and Locals), their `variables` requests sent together: each scope's rows,
each with its own value, at every stop."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import builds

if TYPE_CHECKING:
    from conftest import Dbg


def test_gdb_stop_shows_arguments_and_locals(dbg: Dbg, target: Any,
                                              backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")
    cart = target("native/cart.c")
    binary = builds.build_c(cart.path)
    snap = dbg.json("start", "--backend", "gdb", "--break", cart.loc("discount"), "--run",
                    str(binary))
    assert snap["ok"] and snap["location"]["line"] == cart.lines["discount"], snap
    # total and percent are gdb's Arguments scope, discount its Locals.
    assert sorted(v["name"] for v in snap["locals"]) == ["discount", "percent", "total"], \
        snap["locals"]
    values = {v["name"]: v["value"] for v in snap["locals"]}
    assert values["total"] == "19.25" and values["percent"] == "10", snap["locals"]
    step = dbg.json("next")
    assert step["ok"] and step["location"]["line"] == cart.lines["discount-return"], step
    after = {v["name"]: v["value"] for v in step["locals"]}
    assert after["total"] == "19.25" and after["percent"] == "10", step["locals"]
    assert after["discount"].startswith("1.92"), step["locals"]
    assert dbg.json("continue")["exit_code"] == 0
