"""A test run under debugpy runs untraced while nothing needs pydevd's
tracing (plugins/dbg_dap/pyboot/dbg_lazytrace.py), and stops all the same:
at a breakpoint set while the run goes on, in the code under test, at a
pause, at the next failing test, at an uncaught exception. A test of the
run prints whether it is traced, so the untraced run is seen, not assumed.
Each test runs on the Python running these tests and on a Python 3.12+ if
there is one (pyenv's): there pydevd uses sys.monitoring and is left as it
is, and the same stops must hold.

The speed itself is measured by bench/tests.py (tests/test_bench.py runs it
on a small size so that it cannot rot).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from dbgcore.testing import DBG, Dbg, marked_lines, require_backend

ROOT = Path(__file__).resolve().parent.parent
PYTEST = ["-q", "-s", "-p", "no:cacheprovider"]

CALC = '''\
def add(a, b):
    total = a + b  # @in-add
    return total
'''

TESTS = '''\
import os
import sys
import time

from calc import add

GO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go.flag")


def test_a_reports_tracing():
    print("TRACED" if sys.gettrace() is not None else "UNTRACED")


def test_b_waits_then_adds():
    while not os.path.exists(GO):
        time.sleep(0.02)  # @wait
    assert add(2, 3) == 5  # @call-add


def test_c_fails():
    assert add(1, 1) == 3  # @fail


def test_d_reports_tracing_again():
    print("TRACED-AGAIN" if sys.gettrace() is not None else "UNTRACED-AGAIN")
    assert add(0, 0) == 0  # @call-again
    try:
        int("x")  # @raise-caught
    except ValueError:
        pass
'''


class Interpreter:
    """The program's Python, and whether its run goes untraced (before 3.12;
    on 3.12+ pydevd uses sys.monitoring, which leaves sys.gettrace() None,
    and only the stops are checked)."""

    def __init__(self, path: str, version: tuple[int, int]) -> None:
        self.path = path
        self.lazy = version < (3, 12)


def _other_python() -> str | None:
    """A Python 3.12 or newer that is not the one running these tests."""
    mine = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for version in ("3.12", "3.13"):
        found = sorted((Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python"))
        if found and version != mine:
            return str(found[-1])
        on_path = shutil.which(f"python{version}")
        if on_path and version != mine:
            return on_path
    return None


@pytest.fixture(scope="module", params=["this", "3.12+"])
def python(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Interpreter:
    if request.param == "this":
        return Interpreter(sys.executable, sys.version_info[:2])
    found = _other_python()
    if found is None:
        pytest.skip("no Python 3.12+ here besides the one running the tests")
    # A virtual environment of that Python which reaches pytest through the
    # site-packages of the one running the tests (pytest is pure Python).
    venv = tmp_path_factory.mktemp("py312") / "venv"
    subprocess.run([found, "-m", "venv", "--without-pip", str(venv)], check=True,
                   capture_output=True, timeout=120)
    exe = venv / "bin" / "python"
    site = subprocess.run([str(exe), "-c", "import sysconfig; print(sysconfig.get_path("
                           "'purelib'))"], check=True, capture_output=True, text=True,
                          timeout=60).stdout.strip()
    (Path(site) / "_dbg_test_deps.pth").write_text(
        f"import site; site.addsitedir({sysconfig.get_path('purelib')!r})\n")
    version = subprocess.run([str(exe), "-c", "import sys; print(*sys.version_info[:2])"],
                             check=True, capture_output=True, text=True, timeout=60).stdout
    major, minor = (int(v) for v in version.split())
    return Interpreter(str(exe), (major, minor))


@pytest.fixture
def project(tmp_path: Path, python: Interpreter) -> Path:
    require_backend("debugpy")
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC)
    (root / "test_run.py").write_text(TESTS)
    return root


def start(dbg: Dbg, project: Path, python: Interpreter, *extra: str) -> subprocess.Popen[str]:
    """`dbg test` in the background: it answers at the first stop."""
    # Only pytest's own plugins: the 3.12 run reaches the test Python's
    # site-packages, whose other plugins are not for it.
    plugins = [] if python.path == sys.executable else ["-p", "no:hypothesispytest"]
    return subprocess.Popen(
        [*DBG, "--json", "test", "--backend", "debugpy", "--python", python.path,
         "--cwd", str(project), *extra, "--", *PYTEST, *plugins],
        cwd=dbg.cwd, env=dbg.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        stdin=subprocess.DEVNULL)


def waiting(dbg: Dbg, blocked: subprocess.Popen[str]) -> None:
    """Until the run is in test_b's loop (test_a has printed)."""
    deadline = time.monotonic() + 90
    while True:
        page = dbg.json("output")  # no session yet, at first
        if page["ok"] and "TRACED" in "".join(c["text"] for c in page["chunks"]):
            break
        if blocked.poll() is not None:
            raise AssertionError(f"dbg test ended: {blocked.communicate()}")
        if time.monotonic() > deadline:
            blocked.kill()
            raise AssertionError(f"no output from the run: {page}, {blocked.communicate()}")
        time.sleep(0.2)
    time.sleep(0.3)


