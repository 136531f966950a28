"""The profiling ops: `dbg profile` records where a program's time goes,
and `dbg hot`, `callers` and `callees` ask the recorded profile.

A profiler is the second kind of backend
(:class:`~dbgcore.backends.profiler.Profiler`, registered by plugins through
``dbg_register_profilers``), chosen for the program as a debugger is: by its
kind, or ``--tool``. Every op here is answered in the front end's process,
with no session daemon: a profile needs no debugger, and the program (or
the process, ``--pid``) runs for as long as it is recorded. What was
recorded is a run in the session store (:meth:`dbgcore.store.db.Store.record_profile`),
so the questions are asked of the store, also later, and of any earlier run
(``--run``). The numbers are read by :mod:`dbgcore.vocab.profiles`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from dbgcore.ops.records import open_store, short_path
from dbgcore.shared.errors import DbgError, OpFailed, UsageError
from dbgcore.shared.timeouts import check_timeout
from dbgcore.vocab import profiles
from dbgcore.vocab.heaps import size
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from dbgcore.backends.profiler import Profiler
    from dbgcore.backends.registry import Front
    from dbgcore.store.db import Store
    from dbgcore.vocab.opspec import Payload, Via
    from dbgcore.vocab.profiles import Profile

#: Rows `dbg profile` shows of its top functions, and `hot`/`callers`/`callees` by default.
TOP_SHOWN = 5
#: How long a resume of the session's program is waited on: it answers
#: "running" once the program has not stopped in that time.
RESUME = 0.5
#: What --clock may ask for (a profiler's ``clocks`` says which it tells apart).
CLOCKS = ("cpu", "wall")
ROWS_SHOWN = 10
#: Seconds added to the op's timeout past --duration, for the profiler to
#: start and write its file.
SLACK = 20.0


# -- `dbg profile` ------------------------------------------------------------------------


def run_profile(values: Payload, session: str, timeout: float,
                front: Front | None) -> tuple[Payload, Via | None]:
    """Choose the profiler, record the program (or process), keep the
    profile as a run of the session in the store, and answer its top
    functions."""
    from dbgcore.backends.profiler import RecordRequest, choose

    program = values.get("program")
    if program == "diff" and not Path("diff").exists():
        # `dbg profile diff A B`, the spelling of `dbg profile-diff`.
        words = [str(a) for a in values.get("args") or []]
        if len(words) != 2 or not all(w.isdigit() for w in words):
            raise UsageError("dbg profile diff needs two runs: RUN_A RUN_B",
                             "ids from `dbg runs`: dbg profile diff 3 4")
        return run_profile_diff({"run_a": int(words[0]), "run_b": int(words[1])}, session,
                                timeout, front)
    pid = values.get("pid")
    given = values.get("duration")
    # Seconds, checked as a timeout is: more than 0, at most a day.
    duration = check_timeout(given, "--duration") if given is not None else None
    url = values.get("url") or None
    if program and pid is not None:
        raise UsageError("give a PROGRAM or --pid, not both",
                         "dbg profile slow.py ARGS..., or dbg profile --pid 4242")
    if url and (program or pid is not None):
        raise UsageError("give a PROGRAM, --pid or --url, only one",
                         "dbg profile --url http://127.0.0.1:6060/debug/pprof/profile")
    resumed: str | None = None
    if not program and pid is None and not url:
        pid, resumed = _session_program(session)
    path = Path(str(program)) if program else None
    if front is None:
        raise OpFailed("dbg profile needs the plugins' profilers (a front end's call)")
    found_profilers = front.host.profilers()
    # A folder is a program where a profiler takes one (a Go package's tests).
    if path is not None and not path.is_file() and not (
            path.is_dir() and any(c.fits(path) for c in found_profilers.values())):
        raise UsageError(f"no such program: {program}",
                         "give the path of the program's file (a script)")
    cls = (_url_reader(found_profilers, values.get("tool")) if url else
           choose(found_profilers, values.get("tool"), path,
                  int(pid) if pid is not None else None))
    _refuse_what_it_cannot(cls, values, found_profilers)
    version = cls.readiness().version
    args = [str(a) for a in values.get("args") or []]
    with tempfile.TemporaryDirectory(prefix="dbg-profile-") as work:
        request = RecordRequest(
            Path(work), argv=[str(path), *args] if path is not None else (),
            pid=int(pid) if pid is not None else None,
            url=str(url) if url else None,
            duration=duration,
            rate=int(values["rate"]) if values.get("rate") else None,
            native=bool(values.get("native")), clock=values.get("clock") or None,
            python=values.get("python") or None,
            cwd=Path.cwd(), timeout=max(timeout, (duration or 0) + SLACK))
        try:
            profile = cls().record(request)
        finally:
            if resumed is not None:
                paused_at = _pause_again(session, timeout)
    if resumed is not None:
        profile.note = "; ".join(n for n in (
            profile.note, f"the session's program was stopped at {resumed}: it ran for the "
            f"profile and was paused again{paused_at}") if n)
    tool = f"{cls.id} {version}".strip()
    shown_program = (str(path) if path is not None else str(url) if url
                     else f"process {pid}")
    run_id, notes = keep_run(session, cls.id, version, shown_program, args, profile,
                             "dbg profile")
    found = profiles.hot(profile)
    picture = _flame_graph(profile, run_id, f"{shown_program}: {tool}, run {run_id}")
    answer: Payload = {
        "run": run_id or None, "tool": tool, "program": shown_program, "pid": profile.pid,
        "shape": profile.shape, "unit": profile.unit, "rate": profile.rate,
        "duration": round(profile.duration, 3), "weight": profile.total_weight,
        "samples": len(profile.samples), "exit_code": profile.exit_code,
        "top": [row.to_dict(found.whole) for row in found.rows[:TOP_SHOWN]],
        "folded": {"functions": found.folded,
                   "share": profiles.share(found.folded_weight, found.whole)}}
    if picture is not None:
        answer["flamegraph"] = picture
    said = [n for n in (profile.note, *notes) if n]
    if not profile.samples:
        exact = next((p.id for p in found_profilers.values()
                      if p.deterministic and p is not cls), None)
        said.append("nothing was recorded: a program that ends within a moment is over "
                    "before a sampler sees it"
                    + (f" (`--tool {exact}` counts every call)" if exact else ""))
    if said:
        answer["note"] = "; ".join(said)
    if profile.output:
        answer["output"] = profile.output
    return answer, {"tool": cls.tool_name, "version": version}


def keep_run(session: str, tool: str, version: str, program: str, args: list[str],
             profile: Profile, by: str) -> tuple[int, list[str]]:
    """Keep a profiler's record as a run of its own session in the store
    (backend ``profile``, so what reads debugging sessions passes over it):
    the run's id (0: not kept) and the store's notes."""
    store = open_store(by)
    try:
        session_id = store.open_session(session, "profile", tool, version, program, args,
                                        os.getcwd())
        run_id = store.open_run(session_id, program, args)
        store.record_profile(run_id, profile)
        store.end_run(run_id, profile.exit_code, None)
        store.end_session(session_id)
        return run_id, store.take_notes()
    finally:
        store.close()


def _session_program(session: str) -> tuple[int, str | None]:
    """The live session's program, to profile while it runs: its process,
    and where it was stopped when it had to be resumed for it (None: it was
    running). No session, or one whose program has ended, is refused."""
    from dbgcore.shared import client

    usage = ("dbg profile slow.py ARGS..., dbg profile --pid 4242, or in a live session "
             "(`dbg start`) dbg profile --duration 3")
    status = client.live_status(session)
    if status is None:
        raise UsageError("dbg profile needs a PROGRAM, --pid PID, --url URL, or a live "
                         "session", usage)
    answer = _asked(session, "status", {}, RESUME)
    pids = [int(p) for p in answer.get("pids") or []]
    state = answer.get("state")
    if state not in ("stopped", "running") or not pids:
        raise UsageError(f"session {session!r} has no running program to profile "
                         f"(it is {state})", usage)
    if state == "running":
        return pids[0], None
    where = _place(answer.get("location"))
    ran = _asked(session, "continue", {}, RESUME)
    if ran.get("state") != "running":
        raise UsageError(f"the session's program did not run on from {where}: it is "
                         f"{ran.get('state')} at {_place(ran.get('location'))}",
                         "a breakpoint hit at once? `dbg break --list`, then `dbg continue`")
    return pids[0], where


def _pause_again(session: str, timeout: float) -> str:
    """Pause the session's program that was resumed for a profile: where
    it is now (nothing when it ended meanwhile, or did not pause)."""
    try:
        answer = _asked(session, "pause", {}, timeout)
    except DbgError as exc:
        return f" (the pause failed: {exc.message})"
    return f" at {_place(answer.get('location'))}" if answer.get("location") else ""


def _asked(session: str, op: str, args: Payload, timeout: float) -> Payload:
    from dbgcore.shared import client

    response = client.call(session, op, args, timeout)
    if not response.get("ok"):
        raise DbgError.from_wire(response.get("error") or {})
    return response.get("result") or {}


def _place(location: object) -> str:
    """``file.py:12`` of a stop's location; "?" without one."""
    if not isinstance(location, dict):
        return "?"
    return f"{short_path(location.get('file'))}:{location.get('line')}"
