"""Every benchmark of bench/ runs, at its smallest size, as a user runs it (a
subprocess with the venv's Python, from a folder of its own), and prints its
table with figures in it: a benchmark nobody runs rots (bench/s1.py's daemon
mode once called an op with a signature gone for weeks). These are not timed
tests: the figures are only checked to be there, not to meet anything.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dbgcore.testing import require, require_backend

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
#: A figure as the tables print one: 1,519 or 12.34.
NUMBER = r"\d[\d,]*(?:\.\d+)?"
#: The end of a row of bench/s1.py's S1 table: the six steps' medians and the S1 spread.
S1_CELLS = rf"(?: {NUMBER} \|){{6}} {NUMBER}-{NUMBER} \|$"
#: mcp-debugger, as bench/s1.py installs it.
PEER_CLI = (Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "dbg-bench-peer"
            / "node_modules" / "@debugmcp" / "mcp-debugger" / "dist" / "cli")


def bench(tmp_path: Path, script: str, *args: str) -> str:
    """Runs bench/SCRIPT from a scratch folder; its stdout, which it must end."""
    env = {**os.environ, "DBG_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, str(BENCH / script), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def rows(out: str, *names: str) -> None:
    for name in names:
        assert re.search(rf"^\| {re.escape(name)} \|{S1_CELLS}", out, re.M), (name, out)


@pytest.mark.first
def test_s1_every_mode_extra_and_readme(tmp_path: Path) -> None:
    """floor, daemon, CLI and MCP on pdb, the goals, --extra's parts, and the
    README section written from the run (into a copy of README.md)."""
    require_backend("pdb")
    readme = tmp_path / "README.md"
    shutil.copy(ROOT / "README.md", readme)
    out = bench(tmp_path, "s1.py", "--backend", "pdb", "--runs", "1", "--no-peer",
                "--samples", "2", "--extra", "--sessions", "2", "--rounds", "1",
                "--readme", str(readme))
    rows(out, "in-process floor", "dbg daemon, in-process client", "**dbg CLI**", "dbg mcp")
    assert re.search(rf"One CLI call on a stopped pdb session: print {NUMBER} ms", out), out
    for goal in ("`dbg start --break X --run` through the CLI within 1.2 x the floor + one"
                 " `python -c pass`",
                 "`dbg start --break X --run` through `dbg mcp` within 1.2 x the floor + 2 ms",
                 "S1 through `dbg mcp` within 1.2 x the floor + 14 x 2 ms",
                 "S1 through the CLI within 1.2 x the floor + 14 x `python -c pass`"):
        assert re.search(rf"^- {re.escape(goal)}.*: (met|\*\*not met\*\*);", out, re.M), \
            (goal, out)
    assert "noise: not measured (one run a cell); load average" in out, out
    # --extra: the process tree, memory, sessions at once, the large frame.
    assert re.search(rf"^\| dbg mcp, pdb \|{TREE_CELLS}", out, re.M), out
    assert re.search(rf"^  pdb: {NUMBER} MB$", out, re.M), out
    assert re.search(rf"2 pdb sessions at once: print {NUMBER} ms at worst", out), out
    assert re.search(rf"^  pdb: {NUMBER} ms, {NUMBER} bytes of text", out, re.M), out
    # The README's section: rewritten between its markers, the rest kept.
    text = readme.read_text()
    section = text.split("<!-- speed:begin")[1].split("<!-- speed:end -->")[0]
    assert "bench/s1.py --backend pdb --runs 1" in section and "--readme" in section, section
    assert f"`os.cpu_count()` {os.cpu_count()}" in section and "load average" in section
    assert "A small run" in section, section
    assert re.search(rf"^\| pdb \| {NUMBER} \| {NUMBER} \| {NUMBER} x \| {NUMBER} \| "
                     rf"{NUMBER} x \|$", section, re.M), section
    assert "S1 through `dbg mcp` within 1.2 x the floor" in section, section
    original = (ROOT / "README.md").read_text()
    assert text.split("<!-- speed:begin")[0] == original.split("<!-- speed:begin")[0]
    assert text.split("<!-- speed:end -->")[1] == original.split("<!-- speed:end -->")[1]


def import_s1() -> Any:
    """bench/s1.py as a module, without the DBG_HOME it makes on import."""
    # s1 puts bench/ first on sys.path, where a file could shadow the
    # standard library's trace for the rest of this worker: put it back.
    saved = list(sys.path)
    sys.path.insert(0, str(BENCH))
    try:
        import s1
    finally:
        sys.path[:] = saved
    shutil.rmtree(s1.HOME, ignore_errors=True)
    return s1


def test_s1_goals_and_noise_of_several_runs() -> None:
    """The verdicts and the README section of a three-run report, from figures
    given here (bench/s1.py's own arithmetic, without running a debugger)."""
    s1 = import_s1()

    def times(start: float, total: float) -> dict[str, float]:
        return {"start": start, "locals": 1, "print": 1, "10 x next": 10, "continue": 1,
                "S1": total}

    report = s1.Report(3, {"pdb": {
        "floor": [times(40, 100), times(45, 110), times(50, 90)],
        "cli": [times(60, 300), times(70, 280), times(68, 320)],
        "mcp": [times(48, 115), times(47, 120), times(49, 105)],
    }, "debugpy": {
        "floor": [times(500, 1000)] * 3, "mcp": [times(600, 1100)] * 3,
        "peer": [times(2000, 4000)] * 3, "cli": [times(590, 1300)] * 3,
    }}, [10.0, 11.0, 12.0], (1.0, 1.0, 1.0), (2.0, 2.0, 2.0), "dbg 0")
    lines = "\n".join(s1.goal_lines(report))
    # Each goal is 1.2 x the floor's median + the calls x the allowance:
    # `python -c pass` (11 ms, the median) a CLI call, 2 ms a `dbg mcp` call.
    # start through the CLI: pdb 68 against 1.2 x 45 + 11, debugpy 590 against 611
    assert "pdb 68 ms against 65 **not met**, debugpy 590 ms against 611 met" in lines, lines
    # start through `dbg mcp`: pdb 48 against 1.2 x 45 + 2, debugpy 600 against 602
    assert "within 1.2 x the floor + 2 ms: met (2 of 2); pdb 48 ms against 56 met," \
        " debugpy 600 ms against 602 met" in lines, lines
    # S1 through the CLI, 14 calls: pdb 300 against 120 + 154, debugpy 1,300 against 1,354
    assert "pdb 300 ms against 274 **not met**, debugpy 1,300 ms against 1,354 met" in lines
    # S1 through `dbg mcp`, 14 calls: pdb 115 against 120 + 28, debugpy 1,100 against 1,228
    assert "+ 14 x 2 ms: met (2 of 2); pdb 115 ms against 148 met, debugpy 1,100 ms against" \
        " 1,228 met" in lines, lines
    assert "dbg mcp 3.64 x met, dbg CLI 3.08 x **not met**" in lines, lines
    section = s1.readme_section(report, "bench/s1.py --runs 3 --readme")
    assert "| pdb | 100 [90-110] | 300 [280-320] | 3.00 x | 115 [105-120] | 1.15 x |" \
        in section, section
    # The widest cell: pdb's floor, 20 ms over a median of 100.
    assert "is 20% of its median (pdb floor)" in section, section
    assert "A small run" not in section and "load average 1.00 before" in section, section
    assert section.startswith(s1.README_BEGIN) and section.endswith(s1.README_END)


def test_s1_goal_formula_and_calls() -> None:
    """A goal is 1.2 x the floor + the calls x the allowance; S1 makes
    exactly the calls the goal counts (bench/s1.py's own steps, run with an
    op that answers at once and counts what it is asked)."""
    import anyio

    s1 = import_s1()
    assert s1.goal_ms(100.0, 14, 9.0) == pytest.approx(246.0)
    assert s1.goal_ms(45.0, 1, 2.0) == pytest.approx(56.0)
    assert s1.allowance("cli", 9.5) == 9.5 and s1.allowance("mcp", 9.5) == 2.0
    assert s1.judged("mcp", "S1", 148.0, 100.0, 30.0) == ("148 ms against 148", True)
    assert s1.judged("cli", "S1", 300.0, 100.0, 11.0) == ("300 ms against 274", False)
    assert s1.judged("cli", "start", 65.0, 45.0, 11.0) == ("65 ms against 65", True)
    asked: list[str] = []

    async def op(name: str) -> dict[str, object]:
        asked.append(name)
        return {"ok": True, "state": "exited" if name == "continue" else "stopped"}

    for start_only, part in ((False, "S1"), (True, "start")):
        asked.clear()
        s1.START_ONLY = start_only
        try:
            anyio.run(s1.dbg_steps, "pdb", op)
        finally:
            s1.START_ONLY = False
        assert asked[-1] == "kill" and asked.count("kill") == 1, asked  # kill is not timed
        assert len(asked) - 1 == s1.CALLS[part], (part, asked)


def test_s1_start_only(tmp_path: Path) -> None:
    require_backend("pdb")
    # floor, CLI and an agent's rerun (the other modes' start is the same
    # code, run by the S1 tests).
    out = bench(tmp_path, "s1.py", "--start-only", "--backend", "pdb", "--runs", "1",
                "--mode", "floor", "--mode", "cli", "--mode", "rerun")
    cell = rf"{NUMBER} \[{NUMBER}-{NUMBER}\]"
    verdict = rf"{NUMBER} ms against {NUMBER} (met|\*\*not met\*\*)"
    assert re.search(rf"^\| pdb \|(?: {cell} \|){{3}}(?: {NUMBER} \|){{2}} cli {verdict}; "
                     rf"rerun {verdict} \|$", out, re.M), out


@pytest.mark.first
def test_s1_node(tmp_path: Path) -> None:
    """node beside its floor, a bare client of node's inspector."""
    require_backend("node")
    out = bench(tmp_path, "s1.py", "--backend", "node", "--runs", "1", "--no-peer",
                "--samples", "0")
    assert "node 2" in out or "node 1" in out, out  # its version, from the plugin
    rows(out, "in-process floor", "dbg daemon, in-process client", "**dbg CLI**", "dbg mcp")
    assert re.search(r"within 1.2 x the floor.*node .*(met|not met)", out), out


@pytest.mark.first
def test_s1_peer(tmp_path: Path) -> None:
    """mcp-debugger beside `dbg mcp` on debugpy, when npm's package is there
    already (no network in a test: `bench/s1.py --install-peer` installs it,
    as .ci/run does; missing, a failure under DBG_REQUIRE_ALL_BACKENDS=1)."""
    require(shutil.which("node") is not None and PEER_CLI.exists(),
            f"mcp-debugger is not installed in {PEER_CLI.parents[3]} (run"
            " `.venv/bin/python bench/s1.py --install-peer`)")
    require_backend("debugpy")
    out = bench(tmp_path, "s1.py", "--backend", "debugpy", "--runs", "1", "--mode", "mcp",
                "--samples", "0")
    rows(out, "dbg mcp", "mcp-debugger 0.24.2, MCP")
    assert re.search(rf"^- mcp-debugger's S1 on debugpy at least 3.4 x dbg's: .*dbg mcp {NUMBER}"
                     r" x (met|\*\*not met\*\*)", out, re.M), out


#: A row of bench/extra.py's process-tree table: the tree's RSS and PSS,
#: dbg's own (or the peer's), the spare's debugger, the debugger, the program.
TREE_CELLS = rf"(?: {NUMBER} \|){{7}}$"


def test_extra(tmp_path: Path) -> None:
    require_backend("gdb")
    out = bench(tmp_path, "extra.py", "--backend", "gdb", "--sessions", "2", "--rounds", "1",
                "--trees", "1")
    assert re.search(rf"^\| dbg mcp, gdb \|{TREE_CELLS}", out, re.M), out
    assert re.search(r"^  gdb: dbg mcp \[dbg\] .*; daemon \[dbg\] ", out, re.M), out
    assert re.search(rf"^  gdb: {NUMBER} MB$", out, re.M), out
    assert re.search(rf"2 gdb sessions at once: print {NUMBER} ms at worst", out), out
    assert re.search(rf"^  gdb: {NUMBER} ms, {NUMBER} bytes of text", out, re.M), out


@pytest.mark.first
def test_extra_tree_beside_the_peer(tmp_path: Path) -> None:
    """The process tree of a debugpy session through `dbg mcp` and through
    mcp-debugger (installed already, as for test_s1_peer)."""
    require(shutil.which("node") is not None and PEER_CLI.exists(),
            f"mcp-debugger is not installed in {PEER_CLI.parents[3]} (run"
            " `.venv/bin/python bench/s1.py --install-peer`)")
    require_backend("debugpy")
    out = bench(tmp_path, "extra.py", "--backend", "debugpy", "--tree-only", "--trees", "1")
    assert re.search(rf"^\| dbg mcp, debugpy \|{TREE_CELLS}", out, re.M), out
    assert re.search(rf"^\| mcp-debugger 0.24.2, debugpy \|{TREE_CELLS}", out, re.M), out
    assert re.search(r"^  mcp-debugger: mcp-debugger server \[peer\] ", out, re.M), out


def test_tests(tmp_path: Path) -> None:
    """A test run under dbg (debugpy, pdb) against the bare run."""
    require_backend("debugpy")
    require_backend("pdb")
    out = bench(tmp_path, "tests.py", "--runs", "1", "--project", "suite", "--small")
    cell = rf"{NUMBER} \({NUMBER}-{NUMBER}\)"
    assert "| project | Python | tests | bare | debugpy-new | debugpy | pdb-new | pdb |" in out
    version = ".".join(map(str, sys.version_info[:3]))
    assert re.search(rf"^\| suite \| {re.escape(version)} \| 10 \| {cell} \|"
                     rf"(?: {cell} \*\*{NUMBER} x\*\* \|){{4}}$", out, re.M), out
    assert "goal: each dbg run <= 1.5 x the bare run" in out, out


def test_heavy(tmp_path: Path) -> None:
    """The first breakpoint after the imports: bare, the floor with and
    without dbg's launch settings, and dbg, on light imports (no numpy)."""
    require_backend("debugpy")
    out = bench(tmp_path, "heavy.py", "--runs", "1", "--light")
    assert "after importing json and decimal (light)" in out, out
    assert "| bare | floor | floor+settings | dbg |" in out, out
    cell = rf"{NUMBER} \({NUMBER}-{NUMBER}\)"
    assert re.search(rf"^\|(?: {cell} \|){{4}}$", out, re.M), out
    assert re.search(rf"against the floor: floor\+settings {NUMBER} x, dbg {NUMBER} x", out), out
    assert re.search(r"goal: dbg <= 1.2 x the floor: (met|\*\*not met\*\*)$", out, re.M), out


def test_restart(tmp_path: Path) -> None:
    """`dbg restart` of a failing test, with and without what is started
    ahead of it, against the bare run to the failure."""
    require_backend("debugpy")
    require_backend("pdb")
    out = bench(tmp_path, "restart.py", "--runs", "1", "--restarts", "1", "--pause", "0.3")
    cell = rf"{NUMBER} \[{NUMBER}-{NUMBER}\]"
    assert "| | bare | debugpy ahead | debugpy off | pdb ahead | pdb off |" in out, out
    assert re.search(rf"^\| restart \| {cell} \|(?: {cell} {NUMBER} x \|){{4}}$", out, re.M), out


def test_tests_rewrites_its_readme_section(tmp_path: Path) -> None:
    """`--readme PATH` rewrites the test-run section alone: the command, the
    machine, the table and the goal's verdicts."""
    require_backend("debugpy")
    require_backend("pdb")
    readme = tmp_path / "README.md"
    begin = "<!-- tests:begin: written by bench/tests.py --readme; do not edit by hand -->"
    readme.write_text(f"# title\n\nbefore\n{begin}\nold figures\n<!-- tests:end -->\nafter\n")
    bench(tmp_path, "tests.py", "--runs", "1", "--project", "suite", "--small", "--mode",
          "pdb", "--readme", str(readme))
    text = readme.read_text()
    assert text.startswith(f"# title\n\nbefore\n{begin}\n") and text.endswith(
        "<!-- tests:end -->\nafter\n"), text
    assert "old figures" not in text
    assert "measured by `.venv/bin/python bench/tests.py --runs 1 --project suite --small" \
        " --mode pdb --readme`" in text, text
    assert f"(`os.cpu_count()` {os.cpu_count()})" in text and "*A small run" in text, text
    assert re.search(rf"^\| suite \| [\d.]+ \| 10 \| {NUMBER} \({NUMBER}-{NUMBER}\) \| {NUMBER} "
                     rf"\({NUMBER}-{NUMBER}\) \*\*{NUMBER} x\*\* \|$", text, re.M), text
    assert re.search(rf"within 1.5 x the bare run: suite, [\d.]+ on pdb {NUMBER} x "
                     rf"(met|\*\*not met\*\*)\.", text), text


def test_trace(tmp_path: Path) -> None:
    """Calls a second on the goal's three backends, each judged met or not."""
    for backend in ("pdb", "debugpy", "gdb"):
        require_backend(backend)
    out = bench(tmp_path, "tracing.py", "--calls", "100", "pdb", "debugpy", "gdb")
    for backend in ("pdb", "debugpy", "gdb"):
        assert re.search(rf"^  {backend} +100 calls in +{NUMBER} s: +{NUMBER} calls/s", out,
                         re.M), out
        assert re.search(rf"^  {backend} +{NUMBER} calls/s: (met|not met)$", out, re.M), out


def test_trace_floor(tmp_path: Path) -> None:
    """--floor: lldb's own stops a second beside its trace's calls a second."""
    require_backend("lldb")
    out = bench(tmp_path, "tracing.py", "--calls", "50", "--floor", "lldb")
    assert re.search(rf"^  lldb +50 calls in +{NUMBER} s: +{NUMBER} calls/s", out, re.M), out
    assert re.search(rf"^  lldb +floor: +{NUMBER} stops/s of lldb alone; the trace is "
                     rf"{NUMBER} calls a stop$", out, re.M), out


def test_interrupt(tmp_path: Path) -> None:
    require_backend("pdb")
    out = bench(tmp_path, "interrupt.py", "--runs", "1", "pdb")
    assert re.search(rf"^\| pdb \| {NUMBER} \| {NUMBER} \|$", out, re.M), out


def test_bounds(tmp_path: Path) -> None:
    require_backend("pdb")
    out = bench(tmp_path, "bounds.py", "--runs", "1", "pdb")
    for name in ("print items", "print text", "runaway at --timeout 1", "next print"):
        assert re.search(rf"^pdb +{re.escape(name)} +{NUMBER} ms +{NUMBER} bytes$", out,
                         re.M), (name, out)


def test_vast(tmp_path: Path) -> None:
    require_backend("gdb")
    out = bench(tmp_path, "vast.py", "--backend", "gdb")
    for name in ("vars arr", "print arr", "locals", "print arr[9999999]", "next"):
        assert re.search(rf"^gdb +{re.escape(name)} +{NUMBER} ms +{NUMBER} B$", out,
                         re.M), (name, out)
    assert re.search(rf"^gdb +debugger RSS {NUMBER} kB before, {NUMBER} kB after$", out,
                     re.M), out


def test_hits(tmp_path: Path) -> None:
    """bench/hits.py at its small size: stores filled through the store's
    API, every call timed, each store's rows in the table (no debugger)."""
    out = bench(tmp_path, "hits.py", "--small", "--runs", "1")
    for size in ("10", "200"):
        for name in ("latest", "at a line", "--diff", "floor: --version"):
            assert re.search(rf"^\| \S+ \| {size} \| {NUMBER} \| {re.escape(name)} \| "
                             rf"{NUMBER} \| {NUMBER}-{NUMBER} \| \d+ \|$", out, re.M), (name, out)
    # The latest 200 of 201 stops, and every one of the smaller store's.
    assert re.search(r"^\| \S+ \| 200 \| [\d.]+ \| latest \| .* \| 200 \|$", out, re.M), out
    assert re.search(r"^\| \S+ \| 10 \| [\d.]+ \| latest \| .* \| 10 \|$", out, re.M), out


def test_breaks(tmp_path: Path) -> None:
    """bench/breaks.py at its small size (3 and 10 breakpoints) on pdb and
    debugpy: each row has the floor, dbg's time and their ratio; the larger
    size its growth."""
    require_backend("pdb")
    require_backend("debugpy")
    out = bench(tmp_path, "breaks.py", "--small", "--backends", "pdb,debugpy")
    for backend in ("pdb", "debugpy"):
        assert re.search(rf"^{backend} +3 +{NUMBER} +{NUMBER} +{NUMBER} +\(3 breakpoints",
                         out, re.M), out
        assert re.search(rf"^{backend} +10 +{NUMBER} +{NUMBER} +{NUMBER} +(?:-?{NUMBER}|-) +"
                         rf"\(10 breakpoints", out, re.M), out
    assert re.search(rf"^load average: {NUMBER} {NUMBER} {NUMBER}$", out, re.M), out


def test_breaks_jdb(tmp_path: Path) -> None:
    """bench/breaks.py's jdb row at its small size: the floor (jdb typed
    `stop at` by pexpect), dbg's time and their ratio."""
    require_backend("jdb")
    out = bench(tmp_path, "breaks.py", "--small", "--backends", "jdb")
    assert re.search(rf"^jdb +3 +{NUMBER} +{NUMBER} +{NUMBER} +\(3 breakpoints", out, re.M), out
    assert re.search(rf"^jdb +10 +{NUMBER} +{NUMBER} +{NUMBER} +(?:-?{NUMBER}|-) +"
                     rf"\(10 breakpoints", out, re.M), out
