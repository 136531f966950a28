"""S1 on every backend, side by side: dbg against the floor and against a peer.

The scenario S1: `start` to a breakpoint in the loop of a small ledger program
(bench/s1/, one twin per language), `locals`, one `print`, 10 x `next`,
`continue` to the program's exit. It runs

* ``floor``: a minimal in-process client of the debugger with nothing between
  it and the debugger: DAP (bench/dapfloor.py, debugpy with TCP_NODELAY) for
  debugpy, gdb, lldb and delve; pexpect typing the debugger's own commands for
  pdb and jdb (a stop is answered with the debugger's locals, as dbg answers
  one with a snapshot);
* ``daemon``: the ops through dbg's session daemon from this process
  (``dbgcore.frontend.call_op``, what `dbg mcp` does without MCP);
* ``cli``: one `dbg` process per op, run from another folder, with the
  breakpoint given by file name, as an agent calls it;
* ``mcp``: `dbg mcp` driven over stdio by the `mcp` SDK's client;
* ``peer``: `@debugmcp/mcp-debugger` 0.24.2 (installed with npm into a cache
  folder when npm is present) driven the same way, debugpy only.

Then, with ``--extra``, the memory of a session, 10 sessions at once, and
`locals` of a frame holding a 1,000,000-element list and a 10 MB string.

    .venv/bin/python bench/s1.py [--backend NAME ...] [--runs 3] [--no-peer] [--extra]

``--start-only`` times `start --break X --run` alone (floor, daemon, CLI, MCP),
each run's session ended right after the stop, and prints the medians, the
spread and the ratio to the floor.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "plugins"), str(ROOT / "bench")]

from dapfloor import FloorClient, marks  # noqa: E402

BENCH = ROOT / "bench" / "s1"
PYBOOT = ROOT / "plugins" / "dbg_dap" / "pyboot"
STEPS = ("start", "locals", "print", "10 x next", "continue", "S1")
BACKENDS = ("debugpy", "pdb", "gdb", "lldb", "dlv", "jdb")
NEXTS = 10
EXPRESSION = "balance + amount"
PEER = "@debugmcp/mcp-debugger@0.24.2"
PTY_BACKENDS = ("pdb", "jdb")
#: --start-only: each run ends after `start` (set by main()).
START_ONLY = False

Times = dict[str, float]


@dataclass
class Target:
    backend: str
    program: Path  # what `dbg start` is given
    source: Path
    line: int

    @property
    def folder(self) -> Path:
        return self.source.parent


def build(backend: str, work: Path) -> Target:
    """The ledger twin for ``backend``, built into ``work/prog``."""
    prog = work / "prog"
    prog.mkdir(parents=True)
    if backend in ("debugpy", "pdb"):
        source = prog / "ledger.py"
        shutil.copy(BENCH / "ledger.py", source)
        program = source
    elif backend in ("gdb", "lldb"):
        source = prog / "ledger.c"
        shutil.copy(BENCH / "ledger.c", source)
        program = prog / "ledger"
        subprocess.run(["gcc", "-g", "-O0", str(source), "-o", str(program)], check=True)
    elif backend == "dlv":
        shutil.copytree(BENCH / "go", prog, dirs_exist_ok=True)
        source = prog / "main.go"
        program = prog / "ledger"
        subprocess.run(["go", "build", "-gcflags=all=-N -l", "-o", str(program), "."],
                       cwd=prog, check=True)
    elif backend == "jdb":
        source = prog / "Ledger.java"
        shutil.copy(BENCH / "Ledger.java", source)
        subprocess.run(["javac", "-g", "-d", str(prog), str(source)], check=True)
        program = prog / "Ledger.class"
    else:
        raise SystemExit(f"no S1 program for backend {backend!r}")
    return Target(backend, program, source, marks(source)["loop"])


class Clock:
    """Wall time per S1 step for one run."""

    def __init__(self) -> None:
        self.times: Times = {}

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        begin = time.perf_counter()
        yield
        self.times[name] = self.times.get(name, 0.0) + (time.perf_counter() - begin) * 1000

    def done(self) -> Times:
        if START_ONLY:
            return self.times
        self.times["S1"] = sum(self.times[s] for s in STEPS[:-1])
        return self.times


# -- the floors ---------------------------------------------------------------------


class DapFloor(FloorClient):
    def __init__(self, target: Target) -> None:
        from dbg_dap.profiles import profile_for

        from dbgcore.config import load_config
        from dbgcore.dap.transport import (
            LISTENING_RE,
            AdapterProcess,
            PipeTransport,
            SocketTransport,
            Transport,
            parse_listening,
        )

        self.target = target
        self.env: dict[str, str] = {}
        transport: Transport
        if target.backend == "debugpy":
            # dbg's own fix for debugpy's 40 ms answers (see the README).
            self.env = {"PYTHONPATH": str(PYBOOT), "DBG_TCP_NODELAY": "1"}
            process = AdapterProcess([sys.executable, "-m", "debugpy.adapter"], name="debugpy")
            transport = PipeTransport(process)
        else:
            argv = profile_for(load_config().backends[target.backend]).argv()
            if any("{address}" in a for a in argv):
                # An adapter that dials its client (dlv dap --client-addr):
                # a plain loopback listener, without dbg's check of the peer.
                import socket

                listener = socket.create_server(("127.0.0.1", 0))
                listener.settimeout(20)
                address = f"127.0.0.1:{listener.getsockname()[1]}"
                process = AdapterProcess([a.replace("{address}", address) for a in argv],
                                         cwd=str(target.folder), name=target.backend,
                                         stdio=False, on_stdout_line=lambda line: None)
                transport = SocketTransport(listener.accept()[0])
                listener.close()
            elif target.backend == "dlv":
                process = AdapterProcess(argv, cwd=str(target.folder), name="dlv", stdio=False,
                                         on_stdout_line=lambda line: None)
                host, port = parse_listening(process.wait_stdout(LISTENING_RE, 20))
                transport = SocketTransport.connect(host, port, 10)
            else:
                process = AdapterProcess(argv, cwd=str(target.folder), name=target.backend)
                transport = PipeTransport(process)
        super().__init__(process, transport, target.backend)

    def start(self) -> None:
        target = self.target
        self.request("initialize", {"adapterID": target.backend, "linesStartAt1": True,
                                            "columnsStartAt1": True, "pathFormat": "path"})
        arguments: dict[str, Any] = {"program": str(target.program)}
        if target.backend == "debugpy":
            arguments.update(console="internalConsole", justMyCode=False, env=self.env)
        elif target.backend == "dlv":
            arguments["mode"] = "exec"
        pending = self.channel.send_request("launch", arguments)
        self.initialized.wait(30)
        self.request("setBreakpoints", {"source": {"path": str(target.source)},
                                                "breakpoints": [{"line": target.line}]})
        self.request("setExceptionBreakpoints", {"filters": []})
        self.request("configurationDone")
        pending.wait(30)
        self.stopped.wait(30)
        self.snapshot()

    def evaluate(self) -> None:
        self.request("evaluate", {"expression": EXPRESSION, "context": "watch",
                                          "frameId": self.frame_id})

    def next(self) -> None:
        self.resume("next")
        self.snapshot()

    def finish(self) -> None:
        self.resume("continue")
        if not self.ended.is_set():
            raise SystemExit(f"{self.target.backend} floor: continue did not reach the end")


@dataclass
class PtyCommands:
    """What one types to pdb or jdb for each S1 step, and what to wait for."""

    argv: Callable[[Target], list[str]]
    prompt: str
    ready: str  # before the first command
    where: str  # a breakpoint at {file}:{line}
    placed: str  # the answer to `where`
    run: tuple[str, str]  # command, what a stop at the breakpoint prints
    step: tuple[str, str]
    locals: str
    evaluate: str
    cont: tuple[str, str]


PTY_COMMANDS = {
    "pdb": PtyCommands(
        argv=lambda t: [sys.executable, "-m", "pdb", t.source.name], prompt=r"\(Pdb\) ",
        ready=r"\(Pdb\) ", where="break {file}:{line}", placed=r"\(Pdb\) ",
        run=("continue", ""), step=("next", ""), locals="p locals()",
        evaluate=f"p {EXPRESSION}", cont=("continue", "The program finished")),
    "jdb": PtyCommands(
        argv=lambda t: ["jdb", "-classpath", str(t.folder), "Ledger"],
        prompt=r"\n\w+\[\d+\] ", ready="> ", where="stop at Ledger:{line}", placed="> ",
        run=("run", "Breakpoint hit.*?"), step=("next", "Step completed.*?"),
        locals="locals", evaluate=f"print {EXPRESSION}",
        cont=("cont", "The application exited")),
}


class PtyFloor:
    """pexpect typing pdb's or jdb's own commands, as fast as they answer;
    a stop is answered with the debugger's locals, as dbg answers one with a
    snapshot."""

    def __init__(self, target: Target) -> None:
        import pexpect

        self.target = target
        self.commands = PTY_COMMANDS[target.backend]
        argv = self.commands.argv(target)
        self.child = pexpect.spawn(argv[0], argv[1:], cwd=str(target.folder), echo=False,
                                   encoding="utf-8", timeout=30,
                                   env={**os.environ, "TERM": "dumb"})
        self.child.delaybeforesend = None

    def send(self, text: str, until: str | None = None) -> str:
        self.child.sendline(text)
        self.child.expect(self.commands.prompt if until is None else until)
        return str(self.child.before)

    def stop(self, command: tuple[str, str]) -> None:
        self.send(command[0], command[1] + self.commands.prompt)
        self.snapshot()

    def start(self) -> None:
        commands = self.commands
        self.child.expect(commands.ready)
        self.send(commands.where.format(file=self.target.source.name, line=self.target.line),
                  commands.placed)
        self.stop(commands.run)

    def snapshot(self) -> None:
        self.send(self.commands.locals)

    def evaluate(self) -> None:
        self.send(self.commands.evaluate)

    def next(self) -> None:
        self.stop(self.commands.step)

    def finish(self) -> None:
        self.child.sendline(self.commands.cont[0])
        self.child.expect(self.commands.cont[1])

    def close(self) -> None:
        self.child.close(force=True)


def floor_run(target: Target) -> Times:
    clock = Clock()
    floor: Any = PtyFloor(target) if target.backend in PTY_BACKENDS else None
    with clock.step("start"):
        if floor is None:
            floor = DapFloor(target)
        floor.start()
    if START_ONLY:
        floor.close()
        return clock.done()
    try:
        with clock.step("locals"):
            floor.snapshot()
        with clock.step("print"):
            floor.evaluate()
        for _ in range(NEXTS):
            with clock.step("10 x next"):
                floor.next()
        with clock.step("continue"):
            floor.finish()
    finally:
        floor.close()
    return clock.done()


# -- through dbg --------------------------------------------------------------------


#: One DBG_HOME for the whole benchmark, as a user has one: what dbg keeps
#: there between sessions (the debuggers' versions) is measured warm.
HOME = Path(tempfile.mkdtemp(prefix="dbg-bench-home-"))


def dbg_env(work: Path) -> dict[str, str]:
    return {**os.environ, "DBG_HOME": str(HOME), "DBG_SESSION": "s1"}


def start_values(target: Target) -> dict[str, Any]:
    return {"program": os.path.relpath(target.program, target.folder.parent),
            "backend": target.backend, "breaks": [f"{target.source.name}:{target.line}"],
            "run": True}


def expect_stop(backend: str, step: str, data: dict[str, Any], state: str) -> None:
    """Speed must not change an answer: every step is checked."""
    if not data.get("ok") or data.get("state") != state:
        raise SystemExit(f"{backend} {step}: expected {state}, got {json.dumps(data)[:400]}")


#: Makes one op of S1 ("start", "locals", "print", "next", "continue",
#: "kill") and returns the answer as --json prints it.
Op = Callable[[str], Awaitable[dict[str, Any]]]


async def dbg_steps(backend: str, op: Op) -> Times:
    """S1 through dbg, the same steps whatever carries them."""
    clock = Clock()
    try:
        with clock.step("start"):
            expect_stop(backend, "start", await op("start"), "stopped")
        if START_ONLY:
            return clock.done()
        with clock.step("locals"):
            await op("locals")
        with clock.step("print"):
            await op("print")
        for _ in range(NEXTS):
            with clock.step("10 x next"):
                expect_stop(backend, "next", await op("next"), "stopped")
        with clock.step("continue"):
            expect_stop(backend, "continue", await op("continue"), "exited")
    finally:
        await op("kill")
    return clock.done()


def daemon_run(target: Target, work: Path) -> Times:
    import anyio

    from dbgcore.cli.app import FRONT
    from dbgcore.frontend import call_op

    table = FRONT.table
    values = {"start": start_values(target), "print": {"expression": EXPRESSION}}
    saved = dict(os.environ)
    os.environ.update(dbg_env(work))
    cwd = os.getcwd()
    os.chdir(target.folder.parent)  # the program's parent: not the program's folder

    async def op(name: str) -> dict[str, Any]:
        found = table.find(name)
        assert found is not None
        return call_op(found, values.get(name, {}), "s1", 30, FRONT,
                       start=FRONT.start).to_json()

    try:
        return dict(anyio.run(dbg_steps, target.backend, op))
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(saved)


def dbg_command() -> list[str]:
    return [str(Path(sys.executable).parent / "dbg")]


def cli_run(target: Target, work: Path) -> Times:
    import anyio

    env = dbg_env(work)
    values = start_values(target)
    words = {"start": ["start", "--backend", target.backend, "--break", values["breaks"][0],
                       "--run", values["program"]],
             "print": ["print", EXPRESSION]}

    async def op(name: str) -> dict[str, Any]:
        proc = subprocess.run([*dbg_command(), "--json", *words.get(name, [name])],
                              cwd=target.folder.parent, env=env, capture_output=True, text=True)
        return dict(json.loads(proc.stdout))

    return dict(anyio.run(dbg_steps, target.backend, op))


# -- over MCP -------------------------------------------------------------------------


def mcp_session(command: str, args: list[str], cwd: Path, env: dict[str, str],
                scenario: Callable[[Any], Any]) -> Any:
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command, args=args, cwd=str(cwd), env=env)
    result: list[Any] = []

    async def main() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as streams, \
                    ClientSession(*streams) as session:
                await session.initialize()
                result.append(await scenario(session))

    anyio.run(main)
    return result[0]


async def tool(session: Any, name: str, **arguments: Any) -> dict[str, Any]:
    answer = await session.call_tool(name, arguments)
    data = answer.structured_content
    if data is None:
        data = json.loads(answer.content[0].text)
    if answer.is_error:
        raise SystemExit(f"{name} failed: {json.dumps(data)[:400]}")
    return dict(data)


def mcp_run(target: Target, work: Path) -> Times:
    values = {"start": start_values(target), "print": {"expression": EXPRESSION}}

    async def scenario(session: Any) -> Times:
        async def op(name: str) -> dict[str, Any]:
            return await tool(session, f"dbg_{name}", **values.get(name, {}))

        return await dbg_steps(target.backend, op)

    return dict(mcp_session(sys.executable, ["-m", "dbgcore", "mcp"], target.folder.parent,
                            dbg_env(work), scenario))


def peer_install() -> Path | None:
    """mcp-debugger's CLI, installed with npm into a cache folder; None without npm."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return None
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "dbg-bench-peer"
    cli = cache / "node_modules" / "@debugmcp" / "mcp-debugger" / "dist" / "cli"
    if not cli.exists():
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "package.json").write_text('{"name": "dbg-bench-peer", "private": true}\n')
        subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error", PEER],
                       cwd=cache, check=True, stdout=subprocess.DEVNULL)
    return cli


