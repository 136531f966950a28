"""dbg-node on real Node.js, through dbg's testing kit (dbgcore.testing):
the kit's backend suite, then what is particular to JavaScript."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from dbgcore.shared import procutil
from dbgcore.testing import BackendSuite, Dbg, marked_lines, require_backend

LEDGER = Path(__file__).resolve().parent / "programs" / "ledger"
MAIN = LEDGER / "ledger.js"
LINES = marked_lines(MAIN)
MONEY = marked_lines(LEDGER / "lib" / "money.js")


class TestNodeSuite(BackendSuite):
    """The kit's suite: what every dbg backend owes its users."""

    backend = "node"
    program = MAIN


@pytest.fixture
def node(dbg: Dbg) -> Dbg:
    require_backend("node")
    return dbg


def start(dbg: Dbg, *options: str, program: Path = MAIN) -> dict[str, Any]:
    snap = dbg.json("start", "--backend", "node", *options, str(program))
    assert snap["ok"], snap
    return snap


def at(mark: str) -> str:
    return f"ledger.js:{LINES[mark]}"


def test_a_folder_with_package_json_picks_node_and_runs_its_main(node: Dbg) -> None:
    snap = node.json("start", "--break", at("loop"), "--run", str(LEDGER))
    assert snap["ok"] and snap["via"]["tool"] == "node", snap
    assert snap["location"]["line"] == LINES["loop"], snap


def test_break_by_function_and_by_class_method(node: Dbg) -> None:
    start(node)
    fee = node.json("break", "fee")
    assert fee["ok"] and fee["breakpoint"]["line"] == LINES["fee"], fee
    deposit = node.json("break", "Account.deposit")
    assert deposit["ok"] and deposit["breakpoint"]["line"] == LINES["deposit"], deposit
    first = node.json("continue")
    assert (first["reason"], first["location"]["function"], first["location"]["line"]) == (
        "breakpoint", "fee", LINES["fee"]), first
    second = node.json("continue")
    assert second["location"]["line"] == LINES["deposit"], second
    missing = node("break", "no_such_function")
    assert missing.code == 1 and "no function no_such_function" in missing.err, missing
    past = node("break", "ledger.js:999")
    assert past.code == 1 and "line 999 is past the end of" in past.err, past


def test_a_file_not_loaded_yet_binds_when_it_loads(node: Dbg) -> None:
    # At the entry stop, lib/money.js is not required yet.
    start(node)
    bp = node.json("break", f"lib/money.js:{MONEY['money']}")
    assert bp["ok"], bp
    hit = node.json("continue")
    assert hit["reason"] == "breakpoint", hit
    assert (Path(hit["location"]["file"]).name, hit["location"]["line"]) == (
        "money.js", MONEY["money"]), hit


def test_a_condition_stops_only_where_it_holds(node: Dbg) -> None:
    start(node)
    bp = node.json("break", at("loop"), "--if", "i === 3")
    assert bp["ok"] and bp["breakpoint"]["condition"] == "i === 3", bp
    hit = node.json("continue")
    assert hit["reason"] == "breakpoint", hit
    assert node.json("print", "i")["value"] == "3"
    assert node.json("print", "total")["value"] == "300"


def test_next_goes_by_line_and_step_in_and_out(node: Dbg) -> None:
    start(node, "--break", at("loop"), "--run")
    # The for line holds two V8 stops (i++ and i < 5); `next` is one line.
    header = node.json("next")
    assert header["location"]["line"] == LINES["loop"] - 1, header
    body = node.json("next")
    assert body["location"]["line"] == LINES["loop"], body
    assert node.json("unbreak", "1")["ok"]
    node.json("until", at("call-fee"))
    into = node.json("step")
    assert (into["location"]["function"], into["location"]["line"]) == ("fee", LINES["fee"]), into
    out = node.json("finish")
    assert out["reason"] == "return" and out["location"]["function"] == "main", out
    assert out["return_value"] == {"value": "1020", "type": "number", "kind": "returned"}, out


def test_finish_from_a_method_and_locals_expand_an_object(node: Dbg) -> None:
    start(node, "--break", "Account.deposit", "--run")
    this = node.json("print", "this")
    assert this["value"] == "Account {owner: 'ada', balance: 0}", this
    back = node.json("finish")
    assert back["return_value"]["value"] == "1020", back
    account = next(v for v in back["locals"] if v["name"] == "account")
    assert account["type"] == "Account", account
    fields = {f["name"]: f["value"] for f in account["fields"]}
    assert fields == {"owner": "'ada'", "balance": "1020"}, account


def test_set_writes_a_local_and_a_field(node: Dbg) -> None:
    start(node, "--break", at("call-fee"), "--run")
    assert node.json("set", "total", "5000")["value"] == "5000"
    assert node.json("print", "total")["value"] == "5000"
    node.json("next")
    assert node.json("print", "charged")["value"] == "5100"
    node.json("until", at("call-deposit"))
    assert node.json("set", "account.owner", "'bob'")["value"] == "'bob'"
    bad = node("print", "nosuch + 1")
    assert bad.code == 1 and "ReferenceError: nosuch is not defined" in bad.err, bad


