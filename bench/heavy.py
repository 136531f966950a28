"""The first breakpoint after heavy imports (issue 44): a program that
imports numpy and pandas, then a breakpoint on the line after. Interleaved,
each run a new start:

* ``bare``: the program run to its end without a debugger (it ends a line
  after the breakpoint's): what its imports cost;
* ``floor``: dbg's debugpy adapter (as bench/s1.py's floor runs it, with
  dbg's fixes of debugpy in the program) driven by bench/dapfloor.py's
  client in this process: initialize, launch, the breakpoint,
  configurationDone, the stop and its snapshot (stack, scopes, locals), and
  nothing more in the launch than the program, its interpreter and dbg's
  environment;
* ``floor+settings``: the same, with the launch settings dbg sends as well
  (dbg_dap.debugpy.launching: subProcess, showReturnValue, the rules, the
  uncaught-exception filter): what they cost, apart from dbg's own;
* ``dbg``: ``dbg start --backend debugpy --python P --break prog.py:LINE
  --run prog.py`` until it answers the stop (which carries the snapshot),
  each run in a new session of one DBG_HOME (the last one killed first,
  unmeasured).

Wall time, medians (min-max), the ratios to the floor, and the goal's
verdict: dbg within 1.2 x its floor.

    .venv/bin/python bench/heavy.py [--runs 7] [--python PATH|VERSION] [--light]
        [--code CHECKOUT ...]

``--python``: the program's interpreter, default 3.12, the benchmarks' venv
with numpy and pandas (made on first use: bench/venvs.py). ``--light``:
this interpreter and a program of light imports (json, decimal), which the
test suite runs (it must not need numpy); so is one whose interpreter
cannot import numpy and pandas (said in the table's title). ``--code``:
a ``dbg`` column for each checkout named (its bin/dbg, dbgcore and plugins
first on PYTHONPATH), so that before and after a change run interleaved.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[1:1] = [str(ROOT), str(ROOT / "plugins")]

import venvs  # noqa: E402 (bench/venvs.py)
from dapfloor import FloorClient, marks  # noqa: E402

MODES = ("bare", "floor", "floor+settings", "dbg")
GOAL = 1.2
PYBOOT = ROOT / "plugins" / "dbg_dap" / "pyboot"

HEAVY = textwrap.dedent('''\
    import numpy
    import pandas

    frame = pandas.DataFrame({"a": numpy.arange(3)})
    total = int(frame["a"].sum())  # @stop
    print(total)
    ''')
LIGHT = textwrap.dedent('''\
    import decimal
    import json

    frame = json.loads(json.dumps({"a": [0, 1, 2]}))
    total = int(sum(decimal.Decimal(n) for n in frame["a"]))  # @stop
    print(total)
    ''')


def dbg_command(code: Path | None = None) -> list[str]:
    return [sys.executable, str((code or ROOT) / "bin" / "dbg")]


def run_bare(python: str, program: Path, home: Path) -> float:
    begin = time.perf_counter()
    done = subprocess.run([python, str(program)], cwd=program.parent, capture_output=True,
                          text=True, timeout=300)
    took = time.perf_counter() - begin
    if done.returncode != 0 or done.stdout.strip() != "3":
        raise SystemExit(f"bare {program}: exit {done.returncode}\n{done.stdout}{done.stderr}")
    return took


def floor_env(home: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The adapter's environment and the program's, as bench/s1.py's floor
    has them (dbg's fixes of debugpy, debugpy's bytecode from dbg's cache)."""
    import debugpy

    from dbgcore.transport import peers

    cache = {"DBG_PYC_DIR": str(home / "pyc"),
             "DBG_DEBUGPY_ROOT": str(Path(debugpy.__file__).resolve().parent)}
    (home / "pyc").mkdir(parents=True, exist_ok=True, mode=0o700)
    program = {"PYTHONPATH": str(PYBOOT), "DBG_TCP_NODELAY": "1", "DBG_PYDEVD_END": "1",
               "DBG_PYDEVD_START": "1", "DBG_DEBUGPY_QUIET": "1", **cache}
    adapter = {**os.environ, "DBG_PEERS": str(peers.__file__),
               "DBG_SESSION_PID": str(os.getpid()), "DBG_LAUNCHER_PYTHONPATH": str(PYBOOT),
               **cache}
    return adapter, program


