"""A debugpy program's interpreter started ahead of its launch
(adapterboot/dbg_warm_launcher.py, pyboot/dbg_warm_debuggee.py): the next
run of the same command line, in the same folder and environment, is that
interpreter, and nothing the program sees or dbg answers tells it apart
from a program started at its launch but its own command line; anything
that differs, or changed since it started, gets a program started as ever.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest
from test_debugpy import processes_of
from test_successor import live_of, wait_for

from dbgcore.testing import Dbg, marked_lines

PROGRAM = textwrap.dedent('''\
    import os
    import sys

    with open("/proc/self/cmdline", "rb") as cmdline:
        print("ahead", b"\\0--connect\\0-\\0" in cmdline.read())
    print("argv", sys.argv[1:])
    print("orig", getattr(sys, "orig_argv", ["?", "?"])[-2:])
    print("read", sys.stdin.readline().strip())
    print("folder", os.getcwd() == os.path.dirname(os.path.abspath(__file__)))
    total = 0
    for i in range(3):
        total += i  # @loop
    print("total", total)
    sys.exit(3)
''')


#: In the command line of an interpreter started ahead: the placeholder of
#: the adapter's address, which each launch has its own of.
AHEAD = b"\0--connect\0-\0"


#: Seconds for a session's spare to start an interpreter ahead, once its
#: program has ended (a quarter of a second, then its daemon's imports, the
#: adapter, its launcher and 0.2 s more; longer on a busy machine).
WARM_WAIT = 20.0


def warm_debuggees(home: Path) -> set[int]:
    """Live interpreters started ahead of a launch of this test's DBG_HOME."""
    return live_of(home, lambda entry: AHEAD in (entry / "cmdline").read_bytes())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "site").mkdir(parents=True)
    (folder / "prog.py").write_text(PROGRAM)
    (folder / "in.txt").write_text("a line of input\n")
    # A sitecustomize of the program's own, which prints as it starts: run
    # ahead of the launch, its output must still come first, and once.
    (folder / "site" / "sitecustomize.py").write_text(
        'import sys\nprint("site says hi")\nprint("site warns", file=sys.stderr)\n')
    return folder


def run(dbg: Dbg, project: Path, *args: str, env: dict[str, str] | None = None,
        options: tuple[str, ...] = (), session: str = "default") -> dict[str, str]:
    """One run to its end, stopping once on the way; what it printed, and
    what the stop and the end said. ``options``: more of the start's."""
    line = marked_lines(project / "prog.py")["loop"]
    start = dbg.json("-s", session, "start", "--backend", "debugpy", "--stdin", "in.txt",
                     "--env", f"PYTHONPATH={project / 'site'}", *options,
                     "--break", f"prog.py:{line}", "--run", "prog.py", *args, cwd=project,
                     env=env)
    assert start["state"] == "stopped" and start["location"]["line"] == line, start
    locals_ = dbg.json("-s", session, "locals", env=env)
    end = dbg.json("-s", session, "continue", env=env)
    assert end["state"] == "stopped", end  # the loop's second pass
    while end["state"] == "stopped":
        end = dbg.json("-s", session, "continue", env=env)
    assert end["state"] == "exited", end
    return {"exit": str(end["exit_code"]), "stdout": dbg.output("stdout", session=session),
            "stderr": dbg.output("stderr", session=session),
            "locals": repr(sorted((v["name"], v["value"]) for v in locals_["variables"]))}


