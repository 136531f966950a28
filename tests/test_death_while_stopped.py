"""Processes that die or stop under a session, from outside.

- The program SIGKILLed while stopped at a breakpoint is told as its death
  on every backend, by the next op (`next` answers the end as any end is
  answered; `print` is refused saying how it died), and `status` agrees.
- A debugger SIGSTOPped from outside makes `next` fail with one clear line
  in a few seconds: a console debugger's (pdb, perl, jdb) `next` answered
  "running" with exit 0 at its timeout, a DAP adapter's failed at it.
- A SIGSTOPped daemon does not hold `dbg kill`: the client ends it and every
  process of its session, and the session is gone.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from builds import build_c, build_go, copy_tree, marked_lines

from dbgcore.shared import procutil
from dbgcore.testing import Dbg

#: backend -> its program in tests/targets/doomed (each writes its pid to
#: the file named by its argument, then loops at `@loop`).
PROGRAMS = {"pdb": "doomed.py", "debugpy": "doomed.py", "gdb": "doomed.c", "lldb": "doomed.c",
            "dlv": "go", "jdb": "Doomed.java", "node": "doomed.js", "perl": "doomed.pl"}

#: The backends whose debugger is a process of its own that dbg talks to
#: (node's inspector is inside the program).
DEBUGGERS = ("pdb", "perl", "jdb", "debugpy", "gdb", "lldb", "dlv")

#: Far more than any answer here takes, even on a loaded machine: a bound
#: against a wait that never ends, not a measure of speed.
BOUND = 30.0


def _start(dbg: Dbg, backend: str, work: Path) -> int:
    """A session of ``backend`` stopped at the program's `@loop`; the program's pid."""
    copied = copy_tree(f"doomed/{PROGRAMS[backend]}", work / backend)
    source = copied / "main.go" if copied.is_dir() else copied
    program = copied
    if copied.suffix == ".c":
        program = build_c(copied)
    elif copied.is_dir():
        program = build_go(copied)
    pid_file = work / f"{backend}.pid"
    line = marked_lines(source)["loop"]
    snap = dbg.json("start", "--backend", backend, "--break", f"{source}:{line}", "--run",
                    str(program), str(pid_file), timeout=120)
    assert snap["ok"] and snap["state"] == "stopped", snap.get("error") or snap
    assert snap["location"]["line"] == line, snap
    return int(pid_file.read_text())


def _kill_program(pid: int) -> None:
    """SIGKILL the program and wait until it is dead (a zombie its debugger
    has not reaped, or gone), so that the next op meets it dead."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + BOUND
    while procutil.alive(pid):
        assert time.monotonic() < deadline, f"pid {pid} outlived SIGKILL"
        time.sleep(0.01)


def _debugger_pid(dbg: Dbg) -> int:
    """The pid of the session's debugger (or adapter), as its daemon recorded it."""
    tool = dbg.json("tool")["tool"]
    status = json.loads((dbg.home / "sessions" / "default" / "status.json").read_text())
    return int(next(c["pid"] for c in status["children"] if c["role"] == tool))


@contextmanager
def _stopped(pid: int) -> Iterator[None]:
    """Process ``pid`` SIGSTOPped meanwhile, and continued after if it still
    lives: never leave a stopped process behind, whatever the op did."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        if procutil.alive(pid):
            os.kill(pid, signal.SIGCONT)


def _agrees(dbg: Dbg) -> None:
    status = dbg.json("status")
    assert status["ok"] and status["state"] == "exited", status
    assert status.get("signal") == "SIGKILL", status


@pytest.mark.parametrize("backend", list(PROGRAMS))
def test_next_tells_the_program_killed_while_stopped(
        backend: str, dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready(backend)
    _kill_program(_start(dbg, backend, tmp_path))
    result = dbg("--json", "next", timeout=60)
    answer = json.loads(result.out)
    # The end is the op's answer, as when a program ends while it runs.
    assert result.code == 0 and answer["ok"], (answer, result.err)
    assert (answer["state"], answer.get("signal")) == ("exited", "SIGKILL"), answer
    assert "killed by SIGKILL" in dbg("next").err
    _agrees(dbg)
    # The session goes on: the program runs again.
    assert dbg.json("restart", timeout=120)["state"] == "stopped"


@pytest.mark.parametrize("backend", list(PROGRAMS))
def test_print_and_status_tell_the_death(
        backend: str, dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready(backend)
    _kill_program(_start(dbg, backend, tmp_path))
    refused = dbg.json("print", "count")
    assert refused["_exit"] == 1 and refused["error"]["kind"] == "target_exited", refused
    assert "killed by SIGKILL" in refused["error"]["message"], refused
    _agrees(dbg)
    text = dbg("status")
    assert text.code == 0 and "killed by SIGKILL" in text.out, text


@pytest.mark.parametrize("backend", DEBUGGERS)
def test_a_stopped_debugger_fails_next_clearly(
        backend: str, dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready(backend)
    _start(dbg, backend, tmp_path)
    debugger = _debugger_pid(dbg)
    with _stopped(debugger):
        result = dbg("next", timeout=60)
    assert result.code == 1, result
    assert result.out == "", result
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and f"(pid {debugger}) is stopped by a signal" in lines[0], result
    # Continued, it answers what it was asked, and the session goes on.
    deadline = time.monotonic() + BOUND
    while (state := dbg.json("status")["state"]) != "stopped":
        assert state == "running" and time.monotonic() < deadline, state
        time.sleep(0.1)
    assert dbg.json("next")["state"] == "stopped"


@pytest.mark.parametrize("backend", ("debugpy", "gdb", "lldb", "dlv"))
def test_a_stopped_adapter_fails_print_clearly(
        backend: str, dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    """`print` may run the program's code, and waits for the adapter's
    answer by a wait of its own (one it can interrupt): that wait held the
    op for its whole --timeout."""
    backend_ready(backend)
    _start(dbg, backend, tmp_path)
    adapter = _debugger_pid(dbg)
    with _stopped(adapter):
        result = dbg("--timeout", str(BOUND), "print", "count", timeout=2 * BOUND)
    assert result.code == 1 and result.out == "", result
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and f"(pid {adapter}) is stopped by a signal" in lines[0], result
    # Continued, it answers, and the session goes on.
    assert dbg.json("next")["state"] == "stopped"


def _session_processes(dbg: Dbg) -> list[tuple[int, int | None]]:
    """The daemon, what it recorded having started, and all below them."""
    status = json.loads((dbg.home / "sessions" / "default" / "status.json").read_text())
    daemon = [(int(status["pid"]), status["start_time"])]
    recorded = [(int(c["pid"]), c["start_time"]) for c in status["children"]]
    below = procutil.tree_of([pid for pid, _ in daemon + recorded])
    return daemon + recorded + below


@pytest.fixture(params=[True, False], ids=["fast-path", "full-cli"])
def client_dbg(request: pytest.FixtureRequest, short_dbg: Dbg) -> Dbg:
    """A runner whose calls go by the fast path, or (DBG_NO_FAST_PATH) by
    the full CLI: each has its own wait for the daemon's answer."""
    if not request.param:
        short_dbg.env["DBG_NO_FAST_PATH"] = "1"
    return short_dbg


