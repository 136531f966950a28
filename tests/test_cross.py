"""`dbg cross FUNCTION`: the stops recorded in a function, its traced calls
with their time and call sites, its share of a profile with its callers, and
on a native debugger its disassembly — one answer, on gdb with
tests/targets/native/timed.c and on pdb with cProfile with timed.py.

The targets call ``slow`` twice from one line and once from another, each
call sleeping a known time, and ``quick`` twenty times."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from builds import build_c, copy_target

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from pathlib import Path

    from conftest import Dbg


def test_stops_calls_and_disassembly_of_a_c_function_on_gdb(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("gdb")
    timed = copy_target("native/timed.c", tmp_path / "native")
    program = build_c(timed.path)
    # A run that traces it, then a run stopped in it.
    assert dbg.json("start", "--backend", "gdb", str(program))["ok"]
    assert dbg.json("trace", "slow", "quick")["state"] == "exited"
    assert dbg.json("start", "--backend", "gdb", "--break", "slow", str(program))["ok"]
    stopped = dbg.json("continue")
    assert stopped["location"]["function"] == "slow", stopped

    answer = dbg.json("cross", "slow")
    assert answer["ok"], answer
    assert answer["stops"]["total"] == 1 and answer["stops"]["latest"][0]["line"] == \
        stopped["location"]["line"], answer["stops"]
    calls = answer["traced"]
    assert (calls["total"], calls["raised"]) == (3, 0), calls
    assert 0.24 <= calls["time"] < 2.0 and calls["longest"] >= 0.12, calls
    sites = {int(s["key"].split(":")[1].split()[0]): s["count"] for s in calls["sites"]}
    assert sites == {timed.lines["site-a"]: 2, timed.lines["site-b"]: 1}, calls
    assert answer["sampled"] == {"found": False, "run": None}, answer["sampled"]
    dis = answer["disasm"]
    assert dis["shown"] and dis["instructions"][0]["symbol"] == "slow", dis
    body = range(timed.lines["site-a"] - 12, timed.lines["site-a"] - 6)  # slow's lines
    assert all(i["line"] in body for i in dis["instructions"]), (dis, list(body))
    assert dis["instructions"][-1]["instruction"].startswith("ret"), dis

    text = dbg("cross", "slow")
    assert text.code == 0 and text.out.startswith("[via gdb "), text
    assert "calls: 3 traced in run" in text.out and "disassembly" in text.out, text.out
    # The session goes on where it was.
    assert dbg.json("print", "ms")["value"] == "60"


def test_a_python_function_s_calls_and_its_share_of_a_cprofile(
        dbg: Dbg, target: Any) -> None:
    require_backend("pdb")
    timed = target("timed.py")
    assert dbg.json("start", "--backend", "pdb", str(timed.path))["ok"]
    assert dbg.json("trace", "slow", "--time")["state"] == "exited"
    assert dbg.json("kill")["ok"]
    profiled = dbg.json("profile", "--tool", "cprofile", str(timed.path))
    assert profiled["ok"], profiled

    answer = dbg.json("cross", "slow")
    assert answer["ok"], answer
    assert answer["traced"]["total"] == 3 and answer["traced"]["time"] >= 0.24, answer["traced"]
    prof = answer["sampled"]
    assert prof["found"] and prof["run"] == profiled["run"], prof
    # Its sleeps are most of the run (time.sleep is a library frame folded into it).
    assert prof["total_share"] > 50, prof
    assert [c["function"] for c in prof["callers"]] == ["main"], prof
    assert answer["disasm"] == {"shown": False, "why": "no live session"}, answer
    text = dbg("cross", "slow").out
    assert "profile: " in text and "called from main" in text, text
    # A heap run recorded after it is bytes, not time: cross still reads the profile.
    assert dbg.json("heap", str(timed.path))["ok"]
    assert dbg.json("cross", "slow")["sampled"]["run"] == profiled["run"]


def test_a_function_dbg_knows_nothing_of_says_so_and_an_empty_name_is_refused(
        dbg: Dbg) -> None:
    answer = dbg.json("cross", "never_seen")
    assert answer["ok"] and "knows nothing of never_seen" in answer["note"], answer
    bad = dbg("cross", "  ")
    assert bad.code == 2 and bad.err.startswith("error: ") and "Traceback" not in bad.err, bad