def _url_reader(found: Mapping[str, type[Profiler]], tool: object) -> type[Profiler]:
    """The profiler that reads a profile a running program serves (--url):
    ``tool``'s, which must read one, else the first that does."""
    from dbgcore.backends.profiler import choose

    readers = [c.id for c in found.values() if c.reads_url]
    if tool:
        cls = choose(found, str(tool), None, None)
        if not cls.reads_url:
            raise UsageError(f"{cls.id} reads no profile from a URL (--url)",
                             f"--tool {readers[0]}" if readers else "leave out --url")
        return cls
    if not readers:
        raise UsageError("no profiler reads a profile from a URL (--url)",
                         "run the program under one: dbg profile PROGRAM")
    return choose(found, readers[0], None, None)


def _refuse_what_it_cannot(cls: type[Profiler], values: Payload,
                           found: Mapping[str, type[Profiler]]) -> None:
    """An option the chosen profiler would ignore is refused, naming a
    profiler that takes it: --native of one that reads no native frames,
    --clock of one that measures one kind of time,
    --rate of one that counts every call instead of sampling."""
    def other(takes: Callable[[type[Profiler]], bool], option: str, leave: str) -> str:
        # One of the same language first: py-spy for cProfile's program, not jfr.
        fitting = sorted((c for c in found.values() if takes(c)),
                         key=lambda c: not set(c.languages) & set(cls.languages))
        return f"--tool {fitting[0].id} {option}" if fitting else f"leave out {leave}"

    if values.get("native") and not cls.native_frames:
        raise UsageError(f"{cls.id} reads no native frames (--native)",
                         other(lambda c: c.native_frames, "--native", "--native"))
    clock = values.get("clock")
    if clock and clock not in CLOCKS:
        raise UsageError(f"unknown clock {clock!r}",
                         "--clock cpu (threads running) or --clock wall (waits too)")
    if clock and clock not in cls.clocks:
        raise UsageError(f"{cls.id} cannot tell CPU time from wall time (--clock)",
                         other(lambda c: clock in c.clocks, f"--clock {clock}", "--clock"))
    if values.get("rate") and cls.deterministic:
        raise UsageError(f"{cls.id} counts every call: it takes no sampling rate (--rate)",
                         other(lambda c: not c.deterministic, "--rate N", "--rate"))


