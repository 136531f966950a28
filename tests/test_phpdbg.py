"""The phpdbg backend on real PHP programs under a real phpdbg: the testing
kit's backend suite, then what is particular to PHP and phpdbg."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dbgcore.testing import BackendSuite, marked_lines, require

pytestmark = pytest.mark.backend("phpdbg")

CART = Path(__file__).resolve().parent / "targets" / "php" / "cart.php"
LINES = marked_lines(CART)


class TestPhpdbgSuite(BackendSuite):
    """The kit's suite: what every dbg backend owes its users."""

    backend = "phpdbg"
    program = CART


@pytest.fixture
def php(dbg: Any, backend_ready: Callable[[str], None]) -> Any:
    backend_ready("phpdbg")
    return dbg


def start(dbg: Any, *options: str) -> dict[str, Any]:
    snap: dict[str, Any] = dbg.json("start", *options, str(CART))
    assert snap["ok"] and snap["via"]["tool"] == "phpdbg", snap
    return snap


def test_a_php_file_picks_phpdbg_and_stops_at_entry(php: Any) -> None:
    snap = start(php)
    assert snap["reason"] == "entry" and snap["location"]["file"] == str(CART), snap
    # The first statement, not the class declared before it.
    assert snap["location"]["line"] == LINES["entry"], snap
    assert php.json("status")["state"] == "stopped"


def test_locals_are_written_like_print_and_this_is_listed(php: Any) -> None:
    snap = start(php, "--break", f"cart.php:{LINES['loop']}", "--run")
    values = {v["name"]: v["value"] for v in snap["locals"]}
    assert values["$item"] == '["name" => "apple", "price" => 0.5, "quantity" => 6]', values
    assert "$this" in values and values["$total"] == "0", values
    printed = php.json("print", "$item")
    assert printed["value"] == values["$item"] and printed["type"] == "array", printed
    assert php.json("print", "$item['price'] * 10")["value"] == "5.0"


def test_break_by_function_and_by_method_at_the_body(php: Any) -> None:
    start(php)
    fee = php.json("break", "fee")
    assert fee["breakpoint"]["line"] == LINES["fee"], fee
    total = php.json("break", "Cart::total")
    assert total["breakpoint"]["line"] == LINES["total-first"], total
    first = php.json("continue")
    assert (first["reason"], first["location"]["line"]) == ("breakpoint", LINES["total-first"])
    assert first["hit_breakpoints"] == [total["breakpoint"]["id"]], first
    second = php.json("continue")
    assert second["location"]["function"] == "fee", second
    frames = php.json("stack")["frames"]
    assert [f["function"] for f in frames] == ["fee", "main", "{main}"], frames
    assert frames[1]["line"] == LINES["call-fee"], frames


def test_a_condition_and_removing_a_breakpoint(php: Any) -> None:
    start(php)
    loop = php.json("break", f"cart.php:{LINES['loop']}", "--if", "$total > 3")
    stop = php.json("continue")
    assert stop["location"]["line"] == LINES["loop"], stop
    assert php.json("print", "$total")["value"] == "5.25"
    assert php("unbreak", str(loop["breakpoint"]["id"])).code == 0
    done = php.json("continue")
    assert done["state"] == "exited" and done["exit_code"] == 0, done
    assert "total after discount: 17.32" in php.output("stdout")


def test_bad_expressions_are_errors_and_the_program_goes_on(php: Any) -> None:
    start(php, "--break", f"cart.php:{LINES['discount']}", "--run")
    for expression, said in (("$nope", "Undefined variable $nope"), ("1 +", "ParseError"),
                             ("nosuch()", "undefined function nosuch")):
        failed = php(*["print", expression])
        assert failed.code == 1 and said in failed.err, failed
    assert php.json("set", "$percent", "50")["value"] == "50"
    done = php.json("continue")
    assert done["state"] == "exited" and done["exit_code"] == 0, done
    assert "total after discount: 9.62" in php.output("stdout")


