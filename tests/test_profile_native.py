"""`dbg profile` of native programs: real perf, real callgrind and Go's real
pprof on a hot spot written for them (tests/targets/hotspot/scan.c, its Rust
twin scan.rs, and the Go package tests/targets/gohot): ``find`` scans a
table linearly and is called from two sites, ``lookup_many`` asking four
times what ``lookup_few`` asks. Each profiler must find ``find`` the
hottest, ``callers find`` must name both call sites with the larger first,
and ``profile diff`` must show the fix (the same program built with a binary
search). A crash keeps what was sampled; bad input gets one line.

The targets are built here into tmp_path, optimized (-O2) with debug info,
as a program one profiles would be.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest
from builds import TARGETS, Target, copy_tree
from dbg_profilers.callgrind import read_counts
from dbg_profilers.perf import parse_script, sampling_event
from dbg_profilers.pprof import read_raw

from dbgcore.testing import Dbg, marked_lines, require

HOTSPOT = TARGETS / "hotspot"
#: Rounds of scan.c's work: about half a second bare.
ROUNDS = "300"


def _tool(name: str) -> str:
    found = shutil.which(name)
    require(found is not None, f"{name} is not installed")
    assert found is not None
    return found


def _compile(argv: list[str], cwd: Path) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"build failed: {' '.join(argv)}\n{done.stderr}"


def build_scan(work: Path, fixed: bool = False) -> Target:
    """scan.c built optimized with debug info (``fixed``: with -DFIXED, its
    binary search) into ``work``."""
    source = work / "scan.c"
    if not source.exists():
        shutil.copy(HOTSPOT / "scan.c", source)
    out = work / ("scan-fixed" if fixed else "scan")
    _compile([_tool("gcc"), "-g", "-O2", *(["-DFIXED"] if fixed else []), str(source),
              "-o", str(out)], work)
    return Target(out, marked_lines(source))


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> Target:
    return build_scan(tmp_path_factory.mktemp("scan"))


def _needs_perf() -> str:
    perf = _tool("perf")
    done = subprocess.run([perf, "--version"], capture_output=True, text=True, check=False)
    require(done.returncode == 0, f"perf does not run here: {done.stderr.strip()}")
    return perf


def _the_scan_is_found(dbg: Dbg, lines: dict[str, int], source: str) -> None:
    """What every profiler must find of the stored profile: find first by
    its own time, its two callers at their lines, lookup_many's larger."""
    hot = dbg.json("hot")
    assert hot["ok"] and hot["rows"][0]["function"].endswith("find"), hot
    assert hot["rows"][0]["file"].endswith(source) and hot["rows"][0]["self_share"] > 50, hot
    callers = dbg.json("callers", "find")
    sites = callers["sites"]
    # lookup_many in C and Rust (scan::lookup_many), lookupMany in Go.
    assert [s["function"].rsplit(".", 1)[-1].rsplit("::", 1)[-1].replace("_", "").lower()
            for s in sites[:2]] == ["lookupmany", "lookupfew"], callers
    assert sites[0]["total_share"] > 2 * sites[1]["total_share"] > 0, callers
    if sites[0].get("line") is not None:  # a sampled stack: the line of the call
        assert [s["line"] for s in sites[:2]] == [lines["many"], lines["few"]], callers


# -- perf -----------------------------------------------------------------------------


def test_perf_finds_the_hot_function_and_its_two_call_sites(dbg: Dbg, scan: Target) -> None:
    perf = _needs_perf()
    answer = dbg.json("profile", str(scan.path), ROUNDS)
    assert answer["ok"] and answer["tool"].startswith("perf"), answer
    assert answer["exit_code"] == 0 and answer["unit"] == "samples", answer
    assert answer["top"][0]["function"] == "find", answer
    _the_scan_is_found(dbg, scan.lines, "scan.c")
    # The line of the scan's comparison is where the time goes.
    by_line = dbg.json("hot", "--by", "line")["rows"][0]
    assert (by_line["function"], by_line["line"]) == ("find", scan.lines["scan"]), by_line
    # libc's start-up frames are folded, and shown on request.
    every = dbg.json("hot", "--all", "--limit", "50")
    assert any(r["library"] == "libc" for r in every["rows"]), every
    graph = ElementTree.parse(answer["flamegraph"]).getroot()
    titles = [t.text or "" for t in graph.iter("{http://www.w3.org/2000/svg}title")]
    assert any(t.startswith("find (") for t in titles), titles
    _event, counted = sampling_event(perf)
    if not counted:  # this machine: no hardware counters, and the answer says so
        assert "cpu-clock" in answer["note"] and "no hardware counters" in answer["note"], \
            answer


