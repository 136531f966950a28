"""S1 on every backend, side by side: dbg against the floor and against a peer.

The scenario S1: `start` to a breakpoint in the loop of a small ledger program
(bench/s1/, one twin per language), `locals`, one `print`, 10 x `next`,
`continue` to the program's exit. It runs

* ``floor``: a minimal in-process client of the debugger with nothing between
  it and the debugger: DAP (bench/dapfloor.py; debugpy with dbg's
  debuggee-side fixes, TCP_NODELAY and the quick end) for debugpy, gdb, lldb
  and delve; pexpect typing the debugger's own commands for
  pdb and jdb (a stop is answered with the debugger's locals, as dbg answers
  one with a snapshot); a bare client of node's inspector for node
  (bench/nodefloor.py);
* ``daemon``: the ops through dbg's session daemon from this process
  (``dbgcore.ops.call.call_op``, what `dbg mcp` does without MCP);
* ``cli``: one `dbg` process per op, run from another folder, with the
  breakpoint given by file name, as an agent calls it;
* ``mcp``: `dbg mcp` driven over stdio by a minimal JSON-RPC client (``McpClient``);
* ``peer``: `@debugmcp/mcp-debugger` 0.24.2 (installed with npm into a cache
  folder when npm is present) driven the same way, debugpy only.

Each table gives the median of the interleaved runs and the min-max of S1;
then the per-call goals (issue 44), each judged against the floor of the
same run: a surface's `start` and its S1 within 1.2 x the floor plus a
fixed allowance for each call it makes (``CALLS``: 1 for `start`, 14 for
S1), the one cost a call cannot avoid: one bare `python -c pass` (timed
among the runs) a CLI call, 2 ms a `dbg mcp` call. Each verdict gives the
measured figure, the goal's and met or not met; then issue 24's goal that
still holds, mcp-debugger at least 3.4 x slower than dbg on debugpy.

Then, with ``--extra``, the memory of a session, 10 sessions at once
(``--sessions``), and `locals` of a frame holding a 1,000,000-element list
and a 10 MB string.

    .venv/bin/python bench/s1.py [--backend NAME ...] [--runs 3] [--no-peer] [--extra]
        [--samples 20] [--readme [PATH]]

``--readme`` rewrites the speed section of README.md (between its
``speed:begin`` and ``speed:end`` comments) from the run: the command, the
date, the machine and its load, the noise, S1 per backend and the goals.
The smallest run (what tests/test_bench.py runs): ``--runs 1 --samples 0``.

``--start-only`` times `start --break X --run` alone (floor, daemon, CLI, MCP),
each run's session ended right after the stop, and prints the medians, the
spread and the ratio to the floor. Its mode ``rerun`` (``--mode rerun``) is
the CLI's start of an agent's next run: in the same folder, a second after
the last run's program ended, replacing that session (see ``Rerun``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
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

import readme  # noqa: E402
from dapfloor import FloorClient, marks  # noqa: E402
from nodefloor import NodeFloor  # noqa: E402

BENCH = ROOT / "bench" / "s1"
PYBOOT = ROOT / "plugins" / "dbg_dap" / "pyboot"
STEPS = ("start", "locals", "print", "10 x next", "continue", "S1")
BACKENDS = ("debugpy", "pdb", "gdb", "lldb", "dlv", "jdb", "node")
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
    elif backend == "node":
        source = program = prog / "ledger.js"
        shutil.copy(BENCH / "ledger.js", source)
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

        from dbgcore.backends.config import load_config
        from dbgcore.transport.dap.adapter import (
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
            # dbg's own fixes of debugpy, so the floor is no slower than what
            # dbg ships and the ratio is what dbg adds: debugpy's 40 ms
            # answers (see the README), pydevd's 0.5-0.7 s of waits at the
            # program's end and its 0.1 s sleep as it connects, and the
            # startup reports no log keeps (40-65 ms in each of debugpy's
            # processes: dbg's adapter wrapper, run here as dbg runs it, and
            # DBG_DEBUGPY_QUIET in the program).
            # The launcher and the program load debugpy from dbg's bytecode
            # cache, as under dbg.
            import debugpy
            from dbg_dap.debugpy import DEBUGPY_ADAPTER

            from dbgcore.transport import peers

            cache = {"DBG_PYC_DIR": str(HOME / "pyc"),
                     "DBG_DEBUGPY_ROOT": str(Path(debugpy.__file__).resolve().parent)}
            self.env = {"PYTHONPATH": str(PYBOOT), "DBG_TCP_NODELAY": "1",
                        "DBG_PYDEVD_END": "1", "DBG_PYDEVD_START": "1",
                        "DBG_DEBUGPY_QUIET": "1", **cache}
            process = AdapterProcess([sys.executable, DEBUGPY_ADAPTER], name="debugpy", env={
                **os.environ, "DBG_PEERS": str(peers.__file__),
                "DBG_SESSION_PID": str(os.getpid()),
                "DBG_LAUNCHER_PYTHONPATH": str(PYBOOT), **cache})
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
        if target.backend == "node":
            floor = NodeFloor(target.source, target.line, EXPRESSION)
        elif floor is None:
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
    # dbg runs a Python program with the `python3` on PATH, as a user's shell
    # would; the floor runs this interpreter. Both get the same one, or the
    # comparison measures two interpreters' starts (a pyenv Python with a
    # .pth file to read costs ~10-20 ms more a start than a venv's).
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path, "DBG_HOME": str(HOME), "DBG_SESSION": "s1"}


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

    from dbgcore.frontends.cli.app import FRONT
    from dbgcore.ops.call import call_op

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


class McpClient:
    """A minimal MCP client over stdio: one JSON-RPC line out, read lines until
    the answer with its id. The floor's DAP client is as bare, and an agent's
    host is not the `mcp` SDK's Python client, whose pydantic models and
    anyio streams cost ~2 ms a call here: that is the client's cost, not the
    server's."""

    def __init__(self, command: str, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self._proc = subprocess.Popen([command, *args], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._ids = 0

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._ids += 1
        ident = self._ids
        line = json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        self._proc.stdin.write(line.encode() + b"\n")
        self._proc.stdin.flush()
        for raw in self._proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                continue  # a server's stray output line
            if isinstance(message, dict) and message.get("id") == ident and "method" not in message:
                if "error" in message:
                    raise SystemExit(f"{method} failed: {message['error']}")
                return dict(message["result"])
        raise SystemExit(f"{method}: the server ended without an answer")

    def notify(self, method: str) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        self._proc.stdin.flush()

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def close(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        _end_proxies(self._proc.pid)


def _end_proxies(owner: int) -> None:
    """mcp-debugger's proxy leaves its server's process group and outlives
    it (``--mcp-owner-pid=PID``), busy at half a core for the rest of a test
    run that measured it: it is ended with its server."""
    mark = f"--mcp-owner-pid={owner}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if mark in words:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def mcp_session(command: str, args: list[str], cwd: Path, env: dict[str, str],
                scenario: Callable[[Any], Any]) -> Any:
    import anyio

    client = McpClient(command, args, cwd, env)
    try:
        client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "dbg-bench", "version": "1"}})
        client.notify("notifications/initialized")
        return anyio.run(scenario, client)
    finally:
        client.close()


