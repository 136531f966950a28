"""Traced calls a second: `dbg trace` on a program that calls a tiny
function N times, on each backend.

    .venv/bin/python bench/tracing.py [--calls N] [--fallback-calls M] [BACKEND...]

For each backend: the program is started stopped at its entry, then one
`dbg trace tick --max N` runs it to its end; the figure is the calls
recorded over the trace op's wall time (the program's own run included,
so it is the rate an agent sees). Backends whose debugger has no tracer of
its own trace by dbg's fallback (breakpoints and step out), a few hundred
times slower: they get ``--fallback-calls`` calls. `dbg caps` says which is
which (row trace).

Issue 24's goal: at least 1,000 calls a second on debugpy, pdb and gdb; each
of those gets a line saying whether it is met (it needs an idle machine:
gdb's tracer stops the program twice a call).

``--floor`` also runs the same program under gdb or lldb alone (their own
command line, no dbg, no DAP), a breakpoint in the function that continues
by itself: the stops a second the debugger makes at best, measured beside
the trace, so a loaded machine's figures can be judged by their ratio to it.
A tracer that stops twice a call traces at most half of it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ("debugpy", "pdb", "gdb", "lldb", "dlv", "jdb")
#: Issue 24: traces record at least GOAL calls a second on these backends.
GOAL = 1000
GOAL_BACKENDS = ("debugpy", "pdb", "gdb")

PY = """\
import sys


def tick(i):
    return i + 1


def main(n):
    total = 0
    for i in range(n):
        total = tick(total)
    print(total)


main(int(sys.argv[1]))
"""
C = """\
#include <stdio.h>
#include <stdlib.h>

int tick(int i) { return i + 1; }

int main(int argc, char **argv) {
    int n = atoi(argv[1]), total = 0;
    for (int i = 0; i < n; i++)
        total = tick(total);
    printf("%d\\n", total);
    return 0;
}
"""
GO = """\
package main

import (
\t"fmt"
\t"os"
\t"strconv"
)

//go:noinline
func tick(i int) int { return i + 1 }

func main() {
\tn, _ := strconv.Atoi(os.Args[1])
\ttotal := 0
\tfor i := 0; i < n; i++ {
\t\ttotal = tick(total)
\t}
\tfmt.Println(total)
}
"""
JAVA = """\
public class Ticks {
    static int tick(int i) { return i + 1; }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]), total = 0;
        for (int i = 0; i < n; i++)
            total = tick(total);
        System.out.println(total);
    }
}
"""


def build(backend: str, work: Path) -> tuple[list[str], str]:
    """The program's start arguments (before N) and the function's name."""
    if backend in ("debugpy", "pdb"):
        (work / "ticks.py").write_text(PY)
        return ["ticks.py"], "tick"
    if backend in ("gdb", "lldb"):
        (work / "ticks.c").write_text(C)
        subprocess.run(["gcc", "-g", "-O0", "-o", "ticks", "ticks.c"], cwd=work, check=True)
        return ["./ticks"], "tick"
    if backend == "dlv":
        (work / "main.go").write_text(GO)
        (work / "go.mod").write_text("module ticks\n\ngo 1.20\n")
        subprocess.run(["go", "build", "-gcflags=all=-N -l", "-o", "ticks", "."], cwd=work,
                       check=True)
        return ["./ticks"], "main.tick"
    (work / "Ticks.java").write_text(JAVA)
    subprocess.run(["javac", "-g", "Ticks.java"], cwd=work, check=True)
    return ["-cp", ".", "Ticks"], "Ticks.tick"


def dbg(work: Path, env: dict[str, str], *args: str) -> dict[str, object]:
    proc = subprocess.run([str(ROOT / ".venv" / "bin" / "dbg"), "--json", *args], cwd=work,
                          env=env, capture_output=True, text=True)
    try:
        answer: dict[str, object] = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit(f"dbg {' '.join(args)}: {proc.stdout}{proc.stderr}") from None
    return answer


#: gdb's way to a breakpoint that goes on by itself (its tracer's way).
GDB_FLOOR = """\
import gdb
class Through(gdb.Breakpoint):
    def stop(self):
        return False
