"""`dbg trace` on Python: pdb and debugpy, both by dbg's tracer inside the
program (dbgcore/inprogram/pytrace.py, a profile hook), on tests/targets/tracee.py.

What the trace records is checked against what the program itself printed
of the same calls; what the debugger does after it (its breakpoints, a
continue, a pause) against a plain session's. Last, the tracer alone in
each Python from 3.8 on that this machine has: the profile hook's events
differ between versions (how a call left, where a yield stands)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.inprogram import pytrace
from dbgcore.testing import require_backend
from dbgcore.vocab.traces import read_trace_file

if TYPE_CHECKING:
    from conftest import Dbg, Target

BACKENDS = ["pdb", "debugpy"]
#: Is the tracer still in the program? The stopped thread's profile hook, and
#: the tracer's own word.
HOOKS = ("[__import__('sys').getprofile(), "
         "__import__('sys').modules['_dbg_pytrace']._tracer]")


def start(dbg: Dbg, backend: str, target: Target, *args: str) -> None:
    require_backend(backend)
    started = dbg.json("start", "--backend", backend, str(target.path), *args)
    assert started["ok"] and started["state"] == "stopped", started


def trace(dbg: Dbg, *args: str) -> dict[str, Any]:
    answer: dict[str, Any] = dbg.json("trace", *args)
    assert answer["ok"], answer
    return answer


def calls_of(answer: dict[str, Any], function: str) -> list[dict[str, Any]]:
    return [c for c in answer["trace"]["calls"] if c["function"] == function]


def args_of(call: dict[str, Any]) -> dict[str, str]:
    return {a["name"]: a["value"] for a in call["args"]}


@pytest.mark.parametrize("backend", BACKENDS)
def test_calls_in_order_with_args_and_returns_as_the_program_printed_them(
        dbg: Dbg, target: Any, backend: str) -> None:
    tracee = target("tracee.py")
    start(dbg, backend, tracee, "3")
    answer = trace(dbg, "tri", "check")
    assert answer["state"] == "exited" and answer["exit_code"] == 0, answer
    assert answer["trace"]["means"] == "a profile hook in the program"
    printed = dbg.output("stdout")

    tri = calls_of(answer, "tri")
    # The program printed "call tri(N)" as each call began and "tri(N) = R"
    # as it ended: the same calls, in the same order, the same values.
    assert [args_of(c)["n"] for c in tri] == re.findall(r"^call tri\((\d+)\)$", printed, re.M)
    assert {args_of(c)["n"]: c["value"] for c in tri} == dict(
        re.findall(r"^tri\((\d+)\) = (\d+)$", printed, re.M))
    assert [c["outcome"] for c in tri] == ["returned"] * 4
    # The recursion, nested: each call's parent is the one before it.
    assert [c["depth"] for c in tri] == [0, 1, 2, 3]
    assert [c["parent"] for c in tri] == [None] + [c["seq"] for c in tri[:-1]]
    where = os.path.realpath(tracee.path)
    assert tri[0]["caller"] == {"file": where, "line": tracee.lines["call-tri"],
                                "function": "main"}
    assert tri[1]["caller"]["function"] == "tri"
    assert tri[0]["file"] == where and tri[0]["thread"] == "MainThread"
    # Only the functions asked for: tally, tiny and Meter.read ran too.
    assert {c["function"] for c in answer["trace"]["calls"]} == {"tri", "check"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_exception_leaving_a_traced_call_is_told_from_a_return(
        dbg: Dbg, target: Any, backend: str) -> None:
    tracee = target("tracee.py")
    start(dbg, backend, tracee, "3")
    answer = trace(dbg, "check", "Meter.read")
    printed = dbg.output("stdout")
    assert "check(3) = 6" in printed and "check(-3) raised bad entry -3" in printed
    good, bad = calls_of(answer, "check")
    assert (args_of(good), good["outcome"], good["value"]) == ({"entry": "3"}, "returned", "6")
    assert (args_of(bad), bad["outcome"], bad["value"]) == \
        ({"entry": "-3"}, "raised", "ValueError: bad entry -3")
    # A method, named Class.method, returns normally after the exception.
    (read,) = calls_of(answer, "Meter.read")
    assert (args_of(read)["x"], read["outcome"], read["value"]) == ("1", "returned", "2")


@pytest.mark.parametrize("backend", BACKENDS)
def test_lines_show_the_locals_each_line_changed(dbg: Dbg, target: Any, backend: str) -> None:
    tracee = target("tracee.py")
    start(dbg, backend, tracee, "3")
    answer = trace(dbg, "tally", "--lines")
    (tally,) = answer["trace"]["calls"]
    assert tally["value"] == "7"
    lines = tally["lines"]
    first = tracee.lines["tally-first"]
    assert lines[0]["line"] == first, lines
    # At its first line: every local there is (its argument).
    assert lines[0]["changed"] == [{"name": "prices", "value": "[2, 5]"}]
    changes: dict[str, list[str]] = {}
    for line in lines:
        for change in line["changed"]:
            changes.setdefault(change["name"], []).append(change["value"])
    assert changes["total"] == ["0", "2", "7"], lines
    assert changes["count"] == ["0", "1", "2"], lines
    assert changes["price"] == ["2", "5"], lines
    # Each line once per pass: the loop's body twice.
    assert [r["line"] for r in lines].count(first + 3) == 2, lines


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_records_that_many_and_counts_the_rest(dbg: Dbg, target: Any, backend: str) -> None:
    tracee = target("tracee.py")
    start(dbg, backend, tracee, "30")
    answer = trace(dbg, "tiny", "--max", "5")
    assert answer["state"] == "exited", answer
    calls = answer["trace"]["calls"]
    assert [args_of(c)["x"] for c in calls] == ["0", "1", "2", "3", "4"]
    assert [c["value"] for c in calls] == ["1", "2", "3", "4", "5"]
    assert answer["trace"]["dropped"] == 25, answer["trace"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_breakpoint_inside_the_run_ends_the_trace_and_the_session_goes_on(
        dbg: Dbg, target: Any, backend: str) -> None:
    tracee = target("tracee.py")
    start(dbg, backend, tracee, "3")
    assert dbg.json("break", tracee.loc("tri-result"))["ok"]
    answer = trace(dbg, "tri", "--lines")
    assert answer["reason"] == "breakpoint", answer
    assert answer["location"]["line"] == tracee.lines["tri-result"]
    calls = answer["trace"]["calls"]
    # Stopped in the innermost call, tri(1): all four are still running.
    assert [(args_of(c)["n"], c["outcome"]) for c in calls] == \
        [("4", "unfinished"), ("3", "unfinished"), ("2", "unfinished"), ("1", "unfinished")]
    # The line it stopped at is one the call reached.
    assert calls[-1]["lines"][-1]["line"] == tracee.lines["tri-result"]
    # The debugger shows the program's frames only, and the tracer is out.
    stack = dbg.json("stack")
    assert [f["function"] for f in stack["frames"]][:5] == ["tri"] * 4 + ["main"], stack
    assert not any("pytrace" in str(f.get("file")) for f in stack["frames"]), stack
    assert dbg.json("print", HOOKS)["value"] == "[None, None]"
    # The breakpoint stops again, in the caller's call, and then the end.
    again = dbg.json("continue")
    assert again["reason"] == "breakpoint" and again["location"]["line"] == \
        tracee.lines["tri-result"], again
    assert dbg.json("print", "n")["value"] == "2"
    assert dbg.json("unbreak", tracee.loc("tri-result"))["ok"]
    assert dbg.json("continue")["state"] == "exited"
    assert "tri(4) = 10" in dbg.output("stdout")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_trace_begun_inside_the_traced_function_records_the_running_calls(
        dbg: Dbg, target: Any, backend: str) -> None:
    tracee = target("tracee.py")
    require_backend(backend)
    assert dbg.json("start", "--backend", backend, "--break", tracee.loc("tri-result"), "--run",
                    str(tracee.path), "3")["state"] == "stopped"
    assert dbg.json("print", "n")["value"] == "1"  # in tri(1), under tri(4), tri(3), tri(2)
    assert dbg.json("unbreak", tracee.loc("tri-result"))["ok"]
    answer = trace(dbg, "tri")
    assert answer["state"] == "exited", answer
    calls = answer["trace"]["calls"]
    # The four calls it was inside, outermost first, each with its return.
    assert [(args_of(c)["n"], c["outcome"], c["value"]) for c in calls] == \
        [("4", "returned", "10"), ("3", "returned", "6"), ("2", "returned", "3"),
         ("1", "returned", "1")], calls
    assert [c["depth"] for c in calls] == [0, 1, 2, 3], calls
    note = answer["trace"]["note"]
    assert "tri was running when the trace began" in note and "check the names" not in note


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_trace_that_outlives_its_timeout_pauses_the_program(
        dbg: Dbg, target: Any, backend: str) -> None:
    tracee = target("tracee.py")
    start(dbg, backend, tracee, str(10**9))
    began = time.monotonic()
    answer = dbg.json("--timeout", "5", "trace", "tiny", "--max", "3")
    took = time.monotonic() - began
    assert answer["ok"] and answer["state"] == "stopped" and answer["reason"] == "pause", answer
    assert answer["trace"]["timed_out"] is True
    assert took < 15, took
    assert len(answer["trace"]["calls"]) == 3 and answer["trace"]["dropped"] > 100
    # It answers, where it paused, and runs on to a breakpoint of the user's.
    assert dbg.json("stack")["frames"], "no stack after the pause"
    assert dbg.json("break", tracee.loc("tiny-loop"))["ok"]
    on = dbg.json("continue")
    assert on["reason"] == "breakpoint" and on["location"]["line"] == tracee.lines["tiny-loop"]
    acc = int(dbg.json("print", "acc")["value"])
    # Every call made while the trace ran was recorded or counted. One more
    # if the pause came at a call's very start (pydevd may suspend at its
    # call event, which reaches the debugger's tracer before the profile
    # hook): that call runs after the trace.
    assert acc - 3 - answer["trace"]["dropped"] in (0, 1), (acc, answer["trace"])
    assert dbg.json("continue")["reason"] == "breakpoint"
    assert int(dbg.json("print", "acc")["value"]) == acc + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_traced_calls_per_second(dbg: Dbg, target: Any, backend: str) -> None:
    """20,000 calls of a tiny function, traced end to end (the op, the
    records read and stored, the answer): at least 1,000 a second."""
    tracee = target("tracee.py")
    start(dbg, backend, tracee, "20000")
    began = time.monotonic()
    answer = trace(dbg, "tiny", "--max", "20000")
    took = time.monotonic() - began
    assert answer["trace"]["total"] == 20000 and answer["trace"]["dropped"] == 0
    rate = 20000 / took
    print(f"{backend}: 20,000 traced calls in {took:.2f}s: {rate:,.0f} calls/s")
    assert rate > 1000, f"{rate:.0f} calls/s"


# -- the tracer alone, in each Python there is ---------------------------------------

#: Run by each interpreter: traces the program below and checks what only the
#: program knows (its hooks before, during and after).
_DRIVER = r'''
import importlib.util, json, sys, threading

spec = importlib.util.spec_from_file_location("_dbg_pytrace", sys.argv[1])
tracer = importlib.util.module_from_spec(spec)
sys.modules["_dbg_pytrace"] = tracer
spec.loader.exec_module(tracer)

def fee(amount, rate=3):
    if amount < 0:
        raise ValueError("negative %d" % amount)
    return amount * rate

def countdown(n):
    while n:
        yield n
        n -= 1

class Cart:
    def total(self, *items, **extra):
        return sum(items)

def handled():
    try:
        fee(-1)
    except ValueError:
        return "handled"

def untraced():
    return fee(1) + 1

seen = []
def theirs(frame, event, arg):
    seen.append(event)

go = threading.Event()
early = threading.Thread(target=lambda: (go.wait(), fee(7)))
early.start()
sys.setprofile(theirs)
tracer.install(sys.argv[2], ["fee", "countdown", "Cart.total", "handled", "dumps",
                             "json.loads"], True, 8, 40)
fee(2)
try:
    fee(-5)
except ValueError:
    pass
list(countdown(2))
Cart().total(1, 2, big="x" * 500)
handled()
json.loads(json.dumps([2]))
worker = threading.Thread(target=untraced)
worker.start()
worker.join()
go.set()
early.join()
for i in range(5):
    fee(i)
answer = tracer.uninstall()
assert sys.getprofile() is theirs, sys.getprofile()
assert sys.gettrace() is None, sys.gettrace()
assert getattr(threading, "_profile_hook", None) is None
assert "call" in seen and "c_call" in seen
sys.setprofile(None)
print(answer["recorded"], answer["dropped"])
'''


def _pythons() -> list[str]:
    """This interpreter and the other CPythons from 3.8 on this machine has
    (pyenv's, or python3.N on PATH)."""
    import shutil

    found = {sys.executable}
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for minor in range(8, 15):
        for candidate in sorted(root.glob(f"3.{minor}.*/bin/python3")):
            found.add(str(candidate))
        on_path = shutil.which(f"python3.{minor}")
        if on_path and "shims" not in on_path:
            found.add(on_path)
    return sorted(found)


def _version(python: str) -> str:
    done = subprocess.run([python, "-c", "import sys; print('%d.%02d' % sys.version_info[:2])"],
                          capture_output=True, text=True, timeout=30)
    return done.stdout.strip()


@pytest.mark.parametrize("python", _pythons())
def test_the_tracer_in_each_python(python: str, tmp_path: Path) -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(_DRIVER, encoding="utf-8")
    out = tmp_path / "trace.jsonl"
    done = subprocess.run([python, str(driver), pytrace.__file__, str(out)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # From 3.12 a thread already running is traced too (fee(7) in it).
    every = _version(python) >= "3.12"
    assert done.stdout.split() == ["8", "6" if every else "5"], done.stdout
    calls, dropped = read_trace_file(out)
    assert dropped == (6 if every else 5)
    shown = [(c.function, dict(c.args), c.outcome, c.value, c.depth, c.thread) for c in calls]
    assert shown[:6] == [
        ("fee", {"amount": "2", "rate": "3"}, "returned", "6", 0, "MainThread"),
        ("fee", {"amount": "-5", "rate": "3"}, "raised", "ValueError: negative -5", 0,
         "MainThread"),
        # A generator is one call, however often it yields.
        ("countdown", {"n": "2"}, "returned", "None", 0, "MainThread"),
        ("Cart.total", {"self": shown[3][1]["self"], "items": "(1, 2)",
                        "extra": shown[3][1]["extra"]}, "returned", "3", 0, "MainThread"),
        ("handled", {}, "returned", "'handled'", 0, "MainThread"),
        ("fee", {"amount": "-1", "rate": "3"}, "raised", "ValueError: negative -1", 1,
         "MainThread"),
    ], shown
    # Values cut at the bound given (40 here), the cut marked.
    assert len(shown[3][1]["extra"]) == 40 and shown[3][1]["extra"].endswith("\u2026")
    # A library's function by its module's name only: json.loads, not a
    # bare dumps (which means the program's own).
    assert shown[6][0] == "loads" and shown[6][1]["s"] == "'[2]'" and shown[6][3] == "[2]"
    # A thread started while tracing is traced, not the function it runs.
    assert shown[7][0] == "fee" and shown[7][5] != "MainThread" and shown[7][4] == 0
    assert len(shown) == 8
    assert calls[5].parent == calls[4].seq
    # --lines: each line of a call, what changed there.
    first = calls[0].lines
    assert first[0].changed == [("amount", "2"), ("rate", "3")]
    assert [line.changed for line in first[1:]] == [[]]
    walked = [change for line in calls[2].lines for change in line.changed]
    assert walked[0] == ("n", "2") and ("n", "1") in walked
    # The file is JSON Lines, each event whole.
    assert all(json.loads(line) for line in out.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("backend", BACKENDS)
def test_threads_the_trace_cannot_see_are_named(dbg: Dbg, target: Any, backend: str) -> None:
    """Before Python 3.12 a profile hook reaches its own thread and those
    started later: a worker already running is not traced, and the answer
    says so (naming the program's thread, not the debugger's own)."""
    if sys.version_info >= (3, 12):
        pytest.skip("from 3.12 the tracer reaches every running thread")
    threads = target("dap_threads.py")
    require_backend(backend)
    assert dbg.json("start", "--backend", backend, "--break", threads.loc("main-break"),
                    "--run", str(threads.path))["reason"] == "breakpoint"
    answer = trace(dbg, "worker")
    assert answer["trace"]["calls"] == [] and answer["state"] == "exited"
    note = answer["trace"]["note"]
    assert "(dap-worker)" in note and "pydevd" not in note, note