async def tool(session: Any, name: str, **arguments: Any) -> dict[str, Any]:
    answer = await session.call_tool(name, arguments)
    data = answer.get("structuredContent")
    if data is None:
        data = json.loads(answer["content"][0]["text"])
    if answer.get("isError"):
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


#: The per-call goals (issue 44, the decision on issue 24's remaining cells):
#: a surface's time within GOAL x the in-process floor of the same run, plus
#: a fixed allowance for each call the surface makes, which no call through
#: it can avoid: a Python's start for a CLI call (a bare `python -c pass`,
#: timed among the runs), MCP_ALLOWANCE for a `dbg mcp` call.
GOAL = 1.2
MCP_ALLOWANCE = 2.0  # ms a `dbg mcp` call
#: The calls each surface makes in each part it is judged on (the same for
#: the CLI and `dbg mcp`; the session's `kill` after S1 is not timed).
CALLS = {"start": 1, "S1": 4 + NEXTS}  # start, locals, print, 10 x next, continue
PEER_GOAL = 3.4  # issue 24: mcp-debugger's S1 over dbg's, on debugpy


def goal_ms(floor: float, calls: int, allowance: float) -> float:
    """The goal of a surface, ms: GOAL x its floor's ``floor`` ms plus
    ``allowance`` ms for each of its ``calls`` calls."""
    return GOAL * floor + calls * allowance


