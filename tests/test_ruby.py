"""Ruby through rdbg's DAP server (issue 42, part 1): breakpoints by line
and by method, stepping, locals, print and set, catching an exception by
class, stdin, restart, threads, and a kill that leaves no Ruby behind."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

import builds
import pytest

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg


@pytest.fixture
def prog(target: Any) -> Any:
    require_backend("rdbg")
    return target("ruby_prog.rb")


def _here(answer: dict[str, Any]) -> int:
    return int(answer["location"]["line"])


def _names(answer: dict[str, Any]) -> dict[str, str]:
    return {v["name"]: v["value"] for v in answer.get("locals") or answer["variables"]}


def test_a_rb_file_starts_under_rdbg_at_its_first_statement(dbg: Dbg, prog: Any) -> None:
    stop = dbg.json("start", str(prog.path))
    assert stop["ok"] and stop["via"]["tool"] == "rdbg", stop
    # Not the `def` line (rdbg would take it as the method's call): `total = 0`.
    assert (stop["reason"], _here(stop)) == ("entry", 11), stop
    assert "%self" not in _names(stop), stop


def test_break_by_line_and_method_next_step_finish(dbg: Dbg, prog: Any) -> None:
    dbg.json("start", str(prog.path))
    assert dbg.json("break", prog.loc("loop"))["ok"]
    stop = dbg.json("continue")
    assert (stop["reason"], _here(stop)) == ("breakpoint", prog.lines["loop"]), stop
    into = dbg.json("step")
    assert _here(into) == prog.lines["add_body"] and into["location"]["function"] == \
        "Object#add", into
    # The method's arguments in its frame (rdbg shows them among the locals).
    frames = dbg.json("stack")["frames"]
    assert [(a["name"], a["value"]) for a in frames[0]["args"]] == [("a", "0"), ("b", "0")]
    back = dbg.json("finish")
    # In the caller, just after the call, as the other debuggers stop (rdbg's
    # own finish stops at add's `end`), leading with what add returned
    # (its `_return` there).
    assert _here(back) in (prog.lines["loop"], prog.lines["loop"] + 1), back
    assert back["location"]["function"] == "block in <main>", back
    assert back["return_value"]["value"] == "0", back
    over = dbg.json("next")
    assert over["ok"] and over["state"] == "stopped", over
    # By method name: its first line of code.
    placed = dbg.json("break", "greet")
    assert placed["ok"] and placed["breakpoint"]["line"] == prog.lines["greet_body"], placed
    stop = dbg.json("continue")
    while _here(stop) != prog.lines["greet_body"]:
        stop = dbg.json("continue")
    assert _names(stop)["name"] == '"ruby"', stop


def test_a_method_that_is_not_there_is_a_one_line_error(dbg: Dbg, prog: Any) -> None:
    dbg.json("start", str(prog.path))
    answer = dbg("break", "no_such_method")
    assert answer.code != 0 and "no method no_such_method" in answer.err, answer
    assert "Traceback" not in answer.err and dbg.json("locals")["ok"]


def test_locals_print_and_set(dbg: Dbg, prog: Any) -> None:
    dbg.json("start", str(prog.path))
    dbg.json("break", f"{prog.path}:{prog.lines['add_body'] + 1}")
    stop = dbg.json("continue")
    assert _names(stop) == {"a": "0", "b": "0", "c": "0"}, stop
    assert dbg.json("print", "a + b + 40")["value"] == "40"
    assert dbg.json("set", "c", "5")["ok"]
    assert dbg.json("print", "c")["value"] == "5"
    # add(0, 0) returned the 5: the next call gets it as a.
    stop = dbg.json("continue")
    assert _names(stop)["a"] == "5", stop


def test_catch_no_method_error_stops_at_the_raise(dbg: Dbg, prog: Any, tmp_path: Any) -> None:
    feed = tmp_path / "in.txt"
    feed.write_text("hello\n")
    dbg.json("start", "--stdin", str(feed), str(prog.path))
    assert dbg.json("catch", "NoMethodError")["ok"]
    stop = dbg.json("continue")
    assert (stop["reason"], _here(stop)) == ("exception", prog.lines["raise"]), stop
    assert stop["description"].startswith("NoMethodError: undefined method `upcase'"), stop
    # The program rescues it and ends by itself, with its exit status.
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 0), end
    assert "rescued" in dbg("output").out


def test_catch_of_a_class_that_is_not_raised_does_not_stop(dbg: Dbg, prog: Any,
                                                           tmp_path: Any) -> None:
    feed = tmp_path / "in.txt"
    feed.write_text("x\n")
    dbg.json("start", "--stdin", str(feed), str(prog.path))
    bad = dbg("catch", "no-such-thing")
    assert bad.code != 0 and "neither an exception class" in bad.err, bad
    assert dbg.json("catch", "ZeroDivisionError")["ok"]
    end = dbg.json("continue")
    assert end["state"] == "exited", end


def test_stdin_from_a_file_and_from_dbg_input(dbg: Dbg, prog: Any, tmp_path: Any) -> None:
    feed = tmp_path / "in.txt"
    feed.write_text("from the file\n")
    dbg.json("start", "--stdin", str(feed), str(prog.path))
    dbg.json("break", prog.loc("after_read"))
    stop = dbg.json("continue")
    assert _names(stop)["line"] == '"from the file\\n"', stop
    dbg.json("kill")
    dbg.json("start", str(prog.path))
    dbg.json("break", prog.loc("after_read"))
    dbg.json("continue")
    stop = dbg.json("input", "typed")
    assert stop.get("state") == "stopped" and "locals" in stop, stop
    assert _names(stop)["line"] == '"typed\\n"', stop


def test_restart_runs_it_again_and_threads_are_listed(dbg: Dbg, prog: Any,
                                                      tmp_path: Any) -> None:
    feed = tmp_path / "in.txt"
    feed.write_text("x\n")
    dbg.json("start", "--stdin", str(feed), str(prog.path))
    dbg.json("break", prog.loc("end"))
    dbg.json("break", f"{prog.path}:{prog.lines['threads'] + 1}")
    dbg.json("continue")
    # The worker, started and asleep, beside the main thread.
    threads = dbg.json("threads")["threads"]
    assert len(threads) >= 2, threads
    stop = dbg.json("continue")
    assert _here(stop) == prog.lines["end"], stop
    again = dbg.json("restart")
    assert (again["state"], _here(again)) == ("stopped", 11), again


def test_kill_leaves_no_ruby_running(dbg: Dbg, prog: Any) -> None:
    dbg.json("start", str(prog.path))
    assert builds.pids_naming(str(prog.path)), "rdbg runs the program"
    assert dbg.json("kill")["ok"]
    deadline = time.monotonic() + 5
    while builds.pids_naming(str(prog.path)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not builds.pids_naming(str(prog.path))


def test_caps_say_what_rdbg_does_and_attach_is_refused_naming_rdbg(dbg: Dbg, prog: Any) -> None:
    text = dbg("caps", "--backend", "rdbg").out
    rows = dict(line.split()[:2] for line in text.splitlines()[1:] if len(line.split()) >= 2)
    # set through rdbg's evaluator; no attach, watch or memory.
    assert (rows["set"], rows["catch"], rows["stdin"]) == ("yes", "yes", "yes"), text
    assert (rows["attach"], rows["watch"], rows["memory-read"]) == ("-", "-", "-"), text
    refused = dbg("attach", "--backend", "rdbg", "--pid", str(os.getpid()))
    assert refused.code != 0 and "not supported by rdbg" in refused.err, refused
    assert "dbg raw" in refused.err and "Traceback" not in refused.err, refused


def test_a_program_whose_first_line_is_code_stops_there_and_ends_with_its_status(
        dbg: Dbg, tmp_path: Any) -> None:
    require_backend("rdbg")
    program = tmp_path / "first.rb"
    program.write_text('x = 41\nputs "x=#{x + 1} #{$0 == __FILE__}"\nraise ArgumentError, "boom"\n')
    stop = dbg.json("start", str(program))
    assert (stop["reason"], _here(stop), stop["location"]["function"]) == \
        ("entry", 1, "<main>"), stop
    assert [f["function"] for f in dbg.json("stack")["frames"]] == ["<main>"]
    end = dbg.json("continue")
    # An uncaught exception ends the program as Ruby would: status 1.
    assert (end["state"], end["exit_code"]) == ("exited", 1), end
    shown = dbg("output").out
    assert "x=42 true" in shown
    # Its stderr (Ruby's report of the exception) is the program's, not rdbg's.
    assert "boom (ArgumentError)" in shown and "DEBUGGER" not in shown, shown


def test_a_removed_breakpoint_does_not_stop_again(dbg: Dbg, prog: Any, tmp_path: Any) -> None:
    # rdbg's setBreakpoints only adds: dbg takes the old ones away first.
    feed = tmp_path / "in.txt"
    feed.write_text("x\n")
    dbg.json("start", "--stdin", str(feed), str(prog.path))
    first = dbg.json("break", prog.loc("add_body"))["breakpoint"]["id"]
    dbg.json("break", prog.loc("end"))
    assert _here(dbg.json("continue")) == prog.lines["add_body"]
    assert dbg.json("unbreak", str(first))["ok"]
    stop = dbg.json("continue")
    assert _here(stop) == prog.lines["end"], stop


def test_what_rdbg_lacks_is_refused_naming_it_and_the_session_goes_on(dbg: Dbg,
                                                                      prog: Any) -> None:
    dbg.json("start", str(prog.path))
    for argv in (["disasm"], ["memory", "read", "0x1000", "8"], ["watch", "total"],
                 ["dap", "fooBar"]):
        refused = dbg(*argv)
        assert refused.code != 0 and "rdbg" in refused.err, (argv, refused)
        assert "Traceback" not in refused.err and len(refused.err.splitlines()) == 1, refused
    assert "RubyVM::InstructionSequence" in dbg("disasm").err
    # rdbg still answers: `dbg dap fooBar` was refused before it reached rdbg.
    assert dbg.json("raw", "6*7")["ok"] and dbg.json("locals")["ok"]
