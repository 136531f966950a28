"""Python test runs and exceptions on pdb and debugpy, with real debuggers.

A small project (tests/targets/pytests): a pytest suite with a fixture, a
helper module, one passing and two failing tests (and tests that expect an
exception, an xfail and a skip, which must not stop); a unittest suite; a
library installed into a virtual environment of its own, which is the
program's interpreter (`--python`), never dbg's; a program whose exceptions
are raised, chained and handled in several ways. dbg runs from a folder that
is not the program's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.testing import dbg_in, marked_lines

if TYPE_CHECKING:
    from conftest import Dbg

TARGETS = Path(__file__).resolve().parent / "targets" / "pytests"
BACKENDS = ["pdb", "debugpy"]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's folders, copied out, and a virtual environment for it
    (without pip) with the library in its site-packages; it reaches pytest
    through the site-packages of the Python running these tests."""
    root = tmp_path_factory.mktemp("project")
    for name in ("suite", "units", "addons", "errpkg", "catcher.py", "pooled.py"):
        source = TARGETS / name
        if source.is_dir():
            shutil.copytree(source, root / name)
        else:
            shutil.copy(source, root / name)
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   capture_output=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path("
                           "'purelib'))"], check=True, capture_output=True, text=True,
                          timeout=60).stdout.strip()
    shutil.copytree(TARGETS / "lib" / "shelflib", Path(site) / "shelflib")
    ours = sysconfig.get_path("purelib")
    (Path(site) / "_dbg_test_deps.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    return root


@pytest.fixture(scope="module")
def python(project: Path) -> str:
    return str(project / "venv" / "bin" / "python")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, backend_ready: Callable[[str], None]) -> str:
    name = str(request.param)
    backend_ready(name)
    return name


@pytest.fixture
def dbg(tmp_path: Path) -> Iterator[Dbg]:
    with dbg_in(tmp_path) as runner:
        yield runner