def allowance(surface: str, python_pass: float) -> float:
    """What one call through ``surface`` ("cli" or "mcp") is allowed, ms,
    given the run's median `python -c pass`."""
    return {"cli": python_pass, "mcp": MCP_ALLOWANCE}[surface]


def judged(surface: str, part: str, got: float, floor: float,
           python_pass: float) -> tuple[str, bool]:
    """``part`` ("start" or "S1") through ``surface`` judged against its
    goal: the measured and the goal's figures, and whether it is met."""
    goal = goal_ms(floor, CALLS[part], allowance(surface, python_pass))
    return f"{got:,.0f} ms against {goal:,.0f}", got <= goal


def verdict(met: bool) -> str:
    return "met" if met else "**not met**"


def start_table(backends: list[str], runs: int, modes: list[str]) -> None:
    """`start --break X --run` alone: median, spread and ratio to the floor."""
    print(f"start --break X --run, median [min-max] ms of {runs} interleaved runs; "
          f"{time.strftime('%Y-%m-%d')}; {machine()}; load average {os.getloadavg()[0]:.2f}")
    print(versions(backends))
    ratio_modes = [m for m in modes if m != "floor"] if "floor" in modes else []
    goal_modes = [m for m in ratio_modes if m in ("cli", "rerun", "mcp")]
    print(f"goal: {GOAL} x the floor + one `python -c pass` (timed among the runs) for the"
          f" CLI's start, + {MCP_ALLOWANCE:g} ms for `dbg mcp`'s")
    print("\n| backend | " + " | ".join(modes) + "".join(
        f" | {m} / floor" for m in ratio_modes) + (" | goal |" if goal_modes else " |"))
    print("|---|" + "---:|" * (len(modes) + len(ratio_modes)) + ("---|" if goal_modes else ""))
    passes: list[float] = []
    for backend in backends:
        got: dict[str, list[float]] = {m: [] for m in modes}
        rerun = Rerun(backend) if "rerun" in modes else None
        try:
            for _ in range(runs):
                passes += python_start(3)
                for mode in modes:
                    if mode == "rerun":
                        assert rerun is not None
                        got[mode].append(rerun.start())
                        continue
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
        finally:
            if rerun is not None:
                rerun.close()
        median = {m: statistics.median(v) for m, v in got.items()}
        cells = [f"{median[m]:,.0f} [{min(got[m]):,.0f}-{max(got[m]):,.0f}]" for m in modes]
        ratios = {m: median[m] / median["floor"] for m in ratio_modes}
        verdicts = []
        for mode in goal_modes:
            figure, met = judged("mcp" if mode == "mcp" else "cli", "start", median[mode],
                                 median["floor"], statistics.median(passes))
            verdicts.append(f"{mode} {figure} {verdict(met)}")
        goal = f" | {'; '.join(verdicts)}" if verdicts else ""
        print(f"| {backend} | " + " | ".join(cells) + "".join(
            f" | {r:.2f}" for r in ratios.values()) + goal + " |")
    if passes:
        print(f"\n`python -c pass`: {statistics.median(passes):.1f} ms, median of {len(passes)}"
              f" among the runs; load average {os.getloadavg()[0]:.2f} at the end")


