"""The ocamldebug backend on real OCaml programs: built by `dbg start` with
ocamlc -g, run under a real ocamldebug, forwards and backwards."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dbgcore.testing import BackendSuite

pytestmark = pytest.mark.backend("ocamldebug")


@pytest.fixture(autouse=True)
def ocaml_ready(backend_ready: Callable[[str], None]) -> None:
    backend_ready("ocamldebug")


def test_start_builds_the_source_stops_in_main_and_ends_with_its_output(
        dbg: Any, target: Any) -> None:
    cart = target("ocaml/cart.ml")
    started = dbg("start", str(cart.path))
    assert started.code == 0, started
    assert "built: " in started.out and "ocamlc -g -o " in started.out, started.out
    # The compiler's files are the session's, not the user's folder's.
    assert sorted(p.name for p in cart.path.parent.iterdir()) == ["cart.ml"]
    snap = dbg.json("status")
    assert snap["location"]["line"] == cart.lines["main-first"], snap
    assert snap["location"]["function"] == "Cart.main"
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 0), end
    assert dbg.output("stdout") == "subtotal: 19.25\ntotal after discount: 17.32\n"
    assert dbg.output("stderr") == "done\n"


def test_reverse_steps_return_to_the_earlier_line_with_the_earlier_values(
        dbg: Any, target: Any) -> None:
    cart = target("ocaml/cart.ml")
    assert dbg.json("start", "--break", cart.loc("discount"), "--run", str(cart.path))["ok"]
    ahead = dbg.json("next")
    assert ahead["location"]["line"] == cart.lines["discount-return"], ahead
    assert dbg.json("print", "discount")["value"] == "1.925"
    # ocamldebug records every run: `dbg record` says so, and nothing changes.
    said = dbg.json("record")
    assert said["recording"] is True and "needs no `dbg record`" in said["said"], said
    assert dbg("record", "--stop").code == 1
    back = dbg.json("next", "--back")
    assert (back["state"], back["location"]["line"]) == ("stopped", cart.lines["discount"]), back
    # Back before `let discount`: it is not bound yet, as it was then.
    assert "discount" not in [v["name"] for v in back["locals"]], back["locals"]
    unbound = dbg("--json", "print", "discount")
    assert unbound.code != 0 and "Unbound identifier discount" in unbound.json["error"]["message"]
    assert dbg.json("print", "total")["value"] == "19.25"
    # step --back from the next line lands on the same earlier line.
    assert dbg.json("step")["location"]["line"] == cart.lines["discount-return"]
    again = dbg.json("step", "--back")
    assert again["location"]["line"] == cart.lines["discount"], again
    # Forward again: the same values; the program's output is not repeated
    # (ocamldebug reruns a checkpoint's copy of it to go back).
    assert dbg.json("next")["location"]["line"] == cart.lines["discount-return"]
    assert dbg.json("print", "discount")["value"] == "1.925"
    assert dbg.output("stdout") == "subtotal: 19.25\n"
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 0), end
    assert dbg.output("stdout") == "subtotal: 19.25\ntotal after discount: 17.32\n"


def test_continue_back_returns_to_the_previous_hit_of_a_loop(dbg: Any, target: Any) -> None:
    cart = target("ocaml/cart.ml")
    assert dbg.json("start", "--break", cart.loc("loop"), "--run", str(cart.path))["ok"]
    assert dbg.json("print", "item.name")["value"] == '"apple"'
    second = dbg.json("continue")
    assert second["location"]["line"] == cart.lines["loop"]
    assert dbg.json("print", "item.name")["value"] == '"bread"'
    first = dbg.json("continue", "--back")
    assert (first["reason"], first["location"]["line"]) == ("breakpoint", cart.lines["loop"])
    assert dbg.json("print", "item.name")["value"] == '"apple"'
    # Back past the first hit: the beginning of the program.
    start = dbg.json("continue", "--back")
    assert start["state"] == "stopped" and "beginning of the program" in start["description"]
    assert dbg.json("continue")["location"]["line"] == cart.lines["loop"]
    # finish --back: to the call of the current function, in its caller.
    called = dbg.json("finish", "--back")
    # (the loop's function is called by List.iter)
    assert called["location"]["function"] == "Stdlib__List.iter", called


def test_exit_code_and_uncaught_exception(dbg: Any, target: Any) -> None:
    program = target("ocaml/exit3.ml")
    assert dbg.json("start", str(program.path))["ok"]
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 3), end
    assert dbg.output("stdout") == "before the end\n"
    assert dbg.json("kill")["ok"]
    # An uncaught exception stops where it was raised (one event back from
    # the end, which ocamldebug keeps); going on ends the program with 2.
    assert dbg.json("start", str(program.path), "raise")["ok"]
    raised = dbg.json("continue")
    assert (raised["state"], raised["reason"]) == ("stopped", "exception"), raised
    assert raised["location"]["line"] == program.lines["check"], raised
    assert "Not_found" in raised["description"], raised
    assert dbg.json("print", "n")["value"] == "3"
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 2), end
    assert "Not_found" in end["description"], end
    assert dbg.json("kill")["ok"]
    assert dbg.json("start", "--no-catch", str(program.path), "raise")["ok"]
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 2), end


def test_break_on_a_function_and_what_ocamldebug_cannot_do(dbg: Any, target: Any) -> None:
    cart = target("ocaml/cart.ml")
    assert dbg.json("start", str(cart.path))["ok"]
    # Before the function's value exists: bound through its definition's line.
    made = dbg.json("break", "apply_discount")
    assert made["breakpoint"]["line"] == cart.lines["discount"], made
    nowhere = dbg("--json", "break", f"{cart.path}:{cart.lines['discount'] - 1}")
    assert nowhere.code != 0 and "no code" in nowhere.json["error"]["message"], nowhere
    stop = dbg.json("continue")
    assert stop["location"]["function"] == "Cart.apply_discount", stop
    for refused in (("set", "percent", "5"), ("watch", "total"),
                    ("break", cart.loc("loop"), "--if", "true")):
        result = dbg("--json", *refused)
        assert result.code == 3, result
        message = result.json["error"]["message"]
        assert "by ocamldebug" in message and "dbg raw" in message, message
    # The session goes on after a refusal and after bad input.
    assert dbg("--json", "print", "total *. 2.0").code == 1
    assert dbg.json("print", "percent")["value"] == "10."


def test_other_backends_refuse_to_run_backwards(dbg: Any, target: Any) -> None:
    cart = target("cart.py")
    assert dbg.json("start", "--backend", "pdb", "--break", cart.loc("discount"), "--run",
                    str(cart.path))["ok"]
    for op in ("continue", "step", "next", "finish"):
        result = dbg("--json", op, "--back")
        assert result.code == 3, result
        error = result.json["error"]
        assert error["kind"] == "unsupported" and "by pdb" in error["message"], error
        assert "dbg raw" in error["message"] and "ocamldebug" in error["hint"], error
        assert "gdb" in error["hint"], error
    refused = dbg("--json", "record")
    assert refused.code == 3 and "gdb" in refused.json["error"]["hint"], refused
    # Nothing moved.
    assert dbg.json("status")["location"]["line"] == cart.lines["discount"]
    caps = {b["name"]: b["ops"] for b in dbg.json("caps", "-b", "pdb", "-b",
                                                   "ocamldebug")["backends"]}
    assert (caps["pdb"]["reverse"], caps["ocamldebug"]["reverse"]) == ("none", "native")
    assert (caps["pdb"]["record"], caps["ocamldebug"]["record"]) == ("none", "native")


class TestOcamlSuite(BackendSuite):
    """The testing kit's suite, as on every backend (tests/test_kit.py)."""

    backend = "ocamldebug"
    program = Path(__file__).resolve().parent / "targets" / "ocaml" / "ledger.ml"

    def prepare(self, folder: Path) -> Path:
        # A copy: dbg builds it, and the user's folder stays as it was.
        folder.mkdir(parents=True)
        assert self.program is not None
        return Path(shutil.copy(self.program, folder))


