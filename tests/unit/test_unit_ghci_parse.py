"""ghci's answers as the ghci backend reads them (plugins/dbg_ghci/parse.py):
text ghci 9.0 was seen to print, and spans and names of every shape."""

from __future__ import annotations

import re

import pytest
from dbg_ghci import parse
from dbg_ghci.backend import PROMPT, haskell_string
from hypothesis import given
from hypothesis import strategies as st

lines = st.integers(min_value=1, max_value=99999)
columns = st.integers(min_value=1, max_value=999)
files = st.from_regex(r"(/[a-z]{1,8})*/?[A-Za-z][\w-]{0,10}\.hs", fullmatch=True)


@given(files, lines, columns, columns)
def test_a_span_of_one_line_is_its_file_and_line(file: str, line: int, first: int,
                                                 last: int) -> None:
    for text in (f"{file}:{line}:{first}-{last}", f"{file}:{line}:{first}"):
        assert parse.span(text) == parse.Span(file, line)


@given(files, lines, columns, st.integers(min_value=0, max_value=50), columns)
def test_a_span_of_several_lines_is_its_first(file: str, line: int, first: int, more: int,
                                             last: int) -> None:
    text = f"{file}:({line},{first})-({line + more},{last})"
    assert parse.span(text) == parse.Span(file, line)


def test_an_unknown_span_is_none() -> None:
    assert parse.span("<unknown>") is None


def test_a_stop_and_an_exception_stop() -> None:
    answer = ("subtotal: 19.25\r\nStopped in Main.applyDiscount.discount, cart.hs:18:19-39\r\n"
              "_result :: Double = _\r\npercent :: Double = 10.0\r\n")
    stop = parse.last_stop(answer)
    assert stop is not None and not stop.exception
    assert (stop.name, stop.where, stop.span_text) == \
        ("Main.applyDiscount.discount", parse.Span("cart.hs", 18), "cart.hs:18:19-39")
    thrown = parse.last_stop("Stopped in <exception thrown>, <unknown>\r\n_exception :: e = _")
    assert thrown is not None and thrown.exception and thrown.where is None
    assert parse.last_stop("*** Exception: ExitSuccess\r\n") is None


@given(st.lists(st.from_regex(r"[A-Z][a-z0-9']{0,6}", fullmatch=True), max_size=3),
       st.from_regex(r"[a-z_][A-Za-z0-9_']{0,8}", fullmatch=True),
       st.lists(st.from_regex(r"[a-z_][A-Za-z0-9_']{0,8}", fullmatch=True), max_size=3))
def test_a_stops_function_is_its_top_level_binding(modules: list[str], function: str,
                                                  local: list[str]) -> None:
    name = ".".join([*modules, function, *local])
    assert parse.top_level(name) == ".".join([*modules, function])


def test_bindings_with_values_without_and_on_more_lines() -> None:
    text = ("percent :: Double = 10.0\r\n_result :: Double = _\r\ndiscount :: Double\r\n"
            "cart :: [Item] = [Item \"apple\" 0.5 6,\r\n  Item \"bread\" 2.25 1]\r\n")
    assert parse.bindings(text) == [
        ("percent", "Double", "10.0"), ("_result", "Double", "_"), ("discount", "Double", ""),
        ("cart", "[Item]", '[Item "apple" 0.5 6, Item "bread" 2.25 1]')]


def test_history_steps() -> None:
    text = ("-1  : applyDiscount (cart.hs:19:6-21)\r\n-2  : applyDiscount "
            "(cart.hs:(17,31)-(19,21))\r\n-10 : cartTotal:costs (cart.hs:14:18-31)\r\n...\r\n")
    assert parse.history(text) == [
        parse.Step(1, "applyDiscount", parse.Span("cart.hs", 19)),
        parse.Step(2, "applyDiscount", parse.Span("cart.hs", 17)),
        parse.Step(10, "cartTotal:costs", parse.Span("cart.hs", 14))]
    assert parse.history("Empty history. Perhaps you forgot to use :trace?\r\n") == []


@pytest.mark.parametrize("answer, ended", [
    ("", (0, "")),
    ("*** Exception: ExitSuccess\r\n", (0, "")),
    ("*** Exception: ExitFailure 3\r\n", (3, "")),
    ("*** Exception: ExitFailure 256\r\n", (0, "")),  # a status is a byte
    ("*** Exception: Prelude.head: empty list\r\n", (1, "Prelude.head: empty list")),
])
def test_how_mains_evaluation_ended(answer: str, ended: tuple[int, str]) -> None:
    assert parse.exit_code(answer) == ended


def test_an_error_is_one_line() -> None:
    answer = ("\r\n<interactive>:13:8: error:\r\n    parse error (possibly incorrect "
              "indentation or mismatched brackets)\r\n")
    assert parse.error(answer) == \
        "parse error (possibly incorrect indentation or mismatched brackets)"
    assert parse.error("total = 19.25\r\n") is None


def test_main_line_and_module() -> None:
    source = "module Shop.Main (main) where\n\nmain :: IO ()\nmain = do\n  pure ()\n"
    assert (parse.main_line(source), parse.module_of(source)) == (4, "Shop.Main")
    assert (parse.main_line("x = 1\n"), parse.module_of("main = pure ()\n")) == (1, "Main")


@pytest.mark.parametrize("text", [
    "║dbg-ghci║ ", "[cart.hs:18:19-39] ║dbg-ghci║ ",
    "[-1: cart.hs:19:6-21] ║dbg-ghci║ ", "[<unknown>] [cart.hs:(16,31)-(18,18)] ║dbg-ghci║ "])
def test_the_prompt_with_the_stops_context_before_it(text: str) -> None:
    found = PROMPT.search(text)
    assert found is not None and found.start() == 0 and found.end() == len(text)


@given(st.text(max_size=40))
def test_an_argument_as_a_haskell_string_literal(text: str) -> None:
    literal = haskell_string(text)
    assert literal.startswith('"') and literal.endswith('"') and literal.isascii()
    assert "\n" not in literal
    # Haskell's escapes, read back: \DDD\& is a code point, \\ and \" themselves.
    decoded = re.sub(r'\\(\d+)\\&|\\(["\\])',
                     lambda m: chr(int(m[1])) if m[1] else m[2], literal[1:-1])
    assert decoded == text
