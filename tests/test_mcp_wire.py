"""`dbg mcp` on the wire: raw lines written to its stdin, the answers checked
against JSON-RPC 2.0 (every request with an id answered, the spec's error
codes, notifications never answered), and a call in flight when stdin closes
answered before the server exits."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import Dbg

INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "wire-test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

PARSE, INVALID_REQUEST, NO_METHOD, INVALID_PARAMS = -32700, -32600, -32601, -32602

# (the line, the id the answer must carry, its error code); None: no answer.
CASES: list[tuple[str, str, Any, int | None]] = [
    ("garbage", "garbage", None, PARSE),
    ("half an object", '{"jsonrpc": "2.0", "id": 1, "meth', None, PARSE),
    ("not UTF-8", '{"jsonrpc": "2.0", "id": 1, "method": "\udcff"}', None, PARSE),
    ("deep nesting", "[" * 100_000, None, PARSE),
    ("a string", '"tools/list"', None, INVALID_REQUEST),
    ("a number", "17", None, INVALID_REQUEST),
    ("an empty batch", "[]", None, INVALID_REQUEST),
    ("a batch", '[{"jsonrpc": "2.0", "id": 2, "method": "ping"}]', None, INVALID_REQUEST),
    ("jsonrpc 1.0", '{"jsonrpc": "1.0", "id": 3, "method": "ping"}', 3, INVALID_REQUEST),
    ("no jsonrpc", '{"id": "four", "method": "ping"}', "four", INVALID_REQUEST),
    ("an object id", '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', None,
     INVALID_REQUEST),
    ("a null id", '{"jsonrpc": "2.0", "id": null, "method": "ping"}', None, INVALID_REQUEST),
    ("a boolean id", '{"jsonrpc": "2.0", "id": true, "method": "ping"}', None, INVALID_REQUEST),
    ("a fractional id", '{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', None,
     INVALID_REQUEST),
    ("no method", '{"jsonrpc": "2.0", "id": 5}', 5, INVALID_REQUEST),
    ("a numeric method", '{"jsonrpc": "2.0", "id": 6, "method": 6}', 6, INVALID_REQUEST),
    ("params a list", '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": [1]}', 7,
     INVALID_PARAMS),
    ("params a string", '{"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": "x"}', 8,
     INVALID_PARAMS),
    ("params without a name", '{"jsonrpc": "2.0", "id": 9, "method": "tools/call", '
     '"params": {"nme": "dbg_status"}}', 9, INVALID_PARAMS),
    ("unknown method", '{"jsonrpc": "2.0", "id": 10, "method": "no/such"}', 10, NO_METHOD),
    ("a bad notification", '{"jsonrpc": "2.0", "method": "notifications/x", "params": [1]}',
     None, None),
    ("a blank line", "   ", None, None),
]


def _serve(dbg: Dbg, lines: list[str], timeout: float = 60) -> tuple[list[dict[str, Any]], str]:
    """Write ``lines`` to a fresh `dbg mcp` (after the handshake), close its
    stdin, and return every message it answered and its stderr."""
    text = "\n".join([json.dumps(INIT), json.dumps(INITIALIZED), *lines]) + "\n"
    proc = subprocess.run([sys.executable, "-m", "dbgcore", "mcp"], cwd=dbg.cwd, env=dbg.env,
                          input=text.encode("utf-8", "surrogateescape"), capture_output=True,
                          timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    for answer in answers:
        assert answer["jsonrpc"] == "2.0", answer
        assert ("result" in answer) != ("error" in answer), answer
    assert answers[0]["id"] == "init" and "result" in answers[0], answers[0]
    return answers[1:], proc.stderr.decode()


@pytest.fixture(scope="module")
def wire(module_dbg: Dbg) -> list[dict[str, Any]]:
    """One server takes every case, one line each, ping after each: each
    case's answer (if any) must come before the ping's."""
    lines = []
    for i, (_name, line, _id, _code) in enumerate(CASES):
        lines += [line, json.dumps({"jsonrpc": "2.0", "id": f"ping-{i}", "method": "ping"})]
    answers, _ = _serve(module_dbg, lines)
    return answers


@pytest.mark.parametrize(("name", "line", "ident", "code"), CASES, ids=[c[0] for c in CASES])
def test_every_request_is_answered(wire: list[dict[str, Any]], name: str, line: str,
                                   ident: Any, code: int | None) -> None:
    i = next(n for n, case in enumerate(CASES) if case[0] == name)
    ping = next(n for n, a in enumerate(wire) if a.get("id") == f"ping-{i}")
    before = ping - 1 if i == 0 else next(
        n for n, a in enumerate(wire) if a.get("id") == f"ping-{i - 1}")
    between = wire[before + 1:ping] if i else wire[:ping]
    assert wire[ping]["result"] == {}, wire[ping]
    if code is None:
        assert between == [], between
        return
    assert len(between) == 1, (line, between)
    answer = between[0]
    assert "id" in answer and answer["id"] == ident, answer
    assert answer["error"]["code"] == code, answer
    assert isinstance(answer["error"]["message"], str) and answer["error"]["message"], answer


@pytest.mark.parametrize("timeout", [float("inf"), float("nan"), 0, -1, 1e10, "soon"])
def test_a_bad_timeout_is_an_error_result(module_dbg: Dbg, timeout: Any) -> None:
    call = {"jsonrpc": "2.0", "id": "t", "method": "tools/call",
            "params": {"name": "dbg_stack", "arguments": {"timeout": timeout}}}
    answers, err = _serve(module_dbg, [json.dumps(call)])  # inf and nan as JSON's extensions
    assert "Traceback" not in err, err
    (answer,) = answers
    result = answer["result"]
    assert result["isError"] is True, answer
    assert result["structuredContent"]["error"]["kind"] == "usage", answer
    assert "timeout" in result["structuredContent"]["error"]["message"], answer


@pytest.mark.usefixtures("pdb_ready")
def test_a_call_in_flight_when_stdin_closes_is_answered(dbg: Dbg) -> None:
    program = dbg.cwd / "nap.py"
    program.write_text("import time\ntime.sleep(2)\nprint('rested')\n")
    start = {"jsonrpc": "2.0", "id": "start", "method": "tools/call",
             "params": {"name": "dbg_start", "arguments": {"program": str(program),
                                                           "backend": "pdb"}}}
    cont = {"jsonrpc": "2.0", "id": "continue", "method": "tools/call",
            "params": {"name": "dbg_continue", "arguments": {"timeout": 30}}}
    proc = subprocess.Popen([sys.executable, "-m", "dbgcore", "mcp"], cwd=dbg.cwd, env=dbg.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for message in (INIT, INITIALIZED, start):
            proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
        assert answers[1]["id"] == "start", answers
        assert answers[1]["result"]["structuredContent"]["ok"], answers[1]
        began = time.monotonic()
        # stdin closes right after the continue is written, while it waits.
        proc.stdin.write(json.dumps(cont).encode() + b"\n")
        proc.stdin.close()
        rest = proc.stdout.read().decode().splitlines()
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
    took = time.monotonic() - began
    (answer,) = (json.loads(line) for line in rest)
    assert answer["id"] == "continue", answer
    ended = answer["result"]["structuredContent"]
    assert ended["ok"] and ended["state"] == "exited", ended
    assert took >= 1.5, took  # it did wait for the program


@pytest.mark.parametrize(("tool", "arguments"), [
    ("dbg_print", {"expression": "a\u0000b"}), ("dbg_print", {"expression": "a\nb"}),
    ("dbg_next", {"show": ["x\ny"]}), ("dbg_break", {"location": "f", "condition": "1\r"}),
    ("dbg_raw", {"text": "p 1\np 2"}),
], ids=["NUL", "newline", "--show", "--if", "raw"])
def test_one_newline_rule_over_mcp(module_dbg: Dbg, tool: str, arguments: dict[str, Any]) -> None:
    call = {"jsonrpc": "2.0", "id": "c", "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}
    (answer,), _ = _serve(module_dbg, [json.dumps(call)])
    error = answer["result"]["structuredContent"]["error"]
    assert (error["kind"], "must be a single line" in error["message"]) == ("usage", True), error