def test_an_uncaught_exception_stops_then_ends_the_program(node: Dbg) -> None:
    snap = node.json("start", "--backend", "node", "--run", str(MAIN), "raise")
    assert snap["reason"] == "exception", snap
    assert snap["location"]["line"] == LINES["raise"], snap
    assert snap["description"] == "RangeError: bad entry -3", snap
    stack = node.json("stack")
    assert [f["function"] for f in stack["frames"]][:3] == ["checkEntry", "main", "<module>"]
    end = node.json("continue")
    assert end["state"] == "exited" and end["exit_code"] == 1, end
    assert "RangeError: bad entry -3" in node.output("stderr")


def test_exception_tells_the_error_its_stack_and_its_causes(node: Dbg) -> None:
    snap = node.json("start", "--backend", "node", "--run", str(MAIN), "raise")
    assert snap["reason"] == "exception", snap
    info = node.json("exception")
    assert info["ok"], info
    assert (info["exception"], info["description"]) == ("RangeError", "bad entry -3"), info
    # In call order, outermost first, as the other backends say it.
    assert info["stack"].splitlines()[-2:] == [
        f'  File "{MAIN}", line {LINES["call-raise"]}, in main',
        f'  File "{MAIN}", line {LINES["raise"]}, in checkEntry'], info
    assert info["chain"] == [], info
    node("kill")

    program = LEDGER.parent / "throws" / "causes.js"
    lines = marked_lines(program)
    snap = node.json("start", "--backend", "node", "--run", str(program))
    assert (snap["reason"], snap["location"]["line"]) == ("exception", lines["wrap"]), snap
    info = node.json("exception")
    assert (info["exception"], info["description"]) == ("Error", "bad config"), info
    assert [c["exception"] for c in info["chain"]] == ["SyntaxError"], info
    assert info["chain"][0]["relation"] == "cause", info
    stack = info["stack"].splitlines()
    cause = stack.index(f'  File "{program}", line {lines["parse"]}, in readConfig')
    words = stack.index("The above exception was the direct cause of the following exception:")
    effect = stack.index(f'  File "{program}", line {lines["wrap"]}, in load')
    assert stack.index(f'  File "{program}", line {lines["read"]}, in load') < cause \
        < words < effect == len(stack) - 1, stack
    node("kill")

    snap = node.json("start", "--backend", "node", "--run", str(program), "plain")
    assert (snap["reason"], snap["location"]["line"]) == ("exception", lines["plain"]), snap
    info = node.json("exception")
    assert (info["exception"], info["description"]) == ("string", "plain words"), info
    assert info["stack"].endswith(f'line {lines["plain"]}, in <module>'), info

    # A stop that is no exception's has none to tell.
    node("kill")
    start(node, "--break", at("loop"), "--run")
    none = node("exception")
    assert none.code == 1 and "did not stop at an exception" in none.err, none


@pytest.mark.parametrize(("mode", "code", "signal"), [
    ("", 0, None), ("exit3", 3, None), ("kill", None, "SIGKILL")])
def test_how_the_program_ended(node: Dbg, mode: str, code: int | None, signal: str | None) -> None:
    node.json("start", "--backend", "node", str(MAIN), *([mode] if mode else []))
    end = node.json("continue")
    assert end["state"] == "exited", end
    assert (end["exit_code"], end["signal"]) == (code, signal), end


def test_output_is_the_programs_own(node: Dbg) -> None:
    start(node)
    node.json("continue")
    assert node.output("stdout") == "$10.20\n"
    # The inspector's notices ("Debugger listening...", "Waiting for the
    # debugger to disconnect...") are not the program's.
    assert node.output("stderr") == "done\n"


def test_unsupported_ops_name_node_and_the_escape_hatch(node: Dbg) -> None:
    start(node)
    watch = node("watch", "total")
    assert watch.code == 3 and "node" in watch.err and "watchpoints" in watch.err, watch
    hits = node("break", at("loop"), "--hit", "2")
    assert hits.code == 3 and "hit counts" in hits.err, hits
    raw = node.json("raw", 'Runtime.evaluate {"expression": "6 * 7"}')
    assert raw["ok"] and '"value": 42' in raw["output"], raw
    bad = node("raw", "six times seven")
    assert bad.code == 2 and "Domain.method" in bad.err, bad


def test_caps_has_a_node_column(node: Dbg) -> None:
    caps = node.json("caps", "--backend", "node")
    column = next(c for c in caps["backends"] if c["name"] == "node")
    ops = column["ops"]
    assert ops["break"] == ops["finish"] == ops["return-value"] == "native", ops
    assert ops["watch"] == "none" and ops["break-hit"] == "none", ops