def run_floor(settings: bool) -> Any:
    def run(python: str, program: Path, home: Path) -> float:
        from dbg_dap.debugpy import DEBUGPY_ADAPTER

        from dbgcore.transport.dap.adapter import AdapterProcess, PipeTransport

        adapter_env, program_env = floor_env(home)
        line = marks(program)["stop"]
        begin = time.perf_counter()
        process = AdapterProcess([sys.executable, DEBUGPY_ADAPTER], name="debugpy",
                                 env=adapter_env)
        client = FloorClient(process, PipeTransport(process), "debugpy")
        try:
            client.request("initialize", {"adapterID": "debugpy", "linesStartAt1": True,
                                          "columnsStartAt1": True, "pathFormat": "path"})
            arguments: dict[str, Any] = {
                "program": str(program), "cwd": str(program.parent), "python": [python],
                "console": "internalConsole", "justMyCode": False, "env": program_env}
            if settings:
                # What dbg's launch adds (dbg_dap.debugpy.launching).
                arguments.update(subProcess=True, redirectOutput=True, showReturnValue=True,
                                 rules=[{"path": str(PYBOOT), "include": False}])
            pending = client.channel.send_request("launch", arguments)
            client.initialized.wait(60)
            client.request("setBreakpoints", {"source": {"path": str(program)},
                                              "breakpoints": [{"line": line}]})
            client.request("setExceptionBreakpoints",
                           {"filters": ["uncaught"] if settings else []})
            client.request("configurationDone")
            pending.wait(60)
            if not client.stopped.wait(60):
                raise SystemExit(f"floor: no stop at {program.name}:{line}")
            client.snapshot()
            took = time.perf_counter() - begin
        finally:
            client.close()
        return took

    return run


SESSIONS = iter(range(1, 1 << 30))


def run_dbg(python: str, program: Path, home: Path, code: Path | None = None) -> float:
    line = marks(program)["stop"]
    env = {**os.environ, "DBG_HOME": str(home), "DBG_SESSION": f"heavy-{next(SESSIONS)}"}
    if code is not None:
        env["PYTHONPATH"] = f"{code}{os.pathsep}{code / 'plugins'}"
        home = home.with_name(f"{home.name}-{code.name}")
        env["DBG_HOME"] = str(home)
    begin = time.perf_counter()
    done = subprocess.run([*dbg_command(code), "--json", "start", "--backend", "debugpy",
                           "--python", python, "--break", f"{program.name}:{line}", "--run",
                           program.name], cwd=program.parent, env=env, capture_output=True,
                          text=True, timeout=300)
    took = time.perf_counter() - begin
    subprocess.run([*dbg_command(code), "kill"], env=env, capture_output=True)
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        answer = {}
    where = (answer.get("location") or {}).get("line")
    if (answer.get("state"), where) != ("stopped", line):
        raise SystemExit(f"dbg start: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return took


RUNNERS = {"bare": run_bare, "floor": run_floor(False), "floor+settings": run_floor(True),
           "dbg": run_dbg}


def cell(times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return f"{statistics.median(ms):.0f} ({min(ms):.0f}-{max(ms):.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--python", default="3.12",
                        help="the program's interpreter: a path, or a version (default 3.12)")
    parser.add_argument("--light", action="store_true",
                        help="light imports on this interpreter (a check that the bench runs)")
    parser.add_argument("--code", type=Path, action="append",
                        help="a dbg column for this checkout (repeatable)")
    args = parser.parse_args()
    modes = list(MODES)
    for code in args.code or []:
        checkout = code.resolve()
        modes.append(f"dbg {checkout.name}")
        RUNNERS[modes[-1]] = (lambda c: lambda py, prog, home: run_dbg(py, prog, home, c))(
            checkout)
    python = sys.executable if args.light else venvs.python_for(args.python)
    heavy = not args.light and subprocess.run(
        [python, "-c", "import numpy, pandas"], capture_output=True).returncode == 0
    work = Path(tempfile.mkdtemp(prefix="dbg-bench-heavy-"))
    home = work / "home"
    program = work / "prog" / "prog.py"
    program.parent.mkdir()
    program.write_text(HEAVY if heavy else LIGHT)
    times: dict[str, list[float]] = {m: [] for m in modes}
    load = os.getloadavg()[0]
    try:
        # One unmeasured round: the bytecode of the program's imports and
        # of dbg's cache of debugpy's, as a user's second day has them.
        for mode in modes:
            RUNNERS[mode](python, program, home)
        for _ in range(args.runs):
            for mode in modes:
                time.sleep(0.5)
                times[mode].append(RUNNERS[mode](python, program, home))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    imports = "numpy and pandas" if heavy else "json and decimal (light)"
    print(f"The first breakpoint after importing {imports}, ms, median (min-max) of "
          f"{args.runs} interleaved runs; Python {venvs.version_of(python)}; load average "
          f"{load:.2f} before, {os.getloadavg()[0]:.2f} after")
    print()
    print("| " + " | ".join(modes) + " |")
    print("|" + "---:|" * len(modes))
    print("| " + " | ".join(cell(times[m]) for m in modes) + " |")
    floor = statistics.median(times["floor"])
    ratios = {m: statistics.median(times[m]) / floor for m in modes}
    print()
    print(f"against the floor: floor+settings {ratios['floor+settings']:.2f} x, "
          + ", ".join(f"{m} {ratios[m]:.2f} x" for m in modes if m.startswith("dbg"))
          + f"; bare {ratios['bare']:.2f} x")
    print(f"goal: dbg <= {GOAL} x the floor: "
          + ("met" if ratios["dbg"] <= GOAL else "**not met**"))


if __name__ == "__main__":
    main()