def test_perf_profiles_a_rust_program(dbg: Dbg, tmp_path: Path) -> None:
    _needs_perf()
    rustc = shutil.which("rustc")
    if rustc is None:
        pytest.skip("rustc is not installed")
    source = tmp_path / "scan.rs"
    shutil.copy(HOTSPOT / "scan.rs", source)
    _compile([rustc, "-g", "-C", "opt-level=1", str(source), "-o", str(tmp_path / "scanrs")],
             tmp_path)
    answer = dbg.json("profile", str(tmp_path / "scanrs"), ROUNDS)
    assert answer["ok"] and answer["top"][0]["function"] == "scan::find", answer
    _the_scan_is_found(dbg, marked_lines(source), "scan.rs")


def test_perf_keeps_what_a_crashing_program_sampled(dbg: Dbg, scan: Target) -> None:
    _needs_perf()
    answer = dbg.json("profile", str(scan.path), "200", "crash")
    assert answer["ok"] and answer["exit_code"] == 139, answer  # 128 + SIGSEGV
    assert answer["top"][0]["function"] == "find", answer
    kept = dbg.json("hot", "--run", str(answer["run"]))
    assert kept["rows"][0]["function"] == "find", kept


def test_perf_attaches_to_a_running_program(dbg: Dbg, scan: Target) -> None:
    _needs_perf()
    proc = subprocess.Popen([str(scan.path), "1000000"], stdout=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)
    try:
        answer = dbg.json("profile", "--pid", str(proc.pid), "--duration", "0.5")
        assert answer["ok"] and answer["pid"] == proc.pid, answer
        assert answer["tool"].startswith("perf") and answer["top"][0]["function"] == "find", \
            answer
        assert proc.poll() is None  # sampled, not stopped
    finally:
        proc.kill()
        proc.wait()


def test_perf_profile_diff_shows_the_fix(dbg: Dbg, scan: Target) -> None:
    _needs_perf()
    fixed = build_scan(scan.path.parent, fixed=True)
    runs = [dbg.json("profile", str(path), ROUNDS) for path in (scan.path, fixed.path)]
    assert all(r["ok"] for r in runs), runs
    answer = dbg.json("profile", "diff", str(runs[0]["run"]), str(runs[1]["run"]))
    first = answer["changes"][0]
    assert first["function"] == "find" and first["after"] < first["before"] / 5, answer


def test_perf_bad_input_gets_one_line(dbg: Dbg, scan: Target, tmp_path: Path) -> None:
    _needs_perf()
    script = tmp_path / "slow.py"
    script.write_text("print(1)\n")
    source = tmp_path / "scan.c"
    shutil.copy(HOTSPOT / "scan.c", source)
    cases = {
        ("profile", str(tmp_path / "missing")): "no such program",
        ("profile", "--tool", "perf", "--pid", "999999"): "no process 999999",
        # A script under perf would be its interpreter's C: refused, with the way.
        ("profile", "--tool", "perf", str(script)): "perf profiles native executables",
        # A C source is not a program: nothing fits it.
        ("profile", str(source)): "no profiler fits",
    }
    for words, said in cases.items():
        result = dbg(*words)
        assert result.code != 0 and said in result.err, (words, result)
        assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err, \
            (words, result)


