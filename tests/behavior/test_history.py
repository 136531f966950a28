"""What happened, not only what is (issue 23), on all six backends: a
recursive function traced and checked against the program's own record of
its calls, an exception leaving a traced function, `--lines`, `dbg calls
--where` from the store after the session ended, a value history across a
loop (at each hit of a line, and over recorded stops), and `dbg diff` between
a passing and a failing run of the same program.

The scenarios share sessions to stay fast: each backend gets one DBG_HOME for
the module, each group of steps below runs once (for the first test that
needs it) and keeps every answer; the tests then check their part of them.
A step that fails leaves its answer for the test that reads it to report.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from twins import BACKENDS, TWINS, Program

from dbgcore.testing import Result, dbg_in

#: `tri N`'s argument, and what the twins print of each call: `tri(N)=R`.
TRI_N = 4
PRINTED = re.compile(r"^tri\((-?\d+)\)=(-?\d+)\s*$", re.MULTILINE)
#: The values `total` has at each hit of @loop (before the line runs):
#: `total += i * 100` for i = 0..4, in every twin.
LOOP_TOTALS = ["0", "0", "100", "300", "600"]
#: A function no twin defines; `dbg break` refuses it on these backends
#: (tests/test_function_breaks.py), gdb and lldb keep it pending.
NOTHING = "no_such_fn"
PASSING = ("sum", "10", "20", "30")
FAILING = ("sum", "10", "20", "-5")

Answers = dict[str, Result]


class Steps:
    """One backend's twin with a DBG_HOME of its own, and the answers of
    each group of steps, run once."""

    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self._groups: dict[str, Answers] = {}

    def group(self, name: str) -> Answers:
        if name not in self._groups:
            answers: Answers = {}
            self._groups[name] = answers
            GROUPS[name](self, answers)
        return self._groups[name]

    def run(self, answers: Answers, step: str, *argv: str, timeout: float = 90) -> Result:
        """Run `dbg --json ARGV` and keep its answer as ``step``; a dbg that
        hangs past ``timeout`` is an answer too (code -1)."""
        try:
            result = self.prog.dbg("--json", "--timeout", str(timeout - 15), *argv,
                                   timeout=timeout)
        except subprocess.TimeoutExpired:
            result = Result(-1, "", f"dbg {' '.join(argv)} did not answer in {timeout} s")
        answers[step] = result
        return result

    def start(self, answers: Answers, step: str, *args: str,
              breaks: tuple[str, ...] = (), run: bool = False) -> Result:
        argv = ["start", "--backend", self.prog.twin.backend]
        for spec in breaks:
            argv += ["--break", spec]
        if run:
            argv.append("--run")
        return self.run(answers, step, *argv, str(self.prog.path), *args)


def answer(answers: Answers, step: str) -> dict[str, Any]:
    """The JSON answer of ``step``, which must have succeeded."""
    assert step in answers, f"step {step!r} never ran (an earlier step failed): {list(answers)}"
    result = answers[step]
    try:
        data: dict[str, Any] = result.json
    except ValueError:
        raise AssertionError(f"{step}: not one JSON object: {result!r}") from None
    assert result.code == 0 and data.get("ok"), f"{step}: {result!r}"
    return data


def run_id(answers: Answers, step: str) -> Any:
    data = answer(answers, step)
    assert data.get("run") is not None, f"{step}: the start's answer names no run: {data}"
    return data["run"]


# -- the groups of steps --------------------------------------------------------------


def _recorded_stops(steps: Steps, answers: Answers) -> None:
    """Three stops at @loop and the history of `total` over them; a trace of
    a name nothing defines; then, the breakpoint gone, `trace tri --max 2`
    to the end."""
    prog = steps.prog
    started = steps.start(answers, "start", "tri", str(TRI_N), breaks=(prog.at("loop"),),
                          run=True)
    if started.code != 0:
        return
    steps.run(answers, "continue-1", "continue")
    steps.run(answers, "continue-2", "continue")
    steps.run(answers, "history", "history", "total")
    steps.run(answers, "trace-nothing", "trace", NOTHING)
    steps.run(answers, "status-nothing", "status")
    steps.run(answers, "unbreak", "unbreak", "1")
    steps.run(answers, "trace-max", "trace", prog.twin.tri, "--max", "2")
    steps.run(answers, "kill", "kill")


def _tri(steps: Steps, answers: Answers) -> None:
    """From a start of `tri 4`: the history of `total` at each hit of @loop
    (until @call-fee's breakpoint), `trace fee --lines` (until @call-tri's),
    then `trace tri` to the end, and the program's output."""
    prog = steps.prog
    started = steps.start(answers, "start", "tri", str(TRI_N),
                          breaks=(prog.at("call-fee"), prog.at("call-tri")))
    if started.code != 0:
        return
    steps.run(answers, "history-at", "history", "total", "--at", prog.at("loop"))
    steps.run(answers, "trace-lines", "trace", prog.twin.fee, "--lines")
    steps.run(answers, "breaks", "breaks")
    steps.run(answers, "trace-tri", "trace", prog.twin.tri)
    steps.run(answers, "output", "output")
    steps.run(answers, "kill", "kill")
    steps.run(answers, "calls-ret", "calls", prog.twin.tri, "--where", "ret >= 6")


