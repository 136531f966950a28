"""`dbg replay RUN`: a real Python run recorded by `dbg trace --lines` (on pdb
and debugpy, both by dbg's tracer in the program), then replayed from the
store: stepped back across a loop, a breakpoint hit again going backwards,
the record's start and end said plainly, a call finished and entered
again, and new code refused in one line (exit 3) with the session going
on. The commands run from another folder than the program's (the `dbg`
fixture's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg, Target

BACKENDS = ["pdb", "debugpy"]


def recorded(dbg: Dbg, target: Any, backend: str) -> tuple[Target, int]:
    """replayed.py run to its end under ``backend`` with main and fee
    traced line by line, its session ended; the run's id."""
    require_backend(backend)
    program = target("replayed.py")
    assert dbg.json("start", "--backend", backend, str(program.path))["ok"]
    traced = dbg.json("trace", "main", "fee", "--lines")
    assert traced["ok"] and traced["state"] == "exited", traced
    run = int(traced["trace"]["run"])
    assert dbg.json("kill")["ok"]
    return program, run


def local(answer: dict[str, Any], name: str) -> str | None:
    return next((v["value"] for v in answer.get("locals") or [] if v["name"] == name), None)


def moved(dbg: Dbg, *words: str) -> dict[str, Any]:
    answer: dict[str, Any] = dbg.json(*words)
    assert answer["ok"] and answer["state"] == "stopped", answer
    return answer


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_replay_steps_back_across_the_loop_with_the_values_going_back_down(
        dbg: Dbg, target: Any, backend: str) -> None:
    program, run = recorded(dbg, target, backend)
    first = moved(dbg, "replay", str(run))
    assert first["location"]["line"] == program.lines["main-first"], first
    assert first["location"]["function"] == "main"
    # Forwards to the loop's last pass...
    seen = []
    answer = first
    while len(seen) < 4:
        answer = moved(dbg, "step")
        if answer["location"]["line"] == program.lines["loop"]:
            seen.append((local(answer, "i"), local(answer, "total")))
    assert seen == [("0", "0"), ("1", "0"), ("2", "1"), ("3", "3")], seen
    # ...and back, pass by pass: i and total go back down.
    back = []
    while len(back) < 3:
        answer = moved(dbg, "step", "--back")
        if answer["location"]["line"] == program.lines["loop"]:
            back.append((local(answer, "i"), local(answer, "total")))
    assert back == [("2", "1"), ("1", "0"), ("0", "0")], back
    assert dbg.json("print", "i")["value"] == "0"
    # The start of the record, said plainly; stepping back again stays there.
    lines = []
    for _ in range(4):
        answer = moved(dbg, "step", "--back")
        lines.append(answer["location"]["line"])
    assert lines == [program.lines["for"], program.lines["main-first"],
                     program.lines["main-first"], program.lines["main-first"]], lines
    assert answer["reason"] == "start of record", answer
    assert "start of the record" in answer["description"]
    assert answer["location"]["line"] == program.lines["main-first"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_break_and_continue_back_to_an_earlier_hit(
        dbg: Dbg, target: Any, backend: str) -> None:
    program, _run = recorded(dbg, target, backend)
    moved(dbg, "replay", "last")
    placed = dbg.json("break", f"replayed.py:{program.lines['loop']}")
    assert placed["ok"], placed
    hits = [local(moved(dbg, "continue"), "i") for _ in range(3)]
    assert hits == ["0", "1", "2"]
    earlier = moved(dbg, "continue", "--back")
    assert earlier["reason"] == "breakpoint" and earlier["hit_breakpoints"], earlier
    assert (local(earlier, "i"), local(earlier, "total")) == ("1", "0"), earlier
    # The replay's own stops are recorded like any others.
    hits_answer = dbg.json("hits", f"replayed.py:{program.lines['loop']}")
    assert hits_answer["ok"] and len(hits_answer["hits"]) >= 4, hits_answer
    # history reads the replayed run's record: every value total took.
    history = dbg.json("history", "total")
    assert [r["value"] for r in history["history"]["values"]] == ["0", "1", "3", "6"], history
    # On to the end: past the last hit, the end of the record is said.
    for _ in range(6):
        end = moved(dbg, "continue")
        if end["reason"] == "end of record":
            break
    assert end["reason"] == "end of record", end
    assert "end of the record" in end["description"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_finish_returns_to_the_caller_with_the_value_and_back_into_the_call(
        dbg: Dbg, target: Any, backend: str) -> None:
    program, run = recorded(dbg, target, backend)
    moved(dbg, "replay", str(run))
    assert dbg.json("break", "fee")["ok"]
    inside = moved(dbg, "continue")
    assert inside["location"]["function"] == "fee" and local(inside, "amount") == "600"
    stack = dbg.json("stack")
    assert [f["function"] for f in stack["frames"]][:2] == ["fee", "main"], stack
    assert stack["frames"][1]["line"] == program.lines["call-fee"]
    back_in_main = dbg.json("up")
    assert back_in_main["ok"], back_in_main
    assert {v["name"]: v["value"] for v in dbg.json("locals")["variables"]}["total"] == "6"
    returned = moved(dbg, "finish")
    assert returned["return_value"]["value"] == "18", returned
    assert returned["location"]["line"] == program.lines["call-fee"], returned
    again = moved(dbg, "step", "--back")
    assert again["location"]["line"] == program.lines["fee-return"], again
    assert local(again, "rate") == "3"
    caller = moved(dbg, "finish", "--back")
    assert caller["location"]["function"] == "main", caller
    assert caller["location"]["line"] == program.lines["call-fee"]
    after = moved(dbg, "next")
    assert after["location"]["line"] == program.lines["after-fee"], after
    assert local(after, "cost") == "18"


def test_new_code_is_refused_in_one_line_and_the_replay_goes_on(
        dbg: Dbg, target: Any) -> None:
    _program, run = recorded(dbg, target, "pdb")
    moved(dbg, "replay", str(run))
    moved(dbg, "next")
    for words in (("print", "total + 1"), ("set", "total", "5"), ("raw", "p total")):
        refused = dbg(*words)
        assert refused.code == 3, (words, refused)
        lines = refused.err.strip().splitlines()
        assert len(lines) == 1, refused.err
        assert "replay" in lines[0] and "recorded" in lines[0] and "dbg start" in lines[0], \
            lines[0]
        assert "Traceback" not in refused.out + refused.err
    # A recorded name prints; one not assigned yet here says so.
    assert dbg.json("print", "total")["value"] == "0"
    unset = dbg("print", "cost")
    assert unset.code == 1 and "no recorded value" in unset.err, unset
    assert dbg.json("step")["ok"]
    # `dbg runs` says which run the replay's own run replays.
    assert dbg.json("runs")["runs"][-1]["replays"] == run


def test_a_run_without_recorded_lines_is_refused(dbg: Dbg, target: Any) -> None:
    require_backend("pdb")
    program = target("replayed.py")
    assert dbg.json("start", "--backend", "pdb", str(program.path))["ok"]
    traced = dbg.json("trace", "fee")
    assert traced["ok"], traced
    run = traced["trace"]["run"]
    assert dbg.json("kill")["ok"]
    refused = dbg("replay", str(run))
    assert refused.code == 1 and "no recorded lines" in refused.err, refused
    assert "trace" in refused.err
    bad = dbg("replay", "twelve")
    assert bad.code == 2 and len(bad.err.strip().splitlines()) == 1, bad
    assert dbg("status").code != 0  # no session was left behind


def test_finish_out_of_a_recursion_returns_each_level_in_turn(dbg: Dbg, target: Any) -> None:
    require_backend("pdb")
    tracee = target("tracee.py")
    assert dbg.json("start", "--backend", "pdb", str(tracee.path), "3")["ok"]
    traced = dbg.json("trace", "tri", "--lines")
    assert traced["ok"], traced
    assert dbg.json("kill")["ok"]
    moved(dbg, "replay", "last")
    assert dbg.json("break", "tri")["ok"]
    for _ in range(3):
        innermost = moved(dbg, "continue")
    assert local(innermost, "n") == "1", innermost
    assert len(dbg.json("stack")["frames"]) == 5  # tri four times, then main
    # Each finish returns one level: tri(1), then tri(2), then tri(3).
    returns = [moved(dbg, "finish")["return_value"]["value"] for _ in range(2)]
    assert returns == ["1", "3"], returns
    # At tri(2)'s return the replay is in tri(3): back over the call to its line.
    call_site = moved(dbg, "next", "--back")
    assert local(call_site, "n") == "3", call_site
    assert moved(dbg, "finish")["return_value"]["value"] == "6"
