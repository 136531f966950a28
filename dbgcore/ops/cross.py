"""`dbg cross FUNCTION`: what dbg knows of one function, in one answer.

A function's story is spread over the store: the stops recorded in it
(`dbg hits`), its traced calls (`dbg calls`, with their durations), its
share of a profile and who called it there (`dbg hot`, `dbg callers`). This
op joins them for the session's latest runs of each kind, so that a question
("is this the slow function? what did it get when it went wrong?") is one
call. For native code in a live, stopped session it adds the function's
disassembly, each instruction marked with its source line's share of the
profile's own time: a profiler samples lines, so the hottest instructions
are those of the hottest lines.

Answered in the front end's process, like `dbg hits`: the store is read
there; only the disassembly is asked of the session's daemon.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from dbgcore.ops.history import summed_calls
from dbgcore.ops.records import (
    call_line,
    duration_text,
    open_store,
    place,
    same_function,
    short_path,
)
from dbgcore.shared.errors import DbgError, UsageError
from dbgcore.vocab import profiles
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front
    from dbgcore.store.db import Store
    from dbgcore.vocab.opspec import Payload, Via
    from dbgcore.vocab.profiles import Profile

#: Of each part, what the answer shows by default.
HITS_SHOWN = 3
CALLS_SHOWN = 3
SITES_SHOWN = 3
LINES_SHOWN = 5
#: Instructions asked of the debugger (the function's are kept of them).
DISASM_COUNT = 80
DISASM_SHOWN = 40


def run(values: Payload, session: str, timeout: float,
        front: Front | None) -> tuple[Payload, Via | None]:
    function = str(values.get("function") or "").strip()
    if not function:
        raise UsageError("cross needs a FUNCTION", "dbg cross parse_line")
    store = open_store("dbg cross")
    try:
        hits = _hits(store, session, function)
        calls = _calls(store, session, function)
        profile = _profile(store, session, function)
        notes = store.take_notes()
    finally:
        store.close()
    answer: Payload = {"function": function, "stops": hits, "traced": calls,
                       "sampled": profile}
    answer["disasm"], via = _disasm(session, function, profile, timeout)
    if not (hits["total"] or calls["total"] or profile.get("found")):
        notes.append(f"dbg knows nothing of {function} yet: no stop in it, no traced call, "
                     "no profile sample (dbg break, dbg trace, dbg profile record them)")
    if notes:
        answer["note"] = "; ".join(notes)
    return answer, via


def _hits(store: Store, session: str, function: str) -> Payload:
    """The stops recorded in it, in the session's latest debugging session."""
    sid = store.latest_session_id(session)
    # Chosen on the store's index; only the stops shown are read whole.
    mine = [i for i, state, name in (store.stop_places(sid) if sid is not None else [])
            if state == "stopped" and same_function(name, function)]
    shown = [{"id": r.get("id"), "file": r.get("file"), "line": r.get("line"),
              "reason": r.get("reason"), "run": r.get("run"),
              "locals": (r.get("locals") or [])[:6]}
             for r in store.stops_by_id(mine[-HITS_SHOWN:])]
    return {"total": len(mine), "latest": shown}


def _calls(store: Store, session: str, function: str) -> Payload:
    """Its traced calls in the latest debugged run that traced any."""
    for run in reversed(store.runs(session, limit=20, debugged=True)):
        if not run.get("calls"):
            continue
        rows = [r for r in store.calls(int(run["id"]))
                if same_function(r.get("function"), function)]
        if not rows:
            continue
        sums = summed_calls(rows, "function")[0]
        by_caller = summed_calls(rows, "caller")
        return {"run": run["id"], "total": len(rows), "raised": sums["raised"],
                "time": sums["time"], "mean": sums["mean"], "longest": sums["longest"],
                "sites": by_caller[:SITES_SHOWN], "latest": rows[-CALLS_SHOWN:]}
    return {"total": 0}


def _profile(store: Store, session: str, function: str) -> Payload:
    """Its share of the session's latest profile of time (a heap run's
    bytes are `dbg heap`'s), its callers there, and the lines of it where
    the samples fell."""
    run_id = store.latest_profile_run(session, of_time=True)
    profile = store.profile(run_id) if run_id is not None else None
    if run_id is None or profile is None:
        return {"found": False, "run": None}
    sites = profiles.callers(profile, function)
    if not sites.found:
        return {"found": False, "run": run_id, "tool": profile.tool}
    whole = sites.whole
    return {"found": True, "run": run_id, "tool": profile.tool, "unit": profile.unit,
            "self_share": profiles.share(sites.self_weight, whole),
            "total_share": profiles.share(sites.total_weight, whole),
            "callers": [r.to_dict(whole) for r in sites.rows[:SITES_SHOWN]],
            "lines": _own_lines(profile, function)[:LINES_SHOWN]}


def _own_lines(profile: Profile, function: str) -> list[Payload]:
    """The lines of ``function`` where its own time was sampled, hottest first."""
    if profile.shape != profiles.STACKS:
        return []
    lines: dict[tuple[str | None, int | None], float] = defaultdict(float)
    for sample in profile.samples:
        if sample.frames and profiles.matches(sample.frames[-1], function):
            innermost = sample.frames[-1]
            lines[(innermost.file, innermost.line)] += sample.weight
    whole = profile.total_weight
    ranked = sorted(lines.items(), key=lambda item: -item[1])
    return [{"file": file, "line": line, "self": round(weight, 6),
             "self_share": profiles.share(weight, whole)} for (file, line), weight in ranked]


