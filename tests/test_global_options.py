"""The global options where users put them (issue 41): ``-s/--session``,
``--json`` and ``--timeout`` after the op as before it, on the fast path
(dbgcore.entry, answered by the daemon) and the click CLI alike; an op's
own words (a program's arguments, a test runner's options) stay its own."""

from __future__ import annotations

import pytest

from dbgcore.ops.table import builtin_table


@pytest.mark.parametrize("words, lifted, kept", [
    (["continue", "--timeout", "5"], ["--timeout", "5"], ["continue"]),
    (["print", "--json", "x", "+", "1"], ["--json"], ["print", "x", "+", "1"]),
    (["print", "x", "-s", "two"], ["-s", "two"], ["print", "x"]),
    (["up", "--session=two", "2", "--timeout=3"], ["--session=two", "--timeout=3"], ["up", "2"]),
    (["start", "--timeout", "2", "prog.py"], ["--timeout", "2"], ["start", "prog.py"]),
    # A program's words are its own, and so is an option's value.
    (["start", "prog.py", "--timeout", "3", "--json"], [],
     ["start", "prog.py", "--timeout", "3", "--json"]),
    (["start", "-b", "pdb", "--json", "--cwd", "--json", "p.py", "-s", "x"], ["--json"],
     ["start", "-b", "pdb", "--cwd", "--json", "p.py", "-s", "x"]),
    (["print", "x", "--", "--json"], [], ["print", "x", "--", "--json"]),
    (["locals", "--reveal"], ["--reveal"], ["locals"]),
    (["start", "prog.py", "--reveal"], [], ["start", "prog.py", "--reveal"]),
    # The passed-on words come first: a runner's -s and --timeout are its own.
    (["test", "-s", "--timeout", "5", "tests/"], [], ["test", "-s", "--timeout", "5", "tests/"]),
    (["raw", "image", "lookup", "-s", "main"], [], ["raw", "image", "lookup", "-s", "main"]),
    (["frobnicate", "--json"], [], ["frobnicate", "--json"]),
    (["continue", "--timeout"], [], ["continue", "--timeout"]),
])
def test_the_op_table_tells_the_global_options_from_the_ops_words(
        words: list[str], lifted: list[str], kept: list[str]) -> None:
    assert builtin_table().lift_globals(words) == (lifted, kept)


def test_the_click_cli_reads_them_before_the_op() -> None:
    from dbgcore.frontends.cli.app import lift_globals

    assert lift_globals(["-s", "a", "continue", "--timeout", "5"]) == \
        ["-s", "a", "--timeout", "5", "continue"]
    assert lift_globals(["--timeout", "abc", "next", "--json"]) == \
        ["--timeout", "abc", "next", "--json"]  # click says what is wrong with the first


def _imported(err: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in err.splitlines()
            if line.startswith("import time:") and "|" in line}


ARGV_PROGRAM = "import sys\nprint('argv:', sys.argv[1:])\n"


@pytest.mark.usefixtures("pdb_ready")
def test_global_options_after_the_op_on_a_real_session(short_dbg, target, tmp_path) -> None:
    """On pdb: each form answers as the same options before the op do, on
    the fast path (click never imported) and the full CLI alike."""
    dbg = short_dbg
    cart = target("cart.py")
    slow = {"DBG_NO_FAST_PATH": "1"}
    timed = {"PYTHONPROFILEIMPORTTIME": "1"}
    started = dbg("start", "--backend", "pdb", "--timeout", "20", "--json", "--break",
                  cart.loc("loop"), "--run", str(cart.path), env=timed)
    assert started.code == 0 and '"reason": "breakpoint"' in started.out, started
    assert "dbgcore.frontends.cli.app" not in _imported(started.err), started.err
    before = dbg("--json", "print", "cost")
    for env in ({}, slow):
        after = dbg("print", "--json", "cost", env=env)
        assert (after.code, after.out) == (before.code, before.out), (env, after)
    fast = dbg("print", "--json", "cost", env=timed)
    assert "dbgcore.frontends.cli.app" not in _imported(fast.err), fast.err
    for env in ({}, slow):
        moved = dbg("continue", "--timeout", "5", "--json", env=env)
        assert moved.code == 0 and '"reason": "breakpoint"' in moved.out, (env, moved)
        late = dbg("continue", "--timeout", "0")
        assert late.code == 2 and "--timeout must be more than 0" in late.err, late
    # Another session named after the op: started, then reached, both ways.
    two = dbg("start", "-s", "two", "--backend", "pdb", "--break", cart.loc("discount"),
              "--run", str(cart.path))
    assert two.code == 0 and "discount" in two.out, two
    dbg.sessions.add("two")
    for env in ({}, slow):
        there = dbg.json("print", "-s", "two", "percent", env=env)
        assert there["ok"] and there["value"] == "10", (env, there)
    fast = dbg("print", "percent", "--session=two", env=timed)
    assert fast.code == 0 and "10" in fast.out, fast
    assert "dbgcore.frontends.cli.app" not in _imported(fast.err), fast.err
    # A program's own options stay its own.
    program = tmp_path / "argv.py"
    program.write_text(ARGV_PROGRAM)
    for name, env in (("three", {}), ("four", slow)):
        dbg.sessions.add(name)
        ran = dbg("-s", name, "start", "--backend", "pdb", "--run", str(program),
                  "--timeout", "3", "--json", "-s", "x", env=env)
        assert ran.code == 0 and not ran.out.startswith("{"), (name, ran)
        assert "argv: ['--timeout', '3', '--json', '-s', 'x']" in dbg.output(session=name)