def test_perf_scripts_frames_are_read_with_their_objects() -> None:
    # An inlined frame names no object (it is in its caller's); a sample
    # taken in an interrupt has the kernel's frames below the program's.
    text = (
        "scan 7    1001001 \n"
        "\t    ffffffff8100 irqentry_exit ([kernel.kallsyms])\n"
        "\t            1270 find+0x10\n"
        "  /w/scan.c:26 (inlined)\n"
        "\t            12be lookup_many+0x2e (/w/scan)\n"
        "  /w/scan.c:44\n"
        "\t           27249 __libc_start_call_main+0x79 (/usr/lib/libc.so.6)\n"
        "  ./csu/../sysdeps/x86/libc-start.c:58\n"
        "\t           27304 __libc_start_main_impl+0x84\n"
        "  ./csu/../csu/libc-start.c:360 (inlined)\n"
        "\t            1190 _start+0x20 (/w/scan)\n"
        "  ??:0\n"
        "\n"
        "scan worker 8    1001001 \n"
        "\t            1270 find+0x10\n"
        "  /w/scan.c:26 (inlined)\n"
        "\n")
    first, second = parse_script(text, "/w/scan")
    assert [(f.function, f.file, f.line, f.library) for f in first.frames] == [
        ("_start", None, None, "crt"),
        ("__libc_start_main_impl", "./csu/../csu/libc-start.c", 360, "libc"),
        ("__libc_start_call_main", "./csu/../sysdeps/x86/libc-start.c", 58, "libc"),
        ("lookup_many", "/w/scan.c", 44, None),
        ("find", "/w/scan.c", 26, None),
        ("irqentry_exit", None, None, "kernel")]
    assert first.thread == "scan" and second.thread == "scan worker"
    assert [f.function for f in second.frames] == ["find"] and second.weight == 1.0
    assert os.path.basename(second.frames[0].file or "") == "scan.c"


# -- callgrind ------------------------------------------------------------------------

#: Rounds under callgrind: its simulated CPU runs the program some 50x slower.
CALLGRIND_ROUNDS = "20"


def test_callgrind_counts_the_instructions_and_the_calls(dbg: Dbg, scan: Target) -> None:
    _tool("valgrind")
    answer = dbg.json("profile", "--tool", "callgrind", str(scan.path), CALLGRIND_ROUNDS)
    assert answer["ok"] and answer["tool"].startswith("callgrind"), answer
    assert answer["unit"] == "instructions" and answer["exit_code"] == 0, answer
    assert answer["top"][0]["function"] == "find", answer  # gcc's find.constprop.0
    _the_scan_is_found(dbg, scan.lines, "scan.c")
    # Counted, not sampled: 50 calls a round from lookup_few, 200 from lookup_many.
    rounds = int(CALLGRIND_ROUNDS)
    sites = {s["function"]: s for s in dbg.json("callers", "find")["sites"]}
    assert (sites["lookup_few"]["calls"], sites["lookup_many"]["calls"]) == (
        50 * rounds, 200 * rounds), sites
    assert dbg.json("hot")["rows"][0]["calls"] == 250 * rounds
    assert "instructions counted" in dbg("profile", "--tool", "callgrind", str(scan.path),
                                         "2").out


def test_callgrind_profile_diff_shows_the_fix(dbg: Dbg, scan: Target) -> None:
    _tool("valgrind")
    fixed = build_scan(scan.path.parent, fixed=True)
    runs = [dbg.json("profile", "--tool", "callgrind", str(path), CALLGRIND_ROUNDS)
            for path in (scan.path, fixed.path)]
    assert all(r["ok"] for r in runs), runs
    before, after = (str(r["run"]) for r in runs)
    answer = dbg.json("profile", "diff", before, after)
    first = answer["changes"][0]
    assert answer["unit"] == "instructions", answer
    assert first["function"] == "find" and first["after"] < first["before"] / 20, answer
    text = dbg("profile", "diff", before, after).out
    assert "M instructions" in text and "find" in text.splitlines()[2], text
    # Instructions and time are not compared.
    timed = dbg.json("profile", "--tool", "cprofile", str(HOTSPOT.parent / "slow" /
                                                            "regexes.py"), "0.1")
    refused = dbg("profile", "diff", before, str(timed["run"]))
    assert refused.code != 0 and "cannot be compared" in refused.err, refused