def test_step_enters_a_recursive_call_on_the_same_line_and_back(dbg: Any, target: Any) -> None:
    # spin.ml's one line calls itself: a step is the next call, not 200 events on.
    program = target("ocaml/spin.ml")
    assert dbg.json("start", "--break", program.loc("spin"), "--run", str(program.path))["ok"]
    values = []
    for argv in (["step"], ["step"], ["step", "--back"], ["step", "--back"]):
        snap = dbg.json(*argv)
        assert snap["location"]["line"] == program.lines["spin"], snap
        values.append(dbg.json("print", "n")["value"])
    assert values == ["1", "2", "1", "0"]


def test_a_bytecode_program_of_two_modules(dbg: Any, target: Any) -> None:
    shop = target("ocaml/shop/shop.ml")
    money = target("ocaml/shop/money.ml")
    folder = shop.path.parent
    subprocess.run(["ocamlc", "-g", "-o", "shop", "money.ml", "shop.ml"], cwd=folder,
                   check=True)
    assert dbg.json("start", "--backend", "ocamldebug", str(folder / "shop"))["ok"]
    made = dbg.json("break", "Money.show")
    assert (made["breakpoint"]["file"], made["breakpoint"]["line"]) == \
        (str(money.path), money.lines["show"]), made
    stop = dbg.json("continue")
    assert stop["location"]["function"] == "Money.show", stop
    frames = dbg.json("stack")["frames"]
    assert [(f["function"], f["line"]) for f in frames] == \
        [("Money.show", money.lines["show"]), ("Shop", shop.lines["call-show"])], frames
    back = dbg.json("step", "--back")
    assert (back["location"]["file"], back["location"]["line"]) == \
        (str(shop.path), shop.lines["call-show"]), back
    # Forward again: the call, and its breakpoint, come again.
    again = dbg.json("continue")
    assert (again["reason"], again["location"]["line"]) == ("breakpoint", money.lines["show"])
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 0), end
    assert dbg.output("stdout") == "19.25\n"


def test_stack_shows_each_frames_arguments(dbg: Any, target: Any) -> None:
    cart = target("ocaml/cart.ml")
    assert dbg.json("start", "--break", cart.loc("discount"), "--run", str(cart.path))["ok"]
    frames = dbg.json("stack")["frames"]
    assert [(v["name"], v["value"]) for v in frames[0]["args"]] == \
        [("total", "19.25"), ("percent", "10.")], frames[0]
    assert frames[1]["function"] == "Cart.main" and frames[1].get("args") is None, frames[1]
    # The selected frame is the one it was: locals are frame 0's.
    names = [v["name"] for v in dbg.json("locals")["variables"]]
    assert names == ["total", "percent"], names


def test_what_ocamldebug_cannot_print_is_refused_before_it_is_sent(
        dbg: Any, target: Any) -> None:
    # ocamldebug's print takes a list, and an operator's name makes it die
    # ("Cannot find address for: Stdlib.+"): the session must go on.
    cart = target("ocaml/cart.ml")
    assert dbg.json("start", "--break", cart.loc("discount"), "--run", str(cart.path))["ok"]
    for expression in ("total +", "+", "total *. 2.0", "apply_discount total 1.0"):
        result = dbg("--json", "print", expression)
        assert result.code == 1 and "cannot print" in result.json["error"]["message"], result
    assert dbg.json("print", "total")["value"] == "19.25"
    assert dbg.json("stack")["frames"][0]["function"] == "Cart.apply_discount"