def _sum(steps: Steps, answers: Answers) -> None:
    """`sum 10 20 30` and `sum 10 20 -5`, each traced on check_entry from its
    start; then, after the session ended, calls, runs and the diff."""
    fn = steps.prog.twin.check_entry
    for name, args in (("passing", PASSING), ("failing", FAILING)):
        started = steps.start(answers, f"start-{name}", *args)
        if started.code != 0:
            return
        steps.run(answers, f"trace-{name}", "trace", fn)
        steps.run(answers, f"kill-{name}", "kill")
    steps.run(answers, "status", "status")
    steps.run(answers, "calls-where", "calls", fn, "--where", "value < 0")
    steps.run(answers, "calls", "calls", fn)
    steps.run(answers, "runs", "runs")
    steps.run(answers, "calls-no-run", "calls", fn, "--run", "999999")
    ids = [answers[f"start-{name}"].json.get("run") for name in ("passing", "failing")]
    if None not in ids:
        steps.run(answers, "diff", "diff", *map(str, ids))


GROUPS: dict[str, Callable[[Steps, Answers], None]] = {
    "stops": _recorded_stops, "tri": _tri, "sum": _sum}


@pytest.fixture(scope="module", params=BACKENDS)
def steps(request: pytest.FixtureRequest, backend_ready: Callable[[str], None],
          _built: Callable[[str], tuple[Path, Path]],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Steps]:
    twin = TWINS[request.param]
    backend_ready(twin.backend)
    root, path = _built(twin.language)
    with dbg_in(tmp_path_factory.mktemp(f"history-{twin.backend}")) as runner:
        yield Steps(Program(twin, root, path, runner))


# -- helpers ----------------------------------------------------------------------------


def args_of(call: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a["name"], a["value"]) for a in call["args"]]


def history_of(data: dict[str, Any]) -> dict[str, Any]:
    """A history answer's own part (with --at it comes with a stop
    snapshot; see test_history_has_one_shape_with_and_without_at)."""
    return data["history"] if isinstance(data.get("history"), dict) else data


def where(steps: Steps, value: dict[str, Any]) -> tuple[str, int, str]:
    return (os.path.realpath(value["file"]), value["line"], value["function"])


# -- call traces ------------------------------------------------------------------------


def test_a_recursive_trace_is_the_programs_own_record_of_its_calls(steps: Steps) -> None:
    prog, answers = steps.prog, steps.group("tri")
    trace = answer(answers, "trace-tri")
    printed = PRINTED.findall("".join(c["text"] for c in answer(answers, "output")["chunks"]
                                      if c["category"] == "stdout"))
    # tri prints its line as it returns: the innermost call first.
    assert [int(n) for n, _ in printed] == list(range(TRI_N + 1)), printed
    returned = {n: r for n, r in printed}

    calls = trace["trace"]["calls"]
    assert [c["function"] for c in calls] == [prog.twin.tri] * (TRI_N + 1), calls
    # Call order: tri(4) first, each call inside the one before it.
    assert [args_of(c) for c in calls] == [[("n", str(n))] for n in range(TRI_N, -1, -1)], calls
    assert [c["depth"] for c in calls] == list(range(TRI_N + 1)), calls
    assert [c["parent"] for c in calls] == [None] + [c["seq"] for c in calls[:-1]], calls
    assert len({c["seq"] for c in calls}) == len(calls), calls
    for call in calls:
        n = call["args"][0]["value"]
        assert (call["outcome"], call["value"]) == ("returned", returned[n]), call
    # Each call was made from where the program makes it.
    first, *inner = calls
    assert (first["caller"]["line"], first["caller"]["function"]) == (
        prog.line("call-tri"), prog.twin.caller), first
    assert all((c["caller"]["line"], c["caller"]["function"]) == (
        prog.line("tri-rec"), prog.twin.tri) for c in inner), inner
    assert all(os.path.realpath(c["caller"]["file"]) == prog.file() for c in calls), calls
    assert (trace["trace"]["total"], trace["trace"]["omitted"], trace["trace"]["dropped"]) == (
        TRI_N + 1, 0, 0), trace["trace"]
    # It ran to the end: the answer is the end's; the records are the run's.
    assert (trace["state"], trace["exit_code"]) == ("exited", 0), trace
    assert trace["trace"]["run"] == run_id(answers, "start"), trace["trace"]