def test_callgrind_keeps_what_a_crashing_program_ran(dbg: Dbg, scan: Target) -> None:
    _tool("valgrind")
    answer = dbg.json("profile", "--tool", "callgrind", str(scan.path), "5", "crash")
    assert answer["ok"] and answer["exit_code"] == 139, answer
    assert answer["top"][0]["function"] == "find", answer


def test_callgrinds_compressed_names_and_positions_are_read() -> None:
    # Names defined once as "(id) name" and referred to as "(id)"; positions
    # relative (+N, -N) and repeated (*); a call's cost line after calls=.
    text = """\
# callgrind format
events: Ir
ob=(1) /w/prog
fl=(1) /w/prog.c
fn=(1) main
10 5
+1 2
cfn=(2) helper
calls=3 20
* 300
cob=(2) /usr/lib/libc.so.6
cfi=(2) printf.c
cfn=(3) printf
calls=1 5
-1 40
fn=(2)
20 300
totals: 647
"""
    samples = read_counts(text, "/w/prog")
    edges = {tuple(f.function for f in s.frames): s for s in samples}
    assert set(edges) == {("main",), ("main", "helper"), ("main", "printf")}, edges
    root, helper, printf = edges[("main",)], edges[("main", "helper")], \
        edges[("main", "printf")]
    assert (root.weight, root.total) == (7.0, 347.0), root
    assert (helper.weight, helper.total, helper.calls) == (300.0, 300.0, 3), helper
    assert (printf.total, printf.calls, printf.frames[1].library) == (40.0, 1, "libc"), printf
    assert helper.frames[1].file == "/w/prog.c" and helper.frames[0].line == 10


# -- Go's pprof -----------------------------------------------------------------------


@pytest.fixture
def gohot(tmp_path: Path) -> Target:
    _tool("go")
    folder = copy_tree("gohot", tmp_path)
    return Target(folder, marked_lines(folder / "main.go"))


def test_pprof_profiles_a_go_packages_tests(dbg: Dbg, gohot: Target) -> None:
    answer = dbg.json("profile", str(gohot.path), timeout=180)  # a folder: pprof fits it
    assert answer["ok"] and answer["tool"].startswith("pprof"), answer
    assert answer["exit_code"] == 0 and answer["rate"] == 100, answer
    assert answer["top"][0]["function"] == "example.com/gohot.find", answer
    _the_scan_is_found(dbg, gohot.lines, "main.go")
    by_line = dbg.json("hot", "--by", "line")["rows"][0]
    assert by_line["line"] in (gohot.lines["loop"], gohot.lines["scan"]), by_line
    # The testing package's frames are Go's own: folded.
    every = dbg.json("hot", "--all", "--limit", "50")
    assert any(r["function"] == "testing.tRunner" and r["library"] == "go"
               for r in every["rows"]), every


def test_pprof_profile_diff_shows_the_fix(dbg: Dbg, gohot: Target) -> None:
    runs = [dbg.json("profile", "--tool", "pprof", str(gohot.path), timeout=180,
                     env={"FIXED": fixed}) for fixed in ("0", "1")]
    assert all(r["ok"] for r in runs), runs
    answer = dbg.json("profile", "diff", str(runs[0]["run"]), str(runs[1]["run"]))
    first = answer["changes"][0]
    assert first["function"].endswith(".find") and first["after"] < first["before"] / 5, \
        answer


def test_pprof_keeps_what_a_failing_test_sampled(dbg: Dbg, gohot: Target) -> None:
    (gohot.path / "fail_test.go").write_text(
        'package main\n\nimport "testing"\n\n'
        'func TestFails(t *testing.T) { t.Fatal("this test fails") }\n')
    answer = dbg.json("profile", str(gohot.path), timeout=180)
    assert answer["ok"] and answer["exit_code"] == 1, answer
    assert "this test fails" in answer["output"], answer
    assert answer["top"][0]["function"] == "example.com/gohot.find", answer
    # Options go test has no use for are refused; a folder of no package is none.
    for words, said in {("--rate", "500"): "takes no --rate",
                        ("--duration", "2"): "takes no --duration"}.items():
        result = dbg("profile", "--tool", "pprof", *words, str(gohot.path))
        assert result.code != 0 and said in result.err, result
    empty = gohot.path.parent / "empty"
    empty.mkdir()
    result = dbg("profile", str(empty))
    assert result.code != 0 and "no such program" in result.err, result
    result = dbg("profile", "--tool", "pprof", str(gohot.path / "main.go"))
    assert result.code != 0 and "not a folder with *_test.go" in result.err, result