Through("tick")
gdb.execute("run")
"""
FLOOR_TOOLS = {"gdb": ("gdb",), "lldb": ("lldb-19", "lldb")}


def floor_argv(backend: str, tool: str, work: Path, stops: bool, calls: int) -> list[str]:
    """The debugger's command line that runs the program, with or without
    the breakpoint in tick that continues by itself."""
    program = str(work / "ticks")
    if backend == "gdb":
        script = work / ("through.py" if stops else "plain.py")
        script.write_text(GDB_FLOOR if stops else 'import gdb\ngdb.execute("run")\n')
        return [tool, "-nx", "-batch", "-x", str(script), "--args", program, str(calls)]
    setup = ["-o", "breakpoint set -n tick -G true"] if stops else []
    return [tool, "-b", "-x", *setup, "-o", "run", "--", program, str(calls)]


def floor(backend: str, calls: int) -> float | None:
    """Stops a second of gdb or lldb alone, one at each of ``calls`` calls
    (the same run without the breakpoint taken off); None where the
    debugger is not installed."""
    tool = next((found for name in FLOOR_TOOLS[backend] if (found := shutil.which(name))), None)
    if tool is None:
        return None
    work = Path(tempfile.mkdtemp(prefix="dbg-bench-floor-"))
    try:
        build(backend, work)

        def timed(stops: bool) -> float:
            begin = time.perf_counter()
            subprocess.run(floor_argv(backend, tool, work, stops, calls), cwd=work,
                           capture_output=True, check=True, stdin=subprocess.DEVNULL)
            return time.perf_counter() - begin

        return calls / max(timed(True) - timed(False), 1e-6)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(backend: str, calls: int) -> tuple[int, float, str]:
    """(calls recorded, seconds, how it traced) for one trace of ``calls`` calls."""
    work = Path(tempfile.mkdtemp(prefix="dbg-bench-trace-"))
    env = {**os.environ, "DBG_HOME": str(work / "home")}
    try:
        program, function = build(backend, work)
        start = ["start", "--backend", backend]
        if program[0] == "-cp":
            start += program[:2]
            program = program[2:]
        dbg(work, env, *start, *program, str(calls))
        begin = time.perf_counter()
        answer = dbg(work, env, "--timeout", "600", "trace", function, "--max", str(calls),
                     "--limit", "1")
        elapsed = time.perf_counter() - begin
        trace = answer.get("result", answer)
        data = trace.get("trace") if isinstance(trace, dict) else None
        if not isinstance(data, dict):
            raise SystemExit(f"{backend}: no trace in {answer}")
        return int(data["total"]), elapsed, str(data.get("means") or "")
    finally:
        subprocess.run([str(ROOT / ".venv" / "bin" / "dbg"), "kill"], cwd=work, env=env,
                       capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("backends", nargs="*", default=list(BACKENDS))
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--fallback-calls", type=int, default=200)
    parser.add_argument("--fallback", nargs="*", default=["dlv", "jdb"],
                        help="backends traced by dbg's fallback (fewer calls)")
    parser.add_argument("--floor", action="store_true",
                        help="also gdb's and lldb's own stops a second, alone")
    options = parser.parse_args()
    print(f"traced calls a second ({os.cpu_count()} cores, {sys.platform},"
          f" load average {os.getloadavg()[0]:.2f})")
    rates: dict[str, float] = {}
    for backend in options.backends:
        calls = options.fallback_calls if backend in options.fallback else options.calls
        recorded, seconds, means = measure(backend, calls)
        if recorded != calls:
            raise SystemExit(f"{backend}: {recorded} calls recorded of {calls}")
        rates[backend] = recorded / seconds
        print(f"  {backend:8} {recorded:>6} calls in {seconds:6.2f} s: "
              f"{rates[backend]:8.0f} calls/s  ({means})", flush=True)
        stops = floor(backend, calls) if options.floor and backend in FLOOR_TOOLS else None
        if stops is not None:
            print(f"  {backend:8} floor: {stops:8.0f} stops/s of {backend} alone; the trace "
                  f"is {rates[backend] / stops:.2f} calls a stop", flush=True)
    judged = [b for b in GOAL_BACKENDS if b in rates]
    if judged:
        print(f"goal: at least {GOAL:,} calls a second on {', '.join(GOAL_BACKENDS)}"
              f" (load average {os.getloadavg()[0]:.2f} at the end)")
        for backend in judged:
            print(f"  {backend:8} {rates[backend]:8.0f} calls/s: "
                  + ("met" if rates[backend] >= GOAL else "not met"))


if __name__ == "__main__":
    main()
