"""The fast path (dbgcore.entry, answered by the daemon) must answer exactly
like the full click CLI."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from dbgcore.entry import _globals
from dbgcore.ops.table import Op, builtin_table
from dbgcore.shared import procutil


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


def click_start_values(words: list[str], name: str = "start") -> dict[str, Any]:
    """What the click CLI's command ``name`` hands call_op for ``words``."""
    from dbgcore.frontends.cli.app import cli
    from dbgcore.frontends.cli.build import _values

    command = cli.commands[name]
    with command.make_context(name, list(words)) as ctx:
        op = builtin_table().find(name)
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


@pytest.mark.parametrize("words", [
    [], ["tests/test_a.py", "-k", "total"], ["--break", "a.py:3", "--", "-x", "tests/"],
    ["-k", "total", "tests/"], ["-x", "--backend", "pdb", "t.py"], ["--maxfail=2", "-q"],
    ["-kq", "name"], ["-k", "x", "--", "-y"], ["--runner", "unittest", "-v"],
    ["-b", "pdb", "--python", "py3", "--", "-q", "-p", "no:cacheprovider"],
    ["t.py", "--backend", "pdb"], ["-", "x"],
])
def test_a_new_sessions_test_is_read_as_click_reads_it(words: list[str]) -> None:
    """`dbg test` too: pytest's own options before the files are passed on
    as click passes them (ignore_unknown_options), the rest as for start."""
    read = builtin_table().read_start_words(["test", *words])
    assert read is not None, words
    assert read[1] == click_start_values(words, "test")


@pytest.mark.parametrize("words", [
    ["--backend", "pdb", "--pid", "42"], ["-b", "gdb", "--port=5678", "--host", "h"],
    ["--backend", "lldb", "--pid", "007", "--program", "a.out", "--break", "m.c:3"],
])
def test_a_new_sessions_attach_is_read_as_click_reads_it(words: list[str]) -> None:
    read = builtin_table().read_start_words(["attach", *words])
    assert read is not None, words
    assert read[1] == click_start_values(words, "attach")


@pytest.mark.parametrize("name, words", [
    ("test", ["--help"]), ("test", ["-hk", "x"]), ("test", ["-kb", "pdb"]),
    ("test", ["--help=1"]), ("test", ["--runner"]), ("test", ["--idle-timeout", "3"]),
    ("test", ["-b", "pdb", "-b", "debugpy"]), ("attach", ["--pid", "3"]),
    ("attach", ["--backend", "pdb", "--pid", "0"]), ("attach", ["-b", "pdb", "--pid", "x"]),
    ("attach", ["-b", "pdb", "--port", "70000"]), ("attach", ["-b", "pdb", "--pid", "+3"]),
    ("attach", ["-b", "pdb", "--bogus"]), ("attach", ["-b", "pdb", "x"]),
])
def test_a_test_or_attach_click_must_explain_goes_to_click(name: str, words: list[str]) -> None:
    assert builtin_table().read_start_words([name, *words]) is None


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


@pytest.mark.usefixtures("pdb_ready")
def test_a_new_sessions_test_and_attach_answer_as_the_full_cli(dbg, target) -> None:
    """`dbg test` and `dbg attach` fork their daemon first too: a refusal
    answers as the click CLI does and leaves no session; a test run that
    works starts the session."""
    cart = target("cart.py")
    folder = str(cart.path.parent)
    slow = {"DBG_NO_FAST_PATH": "1"}
    for args in (["test", "--runner", "nosuch"], ["test", "--cwd", "nosuch"],
                 ["test", "--backend", "nosuch", "--", "-q"], ["test", "--idle-timeout", "x"],
                 ["attach", "--backend", "nosuch", "--pid", "1"], ["attach", "--pid", "1"],
                 ["attach", "--backend", "pdb", "--pid", "1", "--port", "2"]):
        fast, full = dbg(*args), dbg(*args, env=slow)
        assert fast.code != 0 and (fast.code, fast.out, fast.err) == (full.code, full.out,
                                                                      full.err), args
        assert dbg.json("sessions")["sessions"] == [], args
    assert "Usage:" in dbg("test", "--help").out
    ran = dbg.json("test", "--backend", "pdb", "--runner", "unittest", "--cwd", folder,
                   "--", "-q")
    assert ran["ok"] and ran["state"] == "exited", ran