def test_calls_text_is_a_line_a_call(steps: Steps) -> None:
    """`dbg calls` as people read it: one line a call, the argument and what
    came of it, after the session ended."""
    prog, answers = steps.prog, steps.group("sum")
    assert "kill-failing" in answers, list(answers)
    text = prog.dbg("calls", prog.twin.check_entry)
    assert text.code == 0, text
    for value in ("10", "20"):
        rows = [line for line in text.out.splitlines() if f"(value={value})" in line]
        assert len(rows) == 1 and f"-> {value}" in rows[0], (value, text.out)
    assert sum("(value=-5)" in line for line in text.out.splitlines()) == 1, text.out


def test_max_records_the_first_calls_and_counts_the_rest(steps: Steps) -> None:
    """`--max 2` on tri(4)'s five calls: the first two entered, complete
    (they return after the others), and three counted as dropped."""
    trace = answer(steps.group("stops"), "trace-max")
    calls = trace["trace"]["calls"]
    assert [(args_of(c), c["depth"], c["outcome"], c["value"]) for c in calls] == [
        ([("n", "4")], 0, "returned", "10"), ([("n", "3")], 1, "returned", "6")], calls
    assert trace["trace"]["dropped"] == TRI_N + 1 - 2, trace["trace"]
    assert (trace["state"], trace["exit_code"]) == ("exited", 0), trace


def test_a_trace_of_a_name_nothing_defines_is_refused_where_break_is(steps: Steps) -> None:
    """A mistyped name costs one error line, not the run: where `dbg break`
    refuses the name, `dbg trace` does too, and the program stays where it
    was (the third stop at @loop)."""
    prog, answers = steps.prog, steps.group("stops")
    result = answers["trace-nothing"]
    assert result.code == 1, result
    error = result.json["error"]
    assert NOTHING in error["message"] and "\n" not in error["message"], error
    status = answer(answers, "status-nothing")
    assert status["location"]["line"] == prog.line("loop"), status
    assert answer(answers, "history")["history"]["total"] == 3


def test_an_exception_leaving_a_traced_function(steps: Steps) -> None:
    prog, answers = steps.prog, steps.group("sum")
    language = prog.twin.language
    trace = answer(answers, "trace-failing")
    calls = trace["trace"]["calls"]
    assert [args_of(c) for c in calls] == [[("value", v)] for v in FAILING[1:]], calls
    assert [(c["outcome"], c["value"]) for c in calls[:2]] == [
        ("returned", "10"), ("returned", "20")], calls
    last = calls[2]
    if language == "c":
        # abort() stops the program inside check_entry: the call never ends.
        assert (last["outcome"], last["value"]) == ("unfinished", None), last
    else:
        assert last["outcome"] == "raised", last
        # jdb names the exception's class; it cannot show its message.
        told = "IllegalArgumentException" if language == "java" else "bad entry -5"
        assert last["value"] is not None and told in last["value"], last
    # The run ended where the exception (the signal, in C) stopped it.
    assert trace["state"] == "stopped", trace
    if language == "c":
        assert trace["reason"] == "signal" and "SIGABRT" in trace["description"], trace
    else:
        assert trace["reason"] == "exception", trace
        prog.stopped_at(trace, "raise")