def test_kill_ends_a_stopped_daemon_and_its_processes(
        client_dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    # debugpy: besides the daemon, an adapter, a launcher and the program.
    backend_ready("debugpy")
    dbg = client_dbg
    _start(dbg, "debugpy", tmp_path)
    processes = _session_processes(dbg)
    assert len(processes) >= 3, processes
    daemon = processes[0][0]
    with _stopped(daemon):
        result = dbg("--json", "kill", timeout=BOUND)
    answer = json.loads(result.out)
    assert result.code == 0 and answer["ok"], (answer, result.err)
    assert answer["forced"] == len({pid for pid, _ in processes}) - 1, (answer, processes)
    left = [(pid, started) for pid, started in processes if procutil.alive(pid, started)]
    assert left == [], left
    assert not (dbg.home / "sessions" / "default" / "status.json").exists()
    assert not (dbg.home / "sessions" / "default" / "daemon.sock").exists()
    assert dbg.json("sessions")["sessions"] == []
    gone = dbg.json("status")
    assert gone["_exit"] == 1 and gone["error"]["kind"] == "no_session", gone


def test_an_op_sent_to_a_stopped_daemon_fails_clearly(
        client_dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    """It held the client for the op's timeout and 15 s more (45 s)."""
    backend_ready("pdb")
    dbg = client_dbg
    _start(dbg, "pdb", tmp_path)
    daemon = _session_processes(dbg)[0][0]
    with _stopped(daemon):
        result = dbg("next", timeout=BOUND)
    assert result.code == 1 and result.out == "", result
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and f"(pid {daemon}) is stopped by a signal" in lines[0], result
    # Continued, it runs the next it was sent, and the session goes on.
    deadline = time.monotonic() + BOUND
    while dbg.json("status").get("location", {}).get("line") == \
            marked_lines(tmp_path / "pdb" / "doomed" / "doomed.py")["loop"]:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert dbg.json("next")["state"] == "stopped"


def test_mcp_kill_ends_a_stopped_daemon(dbg: Dbg, tmp_path: Path,
                                        backend_ready: Callable[[str], None]) -> None:
    """dbg_kill through `dbg mcp` ends a session whose daemon is stopped, as
    `dbg kill` does."""
    backend_ready("pdb")
    import anyio
    from mcpclient import run_mcp

    _start(dbg, "pdb", tmp_path)
    processes = _session_processes(dbg)
    daemon = processes[0][0]
    answers: dict[str, object] = {}

    async def scenario(session: Any) -> None:
        with anyio.fail_after(BOUND):
            answers["kill"] = (await session.call_tool("dbg_kill", {})).structured_content

    with _stopped(daemon):
        run_mcp(dbg, scenario)
    killed = answers["kill"]
    assert isinstance(killed, dict) and killed["ok"], killed
    assert killed["forced"] == len({pid for pid, _ in processes}) - 1, (killed, processes)
    left = [(pid, started) for pid, started in processes if procutil.alive(pid, started)]
    assert left == [], left


def test_the_fast_path_sends_no_op_the_client_answers() -> None:
    """Each op the client answers itself (`kill`, `mcp`, `sessions`...) goes
    straight to the full CLI: a stopped daemon of the session must not hold
    it. The fast path's list (it imports no op table) is the table's."""
    from dbgcore import entry
    from dbgcore.ops.table import builtin_table

    table = list(builtin_table())
    local = {word for op in table if op.send == "local" for word in (op.path[0], *op.aliases)}
    sent = {word for op in table if op.send != "local" for word in (op.path[0], *op.aliases)}
    assert local - sent == entry._LOCAL_WORDS


def test_the_fast_path_waits_for_a_stopped_daemon_as_long_as_the_cli() -> None:
    """The fast path (which imports no procutil) keeps its own copy of how
    often it looks whether the daemon is stopped, and for how long."""
    from dbgcore import entry

    assert (entry._STOP_CHECK, entry._STOPPED_GRACE) == \
        (procutil.STOP_CHECK, procutil.STOPPED_GRACE)
