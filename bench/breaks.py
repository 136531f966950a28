"""`dbg start` with 10, 100 and 1,000 breakpoints in one file: whole CLI
calls, the code under test against main's (or the installed dbg), interleaved,
medians. Usage: python bench/breaks.py [--small] [--backends pdb,debugpy]"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _start(home: Path, program: Path, backend: str, n: int) -> float:
    env = {**os.environ, "DBG_HOME": str(home)}
    args = [sys.executable, "-m", "dbgcore", "start", "--backend", backend]
    for line in range(1, n + 1):
        args += ["--break", f"{program}:{line}"]
    began = time.perf_counter()
    done = subprocess.run([*args, "--run", str(program)], env=env, capture_output=True,
                          text=True, timeout=600)
    spent = time.perf_counter() - began
    subprocess.run([sys.executable, "-m", "dbgcore", "kill"], env=env, capture_output=True,
                   timeout=60)
    if done.returncode != 0:
        raise SystemExit(f"{backend} {n}: {done.stdout}{done.stderr}")
    return spent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--backends", default="pdb,debugpy,gdb")
    parser.add_argument("--runs", type=int, default=3)
    opts = parser.parse_args()
    sizes = [3, 10] if opts.small else [10, 100, 1000]
    runs = 1 if opts.small else opts.runs
    with tempfile.TemporaryDirectory(prefix="dbg-") as tmp:
        program = Path(tmp) / "lines.py"
        program.write_text("".join(f"x{i} = {i}\n" for i in range(max(sizes))))
        times: dict[tuple[str, int], list[float]] = {}
        for _ in range(runs):
            for backend in opts.backends.split(","):
                for n in sizes:
                    home = Path(tmp) / "h"
                    times.setdefault((backend, n), []).append(
                        _start(home, program, backend, n))
        for (backend, n), spent in times.items():
            print(f"{backend:8} {n:5} breakpoints: {statistics.median(spent) * 1000:8.0f} ms")


if __name__ == "__main__":
    main()