def test_a_passing_run_traces_every_call_returned(steps: Steps) -> None:
    answers = steps.group("sum")
    trace = answer(answers, "trace-passing")
    calls = trace["trace"]["calls"]
    assert [(args_of(c), c["outcome"], c["value"]) for c in calls] == [
        ([("value", v)], "returned", v) for v in PASSING[1:]], calls
    assert all(c["depth"] == 0 and c["parent"] is None for c in calls), calls
    assert (trace["state"], trace["exit_code"]) == ("exited", 0), trace


def test_lines_show_each_line_of_the_call_and_the_locals_it_changed(steps: Steps) -> None:
    prog, answers = steps.prog, steps.group("tri")
    trace = answer(answers, "trace-lines")
    calls = trace["trace"]["calls"]
    assert [(c["function"], args_of(c)) for c in calls] == [
        (prog.twin.fee, [("amount", "1000")])], calls
    fee = calls[0]
    assert fee["outcome"] == "returned", fee
    lines = fee.get("lines") or []
    numbers = [r["line"] for r in lines]
    first, last = prog.line("fee"), prog.line("fee-return")
    assert [n for n in numbers if n in (first, last)] == [first, last], lines
    # Only fee's own lines (its `{`/`}` where the debugger stops on them).
    assert all(first - 2 <= n <= last + 1 for n in numbers), lines
    changed = {r["line"]: {c["name"]: c["value"] for c in r["changed"]} for r in lines}
    # Every local at the first line; then what the line before changed.
    assert changed[first].get("amount") == "1000", lines
    assert changed[last].get("charge") == "20", lines
    assert "amount" not in changed[last], lines
    # It ran on to the user's next breakpoint, which stopped it as `continue` would.
    prog.stopped_at(trace, "call-tri")
    assert trace["reason"] == "breakpoint" and trace["hit_breakpoints"] == [2], trace


def test_lines_keep_the_return_value(steps: Steps) -> None:
    """--lines adds the lines to a call's record; what the call returned is
    still there, as without --lines."""
    trace = answer(steps.group("tri"), "trace-lines")
    fee = trace["trace"]["calls"][0]
    assert (fee["outcome"], fee["value"]) == ("returned", "1020"), fee


def test_a_trace_leaves_only_the_users_breakpoints(steps: Steps) -> None:
    prog, answers = steps.prog, steps.group("tri")
    answer(answers, "trace-lines")
    found = answer(answers, "breaks")["breakpoints"]
    assert [(b["id"], b["line"]) for b in found] == [
        (1, prog.line("call-fee")), (2, prog.line("call-tri"))], found


def test_a_trace_counts_only_the_hits_the_program_made(steps: Steps) -> None:
    """Each of the user's breakpoints was passed once (the history stopped at
    the first, the trace at the second); stepping back out of fee into the
    first one's line is no hit of it."""
    answers = steps.group("tri")
    answer(answers, "trace-lines")
    found = answer(answers, "breaks")["breakpoints"]
    assert [(b["id"], b["hits"]) for b in found] == [(1, 1), (2, 1)], found


# -- the store, after the session ended -------------------------------------------------


def test_calls_where_answers_from_the_store_after_the_session_ended(steps: Steps) -> None:
    answers = steps.group("sum")
    status = answers["status"]
    assert status.code == 1 and status.json["error"]["kind"] == "no_session", status
    found = answer(answers, "calls-where")
    assert [args_of(c) for c in found["calls"]] == [[("value", "-5")]], found
    assert (found["total"], found["omitted"]) == (1, 0), found
    # The latest run of the session: the failing one.
    assert found["run"] == run_id(answers, "start-failing"), found
    every = answer(answers, "calls")
    assert [args_of(c)[0][1] for c in every["calls"]] == list(FAILING[1:]), every


def test_calls_where_compares_values_as_numbers(steps: Steps) -> None:
    """`ret >= 6` holds for 6 and 10, though the text "10" sorts before "6"."""
    found = answer(steps.group("tri"), "calls-ret")
    assert [(args_of(c), c["value"]) for c in found["calls"]] == [
        ([("n", "4")], "10"), ([("n", "3")], "6")], found


def test_calls_of_a_run_that_does_not_exist_is_an_error(steps: Steps) -> None:
    """As `dbg diff` says of one: an unknown run id is an error, not a run
    without calls."""
    result = steps.group("sum")["calls-no-run"]
    assert result.code == 1 and "999999" in result.json["error"]["message"], result


