"""What a 10,000,000-element array costs on gdb and lldb: `vars`, `print`
and `locals` about it (tests/targets/bounds/vast.c), each answer's
milliseconds and bytes, and the debugger's RSS before and after them all.

    .venv/bin/python bench/vast.py [--backend gdb|lldb]...

Each `dbg` call is a real CLI process. RSS is the sum of the session
daemon's children other than the program (gdb; lldb-dap).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dbgcore.testing import debugger_rss_kb, marked_lines

VAST = Path(__file__).resolve().parents[1] / "tests" / "targets" / "bounds" / "vast.c"
OPS = (["vars", "arr"], ["--json", "vars", "arr"], ["print", "arr"], ["vars", "big"],
       ["print", "big"], ["locals"], ["vars", "arr", "--start", "9999998"],
       ["print", "arr[9999999]"], ["next"])


def dbg(*args: str, env: dict[str, str]) -> tuple[float, str]:
    begin = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "dbg"), *args], env=env,
                          capture_output=True, text=True, timeout=300)
    return (time.perf_counter() - begin) * 1000, done.stdout + done.stderr


def one_backend(backend: str) -> None:
    work = Path(tempfile.mkdtemp(prefix="dbg-vast-"))
    source = work / "vast.c"
    source.write_text(VAST.read_text())
    program = work / "vast"
    subprocess.run(["gcc", "-g", "-O0", str(source), "-o", str(program)], check=True)
    home = work / "home"
    env = {**os.environ, "DBG_HOME": str(home)}
    line = marked_lines(source)["here"]
    try:
        dbg("start", "--backend", backend, "--break", f"{source}:{line}", "--run",
            str(program), env=env)
        before = debugger_rss_kb(home, program)
        for args in OPS:
            took, out = dbg(*args, env=env)
            print(f"{backend:5} {' '.join(args):32} {took:7.0f} ms {len(out.encode()):6} B")
        after = debugger_rss_kb(home, program)
        print(f"{backend:5} debugger RSS {before} kB before, {after} kB after")
    finally:
        dbg("kill", env=env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append", choices=["gdb", "lldb"])
    for backend in parser.parse_args().backend or ["gdb", "lldb"]:
        one_backend(backend)


if __name__ == "__main__":
    main()