def test_pprofs_raw_profile_is_read_with_its_inlined_functions() -> None:
    text = """\
PeriodType: cpu nanoseconds
Period: 10000000
Samples:
samples/count cpu/nanoseconds
          6   60000000: 1 2
          1   10000000: 3 2
Locations
     1: 0x4f557d M=1 main.find /w/main.go:35 s=0
     2: 0x4f5751 M=1 main.inner /w/main.go:50 s=0
             main.outer /w/main.go:56 s=0
     3: 0x4f5589 M=1 runtime.memmove /usr/lib/go-1.19/src/runtime/memmove_amd64.s:99 s=0
Mappings
1: 0x400000/0x4f6000/0x0 prog  [FN]
"""
    first, second = read_raw(text)
    assert [(f.function, f.line) for f in first.frames] == [
        ("main.outer", 56), ("main.inner", 50), ("main.find", 35)]
    assert first.weight == 6.0 and first.frames[0].library is None
    assert second.frames[-1].library == "go" and second.weight == 1.0


def test_pprof_reads_the_profile_a_running_program_serves(dbg: Dbg, tmp_path: Path) -> None:
    go = _tool("go")
    folder = copy_tree("goserve", tmp_path)
    _compile([go, "build", "-o", str(folder / "serve"), "."], folder)
    proc = subprocess.Popen([str(folder / "serve")], stdout=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().split()[1]
        url = f"http://127.0.0.1:{port}/debug/pprof/profile?seconds=5"
        answer = dbg.json("profile", "--url", url, "--duration", "1")  # --duration wins
        assert answer["ok"] and answer["tool"].startswith("pprof"), answer
        assert answer["program"] == url and "1 s of the running program" in answer["note"], \
            answer
        assert answer["top"][0]["function"] == "main.find", answer
        _the_scan_is_found(dbg, marked_lines(folder / "main.go"), "main.go")
        assert proc.poll() is None  # read, not stopped
        cases = {
            ("--url", f"http://192.0.2.1:{port}/debug/pprof/profile"): "this machine only",
            ("--url", "http://127.0.0.1:1/"): "could not read the profile",
            ("--tool", "perf", "--url", url): "perf reads no profile from a URL",
            ("--url", url, "--pid", str(proc.pid)): "only one",
        }
        for words, said in cases.items():
            result = dbg("profile", *words)
            assert result.code != 0 and said in result.err, (words, result)
            assert len(result.err.strip().splitlines()) == 1, (words, result)
    finally:
        proc.kill()
        proc.wait()


def test_perf_profiles_a_go_executable_by_its_frame_pointers(dbg: Dbg, gohot: Target) -> None:
    _needs_perf()
    binary = gohot.path / "gohot"
    _compile([_tool("go"), "build", "-o", str(binary), "."], gohot.path)
    answer = dbg.json("profile", str(binary), "400")
    assert answer["ok"] and answer["tool"].startswith("perf"), answer
    assert answer["top"][0]["function"] == "main.find", answer
    # Whole stacks: DWARF unwinding loses a goroutine's callers, frame pointers do not.
    sites = dbg.json("callers", "find")["sites"]
    assert [s["function"] for s in sites[:2]] == ["main.lookupMany", "main.lookupFew"], sites
    assert sites[0]["total_share"] > 2 * sites[1]["total_share"] > 0, sites


def test_doctor_says_what_each_profiler_finds_here(dbg: Dbg) -> None:
    perf = _needs_perf()
    checks = {c["check"]: c for c in dbg.json("doctor")["checks"]}
    line = checks["profiler perf"]
    assert line["status"] == "ok", line
    _event, counted = sampling_event(perf)
    assert ("samples by cpu-clock" in line["detail"]) is not counted, line
    assert {"profiler py-spy", "profiler callgrind", "profiler pprof"} <= set(checks), checks
