"""Text rendering of answers: stop snapshots, moved breakpoints, output pages;
and the CLI's text output is exactly the rendering of its JSON payload."""

from __future__ import annotations

from typing import Any

import pytest

from dbgcore.ops.table import render

ENVELOPE = ("ok", "op", "session", "via", "_exit")


def stop_payload(**extra: Any) -> dict[str, Any]:
    return {
        "state": "stopped",
        "reason": "breakpoint",
        "thread": 7,
        "location": {"file": "/src/cart.py", "line": 22, "function": "apply_discount"},
        "exit_code": None,
        "description": "",
        "hit_breakpoints": [1],
        "source": [
            {"line": 20, "text": "", "current": False},
            {"line": 21, "text": "def apply_discount(total, percent):", "current": False},
            {"line": 22, "text": "    discount = total * percent / 100", "current": True},
            {"line": 23, "text": "    return total - discount", "current": False},
        ],
        "locals": [
            {"name": "total", "value": "19.25", "type": "float"},
            {"name": "percent", "value": "10", "type": "int"},
        ],
        "locals_truncated": False,
        **extra,
    }


def test_stop_snapshot() -> None:
    text = render("continue", stop_payload())
    lines = text.splitlines()
    assert lines[0] == "stopped: breakpoint 1 at /src/cart.py:22 in apply_discount [thread 7]"
    assert lines[1:5] == [
        "  20 | ",
        "  21 | def apply_discount(total, percent):",
        "> 22 |     discount = total * percent / 100",
        "  23 |     return total - discount",
    ]
    assert lines[5:] == ["locals:", "  total = 19.25 (float)", "  percent = 10 (int)"]
    assert "cut short" not in text


def test_stop_snapshot_names_its_thread_where_the_backend_did() -> None:
    text = render("continue", stop_payload(thread=26450,
                                           thread_name="Thread-1 (process_request_thread)"))
    assert text.splitlines()[0] == ("stopped: breakpoint 1 at /src/cart.py:22 in apply_discount "
                                    "[thread 26450 'Thread-1 (process_request_thread)']")


def test_exception_being_handled_says_so() -> None:
    text = render("exception", {"exception": "ValueError", "description": "bad", "stack": "",
                                "handled": True})
    assert text.splitlines() == [
        "ValueError: bad", "(being handled: the stop is inside its except block, or below it)"]
    assert "handled" not in render("exception", {"exception": "ValueError",
                                                 "description": "bad", "stack": ""})


def test_stop_snapshot_with_capped_locals_says_so() -> None:
    text = render("step", stop_payload(locals_truncated=True, locals_more=7))
    assert text.splitlines()[-1] == "  +7 more locals (`dbg locals` shows them all)"


def test_source_numbers_line_up_across_widths() -> None:
    source = [{"line": n, "text": f"line {n}", "current": n == 100} for n in (98, 99, 100, 101)]
    lines = render("next", stop_payload(source=source, locals=[])).splitlines()[1:]
    assert lines == ["   98 | line 98", "   99 | line 99", "> 100 | line 100", "  101 | line 101"]


def test_exited_and_running_snapshots() -> None:
    assert render("continue", {"state": "exited", "exit_code": 3}) == "exited with code 3"
    running = render("continue", {"state": "running"})
    assert running.startswith("running:")
    assert "dbg pause" in running


def test_snapshot_without_location() -> None:
    text = render("pause", {"state": "stopped", "reason": "pause", "location": None})
    assert text == "stopped: pause at an unknown location"


def test_breakpoint_moved_by_the_debugger() -> None:
    bp = {"id": 2, "file": "/src/cart.py", "line": 14, "requested_line": 13, "verified": True,
          "requested": "/src/cart.py:13"}
    assert render("break", {"breakpoint": bp}) == (
        "breakpoint 2 at /src/cart.py:14 (requested line 13, bound at line 14)")


def test_breakpoint_bound_where_asked_says_nothing_more() -> None:
    bp = {"id": 1, "file": "/src/cart.py", "line": 14, "requested_line": 14, "verified": True}
    assert render("break", {"breakpoint": bp}) == "breakpoint 1 at /src/cart.py:14"


def test_breakpoint_details() -> None:
    bp = {"id": 3, "function": "Cart.total", "verified": False, "condition": "n > 2",
          "hit_count": 4, "temporary": True, "hits": 1}
    assert render("break", {"breakpoint": bp}) == (
        "temporary breakpoint 3 at Cart.total [pending: not bound yet] "
        "(if n > 2, stops on hit 4, hit 1 time)")
    assert render("breaks", {"breakpoints": []}) == "no breakpoints"


def test_output_page() -> None:
    page = {"chunks": [
        {"seq": 1, "category": "stdout", "text": "sub"},
        {"seq": 2, "category": "stdout", "text": "total\n"},
        {"seq": 3, "category": "stderr", "text": "warn 1\nwarn 2\n"},
    ], "cursor": 3, "more": True, "dropped": True}
    assert render("output", page).splitlines() == [
        "(older output was dropped to bound memory)",
        "subtotal",
        "[stderr] warn 1",
        "[stderr] warn 2",
        "-- cursor 3 (more: repeat with this --since)",
    ]


def test_locals_listing_notes_cut_values() -> None:
    text = render("locals", {"variables": [{"name": "s", "value": "'abc…'", "type": "str"}],
                             "truncated": True})
    assert text.splitlines() == ["s = 'abc…' (str)",
                                 "(long values cut short; `dbg print NAME` shows one in full)"]
    assert render("locals", {"variables": []}) == "no locals"


# -- the CLI prints the rendering of its JSON payload ----------------------------

def payload(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in ENVELOPE}


@pytest.mark.backend("pdb")
def test_cli_text_is_the_rendered_json_payload(dbg: Any, target: Any,
                                                pdb_ready: None) -> None:
    cart = target("cart.py")
    started = dbg.json("start", "--backend", "pdb", "--run", "--break", cart.loc("discount"), str(cart.path))
    assert started["ok"] is True, started
    via = started["via"]
    assert via["tool"] == "pdb"
    head = f"[via {via['tool']} {via['version']}]"

    snapshot = render("start", payload(started))
    assert snapshot.splitlines()[0].startswith(
        f"stopped: breakpoint 1 at {cart.path}:{cart.lines['discount']} in apply_discount")
    assert f"> {cart.lines['discount']} | " in snapshot
    assert "  percent = 10 (int)" in snapshot.splitlines()

    for op in (["stack"], ["locals"], ["print", "total * 2"], ["breaks"]):
        text = dbg(*op)
        assert text.code == 0, text
        assert text.out == f"{head}\n{render(op[0], payload(dbg.json(*op)))}\n", op

    # pdb moves a breakpoint on a `def` line to the function's first line.
    moved = dbg("break", cart.loc("total-def"))
    assert moved.out.splitlines() == [head, (
        f"breakpoint 2 at {cart.path}:{cart.lines['total-first']} "
        f"(requested line {cart.lines['total-def']}, bound at line {cart.lines['total-first']}) "
        "`total = 0  # @total-first`")]

    # A refusal from pdb is one clean line: no terminal "\r" left in the message.
    refused = dbg("break", "no_such_function")
    assert refused.code == 1
    assert refused.out == ""
    assert refused.err.startswith("error: ") and refused.err.count("\n") == 1, refused
    assert "\r" not in refused.err
    error = dbg.json("break", "no_such_function")["error"]
    assert error["kind"] == "failed"
    assert error["message"] == error["message"].strip()
