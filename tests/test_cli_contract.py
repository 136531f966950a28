"""The CLI contract every backend shares: with --json exactly one JSON object on
stdout carrying ok/op/session/via and the payload keys of the op; errors as
{kind, message, hint}; exit codes 0 ok, 1 failed op, 2 usage, 3 unsupported.

One pdb session on cart.py, stopped in Cart.total's loop, serves the whole
module; tests that move the target come last and say so.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import Dbg, Result, Target

pytestmark = pytest.mark.usefixtures("pdb_ready")

ENVELOPE = {"ok", "op", "session", "via"}
SNAPSHOT = {"state", "reason", "thread", "location", "exit_code", "locals"}
BREAKPOINT = {"id", "file", "line", "function", "verified", "condition", "hits"}
ERROR_KINDS = {"usage", "no_session", "session_exists", "unsupported", "backend", "timeout",
               "not_stopped", "target_exited", "failed", "config", "internal"}
EXIT_BY_KIND = {"usage": 2, "config": 2, "unsupported": 3}


def one_object(result: Result) -> dict[str, Any]:
    """The single JSON object a --json command printed, and nothing else."""
    assert result.out.endswith("\n") and result.out.count("\n") == 1, result
    data = json.loads(result.out)
    assert isinstance(data, dict), result
    assert result.err == "", result
    return data


def envelope(data: dict[str, Any], op: str, session: str = "default",
             tool: str | None = "pdb") -> None:
    assert set(data) >= ENVELOPE, data
    assert isinstance(data["ok"], bool)
    assert data["op"] == op and data["session"] == session, data
    assert set(data["via"]) == {"tool", "version"}, data
    assert all(isinstance(v, str) for v in data["via"].values()), data
    if tool is not None:
        assert data["via"]["tool"] == tool, data
        assert re.fullmatch(r"\d+\.\d+\.\d+", data["via"]["version"]), data


def error_of(result: Result, op: str, kind: str, session: str = "default") -> dict[str, Any]:
    data = one_object(result)
    envelope(data, op, session, tool=None)
    assert data["ok"] is False, data
    assert set(data["error"]) >= {"kind", "message", "hint"}, data
    assert all(isinstance(data["error"][k], str) for k in ("kind", "message", "hint"))
    assert data["error"]["kind"] == kind, data
    assert data["error"]["message"], data
    assert result.code == EXIT_BY_KIND.get(kind, 1), (result.code, data)
    return data


def snapshot(data: dict[str, Any]) -> None:
    assert set(data) >= SNAPSHOT, data
    assert data["state"] in ("stopped", "running", "exited")
    if data["state"] == "stopped":
        assert set(data["location"]) == {"file", "line", "function"}, data
        assert isinstance(data["location"]["line"], int)
        assert data["exit_code"] is None
    if data["state"] == "exited":
        assert isinstance(data["exit_code"], int), data
    for variable in data["locals"]:
        assert {"name", "value", "type"} <= set(variable) <= {
            "name", "value", "type", "changed", "cut", "fields"}, variable


@pytest.fixture(scope="module")
def cart(module_dbg: Dbg, module_target: Any) -> Target:
    """cart.py, stopped at @loop for the module's tests."""
    target: Target = module_target("cart.py")
    result = module_dbg("--json", "start", "--backend", "pdb", "--break", target.loc("loop"), "--run",
                        str(target.path))
    data = one_object(result)
    assert result.code == 0 and data["ok"], data
    return target


# Ops that leave the stopped target where it is: argv, op, the payload keys.
READ_ONLY: list[tuple[list[str], str, set[str]]] = [
    (["break", "apply_discount"], "break", {"breakpoint"}),
    (["breaks"], "breaks", {"breakpoints"}),
    (["stack"], "stack", {"frames"}),
    (["frame", "0"], "frame", {"frame"}),
    (["locals"], "locals", {"variables"}),
    (["print", "total + 1"], "print", {"value", "type"}),
    (["set", "total", "0"], "set", {"value", "type"}),
    (["list"], "list", {"file", "lines"}),
    (["output"], "output", {"chunks", "cursor"}),
    (["raw", "p", "6*7"], "raw", {"output"}),
    (["status"], "status", {"name", "backend", "tool", "state", "program"}),
    (["tool"], "tool", {"tool", "version"}),
    (["sessions"], "sessions", {"sessions"}),
    (["hits"], "hits", {"hits"}),
    (["pause"], "pause", SNAPSHOT),
    (["wait"], "wait", SNAPSHOT),
]


