"""A test run under dbg against the same run without it (issue 24).

Two projects are generated into a temporary folder: a ten-test file, and a
suite of about 300 fast tests (several files, a conftest with fixtures, a
package of the project's own that the tests import, parametrized tests).
Each is run, interleaved, until every test passes, on each interpreter
named (``--python PATH`` or a version, repeatable, or ``--pythons
3.11,3.12,3.13``; a version is a venv of the benchmarks' own with pytest in
it, made on first use: bench/venvs.py), default this one:

* ``bare``: ``python -m pytest -q`` with the program's interpreter;
* ``debugpy``: ``dbg test --backend debugpy --python <it>`` (nothing stops),
  rerun in one session a second after the last as an agent reruns its tests
  (the first run of each is a new session's; the later ones take the spare
  the last readied);
* ``debugpy-new``: the same, each run in a new session of the same DBG_HOME
  (the last one killed first, unmeasured): what issue 44's goal is about;
* ``pdb``, ``pdb-new``: the same on pdb.

Each interpreter has a DBG_HOME of its own (a user runs one at a time in a
project: interleaved, each would find the last one's program in dbg's
record of what to start ahead, adapterboot/dbg_warm_launcher.py).

Each dbg run must answer ``exited`` with code 0 (a run that stopped or failed
aborts the benchmark: speed must not change an answer). Wall time of the whole
command, as an agent waits for it; medians, the spread (min-max) and the
ratio to the bare run's median.

    .venv/bin/python bench/tests.py [--runs 5] [--project ten|suite ...] [--small]
        [--python PATH|VERSION ...] [--pythons 3.11,3.12,3.13] [--mode MODE ...]
        [--code CHECKOUT ...]

``--code``: the dbg of that checkout (its bin/dbg, dbgcore and plugins
first on PYTHONPATH), a column of each dbg mode for each checkout named, so
that the code before a change and after it are timed in one interleaved run.
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

import readme  # bench/readme.py, beside this script
import venvs  # bench/venvs.py

ROOT = Path(__file__).resolve().parent.parent
MODES = ("bare", "debugpy-new", "debugpy", "pdb-new", "pdb")
PYTEST_ARGS = ["-q", "-p", "no:cacheprovider"]
#: The programs' interpreters (they need pytest); dbg runs on this one.
PYTHONS = [sys.executable]
#: The goal of issues 24 and 44: a run under dbg costs at most this times the bare run.
GOAL = 1.5


#: The checkouts whose dbg is timed (``--code``, repeatable): this one by default.
CODES: list[Path] = []


def dbg_command(code: Path | None = None) -> list[str]:
    script = (code or ROOT) / "bin" / "dbg"
    if script.exists():
        return [sys.executable, str(script)]
    return [sys.executable, "-m", "dbgcore"]


def code_env(code: Path | None) -> dict[str, str]:
    """The environment that runs ``code``'s dbg (its dbgcore and plugins
    first on the path); this one's: the environment as it is."""
    if code is None:
        return {}
    return {"PYTHONPATH": f"{code}{os.pathsep}{code / 'plugins'}"}


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


def run_bare(python: str, folder: Path, tests: int, home: Path) -> float:
    begin = time.perf_counter()
    done = subprocess.run([python, "-m", "pytest", *PYTEST_ARGS], cwd=folder,
                          capture_output=True, text=True, timeout=900)
    took = time.perf_counter() - begin
    if done.returncode != 0 or f"{tests} passed" not in done.stdout:
        raise SystemExit(f"bare pytest in {folder}: exit {done.returncode}\n{done.stdout[-2000:]}")
    return took


#: The sessions of the ``-new`` modes so far.
NEW_SESSIONS = iter(range(1, 1 << 30))


def run_dbg(backend: str, new: bool = False,
            code: Path | None = None) -> Callable[[str, Path, int, Path], float]:
    def run(python: str, folder: Path, tests: int, home: Path) -> float:
        session = f"bench-{backend}-new-{next(NEW_SESSIONS)}" if new else f"bench-{backend}"
        env = {**os.environ, **code_env(code), "DBG_HOME": str(home), "DBG_SESSION": session}
        begin = time.perf_counter()
        done = subprocess.run([*dbg_command(code), "--json", "test", "--backend", backend,
                               "--python", python, "--", *PYTEST_ARGS],
                              cwd=folder, env=env, capture_output=True, text=True, timeout=900)
        took = time.perf_counter() - begin
        if new:
            # Gone before the next run, its spare with it: the next new
            # session is a session's first start, as after an agent's kill.
            subprocess.run([*dbg_command(code), "kill"], env=env, capture_output=True)
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            answer = {}
        if (answer.get("state"), answer.get("exit_code")) != ("exited", 0):
            raise SystemExit(f"dbg test on {backend} in {folder}: {done.stdout[-2000:]}"
                             f"{done.stderr[-2000:]}")
        return took

    return run


