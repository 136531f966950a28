"""cProfile as a profiler: deterministic counts of every call, for when a
sample's estimate is not enough (how many times was it called, from where).

The program runs under ``python -m cProfile -o FILE`` with its own
interpreter, and the same interpreter reads the file back with pstats (the
file is marshal data of that Python's version, which dbg's own Python may
not read) into JSON: each function's call edges, caller to callee, with
the callee's own time, its time with what it called, and the count. cProfile
writes the file when the program ends, by an exception or SystemExit too,
and on Ctrl-C: a crash keeps what was counted, and ``--duration`` stops the
program with SIGINT.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from dbg_profilers import common
from dbgcore.api import (
    OpFailed,
    Profile,
    ProfileFrame,
    Profiler,
    Readiness,
    RecordRequest,
    Sample,
)

#: Run in the program's interpreter: the stats file as JSON, one row per
#: function, [file, line, name, calls, total calls, own time, cumulative
#: time, [[caller file, line, name, calls, own time, cumulative time]...]].
_READ_STATS = """\
import json, pstats, sys
stats = pstats.Stats(sys.argv[1]).stats
rows = []
for (file, line, name), (cc, nc, tt, ct, callers) in stats.items():
    edges = [[cf, cl, cn, v[1], v[2], v[3]] for (cf, cl, cn), v in callers.items()]
    rows.append([file, line, name, cc, nc, tt, ct, edges])
json.dump(rows, sys.stdout)
"""


class CProfileProfiler(Profiler):
    id = "cprofile"
    tool_name = "cProfile"
    languages = ("python",)
    extensions = (".py",)
    deterministic = True
    install = "cProfile comes with Python: install the program's Python (python3 on PATH)"
    summary = "counts every call of a Python program (exact counts, slower run)"

    @classmethod
    def readiness(cls) -> Readiness:
        # Part of every CPython: ready wherever the program's Python is.
        return Readiness(True, "the program's python -m cProfile")

    def record(self, request: RecordRequest) -> Profile:
        python = common.interpreter(request)
        stats = request.workdir / "cprofile.out"
        output = request.workdir / "output.txt"
        argv = [python, "-m", "cProfile", "-o", str(stats), *request.argv]
        exit_code, cut = common.run_bounded(argv, request, output, request.duration)
        if not stats.exists():
            raise OpFailed("cProfile wrote no profile: "
                           f"{common.tail(output) or 'the program gave no reason'}",
                           f"does `{python} -m cProfile {' '.join(request.argv)}` run?")
        samples = read_stats(python, stats, request.timeout)
        profile = Profile(self.id, "edges", "seconds", samples, exit_code=exit_code,
                          duration=sum(s.weight for s in samples))
        if cut:
            profile.note = "the program was stopped (SIGINT) when the recording ended"
        if exit_code:
            profile.output = common.tail(output)
        return profile


def read_stats(python: str, stats: Path, timeout: float) -> list[Sample]:
    """The stats file as call edges (see the module's docstring), read by
    the interpreter that wrote it."""
    try:
        done = subprocess.run([python, "-c", _READ_STATS, str(stats)], capture_output=True,
                              text=True, timeout=timeout, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise OpFailed(f"could not read cProfile's file with {python}: {exc}") from exc
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        raise OpFailed(f"could not read cProfile's file: {lines[-1] if lines else '?'}")
    try:
        rows = json.loads(done.stdout)
    except ValueError as exc:
        raise OpFailed("pstats answered no JSON") from exc
    files = [str(row[0]) for row in rows]
    stdlib = common.stdlib_of(files)

    def frame(file: str, line: int, name: str) -> ProfileFrame:
        if file == "~":  # a built-in: `<built-in method re.compile>`, `<method 'x' ...>`
            return ProfileFrame(name.strip("<>{}"), None, None, "builtins")
        return ProfileFrame(name, file, int(line), common.library(file, stdlib))

    samples: list[Sample] = []
    for file, line, name, _cc, calls, own, cumulative, edges in rows:
        callee = frame(file, line, name)
        if not edges:
            samples.append(Sample((callee,), float(own), total=float(cumulative),
                                  calls=int(calls)))
        for c_file, c_line, c_name, c_calls, c_own, c_cumulative in edges:
            samples.append(Sample((frame(c_file, c_line, c_name), callee), float(c_own),
                                  total=float(c_cumulative), calls=int(c_calls)))
    return samples