@pytest.mark.parametrize(("argv", "op", "keys"), READ_ONLY, ids=[c[1] for c in READ_ONLY])
def test_ok_answer_is_one_object_with_the_payload_keys(
        module_dbg: Dbg, cart: Target, argv: list[str], op: str, keys: set[str]) -> None:
    result = module_dbg("--json", *argv)
    data = one_object(result)
    envelope(data, op, tool=None if op in ("sessions", "hits") else "pdb")
    assert data["ok"] is True and result.code == 0, data
    assert keys <= set(data), (keys - set(data), data)
    assert "error" not in data


def test_payload_shapes(module_dbg: Dbg, cart: Target) -> None:
    stack = module_dbg.json("stack")["frames"]
    assert [set(f) >= {"index", "function", "file", "line"} for f in stack] == [True] * 3
    assert [f["index"] for f in stack] == [0, 1, 2]
    variables = module_dbg.json("locals")["variables"]
    assert variables and all(set(v) == {"name", "value", "type"} for v in variables)
    assert all(isinstance(v["value"], str) for v in variables)
    for bp in module_dbg.json("breaks")["breakpoints"]:
        assert set(bp) >= BREAKPOINT, bp
        assert isinstance(bp["id"], int) and isinstance(bp["hits"], int)
        assert isinstance(bp["verified"], bool)
    value = module_dbg.json("print", "item")
    assert (value["type"], value["value"][:9]) == ("dict", "{'name': "), value
    sessions = module_dbg.json("sessions")["sessions"]
    assert sessions == [{"name": "default", "backend": "pdb", "tool": "pdb",
                         "state": "stopped", "program": str(cart.path)}]
    raw = module_dbg.json("raw", "p", "6*7")
    assert raw["output"].strip() == "42" and "stop" not in raw
    up = one_object(module_dbg("--json", "up"))
    envelope(up, "up")
    assert set(up["frame"]) >= {"index", "function", "file", "line"}
    assert (up["frame"]["index"], up["frame"]["function"]) == (1, "main"), up
    down = one_object(module_dbg("--json", "down"))
    envelope(down, "down")
    assert (down["frame"]["index"], down["frame"]["function"]) == (0, "total"), down


def test_text_answers_name_the_debugger_first(module_dbg: Dbg, cart: Target) -> None:
    for argv in (["locals"], ["print", "total"], ["stack"], ["breaks"], ["raw", "p", "1"]):
        result = module_dbg(*argv)
        assert result.code == 0 and result.err == "", result
        assert re.fullmatch(r"\[via pdb \d+\.\d+\.\d+\]", result.out.splitlines()[0]), result
        assert not result.out.lstrip().startswith("{")
    # Answers dbg gives by itself name no debugger.
    plain = module_dbg("backends")
    assert plain.code == 0 and not plain.out.startswith("[via"), plain
    assert re.search(r"^ready\s+pdb\b", plain.out, re.M), plain.out


def test_session_name_is_echoed(module_dbg: Dbg, cart: Target) -> None:
    data = one_object(module_dbg("--json", "-s", "nobody", "status"))
    assert data["session"] == "nobody"
    data = one_object(module_dbg("--json", "status", env={"DBG_SESSION": "default"}))
    assert (data["session"], data["ok"]) == ("default", True)
    data = one_object(module_dbg("--json", "status", env={"DBG_SESSION": "elsewhere"}))
    assert (data["session"], data["error"]["kind"]) == ("elsewhere", "no_session")


# Failing commands: argv, op, error kind (its exit code follows from the kind).
FAILURES: list[tuple[list[str], str, str]] = [
    (["break", "cart.py:abc"], "break", "usage"),
    (["break"], "break", "usage"),
    (["until", ":3"], "until", "usage"),
    (["frobnicate"], "frobnicate", "usage"),
    (["stack", "--levels", "0"], "stack", "usage"),
    (["--timeout", "-1", "stack"], "stack", "usage"),
    (["-s", "no//such", "stack"], "stack", "usage"),
    (["-s", "no/such", "stack"], "stack", "no_session"),
    (["print", "undefined_name"], "print", "failed"),
    (["frame", "42"], "frame", "failed"),
    (["unbreak", "99"], "unbreak", "failed"),
    (["disasm"], "disasm", "unsupported"),
    (["thread", "999999"], "thread", "failed"),
    (["catch", "not-a-class!"], "catch", "usage"),
    (["break", "apply_discount", "--log", "hi"], "break", "unsupported"),
    (["-s", "ghost", "locals"], "locals", "no_session"),
    (["-s", "ghost", "kill"], "kill", "no_session"),
]


