"""`dbg watch EXPR` on pdb and debugpy: Python has no hardware watchpoints,
so a watch is checked at each line of the frame it was set in (dbg's helper
in the program, dbgcore/inprogram/pywatch.py). The stop is at the line after the
change, with the old and the new value, only in that frame."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg, Target

BACKENDS = ["pdb", "debugpy"]


def _start_at(dbg: Dbg, backend: str, prog: Target, mark: str, condition: str = "") -> None:
    """Stopped at ``mark`` (where ``condition`` holds), with no breakpoint left."""
    require_backend(backend)
    assert dbg.json("start", "--backend", backend, str(prog.path))["ok"]
    placed = dbg.json("break", prog.loc(mark), *(["--if", condition] if condition else []))
    stop = dbg.json("continue")
    assert (stop["reason"], stop["location"]["line"]) == ("breakpoint", prog.lines[mark]), stop
    assert dbg.json("unbreak", str(placed["breakpoint"]["id"]))["ok"]


def _watch_stop(dbg: Dbg, prog: Target, mark: str, watch_id: int) -> list[dict[str, Any]]:
    """`continue` stops at the watch, at ``mark``: its changes."""
    stop = dbg.json("continue")
    assert stop["reason"] == "watchpoint", stop
    assert stop["location"]["line"] == prog.lines[mark], stop
    assert stop["hit_breakpoints"] == [watch_id], stop
    changes: list[dict[str, Any]] = stop["watch"]
    return changes


def _runs_to_the_end(dbg: Dbg) -> None:
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 0), end


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_loop_local_stops_at_each_change_with_old_and_new(
        dbg: Dbg, target: Any, backend: str) -> None:
    prog = target("watched.py")
    _start_at(dbg, backend, prog, "tally-items")
    watched = dbg.json("watch", "total")["breakpoint"]
    assert (watched["kind"], watched["requested"]) == ("watch", "total")
    assert "tally" in watched["message"]
    # total = 0, 1, 3, 6, 10 as i goes 0..4; i == 0 changes nothing. The
    # statement that changed it has run: the stop is at the line after.
    for old, new in (("0", "1"), ("1", "3"), ("3", "6")):
        changes = _watch_stop(dbg, prog, "after-add", watched["id"])
        assert changes == [{"id": watched["id"], "expression": "total", "old": old, "new": new}]
    assert dbg.json("print", "i")["value"] == "3"
    # One entry in `dbg breaks`, whatever it takes underneath.
    listed = [b for b in dbg.json("breaks")["breakpoints"]]
    assert [(b["id"], b["kind"], b["requested"]) for b in listed] == [
        (watched["id"], "watch", "total")], listed
    assert listed[0]["hits"] == 3
    assert "watchpoint" in dbg("breaks").out and "total" in dbg("breaks").out
    # Removed, it stops no more: the program runs to its end.
    assert dbg.json("unbreak", str(watched["id"]))["ok"]
    assert dbg.json("breaks")["breakpoints"] == []
    _runs_to_the_end(dbg)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_breakpoint_on_a_watched_line_leaves_no_phantom_change(
        dbg: Dbg, target: Any, backend: str) -> None:
    prog = target("watched.py")
    _start_at(dbg, backend, prog, "tally-items")
    watched = dbg.json("watch", "total")["breakpoint"]
    # debugpy keeps one breakpoint a line: on this one, the user's, and the
    # watch is not checked there; pdb checks the watch first and names both.
    placed = dbg.json("break", prog.loc("after-add"))["breakpoint"]
    for _ in range(2):
        stop = dbg.json("continue")
        assert stop["location"]["line"] == prog.lines["after-add"], stop
        assert placed["id"] in stop["hit_breakpoints"], stop
    assert dbg.json("print", "total")["value"] == "1"
    assert dbg.json("unbreak", str(placed["id"]))["ok"]
    # The change to 1 was seen at that stop: the next one is 1 -> 3, where it
    # happened, not a stop without a change at the next line checked.
    changes = _watch_stop(dbg, prog, "after-add", watched["id"])
    assert [(c["old"], c["new"]) for c in changes] == [("1", "3")], changes


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_a_callee_changes_is_seen_back_in_the_frame(
        dbg: Dbg, target: Any, backend: str) -> None:
    prog = target("watched.py")
    _start_at(dbg, backend, prog, "tally-items")
    assert dbg.json("next")["location"]["line"] == prog.lines["tally-items"] + 1
    watched = dbg.json("watch", "items")["breakpoint"]
    # grow() appends in its own frame; the watch sees it when control is
    # back in tally's, at the line after the call.
    for old, new in (("[]", "[1]"), ("[1]", "[1, 3]")):
        changes = _watch_stop(dbg, prog, "after-grow", watched["id"])
        assert [(c["old"], c["new"]) for c in changes] == [(old, new)], changes
        assert dbg.json("stack")["frames"][0]["function"] == "tally"
    _runs_to_the_end(dbg)


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_watches_in_one_frame_each_stop_names_the_one_that_changed(
        dbg: Dbg, target: Any, backend: str) -> None:
    prog = target("watched.py")
    _start_at(dbg, backend, prog, "tally-items")
    assert dbg.json("next")["location"]["line"] == prog.lines["tally-items"] + 1
    total = dbg.json("watch", "total")["breakpoint"]["id"]
    items = dbg.json("watch", "items")["breakpoint"]["id"]
    for mark, watch_id, old, new in (("after-add", total, "0", "1"),
                                     ("after-grow", items, "[]", "[1]"),
                                     ("after-add", total, "1", "3")):
        changes = _watch_stop(dbg, prog, mark, watch_id)
        assert [(c["id"], c["old"], c["new"]) for c in changes] == [(watch_id, old, new)]
    hits = {b["id"]: b["hits"] for b in dbg.json("breaks")["breakpoints"]}
    assert hits == {total: 2, items: 1}, hits


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_recursive_functions_watch_stops_only_in_its_own_frame(
        dbg: Dbg, target: Any, backend: str) -> None:
    prog = target("watched.py")
    # Stopped in depth(1), called by depth(2), called by depth(3): the watch
    # is set in depth(2)'s frame (selected with `up`); depth(1) and depth(0)
    # change their own `count` first, and must not stop.
    _start_at(dbg, backend, prog, "depth-call", "n == 1")
    assert dbg.json("up")["frame"]["function"] == "depth"
    assert dbg.json("print", "n")["value"] == "2"
    watched = dbg.json("watch", "count")["breakpoint"]
    changes = _watch_stop(dbg, prog, "depth-return", watched["id"])
    assert [(c["old"], c["new"]) for c in changes] == [("20", "21")], changes
    assert dbg.json("print", "n")["value"] == "2"
    # Its frame returns: the watch can change no more, and `dbg breaks` says so.
    done = dbg.json("break", prog.loc("done"))["breakpoint"]
    stop = dbg.json("continue")
    assert stop["reason"] == "breakpoint" and stop["hit_breakpoints"] == [done["id"]], stop
    listed = {b["id"]: b for b in dbg.json("breaks")["breakpoints"]}
    assert "not running any more" in listed[watched["id"]]["message"], listed
    _runs_to_the_end(dbg)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_expression_that_fails_to_evaluate_never_stops(
        dbg: Dbg, target: Any, backend: str) -> None:
    prog = target("watched.py")
    _start_at(dbg, backend, prog, "spread-set")
    # last goes 5, 0, 0, 5, 4: `100 // last` is 20, fails twice, is 20
    # again (no change from the last value it had), then 25.
    watched = dbg.json("watch", "100 // last")["breakpoint"]
    changes = _watch_stop(dbg, prog, "spread-loop", watched["id"])
    assert [(c["old"], c["new"]) for c in changes] == [("20", "25")], changes
    assert dbg.json("print", "last")["value"] == "4"
    _runs_to_the_end(dbg)


@pytest.mark.parametrize("backend", BACKENDS)
def test_what_cannot_be_watched_is_refused_and_restart_says_why(
        dbg: Dbg, target: Any, backend: str) -> None:
    prog = target("watched.py")
    _start_at(dbg, backend, prog, "tally-items")
    for expression, why in (("nosuch", "NameError"), ("1 +", "SyntaxError")):
        refused = dbg("--json", "watch", expression)
        assert refused.code == 1, refused
        assert why in refused.json["error"]["message"], refused.json
    watched = dbg.json("watch", "total")["breakpoint"]
    # The watch belonged to a frame of the run that ended: the new run's
    # first frame (the module's) has no `total`; it is listed, not set.
    restarted = dbg.json("restart")
    assert restarted["ok"], restarted
    listed = {b["id"]: b for b in dbg.json("breaks")["breakpoints"]}
    assert listed[watched["id"]]["verified"] is False
    assert "<module>" in listed[watched["id"]]["message"], listed
    _runs_to_the_end(dbg)
