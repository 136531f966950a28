"""valgrind's callgrind as a profiler of native programs: it runs the
program on valgrind's simulated CPU and counts every instruction each
function executes (the event ``Ir``), and every call between functions, with
how many instructions it cost in all. Counts, not samples: the same program
on the same input gives the same numbers, which a before-and-after of a fix
(`dbg profile diff`) wants; the price is a run some 20 to 50 times slower.

Its file (``--callgrind-out-file`` in the recording's folder) is read here,
in callgrind's own format: ``fn=`` opens a function, each cost line after it
is ``POSITION COST`` of that function's own instructions, and ``cfn=`` with
``calls=COUNT TARGET`` says that the next cost line is what the calls to
another function cost, everything they ran included. Names are compressed:
``(12) name`` defines number 12 for a name, a later ``(12)`` refers to it;
positions may be relative (``+2``, ``-1``) or repeated (``*``).
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from dbg_profilers import common, nativeframes
from dbg_profilers.valgrind import ValgrindProfiler
from dbgcore.api import (
    OpFailed,
    Profile,
    ProfileFrame,
    RecordRequest,
    Sample,
    binary_kind,
)

#: The name compression of a ``fn=``-like line: ``(id) name`` or ``(id)``.
_NAMED_RE = re.compile(r"^\((?P<id>\d+)\)(?: (?P<name>.*))?$")
#: gcc's names for its copies of a function (``find.constprop.0``,
#: ``main.cold``): the function's own name is what the program calls it.
CLONE_RE = re.compile(r"(?:\.(?:constprop|isra|part|cold|lto_priv|localalias)(?:\.\d+)?)+$")


class CallgrindProfiler(ValgrindProfiler):
    id = "callgrind"
    tool_name = "valgrind --tool=callgrind"
    deterministic = True
    summary = ("counts every instruction a native program runs, by function and call "
               "(valgrind's callgrind: exact, the run 20-50x slower)")

    @classmethod
    def fits(cls, program: Path) -> bool:
        return binary_kind(program) is not None

    def record(self, request: RecordRequest) -> Profile:
        path = self.valgrind_path()
        counts = request.workdir / "callgrind.out"
        output = request.workdir / "output.txt"
        program = request.argv[0]
        argv = [path, "--tool=callgrind", f"--callgrind-out-file={counts}",
                "--quiet", program if "/" in program else f"./{program}",
                *request.argv[1:]]
        began = time.monotonic()
        status, cut = common.run_bounded(argv, request, output, request.duration)
        elapsed = time.monotonic() - began
        if not counts.exists():
            raise OpFailed(f"callgrind wrote no counts: {_reason(output)}",
                           f"does `valgrind --tool=callgrind {' '.join(request.argv)}` run?")
        samples = read_counts(counts.read_text(errors="replace"),
                              str(Path(program).resolve()))
        exit_code = nativeframes.shell_status(status)
        profile = Profile(self.id, "edges", "instructions", samples, exit_code=exit_code,
                          duration=elapsed)
        if cut:
            profile.note = "the program was stopped (SIGINT) when the recording ended"
        if exit_code:
            profile.output = common.tail(output, "==")
        return profile


@dataclass
class _Function:
    name: str
    file: str | None
    dso: str | None
    own: float = 0.0
    first_line: int | None = None
    #: Calls to each callee: [count, instructions they cost in all].
    calls: dict[tuple[str, str | None, str | None], list[float]] = field(
        default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))


def read_counts(text: str, program: str | None) -> list[Sample]:
    """A callgrind file as call edges (the shape cProfile's are in): for
    each call from a caller to a callee, its count and the instructions it
    cost in all, and the callee's own instructions under that caller.
    callgrind counts a function's own instructions once, not by caller: they
    are shared among its callers by what each call cost, as gprof does."""
    functions: dict[tuple[str, str | None, str | None], _Function] = {}
    names: dict[str, dict[str, str]] = {"ob": {}, "fl": {}, "fn": {}}
    kinds = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
             "cfl": "fl", "fn": "fn", "cfn": "fn"}
    dso = file = here = None
    current: _Function | None = None
    callee: tuple[str, str | None, str | None] | None = None
    callee_dso = callee_file = None
    pending_calls: float | None = None
    line = 0

    def named(kind: str, value: str) -> str:
        found = _NAMED_RE.match(value)
        if found is None:
            return value
        table = names[kinds[kind]]
        if found.group("name") is not None:
            table[found.group("id")] = found.group("name")
        return table.get(found.group("id"), value)

    for raw in text.splitlines():
        if not raw or raw.startswith("#"):
            continue
        head = raw[0]
        if head.isdigit() or head in "+-*":
            parts = raw.split()
            line = _position(parts[0], line)
            cost = float(parts[1]) if len(parts) > 1 else 0.0
            if current is None:
                continue
            if pending_calls is not None and callee is not None:
                edge = current.calls[callee]
                edge[0] += pending_calls
                edge[1] += cost
                pending_calls = None
                # cob= and cfi= name a call's object and file only where they
                # differ from the caller's: the next call is in them again.
                callee_dso, callee_file = dso, here
            else:
                current.own += cost
                if line and (current.first_line is None or line < current.first_line):
                    current.first_line = line
            continue
        key, sep, value = raw.partition("=")
        if not sep:
            continue  # a header line: "events: Ir", "summary: ..."
        if key == "ob":
            dso = named(key, value)
        elif key == "fl":
            file = here = named(key, value)
        elif key in ("fi", "fe"):
            # Code of another file inlined into the function (a header's):
            # its cost is still the function's, its file the calls' default.
            here = callee_file = named(key, value)
        elif key == "fn":
            name = named(key, value)
            ident = (name, _known(file), _known(dso))
            current = functions.setdefault(ident, _Function(name, _known(file), _known(dso)))
            callee_dso, callee_file, here = dso, file, file
        elif key == "cob":
            callee_dso = named(key, value)
        elif key in ("cfi", "cfl"):
            callee_file = named(key, value)
        elif key == "cfn":
            name = named(key, value)
            callee = (name, _known(callee_file), _known(callee_dso))
            functions.setdefault(callee, _Function(*callee))
        elif key == "calls":
            pending_calls = float(value.split()[0])
        # jump=, jcnd= (--collect-jumps) and the rest say nothing of cost by function.
    return _edges(functions, program)


def _position(word: str, last: int) -> int:
    if word == "*":
        return last
    if word[0] in "+-":
        return last + int(word)
    return int(word, 0)


def _known(value: str | None) -> str | None:
    return None if value in (None, "???") else value


def _edges(functions: dict[tuple[str, str | None, str | None], _Function],
           program: str | None) -> list[Sample]:
    into: dict[tuple[str, str | None, str | None], float] = defaultdict(float)
    for caller in functions.values():
        for ident, (_count, cost) in caller.calls.items():
            into[ident] += cost

    def frame(function: _Function) -> ProfileFrame:
        name = CLONE_RE.sub("", function.name) if function.file else function.name
        return ProfileFrame(name, function.file, function.first_line,
                            nativeframes.library(name, function.file, function.dso, program))

    samples: list[Sample] = []
    for ident, caller in functions.items():
        inclusive = caller.own + sum(cost for _, cost in caller.calls.values())
        if not into.get(ident):
            samples.append(Sample((frame(caller),), caller.own, total=inclusive, calls=1))
        for callee_ident, (count, cost) in caller.calls.items():
            callee = functions[callee_ident]
            part = cost / into[callee_ident] if into[callee_ident] else 0.0
            samples.append(Sample((frame(caller), frame(callee)), callee.own * part,
                                  total=cost, calls=int(count)))
    return samples


def _reason(output: Path) -> str:
    try:
        lines = [line for line in output.read_text(errors="replace").splitlines()
                 if line.strip()]
    except OSError:
        return "no reason given"
    return lines[-1].lstrip("=0123456789 ") if lines else "no reason given"
