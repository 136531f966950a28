"""A line found by its text (dbgcore.lang.linetext) and the location that
asks for one (FILE:"TEXT"): the matching rule, the lines that never count
(blank, comment-only, inside a block comment), the errors, and following a
line after an edit; over real files."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dbgcore.lang.linetext import LineAnchor, anchor, clipped, code_lines, find_line, follow
from dbgcore.ops.stops import breakpoint_text, moved_text
from dbgcore.shared.errors import OpFailed, UsageError
from dbgcore.vocab.location import BreakLoc

PYTHON = textwrap.dedent('''\
    """A module: its docstring is a string, not a comment."""
    # total += price (a comment)

    def total(prices):
        total = 0
        for price in prices:
            total  +=  price
        return total
''')

C = textwrap.dedent('''\
    #include <stdio.h>
    /* a block comment
       total += price; inside it
    */
    int main(void) {
        int total = 0;  // total
        const char *s = "/* not a comment";
        total += 1;
        // total += 1;
        return total;
    }
''')


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_text_is_matched_whitespace_ignored(tmp_path: Path) -> None:
    path = write(tmp_path, "prog.py", PYTHON)
    assert find_line(path, "total += price", None, "prog.py") == 7
    assert find_line(path, "total+=price", None, "prog.py") == 7


def test_a_whole_line_is_preferred_to_lines_that_contain_it(tmp_path: Path) -> None:
    path = write(tmp_path, "prog.py", "x = 1\nx = 10\ny = x\n")
    assert find_line(path, "x = 1", None, "prog.py") == 1
    assert find_line(path, "x = 10", None, "prog.py") == 2


def test_several_lines_are_listed_and_near_picks_the_nearest(tmp_path: Path) -> None:
    path = write(tmp_path, "prog.py", PYTHON)
    with pytest.raises(UsageError) as info:
        find_line(path, "total", None, 'prog.py:"total"')
    message = info.value.message
    assert message.startswith('prog.py:"total" is on 4 lines: prog.py:4 def total(prices):'), \
        message
    assert "prog.py:8 return total" in message and "\n" not in message
    assert "--near" in info.value.hint
    assert find_line(path, "total", 6, "prog.py") == 5
    assert find_line(path, "total", 100, "prog.py") == 8


def test_comment_lines_never_count(tmp_path: Path) -> None:
    path = write(tmp_path, "prog.py", PYTHON)
    with pytest.raises(UsageError) as info:
        find_line(path, "(a comment)", None, 'prog.py:"(a comment)"')
    assert "only on comment lines" in info.value.message and "line 2" in info.value.message


def test_c_comments_and_strings(tmp_path: Path) -> None:
    path = write(tmp_path, "prog.c", C)
    lines = code_lines(path)
    assert [n for n, text in enumerate(lines, 1) if text is None] == [2, 3, 4, 9]
    # The block comment's and the line comment's copies are passed over.
    assert find_line(path, "total += ", None, "prog.c") == 8
    assert find_line(path, "not a comment", None, "prog.c") == 7


def test_no_line_holds_it_says_the_closest(tmp_path: Path) -> None:
    path = write(tmp_path, "prog.py", PYTHON)
    with pytest.raises(OpFailed) as info:
        find_line(path, "totl += prce", None, "prog.py")
    assert "no line of code" in info.value.message
    assert info.value.hint.startswith("closest: 7 total  +=  price"), info.value.hint


def test_follow_an_edit(tmp_path: Path) -> None:
    path = write(tmp_path, "prog.py", PYTHON)
    kept = anchor(path, 7)
    assert kept == LineAnchor(path, 7, "total  +=  price")
    assert follow(kept, None) == ("same", 7)
    Path(path).write_text("import os\n\n\n" + PYTHON)
    assert follow(kept, None) == ("moved", 10)
    assert follow(kept, "+= price") == ("moved", 10)
    Path(path).write_text(PYTHON.replace("total  +=  price", "total += 2 * price"))
    assert follow(kept, None) == ("gone", None)
    assert follow(kept, "price") == ("same", 7)  # the user's text is still on its line
    assert anchor(path, 3) is None  # a blank line keeps nothing


def test_location_by_text_parses_and_travels() -> None:
    loc = BreakLoc.parse('cart.py:"print("done")"')
    assert (loc.file, loc.line, loc.match) == ("cart.py", None, 'print("done")')
    assert BreakLoc.from_wire(loc.to_wire()) == loc
    assert BreakLoc.parse(loc.key()) == loc
    # A plain location's wire shape is unchanged.
    assert set(BreakLoc.parse("cart.py:3").to_wire()) == {"file", "line", "function", "module",
                                                          "text"}
    for bad in ('cart.py:""', 'cart.py:"  "', ':"x"', '"total"', 'cart.py:"x'):
        with pytest.raises(UsageError):
            BreakLoc.parse(bad)
    with pytest.raises(UsageError):
        BreakLoc.from_wire({"file": "a.py", "line": 3, "near": 4})


@given(st.text(min_size=1, max_size=30).filter(lambda t: t.strip() and '"' not in t
                                               and "\n" not in t and "\r" not in t
                                               and "\0" not in t))
def test_any_text_round_trips(text: str) -> None:
    loc = BreakLoc.parse(f'src/a.py:"{text}"')
    assert loc.match == text and BreakLoc.parse(loc.key()) == loc


def test_answers_show_the_line_and_what_a_restart_did() -> None:
    bp = {"id": 1, "file": "/src/cart.py", "line": 17, "verified": True,
          "requested": 'cart.py:"total += cost"', "line_text": "total += cost"}
    assert breakpoint_text(bp) == "breakpoint 1 at /src/cart.py:17 `total += cost`"
    gone = {"id": 2, "file": "/src/cart.py", "line": 9, "verified": True,
            "requested": "cart.py:9", "line_text": "pass", "text_gone": "x = 1"}
    assert breakpoint_text(gone) == \
        "breakpoint 2 at /src/cart.py:9 `pass` [line text gone: was 'x = 1']"
    assert moved_text({"id": 1, "file": "/src/cart.py", "from": 17, "to": 20,
                       "text": "total += cost"}) == \
        "breakpoint 1 moved with its line's text from cart.py:17 to cart.py:20 `total += cost`"
    assert moved_text({"id": 2, "file": "/src/cart.py", "line": 9, "gone": "x = 1"}) == \
        "breakpoint 2 kept at cart.py:9: line text gone: was 'x = 1'"
    assert clipped("x" * 100).endswith("...") and len(clipped("x" * 100)) == 60