@pytest.mark.usefixtures("pdb_ready")
def test_a_session_whose_program_ended_is_replaced_on_the_fast_path(short_dbg, target) -> None:
    """A start on the name of a session whose program has ended forks its
    daemon first too: one refused leaves the ended session as it was (as
    the click CLI does), one that works replaces it and says so, word for
    word as the click CLI does."""
    dbg = short_dbg
    cart = target("cart.py")
    slow = {"DBG_NO_FAST_PATH": "1"}
    assert dbg.json("start", "--backend", "pdb", "--run", str(cart.path))["state"] == "exited"
    for args in (["start", "nosuch.py"], ["test", "--runner", "nosuch"],
                 ["start", "--backend", "nosuch", str(cart.path)]):
        fast, full = dbg(*args), dbg(*args, env=slow)
        assert fast.code != 0 and (fast.code, fast.out, fast.err) == (full.code, full.out,
                                                                      full.err), args
        assert dbg.json("status")["state"] == "exited", args
    # The last one is for click (a float): the daemon forked for it ends,
    # and click replaces the ended session.
    for env, extra in (({}, []), (slow, []), ({}, ["--idle-timeout", "60"])):
        again = dbg.json("start", *extra, "--backend", "pdb", "--run", str(cart.path), env=env)
        assert again["state"] == "exited", again
        assert again["note"] == "replaced session 'default', whose program had exited " \
                                "with code 0", again
    # One whose program has not ended is not replaced, on either path.
    assert dbg.json("start", "--backend", "pdb", str(cart.path))["state"] == "stopped"
    busy, busy_full = dbg("start", str(cart.path)), dbg("start", str(cart.path), env=slow)
    assert busy.code != 0 and "already exists" in busy.err and busy.err == busy_full.err
    assert dbg.json("status")["state"] == "stopped"
    folder = dbg.home / "sessions" / "default"
    assert [p.name for p in folder.glob("*.sock")] == ["daemon.sock"]
    # The fast path was taken: daemons listened beside the ended session.
    log = (folder / "daemon.log").read_text()
    assert sum(" listening on " in line and "daemon.sock" not in line
               for line in log.splitlines()) >= 4, log


def test_a_replaced_session_ends_beside_the_new_start_and_leaves_the_name_to_it(
        short_dbg, target, backend_ready) -> None:
    """The new start waits only until the ended session gave up its name
    (status file and socket), not for its debugger's end: the old daemon
    then ends on its own, and nothing it does on the way out touches the new
    session's status or socket."""
    backend_ready("debugpy")
    dbg = short_dbg
    cart = target("cart.py")
    folder = dbg.home / "sessions" / "default"
    for _ in range(3):
        assert dbg.json("start", "--backend", "debugpy", "--run",
                        str(cart.path))["state"] == "exited"
        old = json.loads((folder / "status.json").read_text())["pid"]
        again = dbg.json("start", "--backend", "debugpy", "--break", cart.loc("loop"),
                         "--run", str(cart.path))
        assert again["state"] == "stopped" and again["note"].startswith(
            "replaced session 'default'"), again
        deadline = time.monotonic() + 10
        while procutil.alive(old) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not procutil.alive(old), "the replaced session's daemon did not end"
        status = json.loads((folder / "status.json").read_text())
        assert status["pid"] != old and procutil.alive(status["pid"]), status
        assert [p.name for p in folder.glob("*.sock")] == ["daemon.sock"]
        assert dbg.json("locals")["ok"]
        assert dbg.json("kill")["ok"]


