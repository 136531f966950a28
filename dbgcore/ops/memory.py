"""The memory ops: `dbg heap` answers where a program's bytes went over its
run (the peak, its time, the allocation sites holding it and whether they
grow), and `dbg leaks` what it never freed at exit, by allocation stack.

Both run the program under a profiler that measures memory
(:attr:`~dbgcore.backends.profiler.Profiler.measures` "heap" or "leaks"),
chosen for the program as `dbg profile` chooses one, in the front end's
process with no session daemon. A heap profile is a run in the store in
bytes, so `dbg hot` ranks its sites and `dbg profile diff` compares two; a
leak report is answered, not kept. The numbers are read by
:mod:`dbgcore.vocab.heaps`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from dbgcore.ops.profiling import keep_run
from dbgcore.ops.records import short_path
from dbgcore.shared.errors import OpFailed, UsageError
from dbgcore.shared.timeouts import check_timeout
from dbgcore.vocab import heaps
from dbgcore.vocab.model import signal_name
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:
    from collections.abc import Callable

    from dbgcore.backends.profiler import Profiler
    from dbgcore.backends.registry import Front
    from dbgcore.vocab.opspec import Payload, Via
    from dbgcore.vocab.profiles import Profile

#: Rows an answer shows by default (its whole text stays under 2 KB).
ROWS_SHOWN = 5
#: The most bytes of a default answer's text.
ANSWER_BYTES = 2048
#: The frames of a leak's stack an answer shows.
FRAMES_SHOWN = 4
#: Seconds added to the op's timeout past --duration (valgrind's start and
#: its reading of the program's debug info).
SLACK = 30.0
#: The most bytes of a profiler's snapshot or report file that are read.
FILE_LIMIT = 64 << 20


def _record(values: Payload, timeout: float, front: Front | None, measures: str
            ) -> tuple[type[Profiler], Path, list[str], Profile]:
    """Choose the profiler that measures ``measures`` for the program, and
    run the program under it."""
    from dbgcore.backends.profiler import RecordRequest, choose

    op = "heap" if measures == "heap" else "leaks"
    program = values.get("program")
    if not program:
        raise UsageError(f"dbg {op} needs a PROGRAM", f"dbg {op} ./prog ARGS...")
    path = Path(str(program))
    if not path.is_file():
        raise UsageError(f"no such program: {program}",
                         "give the path of the program's file (an executable or a script)")
    given = values.get("duration")
    duration = check_timeout(given, "--duration") if given is not None else None
    if front is None:
        raise OpFailed(f"dbg {op} needs the plugins' profilers (a front end's call)")
    found = front.host.profilers()
    tool = values.get("tool")
    if not tool and measures == "leaks":
        _refuse_unfit_leaks(found, path)
    cls = choose(found, tool, path, None, measures)
    args = [str(a) for a in values.get("args") or []]
    interval = values.get("interval")
    with tempfile.TemporaryDirectory(prefix=f"dbg-{op}-") as work:
        request = RecordRequest(
            Path(work), argv=[str(path.absolute()), *args], duration=duration,
            python=values.get("python") or None, cwd=Path.cwd(),
            timeout=max(timeout, (duration or 0) + SLACK), file_limit=FILE_LIMIT,
            interval=float(interval) if interval else None)
        profile = cls().record(request)
    return cls, path, args, profile


def _refuse_unfit_leaks(found: dict[str, type[Profiler]], path: Path) -> None:
    """A program no leak checker reads is refused, naming what does read
    it: the heap profiler that fits it (what a program holds on to is
    where its heap grows)."""
    checkers = [c for c in found.values() if c.measures == "leaks"]
    if any(c.fits(path) for c in checkers):
        return
    which = "; ".join(f"{c.id} reads {'/'.join(c.languages) or 'other'} programs"
                      for c in checkers) or "none is installed"
    heap = [c.id for c in found.values() if c.measures == "heap" and c.fits(path)]
    hint = (f"where its memory goes, by allocation site: dbg heap {path} "
            f"({', '.join(heap)})" if heap else "pass --tool NAME")
    raise UsageError(f"no leak checker reads {path}: {which}", hint)


def _common(cls: type[Profiler], path: Path, profile: Profile) -> Payload:
    version = cls.readiness().version
    answer: Payload = {"tool": f"{cls.id} {version}".strip(), "program": str(path),
                       "exit_code": profile.exit_code}
    if profile.output:
        answer["output"] = profile.output
    return answer


# -- `dbg heap` ---------------------------------------------------------------------------


def run_heap(values: Payload, session: str, timeout: float,
             front: Front | None) -> tuple[Payload, Via | None]:
    """Record the program's heap, keep it as a run, and answer its peak and
    the sites holding it."""
    cls, path, args, profile = _record(values, timeout, front, "heap")
    version = cls.readiness().version
    run_id, notes = keep_run(session, cls.id, version, str(path), args, profile, "dbg heap")
    found = heaps.heap_answer(profile.samples, profile.timeline)
    limit = int(values.get("limit") or ROWS_SHOWN)
    answer = _common(cls, path, profile)
    answer.update({
        "run": run_id or None, "unit": "bytes", "peak": int(found.peak),
        "peak_time": round(found.peak_time, 3), "end": int(found.end),
        "duration": round(profile.duration, 3), "snapshots": found.snapshots,
        "sites": [s.to_dict(found.whole) for s in found.sites[:limit]],
        "cut": max(len(found.sites) - limit, 0)})
    said = [n for n in (profile.note, *notes) if n]
    if said:
        answer["note"] = "; ".join(said)
    if not values.get("limit"):
        _fit(answer, render_heap)
    return answer, {"tool": cls.tool_name, "version": version}


def render_heap(p: Payload) -> str:
    size = heaps.size
    head = (f"heap of {short_path(p.get('program'))} with {p.get('tool')}: peak "
            f"{size(p.get('peak') or 0)} at {float(p.get('peak_time') or 0):.2f} s, "
            f"{size(p.get('end') or 0)} at the end ({p.get('snapshots')} snapshots)")
    if p.get("run"):
        head += f", run {p['run']}"
    lines = [head]
    if p.get("exit_code"):
        lines.append(f"{_ended(p['exit_code'])}; what was recorded is kept")
        lines += [f"  | {line}" for line in str(p.get("output") or "").splitlines()]
    if p.get("sites"):
        lines.append("allocation sites at the peak, by bytes held:")
    for site in p.get("sites") or []:
        place = _place(site) if site.get("file") else ""
        trend = (f"growing: {size(site['first'])} -> {size(site['last'])} over "
                 f"{site['snapshots']} snapshots" if site.get("growing") else
                 f"{size(site['first'])} first, {size(site['last'])} last")
        lines.append(f"  {site['share']:5.1f}% {size(site['bytes']):>10}  {site['function']}"
                     f"  {place}  ({trend})")
    if not p.get("sites"):
        lines.append("  (no heap held at the peak)")
    if p.get("cut"):
        lines.append(f"... {p['cut']} more sites (--limit N)")
    if p.get("run"):
        lines.append(f"next: `dbg hot --run {p['run']}` (bytes by function), "
                     f"`dbg profile diff {p['run']} RUN` (against another run)")
    if p.get("note"):
        lines.append(f"note: {p['note']}")
    return "\n".join(lines)


# -- `dbg leaks` --------------------------------------------------------------------------


def run_leaks(values: Payload, session: str, timeout: float,
              front: Front | None) -> tuple[Payload, Via | None]:
    """Run the program under a leak checker and answer what it never
    freed, by kind of loss and allocation site."""
    cls, path, _, profile = _record(values, timeout, front, "leaks")
    sites = heaps.leak_sites(profile.leaks)
    limit = int(values.get("limit") or ROWS_SHOWN)
    totals: Payload = {}
    for kind in heaps.LOSS_KINDS:
        of_kind = [leak for leak in profile.leaks if leak.kind == kind]
        totals[kind] = {"bytes": sum(leak.bytes for leak in of_kind),
                        "blocks": sum(leak.blocks for leak in of_kind)}
    answer = _common(cls, path, profile)
    rows = []
    for site in sites[:limit]:
        row = site.to_dict()
        # From the allocating frame out: valgrind's malloc above it is known.
        while len(row["stack"]) > 1 and row["stack"][0].get("library"):
            row["stack"].pop(0)
        row["frames_cut"] = max(len(row["stack"]) - FRAMES_SHOWN, 0)
        row["stack"] = row["stack"][:FRAMES_SHOWN]
        rows.append(row)
    answer.update({"lost": totals, "records": len(profile.leaks), "sites": rows,
                   "cut": max(len(sites) - limit, 0)})
    if profile.note:
        answer["note"] = profile.note
    if not values.get("limit"):
        _fit(answer, render_leaks)
    return answer, {"tool": cls.tool_name, "version": cls.readiness().version}


def render_leaks(p: Payload) -> str:
    size = heaps.size
    lost = p.get("lost") or {}
    said = ", ".join(f"{size(lost[k]['bytes'])} {k} lost in {lost[k]['blocks']} blocks"
                     for k in heaps.LOSS_KINDS if lost.get(k, {}).get("blocks")) \
        or "nothing lost"
    lines = [f"leaks of {short_path(p.get('program'))} with {p.get('tool')}: {said}"]
    if p.get("exit_code"):
        lines.append(_ended(p["exit_code"]))
        lines += [f"  | {line}" for line in str(p.get("output") or "").splitlines()]
    if not p.get("sites"):
        lines.append("  nothing was lost: every block was freed, or is still reachable")
    for site in p.get("sites") or []:
        lines.append(f"  {site['kind']} lost: {size(site['bytes'])} in {site['blocks']} "
                     f"block{'s' if site['blocks'] != 1 else ''} ({site['records']} "
                     f"record{'s' if site['records'] != 1 else ''}),"
                     f" allocated in {site['function']}  {_place(site)}")
        for frame in site.get("stack") or []:
            lines.append(f"      {frame['function']}  {_place(frame)}")
        if site.get("frames_cut"):
            lines.append(f"      ... {site['frames_cut']} more frames")
    if p.get("cut"):
        lines.append(f"... {p['cut']} more sites (--limit N)")
    if p.get("note"):
        lines.append(f"note: {p['note']}")
    return "\n".join(lines)


def _fit(answer: Payload, render: Callable[[Payload], str]) -> None:
    """Keep a default answer within :data:`ANSWER_BYTES`: its last sites
    are left out (and counted in ``cut``) while its text is longer (long
    paths, deep stacks). ``--limit`` asks for a number of sites instead."""
    sites = answer["sites"]
    while len(sites) > 1 and len(render(answer).encode()) > ANSWER_BYTES:
        sites.pop()
        answer["cut"] += 1


def _ended(code: int) -> str:
    """How the program ended: a negative code is the signal that killed it
    (the profiler's own process dies of the program's signal)."""
    if code < 0:
        return f"the program was killed by {signal_name(-code)}"
    return f"the program exited with code {code}"


def _place(row: Payload) -> str:
    place = short_path(row.get("file")) + (f":{row['line']}" if row.get("line") else "")
    return place or "?"



_PROGRAM = Arg("program", "str", "The program to run (an executable, or a script).",
               path=True)
_ARGS = Arg("args", "str", "The program's arguments.", multiple=True, passthrough=True)
_TOOL = Arg("tool", "str", "The profiler (`dbg plugins` lists them; default: the first "
            "that fits the program).", flags=("--tool",), metavar="NAME")
_DURATION = Arg("duration", "float", "Stop the program after S seconds (default: when it "
                "ends).", flags=("--duration",), metavar="S")
_LIMIT = Arg("limit", "int", f"Show N sites (default {ROWS_SHOWN}).", flags=("--limit",),
             minimum=1, metavar="N")
_PYTHON = Arg("python", "str", "A Python program's interpreter (default python3 from "
              "PATH).", flags=("--python",), path=True, metavar="PATH")

OPS: tuple[Op, ...] = (
    Op("heap", "Record where a program's memory goes: its peak, when, and the allocation "
       "sites holding it over the run (kept as a run for `dbg hot`).", (
        _PROGRAM, _ARGS, _TOOL, _DURATION,
        Arg("interval", "float", "Seconds between snapshots, where the profiler takes them "
            "itself (a Python program's; default 0.1).", flags=("--interval",),
            metavar="S"),
        _LIMIT, _PYTHON,
    ), needs="none", send="local", run=run_heap, render=render_heap, group="profiling",
       details=(
           "No session is needed: the program runs under a heap profiler (valgrind's "
           "massif for a native program, tracemalloc for a Python one) until it ends, "
           "and a program that crashes keeps its snapshots. The answer is the peak, its "
           "time, the heap at the end, and the allocation sites at the peak (the "
           "program's innermost frame of each stack), each with its bytes over the run "
           "and whether it kept growing.\n\n"
           "  dbg heap ./server --requests 100\n"
           "  dbg heap cache.py\n"
           "  dbg hot            (the heap run's bytes by function)")),
    Op("leaks", "Run a program and answer what it never freed at exit, by allocation "
       "stack (definitely, indirectly, possibly lost).", (
        _PROGRAM, _ARGS, _TOOL, _DURATION, _LIMIT,
    ), needs="none", send="local", run=run_leaks, render=render_leaks, group="profiling",
       details=(
           "The program runs under valgrind's memcheck (--leak-check=full); at its exit "
           "each loss record is read with its bytes, blocks and stack, and grouped by "
           "the program's frame that allocated it. A Python program is refused: its "
           "memory is the interpreter's to free; `dbg heap` says what it holds on to.\n\n"
           "  dbg leaks ./prog ARGS...")),
)

#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
