"""`dbg restart` of a failing test against the bare run to the same failure.

An agent's loop: a test fails, the run stops there, the agent looks, fixes
and reruns. A ten-test file with one failing test is generated; each round,
interleaved:

* ``bare``: ``python -m pytest -q -x`` with the program's interpreter (this
  one, or ``--python``), to the failure;
* for each backend (debugpy, pdb), ``ahead`` (as dbg runs) and ``off``
  (``DBG_NO_EARLY_SPAWN=1``: nothing is started ahead of the restart):
  ``dbg test --backend B --python P -- -q``, which must stop at the failing
  line, then ``--restarts`` times ``dbg restart`` after ``--pause`` seconds
  (the agent looking), each of which must stop there again, then ``dbg kill``.

Wall time of each restart command, as an agent waits for it; medians, the
spread (min-max) and the ratio to the bare run's median.

    .venv/bin/python bench/restart.py [--runs 4] [--restarts 3] [--pause 1.5]
        [--backend debugpy|pdb ...] [--python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from tests import dbg_command, machine  # bench/tests.py, beside this script

#: The program's interpreter (this one, or --python).
PYTHON = [sys.executable]

BACKENDS = ("debugpy", "pdb")
MODES = ("ahead", "off")

FAILING = textwrap.dedent("""\
    import json


    def total(values):
        return sum(values)


    def test_total():
        assert total([1, 2, 3]) == 6


    def test_round_trip():
        assert json.loads(json.dumps({"a": [1, 2]})) == {"a": [1, 2]}


    def test_wrong_total():
        expected = 7
        assert total([1, 2, 3]) == expected  # @fails


    def test_after():
        assert total([]) == 0
""")


def make_project(root: Path) -> tuple[Path, int]:
    """The failing file in its own folder; the folder and the failing line."""
    folder = root / "project"
    folder.mkdir()
    (folder / "test_failing.py").write_text(FAILING)
    line = next(n for n, text in enumerate(FAILING.splitlines(), 1) if "# @fails" in text)
    return folder, line


def run_bare(folder: Path) -> float:
    begin = time.perf_counter()
    done = subprocess.run([PYTHON[0], "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    took = time.perf_counter() - begin
    if done.returncode != 1 or "1 failed" not in done.stdout:
        raise SystemExit(f"bare pytest: exit {done.returncode}\n{done.stdout[-2000:]}")
    return took


def dbg(folder: Path, env: dict[str, str], *words: str) -> tuple[float, dict[str, object]]:
    begin = time.perf_counter()
    done = subprocess.run([*dbg_command(), "--json", *words], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)
    took = time.perf_counter() - begin
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        said = done.stdout[-2000:] + done.stderr[-2000:]
        raise SystemExit(f"dbg {' '.join(words)}: {said}") from None
    return took, answer


def at_failure(answer: dict[str, object], line: int) -> bool:
    location = answer.get("location")
    return answer.get("reason") == "exception" and isinstance(location, dict) \
        and location.get("line") == line


def run_restarts(folder: Path, line: int, backend: str, mode: str, home: Path,
                 restarts: int, pause: float) -> list[float]:
    """One session: `dbg test` to the failure, then the restarts; their times."""
    env = {**os.environ, "DBG_HOME": str(home), "DBG_SESSION": f"bench-{backend}"}
    env.pop("DBG_NO_EARLY_SPAWN", None)
    if mode == "off":
        env["DBG_NO_EARLY_SPAWN"] = "1"
    _, first = dbg(folder, env, "test", "--backend", backend, "--python", PYTHON[0], "--", "-q")
    if not at_failure(first, line):
        raise SystemExit(f"dbg test on {backend} did not stop at the failure: {first}")
    times = []
    try:
        for _ in range(restarts):
            time.sleep(pause)
            took, again = dbg(folder, env, "restart")
            if not at_failure(again, line):
                raise SystemExit(f"dbg restart on {backend} did not stop at the failure: {again}")
            times.append(took)
    finally:
        dbg(folder, env, "kill")
    return times


def cell(values: list[float], bare: float) -> str:
    ms = [v * 1000 for v in values]
    return (f"{statistics.median(ms):,.0f} [{min(ms):,.0f}-{max(ms):,.0f}] "
            f"{statistics.median(values) / bare:.2f} x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4, help="sessions of each backend and mode")
    parser.add_argument("--restarts", type=int, default=3, help="restarts in each session")
    parser.add_argument("--pause", type=float, default=1.5,
                        help="seconds before each restart (the agent looking)")
    parser.add_argument("--backend", action="append", choices=BACKENDS)
    parser.add_argument("--python", help="the program's interpreter (default: this one)")
    args = parser.parse_args()
    if args.python:
        PYTHON[0] = args.python
    backends = args.backend or list(BACKENDS)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="dbg-restart-", dir="/tmp") as scratch:
        root = Path(scratch)
        folder, line = make_project(root)
        bare: list[float] = []
        got: dict[tuple[str, str], list[float]] = {(b, m): [] for b in backends for m in MODES}
        for run in range(args.runs):
            bare.append(run_bare(folder))
            for backend in backends:
                for mode in MODES:
                    home = root / f"home-{mode}-{run}"
                    got[backend, mode] += run_restarts(folder, line, backend, mode, home,
                                                       args.restarts, args.pause)
    base = statistics.median(bare)
    python = subprocess.run([PYTHON[0], "-c", "import sys; print(sys.version.split()[0])"],
                            capture_output=True, text=True).stdout.strip()
    print(f"`dbg restart` of a failing test against bare pytest to the failure, ms, median "
          f"[min-max] and ratio to bare; {args.runs} sessions x {args.restarts} restarts, "
          f"{args.pause:g} s apart; {time.strftime('%Y-%m-%d')}; {machine()}; load average "
          f"{load:.2f} before, {os.getloadavg()[0]:.2f} after; Python {python}")
    print()
    print("| | bare | " + " | ".join(f"{b} {m}" for b in backends for m in MODES) + " |")
    print("|---|---:|" + "---:|" * (len(backends) * len(MODES)))
    bare_ms = [b * 1000 for b in bare]
    print(f"| restart | {statistics.median(bare_ms):,.0f} [{min(bare_ms):,.0f}-"
          f"{max(bare_ms):,.0f}] | "
          + " | ".join(cell(got[b, m], base) for b in backends for m in MODES) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
