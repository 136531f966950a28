"""bench_dap.py's scenario on the native debuggers: gdb, lldb-dap and delve.

The same scenario runs three ways on a small C (gdb, lldb) or Go (delve)
loop, built here with debug info:

* *dbg CLI*: one `dbg --json` process per op, as an agent calls it: start
  with a breakpoint and --run, N x `next` (each answered with a stop
  snapshot: location, source, locals), `locals`, `print`, `unbreak`,
  `continue` to the end;
* *daemon*: the same ops through the session daemon from this process
  (dbgcore.client), without a Python start per op;
* *floor*: a minimal in-process DAP client sending what a snapshot needs
  (next -> stopped -> stackTrace -> scopes -> variables), with no daemon.

    .venv/bin/python bench/bench_native.py [--backend gdb|lldb|dlv|all] [--steps 30] [--runs 3]

Prints median milliseconds per op.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "plugins"), str(ROOT / "bench")]

from dapfloor import FloorClient, marks, ms  # noqa: E402
from dbg_dap.profiles import profile_for  # noqa: E402

from dbgcore.config import load_config  # noqa: E402
from dbgcore.dap.transport import (  # noqa: E402
    LISTENING_RE,
    AdapterProcess,
    PipeTransport,
    SocketTransport,
    Transport,
    parse_listening,
)

BENCH = ROOT / "bench"
OPS = ["start", "next", "locals", "print", "unbreak", "continue"]


def build(backend: str, work: Path) -> tuple[Path, Path]:
    """The program for ``backend``, built into ``work``: (binary, source)."""
    if backend == "dlv":
        package = work / "go"
        shutil.copytree(BENCH / "target_loop_go", package)
        binary = work / "loop-go"
        subprocess.run(["go", "build", "-gcflags=all=-N -l", "-o", str(binary), "."],
                       cwd=package, check=True)
        return binary, package / "main.go"
    source = work / "target_loop.c"
    shutil.copy(BENCH / "target_loop.c", source)
    binary = work / "loop-c"
    subprocess.run(["gcc", "-g", "-O0", str(source), "-o", str(binary)], check=True)
    return binary, source


# -- through dbg ------------------------------------------------------------------------


def dbg_scenario(backend: str, steps: int, in_process: bool) -> dict[str, list[float]]:
    work = Path(tempfile.mkdtemp(prefix="dbg-bench-"))
    binary, source = build(backend, work)
    env = {**os.environ, "DBG_HOME": str(work / "home")}
    dbg = [sys.executable, "-m", "dbgcore"]
    times: dict[str, list[float]] = {}

    def run(op: str, *args: str) -> dict[str, Any]:
        begin = time.perf_counter()
        if in_process and op != "start":
            from dbgcore import client

            os.environ["DBG_HOME"] = env["DBG_HOME"]
            wire = {"print": {"expression": args[-1]}, "unbreak": {"target": args[-1]}}
            data = client.call("default", op, wire.get(op, {}), 30)
        else:
            proc = subprocess.run([*dbg, "--json", *args], cwd=work, env=env,
                                  capture_output=True, text=True)
            data = json.loads(proc.stdout)
        times.setdefault(op, []).append(time.perf_counter() - begin)
        if not data.get("ok"):
            raise SystemExit(f"{backend} {op} failed: {data}")
        return data

    line = marks(source)["step"]
    try:
        run("start", "start", "--backend", backend, "--break", f"{source}:{line}", "--run",
            str(binary))
        for _ in range(steps):
            run("next", "next")
        run("locals", "locals")
        run("print", "print", "total * 2")
        run("unbreak", "unbreak", "1")
        run("continue", "continue")
    finally:
        subprocess.run([*dbg, "kill"], cwd=work, env=env, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    return times


# -- the in-process floor -------------------------------------------------------------------


class Floor(FloorClient):
    def __init__(self, backend: str, cwd: Path) -> None:
        spec = load_config().backends[backend]
        self.backend = backend
        argv = profile_for(spec).argv()
        transport: Transport
        if backend == "dlv":
            process = AdapterProcess(argv, cwd=str(cwd), name=backend, stdio=False,
                                     on_stdout_line=lambda line: None)
            host, port = parse_listening(process.wait_stdout(LISTENING_RE, 20))
            transport = SocketTransport.connect(host, port, 10)
        else:
            process = AdapterProcess(argv, cwd=str(cwd), name=backend)
            transport = PipeTransport(process)
        super().__init__(process, transport, backend)

    def start(self, binary: Path, source: Path, line: int) -> None:
        self.channel.request("initialize", {"adapterID": self.backend, "linesStartAt1": True,
                                            "columnsStartAt1": True, "pathFormat": "path"})
        arguments: dict[str, Any] = {"program": str(binary)}
        if self.backend == "dlv":
            arguments["mode"] = "exec"
        pending = self.channel.send_request("launch", arguments)
        self.initialized.wait(30)
        self.channel.request("setBreakpoints", {"source": {"path": str(source)},
                                                "breakpoints": [{"line": line}]})
        self.channel.request("setExceptionBreakpoints", {"filters": []})
        self.channel.request("configurationDone")
        pending.wait(30)
        self.stopped.wait(30)
        self.snapshot()


def floor_scenario(backend: str, steps: int) -> dict[str, list[float]]:
    work = Path(tempfile.mkdtemp(prefix="dbg-floor-"))
    binary, source = build(backend, work)
    line = marks(source)["step"]
    times: dict[str, list[float]] = {}

    def timed(op: str, action: Callable[[], object]) -> None:
        begin = time.perf_counter()
        action()
        times.setdefault(op, []).append(time.perf_counter() - begin)

    floor = Floor(backend, source.parent)
    try:
        timed("start", lambda: floor.start(binary, source, line))
        for _ in range(steps):
            timed("next", lambda: (floor.resume("next"), floor.snapshot()))
        timed("locals", floor.snapshot)
        timed("print", lambda: floor.channel.request("evaluate", {
            "expression": "total * 2", "context": "watch", "frameId": floor.frame_id}))
        timed("unbreak", lambda: floor.channel.request("setBreakpoints", {
            "source": {"path": str(source)}, "breakpoints": []}))
        timed("continue", lambda: floor.resume("continue"))
    finally:
        floor.close(0.3)
        shutil.rmtree(work, ignore_errors=True)
    return times


def merge(runs: list[dict[str, list[float]]]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for run in runs:
        for op, samples in run.items():
            out.setdefault(op, []).extend(samples)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="all", choices=["gdb", "lldb", "dlv", "all"])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    backends = ["gdb", "lldb", "dlv"] if args.backend == "all" else [args.backend]
    print(f"median ms per op ({args.steps} x next, {args.runs} runs each)")
    print("| backend | op | floor | daemon | dbg CLI | daemon - floor |")
    print("|---|---|---:|---:|---:|---:|")
    for backend in backends:
        floor = merge([floor_scenario(backend, args.steps) for _ in range(args.runs)])
        daemon = merge([dbg_scenario(backend, args.steps, True) for _ in range(args.runs)])
        cli = merge([dbg_scenario(backend, args.steps, False) for _ in range(args.runs)])
        for op in OPS:
            row = (ms(floor[op]), ms(daemon[op]), ms(cli[op]))
            print(f"| {backend} | {op} | " + " | ".join(f"{v:.1f}" for v in row)
                  + f" | {row[1] - row[0]:.1f} |")


if __name__ == "__main__":
    main()