@pytest.mark.parametrize(("argv", "op", "kind"), FAILURES,
                         ids=[" ".join(c[0]) for c in FAILURES])
def test_errors_are_one_object_and_exit_non_zero(
        module_dbg: Dbg, cart: Target, argv: list[str], op: str, kind: str) -> None:
    session = argv[argv.index("-s") + 1] if "-s" in argv else "default"
    data = error_of(module_dbg("--json", *argv), op, kind, session)
    assert data["error"]["kind"] in ERROR_KINDS
    if kind == "unsupported":
        assert "pdb" in data["error"]["message"] and "dbg raw" in data["error"]["message"]
        assert data["via"]["tool"] == "pdb"


@pytest.mark.parametrize(("argv", "op", "kind"), FAILURES,
                         ids=[" ".join(c[0]) for c in FAILURES])
def test_text_errors_are_one_line_on_stderr(
        module_dbg: Dbg, cart: Target, argv: list[str], op: str, kind: str) -> None:
    result = module_dbg(*argv)
    assert result.code == EXIT_BY_KIND.get(kind, 1), result
    assert result.out == "", result
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result
    assert "Traceback" not in result.err


def test_session_exists(module_dbg: Dbg, cart: Target) -> None:
    data = error_of(module_dbg("--json", "start", "--backend", "pdb", str(cart.path)), "start", "session_exists")
    assert "kill" in data["error"]["hint"]
    # The live session was not disturbed.
    assert module_dbg.json("status")["location"]["line"] == cart.lines["loop"]


def test_not_stopped_and_timeout_running(module_dbg: Dbg, module_target: Any) -> None:
    spin = module_target("spin.py")
    result = module_dbg("--json", "-s", "runner", "--timeout", "0.5", "start", "--backend", "pdb", "--run",
                        str(spin.path))
    data = one_object(result)
    envelope(data, "start", "runner")
    # Still running when --timeout passes is an answer, not an error.
    assert (result.code, data["ok"], data["state"]) == (0, True, "running"), data
    snapshot(data)
    for argv, op in ((["locals"], "locals"), (["step"], "step"), (["breaks"], "breaks")):
        error = error_of(module_dbg("--json", "-s", "runner", *argv), op, "not_stopped",
                         "runner")
        assert "pause" in error["error"]["hint"]
    assert module_dbg.json("-s", "runner", "kill")["ok"]


# -- these move the shared target, so they run last ------------------------------


def test_stop_snapshots_of_every_moving_op(module_dbg: Dbg, cart: Target) -> None:
    for bp in module_dbg.json("breaks")["breakpoints"]:
        assert module_dbg.json("unbreak", str(bp["id"]))["ok"]
    for argv, op in ((["step"], "step"), (["next"], "next"), (["finish"], "finish"),
                     (["until", cart.loc("after-discount")], "until"),
                     (["c"], "continue")):
        result = module_dbg("--json", *argv)
        data = one_object(result)
        envelope(data, op)
        assert data["ok"] and result.code == 0, data
        snapshot(data)
    assert data["state"] == "exited" and data["exit_code"] == 0, data
    # Nothing to inspect once the program is gone, and it says so.
    error = error_of(module_dbg("--json", "locals"), "locals", "target_exited")
    assert "restart" in error["error"]["hint"]
    restarted = one_object(module_dbg("--json", "restart"))
    envelope(restarted, "restart")
    snapshot(restarted)
    assert restarted["state"] == "stopped"


def test_kill_answers_and_then_no_session(module_dbg: Dbg, cart: Target) -> None:
    data = one_object(module_dbg("--json", "kill"))
    envelope(data, "kill")
    assert data["ok"] is True
    error_of(module_dbg("--json", "stack"), "stack", "no_session")
    error_of(module_dbg("--json", "kill"), "kill", "no_session")