def test_an_uncaught_exception_stops_with_its_message(php: Any) -> None:
    snap = php.json("start", "--run", str(CART), "raise")
    assert snap["reason"] == "exception" and snap["location"]["line"] == LINES["raise"], snap
    assert "InvalidArgumentException: bad entry -3" in snap["description"], snap
    assert php.json("print", "$value")["value"] == "-3"
    thrown = php.json("exception")
    assert (thrown["exception"], thrown["description"]) == ("InvalidArgumentException",
                                                            "bad entry -3"), thrown
    assert thrown["stack"].splitlines()[-1].endswith(f"cart.php:{LINES['raise']} in check_entry")
    done = php.json("continue")
    assert done["state"] == "exited" and done["exit_code"] == 255, done


def test_the_exit_code_and_the_output_streams(php: Any) -> None:
    php.json("start", str(CART), "exit3")
    done = php.json("continue")
    assert done["state"] == "exited" and done["exit_code"] == 3, done
    assert "subtotal: 19.25" in php.output("stdout")
    assert "phpdbg" not in php.output("stdout") and "Breakpoint" not in php.output("stdout")


def test_watch_is_refused_with_the_way_round(php: Any) -> None:
    start(php, "--break", f"cart.php:{LINES['discount']}", "--run")
    for argv in (["watch", "$total"], ["break", "cart.php:34", "--hit", "2"],
                 ["catch", "InvalidArgumentException"]):
        refused = php(*argv)
        assert refused.code == 3 and "phpdbg" in refused.err and "dbg raw" in refused.err, \
            refused
    assert "raw watch $var" in php("watch", "$total").err
    assert php.json("raw", "ev 6*7")["output"] == "42"
    # A long expression reaches phpdbg in parts; a long native command cannot.
    assert php.json("print", "'" + "x" * 600 + "'")["value"] == '"' + "x" * 600 + '"'
    too_long = php("raw", "ev '" + "x" * 600 + "'")
    assert too_long.code == 2 and "at most" in too_long.err, too_long
    assert php.json("print", "$total")["value"] == "19.25"


def test_frame_selects_where_print_evaluates(php: Any) -> None:
    start(php, "--break", f"cart.php:{LINES['discount']}", "--run")
    assert php.json("frame", "1")["ok"]
    assert php.json("print", "$total")["value"] == "19.25"
    assert {v["name"] for v in php.json("locals")["variables"]} >= {"$cart", "$mode", "$total"}
    assert php("frame", "9").code == 1


def test_pause_stops_a_running_program(php: Any) -> None:
    php.json("start", str(CART), "spin")
    running = php.json("--timeout", "1", "continue")
    assert running["state"] == "running", running
    paused = php.json("pause")
    assert paused["state"] == "stopped" and paused["reason"] == "pause", paused
    # In the loop: its body's line or the `while` line.
    assert paused["location"]["line"] in (LINES["spin"] - 1, LINES["spin"]), paused
    assert int(php.json("print", "$turns")["value"]) > 0


def test_a_phpunit_run_stops_where_an_assertion_fails(php: Any) -> None:
    phpunit = shutil.which("phpunit")
    require(phpunit is not None, "phpunit is not installed (apt-get install phpunit)")
    tests = CART.parent / "phpunit" / "CartTest.php"
    marks = marked_lines(tests)
    snap = php.json("start", "--backend", "phpdbg", "--run", str(phpunit),
                    "--do-not-cache-result", str(tests))
    assert snap["reason"] == "exception", snap
    assert (snap["location"]["file"], snap["location"]["line"]) == (str(tests), marks["fails"])
    assert snap["description"] == ("CartTest->testDiscount failed: ten percent off; "
                                   "Failed asserting that 17.325 is identical to 17.0."), snap
    assert php.json("print", "$final")["value"] == "17.325"
    frames = php.json("stack")["frames"]
    assert [f["function"] for f in frames if not f.get("library")] == ["CartTest->testDiscount"]
    done = php.json("continue")
    assert done["state"] == "exited" and done["exit_code"] == 1, done
    assert "Tests: 2, Assertions: 2, Failures: 1." in php.output("stdout")


