"""A test run under dbg against the same run without it (issue 24).

Two projects are generated into a temporary folder: a ten-test file, and a
suite of about 300 fast tests (several files, a conftest with fixtures, a
package of the project's own that the tests import, parametrized tests).
Each is run, interleaved, until every test passes:

* ``bare``: ``python -m pytest -q`` with the program's interpreter (this one,
  or ``--python``);
* ``debugpy``: ``dbg test --backend debugpy --python <it>`` (nothing stops);
* ``pdb``: ``dbg test --backend pdb --python <it>``.

Each dbg run must answer ``exited`` with code 0 (a run that stopped or failed
aborts the benchmark: speed must not change an answer). Wall time of the whole
command, as an agent waits for it; medians, the spread (min-max) and the
ratio to the bare run's median.

    .venv/bin/python bench/tests.py [--runs 5] [--project ten|suite ...] [--small]
        [--python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODES = ("bare", "debugpy", "pdb")
PYTEST_ARGS = ["-q", "-p", "no:cacheprovider"]
#: The program's interpreter (it needs pytest); dbg runs on this one.
PYTHON = [sys.executable]
#: The goal of issue 24: a run under dbg costs at most this times the bare run.
GOAL = 1.5


def dbg_command() -> list[str]:
    script = ROOT / "bin" / "dbg"
    if script.exists():
        return [sys.executable, str(script)]
    return [sys.executable, "-m", "dbgcore"]


# -- the projects ----------------------------------------------------------------------


def make_ten(root: Path) -> int:
    """A single file of ten small tests; returns the number of tests."""
    root.mkdir(parents=True)
    (root / "test_ten.py").write_text(textwrap.dedent('''\
        import json
        import re


        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)


        def test_fib():
            assert fib(15) == 610


        def test_json_round_trip():
            assert json.loads(json.dumps({"a": [1, 2, 3]}))["a"][2] == 3


        def test_regex():
            assert re.match(r"a+b", "aaab")


        def test_sorted():
            assert sorted([3, 1, 2]) == [1, 2, 3]


        def test_sum():
            assert sum(range(1000)) == 499500


        def test_join():
            assert "x".join("abc") == "axbxc"


        def test_squares():
            assert {i: i * i for i in range(10)}[9] == 81


        def test_fib_small():
            assert fib(10) == 55


        def test_count():
            assert len([c for c in "hello world" if c == "o"]) == 2


        def test_max():
            assert max([1, 5, 3]) == 5
        '''))
    return 10


def make_suite(root: Path, files: int = 6, per_file: int = 50) -> int:
    """A project of ``files`` test files of ``per_file`` tests each (half of
    them parametrized), a conftest with fixtures, and a package of its own."""
    package = root / "ledgerkit"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .book import Book, parse_amount\n")
    (package / "book.py").write_text(textwrap.dedent('''\
        from __future__ import annotations

        import dataclasses
        from decimal import Decimal


        def parse_amount(text: str) -> Decimal:
            sign = -1 if text.startswith("-") else 1
            return sign * Decimal(text.lstrip("+-").replace(",", ""))


        @dataclasses.dataclass
        class Book:
            entries: list[Decimal] = dataclasses.field(default_factory=list)

            def add(self, text: str) -> Book:
                self.entries.append(parse_amount(text))
                return self

            def balance(self) -> Decimal:
                return sum(self.entries, Decimal(0))
        '''))
    (root / "conftest.py").write_text(textwrap.dedent('''\
        import pytest

        from ledgerkit import Book


        @pytest.fixture
        def book():
            return Book().add("10").add("-3").add("1,000")


        @pytest.fixture(scope="session")
        def rates():
            return {"eur": 2, "usd": 3}
        '''))
    tests = root / "tests"
    tests.mkdir()
    (tests / "__init__.py").write_text("")
    count = 0
    for f in range(files):
        body = ["from decimal import Decimal", "", "import pytest", "",
                "from ledgerkit import Book, parse_amount", ""]
        plain = per_file // 2
        for t in range(plain):
            body += ["", f"def test_balance_{t}(book):",
                     f"    book.add('{t}')",
                     f"    assert book.balance() == Decimal({1007 + t})", ""]
        cases = per_file - plain
        values = ", ".join(f"('{n},{n:03d}', {n * 1000 + n})" for n in range(cases))
        body += ["", f"@pytest.mark.parametrize('text, value', [{values}])",
                 "def test_parse(text, value, rates):",
                 "    assert parse_amount(text) == value",
                 "    assert Book().add(text).add('-' + text).balance() == 0",
                 "    assert rates['usd'] > rates['eur']", ""]
        (tests / f"test_file_{f}.py").write_text("\n".join(body))
        count += per_file
    return count


# -- the runs --------------------------------------------------------------------------


#: Seconds between two runs (see bench()).
SETTLE = 1.0


def run_bare(folder: Path, tests: int, home: Path) -> float:
    begin = time.perf_counter()
    done = subprocess.run([PYTHON[0], "-m", "pytest", *PYTEST_ARGS], cwd=folder,
                          capture_output=True, text=True, timeout=900)
    took = time.perf_counter() - begin
    if done.returncode != 0 or f"{tests} passed" not in done.stdout:
        raise SystemExit(f"bare pytest in {folder}: exit {done.returncode}\n{done.stdout[-2000:]}")
    return took


def run_dbg(backend: str) -> Callable[[Path, int, Path], float]:
    def run(folder: Path, tests: int, home: Path) -> float:
        env = {**os.environ, "DBG_HOME": str(home), "DBG_SESSION": f"bench-{backend}"}
        begin = time.perf_counter()
        done = subprocess.run([*dbg_command(), "--json", "test", "--backend", backend,
                               "--python", PYTHON[0], "--", *PYTEST_ARGS],
                              cwd=folder, env=env, capture_output=True, text=True, timeout=900)
        took = time.perf_counter() - begin
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            answer = {}
        if (answer.get("state"), answer.get("exit_code")) != ("exited", 0):
            raise SystemExit(f"dbg test on {backend} in {folder}: {done.stdout[-2000:]}"
                             f"{done.stderr[-2000:]}")
        return took

    return run


RUNNERS: dict[str, Callable[[Path, int, Path], float]] = {
    "bare": run_bare, "debugpy": run_dbg("debugpy"), "pdb": run_dbg("pdb")}


def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores {model}".strip()


def versions() -> str:
    program = subprocess.run([PYTHON[0], "-c", "import platform, pytest; print("
                              "platform.python_version(), pytest.__version__)"],
                             capture_output=True, text=True, check=True).stdout.split()
    found = [f"Python {program[0]}", f"pytest {program[1]}"]
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        # Then pytest rewrites the asserts of its plugins' packages on every
        # run (hypothesis's, here), which every mode pays.
        found.append("PYTHONDONTWRITEBYTECODE set")
    try:
        import debugpy

        found.append(f"debugpy {debugpy.__version__}")
    except ImportError:
        pass
    return ", ".join(found)


def bench(projects: list[str], modes: list[str], runs: int, small: bool) -> list[str]:
    """Runs the benchmark and returns the table's lines (also printed)."""
    work = Path(tempfile.mkdtemp(prefix="dbg-bench-tests-"))
    lines = [f"Test runs, seconds, median (min-max) of {runs} interleaved runs; "
             f"{time.strftime('%Y-%m-%d')}; {machine()}; {versions()}",
             "", "| project | tests | " + " | ".join(modes) + " |",
             "|---|---:|" + "---:|" * len(modes)]
    print("\n".join(lines), flush=True)
    try:
        home = work / "home"
        for project in projects:
            folder = work / project
            if project == "ten":
                tests = make_ten(folder)
            else:
                tests = make_suite(folder, 2, 5) if small else make_suite(folder)
            times: dict[str, list[float]] = {m: [] for m in modes}
            for _ in range(runs):
                # Interleaved, so a slow moment of the machine hits every mode.
                for mode in modes:
                    # As an agent reads an answer before its next command:
                    # what a dbg run readies after its answer (the session's
                    # spare, dbgcore.successor) is done before the next run,
                    # whichever mode that is, and does not slow it.
                    time.sleep(0 if small else SETTLE)
                    times[mode].append(RUNNERS[mode](folder, tests, home))
            bare = statistics.median(times["bare"]) if "bare" in times else None
            cells = []
            for mode in modes:
                median = statistics.median(times[mode])
                cell = f"{median:.2f} ({min(times[mode]):.2f}-{max(times[mode]):.2f})"
                if bare and mode != "bare":
                    cell += f" **{median / bare:.2f} x**"
                cells.append(cell)
            lines.append(f"| {project} | {tests} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
        lines.append("")
        lines.append(f"goal: each dbg run <= {GOAL} x the bare run")
    finally:
        for mode in modes:
            if mode != "bare":
                subprocess.run([*dbg_command(), "kill"], env={
                    **os.environ, "DBG_HOME": str(work / "home"),
                    "DBG_SESSION": f"bench-{mode}"}, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--project", action="append", choices=["ten", "suite"],
                        help="a project to run (repeatable; default: both)")
    parser.add_argument("--mode", action="append", choices=MODES,
                        help="a way to run it (repeatable; default: all three)")
    parser.add_argument("--python", help="the program's interpreter (default: this one)")
    parser.add_argument("--small", action="store_true",
                        help="a suite of 10 tests (a check that the benchmark runs)")
    args = parser.parse_args()
    if args.python:
        PYTHON[0] = args.python
    modes = args.mode or list(MODES)
    if "bare" not in modes:
        modes.insert(0, "bare")
    lines = bench(args.project or ["ten", "suite"], modes, args.runs, args.small)
    print("\n".join(lines[-2:]))


if __name__ == "__main__":
    main()