#: Modules a fast-path client must not import (each costs a call or a
#: start milliseconds, and before a new session's fork they delay the
#: daemon's early spawn of the debugger).
_HEAVY = ("typing", "pathlib", "json", "logging", "re", "subprocess", "dbgcore.shared.errors",
          "dbgcore.shared.paths", "dbgcore.start.spawn", "dbgcore.start.prespawn",
          "dbgcore.frontends.cli.app")


def _imported(err: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in err.splitlines()
            if line.startswith("import time:") and "|" in line}


@pytest.mark.usefixtures("pdb_ready")
def test_the_client_imports_nothing_heavy_for_a_start_or_a_call(short_dbg, target) -> None:
    """A new session's `start` forks its daemon with nothing but os and sys
    imported (dbgcore.start.daemonfork), and a call on it imports no more: what
    the client imports is read from its own -X importtime (its daemon's
    goes to daemon.log), and the answers are whole (the client ends with
    os._exit once it has flushed them)."""
    dbg = short_dbg
    cart = target("cart.py")
    timed = {"PYTHONPROFILEIMPORTTIME": "1"}
    started = dbg("--json", "start", "--backend", "pdb", "--break", cart.loc("loop"), "--run",
                  str(cart.path), env=timed)
    assert started.code == 0 and '"reason": "breakpoint"' in started.out, started
    loaded = _imported(started.err)
    assert "dbgcore.start.daemonfork" in loaded and not loaded & set(_HEAVY), loaded
    call = dbg("print", "1 + 1", env=timed)
    assert call.code == 0 and call.out.endswith("\n2 (int)\n"), call
    loaded = _imported(call.err)
    assert "dbgcore.entry" in loaded and not loaded & set(_HEAVY), loaded
    refused = dbg("print", "nosuch_name", env=timed)
    assert refused.code != 0 and "nosuch_name" in refused.err + refused.out, refused
    assert "Traceback" not in refused.err + refused.out, refused
    # A start that replaces the session once its program has ended: the
    # daemon's answer to the start's words says so, and nothing is asked
    # (or imported to ask) again.
    while dbg.json("continue")["state"] != "exited":
        pass
    again = dbg("--json", "start", "--backend", "pdb", "--break", cart.loc("loop"), "--run",
                str(cart.path), env=timed)
    assert again.code == 0 and '"replaced session' in again.out, again
    loaded = _imported(again.err)
    assert "dbgcore.entry" in loaded and not loaded & set(_HEAVY), loaded


@pytest.mark.usefixtures("pdb_ready")
def test_a_bare_kill_answers_as_the_full_cli_without_building_it(short_dbg, target) -> None:
    """`dbg kill` ends every session: the client answers it without the
    click CLI and the plugins it loads, in the same words and exit codes,
    live or not, text or JSON."""
    dbg = short_dbg
    cart = target("cart.py")
    slow = {"DBG_NO_FAST_PATH": "1"}
    timed = {"PYTHONPROFILEIMPORTTIME": "1"}
    for json_flag in ([], ["--json"]):
        answers = []
        for env in (timed, slow):
            assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]
            killed = dbg(*json_flag, "kill", env=env)
            again = dbg(*json_flag, "kill", env=env)
            answers.append([(r.code, r.out, r.err if env is slow else _plain(r.err))
                            for r in (killed, again)])
            if env is timed:
                loaded = _imported(killed.err)
                assert "dbgcore.entry" in loaded and not loaded & {
                    "click", "pluggy", "dbgcore.frontends.cli.app"}, loaded
        assert answers[0] == answers[1], answers
        assert answers[0][0][0] == 0 and answers[0][1][0] == 1, answers
    assert dbg.json("sessions")["sessions"] == []


def _plain(err: str) -> str:
    """stderr without -X importtime's lines."""
    return "".join(line + "\n" for line in err.splitlines() if not line.startswith("import time:"))