def _flame_graph(profile: Profile, run_id: int, title: str) -> str | None:
    """The run's flame graph written beside the store (``profiles/run-N.svg``
    in DBG_HOME): its path, or None for a profile with no stacks (cProfile's)."""
    from dbgcore.ops.flamegraph import svg
    from dbgcore.shared.paths import dbg_home, private_dir

    text = svg(profile, title)
    if text is None or not run_id:
        return None
    folder = private_dir(dbg_home() / "profiles")
    path = folder / f"run-{run_id}.svg"
    path.write_text(text, encoding="utf-8")
    return str(path)


def render_profile(p: Payload) -> str:
    if "changes" in p:  # `dbg profile diff A B`
        return render_profile_diff(p)
    unit = _amount(p)
    ended = p.get("exit_code")
    program = str(p.get("program") or "")
    shown = program if "://" in program else short_path(program)  # a URL (--url) whole
    head = f"profiled {shown} with {p.get('tool')}: {unit}"
    if p.get("run"):
        head += f", run {p['run']}"
    lines = [head]
    if ended:
        lines.append(f"the program exited with code {ended}; what was recorded is kept")
        lines += [f"  | {line}" for line in str(p.get("output") or "").splitlines()]
    if p.get("top"):
        lines.append("top functions, by own time" + _folded_words(p.get("folded")) + ":")
        lines += [_row_line(r, calls=p.get("shape") == profiles.EDGES) for r in p["top"]]
        first = p["top"][0]["function"]
        lines.append(f"next: `dbg hot`, `dbg callers {first}`, `dbg callees {first}`")
    if p.get("flamegraph"):
        lines.append(f"flame graph: {p['flamegraph']}")
    if p.get("note"):
        lines.append(f"note: {p['note']}")
    return "\n".join(lines)