class Rerun:
    """The ``rerun`` mode of the start table: `start --break X --run` through
    the CLI as an agent runs it again, in the same folder, on the session
    whose program has ended (which the start replaces), a second after that
    end (the agent reading the answer). Each program is run to its end after
    the timed start, untimed; one run before the first timed one makes the
    first session."""

    #: Seconds between a program's end and the next start.
    PAUSE = 1.0

    def __init__(self, backend: str) -> None:
        self.work = Path(tempfile.mkdtemp(prefix="dbg-s1-rerun-"))
        self.target = build(backend, self.work)
        values = start_values(self.target)
        self.words = ["start", "--backend", backend, "--break", values["breaks"][0], "--run",
                      values["program"]]
        self.env = {**dbg_env(self.work), "DBG_SESSION": "s1-rerun"}
        self._to_end(self._call(self.words))

    def _call(self, words: list[str]) -> dict[str, Any]:
        done = subprocess.run([*dbg_command(), "--json", *words], cwd=self.target.folder.parent,
                              env=self.env, capture_output=True, text=True)
        return dict(json.loads(done.stdout))

    def _to_end(self, answer: dict[str, Any]) -> None:
        expect_stop(self.target.backend, "rerun start", answer, "stopped")
        for _ in range(100):
            answer = self._call(["continue"])
            if answer.get("state") == "exited":
                break
            expect_stop(self.target.backend, "rerun continue", answer, "stopped")
        else:
            raise SystemExit(f"{self.target.backend} rerun: the program did not end")
        time.sleep(self.PAUSE)

    def start(self) -> float:
        """One timed start (ms), then the program run to its end."""
        begin = time.perf_counter()
        answer = self._call(self.words)
        took = (time.perf_counter() - begin) * 1000
        self._to_end(answer)
        return took

    def close(self) -> None:
        subprocess.run([*dbg_command(), "kill"], cwd=self.target.folder.parent, env=self.env,
                       capture_output=True)
        shutil.rmtree(self.work, ignore_errors=True)


def median_times(runs: list[Times]) -> Times:
    return {step: statistics.median(r[step] for r in runs) for step in STEPS}


def python_start(samples: int = 20) -> list[float]:
    """``samples`` wall times of a bare `python -c pass`, ms."""
    times = []
    for _ in range(samples):
        begin = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((time.perf_counter() - begin) * 1000)
    return times


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


def row(name: str, times: Times, spread: list[float]) -> str:
    return (f"| {name} | " + " | ".join(f"{times[s]:,.0f}" for s in STEPS)
            + f" | {min(spread):,.0f}-{max(spread):,.0f} |")


def versions(backends: list[str]) -> str:
    from dbgcore import __version__
    from dbgcore.backends.pluginhost import PluginHost
    from dbgcore.backends.registry import BackendRegistry

    registry = BackendRegistry(PluginHost())  # with the plugins' backends (node)
    config = registry.config()
    classes = registry.classes()
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


@dataclass
class Report:
    """One run of the S1 table: every sample, and what the goals are judged by."""

    runs: int
    #: backend -> mode -> one Times per run
    samples: dict[str, dict[str, list[Times]]]
    #: `python -c pass`, ms, sampled between the runs
    passes: list[float]
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    versions: str = ""

    def median(self, backend: str, mode: str) -> Times:
        return median_times(self.samples[backend][mode])

    def spread(self, backend: str, mode: str) -> list[float]:
        return [t["S1"] for t in self.samples[backend][mode]]

    def noise(self) -> str:
        """The largest (max - min) / median of a cell's S1, and which cell."""
        if self.runs < 2:
            return "not measured (one run a cell)"
        worst, where = 0.0, ""
        for backend, modes in self.samples.items():
            for mode in modes:
                spread = self.spread(backend, mode)
                middle = statistics.median(spread)
                if middle > 0 and (max(spread) - min(spread)) / middle >= worst:
                    worst, where = (max(spread) - min(spread)) / middle, f"{backend} {mode}"
        return f"the largest min-max spread of a cell's S1 is {worst:.0%} of its median ({where})"

    def python_pass(self) -> float:
        return statistics.median(self.passes)


