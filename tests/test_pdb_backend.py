"""The pdb backend end to end: the real `dbg` command driving real pdb.

Each test starts a session on a small program from tests/targets and checks
what `dbg --json ...` answers, and where it matters what the program itself
did (its output, its exit code).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import Dbg, Target

pytestmark = pytest.mark.usefixtures("pdb_ready")


def here(target: Target) -> str:
    return os.path.realpath(target.path)


def assert_stopped(snap: dict[str, Any], target: Target, mark: str,
                   function: str | None = None, reason: str | None = None) -> None:
    """``snap`` is a stop snapshot at ``mark`` of ``target``."""
    assert snap["_exit"] == 0 and snap["ok"] is True, snap
    assert snap["state"] == "stopped", snap
    loc = snap["location"]
    assert (loc["file"], loc["line"]) == (here(target), target.lines[mark]), snap
    if function is not None:
        assert loc["function"] == function, snap
    if reason is not None:
        assert snap["reason"] == reason, snap


def local(snap: dict[str, Any], name: str) -> str:
    """The value of local ``name`` in a stop snapshot or a `locals` answer."""
    variables = snap.get("locals") if "locals" in snap else snap["variables"]
    found = [v["value"] for v in variables if v["name"] == name]
    assert found, f"no local {name!r} in {variables}"
    return str(found[0])


def printed(dbg: Dbg, expression: str) -> str:
    answer = dbg.json("print", expression)
    assert answer["ok"], answer
    return str(answer["value"])


def program_output(dbg: Dbg, category: str = "stdout", since: int = 0) -> str:
    answer = dbg.json("output", "--since", str(since))
    assert answer["ok"], answer
    return "".join(c["text"] for c in answer["chunks"] if c["category"] == category)


def start(dbg: Dbg, target: Target, *options: str) -> dict[str, Any]:
    snap = dbg.json("start", "--backend", "pdb", *options, str(target.path))
    assert snap["ok"], snap
    return snap


# -- breakpoints ---------------------------------------------------------------


def test_break_at_file_line_stops_there_with_locals(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    snap = start(dbg, cart)
    assert snap["state"] == "stopped" and snap["reason"] == "entry"
    assert snap["location"]["file"] == here(cart) and snap["location"]["line"] == 1

    bp = dbg.json("break", cart.loc("loop"))["breakpoint"]
    assert (bp["file"], bp["line"], bp["verified"]) == (here(cart), cart.lines["loop"], True)

    snap = dbg.json("continue")
    assert_stopped(snap, cart, "loop", function="total", reason="breakpoint")
    assert snap["hit_breakpoints"] == [bp["id"]]
    assert local(snap, "total") == "0"
    assert "'apple'" in local(snap, "item")
    # The snapshot shows the current line with a little context around it.
    current = [s for s in snap["source"] if s["current"]]
    assert [s["line"] for s in current] == [cart.lines["loop"]]
    assert "@loop" in current[0]["text"]


def test_break_by_function_name(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart)
    bp = dbg.json("break", "apply_discount")
    assert bp["ok"] and bp["breakpoint"]["function"] == "apply_discount", bp
    # Shown where it stops: the body's first line, not the `def` line.
    assert bp["breakpoint"]["line"] == cart.lines["discount"], bp
    snap = dbg.json("continue")
    assert_stopped(snap, cart, "discount", function="apply_discount", reason="breakpoint")
    assert local(snap, "total") == "19.25" and local(snap, "percent") == "10"


def test_break_by_module_and_function(dbg: Dbg, target: Any) -> None:
    shop = target("shop.py")
    pricing = target("pricing.py")
    start(dbg, shop)
    tax = dbg.json("break", "pricing!with_tax")["breakpoint"]
    # Asked for the function, bound at its first statement (past the docstring).
    assert tax["file"] == here(pricing) and tax["line"] == pricing.lines["tax-first"], tax
    render = dbg.json("break", "pricing!Label.render")["breakpoint"]
    assert render["line"] == pricing.lines["render-first"], render

    snap = dbg.json("continue")
    assert_stopped(snap, pricing, "tax-first", function="with_tax", reason="breakpoint")
    assert local(snap, "amount") == "100"
    snap = dbg.json("continue")
    assert_stopped(snap, pricing, "render-first", function="render")

    missing = dbg.json("break", "pricing!no_such_function")
    assert missing["_exit"] == 1 and missing["error"]["kind"] == "failed", missing
    assert "no_such_function" in missing["error"]["message"]


def test_break_on_def_line_binds_to_first_body_line(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart)
    # The answer says both the requested and the bound line.
    text = dbg("break", cart.loc("total-def")).out
    assert (f"breakpoint 1 at {here(cart)}:{cart.lines['total-first']} "
            f"(requested line {cart.lines['total-def']}, "
            f"bound at line {cart.lines['total-first']})") in text, text
    bp = dbg.json("breaks")["breakpoints"][0]
    assert (bp["requested_line"], bp["line"]) == (cart.lines["total-def"],
                                                  cart.lines["total-first"])
    assert_stopped(dbg.json("continue"), cart, "total-first", function="total")


def test_break_on_decorated_function(dbg: Dbg, target: Any) -> None:
    deco = target("decorated.py")
    start(dbg, deco)
    # By name, before the function exists: pdb files it under the `def` line
    # but matches the code's first line, which is the decorator's.
    by_name = dbg.json("break", "scale")["breakpoint"]
    snap = dbg.json("continue")
    assert_stopped(snap, deco, "scale-first", function="scale", reason="breakpoint")
    assert snap["hit_breakpoints"] == [by_name["id"]]
    assert local(snap, "values") == "[1, 2, 3]"

    dbg.json("restart")
    assert dbg.json("unbreak", "scale")["removed"][0]["id"] == by_name["id"]
    for mark in ("decorator", "scale-def"):
        bp = dbg.json("break", deco.loc(mark))["breakpoint"]
        assert (bp["requested_line"], bp["line"]) == (deco.lines[mark],
                                                      deco.lines["scale-first"]), bp
    snap = dbg.json("continue")
    assert_stopped(snap, deco, "scale-first", function="scale", reason="breakpoint")


def test_conditional_breakpoint(dbg: Dbg, target: Any) -> None:
    counter = target("counter.py")
    start(dbg, counter)
    bp = dbg.json("break", counter.loc("accumulate"), "--if", "i == 3")["breakpoint"]
    assert bp["condition"] == "i == 3"
    snap = dbg.json("continue")
    assert_stopped(snap, counter, "accumulate", function="compute", reason="breakpoint")
    assert local(snap, "i") == "3" and local(snap, "total") == "3"
    assert "if i == 3" in dbg("breaks").out
    # It does not stop again: i is 3 only once.
    assert dbg.json("continue")["state"] == "exited"


def test_hit_count_breakpoint(dbg: Dbg, target: Any) -> None:
    counter = target("counter.py")
    start(dbg, counter)
    bp = dbg.json("break", counter.loc("accumulate"), "--hit", "3")["breakpoint"]
    assert bp["hit_count"] == 3
    snap = dbg.json("continue")
    assert_stopped(snap, counter, "accumulate", reason="breakpoint")
    assert local(snap, "i") == "2", snap  # the third time round
    listed = dbg.json("breaks")["breakpoints"]
    assert listed[0]["hits"] == 3


def test_temporary_breakpoint_goes_after_first_stop(dbg: Dbg, target: Any) -> None:
    counter = target("counter.py")
    start(dbg, counter)
    bp = dbg.json("break", counter.loc("accumulate"), "--temp")["breakpoint"]
    assert bp["temporary"] is True
    assert dbg("breaks").out.splitlines()[1].startswith("temporary breakpoint")
    snap = dbg.json("continue")
    assert_stopped(snap, counter, "accumulate", reason="breakpoint")
    assert local(snap, "i") == "0"
    assert dbg.json("breaks")["breakpoints"] == []
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 0), end


def test_unbreak_by_id_and_by_location(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart)
    loop = dbg.json("break", cart.loc("loop"))["breakpoint"]
    discount = dbg.json("break", cart.loc("discount"))["breakpoint"]
    first = dbg.json("break", cart.loc("total-def"))["breakpoint"]

    removed = dbg.json("unbreak", str(loop["id"]))
    assert [b["id"] for b in removed["removed"]] == [loop["id"]], removed
    # By location, as the user typed it: file:line, and the `def` line that
    # was moved to the body.
    assert dbg.json("unbreak", f"cart.py:{cart.lines['discount']}")["removed"][0]["id"] \
        == discount["id"]
    assert dbg.json("unbreak", cart.loc("total-def"))["removed"][0]["id"] == first["id"]
    assert dbg.json("breaks")["breakpoints"] == []

    nothing = dbg.json("unbreak", cart.loc("loop"))
    assert nothing["_exit"] == 1 and nothing["error"]["kind"] == "failed", nothing
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 0), end


def test_breaks_lists_every_field_and_hit_counts(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart)
    dbg.json("break", cart.loc("loop"))
    dbg.json("break", "apply_discount", "--if", "percent > 5")
    for _ in range(2):
        assert_stopped(dbg.json("continue"), cart, "loop")
    listed = dbg.json("breaks")["breakpoints"]
    assert [set(b) >= {"id", "file", "line", "function", "verified", "condition", "hits"}
            for b in listed] == [True, True]
    loop, discount = listed
    assert (loop["line"], loop["hits"], loop["condition"]) == (cart.lines["loop"], 2, None)
    assert (discount["function"], discount["condition"], discount["hits"]) == (
        "apply_discount", "percent > 5", 0)
    assert "hit 2 times" in dbg("breaks").out


# -- execution -------------------------------------------------------------------


def test_step_next_finish(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("call-total"), "--run")
    # Into the call: the function's first line, as on every backend (pdb's
    # own stop at the `def` line, its --Call--, is skipped).
    assert_stopped(dbg.json("step"), cart, "total-first", function="total", reason="step")
    snap = dbg.json("next")
    assert snap["location"]["line"] == cart.lines["total-first"] + 1, snap
    assert local(snap, "total") == "0"
    # finish stops in the caller, on the line of the call, and leads with
    # what the function returned.
    snap = dbg.json("finish")
    assert_stopped(snap, cart, "call-total", function="main", reason="step")
    assert snap["return_value"] == {"value": "19.25", "type": "float", "kind": "returned"}
    assert "(returned: 19.25" not in str(snap["locals"])
    snap = dbg.json("next")
    assert snap["location"]["function"] == "main", snap
    assert snap["location"]["line"] == cart.lines["call-total"] + 1, snap
    assert printed(dbg, "total") == "19.25"
    # The aliases c / s / n are the same ops.
    assert dbg.json("s")["location"]["line"] == cart.lines["call-discount"]
    assert dbg.json("n")["location"]["line"] == cart.lines["after-discount"]
    assert dbg.json("c")["state"] == "exited"


def test_until_location_and_until_line(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("call-total"), "--run")
    snap = dbg.json("until", cart.loc("after-discount"))
    assert_stopped(snap, cart, "after-discount", function="main", reason="until")
    assert snap["hit_breakpoints"] == []
    assert printed(dbg, "round(final, 3)") == "17.325"
    # until's own breakpoint is not the user's, and it is gone.
    assert [b["line"] for b in dbg.json("breaks")["breakpoints"]] == [cart.lines["call-total"]]

    counter = target("counter.py")
    dbg.json("kill")
    start(dbg, counter, "--break", counter.loc("accumulate"), "--run")
    dbg.json("unbreak", counter.loc("accumulate"))
    snap = dbg.json("until", str(counter.lines["return-total"]))
    assert_stopped(snap, counter, "return-total", function="compute")
    assert local(snap, "total") == "10"


def test_pause_a_running_target(dbg: Dbg, target: Any) -> None:
    spin = target("spin.py")
    start(dbg, spin)
    running = dbg.json("--timeout", "1", "continue")
    # Still running after --timeout is an answer, not an error.
    assert (running["_exit"], running["ok"], running["state"]) == (0, True, "running"), running
    assert dbg.json("status")["state"] == "running"
    snap = dbg.json("pause")
    assert snap["ok"] and snap["state"] == "stopped" and snap["reason"] == "pause", snap
    assert snap["location"]["file"] == here(spin)
    assert snap["location"]["function"] in ("main", "work"), snap
    count = int(printed(dbg, "count" if snap["location"]["function"] == "main" else "n"))
    assert count > 10
    assert "tick 10" in program_output(dbg)
    # A paused target can be inspected and run again, and paused again.
    assert dbg.json("stack")["frames"]
    assert dbg.json("--timeout", "0.5", "continue")["state"] == "running"
    again = dbg.json("pause")
    assert again["state"] == "stopped" and again["reason"] == "pause", again
    # Pausing a stopped target just says where it is.
    note = dbg.json("pause")
    assert note["state"] == "stopped" and "already stopped" in note["note"], note


def test_timeout_then_wait_for_the_stop(dbg: Dbg, target: Any) -> None:
    spin = target("spin.py")
    start(dbg, spin)
    dbg.json("break", spin.loc("work"), "--if", "n == 150")
    running = dbg.json("--timeout", "0.3", "continue")
    assert (running["_exit"], running["state"]) == (0, "running"), running
    text = dbg("--timeout", "0.2", "wait")
    assert text.code == 0 and "running" in text.out, text
    snap = dbg.json("wait")
    assert_stopped(snap, spin, "work", function="work", reason="breakpoint")
    assert local(snap, "n") == "150"


def test_program_that_raises_stops_post_mortem(dbg: Dbg, target: Any) -> None:
    crash = target("crash.py")
    start(dbg, crash)
    snap = dbg.json("continue")
    assert_stopped(snap, crash, "raise", function="parse", reason="exception")
    assert "ValueError" in snap["description"] and "three" in snap["description"]
    assert local(snap, "text") == "'three'"
    frames = dbg.json("stack")["frames"]
    assert [f["function"] for f in frames] == ["parse", "main", "<module>"]
    assert frames[1]["line"] == crash.lines["call-parse"]
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 1), end
    stderr = program_output(dbg, "stderr")
    assert "ValueError: invalid literal" in stderr
    # The traceback is the program's own, as `python crash.py` prints it.
    assert "launcher.py" not in stderr and "bdb.py" not in stderr, stderr
    assert stderr.startswith("Traceback (most recent call last):"), stderr


def test_sys_exit_code(dbg: Dbg, target: Any) -> None:
    ex = target("exit3.py")
    snap = dbg.json("start", "--backend", "pdb", "--run", str(ex.path))
    assert (snap["_exit"], snap["state"], snap["exit_code"]) == (0, "exited", 3), snap
    assert dbg.json("status")["exit_code"] == 3
    assert "exited with code 3" in dbg("status").out
    assert program_output(dbg) == "about to exit\n"
    assert program_output(dbg, "stderr") == "exiting with 3\n"
    gone = dbg.json("locals")
    assert (gone["_exit"], gone["error"]["kind"]) == (1, "target_exited"), gone
    assert "restart" in gone["error"]["hint"]


# -- inspection ------------------------------------------------------------------


def test_stack_frame_up_down(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("loop"), "--run")
    frames = dbg.json("stack")["frames"]
    assert [(f["index"], f["function"]) for f in frames] == [
        (0, "total"), (1, "main"), (2, "<module>")]
    assert [f["current"] for f in frames] == [True, False, False]
    assert frames[1]["line"] == cart.lines["call-total"]
    assert all(f["file"] == here(cart) for f in frames)
    assert len(dbg.json("stack", "--levels", "2")["frames"]) == 2

    up = dbg.json("up")
    assert (up["frame"]["index"], up["frame"]["function"]) == (1, "main"), up
    assert printed(dbg, "len(cart.items)") == "3"
    assert "cart" in {v["name"] for v in dbg.json("locals")["variables"]}
    assert [f["current"] for f in dbg.json("stack")["frames"]] == [False, True, False]
    assert dbg.json("frame", "2")["frame"]["function"] == "<module>"
    top = dbg.json("up")
    assert top["_exit"] == 1 and "outermost" in top["error"]["message"], top
    assert dbg.json("down", "2")["frame"]["function"] == "total"
    bottom = dbg.json("down")
    assert bottom["_exit"] == 1 and "innermost" in bottom["error"]["message"], bottom
    assert dbg.json("frame", "9")["_exit"] == 1
    assert printed(dbg, "item['name']") == "'apple'"


def test_locals_have_no_dunder_noise(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("after-discount"), "--run")
    names = [v["name"] for v in dbg.json("locals")["variables"]]
    assert names == ["cart", "total", "final"], names
    for v in dbg.json("locals")["variables"]:
        assert set(v) == {"name", "value", "type"}
    assert dbg.json("locals")["variables"][1] == {"name": "total", "value": "19.25",
                                                  "type": "float"}
    # At module level the locals are the globals: still none of __name__ & co.
    dbg.json("up")
    module_names = {v["name"] for v in dbg.json("locals")["variables"]}
    assert {"sys", "Cart", "main", "apply_discount"} <= module_names, module_names
    assert not [n for n in module_names if n.startswith("__")], module_names


def test_print_values_and_errors(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("discount"), "--run")
    answer = dbg.json("print", "total * 2")
    assert (answer["value"], answer["type"]) == ("38.5", "float")
    assert dbg.json("print", "{'k': [percent]}")["value"] == "{'k': [10]}"
    assert dbg("print", "percent", "+", "1").out.splitlines()[1] == "11 (int)"
    # The text form of a ;; is data, not pdb's command separator.
    assert dbg.json("print", "'a;;b'")["value"] == "'a;;b'"
    bad = dbg.json("print", "no_such_name")
    assert (bad["_exit"], bad["error"]["kind"]) == (1, "failed"), bad
    assert bad["error"]["message"] == "NameError: name 'no_such_name' is not defined"
    syntax = dbg("print", "import os")
    assert syntax.code == 1 and syntax.err.count("\n") == 1, syntax
    assert "SyntaxError" in syntax.err


def test_answers_stay_in_step_after_a_timed_out_command(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("loop"), "--run")
    slow = dbg.json("--timeout", "0.5", "print", "__import__('time').sleep(30) or 'late'")
    assert (slow["_exit"], slow["error"]["kind"]) == (1, "timeout"), slow
    assert "interrupted" in slow["error"]["message"], slow
    # The runaway was interrupted at the timeout: the next command answers
    # at once, with its own answer.
    assert printed(dbg, "1 + 1") == "2"
    assert printed(dbg, "2 + 2") == "4"
    assert printed(dbg, "item['name']") == "'apple'"
    assert_stopped(dbg.json("continue"), cart, "loop")


def test_set_a_variable_and_the_program_uses_it(dbg: Dbg, target: Any) -> None:
    counter = target("counter.py")
    start(dbg, counter, "--break", counter.loc("call-compute"), "--run")
    answer = dbg.json("set", "limit", "10")
    assert (answer["lhs"], answer["value"], answer["type"]) == ("limit", "10", "int"), answer
    assert printed(dbg, "limit") == "10"
    dbg.json("break", counter.loc("return-total"))
    snap = dbg.json("continue")
    assert_stopped(snap, counter, "return-total")
    assert local(snap, "total") == "45"  # sum(range(10)): the loop used the new limit
    assert dbg.json("set", "total", "total + 1000")["value"] == "1045"
    end = dbg.json("continue")
    assert end["state"] == "exited"
    assert program_output(dbg) == "result=1045\nlimit=10\n"

    bad = dbg.json("set", "1", "2")
    assert bad["_exit"] == 1


def test_set_an_attribute(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("total-first"), "--run")
    assert dbg.json("set", "self.items[0]['quantity']", "100")["value"] == "100"
    dbg.json("continue")
    # 0.5 * 100 + 2.25 + 7.0 * 2
    assert "subtotal: 66.25" in program_output(dbg)


def test_list_source(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("loop"), "--run")
    listing = dbg.json("list")
    assert listing["file"] == here(cart)
    lines = {item["line"]: item for item in listing["lines"]}
    assert lines[cart.lines["loop"]]["current"] is True
    assert min(lines) == cart.lines["loop"] - 5 and max(lines) == cart.lines["loop"] + 5
    other = dbg.json("list", cart.loc("discount"), "--context", "1")
    assert [i["line"] for i in other["lines"]] == [cart.lines["discount"] + d for d in (-1, 0, 1)]
    assert "@discount" in other["lines"][1]["text"]
    # Past the end: the last lines, and how long the file is.
    total = cart.path.read_text().count("\n")
    past = dbg.json("list", f"{cart.path}:999")
    assert past["_exit"] == 0 and past["lines"][-1]["line"] == total, past
    assert f"cart.py has {total} lines; line 999 is past its end" == past["note"], past
    beyond = dbg.json("list", f"{cart.path}:999-1000")
    assert beyond["_exit"] == 1 and beyond["error"]["kind"] == "failed", beyond
    assert f"it has {total} lines" in beyond["error"]["message"], beyond


def test_output_streams_apart_and_since_cursor(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("call-discount"), "--run")
    first = dbg.json("output")
    assert {c["category"] for c in first["chunks"]} == {"stdout"}, first
    assert "".join(c["text"] for c in first["chunks"]) == "subtotal: 19.25\n", first
    cursor = first["cursor"]
    assert cursor >= 1
    assert dbg.json("continue")["exit_code"] == 0
    later = dbg.json("output", "--since", str(cursor))
    by_stream: dict[str, str] = {}
    for chunk in later["chunks"]:
        assert chunk["seq"] > cursor
        by_stream[chunk["category"]] = by_stream.get(chunk["category"], "") + chunk["text"]
    assert by_stream == {"stdout": "total after discount: 17.32\n", "stderr": "done\n"}
    assert later["cursor"] > cursor
    assert dbg.json("output", "--since", str(later["cursor"]))["chunks"] == []
    only_err = dbg.json("output", "--stderr")["chunks"]
    assert {c["category"] for c in only_err} == {"stderr"}
    assert "".join(c["text"] for c in only_err) == "done\n"
    text = dbg("output").out
    assert "[stderr] done" in text and "\nsubtotal: 19.25" in text, text


def test_unicode_output_and_values(dbg: Dbg, target: Any) -> None:
    uni = target("unicode_out.py")
    start(dbg, uni, "--break", uni.loc("after-print"), "--run")
    assert printed(dbg, "greeting") == "'héllo wörld ✓ 日本語 🐍'"
    dbg.json("continue")
    assert program_output(dbg) == "héllo wörld ✓ 日本語 🐍\nnaïve\n"
    assert program_output(dbg, "stderr") == "ошибка: ünïcödé\n"
    assert "日本語" in dbg("output").out


def test_raw_commands(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("loop"), "--run")
    answer = dbg.json("raw", "p", "1+1")
    assert answer["ok"] and answer["output"].strip() == "2", answer
    where = dbg.json("raw", "where")["output"]
    assert f"{here(cart)}({cart.lines['loop']})total()" in where, where
    # pdb's prompt and dbg's framing never leak into the answer.
    assert "(Pdb" not in where and "\x1e" not in where and "\x1f" not in where
    text = dbg("raw", "p", "item['name']")
    assert text.out.splitlines()[0].startswith("[via pdb ")
    assert text.out.splitlines()[1].strip() == "'apple'"
    # A raw command that moves the target answers with a stop snapshot too.
    moved = dbg.json("raw", "next")
    assert moved["stop"]["location"]["line"] == cart.lines["loop"] + 1, moved
    assert dbg.json("status")["location"]["line"] == cart.lines["loop"] + 1
    interactive = dbg.json("raw", "interact")
    assert interactive["_exit"] == 2 and interactive["error"]["kind"] == "usage"
    assert printed(dbg, "cost") == "3.0"


# -- sessions ----------------------------------------------------------------------


def test_restart_reapplies_breakpoints(dbg: Dbg, target: Any) -> None:
    counter = target("counter.py")
    start(dbg, counter)
    dbg.json("break", counter.loc("accumulate"), "--if", "i == 3")
    dbg.json("break", counter.loc("return-total"), "--temp")
    assert_stopped(dbg.json("continue"), counter, "accumulate")
    restarted = dbg.json("restart")
    assert restarted["ok"] and restarted["reason"] == "entry", restarted
    assert restarted["failed_breakpoints"] == []
    again = dbg.json("breaks")["breakpoints"]
    assert [(b["line"], b["condition"], b["temporary"], b["hits"]) for b in again] == [
        (counter.lines["accumulate"], "i == 3", False, 0),
        (counter.lines["return-total"], None, True, 0)]
    snap = dbg.json("continue")
    assert_stopped(snap, counter, "accumulate")
    assert local(snap, "i") == "3"
    assert_stopped(dbg.json("continue"), counter, "return-total")
    assert dbg.json("continue")["exit_code"] == 0
    # After the program ended, restart runs it again, with the same output.
    assert dbg.json("restart")["state"] == "stopped"
    assert_stopped(dbg.json("continue"), counter, "accumulate")


def test_start_with_break_and_run(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    snap = dbg.json("start", "--backend", "pdb", "--break", cart.loc("discount"), "--break", "main",
                    "--run", str(cart.path))
    assert [b["requested"] for b in snap["breakpoints"]] == [cart.loc("discount"), "main"]
    assert_stopped(snap, cart, "main-first", function="main", reason="breakpoint")
    assert_stopped(dbg.json("continue"), cart, "discount")


def test_start_with_a_failing_break_leaves_no_session(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    result = dbg("start", "--backend", "pdb", "--break", cart.loc("loop"), "--break", f"{cart.path}:999",
                 "--run", str(cart.path))
    assert result.code == 1 and result.out == "", result
    assert result.err.startswith(f"error: --break {cart.path}:999: ") and \
        "past the end" in result.err, result.err
    assert len(result.err.strip().splitlines()) == 1
    assert dbg.json("sessions")["sessions"] == []
    assert dbg.json("status")["error"]["kind"] == "no_session"
    # The name is free again.
    assert start(dbg, cart)["reason"] == "entry"


def test_cwd_env_and_args_reach_the_program(dbg: Dbg, target: Any, tmp_path: Any) -> None:
    prog = target("envcwd.py")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    snap = dbg.json("start", "--backend", "pdb", "--cwd", str(elsewhere), "--env", "DBG_TEST_VAR=hello world",
                    "--run", "../work/envcwd.py", "one", "two words", "--flag")
    assert (snap["state"], snap["exit_code"]) == ("exited", 0), snap
    assert program_output(dbg).splitlines() == [
        f"cwd={os.path.realpath(elsewhere)}", "DBG_TEST_VAR=hello world",
        "args=one,two words,--flag"]
    assert os.path.realpath(dbg.json("status")["program"]) == here(prog)


def test_hits_after_the_session_ended(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    start(dbg, cart, "--break", cart.loc("loop"), "--break", "apply_discount")
    for _ in range(4):
        assert dbg.json("continue")["state"] == "stopped"
    dbg.json("kill")
    assert dbg.json("status")["error"]["kind"] == "no_session"

    loop = dbg.json("hits", cart.loc("loop"))
    assert loop["ok"] and loop["total"] == 3, loop
    assert [h["line"] for h in loop["hits"]] == [cart.lines["loop"]] * 3
    assert [local(h, "cost") for h in loop["hits"][1:]] == ["3.0", "2.25"]
    assert [f["function"] for f in loop["hits"][0]["stack"]] == ["total", "main", "<module>"]
    by_name = dbg.json("hits", "apply_discount")["hits"]
    assert [(h["function"], h["line"]) for h in by_name] == [
        ("apply_discount", cart.lines["discount"])]
    everything = dbg.json("hits")["hits"]
    assert [h["reason"] for h in everything] == ["entry", "breakpoint", "breakpoint",
                                                 "breakpoint", "breakpoint"]
    assert re.search(r"#\d+ breakpoint at .*cart\.py:\d+ in total", dbg("hits").out)


def test_output_is_bounded_and_paged_by_cursor(dbg: Dbg, target: Any) -> None:
    flood = target("flood.py")
    assert dbg.json("start", "--backend", "pdb", "--run", str(flood.path))["exit_code"] == 0
    pages, cursor = [], 0
    while True:
        page = dbg.json("output", "--since", str(cursor), "--stdout")
        assert page["ok"] and page["cursor"] >= cursor, page
        pages.append(page)
        cursor = page["cursor"]
        if not page["more"]:
            break
        assert len(pages) < 50, "the cursor does not move on"
    # The oldest output was dropped (and the first page says so), never the newest.
    assert pages[0]["dropped"] is True and not any(p["dropped"] for p in pages[1:])
    text = "".join(c["text"] for p in pages for c in p["chunks"])
    assert 500_000 < len(text.encode()) <= 1 << 20
    lines = text.splitlines()
    assert lines[-1] == "last on stdout"
    numbers = [int(line.split()[1]) for line in lines[1:-1]]
    assert numbers == list(range(numbers[0], 40000)), "lines lost or repeated across pages"
    only_err = dbg.json("output", "--stderr")["chunks"]
    assert "".join(c["text"] for c in only_err) == "last on stderr\n"
    assert dbg.json("output", "--since", str(cursor))["chunks"] == []