def _amount(p: Payload) -> str:
    if p.get("unit") == "samples":
        rate = p.get("rate") or 0
        return (f"{int(p.get('weight') or 0)} samples at {rate:g} Hz "
                f"({float(p.get('duration') or 0):.2f} s)")
    if p.get("unit") == "instructions":  # a count of the CPU's work (callgrind), not time
        return (f"{float(p.get('weight') or 0):,.0f} instructions counted in "
                f"{p.get('samples')} call edges ({float(p.get('duration') or 0):.2f} s)")
    return f"{float(p.get('duration') or 0):.3f} s counted in {p.get('samples')} call edges"


def _folded_words(folded: Payload | None) -> str:
    if not folded or not folded.get("functions"):
        return ""
    count = int(folded["functions"])
    return (f" ({count} library function{'s' if count != 1 else ''} folded into their "
            f"program callers)")


# -- asking a recorded profile ------------------------------------------------------------


def _recorded(store: Store, session: str, asked: object) -> tuple[int, Profile]:
    """The profile of run ``asked`` (--run), else the session's latest."""
    said = "".join(f"; {note}" for note in store.notes)
    if asked is not None:
        run_id = int(str(asked))
        found = store.profile(run_id)
        if found is None:
            raise UsageError(f"run {run_id} has no profile{said}",
                             "list the runs with `dbg runs --all`; record one: dbg profile "
                             "PROGRAM")
        return run_id, found
    latest = store.latest_profile_run(session)
    found = store.profile(latest) if latest is not None else None
    if latest is None or found is None:
        raise UsageError(f"no profile recorded in session {session!r}{said}",
                         "record one: dbg profile PROGRAM (or --pid PID)")
    return latest, found


def _read(values: Payload, session: str, by: str) -> tuple[int, Profile]:
    store = open_store(by)
    try:
        return _recorded(store, session, values.get("run"))
    finally:
        store.close()


def run_hot(values: Payload, session: str, timeout: float,
            front: Front | None) -> tuple[Payload, Via | None]:
    by = str(values.get("by") or "function")
    if by not in profiles.BY:
        raise UsageError(f"--by {by}: not one of {', '.join(profiles.BY)}", "--by line")
    if values.get("self") and values.get("total"):
        raise UsageError("--self or --total, not both", "dbg hot --total")
    run_id, profile = _read(values, session, "dbg hot")
    found = profiles.hot(profile, by, fold=not values.get("all"))
    order = "total" if values.get("total") else "self"
    rows = found.rows if order == "self" else sorted(
        found.rows, key=lambda r: (-r.total_weight, -r.self_weight, r.key[0]))
    limit = int(values.get("limit") or ROWS_SHOWN)
    answer: Payload = {
        "run": run_id, "tool": profile.tool, "by": by, "order": order,
        "shape": profile.shape, "unit": profile.unit, "whole": found.whole,
        "rows": [r.to_dict(found.whole) for r in rows[:limit]],
        "cut": max(len(rows) - limit, 0)}
    if not values.get("all"):
        answer["folded"] = {"functions": found.folded,
                            "share": profiles.share(found.folded_weight, found.whole)}
    return answer, None


def render_hot(p: Payload) -> str:
    # A heap profile's weights are the bytes held at its peak, not time.
    what = "the bytes" if p.get("unit") == "bytes" else "the time"
    order = f"own {what[4:]}" if p.get("order") == "self" else \
        f"total {what[4:]} (with what it calls)"
    lines = [f"run {p.get('run')} ({p.get('tool')}): where {what} went, by {p.get('by')}, "
             f"{order} first"]
    calls = p.get("shape") == profiles.EDGES
    lines.append("    own   total" + ("    calls" if calls else "") + "  where")
    lines += [_row_line(r, calls=calls) for r in p.get("rows") or []]
    if not p.get("rows"):
        lines.append("  (nothing recorded)")
    if p.get("cut"):
        lines.append(f"... {p['cut']} more (--limit N)")
    folded = p.get("folded")
    if folded and folded.get("functions"):
        count = int(folded["functions"])
        lines.append(f"{count} library function{'s' if count != 1 else ''} folded into their "
                     f"program callers ({folded.get('share')}% of {what}"
                     f"{'' if p.get('unit') == 'bytes' else ' spent'} in them); "
                     "--all shows them")
    return "\n".join(lines)


