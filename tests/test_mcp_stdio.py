"""`dbg mcp`'s stdio: read in the event loop from a pipe, by a thread from a
file; answers written from the loop while the pipe has room for them, by a
thread once it may not (a client that reads its answers late)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conftest import Dbg

INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "stdio-test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _lines(count: int) -> list[dict[str, Any]]:
    """The handshake, then ``count`` tool listings (~10 KB each)."""
    return [INIT, INITIALIZED,
            *({"jsonrpc": "2.0", "id": i, "method": "tools/list"} for i in range(count))]


def _answers(out: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.decode().splitlines()]


def _check(answers: list[dict[str, Any]], count: int) -> None:
    """Each request answered once and whole (JSON-RPC does not order the
    answers: the reader answers a line that is not JSON at once)."""
    assert answers[0]["id"] == "init" and "result" in answers[0], answers[0]
    listings = [a for a in answers if isinstance(a.get("id"), int)]
    assert sorted(a["id"] for a in listings) == list(range(count))
    assert len({json.dumps(a["result"], sort_keys=True) for a in listings}) == 1
    assert [a["error"]["code"] for a in answers if "id" in a and a["id"] is None] == [-32700]
    assert {"jsonrpc": "2.0", "id": "last", "result": {}} in answers
    assert len(answers) == count + 3


def _text(count: int) -> bytes:
    """:func:`_lines`, then a line that is not JSON and a ping."""
    lines = [json.dumps(m) for m in _lines(count)]
    lines += ["not json", json.dumps({"jsonrpc": "2.0", "id": "last", "method": "ping"})]
    return ("\n".join(lines) + "\n").encode()


def test_answers_more_than_the_pipe_holds_in_order(dbg: Dbg) -> None:
    """200 listings (2 MB of answers) sent at once: the pipe to the client
    fills while it writes, and every answer still comes, whole and in order."""
    proc = subprocess.run([sys.executable, "-m", "dbgcore", "mcp"], cwd=dbg.cwd, env=dbg.env,
                          input=_text(200), capture_output=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    _check(_answers(proc.stdout), 200)


def test_requests_from_a_file(dbg: Dbg) -> None:
    """stdin a regular file (which the event loop cannot wait on) and stdout
    a file: read and answered alike."""
    requests, answers = dbg.cwd / "requests.jsonl", dbg.cwd / "answers.jsonl"
    requests.write_bytes(_text(3))
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        proc = subprocess.run([sys.executable, "-m", "dbgcore", "mcp"], cwd=dbg.cwd,
                              env=dbg.env, stdin=stdin, stdout=stdout,
                              stderr=subprocess.PIPE, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    _check(_answers(answers.read_bytes()), 3)


def _raw_answers(dbg: Dbg, version: str, calls: list[dict[str, Any]]) -> dict[Any, bytes]:
    """Each answer's line as written, by id, to ``calls`` (params of
    tools/call, ids 0...) after a handshake in ``version``."""
    init = {**INIT, "params": {**INIT["params"], "protocolVersion": version}}
    lines = [init, INITIALIZED, *({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                  "params": params} for i, params in enumerate(calls))]
    text = "\n".join(json.dumps(m) for m in lines) + "\n"
    proc = subprocess.run([sys.executable, "-m", "dbgcore", "mcp"], cwd=dbg.cwd, env=dbg.env,
                          input=text.encode(), capture_output=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    return {json.loads(line)["id"]: line for line in proc.stdout.splitlines()}


def test_a_plain_tool_call_is_answered_as_the_sdk_answers_it(dbg: Dbg) -> None:
    """A tools/call with a name and arguments is answered by the transport
    (no SDK on its way); with other `_meta` it goes through the SDK. Both
    answers are the same bytes, a result and an error result alike, in an
    older protocol version too (the SDK shapes a result by the version)."""
    calls = [{"name": "dbg_sessions", "arguments": {}},
             {"name": "dbg_locals", "arguments": {"session": "none-here"}},
             {"name": "dbg_no_such_tool"},
             {"name": "dbg_print", "arguments": None, "_meta": {"progressToken": 7}}]
    through_sdk = [{**call, "_meta": {"dbg-test": True}} for call in calls]
    for version in ("2025-06-18", "2024-11-05"):
        answers = _raw_answers(dbg, version, calls + through_sdk)
        assert len(answers) == 1 + 2 * len(calls), answers
        for i in range(len(calls)):
            plain, sdk = answers[i], answers[i + len(calls)]
            assert plain.replace(b'"id":%d,' % i, b'"id":X,') == \
                sdk.replace(b'"id":%d,' % (i + len(calls)), b'"id":X,'), (version, plain, sdk)
        first = json.loads(answers[0])["result"]
        assert first["content"][0]["text"] == "no sessions", first
        assert first["structuredContent"]["sessions"] == [], first
        assert json.loads(answers[1])["result"]["isError"] is True


def test_which_tool_calls_the_transport_answers() -> None:
    """A name, arguments (or none) and a progress token: the transport's; a
    task, other `_meta`, arguments that are no object, another method: the SDK's."""
    import mcp_types as types

    from dbgcore.frontends.mcp.stdio import plain_call

    def request(params: dict[str, Any], method: str = "tools/call") -> types.JSONRPCRequest:
        return types.JSONRPCRequest(jsonrpc="2.0", id=1, method=method, params=params)

    assert plain_call(request({"name": "dbg_next"})) == ("dbg_next", None)
    assert plain_call(request({"name": "dbg_print", "arguments": {"expression": "x"},
                               "_meta": {"progressToken": 3}})) == ("dbg_print",
                                                                    {"expression": "x"})
    for params in ({"name": "dbg_next", "task": {"ttl": 1}},
                   {"name": "dbg_next", "_meta": {"progressToken": 3, "other": 1}},
                   {"name": "dbg_next", "arguments": [1]}, {"nme": "dbg_next"}, {"name": 3}):
        assert plain_call(request(params)) is None, params
    assert plain_call(request({"name": "dbg_next"}, "tools/list")) is None
