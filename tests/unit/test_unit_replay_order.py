"""The order a replay walks a record in (dbgcore.vocab.traces.recorded_events),
and the record's places as the replay backend reads them (dbg_replay.record),
on records written as the store keeps them: numbered events interleave a
caller's lines with its callee's, a second trace in the same run numbers
from 1 again, and a record without numbers goes call after call."""

from __future__ import annotations

from typing import Any

from dbg_replay.record import Record

from dbgcore.vocab.traces import recorded_events


def call(seq: int, function: str, n: int | None,
         lines: list[tuple[int, int | None, dict[str, str]]], end_n: int | None,
         parent: int | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "seq": seq, "function": function, "file": "/w/p.py", "parent": parent,
        "outcome": "returned", "value": str(seq * 10),
        "lines": [{"line": line, "changed": [{"name": k, "value": v} for k, v in changed.items()],
                   **({"n": at} if at is not None else {})} for line, at, changed in lines]}
    if n is not None:
        data["n"] = n
    if end_n is not None:
        data["end_n"] = end_n
    return data


def test_numbered_events_interleave_a_callers_lines_with_its_callees() -> None:
    calls = [call(1, "main", 1, [(10, 2, {"a": "1"}), (11, 3, {}), (12, 8, {"b": "20"})], 9),
             call(2, "fee", 4, [(5, 5, {"x": "1"}), (6, 6, {})], 7, parent=1)]
    order, numbered = recorded_events(calls)
    assert numbered
    assert order == [(0, 0), (0, 1), (1, 0), (1, 1), (1, None), (0, 2), (0, None)]
    record = Record(calls)
    # In fee's first line: fee at 5, main at the line it called from, 11.
    assert [(f, line) for f, _, line, _ in record.frames(2)] == [("fee", 5), ("main", 11)]
    # main's locals as of that call: a, not b (assigned after it).
    main = record.calls[1]
    assert record.locals_of(main, record.frames(2)[1][3]) == [("a", "1")]


def test_a_second_trace_of_the_run_numbers_from_one_again_and_comes_after() -> None:
    first = call(1, "main", 1, [(10, 2, {}), (11, 3, {})], 4)
    second = call(2, "main", 1, [(10, 2, {}), (11, 3, {})], 4)
    order, numbered = recorded_events([second, first])
    assert numbered
    # calls[0] is the second trace's (seq 2): after all of the first's.
    assert order == [(1, 0), (1, 1), (1, None), (0, 0), (0, 1), (0, None)]


def test_without_numbers_the_calls_go_one_after_another() -> None:
    calls = [call(1, "main", None, [(10, None, {}), (12, None, {})], None),
             call(2, "fee", None, [(5, None, {})], None, parent=1)]
    order, numbered = recorded_events(calls)
    assert not numbered
    assert order == [(0, 0), (0, 1), (0, None), (1, 0), (1, None)]
    record = Record(calls)
    assert not record.numbered
    assert [record.line_at(i) for i in record.line_points] == [10, 12, 5]