def _row_line(r: Payload, calls: bool = False) -> str:
    counted = f" {r.get('calls', 0):>8}" if calls else ""
    return f"  {r['self_share']:5.1f}% {r['total_share']:5.1f}%{counted}  {_where(r)}"


def _where(r: Payload) -> str:
    """A row's function and place: ``is_word  regexes.py:16``; a library's
    with its name (``compile  [re] __init__.py``)."""
    name = str(r.get("function") or "?")
    file = r.get("file")
    if not file:
        return name
    place = short_path(file) + (f":{r['line']}" if r.get("line") else "")
    if r.get("library"):
        place = f"[{r['library']}] {place}"
    return place if name == file else f"{name}  {place}"


def _sites(values: Payload, session: str, which: str) -> tuple[Payload, Via | None]:
    name = str(values.get("function") or "").strip()
    if not name:
        raise UsageError(f"dbg {which} needs a FUNCTION", f"dbg {which} is_word")
    run_id, profile = _read(values, session, f"dbg {which}")
    found = (profiles.callers if which == "callers" else profiles.callees)(profile, name)
    if not found.found:
        hottest = ", ".join(profiles.function_names(profile)[:5]) or "none"
        raise UsageError(f"no function {name!r} in run {run_id}'s profile",
                         f"its hottest: {hottest} (`dbg hot`)")
    limit = int(values.get("limit") or ROWS_SHOWN)
    answer: Payload = {
        "run": run_id, "tool": profile.tool, "function": name, "shape": profile.shape,
        "found": [f.to_dict() for f in found.found],
        "self_share": profiles.share(found.self_weight, found.whole),
        "total_share": profiles.share(found.total_weight, found.whole),
        "sites": [r.to_dict(found.whole) for r in found.rows[:limit]],
        "cut": max(len(found.rows) - limit, 0)}
    if profile.unit == "bytes":  # a heap run's: shares of the bytes held, not of time
        answer["unit"] = "bytes"
    return answer, None


def run_callers(values: Payload, session: str, timeout: float,
                front: Front | None) -> tuple[Payload, Via | None]:
    return _sites(values, session, "callers")


def run_callees(values: Payload, session: str, timeout: float,
                front: Front | None) -> tuple[Payload, Via | None]:
    return _sites(values, session, "callees")


def _render_sites(p: Payload, which: str) -> str:
    found = p.get("found") or []
    where = ", ".join(short_path(f.get("file")) for f in found[:3])
    lines = [f"{which} {p.get('function')} ({where}; run {p.get('run')}, {p.get('tool')}): "
             f"{p.get('total_share')}% of the {_weighs(p)} in it, {p.get('self_share')}% "
             "its own"]
    calls = p.get("shape") == profiles.EDGES
    for site in p.get("sites") or []:
        counted = f" {site.get('calls', 0):>8} calls" if calls else ""
        lines.append(f"  {site['total_share']:5.1f}%{counted}  {_site(site, which)}")
    if p.get("cut"):
        lines.append(f"... {p['cut']} more (--limit N)")
    return "\n".join(lines)


def _weighs(p: Payload) -> str:
    return "bytes held are" if p.get("unit") == "bytes" else "time is"


def _site(site: Payload, which: str) -> str:
    if which == "callees of" and site.get("function") != "(self)" and site.get("line"):
        # The line is the caller's: where in FUNCTION the call is.
        return f"{_where({**site, 'line': None})}  from line {site['line']}"
    return _where(site)


def render_callers(p: Payload) -> str:
    return _render_sites(p, "callers of")


def render_callees(p: Payload) -> str:
    return _render_sites(p, "callees of")


