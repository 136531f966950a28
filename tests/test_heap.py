"""`dbg heap` and `dbg leaks`: real valgrind (massif, memcheck) and real
tracemalloc, on programs written for it (tests/targets/memory/): a C
program whose heap grows without bound in one function, a C program that
leaks from one call site, a Python program whose cache grows in one
function. The growing site is named at the top, growing, with its line;
the leak with its bytes, blocks and stack; the heap run is kept for `dbg
hot` and `dbg profile diff`; a crash keeps what was recorded; a snapshot
file past its limit says so; bad input gets one line."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from builds import Target, build_c, copy_target
from dbg_profilers.massif import MassifProfiler, parse_massif
from dbg_profilers.memcheck import MemcheckLeaks
from dbg_profilers.pyheap import TracemallocProfiler
from hypothesis import given
from hypothesis import strategies as st

from dbgcore.api import RecordRequest
from dbgcore.testing import Dbg, require

#: An answer's default size bound (the issue's: every answer fits 2 KB).
ANSWER_BYTES = 2048


def _needs_valgrind() -> None:
    require(shutil.which("valgrind") is not None, "valgrind is not installed")


@pytest.fixture
def grows(tmp_path: Path) -> Target:
    _needs_valgrind()
    target = copy_target("memory/grows.c", tmp_path)
    return Target(build_c(target.path), target.lines)


@pytest.fixture
def leaks(tmp_path: Path) -> Target:
    _needs_valgrind()
    target = copy_target("memory/leaks.c", tmp_path)
    return Target(build_c(target.path), target.lines)


@pytest.fixture
def cache(tmp_path: Path) -> Target:
    return copy_target("memory/cache.py", tmp_path)


def test_massif_names_the_growing_site(dbg: Dbg, grows: Target) -> None:
    answer = dbg.json("heap", str(grows.path))
    assert answer["ok"] and answer["tool"].startswith("massif"), answer
    assert answer["exit_code"] == 0 and answer["unit"] == "bytes", answer
    top = answer["sites"][0]
    # 40 rounds of 100 readings of 1008 bytes each, never freed.
    assert (top["function"], top["file"], top["line"]) == (
        "remember", "grows.c", grows.lines["grows"]), answer
    assert top["growing"] and top["share"] > 95 and top["bytes"] >= 4000 * 1000, top
    assert top["last"] > 20 * top["first"] and top["snapshots"] >= 10, top
    assert answer["peak"] >= top["bytes"] and answer["peak_time"] > 0, answer
    # Nothing the program holds is freed before the end (valgrind frees libc's
    # own stdio buffer at exit, which the last snapshot may or may not see).
    assert answer["end"] >= top["bytes"] and answer["peak"] - answer["end"] <= 8192, answer
    # The run is kept in bytes: `dbg hot` ranks the sites by what they hold.
    hot = dbg.json("hot")
    assert hot["run"] == answer["run"] and hot["unit"] == "bytes", hot
    assert hot["rows"][0]["function"] == "remember" and hot["rows"][0]["self_share"] > 95, hot
    assert "where the bytes went" in dbg("hot").out
    callers = dbg.json("callers", "remember")
    assert callers["unit"] == "bytes" and callers["sites"][0]["function"] == "main", callers
    assert callers["sites"][0]["line"] == grows.lines["calls_remember"], callers


def test_the_heap_answer_is_short_and_two_runs_compare(dbg: Dbg, grows: Target) -> None:
    text = dbg("heap", "--limit", "1", str(grows.path), "5").out
    assert len(text.encode()) < ANSWER_BYTES, text
    lines = text.splitlines()
    assert "peak" in lines[1] and "remember" in lines[3] and "growing" in lines[3], text
    assert "more sites (--limit N)" in text, text
    small = dbg.json("heap", str(grows.path), "10")["run"]
    big = dbg.json("heap", str(grows.path), "30")["run"]
    diff = dbg.json("profile", "diff", str(small), str(big))
    assert diff["ok"] and diff["unit"] == "bytes", diff
    first = diff["changes"][0]
    assert first["function"] == "remember", diff
    # Three times the rounds, three times the bytes held.
    assert 2.5 < first["after"] / first["before"] < 3.5, first
    assert "+" in dbg("profile", "diff", str(small), str(big)).out.splitlines()[2]


def test_a_crash_keeps_the_snapshots(dbg: Dbg, grows: Target, cache: Target) -> None:
    answer = dbg.json("heap", str(grows.path), "20", "crash")
    assert answer["ok"] and answer["exit_code"] == -11, answer
    assert answer["sites"][0]["function"] == "remember", answer
    assert "killed by SIGSEGV" in dbg("heap", str(grows.path), "5", "crash").out
    failed = dbg.json("heap", str(cache.path), "1500", "crash")
    assert failed["ok"] and failed["exit_code"] == 1, failed
    assert failed["sites"][0]["function"] == "lookup", failed
    assert "the cache is full" in failed["output"], failed
    # --duration stops a program that would run on, and keeps its snapshots.
    cut = dbg.json("heap", "--duration", "1", str(cache.path), "100000")
    assert cut["ok"] and "stopped (SIGINT)" in cut["note"] and "output" not in cut, cut
    assert cut["sites"][0]["function"] == "lookup" and cut["sites"][0]["growing"], cut


def test_memcheck_names_the_leak(dbg: Dbg, leaks: Target) -> None:
    answer = dbg.json("leaks", str(leaks.path))
    assert answer["ok"] and answer["tool"].startswith("memcheck"), answer
    # Ten names of 64 bytes each, made by make_name and never freed; tidy's freed.
    assert answer["lost"]["definitely"] == {"bytes": 640, "blocks": 10}, answer
    assert answer["lost"]["indirectly"]["bytes"] == 0, answer
    site = answer["sites"][0]
    assert (site["kind"], site["function"], site["line"]) == (
        "definitely", "make_name", leaks.lines["leaks"]), site
    assert site["bytes"] == 640 and site["blocks"] == 10, site
    stack = [(f["function"], f["line"]) for f in site["stack"]]
    assert stack == [("make_name", leaks.lines["leaks"]),
                     ("main", leaks.lines["calls_make_name"])], site
    text = dbg("leaks", str(leaks.path), "3").out
    assert len(text.encode()) < ANSWER_BYTES, text
    assert f"leaks.c:{leaks.lines['leaks']}" in text and "192 B definitely lost" in text, text
    assert f"leaks.c:{leaks.lines['calls_make_name']}" in text.splitlines()[4], text
    # Thirteen sites under deep stacks: the default answer is cut to fit, and says so.
    many = dbg.json("leaks", str(leaks.path), "3", "many")
    assert len(many["sites"]) + many["cut"] == 13 and many["cut"] > 0, many
    assert any(site["frames_cut"] > 0 for site in many["sites"]), many
    text = dbg("leaks", str(leaks.path), "3", "many").out
    assert len(text.encode()) < ANSWER_BYTES and f"{many['cut']} more sites" in text, text
    every = dbg.json("leaks", "--limit", "20", str(leaks.path), "3", "many")
    assert len(every["sites"]) == 13 and every["cut"] == 0, every


def test_tracemalloc_names_the_growing_cache(dbg: Dbg, cache: Target) -> None:
    answer = dbg.json("heap", str(cache.path))
    assert answer["ok"] and answer["tool"].startswith("tracemalloc"), answer
    assert answer["exit_code"] == 0 and answer["snapshots"] >= 3, answer
    top = answer["sites"][0]
    assert (top["function"], top["file"], top["line"]) == (
        "lookup", str(cache.path), cache.lines["grows"]), answer
    assert top["growing"] and top["share"] > 80 and top["bytes"] > 3_000_000, top
    assert dbg.json("hot")["rows"][0]["function"] == "lookup"
    # A Python program has no leak checker: refused, naming what answers.
    refused = dbg("leaks", str(cache.path))
    assert refused.code != 0 and "no leak checker reads" in refused.err, refused
    assert f"dbg heap {cache.path}" in refused.err, refused


def test_a_snapshot_file_past_its_limit_says_so(tmp_path: Path, grows: Target,
                                                cache: Target) -> None:
    whole = tmp_path / "whole"
    whole.mkdir()
    request = RecordRequest(whole, argv=[str(grows.path), "10"], file_limit=64 << 20)
    complete = MassifProfiler().record(request)
    assert complete.note == "" and len(complete.timeline) > 20, complete.note
    cut_dir = tmp_path / "cut"
    cut_dir.mkdir()
    cut = MassifProfiler().record(RecordRequest(cut_dir, argv=[str(grows.path), "10"],
                                                file_limit=4000))
    assert "passed the limit of 4000 bytes" in cut.note, cut.note
    assert 0 < len(cut.timeline) < len(complete.timeline), (cut.timeline, cut.note)
    py_dir = tmp_path / "py"
    py_dir.mkdir()
    small = TracemallocProfiler().record(RecordRequest(py_dir, argv=[str(cache.path), "800"],
                                                       file_limit=1000, interval=0.05))
    assert "passed the limit of 1000 bytes" in small.note, small.note
    leaks_dir = tmp_path / "leaks"
    leaks_dir.mkdir()
    leaky = copy_target("memory/leaks.c", tmp_path)
    built = build_c(leaky.path)
    whole_report = MemcheckLeaks().record(RecordRequest(leaks_dir, argv=[str(built), "3",
                                                                         "many"]))
    assert len(whole_report.leaks) == 13 and whole_report.note == "", whole_report.note
    cut_report = MemcheckLeaks().record(RecordRequest(leaks_dir, argv=[str(built), "3", "many"],
                                                      file_limit=8000))
    assert "report ends early" in cut_report.note and "8000 bytes" in cut_report.note, \
        cut_report.note
    assert 0 < len(cut_report.leaks) < 13, cut_report.leaks


def test_massifs_file_is_read_whole_or_up_to_a_cut() -> None:
    text = "\n".join([
        "desc: (none)", "cmd: ./a", "time_unit: ms",
        "#-----------", "snapshot=0", "#-----------", "time=0", "mem_heap_B=0",
        "mem_heap_extra_B=0", "mem_stacks_B=0", "heap_tree=empty",
        "#-----------", "snapshot=1", "#-----------", "time=250", "mem_heap_B=3000",
        "mem_heap_extra_B=8", "mem_stacks_B=0", "heap_tree=peak",
        "n2: 3000 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.",
        " n2: 2900 0x1: grow (a.c:5)",
        "  n0: 2000 0x2: main (a.c:9)",
        "  n0: 900 0x3: helper (a.c:12)",
        " n0: 100 0x4: strdup (in /usr/lib/x86_64-linux-gnu/libc.so.6)",
        "#-----------", "snapshot=2", "#-----------", "time=300", "mem_heap_B=10",
        "mem_heap_extra_B=8", "mem_stacks_B=0", "heap_tree=detailed",
        "n1: 10 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.",
        " n0: 10 0x1: grow (a.c:5)", ""])
    timeline, peak = parse_massif(text)
    assert [(p.time, p.heap, p.stacks is None) for p in timeline] == [
        (0.0, 0.0, True), (0.25, 3000.0, False), (0.3, 10.0, False)]
    stacks = sorted(([(f.function, f.line) for f in s.frames], s.weight) for s in peak)
    assert stacks == [([("helper", 12), ("grow", 5)], 900.0),
                      ([("main", 9), ("grow", 5)], 2000.0),
                      ([("strdup", None)], 100.0)], stacks
    assert next(s for s in peak if s.frames[0].function == "strdup").frames[0].library == "libc"
    # A tree cut off (its node promises a child the file lost) is left out whole.
    timeline, _ = parse_massif(text[:text.rindex(" n0: 10")])
    assert len(timeline) == 2, timeline


def test_bad_input_gets_one_line(dbg: Dbg, tmp_path: Path, cache: Target) -> None:
    elf = tmp_path / "prog"
    shutil.copy("/bin/true", elf)
    cases = {
        ("heap", str(tmp_path / "missing")): "no such program",
        ("leaks", str(tmp_path / "missing")): "no such program",
        ("heap", str(tmp_path)): "no such program",
        ("heap", "--tool", "nope", str(cache.path)): "unknown profiler 'nope'",
        ("leaks", "--tool", "nope", str(elf)): "unknown profiler 'nope'",
        # A profiler of another measure is named with the op that asks for it.
        ("heap", "--tool", "cprofile", str(cache.path)): "cprofile measures time, not heap",
        ("profile", "--tool", "massif", str(elf)): "massif measures heap, not time",
        ("heap", "--duration", "0", str(cache.path)): "--duration must be more than 0",
    }
    for words, said in cases.items():
        result = dbg(*words)
        assert result.code != 0 and said in result.err, (words, result)
        assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err, \
            (words, result)
    hinted = dbg.json("heap", "--tool", "cprofile", str(cache.path))
    assert not hinted["ok"] and "dbg profile --tool cprofile" in json.dumps(hinted), hinted


_FUNCTIONS = st.sampled_from(["main", "grow", "Vec::push", "operator new(unsigned long)",
                              "a_b", "x1"])


@dataclass
class _Node:
    """A heap tree node as massif writes one: a leaf's bytes are its own,
    an inner node's its children's."""

    function: str
    line: int
    own: int
    children: list[_Node]

    @property
    def weight(self) -> int:
        return sum(c.weight for c in self.children) if self.children else self.own

    def lines(self, indent: int) -> list[str]:
        head = (f"{' ' * indent}n{len(self.children)}: {self.weight} 0x{indent:x}: "
                f"{self.function} (prog.c:{self.line})")
        return [head, *(text for c in self.children for text in c.lines(indent + 1))]

    def leaves(self, above: tuple[tuple[str, int], ...] = ()
               ) -> list[tuple[tuple[tuple[str, int], ...], float]]:
        """Each leaf's path from the allocation site down, and its bytes."""
        path = (*above, (self.function, self.line))
        if not self.children:
            return [(path, float(self.own))]
        return [leaf for c in self.children for leaf in c.leaves(path)]