def ok(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["ok"] is True and answer["_exit"] == 0, answer
    return answer


def line_of(path: Path, mark: str) -> int:
    return marked_lines(path)[mark]


def assert_stop(snap: dict[str, Any], path: Path, mark: str, reason: str,
                function: str | None = None) -> None:
    ok(snap)
    assert snap["state"] == "stopped" and snap["reason"] == reason, snap
    loc = snap["location"]
    assert (loc["file"], loc["line"]) == (os.path.realpath(path), line_of(path, mark)), snap
    if function is not None:
        assert loc["function"] == function, snap


def output(dbg: Dbg) -> str:
    return dbg.output()


# -- test runs ------------------------------------------------------------------------


def test_pytest_run_stops_at_each_failure(dbg: Dbg, backend: str, project: Path,
                                          python: str) -> None:
    suite = project / "suite"
    test_file, helper = suite / "test_ledger.py", suite / "helper.py"
    snap = dbg.json("test", "--backend", backend, "--python", python, "--cwd", str(suite),
                    "--", "-q", "-p", "no:cacheprovider", "test_ledger.py", timeout=120)
    # The first stop: the failing assertion, in the test's own frame.
    assert_stop(snap, test_file, "assert-total", "exception", "test_total_wrong")
    assert snap["description"] == "AssertionError: assert 7 == 6", snap
    # The test's own locals, without the temporaries of pytest's assertion
    # rewriting (@py_assert1, @py_format3).
    shown = [v["name"] for v in snap["locals"]]
    names = [v["name"] for v in ok(dbg.json("locals"))["variables"]]
    assert "got" in names and "got" in shown, (names, shown)
    assert not [n for n in names + shown if n.startswith("@py")], (names, shown)
    info = ok(dbg.json("exception"))
    assert info["exception"] == "AssertionError" and "assert 7 == 6" in info["description"]
    stack = info["stack"]
    assert stack.startswith("Traceback (most recent call last):"), info
    assert "test_ledger.py" in stack and "_pytest" not in stack and "pluggy" not in stack, stack
    # Post mortem: the frames are over; dbg says so rather than run on.
    refused = dbg.json("next")
    assert refused["_exit"] == 1 and "post mortem" in refused["error"]["message"], refused

    # Then the error raised deeper, in the helper module, stopped where raised.
    snap = dbg.json("continue", timeout=60)
    assert_stop(snap, helper, "raise-helper", "exception", "check_entry")
    assert snap["description"] == "ValueError: bad entry -2", snap
    frames = [f["function"] for f in ok(dbg.json("stack"))["frames"]]
    assert frames[:3] == ["check_entry", "<listcomp>", "check_all"] or \
        frames[:2] == ["check_entry", "check_all"], frames
    assert "test_entries_fail_in_helper" in frames, frames
    assert ok(dbg.json("print", "entry"))["value"] == "-2"

    # pytest.raises, the xfail and the skip do not stop: the run ends with
    # pytest's exit code.
    end = ok(dbg.json("continue", timeout=60))
    assert (end["state"], end["exit_code"]) == ("exited", 1), end
    text = output(dbg)
    assert "2 failed, 2 passed, 1 skipped, 1 xfailed" in text, text
    # pytest draws its lines as wide as it is told (COLUMNS): not the width
    # of pdb's terminal.
    assert len(text) < 6000 and max(len(line) for line in text.splitlines()) <= 100, text


def test_restart_of_a_test_run_catches_from_the_start(dbg: Dbg, backend: str, project: Path,
                                                       python: str) -> None:
    # The test that expects its ValueError runs first; the failing one second.
    suite = project / "suite"
    helper = suite / "helper.py"
    snap = dbg.json("test", "--backend", backend, "--python", python, "--cwd", str(suite),
                    "--", "-q", "-p", "no:cacheprovider",
                    "test_ledger.py::test_expects_the_error",
                    "test_ledger.py::test_entries_fail_in_helper", timeout=120)
    assert_stop(snap, helper, "raise-helper", "exception", "check_entry")
    assert ok(dbg.json("print", "entry"))["value"] == "-2"
    ok(dbg.json("catch", "ValueError"))
    # A catch set before the restart holds from the program's start: the
    # first ValueError, which pytest.raises expects, stops now.
    snap = ok(dbg.json("restart", timeout=120))
    assert_stop(snap, helper, "raise-helper", "exception", "check_entry")
    assert snap["description"] == "ValueError: bad entry -5", snap
    assert ok(dbg.json("print", "entry"))["value"] == "-5"
    assert not snap["failed_breakpoints"], snap


def test_unittest_run_stops_at_each_failure(dbg: Dbg, backend: str, project: Path,
                                            python: str) -> None:
    units = project / "units"
    tests, calc = units / "test_calc.py", units / "calc.py"
    snap = dbg.json("test", "--backend", backend, "--python", python, "--runner", "unittest",
                    "--cwd", str(units), timeout=120)
    # unittest runs the tests in name order: test_divides_wrong, test_parses.
    assert_stop(snap, tests, "assert-equal", "exception", "test_divides_wrong")
    assert snap["description"] == "AssertionError: 3.5 != 3", snap
    assert ok(dbg.json("print", "result"))["value"] == "3.5"
    # Without the runner's frames: from the test on (the frames it called,
    # unittest's assertEqual among them, are the exception's story).
    stack = ok(dbg.json("exception"))["stack"].splitlines()
    assert stack[1].startswith(f'  File "{os.path.realpath(tests)}"'), stack
    snap = dbg.json("continue", timeout=60)
    assert_stop(snap, calc, "raise-parse", "exception", "parse")
    assert snap["description"] == "ValueError: not a number: 'x'", snap
    # assertRaises (both forms) and the expected failure do not stop.
    end = ok(dbg.json("continue", timeout=60))
    assert (end["state"], end["exit_code"]) == ("exited", 1), end
    assert "FAILED (failures=1, errors=1, expected failures=1)" in output(dbg)


def test_breakpoints_in_the_programs_own_environment(dbg: Dbg, backend: str, project: Path,
                                                    python: str) -> None:
    """A path suffix resolves against the program's interpreter's sys.path
    (its venv, a PYTHONPATH given with --env), before the program runs."""
    suite = project / "suite"
    library = Path(subprocess.run(
        [python, "-c", "import shelflib.core; print(shelflib.core.__file__)"],
        check=True, capture_output=True, text=True, env={**os.environ,
                                                          "PYTHONPATH": ""}).stdout.strip())
    addons = project / "addons"
    snap = dbg.json("test", "--backend", backend, "--python", python, "--cwd", str(suite),
                    "--env", f"PYTHONPATH={addons}",
                    "--break", f"shelflib/core.py:{line_of(library, 'shelve')}",
                    "--break", f"tagging.py:{line_of(addons / 'tagging.py', 'tag')}",
                    "--", "-q", "-p", "no:cacheprovider", "test_lib.py", timeout=120)
    assert_stop(snap, library, "shelve", "breakpoint", "shelve_all")
    assert str(project / "venv") in snap["location"]["file"], snap
    snap = dbg.json("continue", timeout=60)
    assert_stop(snap, addons / "tagging.py", "tag", "breakpoint", "tag")
    end = ok(dbg.json("continue", timeout=60))
    assert (end["state"], end["exit_code"]) == ("exited", 0), end
    # The interpreter is the one --python named.
    assert "1 passed" in output(dbg)


def test_python_option_picks_the_interpreter(dbg: Dbg, backend: str, project: Path,
                                             python: str) -> None:
    snap = ok(dbg.json("start", "--backend", backend, "--python", python,
                       str(project / "catcher.py"), timeout=60))
    # The first stop is the program's first line, never dbg's own code.
    assert snap["location"]["file"] == os.path.realpath(project / "catcher.py"), snap
    prefix = ok(dbg.json("print", "__import__('sys').prefix"))["value"]
    assert prefix.strip("'") == str(project / "venv"), prefix
    bad = dbg.json("start", "--backend", backend, "--python", str(project / "nothing"),
                   str(project / "catcher.py"))
    assert bad["ok"] is False and bad["_exit"] == 2 and "--python" in bad["error"]["message"]


def test_module_run_stops_first_in_the_module(dbg: Dbg, backend: str, project: Path,
                                              python: str) -> None:
    """`-m pytest` stops at entry on pytest's own first line, as pdb does:
    not in the first plugin it loads (dbg's, here), nor in dbg's code in
    the debuggee."""
    snap = ok(dbg.json("start", "--backend", backend, "--python", python, "--cwd",
                       str(project / "suite"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                       "test_ledger.py", timeout=60))
    assert snap["reason"] == "entry", snap
    assert snap["location"]["file"].endswith(os.path.join("pytest", "__main__.py")), snap
    snap = dbg.json("continue", timeout=60)
    assert_stop(snap, project / "suite" / "test_ledger.py", "assert-total", "exception")


# -- dbg catch, chains, steps through exceptions -----------------------------------------


def start_catcher(dbg: Dbg, backend: str, project: Path, *options: str) -> Path:
    program = project / "catcher.py"
    dbg("kill")  # the one before, if any
    snap = ok(dbg.json("start", "--backend", backend, *options, str(program), timeout=60))
    assert snap["location"]["file"] == os.path.realpath(program), snap
    assert snap["reason"] == ("breakpoint" if "--run" in options else "entry"), snap
    return program


def test_catch_classes_where_the_program_raises_them(dbg: Dbg, backend: str,
                                                     project: Path) -> None:
    program = start_catcher(dbg, backend, project)
    assert ok(dbg.json("catch", "ValueError", "uncaught"))["filters"] == ["ValueError",
                                                                         "uncaught"]
    # A subclass of ValueError raised inside json's code stops where it
    # comes out into the program's: the line that called.
    snap = dbg.json("continue")
    assert_stop(snap, program, "json", "exception", "main")
    assert snap["description"].startswith("JSONDecodeError: Expecting property name"), snap
    assert "(raised in raw_decode at " in snap["description"], snap
    # Raised in the program: stopped once, where raised, not again in each
    # frame it passes through (middle, main).
    snap = dbg.json("continue")
    assert_stop(snap, program, "raise", "exception", "parse")
    assert snap["description"] == "ParseError: not a number: x1", snap
    assert ok(dbg.json("exception"))["exception"] == "ParseError"
    # A next from there follows the exception out to its handler (not a
    # stop again in each frame it leaves), and says what it followed.
    snap = dbg.json("next")
    assert_stop(snap, program, "except", "step", "main")
    assert snap["description"].startswith("ParseError: not a number: x1 (raised in parse"), snap
    snap = dbg.json("continue")
    assert_stop(snap, program, "int", "exception", "main")
    # The KeyError is not a ValueError; the LookupError ends the program.
    snap = dbg.json("continue")
    assert_stop(snap, program, "chained", "exception", "load")
    assert snap["description"] == "LookupError: no entry b", snap
    end = ok(dbg.json("continue"))
    assert (end["state"], end["exit_code"]) == ("exited", 1), end


def test_catch_by_qualified_name_and_all_code(dbg: Dbg, backend: str, project: Path) -> None:
    program = start_catcher(dbg, backend, project)
    ok(dbg.json("catch", "errpkg.errors.ParseError"))
    assert_stop(dbg.json("continue"), program, "raise", "exception", "parse")
    end = ok(dbg.json("continue"))
    assert end["state"] == "exited", end  # no uncaught stop: not asked for

    ok(dbg.json("restart"))
    assert ok(dbg.json("catch", "raised", "--all-code"))["filters"] == ["raised", "all-code"]
    # Now where the standard library raises, too (the import system may
    # raise and handle some first).
    for _ in range(20):
        snap = ok(dbg.json("continue"))
        if snap["description"].startswith("JSONDecodeError"):
            break
        assert snap["reason"] == "exception", snap
    assert snap["location"]["file"].endswith(os.path.join("json", "decoder.py")), snap

    bad = dbg.json("catch", "not-a-class!")
    assert bad["_exit"] == 2 and "exception class" in bad["error"]["message"], bad
    # A name without its module must be a class the program has: a typo
    # would never stop.
    typo = dbg.json("catch", "ParseEror")
    assert typo["_exit"] == 2 and "ParseEror" in typo["error"]["message"], typo
    assert "raised" in typo["error"]["hint"], typo
    assert ok(dbg.json("catch", "ParseError"))["filters"] == ["ParseError"]
    assert ok(dbg.json("catch"))["filters"] == []


def test_chained_exception_reads_as_python_prints_it(dbg: Dbg, backend: str,
                                                     project: Path) -> None:
    program = start_catcher(dbg, backend, project, "--break",
                            f"{project / 'catcher.py'}:{line_of(project / 'catcher.py', 'uncaught')}",
                            "--run")
    snap = dbg.json("continue")
    assert_stop(snap, program, "chained", "exception", "load")
    assert snap["description"] == "LookupError: no entry b", snap
    info = ok(dbg.json("exception"))
    stack = info["stack"]
    cause = stack.index("KeyError: 'b'")
    words = stack.index("The above exception was the direct cause of the following exception:")
    effect = stack.index("raise LookupError")
    assert stack.index("return table[key]") < cause < words < effect, stack
    assert stack.count("Traceback (most recent call last):") == 2, stack
    assert info["chain"] == [{"exception": "KeyError", "description": "'b'",
                              "relation": "cause"}], info
    text = dbg("exception").out
    assert text.splitlines()[1] == "LookupError: no entry b", text


def test_cause_from_a_pool_worker_reads_as_python_prints_it(dbg: Dbg, backend: str,
                                                             project: Path, python: str) -> None:
    """The worker's traceback is a cause that was never raised: shown as
    Python shows it (debugpy's own text stopped the chain there), each
    cause's frames outermost first, and the stack is the calls alone."""
    program = project / "pooled.py"
    snap = dbg.json("start", "--backend", backend, "--python", python, "--run", str(program),
                    timeout=90)
    assert_stop(snap, program, "raise", "exception", "run")
    assert snap["description"] == "RuntimeError: a text is no number", snap
    info = ok(dbg.json("exception"))
    remote, value = info["chain"]
    assert (remote["exception"], remote["relation"]) == ("RemoteTraceback", "cause"), info
    assert f"line {line_of(program, 'parse')}, in parse" in remote["description"], info
    assert value == {"exception": "ValueError", "relation": "cause",
                     "description": "invalid literal for int() with base 10: 'x2'"}, info
    stack = info["stack"].splitlines()
    # Python prints no "Traceback" line above an exception never raised.
    assert stack[0] == "multiprocessing.pool.RemoteTraceback: ", stack
    error = "ValueError: invalid literal for int() with base 10: 'x2'"
    # The line ends the worker's traceback (inside the RemoteTraceback's
    # text) and the ValueError's own, which is the pool's re-raise.
    cause_ends = max(i for i, line in enumerate(stack) if line == error)
    in_run = stack.index(f'  File "{program}", line {line_of(program, "map")}, in run')
    in_pool = [i for i, line in enumerate(stack) if "multiprocessing" in line
               and line.endswith(", in get")]
    assert stack.index('"""', 2) < in_run < in_pool[0] < cause_ends, stack
    assert stack[-1].strip().startswith('raise RuntimeError("a text is no number")'), stack
    frames = ok(dbg.json("stack", "--all"))["frames"]
    assert [f["function"] for f in frames if f["file"] == os.path.realpath(program)] == \
        ["run", "<module>"], frames
    assert not any("Chained" in (f["function"] or "") for f in frames), frames
    dbg("kill")

    # Uncaught, the pool's re-raise stops in the pool's code: the stop says
    # where the worker raised it.
    snap = ok(dbg.json("start", "--backend", backend, "--python", python, "--run",
                       str(program), "bare", timeout=90))
    assert snap["reason"] == "exception" and "multiprocessing" in snap["location"]["file"], snap
    assert snap["description"] == (
        "ValueError: invalid literal for int() with base 10: 'x2' (raised in parse at "
        f"{program}:{line_of(program, 'parse')}, in a worker process)"), snap


def test_a_failure_raised_in_a_library_shows_its_frames_past_the_test(
        dbg: Dbg, backend: str, python: str, tmp_path: Path) -> None:
    """The test stops in its own frame, and `dbg exception` goes on into the
    library code that raised, as Python's traceback does."""
    test = tmp_path / "test_config.py"
    test.write_text("import json\n\n\ndef test_reads_config():\n"
                    "    assert json.loads('{\"a\": 1,}') == {\"a\": 1}  # @call\n")
    snap = dbg.json("test", "--backend", backend, "--python", python, "--", "-q", str(test),
                    timeout=90)
    assert_stop(snap, test, "call", "exception", "test_reads_config")
    stack = ok(dbg.json("exception"))["stack"].splitlines()
    frames = [line for line in stack if line.startswith("  File ")]
    assert frames[0] == f'  File "{test}", line {line_of(test, "call")}, in test_reads_config', \
        stack
    assert frames[-1].endswith(", in raw_decode") and "json" in frames[-1], stack


THREADED = """\
import threading


def work(items):
    total = 0
    for item in items:
        total += item["n"]  # @fails
    return total


worker = threading.Thread(target=work, args=([{"n": 1}, {"m": 2}],))
worker.start()
worker.join()
print("main goes on")  # @after
"""


def test_an_exception_that_ends_a_thread_stops_there(dbg: Dbg, backend: str,
                                                     tmp_path: Path) -> None:
    """As one that ends the program does; the program goes on after it, as
    Python's would (the main thread never sees it)."""
    program = tmp_path / "threaded.py"
    program.write_text(THREADED)
    snap = dbg.json("start", "--backend", backend, "--run", str(program), timeout=60)
    assert_stop(snap, program, "fails", "exception", "work")
    assert snap["description"] == "KeyError: 'n'", snap
    assert ok(dbg.json("print", "item"))["value"] == "{'m': 2}"
    stack = ok(dbg.json("exception"))["stack"].splitlines()
    assert stack[1] == f'  File "{program}", line {line_of(program, "fails")}, in work', stack
    end = ok(dbg.json("continue"))
    assert (end["state"], end["exit_code"]) == ("exited", 0), end
    assert "main goes on" in dbg.output("stdout")
    assert "KeyError: 'n'" in dbg.output("stderr")
    dbg("kill")
    # --no-catch: as without a debugger.
    end = ok(dbg.json("start", "--backend", backend, "--run", "--no-catch", str(program),
                      timeout=60))
    assert (end["state"], end["exit_code"]) == ("exited", 0), end


ORDERED = """\
def pick(table, key):
    return dict(table)  # @inside


table = {"zeta": 1, "alpha": 2, "mid": 3}
print(pick(table, "zeta"))  # @call
"""


def test_a_dict_reads_in_its_own_order_everywhere(dbg: Dbg, backend: str,
                                                  tmp_path: Path) -> None:
    """reprlib sorts a dict's keys; Python's repr and the program do not:
    the snapshot, print, the stack's arguments and a trace say what it holds."""
    program = tmp_path / "ordered.py"
    program.write_text(ORDERED)
    marks = marked_lines(program)
    said = "{'zeta': 1, 'alpha': 2, 'mid': 3}"
    snap = ok(dbg.json("start", "--backend", backend, "--break", f"{program}:{marks['call']}",
                       "--run", str(program), timeout=60))
    shown = {v["name"]: v["value"] for v in snap["locals"]}
    assert shown["table"] == said, snap
    assert ok(dbg.json("print", "table"))["value"] == said
    traced = ok(dbg.json("trace", "pick"))
    call = ok(dbg.json("calls", "pick"))["calls"][0]
    args = {a["name"]: a["value"] for a in call["args"]}
    assert (args["table"], call["outcome"], call["value"]) == (said, "returned", said), \
        (traced, call)
    dbg("kill")
    ok(dbg.json("start", "--backend", backend, "--break", f"{program}:{marks['inside']}",
                "--run", str(program), timeout=60))
    frame = ok(dbg.json("stack"))["frames"][0]
    assert {a["name"]: a["value"] for a in frame["args"]}["table"] == said, frame


def test_exception_through_next_step_and_finish(dbg: Dbg, backend: str,
                                                project: Path) -> None:
    program = project / "catcher.py"
    marks = marked_lines(program)
    said = f"ParseError: not a number: x1 (raised in parse at {os.path.realpath(program)}:" \
           f"{marks['raise']})"

    start_catcher(dbg, backend, project, "--break", f"{program}:{marks['call']}", "--run")
    snap = dbg.json("next")
    assert_stop(snap, program, "except", "step", "main")
    assert snap["description"] == said, snap
    snap = dbg.json("next")  # within the handler: said once
    assert snap["description"] == "", snap

    start_catcher(dbg, backend, project, "--break", f"{program}:{marks['middle']}", "--run")
    snap = dbg.json("finish")
    assert_stop(snap, program, "except", "step", "main")
    assert snap["description"] == said and not snap.get("return_value"), snap

    start_catcher(dbg, backend, project, "--break", f"{program}:{marks['raise']}", "--run")
    snap = dbg.json("step")
    assert_stop(snap, program, "except", "step", "main")
    assert snap["description"] == said, snap


def test_debugpy_user_unhandled_names_the_function_plainly(
        dbg: Dbg, project: Path, python: str, backend_ready: Callable[[str], None]) -> None:
    """debugpy's own userUnhandled filter stays (pydevd marks the frame it
    stops in " (Current frame)": not part of the function's name)."""
    backend_ready("debugpy")
    suite = project / "suite"
    ok(dbg.json("start", "--backend", "debugpy", "--python", python, "--cwd", str(suite),
                "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_ledger.py", timeout=60))
    assert ok(dbg.json("catch", "userUnhandled"))["filters"] == ["userUnhandled"]
    snap = dbg.json("continue", timeout=60)
    assert_stop(snap, suite / "test_ledger.py", "assert-total", "exception", "test_total_wrong")


def test_catch_help_lists_the_filters(dbg: Dbg) -> None:
    text = dbg("catch", "--help").out
    for word in ("raised", "uncaught", "userUnhandled", "--all-code", "ValueError"):
        assert word in text, text


def test_pdb_has_no_user_unhandled(dbg: Dbg, project: Path,
                                   backend_ready: Callable[[str], None]) -> None:
    backend_ready("pdb")
    start_catcher(dbg, "pdb", project)
    refused = dbg.json("catch", "userUnhandled")
    assert refused["_exit"] == 2 and "dbg test" in refused["error"]["hint"], refused
