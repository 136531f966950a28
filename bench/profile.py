"""What profiling costs a program: the slow Python target
(tests/targets/slow/regexes.py, a fixed work of ``--rounds`` rounds) run
bare, under py-spy and under cProfile as `dbg profile` runs them, and the
whole `dbg profile` command (the profiler's start, reading its file,
storing the run), interleaved, ``--runs`` times each; then how long `dbg
hot` and `dbg callers` take to answer from the stored profile.

Wall time in seconds, medians with the spread (min-max), and each as a
ratio to the bare run's median (the issue's bounds: sampling at most 1.05 x,
a deterministic profile at most 1.3 x).

    .venv/bin/python bench/profile.py [--runs 5] [--rounds 400]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "tests" / "targets" / "slow" / "regexes.py"
DBG = [sys.executable, str(ROOT / "bin" / "dbg")]
PYSPY = Path(sys.executable).parent / "py-spy"


def timed(argv: list[str], env: dict[str, str]) -> float:
    began = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--python", default="python3")
    options = parser.parse_args()
    from dbgcore.api import real_python

    # As dbg runs it: a version manager's shim resolved to its interpreter.
    options.python = real_python(options.python, os.environ, None)
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
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(options.runs):
        for name, argv in ways.items():
            times[name].append(timed(argv, env))
    bare = statistics.median(times["bare"])
    print(f"{options.runs} interleaved runs of {TARGET.name} rounds={options.rounds}, "
          f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    print(f"{'':30} {'median s':>9} {'min-max':>13} {'/ bare':>7}")
    for name, found in times.items():
        median = statistics.median(found)
        print(f"{name:30} {median:9.3f} {min(found):6.3f}-{max(found):<6.3f} "
              f"{median / bare:6.2f} x")
    for words in (["hot"], ["callers", "is_word"], ["hot", "--by", "line"]):
        found = [timed([*DBG, *words], env) for _ in range(options.runs)]
        print(f"dbg {' '.join(words):26} {statistics.median(found) * 1000:7.0f} ms "
              f"(a whole dbg command)")


if __name__ == "__main__":
    main()
