"""What huge values and runaway expressions cost: `print` of a
1,000,000-element list and a 10 MB string on pdb (and debugpy, for
comparison), `print` of a 100,000-element struct array on gdb, and how long
a runaway expression (`spin()`, which never returns) takes to be
interrupted at `--timeout 1` and the next command to answer.

    .venv/bin/python bench/bounds.py [--runs N]

Each `dbg` call is a real CLI process from another folder. Prints the median
milliseconds and the answer's size in bytes.
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

#: The programs of tests/faults/test_bounds.py: huge values, and a function that never returns.
HUGE = Path(__file__).resolve().parents[1] / "tests" / "targets" / "bounds"


def dbg(*args: str, env: dict[str, str], cwd: Path) -> tuple[float, str]:
    begin = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "dbg"), *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300)
    return (time.perf_counter() - begin) * 1000, done.stdout + done.stderr


def one_run(backend: str) -> dict[str, tuple[float, int]]:
    work = Path(tempfile.mkdtemp(prefix="dbg-bounds-"))
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "DBG_HOME": str(work / "home"), "DBG_SESSION": "b"}
    if backend == "gdb":
        source = work / "arr.c"
        source.write_text((HUGE / "huge.c").read_text())
        subprocess.run(["gcc", "-g", "-O0", str(source), "-o", str(work / "arr")], check=True)
        program = work / "arr"
        prints = ["items"]
    else:
        source = work / "big.py"
        source.write_text((HUGE / "huge.py").read_text())
        program = source
        prints = ["items", "text"]
    line = next(n for n, t in enumerate(source.read_text().splitlines(), 1) if "@here" in t)
    found: dict[str, tuple[float, int]] = {}
    try:
        _, out = dbg("start", "--backend", backend, "--break", f"{source}:{line}", "--run",
                     str(program), env=env, cwd=elsewhere)
        for expression in prints:
            took, out = dbg("print", expression, env=env, cwd=elsewhere)
            found[f"print {expression}"] = (took, len(out.encode()))
        took, out = dbg("--timeout", "1", "print", "spin()", env=env, cwd=elsewhere)
        found["runaway at --timeout 1"] = (took, len(out.encode()))
        took, out = dbg("print", "items[3]", env=env, cwd=elsewhere)
        found["next print"] = (took, len(out.encode()))
    finally:
        dbg("kill", env=env, cwd=elsewhere)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("backends", nargs="*", default=["pdb", "debugpy", "gdb"])
    args = parser.parse_args()
    for backend in args.backends:
        runs = [one_run(backend) for _ in range(args.runs)]
        for name in runs[0]:
            ms = statistics.median(r[name][0] for r in runs)
            size = max(r[name][1] for r in runs)
            print(f"{backend:8} {name:24} {ms:8.0f} ms {size:9d} bytes")


if __name__ == "__main__":
    main()
