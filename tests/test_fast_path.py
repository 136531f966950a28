"""The fast path (dbgcore.entry, answered by the daemon) must answer exactly
like the full click CLI."""

from __future__ import annotations

from typing import Any

import pytest

from dbgcore.entry import _globals
from dbgcore.ops import Op, builtin_table


def fast_parse(argv: list[str]) -> tuple[str, bool, float, Op, dict[str, Any]] | None:
    """How a fast-path command line is read: the global options by the
    client, the rest by the daemon's op table; None when click reads it."""
    found = _globals(argv)
    if found is None or found[3] >= len(argv):
        return None
    read = builtin_table().read_words(argv[found[3]:])
    return None if read is None else (*found[:3], *read)


@pytest.mark.parametrize("argv, expected", [
    (["next"], ("default", False, 30.0, "next", {})),
    (["-s", "x", "--json", "n"], ("x", True, 30.0, "next", {})),
    (["--timeout", "2.5", "print", "a", "+", "b"],
     ("default", False, 2.5, "print", {"expression": "a + b"})),
    (["raw", "p", "1"], ("default", False, 30.0, "raw", {"text": "p 1"})),
])
def test_simple_command_lines_take_the_fast_path(argv: list[str], expected: tuple) -> None:
    parsed = fast_parse(argv)
    assert parsed is not None
    session, as_json, timeout, op, values = parsed
    assert (session, as_json, timeout, op.name, values) == expected


@pytest.mark.parametrize("argv", [
    [], ["--help"], ["next", "--help"], ["print"], ["print", "-x"], ["break", "f.py:1"],
    ["--timeout", "abc", "next"], ["--timeout", "0", "next"], ["next", "extra"],
    ["--bogus", "next"], ["-s"],
])
def test_anything_else_goes_to_click(argv: list[str]) -> None:
    assert fast_parse(argv) is None


@pytest.mark.usefixtures("pdb_ready")
def test_fast_and_full_paths_give_the_same_answers(dbg, target) -> None:
    cart = target("cart.py")
    started = dbg.json("start", "--backend", "pdb", "--break", cart.loc("loop"), "--run",
                       str(cart.path))
    assert started["ok"], started
    slow = {"DBG_NO_FAST_PATH": "1"}
    for args in (["locals"], ["print", "item['name']"], ["stack"], ["breaks"], ["status"]):
        fast_answer = dbg.json(*args)
        full_answer = dbg.json(*args, env=slow)
        assert fast_answer == full_answer, args
    for args in (["locals"], ["print", "cost"]):
        assert dbg(*args).out == dbg(*args, env=slow).out
    for args in (["print", "no_such_name"], ["up", "99"], ["frobnicate"], ["print"]):
        fast, full = dbg(*args), dbg(*args, env=slow)
        assert (fast.code, fast.out, fast.err) == (full.code, full.out, full.err), args
        assert dbg.json(*args) == dbg.json(*args, env=slow), args
    bad = dbg("-s", "bad name!", "next")
    assert bad.code == 2 and "bad session name" in bad.err
    assert dbg("-s", "bad name!", "next", env=slow).err == bad.err
