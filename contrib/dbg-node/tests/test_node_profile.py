"""`dbg profile` of a Node.js program with V8's CPU profiler (the ``node``
profiler): a report that reads its settings file again for every item
(programs/slowsync/report.js) is profiled by real node; the synchronous
read is found as the hottest function's own time (Node's fs frames folded
into it), `callers` tells its two call sites apart by cost, `profile diff`
shows the fix (``cached``), a program cut at --duration still answers what
was sampled and leaves no process behind, and a program that throws keeps
its profile and its exit code. `dbg heap` of a cache that never forgets
(programs/cache/cache.js) names the function that fills it, growing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from dbgcore.testing import Dbg, require

from dbg_node.cpuprofile import samples_of

REPORT = Path(__file__).resolve().parent / "programs" / "slowsync" / "report.js"
CACHE = Path(__file__).resolve().parent / "programs" / "cache" / "cache.js"


@pytest.fixture(autouse=True)
def _node() -> None:
    require(shutil.which("node") is not None, "node is not on PATH")


def test_the_synchronous_read_is_the_hot_spot_and_callers_split_it(dbg: Dbg) -> None:
    answer = dbg.json("profile", str(REPORT))
    assert answer["ok"] and answer["tool"].startswith("node "), answer
    assert answer["exit_code"] == 0 and answer["weight"] >= 50, answer
    assert answer["top"][0]["function"] == "settings", answer
    assert answer["top"][0]["file"] == str(REPORT) and answer["top"][0]["self_share"] > 50
    assert answer["folded"]["functions"] > 0, answer  # readFileSync, JSON.parse's callers
    callers = dbg.json("callers", "priceOf")
    sites = [(s["function"], s["total_share"]) for s in callers["sites"]]
    # A sampler may catch priceOf as its caller's frame is being built and
    # give it to the top level: a sliver beside the two real call sites.
    assert [name for name, _ in sites[:2]] == ["totals", "discounts"], callers
    assert all(share < 5 for _, share in sites[2:]), callers
    assert sites[0][1] > 2 * sites[1][1], callers  # 200 items against 50 a round
    unfolded = dbg.json("hot", "--all")["rows"]
    assert any(r["function"] == "readFileSync" and r["library"] == "node" for r in unfolded)
    text = dbg("hot").out
    assert "settings  report.js" in text.splitlines()[2], text


def test_profile_diff_shows_the_cached_read(dbg: Dbg) -> None:
    runs = [dbg.json("profile", str(REPORT), *fix) for fix in ((), ("cached",))]
    assert all(r["ok"] and r["exit_code"] == 0 for r in runs), runs
    first = dbg.json("profile", "diff", str(runs[0]["run"]), str(runs[1]["run"]))
    change = first["changes"][0]
    assert change["function"] == "settings" and change["after"] < change["before"] / 3, first


def test_a_program_cut_at_duration_answers_and_leaves_nothing(dbg: Dbg) -> None:
    answer = dbg.json("profile", "--duration", "1", str(REPORT), "forever")
    assert answer["ok"] and answer["exit_code"] is None, answer
    assert "stopped when the recording ended" in answer["note"], answer
    assert answer["top"][0]["function"] == "settings", answer
    assert 0.5 < answer["duration"] < 5, answer
    left = subprocess.run(["pgrep", "-f", f"{REPORT} forever"], capture_output=True, text=True)
    assert left.stdout == "", left.stdout


def test_a_program_that_throws_keeps_its_profile(dbg: Dbg, tmp_path: Path) -> None:
    program = tmp_path / "boom.js"
    program.write_text("function work() { let x = 0; for (let i = 0; i < 3e7; i++) x += i;"
                       " return x; }\nwork();\nthrow new Error('boom');\n")
    answer = dbg.json("profile", str(program))
    assert answer["ok"] and answer["exit_code"] == 1, answer
    assert "Error: boom" in answer["output"] or "boom.js:3" in answer["output"], answer
    assert any(r["function"] == "work" for r in answer["top"]), answer
    text = dbg("profile", str(program)).out
    assert "exited with code 1; what was recorded is kept" in text, text


def test_bad_input_is_one_line(dbg: Dbg) -> None:
    attach = dbg("profile", "--tool", "node", "--pid", "1")
    assert attach.code != 0 and "node cannot attach" in attach.err, attach
    missing = dbg("profile", "--tool", "node", "nowhere.js")
    assert missing.code != 0 and "no such program" in missing.err, missing


def test_a_node_s_own_samples_split_by_the_lines_v8_saw() -> None:
    # V8's tree: (root) > <module> > hot, with 5 samples at two lines and 1 unplaced.
    raw = {"nodes": [
        {"id": 1, "callFrame": {"functionName": "(root)", "url": ""}, "children": [2]},
        {"id": 2, "callFrame": {"functionName": "", "url": "file:///p/a%20b.js",
                                "lineNumber": 0, "columnNumber": 0}, "children": [3]},
        {"id": 3, "callFrame": {"functionName": "hot", "url": "file:///p/a%20b.js",
                                "lineNumber": 9, "columnNumber": 2}, "hitCount": 6,
         "positionTicks": [{"line": 11, "ticks": 4}, {"line": 12, "ticks": 1}]}]}
    found = [(tuple((f.function, f.file, f.line) for f in s.frames), s.weight)
             for s in samples_of(raw)]
    module = ("<module>", "/p/a b.js", 1)
    assert found == [((module, ("hot", "/p/a b.js", 11)), 4.0),
                     ((module, ("hot", "/p/a b.js", 12)), 1.0),
                     ((module, ("hot", "/p/a b.js", 10)), 1.0)]


def test_heap_names_the_cache_that_grows(dbg: Dbg) -> None:
    answer = dbg.json("heap", "--interval", "0.2", str(CACHE), "40")
    assert answer["ok"] and answer["tool"].startswith("node-heap "), answer
    assert answer["exit_code"] == 0 and answer["snapshots"] >= 3, answer
    top = answer["sites"][0]
    assert (top["function"], top["file"]) == ("remember", str(CACHE)), answer
    assert top["share"] > 80 and top["growing"] and top["last"] > 2 * top["first"], top
    # The last snapshot is the program's, not the freed heap after its end.
    assert answer["end"] >= answer["peak"] * 0.5, answer
    assert dbg.json("hot")["rows"][0]["function"] == "remember"