def answer(blocked: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = blocked.communicate(timeout=90)
    import json

    try:
        data: dict[str, Any] = json.loads(out)
    except ValueError as exc:
        raise AssertionError(f"not JSON: {out!r} {err!r}") from exc
    return data


def at(snap: dict[str, Any], path: Path, line: int) -> bool:
    location = snap.get("location") or {}
    return bool(Path(str(location.get("file"))).resolve() == path.resolve() and
                location.get("line") == line)


def test_pause_then_a_breakpoint_in_the_code_under_test(dbg: Dbg, project: Path,
                                                        python: Interpreter) -> None:
    # dbg sets breakpoints on a stopped program: a pause first.
    lines = marked_lines(project / "calc.py")
    tests = marked_lines(project / "test_run.py")
    blocked = start(dbg, project, python)
    try:
        waiting(dbg, blocked)
        assert not python.lazy or "UNTRACED" in dbg.output(), dbg.output()
        assert dbg.json("pause", timeout=30)["state"] == "stopped"
        assert answer(blocked)["state"] == "stopped"
        placed = dbg.json("break", f"{project / 'calc.py'}:{lines['in-add']}")
        assert placed["ok"], placed
        (project / "go.flag").write_text("")
        snap = dbg.json("continue", timeout=60)
        # In the code under test, called from the test.
        assert snap["state"] == "stopped" and at(snap, project / "calc.py", lines["in-add"]), snap
        frames = [f["function"] for f in dbg.json("stack")["frames"]]
        assert frames[:2] == ["add", "test_b_waits_then_adds"], frames
        # Steps work from there.
        stepped = dbg.json("next")
        assert stepped["state"] == "stopped" and stepped["location"]["line"] == \
            lines["in-add"] + 1, stepped
        # The breakpoint (still set) stops again in the next test's add(),
        # then that test's failing line.
        snap = dbg.json("continue", timeout=60)
        assert at(snap, project / "calc.py", lines["in-add"]), snap
        snap = dbg.json("continue", timeout=60)
        assert snap["state"] == "stopped" and snap["reason"] == "exception", snap
        assert at(snap, project / "test_run.py", tests["fail"]), snap
        snap = dbg.json("continue", timeout=60)
        assert at(snap, project / "calc.py", lines["in-add"]), snap
        end = dbg.json("continue", timeout=60)
        assert (end["state"], end["exit_code"]) == ("exited", 1), end
        text = dbg.output()
        # With a breakpoint set, the run stays traced to its end.
        assert "1 failed, 3 passed" in text, text
        assert not python.lazy or ("TRACED-AGAIN" in text and "UNTRACED-AGAIN" not in text), \
            text
    finally:
        if blocked.poll() is None:
            blocked.kill()


def test_pause_stops_the_untraced_run(dbg: Dbg, project: Path, python: Interpreter) -> None:
    tests = marked_lines(project / "test_run.py")
    blocked = start(dbg, project, python)
    try:
        waiting(dbg, blocked)
        paused = dbg.json("pause", timeout=30)
        snap = answer(blocked)
        for stop in (paused, snap):
            assert stop["state"] == "stopped", stop
        frames = [f["function"] for f in dbg.json("stack")["frames"]]
        assert "test_b_waits_then_adds" in frames, frames
        assert dbg.json("print", "2 + 3")["value"] == "5"
        (project / "go.flag").write_text("")
        # Nothing set: the run goes on to the failing test's line.
        snap = dbg.json("continue", timeout=60)
        assert snap["reason"] == "exception" and at(snap, project / "test_run.py",
                                                    tests["fail"]), snap
        end = dbg.json("continue", timeout=60)
        assert (end["state"], end["exit_code"]) == ("exited", 1), end
    finally:
        if blocked.poll() is None:
            blocked.kill()


def test_failure_stop_leaves_the_run_untraced(dbg: Dbg, project: Path, python: Interpreter) -> None:
    (project / "go.flag").write_text("")
    tests = marked_lines(project / "test_run.py")
    snap = answer(start(dbg, project, python))
    assert snap["reason"] == "exception" and at(snap, project / "test_run.py", tests["fail"]), \
        snap
    end = dbg.json("continue", timeout=60)
    assert (end["state"], end["exit_code"]) == ("exited", 1), end
    text = dbg.output()
    assert "1 failed, 3 passed" in text, text
    assert not python.lazy or "UNTRACED-AGAIN" in text, text


def test_breakpoint_set_at_a_failure_stop_stops_later(dbg: Dbg, project: Path,
                                                      python: Interpreter) -> None:
    (project / "go.flag").write_text("")
    lines = marked_lines(project / "calc.py")
    tests = marked_lines(project / "test_run.py")
    snap = answer(start(dbg, project, python))
    assert snap["reason"] == "exception" and at(snap, project / "test_run.py", tests["fail"]), \
        snap
    assert dbg.json("break", f"{project / 'calc.py'}:{lines['in-add']}")["ok"]
    snap = dbg.json("continue", timeout=60)
    assert snap["state"] == "stopped" and at(snap, project / "calc.py", lines["in-add"]), snap
    frames = [f["function"] for f in dbg.json("stack")["frames"]]
    assert frames[:2] == ["add", "test_d_reports_tracing_again"], frames
    assert dbg.json("print", "a + b")["value"] == "0"
    end = dbg.json("continue", timeout=60)
    assert (end["state"], end["exit_code"]) == ("exited", 1), end
    assert not python.lazy or ("TRACED-AGAIN" in dbg.output()
                               and "UNTRACED-AGAIN" not in dbg.output())


def test_catch_raised_set_at_a_failure_stop_stops_later(dbg: Dbg, project: Path,
                                                        python: Interpreter) -> None:
    (project / "go.flag").write_text("")
    tests = marked_lines(project / "test_run.py")
    snap = answer(start(dbg, project, python))
    assert snap["reason"] == "exception" and at(snap, project / "test_run.py", tests["fail"]), \
        snap
    assert dbg.json("catch", "raised")["ok"]
    snap = dbg.json("continue", timeout=60)
    assert snap["state"] == "stopped" and snap["reason"] == "exception", snap
    assert at(snap, project / "test_run.py", tests["raise-caught"]), snap
    assert snap["description"].startswith("ValueError: invalid literal"), snap
    dbg("kill")


def test_uncaught_exception_of_the_untraced_runner_stops(dbg: Dbg, project: Path,
                                                         python: Interpreter) -> None:
    (project / "go.flag").write_text("")
    (project / "conftest.py").write_text(textwrap.dedent('''\
        def pytest_unconfigure(config):
            raise RuntimeError("boom at the end")  # @raise
        '''))
    line = marked_lines(project / "conftest.py")["raise"]
    snap = answer(start(dbg, project, python))
    # The failing test first, then, the run untraced again, the runner's end.
    assert at(snap, project / "test_run.py", marked_lines(project / "test_run.py")["fail"]), snap
    snap = dbg.json("continue", timeout=60)
    assert snap["state"] == "stopped" and snap["reason"] == "exception", snap
    assert at(snap, project / "conftest.py", line), snap
    assert snap["description"] == "RuntimeError: boom at the end", snap
    end = dbg.json("continue", timeout=60)
    assert (end["state"], end["exit_code"]) == ("exited", 1), end


def test_tracing_stays_on_with_a_breakpoint_from_the_start(dbg: Dbg, project: Path,
                                                           python: Interpreter) -> None:
    (project / "go.flag").write_text("")
    lines = marked_lines(project / "calc.py")
    snap = answer(start(dbg, project, python, "--break",
                        f"{project / 'calc.py'}:{lines['in-add']}"))
    assert snap["state"] == "stopped" and at(snap, project / "calc.py", lines["in-add"]), snap
    assert not python.lazy or ("TRACED" in dbg.output() and "UNTRACED" not in dbg.output()), \
        dbg.output()
    dbg("kill")