def test_kill_ends_node_even_while_it_runs(node: Dbg, tmp_path: Path) -> None:
    spin = tmp_path / "spin.js"
    spin.write_text("let n = 0;\nsetInterval(() => { n += 1; }, 5);\n", encoding="utf-8")
    # The program never stops: the start answers "running" after a short wait.
    snap = node.json("--timeout", "1", "start", "--backend", "node", "--run", str(spin))
    assert snap["ok"] and snap["state"] == "running", snap
    status = json.loads((node.home / "sessions" / "default" / "status.json").read_text())
    pids = [(c["pid"], c.get("start_time")) for c in status["children"]]
    assert pids, status
    assert node("kill").code == 0
    deadline = time.monotonic() + 10
    while any(procutil.alive(*p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if procutil.alive(*p)]


def test_pip_install_beside_dbg_makes_node_ready(tmp_path: Path) -> None:
    """A fresh venv that sees dbg (as installed here) gets the plugin with
    pip, and `dbg backends` lists node ready, with no backends.yaml edited."""
    require_backend("node")  # skips with the reason, or fails in CI
    plugin = Path(__file__).resolve().parent.parent
    import dbgcore

    # dbg as this environment has it, as a wheel (dbgcore is not on PyPI).
    source = Path(dbgcore.__file__).resolve().parent.parent
    wheels = tmp_path / "wheels"
    pip = ["-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([sys.executable, *pip, "wheel", "--no-deps", "-w", str(wheels), str(source)],
                   check=True, capture_output=True)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), *pip, "install", *map(str, wheels.glob("dbgcore-*.whl")),
                    str(plugin)], check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DBG_LOAD_PLUGINS")}
    env.update(DBG_HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    listed = subprocess.run([str(python), "-m", "dbgcore", "--json", "backends"],
                            capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    rows = {b["name"]: b for b in json.loads(listed.stdout)["backends"]}
    assert rows["node"]["ready"] is True and rows["node"]["plugin"] == "node", rows.get("node")
    installed = subprocess.run([str(python), "-c", "import dbg_node; print(dbg_node.__file__)"],
                               capture_output=True, text=True, env=env, check=True)
    assert str(venv) in installed.stdout, installed.stdout


def test_attach_to_an_inspector_port_and_leave_the_program_running(
        node: Dbg, tmp_path: Path) -> None:
    spin = tmp_path / "spin.js"
    spin.write_text("let n = 0;\nfunction tick() {\n  n += 1;\n}\nsetInterval(tick, 20);\n",
                    encoding="utf-8")
    proc = subprocess.Popen(["node", "--inspect=127.0.0.1:0", str(spin)],
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        listening = proc.stderr.readline()
        port = listening.split("127.0.0.1:")[1].split("/")[0]
        snap = node.json("attach", "--backend", "node", "--port", port)
        assert snap["ok"] and snap["reason"] == "attach", snap
        assert node.json("break", "spin.js:3")["breakpoint"]["verified"] is True
        hit = node.json("continue")
        assert (hit["reason"], hit["location"]["function"]) == ("breakpoint", "tick"), hit
        assert int(node.json("print", "n")["value"]) >= 0
        assert node("kill").code == 0
        # Attached, not started: the program goes on without dbg.
        time.sleep(0.3)
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def test_node_args_from_backends_yaml_reach_node(node: Dbg) -> None:
    config = node.home / "config" / "dbg" / "backends.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("backends:\n  node:\n    options:\n"
                      "      node_args: [--title=dbg-node-test]\n", encoding="utf-8")
    start(node)
    assert node.json("print", "process.title")["value"] == "'dbg-node-test'"


def test_catch_by_class_stops_at_throws_of_it_and_of_subclasses(node: Dbg) -> None:
    program = LEDGER.parent / "throws" / "throws.js"
    lines = marked_lines(program)
    start(node, program=program)
    bad = node.json("catch", "not-a-class")
    assert (bad["_exit"], bad["error"]["kind"]) == (2, "usage"), bad
    caught = node.json("catch", "TypeError", "ParseError", "uncaught")
    assert caught["ok"] and caught["filters"] == ["TypeError", "ParseError", "uncaught"], caught
    stops = []
    for _ in range(3):
        snap = node.json("continue")
        assert snap["reason"] == "exception", snap
        stops.append(snap["location"]["line"])
    # Not the SyntaxError; the subclass of ParseError; the uncaught end (named) stops.
    assert stops == [lines["type"], lines["deep"], lines["uncaught"]], stops
    # The filters replace the session's: without `uncaught`, the end does not stop.
    assert node.json("restart")["ok"]
    assert node.json("catch", "TypeError")["ok"]
    assert node.json("continue")["location"]["line"] == lines["type"]
    assert node.json("continue")["state"] == "exited"
