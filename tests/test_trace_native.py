"""`dbg trace` on gdb and lldb by the debugger's own Python
(plugins/dbg_dap/gdbboot/dbg_gdbtrace.py, plugins/dbg_dap/lldbboot/dbg_lldbtrace.py),
on tests/targets/native/tracee.c and thrower.cpp.

What the trace records is checked against what the program printed of the
same calls; what the session is after it against a plain session's: the
user's breakpoints stop the run and are all `dbg breaks` shows, gdb's DAP
adapter never announced the tracer's, and a `continue` goes on as usual.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from builds import Target, build_c, copy_target

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg

BACKENDS = ["gdb", "lldb"]
#: How each tracer names itself in the answer.
MEANS = {"gdb": "breakpoints in gdb that record and go on",
         "lldb": "breakpoints in lldb whose callbacks record and go on"}
#: A call's `line`: gdb's is the function's declaration, lldb's the line of
#: its first address (the `{` below it).
DEF_LINE = {"gdb": 0, "lldb": 1}
#: Calls of the tiny function for the speed figure (lldb's breakpoint stops
#: cost it about four times what they cost gdb), and the floor asserted.
SPEED_CALLS = {"gdb": 20_000, "lldb": 4_000}
SPEED_FLOOR = {"gdb": 300, "lldb": 60}


@pytest.fixture(scope="module")
def tracee(tmp_path_factory: pytest.TempPathFactory) -> tuple[Target, Path]:
    """The target and its program, built once for the module."""
    target = copy_target("native/tracee.c", tmp_path_factory.mktemp("tracee"))
    return target, build_c(target.path)


@pytest.fixture(scope="module")
def thrower(tmp_path_factory: pytest.TempPathFactory) -> tuple[Target, Path]:
    target = copy_target("native/thrower.cpp", tmp_path_factory.mktemp("thrower"))
    return target, build_c(target.path)


def start(dbg: Dbg, backend: str, program: Path, *args: str) -> dict[str, Any]:
    require_backend(backend)
    started: dict[str, Any] = dbg.json("start", "--backend", backend, str(program), *args)
    assert started["ok"] and started["state"] == "stopped", started
    return started


def trace(dbg: Dbg, *args: str, within: float | None = None) -> dict[str, Any]:
    """`dbg trace ARGS`, given ``within`` seconds (the op's --timeout)."""
    options = ("--timeout", str(within)) if within else ()
    answer: dict[str, Any] = dbg.json(*options, "trace", *args, timeout=(within or 60) + 30)
    assert answer["ok"], answer
    return answer


def args_of(call: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a["name"], a["value"]) for a in call["args"]]


def shown(call: dict[str, Any]) -> tuple[Any, ...]:
    return (call["function"], args_of(call), call["depth"], call["outcome"], call["value"])


def no_tracer_left(dbg: Dbg, backend: str) -> None:
    """Only the user's breakpoints, in dbg's listing and in the debugger's own."""
    listing = dbg.json("breaks")
    assert listing["ok"], listing
    users = {b["id"] for b in listing["breakpoints"]}
    if backend == "lldb":
        raw = dbg("raw", "breakpoint list")
        assert raw.code == 0, raw
        assert len(re.findall(r"^\d+: ", raw.out, re.M)) == len(users), (raw.out, listing)
        return
    raw = dbg("raw", "maint info breakpoints")
    assert raw.code == 0, raw
    # gdb's own internal breakpoints (longjmp master, shlib events) have
    # types of their own; the tracer's were plain breakpoints numbered below 0.
    ours = re.findall(r"^(-\d+)\s+breakpoint\s", raw.out, re.M)
    assert not ours, raw.out
    # dbg numbers the user's its own way: as many as it lists.
    numbered = re.findall(r"^(\d+)\s+breakpoint\s", raw.out, re.M)
    assert len(numbered) == len(users), (raw.out, listing)