def columns(modes: list[str]) -> dict[str, tuple[Callable[[str, Path, int, Path], float],
                                               Path | None]]:
    """The table's columns, each a mode on one checkout (``debugpy-new
    main`` when there are several), and the runner and checkout of each."""
    found: dict[str, tuple[Callable[[str, Path, int, Path], float], Path | None]] = {}
    for mode in modes:
        if mode == "bare":
            found[mode] = (run_bare, None)
            continue
        backend, new = mode.removesuffix("-new"), mode.endswith("-new")
        for code in CODES or [None]:
            name = f"{mode} {code.name}" if len(CODES) > 1 and code is not None else mode
            found[name] = (run_dbg(backend, new, code), code)
    return found


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


def label(python: str) -> str:
    """An interpreter's name in the table: its version."""
    return venvs.version_of(python)


def versions() -> str:
    found = []
    for python in PYTHONS:
        program = subprocess.run([python, "-c", "import platform, pytest; print("
                                  "platform.python_version(), pytest.__version__)"],
                                 capture_output=True, text=True, check=True).stdout.split()
        found.append(f"Python {program[0]} (pytest {program[1]})")
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


class Result:
    """What one run of the benchmark measured: the table's lines, each cell's
    times, and the load average before and after."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.times: dict[str, dict[str, list[float]]] = {}
        self.tests: dict[str, int] = {}
        self.load_before = os.getloadavg()[0]
        self.load_after = self.load_before
        self.versions = ""

    def noise(self) -> str:
        """The largest min-max spread of a cell, against its median."""
        worst, where = 0.0, ""
        for row, modes in self.times.items():
            for mode, times in modes.items():
                spread = (max(times) - min(times)) / statistics.median(times)
                if spread >= worst:
                    worst, where = spread, f"{row}, {mode}"
        return f"{worst:.0%} of its median ({where})"

    def verdicts(self) -> list[str]:
        """The goal for each dbg cell: met or not met."""
        found = []
        for row, modes in self.times.items():
            bare = statistics.median(modes["bare"])
            for mode, times in modes.items():
                if mode == "bare":
                    continue
                ratio = statistics.median(times) / bare
                found.append(f"{row} on {mode} {ratio:.2f} x "
                             + ("met" if ratio <= GOAL else "**not met**"))
        return found


def bench(projects: list[str], modes: list[str], runs: int, small: bool) -> Result:
    """Runs the benchmark and returns what it measured (the table's lines are
    also printed). A row is a project on one interpreter: ``ten, 3.12.1``."""
    work = Path(tempfile.mkdtemp(prefix="dbg-bench-tests-"))
    result = Result()
    result.versions = versions()
    lines = result.lines
    runners = columns(modes)
    modes = list(runners)
    lines += [f"Test runs, seconds, median (min-max) of {runs} interleaved runs; "
              f"{time.strftime('%Y-%m-%d')}; {machine()}; {result.versions}",
              "", "| project | Python | tests | " + " | ".join(modes) + " |",
              "|---|---|---:|" + "---:|" * len(modes)]
    print("\n".join(lines), flush=True)
    labels = {python: label(python) for python in PYTHONS}
    # A DBG_HOME for each interpreter and checkout.
    homes = {(python, code): work / f"home-{n}-{c}" for n, python in enumerate(PYTHONS)
             for c, code in enumerate([None, *CODES])}
    try:
        for project in projects:
            folder = work / project
            if project == "ten":
                tests = make_ten(folder)
            else:
                tests = make_suite(folder, 2, 5) if small else make_suite(folder)
            rows: dict[str, dict[str, list[float]]] = {}
            for python in PYTHONS:
                rows[f"{project}, {labels[python]}"] = {m: [] for m in modes}
            result.times.update(rows)
            result.tests[project] = tests
            for _ in range(runs):
                # Interleaved, so a slow moment of the machine hits every
                # mode and every interpreter.
                for python in PYTHONS:
                    times = rows[f"{project}, {labels[python]}"]
                    for mode in modes:
                        # As an agent reads an answer before its next command:
                        # what a dbg run readies after its answer (the session's
                        # spare, dbgcore.start.successor) is done before the next
                        # run, whichever mode that is, and does not slow it.
                        time.sleep(0 if small else SETTLE)
                        run, code = runners[mode]
                        times[mode].append(run(python, folder, tests, homes[python, code]))
            for python in PYTHONS:
                times = rows[f"{project}, {labels[python]}"]
                bare = statistics.median(times["bare"]) if "bare" in times else None
                cells = []
                for mode in modes:
                    median = statistics.median(times[mode])
                    cell = f"{median:.2f} ({min(times[mode]):.2f}-{max(times[mode]):.2f})"
                    if bare and mode != "bare":
                        cell += f" **{median / bare:.2f} x**"
                    cells.append(cell)
                lines.append(f"| {project} | {labels[python]} | {tests} | "
                             + " | ".join(cells) + " |")
                print(lines[-1], flush=True)
        lines.append("")
        lines.append(f"goal: each dbg run <= {GOAL} x the bare run")
        result.load_after = os.getloadavg()[0]
    finally:
        for python in PYTHONS:
            for mode, (_, code) in runners.items():
                backend = mode.split()[0]
                if backend in ("debugpy", "pdb"):
                    subprocess.run([*dbg_command(code), "kill"], env={
                        **os.environ, **code_env(code), "DBG_HOME": str(homes[python, code]),
                        "DBG_SESSION": f"bench-{backend}"}, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    return result


# -- README.md's test-run section --------------------------------------------------------

README_BEGIN = "<!-- tests:begin: written by bench/tests.py --readme; do not edit by hand -->"
README_END = "<!-- tests:end -->"


def readme_section(result: Result, command: str, runs: int) -> str:
    """The README's section on test runs, from one run of the benchmark."""
    cores = os.cpu_count() or 1
    lines = [README_BEGIN,
             f"Test runs under dbg, measured by `{command}` on {time.strftime('%Y-%m-%d')}:"
             f" {machine()} (`os.cpu_count()` {cores}), load average"
             f" {result.load_before:.2f} before the run and {result.load_after:.2f} after;"
             f" {result.versions}.", ""]
    if runs < 3:
        lines += ["*A small run: it shows that the command works; these are not the figures"
                  " to quote.*", ""]
    elif max(result.load_before, result.load_after) > cores / 2:
        lines += ["*The machine was busy with other work (see the load average): take the"
                  " figures again on an idle one.*", ""]
    lines += [f"`dbg test --backend B --python P -- -q` against `P -m pytest -q` when nothing"
              f" stops (a ten-test file, a suite of about 300 fast tests), seconds, median"
              f" (min-max) of {runs} interleaved runs, each a second after the last as an agent"
              f" reruns its tests (B: one session's reruns, the first a new session's; B-new:"
              f" each run a new session's). Noise: the"
              f" largest min-max spread of a cell is {result.noise()}.", ""]
    lines += result.lines[2:-2]
    lines += ["", f"The goal, each dbg run within {GOAL} x the bare run: "
              + "; ".join(result.verdicts()) + ".", README_END]
    return "\n".join(lines)


