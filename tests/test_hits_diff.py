"""`dbg hits --diff`: hit to hit, only the locals that changed, read from the
store after the session ended (pdb and debugpy, the Python backends agents
use most, on the same cart program)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_hits_diff_shows_only_what_changed_since_the_last_hit(
        dbg: Dbg, target: Any, backend: str) -> None:
    require_backend(backend)
    cart = target("cart.py")
    loop = cart.loc("loop")
    assert dbg.json("start", "--backend", backend, "--break", loop, "--run",
                    str(cart.path))["ok"]
    for _ in range(2):
        assert dbg.json("continue")["reason"] == "breakpoint"
    assert dbg.json("kill")["ok"]

    hits = dbg.json("hits", "--diff", loop)["hits"]
    assert len(hits) == 3, hits
    first, second, third = hits
    # The function's first hit: every local, none with a value before.
    assert first["first"] and {"self", "total", "item"} <= {v["name"] for v in first["changed"]}
    assert all("was" not in v for v in first["changed"])
    # Then only what moved: the item, the running total, and `cost`, new at
    # the second hit (assigned on the loop's line); `self` never changes.
    changed = {v["name"]: v for v in second["changed"]}
    assert set(changed) == {"item", "total", "cost"}, second
    assert "apple" in changed["item"]["was"] and "bread" in changed["item"]["value"]
    assert "was" not in changed["cost"]
    changed = {v["name"]: v for v in third["changed"]}
    assert set(changed) == {"item", "total", "cost"}, third
    assert (changed["total"]["was"], changed["total"]["value"]) == ("3.0", "5.25")
    assert all(not h["gone"] for h in hits)
    assert all("locals" not in h for h in hits)

    text = dbg("hits", "--diff", loop).out.splitlines()
    assert "self=" not in text[1] and "total=5.25 (was 3.0)" in text[2], text
    # Without --diff the hits are as they were: every local.
    plain = dbg.json("hits", loop)["hits"]
    assert {"self", "item", "total"} <= {v["name"] for v in plain[2]["locals"]}
