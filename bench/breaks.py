"""`dbg start` with 10, 100 and 1,000 breakpoints in one file, against the
floor: the debugger alone, driven as directly as it can be (DAP backends:
a bare client sending one ``setBreakpoints`` with every line, as
bench/s1.py's floor does for S1; pdb: pexpect typing ``break FILE:LINE``
commands, each as soon as the last answered; jdb: the same with ``stop at
Class:LINE`` at main's first stop, the class compiled beforehand for both).
Each time is from nothing to the first breakpoint's stop, the debugger and
program started and the breakpoints set; floor and dbg runs interleaved,
medians, with the ratio.

Usage: python bench/breaks.py [--small] [--backends pdb,debugpy,gdb,lldb,jdb] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _programs(folder: Path, count: int) -> dict[str, tuple[Path, Path, list[int]]]:
    """For each language, (what to run, the source, its breakable lines)."""
    py = folder / "lines.py"
    py.write_text("".join(f"x{i} = {i}\n" for i in range(count)))
    c = folder / "lines.c"
    body = "".join(f"    x += {i};\n" for i in range(count))
    c.write_text("int main(void) {\n    volatile int x = 0;\n" + body + "    return x & 1;\n}\n")
    out: dict[str, tuple[Path, Path, list[int]]] = {
        "py": (py, py, list(range(1, count + 1)))}
    if shutil.which("gcc"):
        binary = folder / "lines"
        subprocess.run(["gcc", "-g", "-O0", str(c), "-o", str(binary)], check=True)
        out["c"] = (binary, c, list(range(3, count + 3)))
    if shutil.which("javac") and shutil.which("jdb"):
        java = folder / "Lines.java"
        body = "".join(f"        x += {i};\n" for i in range(count))
        java.write_text("public class Lines {\n    public static void main(String[] args) {\n"
                        "        int x = 0;\n" + body + "        System.exit(x & 1);\n    }\n}\n")
        subprocess.run(["javac", "-g", "-d", str(folder), str(java)], check=True)
        out["java"] = (folder / "Lines.class", java, list(range(4, count + 4)))
    return out


def _language(backend: str) -> str:
    return {"pdb": "py", "debugpy": "py", "jdb": "java"}.get(backend, "c")


def dbg_start(home: Path, program: Path, source: Path, backend: str, lines: list[int]) -> float:
    """A whole `dbg start --break ... --run` (the CLI, its daemon, the
    debugger): seconds to its answer, the first stop."""
    env = {**os.environ, "DBG_HOME": str(home)}
    args = [sys.executable, "-m", "dbgcore", "--timeout", "300", "start", "--backend", backend]
    for line in lines:
        args += ["--break", f"{source}:{line}"]
    began = time.perf_counter()
    done = subprocess.run([*args, "--run", str(program)], env=env, capture_output=True,
                          text=True, timeout=600, cwd=source.parent)
    spent = time.perf_counter() - began
    subprocess.run([sys.executable, "-m", "dbgcore", "kill"], env=env, capture_output=True,
                   timeout=60)
    if done.returncode != 0 or "stopped" not in done.stdout:
        raise SystemExit(f"dbg {backend} {len(lines)}: {done.stdout[-400:]}{done.stderr}")
    return spent


def floor_pdb(program: Path, lines: list[int]) -> float:
    """pdb alone: its `break` typed N times, then `continue` to the first."""
    import pexpect

    began = time.perf_counter()
    child = pexpect.spawn(sys.executable, ["-m", "pdb", program.name], cwd=str(program.parent),
                          echo=False, encoding="utf-8", timeout=300,
                          env={**os.environ, "TERM": "dumb"})
    child.delaybeforesend = None
    try:
        child.expect(r"\(Pdb\) ")
        for line in lines:
            child.sendline(f"break {program.name}:{line}")
            child.expect(r"Breakpoint \d+ at .*\(Pdb\) ")
        child.sendline("continue")
        child.expect(r"\(Pdb\) ")
        return time.perf_counter() - began
    finally:
        child.close(force=True)


def floor_jdb(program: Path, lines: list[int]) -> float:
    """jdb alone: stopped at main's start, its `stop at` typed N times (each
    as soon as the last answered), then `cont` to the first."""
    import pexpect

    name = program.stem
    began = time.perf_counter()
    child = pexpect.spawn(shutil.which("jdb") or "jdb",
                          ["-classpath", str(program.parent), "-sourcepath",
                           str(program.parent), name],
                          cwd=str(program.parent), echo=False, encoding="utf-8", timeout=300,
                          env={**os.environ, "TERM": "dumb"})
    child.delaybeforesend = None
    prompt = r"\S+\[\d+\] "
    try:
        child.expect("> ")
        child.sendline(f"stop in {name}.main")
        child.expect("> ")
        child.sendline("run")
        child.expect(r"Breakpoint hit:[^\n]*\n(?:.*\n)*?" + prompt)
        for line in lines:
            child.sendline(f"stop at {name}:{line}")
            child.expect(rf"Set breakpoint {name}:{line}\r?\n" + prompt)
        child.sendline("cont")
        child.expect(r"Breakpoint hit:[^\n]*line=" + str(lines[0]) + r"\D(?:.*\n)*?" + prompt)
        return time.perf_counter() - began
    finally:
        child.close(force=True)


def floor_dap(backend: str, program: Path, source: Path, lines: list[int]) -> float:
    """The adapter alone: one setBreakpoints with every line, then the run
    to the first stop (bench/s1.py's floor client and its launch)."""
    from s1 import DapFloor, Target

    began = time.perf_counter()
    floor = DapFloor(Target(backend, program, source, lines[0]))
    try:
        floor.request("initialize", {"adapterID": backend, "linesStartAt1": True,
                                     "columnsStartAt1": True, "pathFormat": "path"})
        arguments: dict[str, Any] = {"program": str(program)}
        if backend == "debugpy":
            arguments.update(console="internalConsole", justMyCode=False, env=floor.env)
        pending = floor.channel.send_request("launch", arguments)
        floor.initialized.wait(30)
        floor.request("setBreakpoints", {"source": {"path": str(source)},
                                         "breakpoints": [{"line": n} for n in lines]},
                      timeout=300)
        floor.request("setExceptionBreakpoints", {"filters": []})
        floor.request("configurationDone")
        pending.wait(60)
        if not floor.stopped.wait(300):
            raise SystemExit(f"floor {backend} {len(lines)}: no stop")
        return time.perf_counter() - began
    finally:
        floor.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--backends", default="pdb,debugpy,gdb,lldb")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-floor", action="store_true")
    opts = parser.parse_args()
    sizes = [3, 10] if opts.small else [10, 100, 1000]
    runs = 1 if opts.small else opts.runs
    backends = opts.backends.split(",")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="dbg-") as tmp:
        programs = _programs(Path(tmp), max(sizes))
        times: dict[tuple[str, int, str], list[float]] = {}
        for _ in range(runs):
            for backend in backends:
                if _language(backend) not in programs:
                    continue
                program, source, breakable = programs[_language(backend)]
                for n in sizes:
                    lines = breakable[:n]
                    if not opts.no_floor:
                        spent = floor_pdb(program, lines) if backend == "pdb" else \
                            floor_jdb(program, lines) if backend == "jdb" else \
                            floor_dap(backend, program, source, lines)
                        times.setdefault((backend, n, "floor"), []).append(spent)
                    times.setdefault((backend, n, "dbg"), []).append(
                        dbg_start(Path(tmp) / "h", program, source, backend, lines))
        print(f"{'backend':8} {'breaks':>6} {'floor ms':>9} {'dbg ms':>9} {'ratio':>6}"
              f" {'growth':>7}  (growth: dbg's time past the smallest size / the floor's)")
        for backend in backends:
            for n in sizes:
                mine = times.get((backend, n, "dbg"))
                if not mine:
                    continue
                ours = statistics.median(mine) * 1000
                base = times.get((backend, n, "floor"))
                floor = statistics.median(base) * 1000 if base else None
                ratio = f"{ours / floor:6.2f}" if floor else "     -"
                shown = f"{floor:9.0f}" if floor else "        -"
                # What the breakpoints past the smallest size cost, dbg's
                # against the floor's: the ratio without either's fixed start.
                first = sizes[0]
                grown = ""
                if base and n != first and times.get((backend, first, "floor")):
                    floor_grew = floor - statistics.median(times[(backend, first, "floor")]) * 1000
                    ours_grew = ours - statistics.median(times[(backend, first, "dbg")]) * 1000
                    # A floor that did not grow (noise at small sizes): no ratio.
                    grown = f" {ours_grew / floor_grew:7.2f}" if floor_grew > 0 else \
                        f" {'-':>7}"
                print(f"{backend:8} {n:6} {shown} {ours:9.0f} {ratio}{grown:8}"
                      f"  ({n} breakpoints, {len(mine)} runs)")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