def test_a_rerun_is_the_program_started_ahead_and_nothing_tells(
        short_dbg: Dbg, project: Path, backend_ready) -> None:
    """Once a run has ended, the session's spare starts the next program's
    interpreter; the rerun is that interpreter (its command line says so),
    with the same arguments, stdin, folder, output (its sitecustomize's
    first, once), stop, locals and exit code as a program started at its
    launch. Killed, the session leaves no process behind."""
    backend_ready("debugpy")
    dbg = short_dbg
    first = run(dbg, project, "one", "two")
    assert "ahead False" in first["stdout"]
    # How it was started is kept for the next launcher, in a file of the user's alone.
    assert (dbg.home / "debuggee.json").stat().st_mode & 0o777 == 0o600
    assert wait_for(lambda: warm_debuggees(dbg.home), WARM_WAIT), "none started ahead"
    again = run(dbg, project, "one", "two")
    assert "ahead True" in again["stdout"], again
    assert again == {**first, "stdout": first["stdout"].replace("ahead False", "ahead True")}
    assert again["exit"] == "3"
    lines = again["stdout"].splitlines()
    assert lines[0] == "site says hi" and lines.count("site says hi") == 1, lines
    assert "argv ['one', 'two']" in lines and "orig ['one', 'two']" in lines, lines
    assert "read a line of input" in lines and "folder True" in lines, lines
    assert again["stderr"].count("site warns") == 1, again["stderr"]
    assert dbg.json("kill")["ok"]
    assert wait_for(lambda: not processes_of(dbg.home)), processes_of(dbg.home)


def test_a_new_session_of_the_same_home_takes_one_started_ahead_at_once(
        short_dbg: Dbg, project: Path, backend_ready) -> None:
    """A new session's early adapter (no spare: the last session was
    killed) starts the program its DBG_HOME's last launch started as its
    launcher starts, and the launch takes it: the same run, and the end
    mark (a normal end, not a death by signal) is the new session's own."""
    backend_ready("debugpy")
    dbg = short_dbg
    first = run(dbg, project, "one", session="first")
    assert "ahead False" in first["stdout"]
    assert dbg.json("-s", "first", "kill")["ok"]
    assert wait_for(lambda: not processes_of(dbg.home)), processes_of(dbg.home)
    again = run(dbg, project, "one", session="second")
    assert "ahead True" in again["stdout"], again
    assert again == {**first, "stdout": first["stdout"].replace("ahead False", "ahead True")}
    assert list((dbg.home / "sessions" / "second").glob("ended-*")), "no end mark of its own"


def test_what_it_started_with_changed_since_gets_a_program_started_as_ever(
        short_dbg: Dbg, project: Path, backend_ready) -> None:
    """The interpreter started ahead ran the program's sitecustomize and
    read its path: an edit of that file, or a file added to a folder on the
    path, after it started makes it stale, and the run is a new program's,
    with the new file's output alone."""
    backend_ready("debugpy")
    dbg = short_dbg
    run(dbg, project)
    for change in range(2):
        assert wait_for(lambda: warm_debuggees(dbg.home), WARM_WAIT), "none started ahead"
        if change == 0:
            (project / "site" / "sitecustomize.py").write_text('print("site says bye")\n')
            said = "site says bye"
        else:
            (project / "site" / "added.py").write_text("")
        result = run(dbg, project)
        assert "ahead False" in result["stdout"], result
        assert result["stdout"].startswith(f"{said}\n") and "site says hi" not in result["stdout"]
        assert result["exit"] == "3"


def test_another_command_line_or_environment_is_started_as_ever(
        short_dbg: Dbg, project: Path, backend_ready) -> None:
    """Other arguments, or another environment, than the run the interpreter
    was started for: the program starts as ever, and that interpreter ends
    unused."""
    backend_ready("debugpy")
    dbg = short_dbg
    run(dbg, project, "one")
    for options in ((), ("--env", "DBG_TEST_OTHER=1")):
        assert wait_for(lambda: warm_debuggees(dbg.home), WARM_WAIT), "none started ahead"
        unused = warm_debuggees(dbg.home)
        result = run(dbg, project, "two", options=options)
        assert "ahead False" in result["stdout"] and "argv ['two']" in result["stdout"], result
        assert wait_for(lambda unused=unused: not warm_debuggees(dbg.home) & unused)
    assert dbg.json("kill")["ok"]


def test_none_is_started_ahead_when_turned_off(short_dbg: Dbg, project: Path,
                                               backend_ready) -> None:
    backend_ready("debugpy")
    dbg = short_dbg
    off = {"DBG_NO_WARM_DEBUGGEE": "1"}
    for _ in range(2):
        assert "ahead False" in run(dbg, project, env=off)["stdout"]
        time.sleep(1.0)
        assert not warm_debuggees(dbg.home)
    assert not (dbg.home / "debuggee.json").exists()
