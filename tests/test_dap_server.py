"""`dbg dap`, dbg as a DAP server: driven by VS Code's own DAP test client
(npm @vscode/debugadapter-testsupport, installed by scripts/setup) on
debugpy, gdb and pdb; and a DAP client that joins a session an agent drives
through the CLI, sees its stops as they happen, is refused what a
read-only joiner may not do, and leaves the session to the agent."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from builds import build_c, copy_target
from dapclient import DapClient

from dbgcore.testing import DBG, Dbg, require, require_backend

CLIENT_MODULES = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) \
    / "dbg-dap-client" / "node_modules"
CLIENT_SCRIPT = Path(__file__).with_name("dap_vscode_client.js")


def _adapter(tmp_path: Path) -> Path:
    """An executable that runs this checkout's `dbg` (DebugClient spawns one
    program with one argument)."""
    wrapper = tmp_path / "dbg-adapter"
    wrapper.write_text("#!/bin/sh\nexec " + " ".join(f"'{w}'" for w in DBG) + ' "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


@pytest.mark.parametrize("backend", ["debugpy", "gdb", "pdb"])
def test_vscode_debug_client_launches_stops_reads_variables_and_continues(
        dbg: Dbg, tmp_path: Path, backend: str) -> None:
    require(shutil.which("node") is not None
            and (CLIENT_MODULES / "@vscode" / "debugadapter-testsupport").is_dir(),
            "node and @vscode/debugadapter-testsupport (scripts/setup installs it)")
    require_backend(backend)
    if backend == "gdb":
        cart = copy_target("native/cart.c", dbg.cwd)
        program, source = build_c(cart.path), cart.path
    else:
        cart = copy_target("cart.py", dbg.cwd)
        program = source = cart.path
    env = {**dbg.env, "DBG_DAP_CLIENT_MODULES": str(CLIENT_MODULES),
           "DBG_DAP_ADAPTER": str(_adapter(tmp_path)), "DAP_PROGRAM": str(program),
           "DAP_SOURCE": str(source), "DAP_BACKEND": backend,
           "DAP_LINE": str(cart.lines["discount"]), "DAP_VARIABLE": "total",
           "DAP_SESSION": f"vs-{backend}"}
    proc = subprocess.run(["node", str(CLIENT_SCRIPT)], env=env, cwd=dbg.cwd,
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "percent" in seen["variables"] and seen["value"] == "19.25", seen
    # The client's disconnect ended the session it launched: nothing is left.
    assert dbg("sessions").out.strip() == "no sessions"


def _listen(dbg: Dbg, session: str, *options: str) -> tuple[subprocess.Popen[str], int, str]:
    proc = subprocess.Popen([*DBG, "dap", "--listen", "0", "--session", session, *options],
                            cwd=dbg.cwd, env=dbg.env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"listening on 127\.0\.0\.1:(\d+) .*token in (\S+)$", line.strip())
    assert found, (line, proc.stderr.read() if proc.poll() is not None else "")
    token_file = Path(found.group(2))
    assert token_file.stat().st_mode & 0o077 == 0, "the token file is the user's alone"
    return proc, int(found.group(1)), token_file.read_text().strip()


def _commands_by(dbg: Dbg) -> list[tuple[str, str | None]]:
    db = sqlite3.connect(dbg.home / "store.sqlite3")
    try:
        return [(op, by) for op, by in db.execute("SELECT op, by FROM commands ORDER BY id")]
    finally:
        db.close()


def test_a_dap_client_joins_the_agents_session_and_sees_its_next_stop(dbg: Dbg) -> None:
    cart = copy_target("cart.py", dbg.cwd)
    started = dbg.json("-s", "agent", "start", "--backend", "pdb", "--break",
                       cart.loc("loop"), "--run", str(cart.path))
    assert started["ok"] and started["location"]["line"] == cart.lines["loop"], started
    proc, port, token = _listen(dbg, "agent")
    try:
        # A wrong token is refused, and the connection closed.
        stranger = DapClient.over_socket(port)
        assert stranger.request("initialize", {"clientID": "x"})["success"]
        refused = stranger.request("attach", {"session": "agent", "token": "nope"})
        assert not refused["success"] and "token" in refused["message"], refused

        client = DapClient.over_socket(port)
        assert client.request("initialize", {"clientID": "vscode", "token": token})["success"]
        assert client.request("attach", {"session": "agent"})["success"]
        client.event("initialized")
        assert client.request("configurationDone")["success"]
        # A late joiner is told where the program is at once.
        first = client.event("stopped", timeout=20)
        assert first["body"]["reason"] == "breakpoint", first
        sessions = dbg("sessions").out
        assert "dap client vscode (pid" in sessions and "read-only" in sessions, sessions

        # Read-only: driving is refused, saying how to allow it.
        no = client.request("continue", {"threadId": 1})
        assert not no["success"] and "--drive" in no["message"], no
        no_break = client.request("setBreakpoints", {"source": {"path": str(cart.path)},
                                                     "breakpoints": [{"line": 1}]})
        assert not no_break["success"], no_break

        # The agent goes on through the CLI; the client sees that stop.
        stack = client.request("stackTrace", {"threadId": 1})["body"]["stackFrames"]
        assert stack[0]["line"] == cart.lines["loop"]
        assert dbg("-s", "agent", "next").code == 0
        second = client.event("stopped", timeout=30)
        assert second["body"]["reason"] == "step", second
        frames = client.request("stackTrace", {"threadId": 1})["body"]["stackFrames"]
        assert frames[0]["line"] == cart.lines["loop"] + 1, frames[0]
        scopes = client.request("scopes", {"frameId": frames[0]["id"]})["body"]["scopes"]
        variables = client.request("variables", {
            "variablesReference": scopes[0]["variablesReference"]})["body"]["variables"]
        by_name = {v["name"]: v for v in variables}
        assert by_name["cost"]["value"] == "3.0", variables
        # A nested value opens as its own reference (self.items).
        fields = client.request("variables", {
            "variablesReference": by_name["self"]["variablesReference"]})["body"]["variables"]
        assert [f["name"] for f in fields] == ["items"], fields
        assert client.request("evaluate", {"expression": "cost * 2",
                                           "frameId": frames[0]["id"]})["body"]["result"] == "6.0"
        garbled = client.request("scopes", {"frameId": "first"})
        assert not garbled["success"] and "bad arguments" in garbled["message"], garbled
        stale = client.request("variables", {"variablesReference": 999})
        assert not stale["success"] and "scopes again" in stale["message"], stale
        unknown = client.request("stepBack", {"threadId": 1})
        assert not unknown["success"] and "does not support" in unknown["message"], unknown

        # One record for both: the client's ops are marked as the client's.
        recorded = _commands_by(dbg)
        assert ("next", None) in recorded, recorded
        assert any(op == "stack" and by and by.startswith("dap client vscode")
                   for op, by in recorded), recorded

        assert client.request("disconnect", {})["success"]
        # A joined session is left to the agent.
        assert dbg.json("-s", "agent", "status")["state"] == "stopped"
    finally:
        dbg("-s", "agent", "kill")
        # The listening server ends with its session.
        try:
            proc.wait(timeout=15)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    assert "dap client" not in dbg("sessions").out


def test_a_joiner_allowed_to_drive_continues_and_sets_breakpoints(dbg: Dbg) -> None:
    cart = copy_target("cart.py", dbg.cwd)
    assert dbg.json("-s", "agent", "start", "--backend", "pdb", str(cart.path))["ok"]
    proc = subprocess.Popen([*DBG, "-s", "agent", "dap", "--drive"], cwd=dbg.cwd, env=dbg.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        client = DapClient.over_process(proc)  # type: ignore[arg-type]
        assert client.request("initialize", {"clientID": "nvim-dap"})["success"]
        bad = client.request("launch", {})
        assert not bad["success"] and "program" in bad["message"], bad
        assert client.request("attach", {})["success"]  # the session -s names
        client.event("initialized")
        placed = client.request("setBreakpoints", {
            "source": {"path": str(cart.path)},
            "breakpoints": [{"line": cart.lines["discount"]}]})["body"]["breakpoints"]
        assert placed[0]["verified"] and placed[0]["line"] == cart.lines["discount"], placed
        assert client.request("configurationDone")["success"]
        assert client.event("stopped", timeout=20)["body"]["reason"] == "entry"
        assert client.request("continue", {"threadId": 1})["success"]
        stop = client.event("stopped", timeout=30)
        assert stop["body"]["reason"] == "breakpoint", stop
        # What the program printed on the way came before the stop.
        printed = "".join(e["body"]["output"] for e in client.seen_events
                          if e["event"] == "output" and e["body"]["category"] == "stdout")
        assert printed == "subtotal: 19.25\n", client.seen_events
        status = dbg.json("-s", "agent", "status")
        assert status["location"]["line"] == cart.lines["discount"], status
        assert client.request("disconnect", {})["success"]
        assert proc.wait(timeout=15) == 0
        # Still the agent's: the joiner's disconnect did not end it.
        assert dbg.json("-s", "agent", "status")["state"] == "stopped"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sessions_shows_no_client_whose_server_has_gone(dbg: Dbg) -> None:
    cart = copy_target("cart.py", dbg.cwd)
    assert dbg.json("-s", "agent", "start", "--backend", "pdb", str(cart.path))["ok"]
    proc, port, token = _listen(dbg, "agent")
    try:
        client = DapClient.over_socket(port)
        assert client.request("initialize", {"clientID": "emacs", "token": token})["success"]
        assert client.request("attach", {"session": "agent"})["success"]
        assert "dap client emacs" in dbg("sessions").out
        proc.kill()  # no chance to say goodbye
        proc.wait()
        shown = dbg("sessions").out
        assert "agent: " in shown and "dap client" not in shown, shown
        assert not list((dbg.home / "sessions" / "agent" / "dap-clients").glob("*.json"))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(("backend", "target"), [("ghci", "haskell/cart.hs"),
                                                 ("jdb", "java/Cart.java")])
def test_a_launch_on_a_console_debugger_stops_shows_locals_and_ends(
        dbg: Dbg, backend: str, target: str) -> None:
    require_backend(backend)
    cart = copy_target(target, dbg.cwd)
    proc = subprocess.Popen([*DBG, "dap"], cwd=dbg.cwd, env=dbg.env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        client = DapClient.over_process(proc)  # type: ignore[arg-type]
        assert client.request("initialize", {"clientID": "probe"})["success"]
        launched = client.request("launch", {"program": str(cart.path), "backend": backend,
                                             "session": f"pty-{backend}"}, timeout=120)
        assert launched["success"], launched
        client.event("initialized")
        line = cart.lines["discount"]
        placed = client.request("setBreakpoints", {"source": {"path": str(cart.path)},
                                                   "breakpoints": [{"line": line}]})
        assert placed["body"]["breakpoints"][0]["verified"], placed
        assert client.request("configurationDone")["success"]
        assert client.event("stopped", timeout=90)["body"]["reason"] == "breakpoint"
        frames = client.request("stackTrace", {"threadId": 1})["body"]["stackFrames"]
        assert frames[0]["line"] == line, frames
        scopes = client.request("scopes", {"frameId": frames[0]["id"]})["body"]["scopes"]
        variables = client.request("variables", {
            "variablesReference": scopes[0]["variablesReference"]})["body"]["variables"]
        assert {v["name"]: v["value"] for v in variables}["total"] == "19.25", variables
        assert client.request("continue", {"threadId": 1})["success"]
        client.event("terminated", timeout=90)
        assert client.request("disconnect", {})["success"]
        assert proc.wait(timeout=30) == 0
        assert dbg("sessions").out.strip() == "no sessions"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
