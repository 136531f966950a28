"""The history ops' parts that need no debugger: expressions over recorded
values, the trace file, runs and calls in the store, the first divergence
of two runs, and the output budget. The ops themselves run on every
backend in tests/behavior/test_history.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from dbgcore.shared.errors import UsageError
from dbgcore.store.db import Store
from dbgcore.store.recorded import RecordedExpression, Unknown, read_value
from dbgcore.store.recording import Batches, StoredCalls
from dbgcore.store.rundiff import compare
from dbgcore.transport.outputbuffer import OutputBuffer
from dbgcore.vocab.traces import CallRecord, LineRecord, read_trace_file


@pytest.mark.parametrize(("text", "value"), [
    ("3", 3), ("-1.5", -1.5), ("'abc'", "abc"), ('"abc"', "abc"), ("[1, 2]", [1, 2]),
    ("None", None), ("nil", None), ("true", True), ("0x1f", 31), ("65 'A'", 65),
    ("{...}", "{...}"), ("0x7ffd1234 \"text\"", 0x7FFD1234),
])
def test_recorded_values_read_as_the_literals_they_look_like(text: str, value: object) -> None:
    assert read_value(text) == value


def test_an_expression_compares_recorded_values_of_any_language() -> None:
    where = RecordedExpression("value < 0 and ret is None")
    assert where.evaluate({"value": "-5", "ret": None}) is True
    assert where.evaluate({"value": "10", "ret": "10"}) is False
    assert RecordedExpression("len(name) == 3").evaluate({"name": "'abc'"}) is True
    assert RecordedExpression("1 < n <= 3").evaluate({"n": "3"}) is True
    assert RecordedExpression("xs[1] * 2").evaluate({"xs": "[4, 5]"}) == 10
    assert RecordedExpression("n").names == {"n"}


def test_a_name_the_record_lacks_or_a_mismatch_is_unknown_not_false() -> None:
    with pytest.raises(Unknown):
        RecordedExpression("missing > 1").evaluate({"n": "1"})
    with pytest.raises(Unknown):  # a text against a number: the record cannot say
        RecordedExpression("n > 1").evaluate({"n": "{...}"})


@pytest.mark.parametrize("text", ["n >", "__import__('os')", "n.real", "(lambda: 1)()",
                                  "[x for x in n]", "open('f')", "n if n else 1"])
def test_anything_outside_the_subset_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError):
        RecordedExpression(text, "--where")


def test_the_trace_file_gives_calls_in_entry_order_and_skips_a_torn_line(
        tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    events = [
        {"e": "call", "seq": 1, "fn": "tri", "args": [["n", "2"]], "file": "/t.py", "line": 3,
         "caller": ["/t.py", 9, "main"], "thread": "MainThread", "depth": 0, "parent": None},
        {"e": "call", "seq": 2, "fn": "tri", "args": [["n", "1"]], "file": "/t.py", "line": 3,
         "caller": ["/t.py", 5, "tri"], "thread": "MainThread", "depth": 1, "parent": 1},
        {"e": "line", "seq": 2, "line": 4, "changed": [["n", "1"]]},
        {"e": "return", "seq": 2, "value": "1"},
        {"e": "raise", "seq": 1, "value": "ValueError: x" * 100},
        {"e": "dropped", "count": 7},
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in events) + '{"e": "call", "se')
    calls, dropped = read_trace_file(path)
    assert dropped == 7
    assert [(c.seq, c.function, c.outcome, c.parent) for c in calls] == [
        (1, "tri", "raised", None), (2, "tri", "returned", 1)]
    assert calls[1].args == [("n", "1")] and calls[1].value == "1"
    assert calls[1].lines == [LineRecord(4, [("n", "1")])]
    assert calls[0].caller == ("/t.py", 9, "main")
    assert calls[0].value is not None and len(calls[0].value) == 200  # cut, with its mark
    assert read_trace_file(tmp_path / "none.jsonl") == ([], 0)
    # A record survives its JSON form whole.
    assert CallRecord.from_dict(calls[1].to_dict()) == calls[1]


def _call(seq: int, fn: str, args: list[tuple[str, str]], value: str | None,
          parent: int | None = None, outcome: str = "returned",
          lines: list[LineRecord] | None = None) -> dict[str, object]:
    return CallRecord(seq, fn, args, parent=parent, depth=0 if parent is None else 1,
                      outcome=outcome, value=value,  # type: ignore[arg-type]
                      lines=lines or []).to_dict()


def test_runs_and_their_calls_are_kept_numbered_after_the_runs_earlier_traces(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "store.db")
    session = store.open_session("s", "pdb", "pdb", "3.11", "/p.py", ["1"], "/")
    run = store.open_run(session, "/p.py", ["1"])
    assert store.record_calls(run, [_call(1, "f", [("a", "1")], "2"),
                                    _call(2, "g", [], "3", parent=1)]) == 1
    assert store.record_calls(run, [_call(1, "f", [("a", "5")], "6")]) == 3
    store.record_stop(session, {"state": "stopped", "reason": "breakpoint",
                                "location": {"file": "/p.py", "line": 3, "function": "f"},
                                "locals": [{"name": "a", "value": "1"}]}, [], run)
    store.end_run(run, 0, None)
    other = store.open_run(session, "/p.py", ["2"])
    calls = store.calls(run)
    assert [(c["seq"], c["parent"]) for c in calls] == [(1, None), (2, 1), (3, None)]
    assert [c["seq"] for c in store.calls(run, "f")] == [1, 3]
    runs = store.runs("s")
    assert [(r["id"], r["args"], r["exit_code"], r["stops"], r["calls"]) for r in runs] == [
        (run, ["1"], 0, 1, 3), (other, ["2"], None, 0, 0)]
    assert [h["run"] for h in store.hits(None, run_id=run)] == [run]
    assert store.runs("nobody") == []
    store.close()


def test_records_are_written_as_they_come_not_only_at_the_end() -> None:
    written: list[list[str]] = []
    batches: Batches[str] = Batches(written.append, "test")
    batches.put(1, "entered")
    deadline = time.monotonic() + 30
    while not written:  # written by the writer thread, the batches still open
        assert time.monotonic() < deadline, "nothing written before close()"
        time.sleep(0.01)
    assert written == [["entered"]]
    batches.put(1, "returned")
    batches.put(2, "entered")
    batches.close()  # what is left, as it is last
    assert [item for batch in written[1:] for item in batch] == ["returned", "entered"]


def test_a_call_kept_as_it_began_is_written_over_as_it_ends(tmp_path: Path) -> None:
    store = Store(tmp_path / "store.db")
    session = store.open_session("s", "pdb", "pdb", "3.11", "/p.py", [], "/")
    run = store.open_run(session, "/p.py", [])
    store.record_calls(run, [_call(1, "f", [("a", "1")], "2")])  # an earlier trace
    call = CallRecord(1, "g", [("b", "3")])
    with StoredCalls(store, run) as kept:
        kept.record(call)
        deadline = time.monotonic() + 30
        while len(store.calls(run)) < 2:
            assert time.monotonic() < deadline, "the call was not kept as it began"
            time.sleep(0.01)
        assert store.calls(run)[1]["outcome"] == "unfinished"
        call.outcome, call.value = "returned", "4"
        kept.record(call)
        kept.settle([call, CallRecord(2, "h")])  # h: never given as it went
    rows = store.calls(run)
    assert [(r["seq"], r["function"], r["outcome"], r["value"]) for r in rows] == [
        (1, "f", "returned", "2"), (2, "g", "returned", "4"), (3, "h", "unfinished", None)]
    assert kept.base == 1
    store.close()


def test_the_first_divergence_of_two_runs_is_the_first_call_that_differs() -> None:
    run_a = {"id": 1, "program": "p", "args": ["10", "20", "30"], "exit_code": 0}
    run_b = {"id": 2, "program": "p", "args": ["10", "20", "-5"], "exit_code": None}
    same = [_call(1, "check", [("v", "10")], "10"), _call(2, "check", [("v", "20")], "20")]
    a = [*same, _call(3, "check", [("v", "30")], "30")]
    b = [*same, _call(3, "check", [("v", "-5")], "ValueError: bad", outcome="raised")]
    answer = compare(run_a, run_b, a, b, [], [])
    assert answer["same"] is False and answer["basis"] == "traced calls"
    divergence = answer["divergence"]
    assert (divergence["kind"], divergence["index"]) == ("call", 5)
    assert divergence["a"]["args"] == [{"name": "v", "value": "30"}]
    assert divergence["b"]["args"] == [{"name": "v", "value": "-5"}]
    assert answer["before"][-1] == {"kind": "end", "seq": 2, "function": "check",
                                    "outcome": "returned", "value": "20"}
    assert compare(run_a, run_a, a, a, [], [])["same"] is True


def test_a_divergence_in_a_return_a_line_or_a_length() -> None:
    run = {"id": 1}
    inner_a = [_call(1, "tri", [("n", "2")], "3"), _call(2, "tri", [("n", "1")], "1", parent=1)]
    inner_b = [_call(1, "tri", [("n", "2")], "4"), _call(2, "tri", [("n", "1")], "2", parent=1)]
    # The inner call's return comes first in time, before the outer one's.
    found = compare(run, run, inner_a, inner_b, [], [])["divergence"]
    assert (found["kind"], found["a"]["value"], found["b"]["value"]) == ("return", "1", "2")
    lines_a = [_call(1, "f", [], "1", lines=[LineRecord(3), LineRecord(4)])]
    lines_b = [_call(1, "f", [], "1", lines=[LineRecord(3), LineRecord(6)])]
    found = compare(run, run, lines_a, lines_b, [], [])["divergence"]
    assert (found["kind"], found["a"]["line"], found["b"]["line"]) == ("line", 4, 6)
    found = compare(run, run, inner_a[:1], [*inner_a[:1], _call(2, "g", [], "0")], [],
                    [])["divergence"]
    assert found["kind"] == "length" and found["a"] is None


def test_runs_that_differ_only_in_addresses_are_the_same() -> None:
    run = {"id": 1}
    a = [_call(1, "usages", [("lines", "<generator object device_log at 0x7f87b367d210>")],
               "<Report at 0x7f87b3600000>")]
    b = [_call(1, "usages", [("lines", "<generator object device_log at 0x7f8f0115d6c0>")],
               "<Report at 0x7f8f01100000>")]
    assert compare(run, run, a, b, [], [])["same"] is True
    # A null pointer against a real one is a difference, and so is any other value.
    null = [_call(1, "f", [("p", "0x0")], "1")]
    real = [_call(1, "f", [("p", "0x55555556eee0")], "1")]
    assert compare(run, run, null, real, [], [])["divergence"]["kind"] == "call"
    other = [_call(1, "usages", [("lines", "<generator object device_log at 0x7f8f0115d6c0>")],
                   "<Report at 0x7f8f01100000> 2")]
    assert compare(run, run, a, other, [], [])["divergence"]["kind"] == "return"


def test_runs_without_traces_are_compared_stop_by_stop() -> None:
    stop = {"state": "stopped", "file": "/p.py", "line": 3, "function": "f",
            "locals": [{"name": "x", "value": "1"}]}
    answer = compare({"id": 1}, {"id": 2}, [], [], [stop, stop],
                     [stop, {**stop, "locals": [{"name": "x", "value": "2"}]}])
    assert answer["basis"] == "recorded stops"
    assert (answer["divergence"]["kind"], answer["divergence"]["index"]) == ("stop", 2)


def test_an_output_answer_keeps_to_its_budget_and_says_what_it_cut() -> None:
    buffer = OutputBuffer()
    for _ in range(5):
        buffer.append("stdout", "x" * 400)
    page = buffer.read(0, None, 1000, max_chars=1000)
    assert len(page["chunks"]) == 2 and page["more"] is True
    rest = buffer.read(page["cursor"], None, 1000, max_chars=1000)
    assert len(rest["chunks"]) == 2
    big = OutputBuffer()
    big.append("stdout", "y" * 40_000)  # one write: kept in chunks a page can hold
    pages, cursor = [], 0
    while True:
        page = big.read(cursor, None, 1000, max_chars=20_000)
        pages.append(page)
        cursor = page["cursor"]
        if not page["more"]:
            break
    assert all(sum(len(c["text"]) for c in p["chunks"]) <= 20_000 for p in pages)
    assert "".join(c["text"] for p in pages for c in p["chunks"]) == "y" * 40_000
