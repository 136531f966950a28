"""What profiling costs a program: the slow Python target
(tests/targets/slow/regexes.py, a fixed work of ``--rounds`` rounds) run
bare, under py-spy and under cProfile as `dbg profile` runs them, and the
whole `dbg profile` command (the profiler's start, reading its file,
storing the run), interleaved, ``--runs`` times each; then how long `dbg
hot` and `dbg callers` take to answer from the stored profile.

The program's own wall and CPU time for its work (it prints them; not
where `dbg profile` keeps its output), and the whole command's wall time,
in seconds, medians (the CPU time's spread, min-max), each as a ratio to
the bare run's median (the issue's bounds: sampling at most 1.05 x, a
deterministic profile at most 1.3 x).

``--native`` measures perf instead, on the native hot spot
(tests/targets/hotspot/scan.c, built -O2 -g, ``--native-rounds`` rounds):
bare, under ``perf record`` as `dbg profile` runs it (DWARF stacks, 999 Hz),
and the whole `dbg profile` command. The program's work is timed by its own
clocks, wall and CPU (what sampling costs the program itself: the CPU time
is the figure other work on the machine does not blur), and as the whole
command's wall time (perf's start and the writing of its file included).

    .venv/bin/python bench/profiling.py [--runs 5] [--rounds 400]
    .venv/bin/python bench/profiling.py --native [--runs 5] [--native-rounds 1200]

``--long S`` measures the questions' answers from a long profile instead:
the slow target sampled by py-spy for S seconds (60: the issue's "profile of
a one-minute run"), then `dbg hot`, `dbg callers` and `dbg hot --by line`,
each ``--runs`` times, as whole commands.

    .venv/bin/python bench/profiling.py --long 60 [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "tests" / "targets" / "slow" / "regexes.py"
SCAN = ROOT / "tests" / "targets" / "hotspot" / "scan.c"
DBG = [sys.executable, str(ROOT / "bin" / "dbg")]
PYSPY = Path(sys.executable).parent / "py-spy"


def timed(argv: list[str], env: dict[str, str]) -> float:
    began = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env)
    return time.perf_counter() - began


def own_clock(argv: list[str], env: dict[str, str]) -> tuple[float | None, float | None,
                                                            float]:
    """The program's work by its own clocks, wall and CPU (scan.c and
    regexes.py print ``in S s (cpu C s)``; None where the command keeps the program's output
    to itself, as `dbg profile` does), and the whole command's wall time."""
    began = time.perf_counter()
    done = subprocess.run(argv, check=True, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - began
    found = re.search(r" in ([\d.]+) s \(cpu ([\d.]+) s\)", done.stdout)
    if found is None:
        return None, None, wall
    return float(found.group(1)), float(found.group(2)), wall


def print_table(times: dict[str, list[tuple[float | None, float | None, float]]]) -> None:
    """Each way's medians: the program's own wall and CPU time (where it
    printed them) and the whole command's, each against the bare run's."""
    bare = [statistics.median(t[i] or 0.0 for t in times["bare"]) for i in range(3)]
    print(f"{'':30} {'own wall':>8} {'/ bare':>7} {'own cpu':>8} {'min-max':>13} "
          f"{'/ bare':>7} {'command':>8} {'/ bare':>7}")
    for name, found in times.items():
        cells = []
        for index in range(3):
            values = [t[index] for t in found if t[index] is not None]
            if not values:
                cells.append(f"{'-':>8} {'':7}" + (" " * 14 if index == 1 else ""))
                continue
            median = statistics.median(v for v in values if v is not None)
            spread = (f" {min(values):6.3f}-{max(values):<6.3f}" if index == 1 else "")
            cells.append(f"{median:8.3f}{spread} {median / bare[index]:6.3f}x")
        print(f"{name:30} {' '.join(cells)}")


def native(options: argparse.Namespace) -> None:
    from dbg_profilers.perf import DEFAULT_RATE, sampling_event

    work = Path(tempfile.mkdtemp(prefix="dbg-bench-perf-"))
    env = {**os.environ, "DBG_HOME": str(work / "home")}
    program = work / "scan"
    subprocess.run(["gcc", "-g", "-O2", str(SCAN), "-o", str(program)], check=True)
    event, _ = sampling_event("perf")
    argv = [str(program), str(options.native_rounds)]
    ways = {
        "bare": argv,
        f"perf record ({event}, dwarf)": [
            "perf", "record", "-q", "-e", event, "-F", str(DEFAULT_RATE), "--call-graph",
            "dwarf", "-o", str(work / "perf.data"), "--", *argv],
        "dbg profile (perf)": [*DBG, "profile", *argv],
    }
    times: dict[str, list[tuple[float | None, float | None, float]]] = {
        name: [] for name in ways}
    for _ in range(options.runs):
        for name, way in ways.items():
            times[name].append(own_clock(way, env))
    print(f"{options.runs} interleaved runs of scan.c rounds={options.native_rounds} at "
          f"{DEFAULT_RATE} Hz, load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    print_table(times)
    for words in (["hot"], ["callers", "find"]):
        spent = [timed([*DBG, *words], env) for _ in range(options.runs)]
        print(f"dbg {' '.join(words):26} {statistics.median(spent) * 1000:7.0f} ms "
              f"(a whole dbg command)")


def long_run(options: argparse.Namespace) -> None:
    """How long the questions take from a profile of ``options.long`` seconds."""
    work = Path(tempfile.mkdtemp(prefix="dbg-bench-profile-"))
    env = {**os.environ, "DBG_HOME": str(work / "home")}
    began = time.perf_counter()
    done = subprocess.run([*DBG, "--json", "profile", "--duration", str(options.long),
                           "--python", options.python, str(TARGET), "rounds=100000000"],
                          check=True, capture_output=True, text=True, env=env)
    recorded = json.loads(done.stdout)
    print(f"a profile of {recorded['duration']:.1f} s ({recorded['weight']:.0f} samples, "
          f"{recorded['samples']} distinct stacks) recorded in "
          f"{time.perf_counter() - began:.1f} s; load average {os.getloadavg()[0]:.2f}, "
          f"{os.cpu_count()} cores")
    for words in (["hot"], ["callers", "is_word"], ["hot", "--by", "line"]):
        found = [timed([*DBG, *words], env) for _ in range(options.runs)]
        print(f"dbg {' '.join(words):26} {statistics.median(found) * 1000:7.0f} ms median "
              f"({min(found) * 1000:.0f}-{max(found) * 1000:.0f}; a whole dbg command)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--python", default="python3")
    parser.add_argument("--native", action="store_true",
                        help="measure perf on the native hot spot instead")
    parser.add_argument("--native-rounds", type=int, default=1200)
    parser.add_argument("--long", type=float, metavar="S",
                        help="time the questions from a profile of S seconds instead")
    options = parser.parse_args()
    if options.native:
        native(options)
        return
    from dbgcore.api import real_python

    # As dbg runs it: a version manager's shim resolved to its interpreter.
    options.python = real_python(options.python, os.environ, None)
    if options.long:
        long_run(options)
        return
    work = Path(tempfile.mkdtemp(prefix="dbg-bench-profile-"))
    env = {**os.environ, "DBG_HOME": str(work / "home")}
    program = [str(TARGET), f"rounds={options.rounds}"]
    ways = {
        "bare": [options.python, *program],
        "py-spy": [str(PYSPY), "record", "--format", "raw", "--rate", "100", "--threads",
                   "--subprocesses", "--output", str(work / "raw.txt"), "--", options.python,
                   *program],
        "cProfile": [options.python, "-m", "cProfile", "-o", str(work / "stats"), *program],
        "dbg profile (py-spy)": [*DBG, "profile", "--python", options.python, *program],
        "dbg profile --tool cprofile": [*DBG, "profile", "--tool", "cprofile", "--python",
                                        options.python, *program],
    }
    times: dict[str, list[tuple[float | None, float | None, float]]] = {
        name: [] for name in ways}
    for _ in range(options.runs):
        for name, argv in ways.items():
            times[name].append(own_clock(argv, env))
    print(f"{options.runs} interleaved runs of {TARGET.name} rounds={options.rounds}, "
          f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    print_table(times)
    for words in (["hot"], ["callers", "is_word"], ["hot", "--by", "line"]):
        found = [timed([*DBG, *words], env) for _ in range(options.runs)]
        print(f"dbg {' '.join(words):26} {statistics.median(found) * 1000:7.0f} ms "
              f"(a whole dbg command)")


if __name__ == "__main__":
    main()
