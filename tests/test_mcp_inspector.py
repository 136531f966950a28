"""dbg's MCP server driven by clients written elsewhere: the MCP Inspector's
CLI (npm `@modelcontextprotocol/inspector`, installed by scripts/setup into a
cache folder) over stdio, and `dbg mcp --http` over the SDK's streamable
HTTP, where a request without the bearer token is refused.

The Inspector 0.15.0 (its last release for Node 20) sends no headers of
its own over HTTP, so over HTTP it is the refused client; the tools there
are called by the SDK's own streamable HTTP client with the token."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from dbgcore.testing import require

if TYPE_CHECKING:
    from dbgcore.testing import Dbg

PACKAGE = (Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "dbg-mcp-inspector"
           / "node_modules" / "@modelcontextprotocol" / "inspector")
#: What `mcp-inspector --cli` runs, in a node of its own: called directly for
#: each tool call (the launcher costs some 8 s more per call here).
INSPECTOR = PACKAGE / "cli" / "build" / "index.js"
#: The package's own command (`npx @modelcontextprotocol/inspector`).
LAUNCHER = PACKAGE / "cli" / "build" / "cli.js"

PROGRAM = "def add(a, b):\n    total = a + b\n    return total  # @ret\n\n\nprint(add(2, 3))\n"

SERVER = [sys.executable, "-m", "dbgcore", "mcp"]


def inspector_ready() -> str:
    node = shutil.which("node")
    require(node is not None and INSPECTOR.exists(),
            f"the MCP Inspector's CLI (scripts/setup installs it with npm into "
            f"{PACKAGE.parents[1]})")
    assert node is not None
    return node


def inspect(dbg: Dbg, target: list[str], *method: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([inspector_ready(), str(INSPECTOR), *target, *method],
                          capture_output=True, text=True, timeout=90, env=dbg.env,
                          cwd=dbg.cwd, stdin=subprocess.DEVNULL)


def call(dbg: Dbg, tool: str, **args: Any) -> dict[str, Any]:
    """One tools/call by the Inspector (each is its own `dbg mcp`), its structured result."""
    pairs = [f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in args.items()]
    done = inspect(dbg, SERVER, "--method", "tools/call", "--tool-name", tool,
                   *[a for p in pairs for a in ("--tool-arg", p)])
    assert done.returncode == 0, (done.stdout, done.stderr)
    result = json.loads(done.stdout)
    assert not result.get("isError"), result
    structured: dict[str, Any] = result["structuredContent"]
    return structured


def test_the_inspector_lists_and_calls_dbg_tools_over_stdio(dbg: Dbg, tmp_path: Path) -> None:
    program = tmp_path / "adder.py"
    program.write_text(PROGRAM)
    # The listing through the package's command, in its --cli mode.
    listed = subprocess.run([inspector_ready(), str(LAUNCHER), "--cli", *SERVER,
                             "--method", "tools/list"], capture_output=True, text=True,
                            timeout=90, env=dbg.env, cwd=dbg.cwd, stdin=subprocess.DEVNULL)
    assert listed.returncode == 0, listed.stderr
    names = {t["name"] for t in json.loads(listed.stdout)["tools"]}
    assert {"dbg_start", "dbg_break", "dbg_continue", "dbg_locals", "dbg_kill",
            "dbg_more"} <= names, names
    dbg.sessions.add("insp")
    started = call(dbg, "dbg_start", program=str(program), session="insp", backend="debugpy")
    assert started["state"] == "stopped" and started["reason"] == "entry", started
    bp = call(dbg, "dbg_break", location="adder.py:3", session="insp")["breakpoint"]
    stop = call(dbg, "dbg_continue", session="insp")
    assert stop["reason"] == "breakpoint" and stop["hit_breakpoints"] == [bp["id"]], stop
    assert stop["location"]["line"] == 3, stop
    values = {v["name"]: v["value"] for v in call(dbg, "dbg_locals", session="insp")["variables"]}
    assert values == {"a": "2", "b": "3", "total": "5"}, values
    assert call(dbg, "dbg_kill", session="insp")["ok"]


@contextmanager
def http_server(dbg: Dbg) -> Iterator[tuple[str, str, Path]]:
    """`dbg mcp --http 0`: its URL, token and token file while it runs."""
    proc = subprocess.Popen([*SERVER, "--http", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dbg.env, cwd=dbg.cwd,
                            stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/mcp) .*token in (\S+)\)", line)
        assert found, (line, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        path = Path(found.group(2))
        yield found.group(1), path.read_text().strip(), path
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert not path.exists(), "the token file outlived the server"


def post(url: str, headers: dict[str, str]) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    request = urllib.request.Request(url, body, method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_mcp_over_http_with_a_token(dbg: Dbg, tmp_path: Path) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    program = tmp_path / "adder.py"
    program.write_text(PROGRAM)
    dbg.sessions.add("web")
    with http_server(dbg) as (url, token, path):
        assert path.stat().st_mode & 0o777 == 0o600
        assert url.startswith("http://127.0.0.1:")
        assert post(url, {}) == 401
        assert post(url, {"Authorization": "Bearer " + token[:-1]}) == 401
        assert post(url, {"Authorization": token}) == 401

        async def scenario() -> dict[str, Any]:
            async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) \
                    as client, streamable_http_client(url, http_client=client) as streams, \
                    ClientSession(*streams[:2]) as session:
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                assert {"dbg_start", "dbg_locals", "dbg_more"} <= names

                async def tool(name: str, **args: Any) -> dict[str, Any]:
                    result = await session.call_tool(name, {"session": "web", **args})
                    assert not result.is_error, result
                    assert result.structured_content is not None
                    return dict(result.structured_content)

                await tool("dbg_start", program=str(program), breaks=["adder.py:3"],
                           run=True)
                out = await tool("dbg_locals")
                await tool("dbg_kill")
                return out

        values = {v["name"]: v["value"] for v in anyio.run(scenario)["variables"]}
        assert values == {"a": "2", "b": "3", "total": "5"}, values


def test_the_inspector_without_the_token_is_refused_over_http(dbg: Dbg) -> None:
    inspector_ready()
    with http_server(dbg) as (url, _token, _path):
        refused = inspect(dbg, [url], "--method", "tools/list")
    assert refused.returncode != 0, refused
    assert "unauthorized: missing token" in refused.stderr, refused


@pytest.mark.parametrize("port", ["-1", "65536", "x"])
def test_a_bad_http_port_is_one_line(dbg: Dbg, port: str) -> None:
    result = dbg("mcp", "--http", port)
    assert result.code != 0 and "Traceback" not in result.err, result
    assert len(result.err.strip().splitlines()) <= 2, result
