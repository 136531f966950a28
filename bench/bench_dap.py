"""Measure what dbg's daemon adds on top of a debug adapter's own latency.

The same scenario runs two ways:

* through the `dbg` CLI, one short client process per op, as an agent would:
  start with a breakpoint, N x `next` (each answered with a stop snapshot:
  location, source, locals), `locals`, `print`, `continue` to the end;
* through a minimal in-process DAP client (dbgcore.dap.channel) that sends
  the same requests a stop snapshot needs (next -> stopped -> stackTrace ->
  scopes -> variables), with no daemon and no process per op: the floor.

For debugpy it also runs with and without the TCP_NODELAY fix dbg applies to
debugpy's debuggee->adapter socket. Prints per-op medians (ms) and ratios.

    .venv/bin/python bench/bench_dap.py [--backend debugpy] [--steps 50]
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

from dbgcore.dap.transport import AdapterProcess, PipeTransport  # noqa: E402

TARGET = ROOT / "bench" / "target_loop.py"
PYBOOT = ROOT / "plugins" / "dbg_dap" / "pyboot"


# -- through the CLI -------------------------------------------------------------


def cli_scenario(backend: str, steps: int, nodelay: bool,
                 in_process: bool = False) -> dict[str, list[float]]:
    """With ``in_process``, ops after start go through dbgcore.client from this
    process: the daemon's own cost, without a Python start per op."""
    work = Path(tempfile.mkdtemp(prefix="dbg-bench-"))
    shutil.copy(TARGET, work / TARGET.name)
    (work / ".dbg").mkdir()
    (work / ".dbg" / "backends.yaml").write_text(
        f"backends:\n  {backend}:\n    options:\n      tcp_nodelay: {str(nodelay).lower()}\n")
    env = {**os.environ, "DBG_HOME": str(work / "home")}
    dbg = [str(Path(sys.executable).parent / "dbg")]
    times: dict[str, list[float]] = {}

    def run(op: str, *args: str) -> dict[str, Any]:
        begin = time.perf_counter()
        if in_process and op != "start":
            from dbgcore import client

            os.environ["DBG_HOME"] = env["DBG_HOME"]
            wire = {"print": {"expression": " ".join(args[1:])}, "unbreak": {"target": args[-1]}}
            data = client.call("default", op, wire.get(op, {}), 30)
            times.setdefault(op, []).append(time.perf_counter() - begin)
            if not data.get("ok"):
                raise SystemExit(f"{op} failed: {data}")
            return data
        proc = subprocess.run([*dbg, "--json", *args], cwd=work, env=env,
                              capture_output=True, text=True)
        times.setdefault(op, []).append(time.perf_counter() - begin)
        data = json.loads(proc.stdout)
        if not data.get("ok"):
            raise SystemExit(f"{op} failed: {data}")
        return data

    line = marks(TARGET)["step"]
    try:
        run("start", "start", "--backend", backend, "--break", f"{TARGET.name}:{line}",
            "--run", TARGET.name)
        for _ in range(steps):
            run("next", "next")
        run("locals", "locals")
        run("print", "print", "total + i")
        run("unbreak", "unbreak", "1")
        run("continue", "continue")
    finally:
        subprocess.run([*dbg, "kill"], cwd=work, env=env, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    python_start = []
    for _ in range(5):
        begin = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"])
        python_start.append(time.perf_counter() - begin)
    times["python -c pass"] = python_start
    return times


# -- the in-process floor ------------------------------------------------------------


class Floor(FloorClient):
    """The floor for debugpy, with or without the TCP_NODELAY fix."""

    def __init__(self, nodelay: bool) -> None:
        env = dict(os.environ)
        if nodelay:
            env["PYTHONPATH"] = str(PYBOOT)
            env["DBG_TCP_NODELAY"] = "1"
        self.env = env
        process = AdapterProcess([sys.executable, "-m", "debugpy.adapter"], name="debugpy")
        super().__init__(process, PipeTransport(process), "debugpy")


def floor_scenario(steps: int, nodelay: bool) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {}

    def timed(op: str, action: Callable[[], None]) -> None:
        begin = time.perf_counter()
        action()
        times.setdefault(op, []).append(time.perf_counter() - begin)

    line = marks(TARGET)["step"]
    floor = Floor(nodelay)
    try:
        def start() -> None:
            floor.channel.request("initialize", {"adapterID": "debugpy", "linesStartAt1": True,
                                                 "columnsStartAt1": True, "pathFormat": "path"})
            pending = floor.channel.send_request("launch", {
                "program": str(TARGET), "console": "internalConsole", "justMyCode": False,
                "env": {k: v for k, v in floor.env.items() if k == "PYTHONPATH"}})
            # debugpy sends initialized only after it has the launch request.
            floor.initialized.wait(30)
            floor.channel.request("setBreakpoints", {
                "source": {"path": str(TARGET)}, "breakpoints": [{"line": line}]})
            floor.channel.request("setExceptionBreakpoints", {"filters": []})
            floor.channel.request("configurationDone")
            pending.wait(30)
            floor.stopped.wait(30)
            floor.snapshot()

        timed("start", start)
        for _ in range(steps):
            timed("next", lambda: (floor.resume("next"), floor.snapshot()))
        timed("locals", floor.snapshot)
        timed("print", lambda: floor.channel.request("evaluate", {
            "expression": "total + i", "context": "watch", "frameId": floor.frame_id}) and None)
        timed("unbreak", lambda: floor.channel.request("setBreakpoints", {
            "source": {"path": str(TARGET)}, "breakpoints": []}) and None)
        timed("continue", lambda: floor.resume("continue"))
    finally:
        floor.close()
    return times


def table(title: str, rows: dict[str, tuple[float, ...]], headers: tuple[str, ...]) -> str:
    out = [f"\n{title}", "| op | " + " | ".join(headers) + " |",
           "|---|" + "---:|" * len(headers)]
    for op, values in rows.items():
        out.append(f"| {op} | " + " | ".join(f"{v:.1f}" if v == v else "-" for v in values)
                   + " |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="debugpy")
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    results = {}
    for nodelay in (False, True):
        results[("cli", nodelay)] = cli_scenario(args.backend, args.steps, nodelay)
        results[("floor", nodelay)] = floor_scenario(args.steps, nodelay)
    results[("daemon", True)] = cli_scenario(args.backend, args.steps, True, in_process=True)
    ops = ["start", "next", "locals", "print", "unbreak", "continue"]
    rows = {}
    for op in ops:
        stock_cli, fixed_cli = ms(results[("cli", False)][op]), ms(results[("cli", True)][op])
        stock_floor = ms(results[("floor", False)][op])
        fixed_floor = ms(results[("floor", True)][op])
        daemon = ms(results[("daemon", True)][op])
        rows[op] = (stock_floor, stock_cli, fixed_floor, daemon, fixed_cli,
                    daemon - fixed_floor)
    rows["python -c pass"] = (float("nan"),) * 4 + (ms(results[("cli", True)]["python -c pass"]),
                                                    float("nan"))
    print(table(f"{args.backend}, median ms per op ({args.steps} x next)", rows,
                ("floor, stock", "dbg CLI, stock", "floor, NODELAY", "daemon, NODELAY",
                 "dbg CLI, NODELAY", "daemon - floor")))


if __name__ == "__main__":
    main()