def run_profile_diff(values: Payload, session: str, timeout: float,
                     front: Front | None) -> tuple[Payload, Via | None]:
    """What grew and what shrank between two profiled runs (before and
    after a fix): each program function's own time in both."""
    store = open_store("dbg profile diff")
    try:
        (a, before), (b, after) = (_recorded(store, session, values.get(key))
                                   for key in ("run_a", "run_b"))
    finally:
        store.close()
    if (before.unit == "bytes") != (after.unit == "bytes"):
        raise UsageError(f"run {a} and run {b} measure different things: "
                         f"{before.unit} and {after.unit}",
                         "compare two heap runs (`dbg heap`), or two time profiles")
    if (before.unit == "instructions") != (after.unit == "instructions"):
        counted, timed = (a, b) if before.unit == "instructions" else (b, a)
        raise UsageError(f"run {counted} counts instructions, run {timed} time: the two "
                         "cannot be compared",
                         "profile both runs with the same profiler (--tool)")
    changes = profiles.diff(before, after)
    limit = int(values.get("limit") or ROWS_SHOWN)
    answer: Payload = {
        "run_a": a, "run_b": b, "tool_a": before.tool, "tool_b": after.tool,
        "seconds_a": round(profiles.seconds(before, before.total_weight), 3),
        "seconds_b": round(profiles.seconds(after, after.total_weight), 3),
        "changes": [c.to_dict() for c in changes[:limit]],
        "cut": max(len(changes) - limit, 0)}
    if before.unit == "bytes":
        # The weights are bytes held at the peak, not seconds.
        answer["unit"] = "bytes"
        answer["bytes_a"] = int(answer.pop("seconds_a"))
        answer["bytes_b"] = int(answer.pop("seconds_b"))
    if before.unit == after.unit == "instructions":
        # Counts, not time: said so, and shown as counts.
        answer["unit"] = "instructions"
    return answer, None


def render_profile_diff(p: Payload) -> str:
    """Each function's own cost in both runs, largest change first: seconds,
    a heap run's bytes held at the peak, or callgrind's instructions (in
    millions)."""
    unit = p.get("unit")
    runs = (p["run_a"], p["tool_a"], p["run_b"], p["tool_b"])
    if unit == "bytes":
        head = ("run {} ({}, {} at the peak) -> run {} ({}, {}): bytes held at the peak by "
                "function, largest change first").format(
                    runs[0], runs[1], size(p["bytes_a"]), runs[2], runs[3], size(p["bytes_b"]))
        columns = "      before       after      change  function"

        def cells(c: Payload) -> str:
            change = ("+" if c["change"] >= 0 else "") + size(c["change"])
            return f"{size(c['before']):>10} {size(c['after']):>10} {change:>11}"
    elif unit == "instructions":
        head = (f"run {runs[0]} ({runs[1]}, {p['seconds_a'] / 1e6:,.1f} M instructions) -> run "
                f"{runs[2]} ({runs[3]}, {p['seconds_b'] / 1e6:,.1f} M): own instructions by "
                "function, largest change first")
        columns = "    before M    after M   change M  function"

        def cells(c: Payload) -> str:
            return (f"{c['before'] / 1e6:10.2f} {c['after'] / 1e6:10.2f} "
                    f"{c['change'] / 1e6:+10.2f}")
    else:
        head = (f"run {runs[0]} ({runs[1]}, {p['seconds_a']:.2f} s) -> run {runs[2]} "
                f"({runs[3]}, {p['seconds_b']:.2f} s): own time by function, largest change "
                "first")
        columns = "     before      after     change  function"

        def cells(c: Payload) -> str:
            return f"{c['before']:8.3f}s {c['after']:8.3f}s {c['change']:+9.3f}s"
    lines = [head, columns]
    for c in p.get("changes") or []:
        # A heap site without a file (a library's) shows none; a time row
        # always shows where, "?" when unknown.
        place = "" if unit == "bytes" and not c.get("file") else \
            f"  {short_path(c.get('file'))}"
        lines.append(f"  {cells(c)}  {c['function']}{place}  "
                     f"({c['before_share']}% -> {c['after_share']}%)")
    if p.get("cut"):
        lines.append(f"... {p['cut']} more (--limit N)")
    return "\n".join(lines)


_RUN = Arg("run", "int", "The profiled run (`dbg runs`; default the session's latest "
           "profile).", flags=("--run",), minimum=1, metavar="ID")
_LIMIT = Arg("limit", "int", f"Show N rows (default {ROWS_SHOWN}).", flags=("--limit",),
             minimum=1, metavar="N")