def goals(report: Report) -> list[tuple[str, list[tuple[str, str, bool]]]]:
    """The per-call goals and the peer's: (the goal, [(backend, the figure, met)])."""
    passes = report.python_pass()
    found: dict[tuple[str, str], list[tuple[str, str, bool]]] = {
        (part, surface): [] for part in ("start", "S1") for surface in ("cli", "mcp")}
    peer: list[tuple[str, str, bool]] = []
    for backend, modes in report.samples.items():
        if "floor" not in modes:
            continue
        floor = report.median(backend, "floor")
        for (part, surface), lines in found.items():
            if surface in modes:
                figure, met = judged(surface, part, report.median(backend, surface)[part],
                                     floor[part], passes)
                lines.append((backend, figure, met))
    if "peer" in report.samples.get("debugpy", {}):
        theirs = report.median("debugpy", "peer")["S1"]
        for mode, name in (("mcp", "dbg mcp"), ("cli", "dbg CLI")):
            if mode in report.samples["debugpy"]:
                ratio = theirs / report.median("debugpy", mode)["S1"]
                peer.append((name, f"{ratio:.2f} x", ratio >= PEER_GOAL))

    def allowed(part: str, surface: str) -> str:
        calls = CALLS[part]
        each = (f"`python -c pass` ({passes:.1f} ms in this run)" if surface == "cli"
                else f"{MCP_ALLOWANCE:g} ms")
        if calls > 1:
            return f"{calls} x {each}"
        return f"one {each}" if surface == "cli" else each

    words = {"start": "`dbg start --break X --run`", "S1": "S1"}
    through = {"cli": "the CLI", "mcp": "`dbg mcp`"}
    out = [(f"{words[part]} through {through[surface]} within {GOAL} x the floor"
            f" + {allowed(part, surface)}", lines)
           for (part, surface), lines in found.items()]
    out.append((f"mcp-debugger's S1 on debugpy at least {PEER_GOAL} x dbg's", peer))
    return [(goal, lines) for goal, lines in out if lines]


def goal_lines(report: Report) -> list[str]:
    out = []
    for goal, lines in goals(report):
        met = sum(1 for *_, ok in lines if ok)
        out.append(f"- {goal}: {verdict(met == len(lines))}"
                   + (f" ({met} of {len(lines)})" if len(lines) > 1 else "") + "; "
                   + ", ".join(f"{name} {figure} {verdict(ok)}" for name, figure, ok in lines))
    return out


NAMES = {"floor": "in-process floor", "daemon": "dbg daemon, in-process client",
         "cli": "**dbg CLI**", "mcp": "dbg mcp", "peer": "mcp-debugger 0.24.2, MCP"}


