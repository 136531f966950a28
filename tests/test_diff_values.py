"""`dbg diff` compares values, not addresses: two runs of the same program
on pdb, each call's argument a generator whose repr holds its address
(tests/targets/devicelog.py), are the same run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg


def test_two_runs_that_differ_only_in_addresses_have_no_divergence(dbg: Dbg,
                                                                  target: Any) -> None:
    require_backend("pdb")
    program = target("devicelog.py")
    for _ in range(2):
        assert dbg.json("start", "--backend", "pdb", str(program.path))["ok"]
        assert dbg.json("trace", "usages")["state"] == "exited"
        dbg.json("kill")
    shown = [c["args"][0]["value"] for run in (1, 2)
             for c in dbg.json("calls", "--run", str(run))["calls"]]
    assert len(set(shown)) == 2 and all(" at 0x" in v for v in shown), shown
    diff = dbg.json("diff")
    assert diff["ok"] and diff["same"] is True, diff
