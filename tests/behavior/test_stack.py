"""Stacks an agent can read (docs/semantics.md, "Stacks"): every frame with
its arguments, the same on every backend."""

from __future__ import annotations

from twins import Program


def test_the_stack_shows_each_frames_arguments_and_its_caller(prog: Program) -> None:
    assert prog.start(breaks=(prog.at("fee"),), run=True)["ok"]
    data = prog.dbg.json("stack")
    assert data["ok"], data.get("error")
    top, caller = data["frames"][:2]
    assert (top["function"], top["line"]) == (prog.twin.fee, prog.line("fee")), top
    assert [(a["name"], a["value"]) for a in top["args"]] == [("amount", "1000")], top
    assert (caller["function"], caller["line"]) == (prog.twin.caller,
                                                    prog.line("call-fee")), caller
    assert caller.get("args") is not None, caller
    # The twin calls no library: nothing is hidden, and nothing is a library's.
    assert (data["hidden"], data["hidden_frames"]) == ([], 0), data
    assert not any(f["library"] for f in data["frames"]), data["frames"]

    lines = prog.dbg("stack").out.splitlines()
    assert lines[1].startswith(f"> #0  {prog.twin.fee}(amount=1000) at "), lines
    assert lines[2].startswith(f"  #1  {prog.twin.caller}("), lines
    assert lines[2].endswith(f":{prog.line('call-fee')}"), lines

    up = prog.dbg.json("up")["frame"]
    assert (up["index"], up["function"]) == (1, prog.twin.caller), up
    assert up["args"] == caller["args"], up
    frame = prog.dbg("frame", "0").out.splitlines()
    assert frame[1].startswith(f"frame #0: {prog.twin.fee}(amount=1000) at "), frame