def peer_run(target: Target, cli: Path) -> Times:
    async def scenario(session: Any) -> Times:
        clock = Clock()
        with clock.step("start"):
            created = await tool(session, "create_debug_session", language="python",
                                 executablePath=sys.executable)
            sid = created["sessionId"]
            await tool(session, "set_breakpoint", sessionId=sid, file=str(target.source),
                       line=target.line)
            started = await tool(session, "start_debugging", sessionId=sid,
                                 scriptPath=str(target.source))
            if started.get("state") != "paused":
                raise SystemExit(f"peer start: {started}")
        try:
            with clock.step("locals"):
                await tool(session, "get_local_variables", sessionId=sid)
            with clock.step("print"):
                await tool(session, "evaluate_expression", sessionId=sid, expression=EXPRESSION)
            for _ in range(NEXTS):
                with clock.step("10 x next"):
                    await tool(session, "step_over", sessionId=sid)
            with clock.step("continue"):
                await tool(session, "continue_execution", sessionId=sid)
                # It answers at once: poll until the program has ended.
                while True:
                    listed = await tool(session, "list_debug_sessions")
                    state = next((s["state"] for s in listed["sessions"] if s["id"] == sid),
                                 "gone")
                    if state not in ("running", "paused", "initializing", "created"):
                        break
                    if state == "paused":
                        raise SystemExit("peer continue: stopped again instead of exiting")
        finally:
            await session.call_tool("close_debug_session", {"sessionId": sid})
        return clock.done()

    return dict(mcp_session("node", [str(cli), "stdio"], target.folder.parent,
                            dict(os.environ), scenario))


