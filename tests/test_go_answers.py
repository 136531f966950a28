"""Go's answers through delve where they were wrong or missing (issue 41's
Go bullet): a deadlock's stop in the program's own frame, goroutines with
their places and waits, `trace` over goroutines, and a failing test's whole
message."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from builds import build_go, copy_tree

from dbgcore.testing import marked_lines, require_backend

if TYPE_CHECKING:
    from pathlib import Path

    from conftest import Dbg


def test_a_deadlock_stops_in_the_program_frame_that_waits(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("dlv")
    package = copy_tree("golock", tmp_path)
    program = build_go(package)
    lines = marked_lines(package / "main.go")
    stop = dbg.json("start", "--backend", "dlv", "--run", str(program))
    assert stop["ok"] and stop["state"] == "stopped", stop
    # The runtime's words, and main's wg.Wait(), not sync.runtime_Semacquire.
    assert stop["description"] == "fatal error: all goroutines are asleep - deadlock!", stop
    assert stop["location"]["function"] == "main.main", stop
    assert os.path.realpath(stop["location"]["file"]) == os.path.realpath(package / "main.go")
    assert stop["location"]["line"] == lines["main-waits"], stop
    frames = dbg.json("stack")["frames"]
    assert next(f for f in frames if f.get("current"))["function"] == "main.main", frames
    assert any(v["name"] == "results" for v in dbg.json("locals")["variables"])


def test_threads_show_each_goroutine_at_its_line_with_its_wait(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("dlv")
    package = copy_tree("golock", tmp_path)
    program = build_go(package)
    lines = marked_lines(package / "main.go")
    assert dbg.json("start", "--backend", "dlv", "--run", str(program))["state"] == "stopped"
    threads = dbg.json("threads")["threads"]

    def of(function: str) -> dict[str, object]:
        return next(t for t in threads if t.get("function") == function)

    main, tally = of("main.main"), of("main.tally")
    # Where the program's own code waits, below sync's and the runtime's frames.
    assert (main["line"], tally["line"]) == (lines["main-waits"], lines["tally-sends"]), threads
    assert os.path.realpath(str(tally["file"])) == os.path.realpath(package / "main.go")
    # A WaitGroup's wait is a semaphore's, which dbg counts with the locks.
    assert (main["state"], main["waits"]) == ("blocked", "semacquire"), main
    assert (tally["state"], tally["waits"]) == ("waiting", "chan send"), tally
    assert main["current"] and not tally["current"], threads
    text = dbg("threads").out
    assert f"main.go:{lines['tally-sends']} in main.tally" in text, text
    assert "chan send" in text, text
    # Selecting a goroutine still works, and its stack is its own.
    assert dbg.json("thread", str(tally["id"]))["ok"]
    assert "main.tally" in [f["function"] for f in dbg.json("stack")["frames"]]


def test_a_failing_tests_long_message_is_whole_or_cut_with_a_marker(dbg: Dbg,
                                                                    tmp_path: Path) -> None:
    require_backend("dlv")
    package = copy_tree("gotally", tmp_path)
    lines = marked_lines(package / "tally_test.go")
    words = " ".join(f"{{word{i:02d} 1}}" for i in range(60))
    stop = dbg.json("test", str(package), "-run", "TestCount")
    assert stop["location"]["line"] == lines["wants-fails"], stop
    # 640 characters: all of them, not the first 64 delve loads of a []byte.
    assert stop["description"] == \
        f"TestCountWants failed: got 61 entries, want 2: [{words} {{hello 2}}]", stop
    flood = dbg.json("continue")
    assert flood["location"]["line"] == lines["floods-fails"], flood
    message = "got 2 entries, want 1: [{spam 3} {" + "x" * 5000 + " 1}]"
    head, _, rest = flood["description"].partition(" ... (")
    assert head.startswith(f"TestCountFloods failed: {message[:1900]}"), flood
    assert message.startswith(head.removeprefix("TestCountFloods failed: ")), flood
    shown = len(head) - len("TestCountFloods failed: ")
    assert rest == f"{len(message) - shown} more characters)", flood


def test_trace_over_goroutines_records_each_call_once_with_its_value(dbg: Dbg,
                                                                     tmp_path: Path) -> None:
    require_backend("dlv")
    package = copy_tree("gofanout", tmp_path)
    program = build_go(package)
    assert dbg.json("start", "--backend", "dlv", str(program))["state"] == "stopped"
    traced = dbg.json("trace", "weigh")
    assert traced["ok"], traced
    assert traced["trace"]["means"] == "dbg's breakpoints on calls and returns", traced
    calls = dbg.json("calls", "weigh")["calls"]
    # delve refuses a step while another goroutine's breakpoint interrupted
    # one: no call "raises" that refusal, none is counted twice, and each
    # value is its own call's (item * 10 + 1), not another goroutine's.
    # (delve 1.20 does not report every hit of goroutines that reach a
    # breakpoint at once: some calls go unseen, or their return does.)
    items = [int(c["args"][0]["value"]) for c in calls]
    assert calls and len(items) == len(set(items)), calls
    for call in calls:
        assert call["outcome"] in ("returned", "unfinished"), call
        if call["outcome"] == "returned":
            assert call["value"] == str(int(call["args"][0]["value"]) * 10 + 1), call
    assert sum(c["outcome"] == "returned" for c in calls) >= len(calls) // 2, calls
    assert len({c["thread"] for c in calls}) > 1, calls
    # No step of the trace's is left pending to stop a later continue.
    end = traced if traced.get("state") == "exited" else dbg.json("continue")
    assert end["state"] == "exited" and end.get("exit_code") == 0, end


def test_finish_in_one_goroutine_returns_its_own_value(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("dlv")
    package = copy_tree("gofanout", tmp_path)
    program = build_go(package)
    lines = marked_lines(package / "main.go")
    for attempt in range(3):  # each from a fresh stop, in whichever goroutine it is
        stop = dbg.json("-s", f"fin{attempt}", "start", "--backend", "dlv", "--break",
                        f"main.go:{lines['weigh-body']}", "--run", str(program))
        assert stop["location"]["line"] == lines["weigh-body"], stop
        item = int(dbg.json("-s", f"fin{attempt}", "print", "item")["value"])
        assert dbg.json("-s", f"fin{attempt}", "unbreak", f"main.go:{lines['weigh-body']}")["ok"]
        # Seven other goroutines run weigh meanwhile, and stop at its RETs too.
        done = dbg.json("-s", f"fin{attempt}", "finish")
        assert done["state"] == "stopped" and done["location"]["function"] != "main.weigh", done
        assert done["return_value"]["value"] == str(item * 10 + 1), (item, done)
        assert dbg.json("-s", f"fin{attempt}", "kill")["ok"]
