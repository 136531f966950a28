"""Haskell through ghci's debugger (issue 42, item 3), on the real ghci: a
`.hs` file starts with no build step, breakpoints by line and by function,
line steps over ghci's subexpression stops, locals and print, the stack made
of the stop and ghci's :history, the program's output apart from ghci's
answers, its arguments, stdin and exit status, an uncaught error as a stop,
what ghci cannot do refused naming it, and a kill that leaves nothing."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

import builds
import pytest

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg


@pytest.fixture
def cart(target: Any) -> Any:
    require_backend("ghci")
    return target("haskell/cart.hs")


@pytest.fixture
def tally(target: Any, tmp_path: Any) -> Any:
    require_backend("ghci")
    (tmp_path / "in.txt").write_text("hello\n")
    return target("haskell/tally.hs")


def _here(answer: dict[str, Any]) -> int:
    return int(answer["location"]["line"])


def _names(answer: dict[str, Any]) -> dict[str, str]:
    return {v["name"]: v["value"] for v in answer.get("locals") or answer["variables"]}


def test_a_hs_file_starts_under_ghci_without_a_build_and_stops_in_main(
        dbg: Dbg, cart: Any) -> None:
    stop = dbg.json("start", str(cart.path))
    assert stop["ok"] and stop["via"]["tool"] == "ghci", stop
    # `:step main`: main's body, which begins on `main = do`.
    assert (stop["reason"], stop["location"]["function"]) == ("entry", "Main.main"), stop
    assert _here(stop) == cart.lines["main-first"] - 1, stop
    assert not list(cart.path.parent.glob("*.o")) and not list(cart.path.parent.glob("*.hi"))
    assert "build" not in dbg("start", str(cart.path)).out.lower()


def test_break_by_line_and_function_then_line_steps(dbg: Dbg, cart: Any) -> None:
    dbg.json("start", str(cart.path))
    by_line = dbg.json("break", cart.loc("discount"))
    assert by_line["breakpoint"]["line"] == cart.lines["discount"], by_line
    stop = dbg.json("continue")
    assert (stop["reason"], _here(stop)) == ("breakpoint", cart.lines["discount"]), stop
    assert stop["location"]["function"] == "Main.applyDiscount", stop
    assert {"total", "percent", "_result"} <= set(_names(stop)), stop
    # ghci stops first at `total * percent`, on the same line: dbg steps on.
    step = dbg.json("step")
    assert _here(step) == cart.lines["discount-return"], step
    assert _names(step)["discount"] == "1.925", step
    # Out of the function, into main where its value is used next.
    after = dbg.json("next")
    assert (_here(after), after["location"]["function"]) == \
        (cart.lines["after-discount"], "Main.main"), after
    dbg.json("restart")
    named = dbg.json("break", "Main.cartTotal")
    assert named["ok"] and named["breakpoint"]["line"] == cart.lines["total-first"], named
    stop = dbg.json("continue")
    assert (stop["reason"], _here(stop)) == ("breakpoint", cart.lines["total-first"]), stop


def test_locals_print_and_a_bad_expression(dbg: Dbg, cart: Any) -> None:
    dbg.json("start", "--break", cart.loc("discount"), "--run", str(cart.path))
    names = _names(dbg.json("locals"))
    assert (names["total"], names["percent"]) == ("19.25", "10.0"), names
    assert dbg.json("print", "total * 2")["value"] == "38.5"
    assert dbg.json("print", "show percent ++ \"%\"")["value"] == '"10.0%"'
    # A value with no Show instance: ghci's term printer writes it.
    assert dbg.json("print", "Item \"tea\" 1.5 2")["value"] == 'Item "tea" 1.5 2'
    bad = dbg("print", "nosuch + 1")
    assert bad.code == 1 and "Variable not in scope: nosuch" in bad.err, bad
    assert len(bad.err.splitlines()) == 1 and "Traceback" not in bad.err, bad
    thrown = dbg("print", "head ([] :: [Int])")
    assert thrown.code == 1 and "Prelude.head: empty list" in thrown.err, thrown
    # An evaluation that never ends is interrupted in the interpreter at
    # the op's timeout; the stop stays.
    endless = dbg("print", "length [1..]", "--timeout", "2")
    assert endless.code == 1 and "interrupted" in endless.err, endless
    # Still stopped where it was, and dbg's own binding is not a local.
    assert dbg.json("print", "percent")["value"] == "10.0"
    assert not [n for n in _names(dbg.json("locals")) if "dbg" in n]
    assert dbg.json("raw", "6*7")["output"] == "42"
    assert "Double" in dbg.json("raw", ":type total")["output"]


def test_stack_is_the_stop_and_the_history_that_led_to_it_and_frames_go_back(
        dbg: Dbg, cart: Any) -> None:
    dbg.json("start", "--break", cart.loc("discount"), "--run", str(cart.path))
    frames = dbg.json("stack")["frames"]
    assert [f["function"] for f in frames[:2]] == ["Main.applyDiscount", "Main.main"], frames
    assert frames[1]["line"] == cart.lines["call-discount"], frames
    # Frame 1 is that :history step (`:back`): its own values, not the stop's.
    frame = dbg.json("frame", "1")
    assert frame["frame"]["function"] == "Main.main", frame
    assert set(_names(dbg.json("locals"))) == {"total", "_result"}
    assert dbg.json("print", "total")["value"] == "19.25"
    assert [f["current"] for f in dbg.json("stack")["frames"][:2]] == [False, True]
    # Running goes on from the stop itself.
    step = dbg.json("step")
    assert _here(step) == cart.lines["discount-return"], step


def test_output_is_the_programs_own_and_the_end_its_status(dbg: Dbg, cart: Any) -> None:
    dbg.json("start", str(cart.path))
    end = dbg.json("continue")
    # exitWith ExitSuccess is an exception to ghci; -fbreak-on-error does
    # not make it a stop.
    assert (end["state"], end["exit_code"]) == ("exited", 0), end
    shown = dbg("output").out
    assert "subtotal: 19.25" in shown and "total after discount: 17.32" in shown, shown
    assert "[stderr] done" in shown, shown
    assert "Stopped in" not in shown and "dbg-ghci" not in shown, shown


def test_arguments_stdin_and_an_exit_code(dbg: Dbg, tally: Any, tmp_path: Any) -> None:
    feed = str(tmp_path / "in.txt")
    stop = dbg.json("start", "--stdin", feed, "--break", tally.loc("report"), "--run",
                    str(tally.path), "fail", "two words")
    assert _here(stop) == tally.lines["report"], stop
    assert dbg.json("print", "args")["value"] == '["fail","two words"]'
    assert dbg.json("print", "line")["value"] == '"hello"'
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 3), end
    shown = dbg("output").out
    assert "args: fail two words; read: hello" in shown, shown
    assert "[stderr] tally 20" in shown, shown


def test_an_uncaught_error_stops_where_it_is_raised(dbg: Dbg, tally: Any,
                                                   tmp_path: Any) -> None:
    dbg.json("start", "--stdin", str(tmp_path / "in.txt"), str(tally.path), "boom")
    stop = dbg.json("continue")
    assert (stop["reason"], _here(stop)) == ("exception", tally.lines["boom"]), stop
    assert stop["description"] == "Prelude.head: empty list", stop
    assert "_exception" in _names(stop), stop
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 1), end
    # What the compiled program would have written as it died.
    assert "[stderr] tally: Prelude.head: empty list" in dbg("output").out


def test_catch_all_stops_at_a_handled_exception_and_none_stops_at_none(
        dbg: Dbg, tally: Any, tmp_path: Any) -> None:
    feed = str(tmp_path / "in.txt")
    dbg.json("start", "--stdin", feed, str(tally.path), "boom")
    assert dbg.json("catch", "all")["filters"] == ["all"]
    stop = dbg.json("continue")
    assert (stop["reason"], _here(stop)) == ("exception", tally.lines["boom"]), stop
    dbg.json("restart")
    bad = dbg("catch", "IOException")
    assert bad.code == 2 and "uncaught" in bad.err and "Traceback" not in bad.err, bad
    assert dbg.json("catch")["filters"] == []
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 1), end
    # Once main's evaluation has begun, it keeps the flags it began with.
    dbg.json("start", "--stdin", feed, "--break", tally.loc("report"), "--run",
             str(tally.path), "boom")
    late = dbg("catch", "all")
    assert late.code == 1 and "dbg restart" in late.err, late
    assert dbg.json("catch", "uncaught")["filters"] == ["uncaught"]


def test_with_no_catch_the_error_ends_the_program(dbg: Dbg, tally: Any, tmp_path: Any) -> None:
    dbg.json("start", "--no-catch", "--stdin", str(tmp_path / "in.txt"), str(tally.path),
             "boom")
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 1), end


def test_a_program_that_does_not_compile_is_refused_with_ghcis_error(
        dbg: Dbg, target: Any) -> None:
    require_backend("ghci")
    broken = target("haskell/broken.hs")
    refused = dbg("start", str(broken.path))
    assert refused.code == 1 and "No instance for (Num String)" in refused.err, refused
    assert "Traceback" not in refused.err, refused
    deadline = time.monotonic() + 5
    while builds.pids_naming(str(broken.path)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not builds.pids_naming(str(broken.path))


def test_a_module_without_main_is_refused_and_one_not_named_main_runs(
        dbg: Dbg, tmp_path: Any) -> None:
    require_backend("ghci")
    library = tmp_path / "Lib.hs"
    library.write_text("module Lib (double) where\ndouble :: Int -> Int\ndouble x = x * 2\n")
    refused = dbg("start", str(library))
    assert refused.code == 1 and "has no main" in refused.err, refused
    assert len(refused.err.splitlines()) == 1, refused
    named = tmp_path / "named.hs"
    named.write_text("module Named where\nmain :: IO ()\nmain = do\n  print (3 :: Int)\n")
    stop = dbg.json("start", str(named))
    assert (stop["location"]["function"], _here(stop)) == ("Named.main", 3), stop
    assert dbg.json("break", f"{named}:4")["breakpoint"]["line"] == 4
    assert dbg.json("continue")["location"]["function"] == "Named.main"
    assert dbg.json("continue")["exit_code"] == 0


def test_what_ghci_cannot_do_is_refused_naming_it(dbg: Dbg, cart: Any) -> None:
    dbg.json("start", "--break", cart.loc("discount"), "--run", str(cart.path))
    for argv, native in ((["watch", "total"], ":print"), (["set", "total", "1"], "let"),
                         (["finish"], ":steplocal"),
                         (["pause"], "dbg break"), (["threads"], ":show context"),
                         (["break", "--if", "total > 1", cart.loc("loop")], ":break")):
        refused = dbg(*argv)
        assert refused.code == 3, (argv, refused)
        assert "not supported by ghci" in refused.err and native in refused.err, refused
        assert "dbg raw" in refused.err and len(refused.err.splitlines()) == 1, refused
    nowhere = dbg("break", f"{cart.path}:3")
    assert nowhere.code == 1 and "no code" in nowhere.err.lower(), nowhere
    unknown = dbg("break", "nosuch")
    assert unknown.code == 1 and "nosuch" in unknown.err, unknown
    # The session goes on, at the same stop.
    assert _names(dbg.json("locals"))["total"] == "19.25"


def test_until_runs_to_a_line_through_a_breakpoint_of_its_own(dbg: Dbg, cart: Any) -> None:
    dbg.json("start", "--break", cart.loc("discount"), "--run", str(cart.path))
    there = dbg.json("until", cart.loc("after-discount"))
    assert (_here(there), there["location"]["function"]) == \
        (cart.lines["after-discount"], "Main.main"), there
    # It was ghci's for that run only.
    assert [b["line"] for b in dbg.json("breaks")["breakpoints"]] == [cart.lines["discount"]]
    assert dbg("raw", ":show breaks").out.count("enabled") == 1
    nowhere = dbg("until", f"{cart.path}:3")
    assert nowhere.code == 1 and "no code" in nowhere.err.lower(), nowhere


def test_a_program_of_two_modules_from_another_folder(dbg: Dbg, target: Any) -> None:
    require_backend("ghci")
    main = target("haskell/shop/Main.hs")
    price = target("haskell/shop/Shop/Price.hs")
    # dbg runs in the test's folder, not the program's: ghci still finds Shop.Price.
    assert dbg.json("start", str(main.path))["ok"]
    made = dbg.json("break", "Shop/Price.hs:" + str(price.lines["tax"]))
    assert made["breakpoint"]["file"] == str(price.path), made
    again = dbg("break", price.loc("tax"))
    assert again.code == 1 and "already" in again.err, again
    stop = dbg.json("continue")
    assert (stop["location"]["file"], _here(stop), stop["location"]["function"]) == \
        (str(price.path), price.lines["tax"], "Shop.Price.withTax"), stop
    frames = dbg.json("stack")["frames"]
    assert [f["function"] for f in frames[:2]] == ["Shop.Price.withTax", "Main.main"], frames
    assert dbg.json("print", "amount")["value"] == "10.0"
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"]) == ("exited", 0), end
    assert "12.0" in dbg("output").out


def test_unbreak_and_breaks(dbg: Dbg, cart: Any) -> None:
    dbg.json("start", str(cart.path))
    first = dbg.json("break", cart.loc("call-total"))["breakpoint"]["id"]
    dbg.json("break", cart.loc("after-discount"))
    assert [b["line"] for b in dbg.json("breaks")["breakpoints"]] == \
        [cart.lines["call-total"], cart.lines["after-discount"]]
    assert dbg.json("unbreak", str(first))["ok"]
    stop = dbg.json("continue")
    assert _here(stop) == cart.lines["after-discount"], stop


def test_kill_leaves_no_ghci_or_interpreter_running(dbg: Dbg, cart: Any) -> None:
    dbg.json("start", "--break", cart.loc("discount"), "--run", str(cart.path))
    assert builds.pids_naming(str(cart.path)), "ghci runs the program's file"
    # The program's process: ghci's external interpreter.
    interpreter = int((dbg.home / "sessions" / "default" / "iserv.pid").read_text())
    assert dbg.json("kill")["ok"]
    deadline = time.monotonic() + 5
    while (builds.pids_naming(str(cart.path)) or os.path.exists(f"/proc/{interpreter}")) \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not builds.pids_naming(str(cart.path))
    assert not os.path.exists(f"/proc/{interpreter}")


def test_a_missing_ghci_is_said_with_its_install_hint(dbg: Dbg, tmp_path: Any) -> None:
    folder = dbg.cwd / ".dbg"
    folder.mkdir(exist_ok=True)
    (folder / "backends.yaml").write_text("backends:\n  ghci:\n    command: [ghci-not-here]\n")
    hint = "apt-get install ghc"
    listed = [line for line in dbg("backends").out.splitlines() if "ghci" in line]
    assert listed and listed[0].split()[:2] == ["missing", "ghci"], listed
    assert hint in dbg("backends").out
    assert hint in dbg("doctor").out
    program = tmp_path / "main.hs"
    program.write_text("main :: IO ()\nmain = pure ()\n")
    refused = dbg("start", str(program))
    assert refused.code != 0 and hint in refused.err and "Traceback" not in refused.err, refused