# -- the table -------------------------------------------------------------------------


def start_table(backends: list[str], runs: int, modes: list[str]) -> None:
    """`start --break X --run` alone: median, spread and ratio to the floor."""
    print(f"start --break X --run, median [min-max] ms of {runs} interleaved runs; "
          f"{time.strftime('%Y-%m-%d')}; {machine()}")
    print(versions(backends))
    print("\n| backend | " + " | ".join(modes) + " | " + " | ".join(
        f"{m} / floor" for m in modes if m != "floor") + " |")
    print("|---|" + "---:|" * (2 * len(modes) - 1))
    for backend in backends:
        got: dict[str, list[float]] = {m: [] for m in modes}
        for _ in range(runs):
            for mode in modes:
                work = Path(tempfile.mkdtemp(prefix="dbg-s1-"))
                try:
                    target = build(backend, work)
                    if mode == "floor":
                        times = floor_run(target)
                    else:
                        times = {"daemon": daemon_run, "cli": cli_run,
                                 "mcp": mcp_run}[mode](target, work)
                    got[mode].append(times["start"])
                finally:
                    shutil.rmtree(work, ignore_errors=True)
        median = {m: statistics.median(v) for m, v in got.items()}
        cells = [f"{median[m]:,.0f} [{min(got[m]):,.0f}-{max(got[m]):,.0f}]" for m in modes]
        ratios = [f"{median[m] / median['floor']:.2f}" for m in modes
                  if m != "floor" and "floor" in median]
        print(f"| {backend} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")


