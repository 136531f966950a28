"""`dbg mcp`'s fork server: a session started over MCP gets a daemon forked
off the fork server (not a new interpreter), with the environment and working
folder a daemon started the old way gets, and the fork server ends with the
MCP server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import pytest

from dbgcore.shared import procutil

if TYPE_CHECKING:
    from conftest import Dbg

pytestmark = pytest.mark.usefixtures("pdb_ready")

INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "forkserver-test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

PROGRAM = "import os\nvalue = 1  # @here\nprint('done', value)\n"


def _send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write(json.dumps(message).encode() + b"\n")
    stdin.flush()


def _call(proc: subprocess.Popen[bytes], ident: str, tool: str, **arguments: Any) -> Any:
    assert proc.stdin is not None and proc.stdout is not None
    _send(proc.stdin, {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments}})
    answer = json.loads(proc.stdout.readline())
    assert answer["id"] == ident, answer
    return answer["result"]["structuredContent"]


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry))
    return found


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


def _environ(pid: int) -> dict[str, str]:
    pairs = Path(f"/proc/{pid}/environ").read_bytes().decode("utf-8", "replace").split("\0")
    return dict(p.split("=", 1) for p in pairs if "=" in p)


def _mcp_session(dbg: Dbg, env: dict[str, str], session: str) -> dict[str, Any]:
    """Start `session` on a pdb program through a fresh `dbg mcp`; what its
    daemon is (pid, command line, environment, folder) and what became of the
    server's helper processes once the server's stdin closed."""
    program = dbg.cwd / "prog" / "here.py"
    program.parent.mkdir(exist_ok=True)
    program.write_text(PROGRAM)
    proc = subprocess.Popen([sys.executable, "-m", "dbgcore", "mcp"], cwd=dbg.cwd, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        _send(proc.stdin, INIT)
        assert json.loads(proc.stdout.readline())["id"] == "init"
        _send(proc.stdin, INITIALIZED)
        helpers = [p for p in _children(proc.pid)
                   if "dbgcore.start.forkhelper" in _cmdline(p)]
        snap = _call(proc, "start", "dbg_start", program=str(program), backend="pdb",
                     breaks=["here.py:2"], run=True, session=session)
        assert snap["ok"] and snap["location"]["line"] == 2, snap
        status = json.loads((dbg.home / "sessions" / session / "status.json").read_text())
        daemon = int(status["pid"])
        seen = {"daemon": daemon, "cmdline": _cmdline(daemon), "env": _environ(daemon),
                "cwd": os.readlink(f"/proc/{daemon}/cwd"), "helpers": helpers}
        killed = _call(proc, "kill", "dbg_kill", session=session)
        assert killed["ok"], killed
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(procutil.alive(h) for h in helpers):
            time.sleep(0.05)
        seen["helpers_alive"] = [h for h in helpers if procutil.alive(h)]
        return seen
    finally:
        proc.kill()
        proc.wait()


def test_an_mcp_session_is_forked_off_the_fork_server(dbg: Dbg) -> None:
    forked = _mcp_session(dbg, dict(dbg.env), "forked")
    # The server started exactly one helper, and the daemon is a fork of it:
    # its command line is the helper's, not `python -m dbgcore.daemon.server`.
    assert len(forked["helpers"]) == 1, forked
    assert forked["cmdline"][-2:] == ["-m", "dbgcore.start.forkhelper"], forked["cmdline"]
    # The helper ended with the server: no process outlives its parent.
    assert forked["helpers_alive"] == [], forked

    old = _mcp_session(dbg, {**dbg.env, "DBG_NO_FORK_SERVER": "1"}, "spawned")
    assert old["helpers"] == [] and old["cmdline"][-3:] == ["-m", "dbgcore.daemon.server", "spawned"]
    # What the daemon runs with is what a new interpreter gets.
    old["env"].pop("DBG_NO_FORK_SERVER")
    assert forked["env"] == old["env"]
    assert forked["cwd"] == old["cwd"] == str(dbg.cwd.resolve())


def _listing(dbg: Dbg, env: dict[str, str]) -> Any:
    lines = [INIT, INITIALIZED, {"jsonrpc": "2.0", "id": "list", "method": "tools/list"}]
    out = subprocess.run([sys.executable, "-m", "dbgcore", "mcp"], cwd=dbg.cwd, env=env,
                         input="".join(json.dumps(m) + "\n" for m in lines).encode(),
                         capture_output=True, timeout=60, check=True).stdout
    answers = [json.loads(line) for line in out.decode().splitlines()]
    return next(a for a in answers if a.get("id") == "list")["result"]


def test_the_listing_is_the_same_with_the_helpers_support(dbg: Dbg) -> None:
    """The tools' descriptions name the backends that lack an op: the fork
    server's helper finds that with the plugins it loaded (so `dbg mcp` does
    not load every backend's class itself), and says what the server would."""
    helped = _listing(dbg, dict(dbg.env))
    alone = _listing(dbg, {**dbg.env, "DBG_NO_FORK_SERVER": "1"})
    assert helped == alone
    described = " ".join(tool["description"] for tool in helped["tools"])
    assert "Not on:" in described, described


def test_a_daemon_forked_off_the_helper_takes_the_host_it_made(dbg: Dbg) -> None:
    """The helper makes the plugin host and op table once, before it forks:
    a daemon forked off it uses that copy (with every backend registered),
    not a host of its own made at each start; any other daemon makes its own."""
    script = (
        "from dbgcore.daemon import server as daemon\n"
        "daemon.preload()\n"
        "made = daemon.prepared_front\n"
        "assert made is not None and made.table.find('start') is not None\n"
        "d = daemon.Daemon('prepared', 60.0)\n"
        "daemon.prepared_front = None\n"
        "e = daemon.Daemon('alone', 60.0)\n"
        "print(d.front is made, e.front is not made and e.front.table.find('start') is not None)\n"
        "d.store.close(); e.store.close()\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=dbg.cwd, env=dbg.env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True"], out.stdout
