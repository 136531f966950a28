"""How a program ends, how a debugger dies, exceptions, and what is not a
program (docs/semantics.md, "The end", "Exceptions", "Starting")."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from twins import (
    Program,
    alive,
    caps_of,
    debugger_in_program,
    kill_and_wait,
    session_processes,
)


def test_an_exit_status_is_reported_as_is(prog: Program) -> None:
    data = prog.start("exit3", run=True)
    assert (data["ok"], data["state"], data["exit_code"], data["signal"]) == (
        True, "exited", 3, None), data
    assert "exited with code 3" in prog.dbg("status").out


def test_a_program_killed_by_a_signal_says_which(prog: Program) -> None:
    data = prog.start("kill", run=True)
    assert (data["ok"], data["state"], data["exit_code"], data["signal"]) == (
        True, "exited", None, "SIGKILL"), data
    again = prog.dbg("wait")
    assert "killed by SIGKILL" in again.out, again
    assert "killed by SIGKILL" in prog.dbg("status").out


# Go and Java turn a bad pointer into a panic or an exception (see the
# uncaught-exception test); the twins that can die of SIGSEGV are these.
@pytest.mark.parametrize("prog", ["pdb", "debugpy", "gdb", "lldb"], indirect=True)
def test_a_segfault_stops_then_ends_the_program_by_sigsegv(prog: Program) -> None:
    data = prog.start("segv", run=True)
    if data["state"] == "stopped":
        # Native debuggers stop on the signal first.
        assert data["reason"] == "signal" and "SIGSEGV" in data["description"], data
        data = prog.dbg.json("continue")
    assert (data["state"], data["exit_code"], data["signal"]) == ("exited", None, "SIGSEGV"), data
    assert prog.dbg("status").out.count("killed by SIGSEGV") == 1


def test_an_uncaught_exception_stops_where_it_is_raised(prog: Program) -> None:
    data = prog.start("raise", run=True)
    assert data["ok"] and data["state"] == "stopped", data
    if prog.twin.language == "c":
        # C has no exceptions: abort() is a signal.
        assert data["reason"] == "signal" and "SIGABRT" in data["description"], data
    else:
        assert data["reason"] == "exception", data
        if prog.twin.language == "java":
            # jdb names the exception's class; it cannot show its message.
            assert data["description"].count("IllegalArgumentException") == 1, data
        else:
            assert data["description"].count("bad entry -3") == 1, data
        prog.stopped_at(data, "raise")
    lines = [f["line"] for f in prog.dbg.json("stack")["frames"]]
    assert prog.line("raise") in lines and prog.line("call-raise") in lines, lines


def test_no_catch_lets_an_uncaught_exception_end_the_program(prog: Program) -> None:
    data = prog.start("raise", run=True, options=("--no-catch",))
    if prog.twin.language == "c":
        # A signal still stops the program; --no-catch is about exceptions.
        assert data["state"] == "stopped" and data["reason"] == "signal", data
        return
    assert data["state"] == "exited", data
    assert data["exit_code"] == (2 if prog.twin.language == "go" else 1), data


def test_exception_gives_the_traceback_outermost_first(prog: Program) -> None:
    assert prog.start("raise", run=True)["ok"]
    result = prog.dbg("--json", "exception")
    if caps_of(prog.twin.backend).get("exception", "none") == "none":
        assert (result.code, result.json["error"]["kind"]) == (3, "unsupported"), result
        return
    data = result.json
    assert data["ok"], data
    told = data["exception"] + " " + data["description"]
    assert "bad entry -3" in told or "SIGABRT" in told or "IllegalArgument" in told, data
    stack = data["stack"]
    # Call order: the caller's line comes before the line that raised.
    where_call = stack.find(f"line {prog.line('call-raise')}")
    where_raise = stack.find(f"line {prog.line('raise')}")
    assert -1 < where_call < where_raise, stack
    assert stack.count("bad entry -3") <= 1, stack


@pytest.mark.parametrize("what", ["text", "folder"])
def test_something_that_is_not_a_program_is_refused_and_leaves_no_session(
        prog: Program, what: str, tmp_path: Path) -> None:
    if what == "text":
        target = tmp_path / "notes.txt"
        target.write_text("these are notes,\nnot a program\n")
    else:
        target = tmp_path / "empty-folder"
        target.mkdir()
    result = prog.dbg("--json", "start", "--backend", prog.twin.backend, str(target))
    data = result.json
    assert (result.code, data["ok"], data["error"]["kind"]) == (1, False, "failed"), result
    assert "\n" not in data["error"]["message"]
    assert prog.dbg("status").code == 1  # no session


def test_a_debugger_that_dies_is_a_backend_error_and_the_session_says_so(
        prog: Program) -> None:
    assert prog.start(breaks=(prog.at("loop"),), run=True)["ok"]
    processes = session_processes(prog.dbg)
    tool = prog.dbg.json("tool")["tool"]
    debugger = next(p for p in processes if p["role"] == tool)
    kill_and_wait(debugger["pid"])
    time.sleep(0.3)
    result = prog.dbg("--json", "next")
    data = result.json
    if debugger_in_program(prog.twin.backend):
        # pdb is the program's own process: its death is the program's.
        assert (result.code, data["state"], data["signal"]) == (0, "exited", "SIGKILL"), result
        assert prog.dbg.json("status")["state"] == "exited"
        assert "killed by SIGKILL" in prog.dbg("status").out
    else:
        assert (result.code, data["error"]["kind"]) == (1, "backend"), result
        assert tool in data["error"]["message"] and str(debugger["pid"]) in data["error"]["message"]
        status = prog.dbg.json("status")
        assert status["state"] == "debugger_lost", status
        assert "debugger lost" in prog.dbg("status").out
    killed = prog.dbg.json("kill")
    assert killed["ok"], killed
    time.sleep(0.5)
    left = [p for p in processes if alive(p["pid"])]
    assert left == [], left


def test_an_end_names_the_breakpoints_it_never_hit(prog: Program) -> None:
    data = prog.start(breaks=(prog.at("call-raise"),), run=True)
    assert data["ok"] and data["state"] == "exited", data
    assert [b["id"] for b in data["never_hit"]] == [1], data
    # A breakpoint that is hit is not listed, though the run ends later.
    assert prog.dbg.json("restart")["state"] == "stopped"
    assert prog.dbg.json("break", prog.at("after-fee"))["ok"]
    prog.stopped_at(prog.dbg.json("continue"), "after-fee")
    ended = prog.dbg("continue")
    assert "never hit: breakpoint 1 at" in ended.out, ended
    assert "breakpoint 2" not in ended.out, ended


def test_ops_on_an_ended_program_answer_target_exited(prog: Program) -> None:
    data = prog.start("exit3", run=True)
    assert data["state"] == "exited", data
    for argv in (["break", prog.at("loop")], ["catch"], ["raw", "help"], ["next"],
                 ["print", "1"], ["watch", "total"], ["pause"]):
        result = prog.dbg("--json", *argv)
        error = result.json.get("error") or {}
        assert (result.code, error.get("kind")) == (1, "target_exited"), (argv, result)
        assert "dbg restart" in error["hint"], (argv, error)
    # What the session kept still answers.
    assert prog.dbg.json("breaks")["ok"] and prog.dbg.json("status")["state"] == "exited"