def median_times(runs: list[Times]) -> Times:
    return {step: statistics.median(r[step] for r in runs) for step in STEPS}


def python_start(samples: int = 20) -> float:
    times = []
    for _ in range(samples):
        begin = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((time.perf_counter() - begin) * 1000)
    return statistics.median(times)


def cli_call(work: Path, target: Target, samples: int = 20) -> dict[str, float]:
    """One CLI call (print, next, locals) on a stopped session, median ms."""
    env = dbg_env(work)
    where = target.folder.parent
    values = start_values(target)
    subprocess.run([*dbg_command(), "start", "--backend", target.backend,
                    "--break", values["breaks"][0], "--run", values["program"]], cwd=where, env=env,
                   check=True, capture_output=True)
    out = {}
    try:
        for op in (["print", EXPRESSION], ["locals"], ["next"]):
            times = []
            for _ in range(samples):
                begin = time.perf_counter()
                subprocess.run([*dbg_command(), *op], cwd=where, env=env, check=True,
                               capture_output=True)
                times.append((time.perf_counter() - begin) * 1000)
            out[op[0]] = statistics.median(times)
    finally:
        subprocess.run([*dbg_command(), "kill"], cwd=where, env=env, capture_output=True)
    return out


def row(name: str, times: Times) -> str:
    return f"| {name} | " + " | ".join(f"{times[s]:,.0f}" for s in STEPS) + " |"