def test_dbg_test_runs_phpunit_for_a_test_file(php: Any) -> None:
    require(shutil.which("phpunit") is not None, "phpunit is not installed")
    tests = CART.parent / "phpunit" / "CartTest.php"
    snap = php.json("test", "--", "--do-not-cache-result", str(tests))
    assert snap["via"]["tool"] == "phpdbg" and snap["reason"] == "exception", snap
    assert (snap["location"]["file"], snap["location"]["line"]) == \
        (str(tests), marked_lines(tests)["fails"])
    assert snap["description"].startswith("CartTest->testDiscount failed: "), snap
    assert php.json("kill")["_exit"] == 0


def test_no_catch_runs_past_an_uncaught_exception(php: Any) -> None:
    done = php.json("start", "--no-catch", "--run", str(CART), "raise")
    if done["state"] == "running":
        done = php.json("--timeout", "30", "wait")
    assert done["state"] == "exited" and done["exit_code"] == 255, done


def test_a_breakpoint_stops_once_a_pass_over_its_line(php: Any) -> None:
    # phpdbg fires a line's breakpoint again when a call made on the line
    # returns, and a conditional one at each later opline of the line.
    start(php, "--break", f"cart.php:{LINES['call-fee']}", "--break", "fee", "--run")
    assert php.json("continue")["location"]["function"] == "fee"
    done = php.json("continue")
    assert done["state"] == "exited", done
    start(php)
    php.json("break", f"cart.php:{LINES['loop']}", "--if", "$total > 3")
    stop = php.json("continue")
    assert php.json("print", "$item['name']")["value"] == '"coffee"', stop
    done = php.json("continue")
    assert done["state"] == "exited", done
    # phpdbg's `print opline` answers on stderr: none of it is the program's.
    assert php.output("stderr") == ""
    assert php.output("stdout").endswith("total after discount: 17.32\ndone\n")


def test_output_comes_while_the_program_runs(php: Any, tmp_path: Path) -> None:
    script = tmp_path / "chatty.php"
    script.write_text('<?php\nfor ($i = 0; $i < 50; $i++) {\n    echo "tick $i\\n";\n'
                      '    usleep(100000);\n}\necho "[mine] done";\n')
    php.json("start", str(script))
    assert php.json("--timeout", "1", "continue")["state"] == "running"
    assert "tick 0\n" in php.output("stdout")  # before any stop
    done = php.json("--timeout", "30", "wait")
    assert done["state"] == "exited", done
    assert "tick 49\n[mine] done" in php.output("stdout")


def test_until_runs_to_a_line_and_leaves_no_breakpoint(php: Any) -> None:
    start(php, "--break", f"cart.php:{LINES['discount']}", "--run")
    there = php.json("until", f"cart.php:{LINES['after-discount']}")
    assert (there["reason"], there["location"]["line"]) == ("until", LINES["after-discount"])
    assert [b["line"] for b in php.json("breaks")["breakpoints"]] == [LINES["discount"]]
    php.json("restart")
    again = php.json("continue")
    assert again["location"]["line"] == LINES["discount"], again
    done = php.json("continue")  # the line `until` ran to stops no more
    assert done["state"] == "exited", done


def test_catch_raised_stops_at_the_throw(php: Any) -> None:
    php.json("start", str(CART), "raise")
    assert php.json("catch", "raised")["filters"] == ["raised"]
    thrown = php.json("continue")
    assert (thrown["reason"], thrown["location"]["line"]) == ("exception", LINES["raise"])
    assert php.json("catch")["filters"] == []  # neither the throw nor uncaught now
    done = php.json("continue")
    assert done["state"] == "exited" and done["exit_code"] == 255, done


def test_a_script_that_does_not_compile_is_refused_with_php_s_words(php: Any,
                                                                   tmp_path: Path) -> None:
    script = tmp_path / "bad.php"
    script.write_text("<?php\nfunction (\n")
    refused = php("start", str(script))
    assert refused.code == 1 and "Unclosed '('" in refused.err, refused
    assert refused.err.count("\n") == 1 and "Traceback" not in refused.err, refused
    assert php.json("status")["error"]["kind"] == "no_session"