def write_readme(path: Path, section: str) -> None:
    readme.rewrite(path, README_BEGIN, README_END, section, "test-run section")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--project", action="append", choices=["ten", "suite"],
                        help="a project to run (repeatable; default: both)")
    parser.add_argument("--mode", action="append", choices=MODES,
                        help="a way to run it (repeatable; default: all three)")
    parser.add_argument("--python", action="append",
                        help="a program's interpreter, a path or a version such as 3.12 "
                             "(repeatable; default: this one)")
    parser.add_argument("--pythons", help="versions, comma-separated: 3.11,3.12,3.13")
    parser.add_argument("--code", type=Path, action="append",
                        help="time the dbg of this checkout (its dbgcore and plugins; "
                             "repeatable: before and after, interleaved)")
    parser.add_argument("--small", action="store_true",
                        help="a suite of 10 tests (a check that the benchmark runs)")
    parser.add_argument("--readme", nargs="?", const=str(ROOT / "README.md"), metavar="PATH",
                        help="rewrite the test-run section of README.md (or PATH) from this run")
    args = parser.parse_args()
    named = [*(args.python or []), *filter(None, (args.pythons or "").split(","))]
    if named:
        PYTHONS[:] = [venvs.python_for(spec, ("pytest",)) for spec in named]
    CODES[:] = [code.resolve() for code in args.code or []]
    modes = args.mode or list(MODES)
    if "bare" not in modes:
        modes.insert(0, "bare")
    result = bench(args.project or ["ten", "suite"], modes, args.runs, args.small)
    print("\n".join(result.lines[-2:]))
    if args.readme:
        words = [w for w in sys.argv[1:] if not w.startswith("--readme")]
        if args.readme != str(ROOT / "README.md"):
            words = [w for w in words if w != args.readme]
        command = " ".join([".venv/bin/python bench/tests.py", *words, "--readme"])
        write_readme(Path(args.readme), readme_section(result, command, args.runs))
        print(f"\n{args.readme}: test-run section rewritten")


if __name__ == "__main__":
    main()