OPS: tuple[Op, ...] = (
    Op("profile", "Record where a program's time goes (or a running process's, --pid), "
       "with the profiler that fits it; the profile is kept as a run for `dbg hot`.", (
        Arg("program", "str", "The program to run under the profiler (a Python script, a "
            "native executable, a Go package's folder for its tests).",
            path=True),
        Arg("args", "str", "The program's arguments.", multiple=True, passthrough=True),
        Arg("tool", "str", "The profiler (`dbg plugins` lists them; default: the first "
            "that fits the program).", flags=("--tool",), metavar="NAME"),
        Arg("duration", "float", "Record for S seconds, then stop the program (default: "
            "until it ends; 5 s of a --pid).", flags=("--duration",), metavar="S"),
        Arg("rate", "int", "Samples a second (a sampler; default 100, perf's 999).",
            flags=("--rate",), minimum=1, metavar="HZ"),
        Arg("pid", "int", "Attach to this running process instead.", flags=("--pid",),
            minimum=1),
        Arg("url", "str", "Read the CPU profile a running program serves instead (Go's "
            "net/http/pprof: http://127.0.0.1:PORT/debug/pprof/profile; loopback only).",
            flags=("--url",), metavar="URL"),
        Arg("native", "bool", "Also native frames (C extensions), where the profiler "
            "reads them.",
            flags=("--native",)),
        Arg("clock", "str", "cpu (threads running) or wall (waiting ones too), where the "
            "profiler tells them apart (default: its own).", flags=("--clock",),
            metavar="KIND"),
        Arg("python", "str", "The program's Python (default python3 from PATH).",
            flags=("--python",), path=True, metavar="PATH"),
    ), needs="none", send="local", run=run_profile, render=render_profile,
       group="profiling", details=(
           "No session is needed: the program runs under the profiler until it ends (or "
           "--duration), and a program that fails or crashes keeps what was recorded. "
           "With neither PROGRAM nor --pid, a live session's program is profiled as it runs "
           "(5 s, or --duration): a stopped one runs for it and is paused again. "
           "The answer is the top functions by own time, library frames folded into the "
           "program's frame that called them, and a sampled profile's flame graph (an SVG "
           "file in DBG_HOME/profiles, its path given).\n\n"
           "  dbg profile slow.py input.txt\n"
           "  dbg profile --tool cprofile slow.py\n"
           "  dbg profile --pid 4242 --duration 3\n"
           "  dbg profile --duration 2      (the session's program)\n"
           "  dbg profile ./gopkg -run TestWork     (a Go package's tests, pprof)\n"
           "  dbg profile --url http://127.0.0.1:6060/debug/pprof/profile --duration 3\n"
           "  dbg profile diff 3 4     (two runs: what grew, what shrank)")),
    Op("profile-diff", "What grew and what shrank between two profiled runs (also "
       "`dbg profile diff A B`): each function's own time in both.", (
        Arg("run_a", "int", "The run before (`dbg runs`).", required=True, minimum=1,
            metavar="RUN_A"),
        Arg("run_b", "int", "The run after.", required=True, minimum=1, metavar="RUN_B"),
        _LIMIT,
    ), needs="none", send="local", run=run_profile_diff, render=render_profile_diff,
       group="profiling", details=(
           "Profile the program before a fix and after it; the answer is each of the "
           "program's functions with its own time (library frames folded into it) in "
           "both runs, the largest change first.\n\n"
           "  dbg profile diff 3 4")),
    Op("hot", "The profiled run's functions (lines, files) by their share of the time.", (
        Arg("by", "str", "function, line or file (default function).", flags=("--by",),
            metavar="KIND"),
        Arg("self", "bool", "Rank by own time (the default).", flags=("--self",)),
        Arg("total", "bool", "Rank by total time, with what each calls.",
            flags=("--total",)),
        Arg("all", "bool", "Show library functions instead of folding them into their "
            "callers.", flags=("--all",)),
        _LIMIT, _RUN,
    ), needs="none", send="local", run=run_hot, render=render_hot, group="profiling"),
    Op("callers", "Who calls FUNCTION in the profiled run, and the cost of each call site.", (
        Arg("function", "str", "The function (its name, or FILE:NAME).", required=True),
        _LIMIT, _RUN,
    ), needs="none", send="local", run=run_callers, render=render_callers,
       group="profiling"),
    Op("callees", "What FUNCTION calls in the profiled run, and the cost of each call.", (
        Arg("function", "str", "The function (its name, or FILE:NAME).", required=True),
        _LIMIT, _RUN,
    ), needs="none", send="local", run=run_callees, render=render_callees,
       group="profiling"),
)

#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