@st.composite
def _trees(draw: st.DrawFn, depth: int = 0) -> _Node:
    children = draw(st.lists(_trees(depth + 1), max_size=0 if depth >= 3 else 3))
    return _Node(draw(_FUNCTIONS), draw(st.integers(1, 10**5)), draw(st.integers(1, 10**9)),
                 children)


@given(st.lists(_trees(), min_size=1, max_size=4))
def test_massifs_trees_read_back_as_their_leaves_stacks(sites: list[_Node]) -> None:
    whole = sum(s.weight for s in sites)
    tree = [f"n{len(sites)}: {whole} (heap allocation functions) malloc/new/new[], etc.",
            *(text for s in sites for text in s.lines(1))]
    text = "\n".join(["desc: (none)", "#-----------", "snapshot=0", "#-----------",
                      "time=1500", f"mem_heap_B={whole}", "mem_heap_extra_B=0",
                      "mem_stacks_B=0", "heap_tree=peak", *tree, ""])
    timeline, peak = parse_massif(text)
    assert [(p.time, p.heap) for p in timeline] == [(1.5, float(whole))]
    # Each leaf's path, allocation site first, read back outermost first.
    expected = sorted((tuple(reversed(path)), own) for s in sites for path, own in s.leaves())
    got = sorted((tuple((f.function, f.line or 0) for f in sample.frames), sample.weight)
                 for sample in peak)
    assert got == expected
    assert sum(sample.weight for sample in peak) == whole