def versions(backends: list[str]) -> str:
    from dbgcore import __version__
    from dbgcore.config import load_config
    from dbgcore.plugins import PluginHost

    config = load_config()
    classes = PluginHost().backend_classes()
    found = []
    for name in backends:
        spec = config.backends[name]
        readiness = classes[spec.plugin].check(spec)
        found.append(f"{name} {readiness.version or '?'}")
    return f"dbg {__version__}, Python {platform.python_version()}; " + ", ".join(found)


def machine() -> str:
    cores = os.cpu_count()
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {cores} cores {model}".strip()


def ratio_lines(backend: str, result: dict[str, Times]) -> list[str]:
    floor, cli = result["floor"], result["cli"]
    lines = []
    pty = backend in PTY_BACKENDS
    if pty:
        lines.append(f"P2 start: cli {cli['start']:,.0f} ms = {cli['start'] / floor['start']:.2f}"
                     f" x the PTY floor (goal <= 1.2)")
        per_floor = floor["10 x next"] / NEXTS
        per_daemon = result["daemon"]["10 x next"] / NEXTS
        lines.append(f"P4 next: daemon {per_daemon:.1f} ms = {per_daemon / per_floor:.2f}"
                     f" x the PTY floor's {per_floor:.1f} ms (goal <= 1.2)")
    else:
        lines.append(f"P2 start: cli {cli['start'] - floor['start']:+,.0f} ms over the floor"
                     f" (goal <= +150)")
    lines.append(f"P3 S1: cli {cli['S1'] / floor['S1']:.2f} x the floor (goal <= 1.3)"
                 + (f", mcp {result['mcp']['S1'] / floor['S1']:.2f} x (goal <= 1.2)"
                    if "mcp" in result else ""))
    lines.append(f"P5 continue: cli {cli['continue'] - floor['continue']:+,.0f} ms over the"
                 f" floor (goal <= +50)")
    if "peer" in result:
        lines.append(f"peer: mcp-debugger's S1 is {result['peer']['S1'] / cli['S1']:.2f} x dbg"
                     f" CLI's (goal >= 3)")
    return lines