def announced_breakpoints(dbg: Dbg) -> list[Any]:
    """The ids of the breakpoints the adapter told dbg about, so far."""
    log = dbg.home / "sessions" / "default" / "debugger.log"
    ids = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        found = re.search(r"<-- (\{.*\})$", line)
        if not found or '"event": "breakpoint"' not in line:
            continue
        ids.append(json.loads(found.group(1))["body"]["breakpoint"]["id"])
    return ids


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_recursion_in_call_order_with_args_and_returns_as_the_program_printed_them(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    target, program = tracee
    thread = start(dbg, backend, program)["thread"]
    told = announced_breakpoints(dbg)
    answer = trace(dbg, "tri", "average")
    assert (answer["state"], answer["exit_code"]) == ("exited", 0), answer
    assert answer["trace"]["means"] == MEANS[backend], answer["trace"]
    printed = dbg.output("stdout")
    calls = answer["trace"]["calls"]
    tri = [c for c in calls if c["function"] == "tri"]
    # "call tri(N)" as each call began, "tri(N) = R" as it ended.
    assert [a for c in tri for n, a in args_of(c)] == re.findall(
        r"^call tri\((\d+)\)$", printed, re.M), (calls, printed)
    returned = dict(re.findall(r"^tri\((\d+)\) = (\d+)$", printed, re.M))
    assert [(c["outcome"], c["value"]) for c in tri] == [
        ("returned", returned[args_of(c)[0][1]]) for c in tri], calls
    assert len(tri) == 5
    assert [c["depth"] for c in tri] == [0, 1, 2, 3, 4]
    assert [c["parent"] for c in tri] == [None] + [c["seq"] for c in tri[:-1]]
    where = os.path.realpath(target.path)
    assert [(c["caller"]["line"], c["caller"]["function"]) for c in tri] == [
        (target.lines["call-tri"], "main")] + [(target.lines["tri-rec"], "tri")] * 4, calls
    assert all(os.path.realpath(c["caller"]["file"]) == where for c in tri), calls
    assert all((os.path.realpath(c["file"]), c["line"]) == (
        where, target.lines["tri-def"] + DEF_LINE[backend]) for c in tri), calls
    assert all(c["thread"] == thread for c in calls), calls
    # After the recursion, average(values, 3) of {3, 5, 10}, printed as 6.00.
    average = calls[-1]
    assert shown(average)[:2] == ("average", [("values", args_of(average)[0][1]),
                                              ("count", "3")]), average
    assert args_of(average)[0][1].startswith("0x"), average
    assert (average["outcome"], average["value"], average["depth"]) == ("returned", "6", 0)
    assert "average 6.00" in printed
    assert [c["seq"] for c in calls] == list(range(1, 7)), calls
    # The adapter told dbg of none of the tracer's breakpoints.
    assert announced_breakpoints(dbg) == told


@pytest.mark.parametrize("backend", BACKENDS)
def test_lines_with_the_locals_each_changed(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    target, program = tracee
    start(dbg, backend, program)
    answer = trace(dbg, "average", "--lines")
    assert answer["state"] == "exited", answer
    [call] = answer["trace"]["calls"]
    assert (call["outcome"], call["value"]) == ("returned", "6"), call
    at = target.lines
    lines = [r["line"] for r in call["lines"]]
    # The loop's condition is a line reached once an iteration, as in a step.
    assert lines == [at["average-first"], at["average-for"],
                     *[at["average-add"], at["average-for"]] * 3,
                     at["average-mean"], at["average-return"], at["average-return"] + 1], lines
    changes = [{c["name"]: c["value"] for c in r["changed"]} for r in call["lines"]]
    # All of them at the first line (what the stack held before they were
    # set included); i joins at the for, whose block holds it.
    assert {"values", "count", "total", "mean"} <= set(changes[0]), changes
    assert changes[0]["count"] == "3" and "i" not in changes[0], changes
    # Then what the line before changed: replayed, they give each line's values.
    seen: dict[str, str] = {}
    at_add, at_return = [], {}
    for number, changed in zip(lines, changes, strict=True):
        assert all(seen.get(name) != value for name, value in changed.items()), changes
        seen.update(changed)
        if number == at["average-add"]:
            at_add.append((seen["i"], seen["total"]))
        if number == at["average-return"]:
            at_return = dict(seen)
    assert at_add == [("0", "0"), ("1", "3"), ("2", "8")], changes
    assert (at_return["total"], at_return["mean"]) == ("18", "6"), changes
    assert all("count" not in c for c in changes[1:]), changes


@pytest.mark.parametrize("backend", BACKENDS)
def test_lines_where_a_traced_call_returns_to_a_line_of_its_caller(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    """report's `tick(v);` returns to the first address of report's next
    line: that line's breakpoint and tick's return are one place, and tick
    returned (it was not left)."""
    target, program = tracee
    start(dbg, backend, program)
    answer = trace(dbg, "report", "tick", "--lines")
    calls = answer["trace"]["calls"]
    assert [shown(c) for c in calls] == [
        ("report", [("v", "5")], 0, "returned", "10"),
        ("tick", [("i", "5")], 1, "returned", "5")], calls
    report = calls[0]
    lines = [r["line"] for r in report["lines"]]
    assert lines[:2] == [target.lines["report-tick"], target.lines["report-twice"]], lines
    assert {"twice": "10"} in [{c["name"]: c["value"] for c in r["changed"]}
                               for r in report["lines"]], report["lines"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_records_the_first_calls_and_counts_the_rest(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    _, program = tracee
    start(dbg, backend, program)
    answer = trace(dbg, "tri", "--max", "2")
    calls = answer["trace"]["calls"]
    assert [shown(c) for c in calls] == [
        ("tri", [("n", "4")], 0, "returned", "10"), ("tri", [("n", "3")], 1, "returned", "6")]
    assert answer["trace"]["dropped"] == 3, answer["trace"]
    assert (answer["state"], answer["exit_code"]) == ("exited", 0), answer


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_breakpoint_of_the_users_ends_the_trace_and_the_session_goes_on(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    target, program = tracee
    start(dbg, backend, program)
    placed = dbg.json("break", target.loc("average-add"))
    assert placed["ok"], placed
    answer = trace(dbg, "tri", "average")
    # It stopped where `continue` would have: the breakpoint in average.
    assert (answer["state"], answer["reason"]) == ("stopped", "breakpoint"), answer
    assert answer["location"]["line"] == target.lines["average-add"], answer
    calls = answer["trace"]["calls"]
    assert [c["outcome"] for c in calls] == ["returned"] * 5 + ["unfinished"], calls
    assert (calls[-1]["function"], calls[-1]["value"]) == ("average", None), calls
    no_tracer_left(dbg, backend)
    assert [b["hits"] for b in dbg.json("breaks")["breakpoints"]] == [1]
    # The program goes on as without a trace: the next iteration, then the end.
    again = dbg.json("continue")
    assert (again["reason"], again["location"]["line"]) == (
        "breakpoint", target.lines["average-add"]), again
    assert dbg.json("print", "i")["value"] == "1"
    dbg.json("unbreak", str(placed["breakpoint"]["id"]))
    ended = dbg.json("continue")
    assert (ended["state"], ended["exit_code"]) == ("exited", 0), ended


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_breakpoint_where_a_traced_call_returns_to_stops_there(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    """report's `tick(v);` returns to the first address of report's next
    line, where the user's breakpoint is: lldb's tracer, which does a
    traced function's `ret` itself, must leave that one to lldb, or the
    breakpoint would be passed unseen."""
    target, program = tracee
    start(dbg, backend, program)
    placed = dbg.json("break", target.loc("report-twice"))
    assert placed["ok"], placed
    answer = trace(dbg, "tick")
    assert (answer["state"], answer["reason"]) == ("stopped", "breakpoint"), answer
    assert answer["location"]["line"] == target.lines["report-twice"], answer
    assert [shown(c) for c in answer["trace"]["calls"]] == [
        ("tick", [("i", "5")], 0, "returned", "5")], answer["trace"]
    assert [b["hits"] for b in dbg.json("breaks")["breakpoints"]] == [1]
    no_tracer_left(dbg, backend)
    assert dbg.json("print", "v")["value"] == "5"
    ended = dbg.json("continue")
    assert (ended["state"], ended["exit_code"]) == ("exited", 0), ended


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_breakpoint_at_a_traced_functions_entry_stops_there(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    """The user's breakpoint on average is where the tracer's entry
    breakpoint is: lldb's tracer, which sends the program on from a copy
    of the instruction there, must not, or the stop would be in the copy."""
    target, program = tracee
    start(dbg, backend, program)
    placed = dbg.json("break", "average")
    assert placed["ok"], placed
    answer = trace(dbg, "average")
    assert (answer["state"], answer["reason"]) == ("stopped", "breakpoint"), answer
    assert answer["location"]["line"] == target.lines["average-first"], answer
    assert [shown(c) for c in answer["trace"]["calls"]] == [
        ("average", [("values", args_of(answer["trace"]["calls"][0])[0][1]), ("count", "3")],
         0, "unfinished", None)], answer["trace"]
    no_tracer_left(dbg, backend)
    assert dbg.json("print", "count")["value"] == "3"
    ended = dbg.json("continue")
    assert (ended["state"], ended["exit_code"]) == ("exited", 0), ended


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_call_left_by_longjmp_is_said_so(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    target, program = tracee
    start(dbg, backend, program, "jump")
    answer = trace(dbg, "bail", "tri")
    calls = answer["trace"]["calls"]
    assert [shown(c) for c in calls] == [
        ("bail", [("code", "7")], 0, "raised", "left without returning (longjmp)"),
        # tri(1), called after the longjmp, is no call inside bail.
        ("tri", [("n", "1")], 0, "returned", "1"), ("tri", [("n", "0")], 1, "returned", "0")]
    assert calls[1]["parent"] is None and calls[1]["caller"]["line"] == target.lines[
        "after-jump"], calls
    assert (answer["state"], answer["exit_code"]) == ("exited", 0), answer


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_call_left_by_a_cpp_exception_is_said_so(
        dbg: Dbg, thrower: tuple[Target, Path], backend: str) -> None:
    """The catch goes on at check(-2)'s return address (the try block's
    next place): that is no return of check(-2)."""
    target, program = thrower
    start(dbg, backend, program)
    answer = trace(dbg, "check")
    assert [shown(c) for c in answer["trace"]["calls"]] == [
        ("check", [("value", "1")], 0, "returned", "1"),
        ("check", [("value", "-2")], 0, "raised", "left by a C++ exception"),
        ("check", [("value", "3")], 0, "returned", "3")], answer["trace"]
    assert answer["trace"]["calls"][2]["caller"]["line"] == target.lines["after-catch"]
    assert (answer["state"], answer["exit_code"]) == ("exited", 0), answer
    assert "caught bad entry" in dbg.output("stdout")


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_line_functions_and_calls_the_program_ends_in(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    """A one-line function's arguments are read where they are in place,
    and calls still running when exit() ends the program are unfinished."""
    _, program = tracee
    start(dbg, backend, program, "exit")
    answer = trace(dbg, "outer", "inner")
    assert (answer["state"], answer["exit_code"]) == ("exited", 3), answer
    calls = answer["trace"]["calls"]
    assert [shown(c) for c in calls] == [
        shown_call for i in range(3) for shown_call in (
            ("outer", [("v", str(i))], 0, "returned", str(i + 1)),
            ("inner", [("v", str(i))], 1, "returned", str(i)))] + [
        ("outer", [("v", "3")], 0, "unfinished", None),
        ("inner", [("v", "3")], 1, "unfinished", None)], calls


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_call_in_another_thread_is_still_running_where_the_trace_stops(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    """The trace ends at a breakpoint in the main thread while held() waits
    in its own: held is unfinished (gdb looks for frames in the stopped
    thread's stack only: that is no sign of a call left)."""
    target, program = tracee
    main_thread = start(dbg, backend, program, "threads")["thread"]
    dbg.json("break", target.loc("mark"))
    answer = trace(dbg, "held", "mark")
    assert (answer["reason"], answer["thread"]) == ("breakpoint", main_thread), answer
    calls = answer["trace"]["calls"]
    assert [shown(c) for c in calls] == [
        ("held", [("n", "2")], 0, "unfinished", None),
        ("mark", [("n", "1")], 0, "unfinished", None)], calls
    assert calls[0]["thread"] != main_thread and calls[1]["thread"] == main_thread, calls
    dbg.json("unbreak", "1")
    ended = dbg.json("continue")
    assert (ended["state"], ended["exit_code"]) == ("exited", 0), ended
    assert "threads done" in dbg.output("stdout")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_trace_past_its_timeout_pauses_and_leaves_nothing(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    _, program = tracee
    start(dbg, backend, program, "ticks", "1000000000")
    answer = trace(dbg, "tick", "--max", "3", within=6)
    assert (answer["state"], answer["reason"]) == ("stopped", "pause"), answer
    assert "time ran out" in answer["trace"]["note"], answer["trace"]
    calls = answer["trace"]["calls"]
    assert [(args_of(c), c["value"]) for c in calls] == [
        ([("i", str(i))], str(i)) for i in range(3)], calls
    assert answer["trace"]["dropped"] > 0, answer["trace"]
    no_tracer_left(dbg, backend)
    # Paused in tick's loop: a breakpoint of the user's there stops it again.
    dbg.json("break", "tick")
    again = dbg.json("continue")
    assert (again["reason"], again["location"]["function"]) == ("breakpoint", "tick"), again


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_name_the_program_does_not_have_is_one_line_and_the_program_stays(
        dbg: Dbg, tracee: tuple[Target, Path], backend: str) -> None:
    _, program = tracee
    start(dbg, backend, program)
    refused = dbg("--json", "trace", "tri", "no_such_fn")
    assert refused.code == 1, refused
    message = refused.json["error"]["message"]
    assert "no_such_fn" in message and "\n" not in message, message
    status = dbg.json("status")
    assert status["location"]["function"] == "main", status
    no_tracer_left(dbg, backend)
    # tri's breakpoint, placed before the name was refused, went with it.
    answer = trace(dbg, "tri", "--max", "1")
    assert len(answer["trace"]["calls"]) == 1 and answer["state"] == "exited", answer


@pytest.mark.parametrize("backend", BACKENDS)
def test_traced_calls_a_second(dbg: Dbg, tracee: tuple[Target, Path], backend: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    """Calls of a tiny function, each recorded with its return value; the
    rate is printed (the target is 1,000 a second on gdb; the floor asserted
    here only catches a tracer that slows as it goes)."""
    _, program = tracee
    count = SPEED_CALLS[backend]
    start(dbg, backend, program, "ticks", str(count))
    began = time.monotonic()
    answer = trace(dbg, "tick", "--max", str(count), "--limit", "3", within=300)
    seconds = time.monotonic() - began
    assert (answer["state"], answer["exit_code"]) == ("exited", 0), answer
    assert (answer["trace"]["total"], answer["trace"]["dropped"]) == (count, 0)
    last = answer["trace"]["calls"][-1]
    assert (args_of(last), last["value"]) == ([("i", str(count - 1))], str((count - 1) & 7))
    rate = count / seconds
    with capsys.disabled():
        print(f"\n{backend}: {count} traced calls in {seconds:.2f} s: {rate:.0f} calls/s")
    assert rate > SPEED_FLOOR[backend], rate
