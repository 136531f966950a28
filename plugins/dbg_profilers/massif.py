"""valgrind's massif as a heap profiler of native programs (`dbg heap`).

The program runs under ``valgrind --tool=massif --time-unit=ms
--detailed-freq=1``: every snapshot then carries its heap tree, so each
allocation site can be followed over the run, not only at the peak. The
``massif.out`` file is read here (its format is massif's own: a header, then
``snapshot=N`` blocks of ``key=value`` lines and an indented tree of
``nK: BYTES 0xADDR: function (file:line)`` nodes). The peak snapshot's tree
is the profile's stacks, in bytes; every snapshot is a point of its timeline.

valgrind finishes its tools on a program's fatal signal too (a crash, the
SIGINT of ``--duration``), so a program that dies keeps its snapshots; a
file past the request's limit is read up to it, and the answer says so.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from dbg_profilers import common
from dbg_profilers.valgrind import ValgrindProfiler
from dbgcore.api import (
    HeapPoint,
    OpFailed,
    Profile,
    ProfileFrame,
    RecordRequest,
    Sample,
)

#: A node of a heap tree: its depth (the indent), its bytes and what it is.
_NODE_RE = re.compile(r"^(?P<indent> *)n(?P<children>\d+): (?P<bytes>\d+) (?P<what>.*)$")
#: A node's frame: ``0xADDR: function (file:line)`` or ``(in /lib/x.so)``.
_FRAME_RE = re.compile(r"^0x[0-9A-Fa-f]+: (?P<function>.*?)"
                       r"(?: \((?:in (?P<object>[^)]*)|(?P<file>[^():]+):(?P<line>\d+))\))?$")


class MassifProfiler(ValgrindProfiler):
    id = "massif"
    tool_name = "massif"
    measures = "heap"
    summary = "valgrind's heap profiler: bytes by allocation stack over a native program's run"

    def record(self, request: RecordRequest) -> Profile:
        path = self.valgrind_path()
        out = request.workdir / "massif.out"
        output = request.workdir / "output.txt"
        argv = [path, "--tool=massif", "--time-unit=ms", "--detailed-freq=1",
                f"--massif-out-file={out}", *request.argv]
        exit_code, cut = common.run_bounded(argv, request, output, request.duration)
        if not out.exists():
            raise OpFailed(f"massif wrote no snapshots: {common.tail(output, '==')}",
                           f"does `valgrind --tool=massif {' '.join(request.argv)}` run?")
        text, clipped = read_limited(out, request.file_limit)
        program = os.path.realpath(request.argv[0]) if request.argv else ""
        timeline, peak = parse_massif(text, program)
        profile = Profile(self.id, "stacks", "bytes", peak, exit_code=exit_code,
                          timeline=timeline,
                          duration=timeline[-1].time if timeline else 0.0)
        notes = []
        if cut:
            notes.append("the program was stopped (SIGINT) when the recording ended")
        if clipped:
            notes.append(f"massif's file passed the limit of {request.file_limit} bytes: "
                         f"read up to it ({len(timeline)} snapshots)")
        profile.note = "; ".join(notes)
        if exit_code and not cut:  # a stop by --duration is no failure to show
            profile.output = common.tail(output, "==")
        return profile


def read_limited(path: Path, limit: int) -> tuple[str, bool]:
    """A file's text up to ``limit`` bytes, and whether it was longer."""
    with path.open("rb") as f:
        data = f.read(limit + 1)
    return data[:limit].decode(errors="replace"), len(data) > limit


def parse_massif(text: str, program: str = "") -> tuple[list[HeapPoint], list[Sample]]:
    """A massif.out file as its timeline (seconds, bytes, each detailed
    snapshot's stacks) and the stacks of its peak: the peak snapshot's
    tree, else the detailed one with the most bytes. A snapshot cut off by
    a file limit is left out whole."""
    timeline: list[HeapPoint] = []
    peak: list[Sample] | None = None
    for block in text.split("#-----------\nsnapshot=")[1:]:
        fields: dict[str, str] = {}
        tree: list[str] = []
        for line in block.splitlines()[1:]:
            if _NODE_RE.match(line):
                tree.append(line)
            elif "=" in line and not line.startswith("#"):
                key, _, value = line.partition("=")
                fields[key] = value
        if "mem_heap_B" not in fields or "heap_tree" not in fields:
            continue
        kind = fields["heap_tree"]
        stacks = _stacks(tree, program) if kind in ("detailed", "peak") else None
        if stacks is None and kind != "empty":
            continue
        timeline.append(HeapPoint(int(fields.get("time", "0")) / 1000.0,
                                  float(fields["mem_heap_B"]), stacks))
        if kind == "peak":
            peak = stacks
    if peak is None:
        detailed = [p for p in timeline if p.stacks is not None]
        peak = max(detailed, key=lambda p: p.heap).stacks if detailed else []
    return timeline, peak or []


def _stacks(tree: list[str], program: str) -> list[Sample] | None:
    """A heap tree's leaves as samples: the path from each leaf up to the
    root's child (the allocation site) is its stack, turned outermost
    first, weighted by the leaf's bytes. A tree whose last node promises
    children it lacks was cut off: None."""
    samples: list[Sample] = []
    path: list[ProfileFrame] = []
    owed = 1  # the root, then each node's promised children
    for line in tree:
        node = _NODE_RE.match(line)
        assert node is not None
        depth = len(node.group("indent"))
        children = int(node.group("children"))
        owed = owed - 1 + children
        if depth == 0:  # the root: "(heap allocation functions) malloc/new/..."
            continue
        del path[depth - 1:]
        path.append(_frame(node.group("what"), program))
        if children == 0 and int(node.group("bytes")):
            samples.append(Sample(tuple(reversed(path)), float(node.group("bytes"))))
    return samples if owed == 0 else None


def _frame(what: str, program: str) -> ProfileFrame:
    if what.startswith("in ") and "below massif's threshold" in what:
        return ProfileFrame("(below massif's threshold)", None, None, "massif")
    found = _FRAME_RE.match(what)
    if found is None:
        return ProfileFrame(what, None, None, "native")
    function = found.group("function")
    if found.group("file"):
        return ProfileFrame(function, found.group("file"), int(found.group("line")))
    obj = found.group("object")
    if obj and program and os.path.realpath(obj) == program:
        return ProfileFrame(function, obj)  # the program's own, built without -g
    return ProfileFrame(function, obj, None, Path(obj).name.split(".so")[0] if obj else "native")