def s1(backends: list[str], runs: int, peer: bool, modes: list[str]) -> None:
    # What a user's Python does on the first call anyway; here the bytecode
    # may not be written (PYTHONDONTWRITEBYTECODE), and every call would
    # compile dbg's modules again.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "dbgcore"),
                    str(ROOT / "plugins")], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([*dbg_command(), "backends"], env=dbg_env(HOME), check=True,
                   stdout=subprocess.DEVNULL)
    cli = peer_install() if peer and "debugpy" in backends else None
    if peer and cli is None:
        print("(npm or node not found: the mcp-debugger column is skipped)")
    print(f"S1, median ms of {runs} runs; {time.strftime('%Y-%m-%d')}; {machine()}")
    print(versions(backends))
    passes = python_start()
    summary = []
    for backend in backends:
        result: dict[str, Times] = {}
        samples: dict[str, list[Times]] = {m: [] for m in modes}
        if cli is not None and backend == "debugpy":
            samples["peer"] = []
        for _ in range(runs):
            # Interleaved, so a slow moment of the machine hits every mode.
            for mode in samples:
                work = Path(tempfile.mkdtemp(prefix="dbg-s1-"))
                try:
                    target = build(backend, work)
                    if mode == "floor":
                        samples[mode].append(floor_run(target))
                    elif mode == "daemon":
                        samples[mode].append(daemon_run(target, work))
                    elif mode == "cli":
                        samples[mode].append(cli_run(target, work))
                    elif mode == "mcp":
                        samples[mode].append(mcp_run(target, work))
                    else:
                        assert cli is not None
                        samples[mode].append(peer_run(target, cli))
                finally:
                    shutil.rmtree(work, ignore_errors=True)
        for mode, got in samples.items():
            result[mode] = median_times(got)
        print(f"\n{backend}\n| | " + " | ".join(STEPS) + " |\n|---|" + "---:|" * len(STEPS))
        names = {"floor": "in-process floor", "daemon": "dbg daemon, in-process client",
                 "cli": "**dbg CLI**", "mcp": "dbg mcp", "peer": "mcp-debugger 0.24.2, MCP"}
        for mode in result:
            print(row(names[mode], result[mode]))
        if "floor" in result and "cli" in result:
            summary += [f"{backend}: {line}" for line in ratio_lines(backend, result)]
    work = Path(tempfile.mkdtemp(prefix="dbg-s1-"))
    try:
        calls = cli_call(work, build(backends[0], work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nP1 one CLI call on {backends[0]}: " + ", ".join(
        f"{op} {t:.1f} ms ({t / passes:.2f} x)" for op, t in calls.items())
        + f"; python -c pass {passes:.1f} ms (goal <= 1.5 x)")
    print("\n".join(summary))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append", choices=BACKENDS,
                        help="a backend to run (repeatable; default: all six)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mode", action="append",
                        choices=["floor", "daemon", "cli", "mcp"],
                        help="a way to run S1 (repeatable; default: all)")
    parser.add_argument("--no-peer", action="store_true", help="skip mcp-debugger")
    parser.add_argument("--start-only", action="store_true",
                        help="time `start --break X --run` alone")
    parser.add_argument("--extra", action="store_true",
                        help="also memory, 10 sessions at once, and a large frame")
    args = parser.parse_args()
    backends = args.backend or list(BACKENDS)
    try:
        if args.start_only:
            global START_ONLY
            START_ONLY = True
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "dbgcore"),
                            str(ROOT / "plugins")], check=True, stdout=subprocess.DEVNULL)
            subprocess.run([*dbg_command(), "backends"], env=dbg_env(HOME), check=True,
                           stdout=subprocess.DEVNULL)
            start_table(backends, args.runs, args.mode or ["floor", "cli"])
            return
        s1(backends, args.runs, not args.no_peer,
           args.mode or ["floor", "daemon", "cli", "mcp"])
        if args.extra:
            from extra import extra

            extra()
    finally:
        shutil.rmtree(HOME, ignore_errors=True)


if __name__ == "__main__":
    main()
