"""Answers that say what happened: an end after a failure shows the last
lines of the program's stderr, `--show` takes several `;`-separated
expressions as `print` does, and `dbg start` on a session whose program has
ended replaces it (and says so) instead of refusing the name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dbgcore.testing import Dbg

PROGRAM = '''import sys

def total(items):
    result = sum(items)
    return result  # @return

if "--bad" in sys.argv:
    sys.stderr.write("usage: prog.py [--count N]\\n")
    sys.stderr.write("prog.py: error: unrecognized arguments: --bad\\n")
    sys.exit(4)
print(total([1, 2, 3]))
'''


@pytest.fixture(params=["debugpy", "pdb"])
def python(request: pytest.FixtureRequest, backend_ready: Callable[[str], None]) -> str:
    backend_ready(request.param)
    return str(request.param)


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    path = tmp_path / "src" / "prog.py"
    path.parent.mkdir()
    path.write_text(PROGRAM)
    return path


def test_an_end_after_a_failure_shows_the_last_lines_of_stderr(
        dbg: Dbg, python: str, prog: Path) -> None:
    data = dbg.json("start", "--backend", python, "--run", str(prog), "--bad")
    assert (data["state"], data["exit_code"]) == ("exited", 4), data
    assert data["stderr_tail"] == ["usage: prog.py [--count N]",
                                   "prog.py: error: unrecognized arguments: --bad"], data
    assert dbg.json("restart")["state"] == "stopped"  # at entry
    text = dbg("continue").out
    assert "exited with code 4" in text and "unrecognized arguments: --bad" in text, text
    # A run that ends well says nothing of its stderr.
    dbg("kill")
    ok = dbg.json("start", "--backend", python, "--run", str(prog))
    assert ok["exit_code"] == 0 and "stderr_tail" not in ok, ok


def test_a_test_runner_that_refuses_its_options_says_why(
        dbg: Dbg, python: str, tmp_path: Path) -> None:
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n")
    data = dbg.json("start", "--backend", python, "--cwd", str(tmp_path), "-m", "pytest",
                    "--no-such-option", "test_one.py")
    if data["state"] == "stopped":  # pdb stops at entry first
        data = dbg.json("continue")
    assert (data["state"], data["exit_code"]) == ("exited", 4), data
    assert any("--no-such-option" in line for line in data["stderr_tail"]), data


def test_show_takes_several_expressions(dbg: Dbg, python: str, prog: Path) -> None:
    line = next(n for n, text in enumerate(prog.read_text().splitlines(), 1) if "@return" in text)
    data = dbg.json("start", "--backend", python, "--break", f"prog.py:{line}", "--run",
                    "--show", "result; len(items) * 10; nope", str(prog))
    assert data["state"] == "stopped", data
    shown = {row["expression"]: row for row in data["shown"]}
    assert shown["result"]["value"] == "6" and shown["len(items) * 10"]["value"] == "30", shown
    assert "error" in shown["nope"], shown
    again = dbg.json("print", "result; len(items) * 10")
    assert [v["value"] for v in again["values"]] == ["6", "30"], again


def test_start_replaces_a_session_whose_program_ended(dbg: Dbg, python: str,
                                                      prog: Path) -> None:
    assert dbg.json("start", "--backend", python, "--run", str(prog))["state"] == "exited"
    again = dbg.json("start", "--backend", python, str(prog))
    assert again["ok"] and again["state"] == "stopped", again
    assert "replaced session 'default', whose program had exited with code 0" in again["note"]
    # One that still runs is not replaced.
    busy = dbg.json("start", "--backend", python, str(prog))
    assert (busy["_exit"], busy["error"]["kind"]) == (1, "session_exists"), busy
    assert dbg.json("status")["state"] == "stopped"


def test_a_relative_python_is_found_from_where_the_command_runs(
        dbg: Dbg, python: str, prog: Path) -> None:
    import shutil

    here = dbg.cwd / "tools" / "bin"
    here.mkdir(parents=True)
    (here / "python").symlink_to(shutil.which("python3") or "/usr/bin/python3")
    # --cwd is the program's folder: the interpreter is still ./tools/bin/python from here.
    data = dbg.json("start", "--backend", python, "--cwd", str(prog.parent),
                    "--python", "tools/bin/python", "--run", str(prog))
    assert data["ok"] and data["exit_code"] == 0, data