def test_runs_lists_each_start_with_its_args_and_end(steps: Steps) -> None:
    prog, answers = steps.prog, steps.group("sum")
    passing, failing = run_id(answers, "start-passing"), run_id(answers, "start-failing")
    assert passing != failing
    runs = {r["id"]: r for r in answer(answers, "runs")["runs"]}
    assert set(runs) >= {passing, failing}, runs
    assert runs[passing]["args"] == list(PASSING) and runs[failing]["args"] == list(FAILING), runs
    assert runs[passing]["exit_code"] == 0, runs[passing]
    assert (runs[passing]["calls"], runs[failing]["calls"]) == (3, 3), runs
    assert os.path.realpath(runs[passing]["program"]) == os.path.realpath(prog.path), runs


def test_diff_finds_the_first_divergent_call(steps: Steps) -> None:
    answers = steps.group("sum")
    diff = answer(answers, "diff")
    assert (diff["a"]["id"], diff["b"]["id"], diff["same"]) == (
        run_id(answers, "start-passing"), run_id(answers, "start-failing"), False), diff
    assert (diff["a"]["args"], diff["b"]["args"]) == (list(PASSING), list(FAILING)), diff
    divergence = diff["divergence"]
    assert divergence["kind"] == "call", divergence
    # The third call: 30 in the passing run, -5 in the failing one, side by side.
    assert divergence["a"]["seq"] == divergence["b"]["seq"] == 3, divergence
    fn = steps.prog.twin.check_entry
    assert divergence["a"]["function"] == divergence["b"]["function"] == fn, divergence
    assert [(a["name"], a["value"]) for a in divergence["a"]["args"]] == [("value", "30")], \
        divergence
    assert [(a["name"], a["value"]) for a in divergence["b"]["args"]] == [("value", "-5")], \
        divergence


def test_diff_shows_a_call_as_calls_and_trace_do(steps: Steps) -> None:
    """A diverging call's args have the shape of every other call record
    (`dbg calls`, `dbg trace`): [{"name", "value"}], so one reader reads all."""
    answers = steps.group("sum")
    divergence = answer(answers, "diff")["divergence"]
    recorded = answer(answers, "calls")["calls"][2]
    assert divergence["b"]["args"] == recorded["args"], (divergence, recorded)


# -- value histories --------------------------------------------------------------------


def test_history_at_a_line_gives_the_value_at_each_hit(steps: Steps) -> None:
    prog, answers = steps.prog, steps.group("tri")
    stop = answer(answers, "history-at")
    data = history_of(stop)
    assert data["expression"] == "total", data
    values = data["values"]
    assert [v["value"] for v in values] == LOOP_TOTALS, values
    loop = (prog.file(), prog.line("loop"), prog.twin.caller)
    assert all(where(steps, v) == loop for v in values), values
    # Where it changed: the hits after i = 1, 2, 3 (not the second, still 0).
    assert [v["changed"] for v in values[1:]] == [False, True, True, True], values
    assert (data["total"], data["omitted"]) == (len(LOOP_TOTALS), 0), data
    # Evaluated without stopping there: the run stopped at the next breakpoint.
    prog.stopped_at(stop, "call-fee")


def test_history_over_the_recorded_stops(steps: Steps) -> None:
    prog, answers = steps.prog, steps.group("stops")
    for step in ("start", "continue-1", "continue-2"):
        prog.stopped_at(answer(answers, step), "loop")
    data = history_of(answer(answers, "history"))
    assert data["expression"] == "total", data
    values = data["values"]
    at_loop = [v for v in values if v["line"] == prog.line("loop")]
    assert [v["value"] for v in at_loop] == LOOP_TOTALS[:3], values
    loop = (prog.file(), prog.line("loop"), prog.twin.caller)
    assert all(where(steps, v) == loop for v in at_loop), values
    assert [v["changed"] for v in at_loop[1:]] == [False, True], values


def test_history_has_one_shape_with_and_without_at(steps: Steps) -> None:
    """`expression`, `values`, `total`, `omitted` where a reader finds them
    either way: under `history`, beside the stop snapshot with --at (as a
    trace's calls are under `trace`)."""
    at = answer(steps.group("tri"), "history-at")
    recorded = answer(steps.group("stops"), "history")
    for data in (recorded, at):
        assert {"expression", "values", "total", "omitted"} <= set(data["history"]), data
    assert "state" in at and "state" not in recorded, (at, recorded)