def s1(backends: list[str], runs: int, peer: bool, modes: list[str],
       samples: int = 20) -> Report:
    # What a user's Python does on the first call anyway; here the bytecode
    # may not be written (PYTHONDONTWRITEBYTECODE), and every call would
    # compile dbg's modules again.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "dbgcore"),
                    str(ROOT / "plugins")], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([*dbg_command(), "backends"], env=dbg_env(HOME), check=True,
                   stdout=subprocess.DEVNULL)
    report = Report(runs, {}, [], os.getloadavg())
    cli = peer_install() if peer and "debugpy" in backends else None
    if peer and "debugpy" in backends and cli is None:
        print("(npm or node not found: the mcp-debugger column is skipped)")
    print(f"S1, median ms of {runs} interleaved runs (and the min-max of S1); "
          f"{time.strftime('%Y-%m-%d')}; {machine()}; load average {report.load_before[0]:.2f}")
    report.versions = versions(backends)
    print(report.versions)
    # A few `python -c pass` a run, among the runs: the CLI goal's allowance
    # is measured under the same load as the calls it allows for.
    per_run = max(1, samples // max(runs, 1))
    for backend in backends:
        got: dict[str, list[Times]] = {m: [] for m in modes}
        if cli is not None and backend == "debugpy":
            got["peer"] = []
        for _ in range(runs):
            report.passes += python_start(per_run)
            # Interleaved, so a slow moment of the machine hits every mode.
            for mode in got:
                work = Path(tempfile.mkdtemp(prefix="dbg-s1-"))
                try:
                    target = build(backend, work)
                    if mode == "floor":
                        got[mode].append(floor_run(target))
                    elif mode == "daemon":
                        got[mode].append(daemon_run(target, work))
                    elif mode == "cli":
                        got[mode].append(cli_run(target, work))
                    elif mode == "mcp":
                        got[mode].append(mcp_run(target, work))
                    else:
                        assert cli is not None
                        got[mode].append(peer_run(target, cli))
                finally:
                    shutil.rmtree(work, ignore_errors=True)
        report.samples[backend] = got
        print(f"\n{backend}\n| | " + " | ".join(STEPS) + " | S1 min-max |\n|---|"
              + "---:|" * (len(STEPS) + 1))
        for mode in got:
            print(row(NAMES[mode], report.median(backend, mode), report.spread(backend, mode)))
    passes = report.python_pass()
    if samples > 0:
        work = Path(tempfile.mkdtemp(prefix="dbg-s1-"))
        try:
            calls = cli_call(work, build(backends[0], work), samples)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(f"\nOne CLI call on a stopped {backends[0]} session: " + ", ".join(
            f"{op} {t:.1f} ms ({t / passes:.2f} x)" for op, t in calls.items())
            + f" `python -c pass` ({passes:.1f} ms)")
    report.load_after = os.getloadavg()
    print(f"noise: {report.noise()}; load average {report.load_before[0]:.2f} before,"
          f" {report.load_after[0]:.2f} after")
    print("\nThe goals (against the floor of the same run):")
    print("\n".join(goal_lines(report)))
    return report


# -- README.md's speed section -----------------------------------------------------------

README_BEGIN = "<!-- speed:begin: written by bench/s1.py --readme; do not edit by hand -->"
README_END = "<!-- speed:end -->"


def readme_section(report: Report, command: str) -> str:
    """The README's speed section, from one run."""
    cores = os.cpu_count()
    measured = (f"Measured by `{command}` on {time.strftime('%Y-%m-%d')}: {machine()}"
                f" (`os.cpu_count()` {cores}), load average {report.load_before[0]:.2f} before"
                f" the run and {report.load_after[0]:.2f} after; {report.versions}.")
    notes = []
    if report.runs < 3:
        notes.append(f"A small run ({report.runs} run{'s' if report.runs > 1 else ''} a cell):"
                     " it shows that the command works; these are not the figures to quote.")
    if max(report.load_before[0], report.load_after[0]) > (cores or 1) / 2:
        notes.append("The machine was busy with other work (see the load average): take the"
                     " figures again on an idle one.")
    # The notes end the measure's own paragraph: README.md has a line budget.
    lines = [README_BEGIN, measured + ("".join(f" *{note}*" for note in notes)), ""]
    runs = f"{report.runs} interleaved runs [min-max]" if report.runs > 1 else "one run"
    lines += [f"S1 (start at a breakpoint in a loop, locals, print, 10 x next, continue to the"
              f" end), ms, median of {runs}, and the ratio to the in-process floor."
              f" Noise: {report.noise()}.",
              "",
              "| backend | floor | dbg CLI | / floor | dbg mcp (or the peer) | / floor |",
              "|---|---:|---:|---:|---:|---:|"]

    def cell(backend: str, mode: str) -> str:
        if mode not in report.samples[backend]:
            return "-"
        spread = report.spread(backend, mode)
        median = f"{report.median(backend, mode)['S1']:,.0f}"
        return median if report.runs < 2 else f"{median} [{min(spread):,.0f}-{max(spread):,.0f}]"

    def ratio(backend: str, mode: str) -> str:
        modes = report.samples[backend]
        if mode not in modes or "floor" not in modes:
            return "-"
        return (f"{report.median(backend, mode)['S1'] / report.median(backend, 'floor')['S1']:.2f}"
                " x")

    for backend in report.samples:
        lines.append(f"| {backend} | {cell(backend, 'floor')} | {cell(backend, 'cli')} | "
                     f"{ratio(backend, 'cli')} | {cell(backend, 'mcp')} | "
                     f"{ratio(backend, 'mcp')} |")
    if "peer" in report.samples.get("debugpy", {}):
        lines.append("| debugpy: mcp-debugger 0.24.2 instead of dbg mcp | "
                     f"{cell('debugpy', 'floor')} | | | {cell('debugpy', 'peer')} | "
                     f"{ratio('debugpy', 'peer')} |")
    lines += ["", "The per-call goals (issue 44) and the peer's (issue 24), each against the"
              " floor of the same run:", ""]
    lines += goal_lines(report)
    lines += ["", "How it is measured, the step-by-step figures, the other benchmarks (test runs"
              " under dbg, traces, memory) and what was done: [docs/speed.md](docs/speed.md).",
              README_END]
    return "\n".join(lines)


def write_readme(path: Path, section: str) -> None:
    readme.rewrite(path, README_BEGIN, README_END, section, "speed section (under its '## Speed')")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append", choices=BACKENDS,
                        help="a backend to run (repeatable; default: all seven)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mode", action="append",
                        choices=["floor", "daemon", "cli", "mcp", "rerun"],
                        help="a way to run S1 (repeatable; default: all; rerun: only with"
                        " --start-only)")
    parser.add_argument("--no-peer", action="store_true", help="skip mcp-debugger")
    parser.add_argument("--samples", type=int, default=20,
                        help="timings of `python -c pass` and of each single CLI call"
                        " (0: no single calls, one `python -c pass` a run)")
    parser.add_argument("--start-only", action="store_true",
                        help="time `start --break X --run` alone")
    parser.add_argument("--extra", action="store_true",
                        help="also memory, sessions at once, and a large frame")
    parser.add_argument("--sessions", type=int, default=10,
                        help="--extra: how many sessions at once")
    parser.add_argument("--rounds", type=int, default=10,
                        help="--extra: timings of each call")
    parser.add_argument("--readme", nargs="?", const=str(ROOT / "README.md"), metavar="PATH",
                        help="rewrite the speed section of README.md (or PATH) from this run")
    parser.add_argument("--install-peer", action="store_true",
                        help="only install mcp-debugger (npm) where the bench finds it")
    args = parser.parse_args()
    if args.install_peer:
        cli = peer_install()
        if cli is None:
            raise SystemExit("install-peer: npm and node are needed to install mcp-debugger")
        print(cli)
        return
    backends = args.backend or list(BACKENDS)
    if "rerun" in (args.mode or []) and not args.start_only:
        parser.error("--mode rerun times a start alone: add --start-only")
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
        report = s1(backends, args.runs, not args.no_peer,
                    args.mode or ["floor", "daemon", "cli", "mcp"], args.samples)
        if args.readme:
            # The command as one would type it again from the repository.
            words, skip = [], False
            for word in sys.argv[1:]:
                if skip or word.startswith("--readme"):
                    skip = word == "--readme" and args.readme != str(ROOT / "README.md")
                    continue
                words.append(word)
            command = " ".join([".venv/bin/python bench/s1.py", *words, "--readme"])
            write_readme(Path(args.readme), readme_section(report, command))
            print(f"\n{args.readme}: speed section rewritten")
        if args.extra:
            from extra import extra

            extra(backends, args.sessions, args.rounds)
    finally:
        remove_home()


def remove_home() -> None:
    """DBG_HOME goes with the benchmark; a daemon that was just killed may
    still write its last files there as it ends, so look again."""
    for _ in range(10):
        shutil.rmtree(HOME, ignore_errors=True)
        time.sleep(0.2)
        if not HOME.exists():
            return


if __name__ == "__main__":
    # bench/extra.py imports this module as `s1`: the same one, not a second
    # copy with a DBG_HOME of its own.
    sys.modules["s1"] = sys.modules[__name__]
    main()
