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


def click_start_values(words: list[str]) -> dict[str, Any]:
    """What the click CLI's `start` command hands call_op for ``words``."""
    from dbgcore.cli.app import cli
    from dbgcore.cli.build import _values

    command = cli.commands["start"]
    with command.make_context("start", list(words)) as ctx:
        op = builtin_table().find("start")
        assert op is not None
        return _values(op, ctx.params)


@pytest.mark.parametrize("words", [
    ["prog.py"],
    ["--break", "a.py:3", "--run", "--backend", "pdb", "prog/x.py", "-v", "--run"],
    ["-b", "debugpy", "--break=a.py:1", "--break", "b.py:2", "--no-catch", "x.py", "1", "2"],
    ["-m", "pytest", "-q", "-x"],
    ["--env", "A=1", "--env=B=2", "--cwd", "sub", "--stdin", "in.txt", "--show", "x", "p"],
    ["-cp", "classes", "Main"],
    ["--", "-odd.py", "a"],
    ["--core", "core.1", "prog"],
])
def test_a_new_sessions_start_is_read_as_click_reads_it(words: list[str]) -> None:
    """The first client of a session hands `start` to the daemon it forked,
    which reads the words itself (dbgcore.entry): the values must be click's."""
    read = builtin_table().read_start_words(["start", *words])
    assert read is not None, words
    assert read[1] == click_start_values(words)


@pytest.mark.parametrize("words", [
    ["--help"], [], ["--run"], ["--idle-timeout", "5", "x.py"], ["--bogus", "x.py"],
    ["--run", "--run", "x.py"], ["--backend"], ["-bpdb", "x.py"], ["--run=1", "x.py"],
])
def test_a_start_click_must_explain_goes_to_click(words: list[str]) -> None:
    assert builtin_table().read_start_words(["start", *words]) is None


@pytest.mark.usefixtures("pdb_ready")
def test_a_new_sessions_start_answers_as_the_full_cli(dbg, target) -> None:
    """`dbg start` forks its daemon first and hands it the command line: a
    start refused by the daemon answers as the click CLI does and leaves no
    session behind; one click must explain still reaches click; one that
    works starts the session."""
    cart = target("cart.py")
    slow = {"DBG_NO_FAST_PATH": "1"}
    for args in (["--break", "nosuch.py:3", "--run", str(cart.path)],
                 ["--backend", "nosuch", str(cart.path)],
                 ["--bogus", str(cart.path)], ["--idle-timeout", "-1", str(cart.path)]):
        fast, full = dbg("start", *args), dbg("start", *args, env=slow)
        assert fast.code != 0 and (fast.code, fast.out, fast.err) == (full.code, full.out,
                                                                      full.err), args
        assert dbg.json("sessions")["sessions"] == [], args
    assert "Usage:" in dbg("start", "--help").out
    started = dbg.json("start", "--backend", "pdb", "--break", cart.loc("loop"), "--run",
                       str(cart.path))
    assert started["ok"] and started["reason"] == "breakpoint", started
    again = dbg("start", str(cart.path))
    assert again.code != 0 and "already exists" in again.err
