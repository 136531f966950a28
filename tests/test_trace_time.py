"""`dbg trace --time` and `dbg calls --sum-by`: each call's duration as the
tracer in the program (pdb, debugpy) or in the debugger (gdb, lldb) measures
it, and the calls totalled per function and per call site.

The targets (tests/targets/timed.py, native/timed.c) sleep a known time in
``slow`` — 60 ms twice from one site, 120 ms once from another — and call
``quick`` twenty times: the durations are checked against those sleeps, the
totals against the calls' own counts and sites. A tracer that works by
breakpoints (perl here) times nothing, and says so."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from builds import build_c, copy_target

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from pathlib import Path

    from conftest import Dbg, Target

#: What each sleep of `slow` asked for, in call order, in seconds.
NAPS = [0.06, 0.06, 0.12]
#: Slack over a sleep for the tracer's own work and a loaded machine.
SLACK = 0.5


def program(backend: str, target: Any, tmp_path: Path) -> tuple[Target, Path]:
    if backend in ("pdb", "debugpy"):
        timed = target("timed.py")
        return timed, timed.path
    timed = copy_target("native/timed.c", tmp_path / "native")
    return timed, build_c(timed.path)


@pytest.mark.parametrize("backend", ["pdb", "debugpy", "gdb", "lldb"])
def test_each_call_is_timed_and_the_totals_rank_the_slow_function_and_its_sites(
        dbg: Dbg, target: Any, tmp_path: Path, backend: str) -> None:
    require_backend(backend)
    timed, path = program(backend, target, tmp_path)
    assert dbg.json("start", "--backend", backend, str(path))["ok"]
    answer = dbg.json("trace", "slow", "quick", "--time")
    assert answer["ok"] and answer["state"] == "exited", answer
    calls = answer["trace"]["calls"]
    slow = [c for c in calls if c["function"] == "slow"]
    quick = [c for c in calls if c["function"] == "quick"]
    assert len(slow) == 3 and len(quick) == 20, calls
    for call, nap in zip(slow, NAPS, strict=True):
        assert nap <= call["duration"] < nap + SLACK, (call, nap)
    assert all(0 < c["duration"] < 0.05 for c in quick), quick

    text = dbg("trace", "--help")
    assert "--time" in text.out
    # The text shows the durations when asked; the store keeps them either way.
    listed = dbg("calls", "slow", "--time")
    assert listed.code == 0 and listed.out.count(" ms)") == 3, listed.out
    plain = dbg("calls", "slow")
    assert plain.code == 0 and " ms)" not in plain.out, plain.out

    by_function = dbg.json("calls", "--sum-by", "function")
    assert by_function["ok"] and by_function["total"] == 23, by_function
    first, second = by_function["sums"]
    assert (first["key"], first["count"], second["key"], second["count"]) == (
        "slow", 3, "quick", 20), by_function
    assert sum(NAPS) <= first["time"] < sum(NAPS) + SLACK, first
    assert first["longest"] >= 0.12 and first["time"] > second["time"], by_function

    by_caller = dbg.json("calls", "slow", "--sum-by", "caller")
    sites = {int(g["key"].split(":")[1].split()[0]): g for g in by_caller["sums"]}
    a, b = timed.lines["site-a"], timed.lines["site-b"]
    assert set(sites) == {a, b}, by_caller
    assert (sites[a]["count"], sites[b]["count"]) == (2, 1), by_caller
    assert sites[a]["functions"] == ["slow"] and sites[a]["key"].endswith("main"), sites
    assert 0.12 <= sites[b]["time"] < 0.12 + SLACK, sites

    table = dbg("calls", "--sum-by", "caller")
    assert table.code == 0, table.err
    assert table.out.splitlines()[0].startswith("23 traced calls in run"), table.out
    assert "calls slow" in table.out and "calls quick" in table.out, table.out


def test_sum_by_what_is_not_a_way_to_sum_is_refused(dbg: Dbg, target: Any) -> None:
    require_backend("pdb")
    timed = target("timed.py")
    assert dbg.json("start", "--backend", "pdb", str(timed.path))["ok"]
    assert dbg.json("trace", "quick")["ok"]
    bad = dbg("calls", "--sum-by", "thread")
    assert bad.code != 0 and "Traceback" not in bad.err, bad
    assert bad.err.count("\n") <= 2 and "--sum-by thread: not one of function, caller" \
        in bad.err, bad.err
    assert dbg.json("calls", "quick")["total"] == 20


def test_a_tracer_by_breakpoints_times_nothing_and_says_so(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("perl")
    script = tmp_path / "timed.pl"
    script.write_text("sub slow { select(undef, undef, undef, 0.05); return 1 }\n"
                      "slow(); slow();\nprint \"done\\n\";\n")
    assert dbg.json("start", "--backend", "perl", str(script))["ok"]
    answer = dbg.json("trace", "slow", "--time")
    assert answer["ok"], answer
    calls = answer["trace"]["calls"]
    assert len(calls) == 2 and all("duration" not in c for c in calls), calls
    assert "does not time calls" in answer["trace"]["note"], answer["trace"]
    summed = dbg.json("calls", "--sum-by", "function")
    assert summed["sums"][0]["count"] == 2 and summed["sums"][0]["time"] is None, summed
    assert "no call has a duration" in summed["note"], summed


def test_sum_by_function_totals_the_bytes_an_allocator_was_asked(dbg: Dbg,
                                                                 tmp_path: Path) -> None:
    # An allocator's size argument (size; nmemb times size) is summed per function.
    require_backend("gdb")
    target = copy_target("native/allocs.c", tmp_path)
    program = build_c(target.path)
    assert dbg.json("start", "--backend", "gdb", str(program))["ok"]
    assert dbg.json("trace", "grab", "grab_array")["state"] == "exited"
    sums = {g["key"]: g for g in dbg.json("calls", "--sum-by", "function")["sums"]}
    assert (sums["grab"]["count"], sums["grab"]["bytes"]) == (6, 5 * 100 + 4000), sums
    assert sums["grab_array"]["bytes"] == 240, sums
    assert "4,500 bytes asked" in dbg("calls", "--sum-by", "function").out
