"""BreakLoc.parse: every form a user may type, every malformed one, as
properties over generated input."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from dbgcore.shared.errors import UsageError
from dbgcore.vocab.model import BreakLoc

identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,15}", fullmatch=True)
dotted = st.lists(identifiers, min_size=1, max_size=4).map(".".join)
path_parts = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.+@-]{0,15}", fullmatch=True)
files = st.builds(
    lambda prefix, parts, ext: prefix + "/".join(parts) + ext,
    st.sampled_from(["", "/", "./", "../", "C:/"]),
    st.lists(path_parts, min_size=1, max_size=4),
    st.sampled_from([".py", ".c", ".cpp", ".go", ".java", ""]),
)
lines = st.integers(min_value=1, max_value=10**7)
blank = st.sampled_from(["", " ", "  ", "\t"])


@given(files, lines, blank, blank)
@example("app.py", 12, "", "")
@example("C:/src/app.c", 7, "", "")
@example("my dir/app.py", 3, " ", "")
def test_file_and_line(file: str, line: int, before: str, after: str) -> None:
    assert BreakLoc.parse(f"{before}{file}:{line}{after}") == BreakLoc(file=file, line=line)


@given(lines)
def test_bare_line(line: int) -> None:
    assert BreakLoc.parse(str(line)) == BreakLoc(line=line)


@given(dotted)
@example("main")
@example("Cart.total")
def test_function(name: str) -> None:
    assert BreakLoc.parse(name) == BreakLoc(function=name)


@given(dotted, dotted)
@example("json.decoder", "JSONDecoder.decode")
@example("libc.so.6", "malloc")
def test_module_and_function(module: str, function: str) -> None:
    assert BreakLoc.parse(f"{module}!{function}") == BreakLoc(module=module, function=function)


@given(st.lists(identifiers, min_size=2, max_size=5).map("::".join))
@example("ns::f")
@example("std::vector<int>::push_back")
@example("Foo::~Foo")
def test_cpp_qualified_function(name: str) -> None:
    assert BreakLoc.parse(name) == BreakLoc(function=name)


@pytest.mark.parametrize("spec", [
    "", " ", "\t",
    "f.py:abc", "f.py:", ":12", " :12", "f.py:0", "0", "f.py:-3", "f.py:1.5", "f.py: 12x",
    "!f", "mod!", "a!b!c",
    "ns::", "::f", "ns:::f", "a b",
    "f.py:12\nquit", "main\n", "f.py:1\r", "mod!f\nstep", "x\0y",
    "f.py:²", "f.py:¹²", "f.py:٣",
])
def test_malformed_locations_are_usage_errors(spec: str) -> None:
    with pytest.raises(UsageError) as info:
        BreakLoc.parse(spec)
    assert info.value.exit_code == 2
    assert info.value.hint  # says which forms are accepted
    assert "\n" not in info.value.message.replace(repr(spec), "")


@given(st.text(), st.sampled_from(["\n", "\r", "\0", "\r\n"]), st.text())
def test_no_line_break_ever_gets_through(head: str, brk: str, tail: str) -> None:
    # A location travels to PTY debuggers as one line of a command; a line
    # break would let a second command through.
    with pytest.raises(UsageError):
        BreakLoc.parse(head + brk + tail)


@given(st.text(max_size=40))
@example("²")
@example("f.py:²")
@example("٣")
def test_any_text_parses_or_is_a_usage_error_and_key_round_trips(text: str) -> None:
    try:
        loc = BreakLoc.parse(text)
    except UsageError:
        return
    assert loc.line is None or loc.line >= 1
    assert BreakLoc.parse(loc.key()) == loc
    assert str(loc) == text.strip()  # shown back as typed
    assert BreakLoc.from_wire(loc.to_wire()) == loc


@given(st.one_of(
    st.builds(BreakLoc, file=files, line=lines),
    st.builds(BreakLoc, line=lines),
    st.builds(BreakLoc, function=dotted),
    st.builds(BreakLoc, module=dotted, function=dotted),
))
def test_key_round_trips_through_parse(loc: BreakLoc) -> None:
    assert BreakLoc.parse(loc.key()) == loc
