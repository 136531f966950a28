"""Breakpoints that cannot hit say so, and ids last as long as the session
(docs/semantics.md, "Breakpoints")."""

from __future__ import annotations

from twins import Program, caps_of


def test_a_condition_stops_only_where_it_holds(prog: Program) -> None:
    started = prog.start()
    assert started["ok"], started
    result = prog.dbg("--json", "break", prog.at("loop"), "--if", prog.twin.condition)
    if caps_of(prog.twin.backend).get("break-if") == "none":
        # jdb has no conditional breakpoints: said so, nothing set.
        assert (result.code, result.json["error"]["kind"]) == (3, "unsupported"), result
        assert prog.dbg.json("breaks")["breakpoints"] == []
        return
    assert result.code == 0, result
    stop = prog.dbg.json("continue")
    prog.stopped_at(stop, "loop")
    assert prog.dbg.json("print", "i")["value"] == "3"
    after = prog.dbg.json("continue")
    assert after["state"] != "stopped" or after["location"]["line"] != prog.line("loop"), after


def test_a_condition_that_does_not_compile_is_refused_and_nothing_is_set(
        prog: Program) -> None:
    assert prog.start()["ok"]
    result = prog.dbg("--json", "break", prog.at("loop"), "--if", prog.twin.bad_condition)
    kind = result.json["error"]["kind"] if not result.json["ok"] else None
    if caps_of(prog.twin.backend).get("break-if") == "none":
        assert (result.code, kind) == (3, "unsupported"), result
    else:
        assert (result.code, kind) == (1, "failed"), result
        assert "condition" in result.json["error"]["message"].lower(), result
    assert prog.dbg.json("breaks")["breakpoints"] == []
    # The session is still usable.
    prog.stopped_at(prog.dbg.json("until", prog.at("loop")), "loop")


def test_ids_are_stable_across_restart(prog: Program) -> None:
    first = prog.start(breaks=(prog.at("loop"), prog.at("call-fee"), prog.at("fee")))
    assert first["ok"], first
    assert [b["id"] for b in first["breakpoints"]] == [1, 2, 3], first
    assert prog.dbg.json("unbreak", "1")["ok"]
    again = prog.dbg.json("restart")
    assert again["ok"], again.get("error")
    assert [b["id"] for b in again["breakpoints"]] == [2, 3], again
    listed = prog.dbg.json("breaks")["breakpoints"]
    assert [(b["id"], b["line"]) for b in listed] == [
        (2, prog.line("call-fee")), (3, prog.line("fee"))], listed
    stop = prog.dbg.json("continue")
    prog.stopped_at(stop, "call-fee")
    assert stop["hit_breakpoints"] == [2], stop
    removed = prog.dbg.json("unbreak", "3")
    assert [b["id"] for b in removed["removed"]] == [3], removed
    made = prog.dbg.json("break", prog.at("after-fee"))
    assert made["breakpoint"]["id"] == 4, made


def test_watchpoints_are_set_again_by_restart(prog: Program) -> None:
    """Where the backend can watch the local `total` in main (from its first
    line; in Python, where it is bound: an unbound name is refused)."""
    if caps_of(prog.twin.backend).get("watch") == "none" or prog.twin.language == "java":
        return  # nothing to watch a local with (jdb watches fields only)
    where = "loop" if prog.twin.language == "py" else "main-first"
    assert prog.start(breaks=(prog.at(where),), run=True)["ok"]
    watch = prog.dbg.json("watch", "total")
    assert watch["ok"], watch
    again = prog.dbg.json("restart")
    assert again["ok"], again
    if again["state"] == "stopped" and again["location"]["line"] != prog.line("main-first"):
        assert prog.dbg.json("continue")["ok"]
    listed = {b["id"]: b for b in prog.dbg.json("breaks")["breakpoints"]}
    assert listed[watch["breakpoint"]["id"]]["kind"] == "watch", listed
