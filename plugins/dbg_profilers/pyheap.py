"""tracemalloc as the heap profiler of Python programs (`dbg heap`).

Chosen over memray because it is part of every CPython: it runs in the
program's own interpreter (whatever its version or virtualenv) with nothing
to install there, and it names the Python line of each allocation, which is
what a fix of a Python program touches; memray sees native allocations too,
but must be installed into the program's environment, and its files are read
with its own Python API only.

The program runs under a small boot script (``inprogram/heapboot.py``, standard
library only) in its own interpreter: tracemalloc traces every allocation
with its traceback, a thread writes a snapshot as a JSON line every
``--interval`` seconds, and one more is written however the program ends.
Which function each line is in is read here afterwards (tracemalloc's
frames carry a file and a line only).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from dbg_profilers import common
from dbgcore.api import (
    HeapPoint,
    OpFailed,
    Profile,
    ProfileFrame,
    Profiler,
    Readiness,
    RecordRequest,
    Sample,
)

BOOT = Path(__file__).resolve().parent / "inprogram" / "heapboot.py"
#: Seconds between snapshots when --interval is not given.
DEFAULT_INTERVAL = 0.1
#: Frames a traceback keeps (tracemalloc's cost grows with it).
DEPTH = 16


class TracemallocProfiler(Profiler):
    id = "tracemalloc"
    tool_name = "tracemalloc"
    languages = ("python",)
    extensions = (".py",)
    measures = "heap"
    install = "tracemalloc comes with Python: install the program's Python (python3 on PATH)"
    summary = "Python's own allocation tracer: bytes by allocating line, over the run"

    @classmethod
    def readiness(cls) -> Readiness:
        return Readiness(True, "the program's python, with tracemalloc")

    def record(self, request: RecordRequest) -> Profile:
        python = common.interpreter(request)
        out = request.workdir / "heap.jsonl"
        output = request.workdir / "output.txt"
        interval = request.interval or DEFAULT_INTERVAL
        argv = [python, str(BOOT), str(out), str(interval), str(DEPTH),
                str(request.file_limit), *request.argv]
        exit_code, cut = common.run_bounded(argv, request, output, request.duration)
        if not out.exists():
            raise OpFailed(f"tracemalloc wrote no snapshot: "
                           f"{common.tail(output) or 'the program gave no reason'}",
                           f"does `{python} {' '.join(request.argv)}` run?")
        timeline, peak, limit, traced_peak = read_snapshots(
            out.read_text(encoding="utf-8", errors="replace"))
        profile = Profile(self.id, "stacks", "bytes", peak, exit_code=exit_code,
                          timeline=timeline,
                          duration=timeline[-1].time if timeline else 0.0)
        notes = []
        if cut:
            notes.append("the program was stopped (SIGINT) when the recording ended")
        if limit:
            notes.append(f"the snapshots passed the limit of {limit} bytes: the later ones "
                         f"were not written ({len(timeline)} kept)")
        largest = max((p.heap for p in timeline), default=0.0)
        if traced_peak > 1.1 * largest:
            notes.append(f"tracemalloc's own peak, between snapshots, was {int(traced_peak)} "
                         "bytes (a shorter --interval may catch its stacks)")
        profile.note = "; ".join(notes)
        if exit_code and not cut:  # a stop by --duration is no failure to show
            profile.output = common.tail(output)
        return profile


def read_snapshots(text: str) -> tuple[list[HeapPoint], list[Sample], int, float]:
    """The boot script's JSON lines as a timeline, the stacks of its
    largest snapshot, the file limit it hit (0: none) and tracemalloc's
    own peak. A line cut short by a dying program is left out."""
    timeline: list[HeapPoint] = []
    limit = 0
    traced_peak = 0.0
    raw: list[tuple[float, float, list[tuple[list[tuple[str, int]], float]]]] = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if "limit" in record:
            limit = int(record["limit"])
            continue
        stacks = [([(str(f[0]), int(f[1])) for f in frames], float(size))
                  for frames, size, _count in record.get("stacks") or []]
        raw.append((float(record.get("t", 0)), float(record.get("heap", 0)), stacks))
        traced_peak = max(traced_peak, float(record.get("peak", 0)))
    files = sorted({file for _, _, stacks in raw for frames, _ in stacks for file, _ in frames})
    stdlib = common.stdlib_of(files)
    names = _FunctionNames()
    for when, heap, stacks in raw:
        samples = [Sample(tuple(ProfileFrame(names(file, line), file, line,
                                             common.library(file, stdlib))
                                for file, line in frames), size)
                   for frames, size in stacks]
        timeline.append(HeapPoint(when, heap, samples))
    largest = max(timeline, key=lambda p: p.heap, default=None)
    return timeline, (largest.stacks or []) if largest else [], limit, traced_peak


class _FunctionNames:
    """Which function a line of a file is in: the innermost ``def`` around
    it, dotted into its classes (``Cache.put``), each file read once."""

    def __init__(self) -> None:
        self.files: dict[str, list[tuple[int, int, str]]] = {}

    def __call__(self, file: str, line: int) -> str:
        spans = self.files.get(file)
        if spans is None:
            spans = self.files[file] = _spans(file)
        found, width = "<module>", None
        for first, last, name in spans:
            if first <= line <= last and (width is None or last - first <= width):
                found, width = name, last - first
        return found


def _spans(file: str) -> list[tuple[int, int, str]]:
    if file.startswith("<"):
        return []
    try:
        tree = ast.parse(Path(file).read_bytes(), file)
    except (OSError, SyntaxError, ValueError):
        return []
    spans: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    spans.append((first, child.end_lineno or child.lineno, name))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return spans
