"""Going back on gdb: `dbg record` starts gdb's process record at a stop, and
`step/next/finish/continue --back` run backwards through it, each stop
showing the program as it was then (tests/targets/native/rewind.c)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import builds
import pytest

if TYPE_CHECKING:
    from conftest import Dbg

pytestmark = pytest.mark.backend("gdb")


@pytest.fixture(scope="module")
def rewind(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    target = builds.copy_target("native/rewind.c", tmp_path_factory.mktemp("rewind"))
    return target, builds.build_c(target.path)


@pytest.fixture
def gdb(backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")


def local(dbg: Dbg, name: str) -> str:
    return str(dbg.json("print", name)["value"])


def test_a_step_back_returns_to_the_line_before_with_its_old_values(
        dbg: Dbg, rewind: tuple[Any, Path], gdb: None) -> None:
    target, binary = rewind
    start = dbg.json("start", "--backend", "gdb", str(binary))
    assert start["location"]["line"] == target.lines["first"], start
    said = dbg.json("record")
    assert said["recording"] is True and "recording from" in said["said"], said
    dbg.json("next")
    assert dbg.json("next")["location"]["line"] == target.lines["double"]
    assert local(dbg, "count") == "11"
    # Back over `count = count + 10`: the line before, and count before it.
    back = dbg.json("next", "--back")
    assert back["state"] == "stopped" and back["location"]["line"] == target.lines["add"], back
    assert local(dbg, "count") == "1"
    shown = {v["name"]: v["value"] for v in back["locals"]}
    assert shown["count"] == "1", back
    # Forwards again replays the record: the same line, the same value.
    again = dbg.json("step")
    assert again["location"]["line"] == target.lines["double"], again
    # ...up to the record's end, where the program is live again, and said.
    assert "live again" in again["description"], again
    assert local(dbg, "count") == "11"
    # Back twice more: the record's start, said, and the program stays there.
    assert dbg.json("step", "--back")["location"]["line"] == target.lines["add"]
    assert dbg.json("step", "--back")["location"]["line"] == target.lines["first"]
    end = dbg.json("step", "--back")
    assert (end["reason"], end["location"]["line"]) == ("no-history", target.lines["first"]), end
    assert "the start of the record" in end["description"], end
    # Forwards to the end of the record: live again from there, and said.
    live = dbg.json("continue")
    assert live["reason"] == "record-end", live
    assert live["location"]["line"] == target.lines["double"], live
    assert "live again" in live["description"], live
    assert dbg.json("next")["location"]["line"] == target.lines["call"]
    assert local(dbg, "count") == "22"


def test_finish_back_returns_to_the_call_and_continue_back_to_a_breakpoint(
        dbg: Dbg, rewind: tuple[Any, Path], gdb: None) -> None:
    target, binary = rewind
    dbg.json("start", "--backend", "gdb", str(binary))
    assert dbg.json("record")["recording"] is True
    into = dbg.json("break", target.loc("scale"))["breakpoint"]
    stop = dbg.json("continue")
    assert stop["location"]["function"].startswith("scale"), stop
    assert dbg.json("next")["location"]["line"] == target.lines["scale-return"]
    # (A breakpoint stops a run backwards too: this one would, at the first line.)
    assert dbg.json("unbreak", str(into["id"]))["ok"]
    back = dbg.json("finish", "--back")
    assert back["location"]["function"] == "main", back
    assert back["location"]["line"] == target.lines["call"], back
    assert local(dbg, "count") == "22"
    # gdb's DAP side shows the new place too: its stack, read anew.
    frames = dbg.json("stack")["frames"]
    assert [(f["function"], f["line"]) for f in frames] == [("main", target.lines["call"])]

    loop = dbg.json("break", target.loc("loop"))["breakpoint"]
    # Forwards, the replay first runs to the end of the record (in scale).
    replayed = dbg.json("continue")
    assert replayed["reason"] == "record-end", replayed
    assert replayed["location"]["line"] == target.lines["scale-return"], replayed
    assert local_at(dbg.json("continue"), "i") == "0"
    assert local_at(dbg.json("continue"), "i") == "1"
    assert local_at(dbg.json("continue"), "i") == "2"
    earlier = dbg.json("continue", "--back")
    assert earlier["reason"] == "breakpoint" and earlier["hit_breakpoints"] == [loop["id"]]
    assert earlier["location"]["line"] == target.lines["loop"], earlier
    assert local(dbg, "i") == "1" and local(dbg, "count") == "22"
    # A stop running backwards is no hit: the count is of forward runs.
    listed = next(b for b in dbg.json("breaks")["breakpoints"] if b["id"] == loop["id"])
    assert listed["hits"] == 3, listed
    # The record ends at the program's exit, which it cannot record: said,
    # and the next continue lets the program end.
    assert dbg.json("unbreak", str(loop["id"]))["ok"]
    present = dbg.json("continue")
    assert (present["reason"], present["location"]["line"]) == ("record-end",
                                                                 target.lines["loop"]), present
    assert local(dbg, "i") == "2"
    at_exit = dbg.json("continue")
    assert at_exit["state"] == "stopped" and at_exit["reason"] == "record-exit", at_exit
    done = dbg.json("continue")
    assert (done["state"], done["exit_code"]) == ("exited", 0), done
    assert "the record ended" in done["description"], done
    assert dbg.output("stdout") == "count 22 big 66\n"
    # No stop to record from: refused in one line.
    late = dbg("record")
    assert late.code != 0 and len(late.err.strip().splitlines()) == 1, late


def local_at(stop: dict[str, Any], name: str) -> str:
    return str(next(v["value"] for v in stop["locals"] if v["name"] == name))


def test_back_without_a_record_is_one_line_and_the_session_goes_on(
        dbg: Dbg, rewind: tuple[Any, Path], gdb: None) -> None:
    target, binary = rewind
    dbg.json("start", "--backend", "gdb", str(binary))
    for motion in ("step", "next", "finish", "continue"):
        refused = dbg(motion, "--back")
        assert refused.code == 1, refused
        lines = refused.err.strip().splitlines()
        assert len(lines) == 1 and "dbg record" in lines[0], refused
        assert "Traceback" not in refused.err
    assert dbg.json("status")["location"]["line"] == target.lines["first"]
    # Nothing recorded yet: the record's start, and the program stays.
    assert dbg.json("record")["recording"] is True
    again = dbg.json("record")
    assert again["recording"] is True and "already recording" in again["said"], again
    first = dbg.json("step", "--back")
    assert (first["reason"], first["location"]["line"]) == ("no-history", target.lines["first"])
    assert dbg.json("next")["location"]["line"] == target.lines["add"]
    # A call from an expression is refused while recording (gdb 18.1 dies at
    # the next motion after one), and allowed again once the record ends.
    call = dbg("print", "scale(2, 3)")
    assert call.code == 1 and "may-call-functions" in call.err, call
    stopped = dbg.json("record", "--stop")
    assert stopped["recording"] is False and "record ended" in stopped["said"], stopped
    after = dbg("step", "--back")
    assert after.code == 1 and "dbg record" in after.err, after
    assert dbg("record", "--stop").code == 1
    assert dbg.json("print", "scale(2, 3)")["value"] == "6"
    assert dbg.json("next")["location"]["line"] == target.lines["double"]


def test_a_debugger_that_cannot_go_back_refuses_naming_one_that_can(
        dbg: Dbg, rewind: tuple[Any, Path], backend_ready: Callable[[str], None]) -> None:
    backend_ready("lldb")
    _, binary = rewind
    dbg.json("start", "--backend", "lldb", str(binary))
    for argv in (("record",), ("step", "--back"), ("continue", "--back")):
        refused = dbg(*argv)
        assert refused.code == 3, refused
        assert "dbg raw" in refused.err and "gdb" in refused.err, refused
    assert dbg.json("next")["state"] == "stopped"
