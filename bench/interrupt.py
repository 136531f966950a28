"""How fast a second client is answered while a first one blocks in
`dbg continue` on a program that never stops: `status`, and the `pause`
that ends the wait (the pause's stop is also the continue's answer).

    .venv/bin/python bench/interrupt.py [--runs N] [BACKEND...]

Each `dbg` call is a real CLI process (bin/dbg, from another folder); the
programs are tests/targets/spin. Prints the median milliseconds per backend.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPIN = ROOT / "tests" / "targets" / "spin"
PROGRAMS = {"pdb": "spin.py", "debugpy": "spin.py", "gdb": "spin.c", "lldb": "spin.c",
            "dlv": "go", "jdb": "Spin.java", "node": "spin.js", "perl": "spin.pl"}


def dbg(*args: str, env: dict[str, str], cwd: Path) -> tuple[float, dict[str, object]]:
    begin = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "dbg"), "--json", *args],
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    took = (time.perf_counter() - begin) * 1000
    return took, json.loads(done.stdout)


def program(backend: str, work: Path) -> Path:
    source = SPIN / PROGRAMS[backend]
    if source.is_dir():
        return Path(shutil.copytree(source, work / "spin"))
    copy = Path(shutil.copy(source, work))
    if copy.suffix == ".c":
        subprocess.run(["gcc", "-g", "-O0", str(copy), "-o", str(work / "spin")], check=True)
        return work / "spin"
    return copy


def one_run(backend: str) -> tuple[float, float]:
    work = Path(tempfile.mkdtemp(prefix="dbg-interrupt-"))
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    env = {**__import__("os").environ, "DBG_HOME": str(work / "home"), "DBG_SESSION": "b"}
    try:
        _, started = dbg("start", "--backend", backend, str(program(backend, work)),
                         env=env, cwd=elsewhere)
        if started.get("state") != "stopped":
            raise SystemExit(f"{backend}: start: {started}")
        blocked = subprocess.Popen([str(Path(sys.executable).parent / "dbg"), "continue"],
                                   env=env, cwd=elsewhere, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        for _ in range(300):
            _, status = dbg("status", env=env, cwd=elsewhere)
            if status.get("busy") == "continue":
                break
            time.sleep(0.02)
        time.sleep(0.5)  # well into the run
        status_ms, status = dbg("status", env=env, cwd=elsewhere)
        pause_ms, paused = dbg("pause", env=env, cwd=elsewhere)
        if paused.get("reason") != "pause":
            raise SystemExit(f"{backend}: pause: {paused}")
        blocked.wait(timeout=60)
        return status_ms, pause_ms
    finally:
        subprocess.run([str(Path(sys.executable).parent / "dbg"), "kill"], env=env,
                       capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("backends", nargs="*", default=list(PROGRAMS))
    options = parser.parse_args()
    print("| backend | status while continue blocks (ms) | pause (ms) |")
    print("|---|---:|---:|")
    for backend in options.backends:
        runs = [one_run(backend) for _ in range(options.runs)]
        print(f"| {backend} | {statistics.median(r[0] for r in runs):.0f} "
              f"| {statistics.median(r[1] for r in runs):.0f} |", flush=True)


if __name__ == "__main__":
    main()
