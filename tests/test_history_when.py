"""`dbg history` answers "when": the first values or the last, only the
changes, several expressions at each hit, past the user's own breakpoint on
the line, from a program that has ended (run again), and what it recorded
when the op's time runs out (tests/targets/drift.py, on pdb and debugpy)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import Dbg

#: The running total after each step: the ninth adds 100 too many.
TOTALS = [sum(range(1, i + 1)) + (100 if i >= 9 else 0) for i in range(1, 21)]


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_history_says_when(dbg: Dbg, target: Any, backend: str,
                           backend_ready: Callable[[str], None]) -> None:
    backend_ready(backend)
    drift = target("drift.py")
    sample = drift.loc("sample")
    dbg.json("start", "--backend", backend, "--break", sample, str(drift.path))
    # The user's breakpoint on the sampled line does not end the history.
    first = dbg.json("history", "total; count", "--at", sample, "--first", "--limit", "3")
    h = first["history"]
    assert first["_exit"] == 0 and h["total"] == 20, first
    assert [v["value"] for v in h["values"]] == [
        f"total = {t}; count = {n}" for t, n in zip(TOTALS[:3], (0, 1, 2), strict=True)], h
    assert [p["expression"] for p in h["values"][0]["values"]] == ["total", "count"], h
    assert "17 later values not shown" in dbg("history", "total; count", "--first", "--limit",
                                               "3").out

    # From the store: the changes only, the first of them first.
    changes = dbg.json("history", "total; count", "--changes", "--first", "--limit", "2")
    assert [v["hit"] for v in changes["history"]["values"]] == [1, 2], changes

    # The program has ended: history runs it again from its start.
    again = dbg.json("history", "total", "--at", sample, "--limit", "20")["history"]
    assert [v["value"] for v in again["values"]] == [str(t) for t in TOTALS], again
    assert "run again from its start" in again["note"], again
    assert again["values"][8]["changed"] and dbg.json("status")["_exit"] == 0


def test_history_after_a_failure_runs_the_program_again(
        dbg: Dbg, target: Any, backend_ready: Callable[[str], None]) -> None:
    backend_ready("pdb")
    drift = target("drift.py")
    stop = dbg.json("start", "--backend", "pdb", "--run", str(drift.path), "0", "check")
    assert stop["reason"] == "exception", stop
    h = dbg.json("history", "total", "--at", drift.loc("sample"), "--first", "--limit", "9")
    values = [v["value"] for v in h["history"]["values"]]
    assert values == [str(t) for t in TOTALS[:9]], h
    assert "was not reached from the stop" in h["history"]["note"], h


def test_history_keeps_what_it_took_when_the_time_runs_out(
        dbg: Dbg, target: Any, backend_ready: Callable[[str], None]) -> None:
    backend_ready("debugpy")
    drift = target("drift.py")
    dbg.json("start", "--backend", "debugpy", str(drift.path), "0.5")
    answer = dbg.json("--timeout", "5", "history", "total", "--at", drift.loc("sample"))
    h = answer["history"]
    assert answer["_exit"] == 0 and 1 <= h["total"] < 20, answer
    assert "(5 s, --timeout) ran out" in h["note"], h
    assert [v["value"] for v in h["values"]] == [str(t) for t in TOTALS[:h["total"]]], h
    # The session goes on, stopped where the time ran out.
    printed = dbg.json("print", "count")
    assert printed["_exit"] == 0, printed