def _disasm(session: str, function: str, profile: Payload,
            timeout: float) -> tuple[Payload, Via | None]:
    """Its instructions, when a live session can disassemble it (a native
    debugger, stopped); else why not, in a word."""
    from dbgcore.shared import client

    if client.live_status(session) is None:
        return {"shown": False, "why": "no live session"}, None
    try:
        response = client.call(session, "disasm", {"address": function,
                                                   "count": DISASM_COUNT}, timeout)
    except DbgError as exc:
        return {"shown": False, "why": exc.message}, None
    if not response.get("ok"):
        error = response.get("error") or {}
        return {"shown": False, "why": str(error.get("message") or "refused")}, None
    rows = (response.get("result") or {}).get("instructions") or []
    kept: list[Payload] = []
    for row in rows:
        symbol = row.get("symbol")
        if kept and symbol and not same_function(str(symbol), function):
            break  # the next function begins
        kept.append(row)
    share_of = {int(r["line"]): float(r["self_share"]) for r in profile.get("lines") or []
                if r.get("line") is not None}
    for row in kept:
        line = row.get("line")
        row["line_share"] = share_of.get(int(line)) if isinstance(line, int) else None
    return {"shown": True, "instructions": kept[:DISASM_SHOWN],
            "cut": max(len(kept) - DISASM_SHOWN, 0)}, response.get("via")


def render(p: Payload) -> str:
    function = p.get("function")
    out = [f"{function}:"]
    hits = p.get("stops") or {}
    if hits.get("total"):
        out.append(f"  stops: {hits['total']} recorded in it (dbg hits)")
        for h in hits.get("latest") or []:
            shown = ", ".join(f"{v['name']}={v['value']}" for v in h.get("locals") or [])
            out.append(f"    #{h['id']} at {place(h.get('file'), h.get('line'))}"
                       + (f" [{shown}]" if shown else ""))
    else:
        out.append("  stops: none recorded in it")
    calls = p.get("traced") or {}
    if calls.get("total"):
        timed = ""
        if calls.get("time") is not None:
            timed = (f", {duration_text(calls['time'])} in all, mean "
                     f"{duration_text(calls['mean'])}, longest {duration_text(calls['longest'])}")
        raised = f", {calls['raised']} raised" if calls.get("raised") else ""
        out.append(f"  calls: {calls['total']} traced in run {calls['run']}{timed}{raised}")
        for site in calls.get("sites") or []:
            took = f", {duration_text(site['time'])}" if site.get("time") is not None else ""
            out.append(f"    from {site['key']}: {site['count']}{took}")
        for c in calls.get("latest") or []:
            out.append("    " + call_line(c, indent=False, timed=True))
    else:
        out.append("  calls: none traced")
    prof = p.get("sampled") or {}
    if prof.get("found"):
        out.append(f"  profile: {prof['self_share']}% own, {prof['total_share']}% with "
                   f"what it calls (run {prof['run']}, {prof['tool']})")
        for r in prof.get("callers") or []:
            where = place(r.get("file"), r.get("line")) if r.get("file") else ""
            out.append(f"    called from {r['function']} {where}".rstrip()
                       + f": {r['total_share']}%")
        lines = [f"{short_path(r['file']) if r.get('file') else '?'}:{r['line']} "
                 f"{r['self_share']}%" for r in prof.get("lines") or []]
        if lines:
            out.append("    hottest lines: " + ", ".join(lines))
    elif prof.get("run"):
        out.append(f"  profile: not in run {prof['run']}'s samples ({prof.get('tool')})")
    else:
        out.append("  profile: none recorded (dbg profile PROGRAM)")
    dis = p.get("disasm") or {}
    if dis.get("shown"):
        out.append("  disassembly (% of the profile's own time on the instruction's line):")
        for row in dis.get("instructions") or []:
            share = row.get("line_share")
            mark = f"{share:5.1f}%" if share is not None else "      "
            line = f" line {row['line']}" if row.get("line") else ""
            out.append(f"    {mark} {row.get('address')}: {row.get('instruction')}{line}")
        if dis.get("cut"):
            out.append(f"    ... {dis['cut']} more instructions (dbg disasm {function} "
                       "--count N)")
    elif dis:
        out.append(f"  disassembly: not shown ({dis.get('why')})")
    if p.get("note"):
        out.append(f"note: {p['note']}")
    return "\n".join(out)


OP = Op(
    "cross", "What dbg knows of FUNCTION, in one answer: its recorded stops, traced calls "
    "(with their time), profile share and callers, and for native code in a live session "
    "its disassembly by the profile's hottest lines.", (
        Arg("function", "str", "The function, named as `dbg break` names it.",
            required=True, metavar="FUNCTION"),
    ), needs="none", send="local", run=run, render=render, group="history", details=(
        "Each part is read from the store for the session's latest run of its kind: the "
        "stops of its latest debugging session, the latest run that traced the function, "
        "the latest profile. The disassembly needs a live, stopped session of a debugger "
        "that disassembles (`dbg caps` row disasm); its instructions carry their line's "
        "share of the profile's own time, as a profiler samples lines.\n\n"
        "  dbg cross parse_line\n"
        "  dbg --json cross slow"))

dbg_add_ops = add_ops_hook((OP,))
