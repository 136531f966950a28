"""The history ops: `dbg hits`, `trace`, `calls`, `history`, `runs` and
`diff`. `trace` and `history --at` run the program in the session's daemon
and record what they see; the others are answered in the front end's
process from the session store, with no debugger, also after the session
ended and after a crash. What they share (reading the store, the text of a
call or a run) is :mod:`dbgcore.ops.records`.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from dbgcore.backends.contract import Backend
from dbgcore.ops.records import (
    DEFAULT_SHOWN,
    budget,
    call_names,
    calls_text,
    chosen_run,
    duration_text,
    event_text,
    open_store,
    place,
    run_end,
    run_note,
    same_function,
    short_path,
)
from dbgcore.ops.stops import LOCATION_HELP, ending, location_text, render_stop
from dbgcore.shared.errors import (
    DbgError,
    DebuggerTimeout,
    NotStopped,
    OpFailed,
    UsageError,
)
from dbgcore.store.recorded import RecordedExpression, Unknown
from dbgcore.vocab.model import Breakpoint, StopEvent
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:

    from dbgcore.backends.registry import Front
    from dbgcore.ops.opsession import OpSession as Session
    from dbgcore.shared.jsontypes import JsonObject
    from dbgcore.store.stopreads import StopPlace
    from dbgcore.vocab.model import BreakLoc
    from dbgcore.vocab.opspec import Payload, Via


def run_hits(values: Payload, session: str, timeout: float,
             front: Front | None) -> tuple[Payload, Via | None]:
    """The latest ``--limit`` stops (``--before ID``: those just before stop
    #ID; ``--after ID``: the first after it), in the order they were
    recorded, with the count of all and of those left out on either side:
    read by id on the store's indexes, so that a store of 100,000 stops
    answers as fast as one of 100."""
    from dbgcore.store.db import Store

    location = values.get("location")
    at = _place(location) if location else None
    limit = int(values.get("limit") or 200)
    before, after = values.get("before"), values.get("after")
    if before is not None and after is not None:
        raise UsageError("--before and --after choose different pages; give one")
    store = Store(by="dbg hits")
    try:
        session_id = None if values.get("all") else store.latest_session_id(session)
        rows: list[Payload] = []
        total = earlier = later = 0
        if session_id is not None or values.get("all"):
            rows = store.hits(session_id, session, limit=limit, latest=after is None, before=before,
                              after=after, at=at)
            total = store.hit_count(session_id, session, at=at)
            # A page holds every chosen stop from its first to its last.
            if rows and (before is not None or after is not None):
                earlier = store.hit_count(session_id, session, before=int(rows[0]["id"]), at=at)
            elif rows:
                earlier = total - len(rows)
            later = total - earlier - len(rows)
        if values.get("diff"):
            rows = _changes(rows, lambda r: store.stop_before(
                int(r["id"]), r.get("file"), r.get("function"), session_id=session_id, name=session,
                at=at))
        notes = store.take_notes()  # damage found on the way: said, never passed over
    finally:
        store.close()
    answer: Payload = {"hits": rows, "filter": location, "total": total,
                       "earlier": earlier, "later": later}
    if values.get("diff"):
        answer["diff"] = True
    if notes:
        answer["note"] = "; ".join(notes)
    return answer, None


def _place(location: str) -> StopPlace:
    """Where `dbg hits LOCATION` looks, as the store chooses stops by it."""
    from dbgcore.lang.sourcefind import suffix_matches
    from dbgcore.store.stopreads import StopPlace
    from dbgcore.vocab.location import BreakLoc

    loc = BreakLoc.parse(location)
    if loc.function:
        return StopPlace(function=loc.function)
    wanted = loc.file
    if not wanted:
        return StopPlace(line=loc.line)
    return StopPlace(line=loc.line, file_matches=lambda file: file == wanted or bool(
        suffix_matches(wanted, [file])))


def _changes(rows: list[Payload],
             previous: Callable[[Payload], JsonObject | None] | None = None) -> list[Payload]:
    """Each stop with only what changed in its locals since the previous
    stop in the same function (of the same file): ``changed`` (name, value
    and ``was``, absent for a new one) and ``gone`` (names no longer there);
    a function's first stop has all its locals as changed. ``previous``
    finds, for a function's first stop in ``rows``, the one before it that
    ``rows`` does not hold (a page of a longer record)."""
    last: dict[tuple[str, str], dict[str, str]] = {}
    out = []
    for row in rows:
        if row.get("state") == "exited":
            out.append(row)
            continue
        key = (str(row.get("file") or ""), str(row.get("function") or ""))
        now = {str(v["name"]): str(v.get("value")) for v in row.get("locals") or []}
        before = last.get(key)
        if before is None and previous is not None and (found := previous(row)) is not None:
            locals_ = found.get("locals")
            before = {str(v["name"]): str(v.get("value"))
                      for v in (locals_ if isinstance(locals_, list) else [])
                      if isinstance(v, dict)}
        changed: list[Payload] = []
        for name, value in now.items():
            if before is None or name not in before:
                changed.append({"name": name, "value": value})
            elif before[name] != value:
                changed.append({"name": name, "value": value, "was": before[name]})
        gone = sorted(set(before) - set(now)) if before is not None else []
        last[key] = now
        shown = {k: v for k, v in row.items() if k != "locals"}
        out.append({**shown, "changed": changed, "gone": gone, "first": before is None})
    return out


#: Calls a trace answer shows (the newest), and lines of one call; the store keeps them all.
TRACE_SHOWN = 40


TRACE_LINES_SHOWN = 30


def handle_trace(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.backends import stoptracer
    from dbgcore.ops.inspecting import one_line
    from dbgcore.store.db import shifted_call
    from dbgcore.store.recording import StoredCalls
    from dbgcore.vocab.traces import DEFAULT_MAX_CALLS

    assert session.backend is not None
    functions = [one_line(str(f)).strip() for f in args.get("functions") or []]
    if not functions or not all(functions):
        raise UsageError("trace needs the functions to trace", "dbg trace FUNCTION...")
    meant = _traced_places(session.backend, functions, timeout)
    # Each call is in the store as it is recorded: a daemon killed meanwhile keeps them.
    with StoredCalls(session.store, session.current_run()) as kept:
        outcome = stoptracer.trace(session.backend, functions, bool(args.get("lines")),
                                  int(args.get("max") or DEFAULT_MAX_CALLS), timeout, kept)
        kept.settle(outcome.calls)
    snapshot = session.snapshot(outcome.event, timeout)
    # Numbered as the store numbers them, after the run's earlier traces.
    calls = [shifted_call(c.to_dict(), kept.base) for c in outcome.calls]
    limit = int(args.get("limit") or TRACE_SHOWN)
    shown = calls[-limit:]
    for call in shown:
        lines = call.get("lines") or []
        if len(lines) > TRACE_LINES_SHOWN:
            call["lines"] = lines[:TRACE_LINES_SHOWN]
            call["lines_omitted"] = len(lines) - TRACE_LINES_SHOWN
    notes = [outcome.note] if outcome.note else []
    notes += meant
    timed = bool(args.get("time"))
    if timed and outcome.calls and all(c.duration is None for c in outcome.calls):
        notes.append(f"{outcome.means or 'this tracer'} does not time calls "
                     "(`dbg profile` measures where time goes)")
    if not calls:
        notes.append(f"no call of {', '.join(functions)} was made before the program "
                     "stopped (check the names with `dbg break FUNCTION`)")
    if outcome.timed_out:
        notes.append("the op's time ran out: the program was paused there (--timeout "
                     "gives it longer)")
    return {**snapshot.to_dict(), "trace": {
        "functions": functions, "calls": shown, "total": len(calls),
        "omitted": len(calls) - len(shown), "dropped": outcome.dropped,
        "max": int(args.get("max") or DEFAULT_MAX_CALLS), "means": outcome.means,
        "timed_out": outcome.timed_out, "run": session.run_id, "timed": timed,
        "note": "; ".join(notes)}}


def _traced_places(backend: Backend, functions: list[str], timeout: float) -> list[str]:
    """For each name that means several functions of the program (as `dbg
    break` finds them: Backend.function_places), which they are: all are
    traced, and the answer says so."""
    from dbgcore.vocab.model import BreakLoc

    said = []
    for name in functions:
        try:
            places = backend.function_places(BreakLoc.parse(name), timeout)
        except DbgError:
            continue  # the backend's trace says what is wrong with the name
        if places and len(places) > 1:
            said.append(f"{name} means {len(places)} functions of the program, all traced: "
                        + ", ".join(f"{p.function} at {p.file}:{p.line}" for p in places))
    return said


#: Hits `dbg history --at` evaluates unless --max says otherwise.
HISTORY_MAX = 1000


def handle_history(session: Session, args: Payload, timeout: float) -> Payload:
    """`dbg history EXPR --at LOC`: run on, evaluating EXPR at each hit of
    LOC without stopping there, until the program stops by itself (or --max
    hits, or the op's time, which pauses it). A program that has ended, or
    that ends without reaching LOC from where it was (a stop after a
    failure), is run again from its start, once."""
    from dbgcore.lang.rules import split_expressions
    from dbgcore.ops.breakpoints import found_line
    from dbgcore.ops.inspecting import one_line
    from dbgcore.vocab.model import BreakLoc

    if session.state() == "running":
        raise NotStopped("history --at runs the program from a stop, and it is running",
                         "stop it with `dbg pause`, or wait for the next stop with `dbg wait`")
    expression = one_line(str(args["expression"]))
    expressions = split_expressions(expression)
    loc = found_line(session, BreakLoc.from_wire(args["at"]))
    where = loc.text or loc.key()
    most = int(args.get("max") or HISTORY_MAX)
    deadline = time.monotonic() + max(timeout - 2.0, timeout / 2)
    notes = []
    rerun = session.state() == "exited" and session.launch_request is not None
    if rerun:
        notes.append("the program had ended: it was run again from its start")
    sampled = _sample(session, rerun, expression, expressions, loc, most, deadline, timeout)
    if not sampled.rows and sampled.event.state == "exited" and not rerun \
            and session.launch_request is not None and time.monotonic() < deadline:
        notes.append(f"{where} was not reached from the stop history began at: the program "
                     "was run again from its start")
        sampled = _sample(session, True, expression, expressions, loc, most, deadline, timeout)
    rows = sampled.rows
    snapshot = session.snapshot(sampled.event, timeout)
    if sampled.timed_out:
        notes.append(f"the op's time ({timeout:g} s, --timeout) ran out after {len(rows)} "
                     "hits: the program was paused there, and what was recorded is kept")
    elif len(rows) >= most:
        notes.append(f"stopped at hit {most} (--max)")
    if not rows:
        notes.append(f"{where} was not reached before the program stopped")
    shown, omitted = _chosen_values(rows, args)
    return {**snapshot.to_dict(), "history": {
        "expression": expression, "at": where, "values": shown,
        "total": len(rows), "omitted": omitted, "first": bool(args.get("first")),
        "changes": sum(1 for r in rows if r["changed"]), "run": session.current_run(),
        "source": "hits of " + where, "note": "; ".join(notes)}}


class _Sampled(NamedTuple):
    """What one run of `history --at` took: its rows, the event it ended
    at, and whether the op's time ran out."""

    rows: list[Payload]
    event: StopEvent
    timed_out: bool


def _sample(session: Session, restart: bool, expression: str, expressions: list[str],
            loc: BreakLoc, most: int, deadline: float, timeout: float) -> _Sampled:
    """Run on from the current stop (or from the program's start again,
    ``restart``), taking EXPR at each hit of ``loc``."""
    from dbgcore.ops.starting import handle_restart
    from dbgcore.store.recording import StoredSamples
    from dbgcore.vocab.model import BreakOptions

    def left() -> float:
        return max(deadline - time.monotonic(), 0.1)

    if restart:
        handle_restart(session, {}, left())
    backend = session.backend
    assert backend is not None
    # A function of several places in the program: each one, as `dbg break` binds it.
    places = backend.function_places(loc, timeout) if loc.function else None
    bps = [backend.set_breakpoint(replace(loc, file=p.file, line=p.line, function=None,
                                          module=None), BreakOptions(), timeout)
           for p in places] if places and len(places) > 1 else \
        [backend.set_breakpoint(loc, BreakOptions(), timeout)]
    rows: list[Payload] = []
    timed_out = False
    last: object = object()
    # Each value is in the store as it is taken: a daemon killed meanwhile keeps them.
    kept = StoredSamples(session.store, session.current_run(), "history", expression.strip())
    try:
        try:
            event = backend.cont(left())
            while event.state == "stopped" and any(_hit(bp, event) for bp in bps):
                row = _taken(backend, expressions, event, left)
                row.update(hit=len(rows) + 1, changed=row["value"] != last)
                rows.append(row)
                kept.add({**row, "location": loc.text or loc.key()})
                last = row["value"]
                if len(rows) >= most or time.monotonic() >= deadline:
                    break  # --max, or the time
                # A breakpoint of the user's on the same line is no reason
                # to stop: the history goes on past it.
                event = backend.cont(left())
        except DebuggerTimeout:
            event = StopEvent(state="running")
        if event.state == "running":
            timed_out = True
            event = backend.pause(2.0)
    finally:
        kept.close()
        if backend.state() not in ("exited", "debugger_lost"):
            for bp in bps:
                backend.remove_breakpoint(bp.id, 2.0)
    return _Sampled(rows, event, timed_out)


def _hit(bp: Breakpoint, event: StopEvent) -> bool:
    """Whether a stop is at history's breakpoint: said so, or at its line
    (where a breakpoint of the user's on the same line is the one a
    debugger names)."""
    if bp.id in event.hit_breakpoints:
        return True
    at = event.location
    return bool(event.hit_breakpoints and at is not None and bp.line is not None
                and at.line == bp.line and at.file is not None and bp.file is not None
                and os.path.realpath(at.file) == os.path.realpath(bp.file))


def _taken(backend: Backend, expressions: list[str], event: StopEvent,
           left: Callable[[], float]) -> Payload:
    """One hit's row: where, and each expression's value (or the error
    evaluating it); several expressions also give ``values``, one each,
    and ``value`` reads ``a = 1; b = 2``."""
    parts: list[Payload] = []
    for text in expressions:
        try:
            parts.append({"expression": text, "value": backend.evaluate(text, left()).value})
        except DbgError as exc:
            parts.append({"expression": text, "value": None, "error": exc.message})
    at = event.location
    row: Payload = {"file": at.file if at else None, "line": at.line if at else None,
                    "function": at.function if at else None}
    if len(parts) == 1:
        row["value"] = parts[0]["value"]
        if "error" in parts[0]:
            row["error"] = parts[0]["error"]
        return row
    row["value"] = "; ".join(f"{p['expression']} = "
                             f"{p['value'] if p['value'] is not None else '<' + p['error'] + '>'}"
                             for p in parts)
    row["values"] = parts
    return row


def _chosen_values(rows: list[Payload], args: Payload) -> tuple[list[Payload], int]:
    """The values a history answer shows: the changes only (``--changes``),
    the first or the last N."""
    if args.get("changes"):
        rows = [r for r in rows if r["changed"]]
    return budget(rows, args.get("limit"), newest=not args.get("first"))


#: What `dbg calls --sum-by` totals calls by.
SUM_BY = ("function", "caller")


def run_calls(values: Payload, session: str, timeout: float,
              front: Front | None) -> tuple[Payload, Via | None]:
    function = values.get("function")
    sum_by = values.get("sum_by")
    if sum_by is not None and sum_by not in SUM_BY:
        raise UsageError(f"--sum-by {sum_by}: not one of {', '.join(SUM_BY)}",
                         "dbg calls --sum-by function")
    where = RecordedExpression(values["where"], "--where") if values.get("where") else None
    store = open_store("dbg calls")
    try:
        run = chosen_run(store, session, values.get("run"))
        run_id = int(run["id"])
        rows = store.calls(run_id)
        notes = store.take_notes()
    finally:
        store.close()
    if (said := run_note(run, "calls")) is not None:
        notes.insert(0, said)
    if function:
        rows = [r for r in rows if same_function(r.get("function"), function)]
    if where is not None:
        known = set().union(*(call_names(r) for r in rows)) if rows else set()
        missing = where.names - known
        if rows and missing:
            raise UsageError(f"--where names {', '.join(sorted(missing))}, which no recorded "
                             "call has", "its names: " + ", ".join(sorted(known)))
        kept = []
        for row in rows:
            try:
                if where.evaluate(call_names(row)):
                    kept.append(row)
            except Unknown:
                continue
        rows = kept
    if sum_by is not None:
        sums = summed_calls(rows, str(sum_by))
        shown, omitted = sums[:int(values.get("limit") or DEFAULT_SHOWN)], 0
        omitted = len(sums) - len(shown)
        answer: Payload = {"sums": shown, "sum_by": sum_by, "total": len(rows),
                           "groups": len(sums), "omitted": omitted, "run": run_id,
                           "run_state": run.get("state"), "function": function,
                           "where": values.get("where")}
        if rows and all(r.get("duration") is None for r in rows):
            notes.append("no call has a duration: its tracer did not time it "
                         "(breakpoints; `dbg profile` measures time)")
        if notes:
            answer["note"] = "; ".join(notes)
        return answer, None
    first = bool(values.get("first"))
    shown, omitted = budget(rows, values.get("limit"), newest=not first)
    answer = {"calls": shown, "total": len(rows), "omitted": omitted,
              "run": run_id, "run_state": run.get("state"),
              "function": function, "where": values.get("where"),
              "timed": bool(values.get("time")), "first": first}
    if notes:
        answer["note"] = "; ".join(notes)
    return answer, None


#: The argument that says how many bytes an allocator was asked for
#: (``malloc(size)``, ``xmalloc(nbytes)``); ``calloc(nmemb, size)`` asks
#: their product.
SIZE_ARGUMENTS = ("size", "nbytes", "bytes", "length", "len")
_NUMBER_RE = re.compile(r"^\s*(\d+)\b")


def asked_bytes(row: Payload) -> int | None:
    """The bytes a call of an allocator asked for, by its arguments' names
    (:data:`SIZE_ARGUMENTS`); None for a call that names no size."""
    values: dict[str, int] = {}
    for arg in row.get("args") or []:
        found = _NUMBER_RE.match(str(arg.get("value") or ""))
        if found is not None:
            values[str(arg.get("name"))] = int(found.group(1))
    size = next((values[n] for n in SIZE_ARGUMENTS if n in values), None)
    if size is not None and "nmemb" in values:
        return size * values["nmemb"]
    return size


def summed_calls(rows: list[Payload], by: str) -> list[Payload]:
    """The calls totalled per function, or per caller (file:line and
    function of the call site): count, raised, time (total, mean, longest,
    over the calls that were timed), bytes asked (of an allocator: a call
    with a size argument), the most costly first (by total time, else by
    count)."""
    groups: dict[str, Payload] = {}
    for row in rows:
        if by == "function":
            key = str(row.get("function"))
        else:
            caller = row.get("caller") or {}
            key = (f"{place(caller.get('file'), caller.get('line'))} {caller.get('function') or ''}"
                   .strip() if caller else "(unknown caller)")
        group = groups.setdefault(key, {"key": key, "count": 0, "raised": 0, "timed": 0,
                                        "time": 0.0, "longest": None,
                                        "functions": []})
        group["count"] += 1
        group["raised"] += row.get("outcome") == "raised"
        if by == "caller" and row.get("function") not in group["functions"]:
            group["functions"].append(row.get("function"))
        asked = asked_bytes(row)
        if asked is not None:
            group["bytes"] = group.get("bytes", 0) + asked
        if row.get("duration") is not None:
            took = float(row["duration"])
            group["timed"] += 1
            group["time"] += took
            group["longest"] = max(took, group["longest"] or 0.0)
    out = list(groups.values())
    for group in out:
        group["mean"] = group["time"] / group["timed"] if group["timed"] else None
        if not group["timed"]:
            group["time"] = None
        if by == "function":
            del group["functions"]
    out.sort(key=lambda g: (-(g["time"] or 0.0), -g["count"], g["key"]))
    return out


def run_history(values: Payload, session: str, timeout: float,
                front: Front | None) -> tuple[Payload, Via | None]:
    """The values EXPR took: with --at, at each hit of a location as the
    program runs on (asked of the session's daemon); without, at each stop
    recorded in the session's latest run (from the store)."""
    expression = str(values["expression"])
    if values.get("at") is not None:
        from dbgcore.shared import client

        response = client.call(session, "history", {
            k: v for k, v in values.items() if v is not None}, timeout)
        if not response.get("ok"):
            raise DbgError.from_wire(response.get("error") or {})
        return response.get("result") or {}, response.get("via")
    from dbgcore.lang.rules import split_expressions

    parsed = [RecordedExpression(e) for e in split_expressions(expression)]
    store = open_store("dbg history")
    notes: list[str] = []
    try:
        run = chosen_run(store, session, values.get("run"))
        run_id = int(run["id"])
        replayed = store.replayed(run_id)
        if replayed is not None:
            # A replay's own stops are the record's again: the record says it all.
            notes.append(f"run {run_id} replays run {replayed}: the values run {replayed} "
                         "recorded")
            run_id = replayed
            run = next(iter(store.runs(None, run_id=run_id)), run)
        stops = store.hits(None, run_id=run_id, limit=100_000)
        sampled = store.samples(run_id, "history", expression.strip())
        calls = store.calls(run_id)
        notes += store.take_notes()
    finally:
        store.close()
    lines = _line_values(parsed, calls)
    rows = lines or _recorded_values(parsed, stops, sampled)
    shown, omitted = _chosen_values(rows, values)
    if not rows:
        notes.insert(0, f"no recorded stop of run {run_id} has {expression!r} among its "
                        "locals; --at LOCATION evaluates it as the program runs")
    if (said := run_note(run, "values")) is not None:
        notes.insert(0, said)
    places = sorted({str(s.get("location")) for s in sampled})
    source = "recorded stops" + (f" and hits of {', '.join(places)}" if places else "")
    if lines:
        source = "the lines `trace --lines` recorded, where it changed"
    # The same shape as with --at (there beside the stop it ended at).
    return {"history": {
        "expression": expression, "at": None, "values": shown, "total": len(rows),
        "omitted": omitted, "first": bool(values.get("first")),
        "changes": sum(1 for r in rows if r["changed"]), "run": run_id,
        "source": source, "note": "; ".join(notes)}}, None


def _recorded_values(parsed: list[RecordedExpression], stops: list[JsonObject],
                     sampled: list[JsonObject]) -> list[JsonObject]:
    """The values EXPR had in a run's records, in the order they were taken:
    at each recorded stop whose locals answer it (one of them, for several
    expressions), and at each hit `history --at` sampled it (kept as they
    were taken, so a run cut short keeps them)."""
    taken: list[tuple[float, JsonObject]] = []
    for stop in stops:
        if stop.get("state") != "stopped":
            continue
        names = {str(v["name"]): v.get("value") for v in stop.get("locals") or []}
        parts = [_recorded(e, names) for e in parsed]
        if all(p is None for p in parts):
            continue
        row: JsonObject = {"file": stop.get("file"), "line": stop.get("line"),
                           "function": stop.get("function"), "stop": stop.get("id")}
        if len(parts) == 1:
            row["value"] = parts[0]
        else:
            pairs = list(zip(parsed, parts, strict=True))
            row["value"] = "; ".join(f"{e.text} = {p if p is not None else '<not recorded>'}"
                                     for e, p in pairs)
            row["values"] = [{"expression": e.text, "value": p} for e, p in pairs]
        taken.append((float(stop.get("at") or 0), row))
    for sample in sampled:
        row = {k: sample.get(k) for k in ("value", "file", "line", "function", "hit", "values")
               if k != "values" or sample.get(k) is not None}
        if sample.get("error") is not None:
            row["error"] = sample["error"]
        taken.append((float(sample.get("at") or 0), row))
    taken.sort(key=lambda pair: pair[0])
    rows: list[JsonObject] = []
    last: object = object()
    for _, row in taken:
        rows.append({**row, "changed": row["value"] != last})
        last = row["value"]
    return rows


def _line_values(parsed: list[RecordedExpression], calls: list[JsonObject]) -> list[JsonObject]:
    """The values EXPR took at the lines `trace --lines` recorded, in the
    order they ran: at each line where a local it names changed, over its
    call's locals accumulated up to that line."""
    from dbgcore.vocab.traces import recorded_events

    if not any(call.get("lines") for call in calls):
        return []
    names = set().union(*(e.names for e in parsed))
    order, _ = recorded_events(calls)
    seen: dict[int, dict[str, object]] = {}
    rows: list[JsonObject] = []
    last: object = object()
    for index, at in order:
        if at is None:
            continue
        call = calls[index]
        line = (call.get("lines") or [])[at]
        changed = {str(c["name"]): c["value"] for c in line.get("changed") or []}
        values = seen.setdefault(index, {})
        values.update(changed)
        if not names & set(changed):
            continue
        parts = [_recorded(e, values) for e in parsed]
        if all(p is None for p in parts):
            continue
        row: JsonObject = {"file": call.get("file"), "line": line.get("line"),
                           "function": call.get("function")}
        if len(parts) == 1:
            row["value"] = parts[0]
        else:
            row["value"] = "; ".join(f"{e.text} = {p if p is not None else '<not recorded>'}"
                                     for e, p in zip(parsed, parts, strict=True))
        rows.append({**row, "changed": row["value"] != last})
        last = row["value"]
    return rows


def _recorded(parsed: RecordedExpression, names: dict[str, object]) -> str | None:
    """EXPR's value over a stop's recorded locals (a local's own text when
    EXPR names one), None when they do not answer it."""
    bare = parsed.text.strip()
    try:
        value = names[bare] if bare.isidentifier() and bare in names else \
            parsed.evaluate(names)
    except Unknown:
        return None
    return value if isinstance(value, str) else repr(value)


def run_runs(values: Payload, session: str, timeout: float,
             front: Front | None) -> tuple[Payload, Via | None]:
    store = open_store("dbg runs")
    try:
        rows = store.runs(None if values.get("all") else session,
                          limit=int(values.get("limit") or DEFAULT_SHOWN))
        notes = store.take_notes()
    finally:
        store.close()
    answer: Payload = {"runs": rows, "session": None if values.get("all") else session}
    if notes:
        answer["note"] = "; ".join(notes)
    return answer, None


def run_diff(values: Payload, session: str, timeout: float,
             front: Front | None) -> tuple[Payload, Via | None]:
    from dbgcore.store.rundiff import compare

    store = open_store("dbg diff")
    try:
        a, b = values.get("run_a"), values.get("run_b")
        if a is None or b is None:
            recent = store.runs(session, limit=2, debugged=True)
            if len(recent) < 2 or (a is None) != (b is None):
                raise UsageError("dbg diff needs two runs: RUN_A RUN_B (ids from `dbg runs`)",
                                 "or none, for the session's last two runs")
            a, b = recent[0]["id"], recent[1]["id"]
        found = {int(r["id"]): r for r in store.runs(None, limit=1_000_000)
                 if int(r["id"]) in (int(a), int(b))}
        for run_id in (a, b):
            if int(run_id) not in found:
                raise OpFailed(f"no recorded run {run_id}", "list them with `dbg runs --all`")
        answer = compare(found[int(a)], found[int(b)],
                         store.calls(int(a)), store.calls(int(b)),
                         store.hits(None, run_id=int(a), limit=100_000),
                         store.hits(None, run_id=int(b), limit=100_000))
        notes = store.take_notes()
    finally:
        store.close()
    if notes:
        answer["note"] = "; ".join(notes)
    return answer, None


def render_hits(p: Payload) -> str:
    rows = p.get("hits") or []
    if not rows:
        return "no recorded stops" + (f" at {p['filter']}" if p.get("filter") else "")
    out = []
    total, earlier, later = (int(p.get(k) or 0) for k in ("total", "earlier", "later"))
    if earlier or later:
        what = f"{total:,} stops" + (f" at {p['filter']}" if p.get("filter") else "")
        more = [f"earlier: --before {rows[0]['id']}"] if earlier else []
        if later:
            more.append(f"later: --after {rows[-1]['id']}")
        out.append(f"(stops #{rows[0]['id']}-#{rows[-1]['id']}: {len(rows)} of {what}, "
                   f"{earlier:,} earlier, {later:,} later; {'; '.join(more)}; --limit N)")
    for h in rows:
        stamp = time.strftime("%H:%M:%S", time.localtime(h["at"]))
        if h["state"] == "exited":
            out.append(f"{stamp} #{h['id']} {ending(h)}")
            continue
        line = f"{stamp} #{h['id']} {h.get('reason') or 'stop'} at {location_text(h)}"
        if p.get("diff"):
            out.append(line + f"  [{_changed(h)}]")
            continue
        shown = ", ".join(f"{v['name']}={v['value']}" for v in h.get("locals", [])[:6])
        out.append(line + (f"  [{shown}]" if shown else ""))
    return "\n".join(out)


def _changed(h: Payload) -> str:
    """A stop's changed locals (``hits --diff``): ``x=2 (was 1)``, a new one
    as it is, a gone one ``-y``; ``no change`` when nothing did."""
    parts = [f"{v['name']}={v['value']}" + (f" (was {v['was']})" if "was" in v else "")
             for v in h.get("changed") or []]
    parts += [f"-{name}" for name in h.get("gone") or []]
    return ", ".join(parts) if parts else ("no locals" if h.get("first") else "no change")


def render_trace(p: Payload) -> str:
    t = p.get("trace") or {}
    total, dropped = t.get("total", 0), t.get("dropped", 0)
    head = f"traced {', '.join(t.get('functions') or [])}: {total} call" + \
        ("s" if total != 1 else "") + f" recorded in run {t.get('run')}"
    if t.get("means"):
        head += f" (by {t['means']})"
    out = [head]
    out += calls_text(t.get("calls") or [], int(t.get("omitted") or 0), "calls",
                      timed=bool(t.get("timed")))
    if dropped:
        out.append(f"... {dropped} later calls not recorded (--max {t.get('max')})")
    if t.get("note"):
        out.append(f"note: {t['note']}")
    out.append("ended: " + render_stop(p))
    return "\n".join(out)


def render_calls(p: Payload) -> str:
    rows = p.get("calls") or []
    what = f"calls of {p['function']}" if p.get("function") else "traced calls"
    if p.get("where"):
        what += f" where {p['where']}"
    if "sums" in p:
        return render_sums(p, what)
    if not rows:
        return f"no recorded {what} in run {p.get('run')}"
    out = [f"{p.get('total')} {what} in run {p.get('run')}"]
    out += calls_text(rows, int(p.get("omitted") or 0), "calls", timed=bool(p.get("timed")),
                      first=bool(p.get("first")))
    if p.get("note"):
        out.append(f"note: {p['note']}")
    return "\n".join(out)


def render_sums(p: Payload, what: str) -> str:
    """`dbg calls --sum-by`: one row per function (or call site), the most costly first."""
    sums = p.get("sums") or []
    if not sums:
        return f"no recorded {what} in run {p.get('run')}"
    out = [f"{p.get('total')} {what} in run {p.get('run')}, by {p.get('sum_by')}:"]
    width = max(len(str(g["key"])) for g in sums)
    out.append(f"  {'calls':>7} {'total':>10} {'mean':>10} {'longest':>10}  {p.get('sum_by')}")
    for g in sums:
        times = [duration_text(float(g[k])) if g.get(k) is not None else "-"
                 for k in ("time", "mean", "longest")]
        line = (f"  {g['count']:>7} {times[0]:>10} {times[1]:>10} {times[2]:>10}  "
                f"{g['key']!s:<{width}}")
        extra = []
        if g.get("bytes") is not None:
            extra.append(f"{g['bytes']:,} bytes asked")
        if g.get("raised"):
            extra.append(f"{g['raised']} raised")
        if g.get("functions"):
            extra.append("calls " + ", ".join(str(f) for f in g["functions"][:3]))
        out.append(line.rstrip() + (f"   ({'; '.join(extra)})" if extra else ""))
    if p.get("omitted"):
        out.append(f"... {p['omitted']} more not shown (--limit N shows more)")
    if p.get("note"):
        out.append(f"note: {p['note']}")
    return "\n".join(out)


def render_history(p: Payload) -> str:
    h = p["history"]
    out = [f"{h['expression']}: {h.get('total', 0)} values, {h.get('changes', 0)} changes "
           f"({h.get('source')}, run {h.get('run')})"]
    cut = f"{h.get('omitted')} {'later' if h.get('first') else 'earlier'} values not shown " \
        "(--limit N shows more)"
    if h.get("omitted") and not h.get("first"):
        out.append(f"... {cut}")
    for r in h.get("values") or []:
        mark = "*" if r.get("changed") else " "
        value = r["value"] if r.get("value") is not None else f"<{r.get('error', 'no value')}>"
        where = place(r.get("file"), r.get("line"))
        if r.get("function"):
            where += f" in {r['function']}"
        out.append(f" {mark} {value}   [{where}]")
    if h.get("omitted") and h.get("first"):
        out.append(f"... {cut}")
    if h.get("note"):
        out.append(f"note: {h['note']}")
    if h.get("at") is not None:  # it ran the program: where it ended
        out.append("ended: " + render_stop(p))
    return "\n".join(out)


def render_runs(p: Payload) -> str:
    rows = p.get("runs") or []
    if not rows:
        return "no recorded runs" + (f" of session {p['session']}" if p.get("session") else "")
    out = []
    for r in rows:
        stamp = time.strftime("%H:%M:%S", time.localtime(r["started_at"]))
        args = " ".join(str(a) for a in r.get("args") or [])
        values = f", {r['values']} history values" if r.get("values") else ""
        end = f"replay of run {r['replays']}" if r.get("replays") else run_end(r)
        out.append(f"run {r['id']}  {stamp}  {r.get('session')}  {short_path(r.get('program'))}"
                   f"{' ' + args if args else ''}  {end}, {r.get('stops', 0)} stops, "
                   f"{r.get('calls', 0)} traced calls{values}")
    return "\n".join(out)


def render_diff(p: Payload) -> str:
    a, b = p["a"], p["b"]
    head = f"run {a['id']} vs run {b['id']} ({p.get('basis')})"
    out = [head]
    if p.get("same"):
        out.append(f"no divergence: the same {p.get('compared')} events")
    else:
        d = p["divergence"]
        out.append(f"first divergence at event {d['index']} ({d['kind']}):")
        out.append(f"  run {a['id']}: {event_text(d.get('a'))}")
        out.append(f"  run {b['id']}: {event_text(d.get('b'))}")
        if p.get("before"):
            out.append("after the same: " + "; ".join(event_text(e) for e in p["before"]))
    for side in (a, b):
        end = run_end(side)
        out.append(f"run {side['id']}: {short_path(side.get('program'))} "
                   f"{' '.join(str(x) for x in side.get('args') or [])} -> {end}")
    if p.get("note"):
        out.append(f"note: {p['note']}")
    return "\n".join(out)


#: The history ops, in the op table's order.
OPS: tuple[Op, ...] = (
    Op("hits", "List recorded stops (optionally only those at LOCATION); works after the "
       "session ended, and after a crash.", (
        Arg("location", "str", "Only stops at this location."),
        Arg("all", "bool", "Every recorded session of this name, not just the latest.",
            flags=("--all",)),
        Arg("limit", "int", "Show the latest N.", flags=("--limit",), default=200,
            minimum=1, metavar="N"),
        Arg("before", "int", "Those before stop #ID (the page before).", flags=("--before",),
            minimum=1, metavar="ID"),
        Arg("after", "int", "The first N after stop #ID (0: from the first).",
            flags=("--after",), minimum=0, metavar="ID"),
        Arg("diff", "bool", "Show, hit to hit, only the locals that changed since the "
            "previous hit in the same function.", flags=("--diff",)),
    ), needs="none", send="local", run=run_hits, render=render_hits, group="history"),
    Op("trace", "Run on without stopping, recording each call of FUNCTION...: arguments, "
       "return value or exception, caller; with --lines each line and the locals it changed.", (
        Arg("functions", "str", "The functions to trace, named as `dbg break` names them.",
            required=True, multiple=True, metavar="FUNCTION"),
        Arg("lines", "bool", "Also record each line a traced call reaches, with the locals "
            "that changed there.", flags=("--lines",)),
        Arg("max", "int", "Record at most N calls (default 10000); later ones are counted.",
            flags=("--max",), minimum=1, metavar="N"),
        Arg("limit", "int", "Show the last N calls (default 40); `dbg calls` has them all.",
            flags=("--limit",), minimum=1, metavar="N"),
        Arg("time", "bool", "Show each call's duration (kept with every trace the "
            "debugger's own means record; `dbg calls --sum-by` totals them).",
            flags=("--time",)),
    ), stops=True, handler=handle_trace, method=Backend.trace, title="call traces",
       render=render_trace, group="history", core_ok=False, details=(
           "The program runs from the current stop until it stops by itself (a "
           "breakpoint, an exception, the end) or the op's --timeout, which pauses it; the "
           "answer is that stop and one line per call, most recent last, nested by depth. "
           "The calls are kept in the session store with the run (`dbg calls`, `dbg diff`), "
           "also after the session ended. How each debugger traces: `dbg caps` row trace "
           "(native: the debugger's own means in the program; fallback: dbg's breakpoints "
           "and step out, a few calls a second, and without return values with --lines).\n\n"
           "  dbg trace tri\n"
           "  dbg trace parse_line emit --max 500\n"
           "  dbg trace fee --lines\n"
           "  dbg trace parse_line --time")),
    Op("calls", "List the calls `dbg trace` recorded (of FUNCTION), also after the session "
       "ended.", (
        Arg("function", "str", "Only the calls of this function."),
        Arg("where", "str", "Only calls where EXPR holds, over their argument names, ret "
            "(the return value), exc (the exception), fn, depth.", flags=("--where",),
            metavar="EXPR", one_line=True),
        Arg("run", "int", "The run (`dbg runs`; default the session's latest).",
            flags=("--run",), minimum=1, metavar="ID"),
        Arg("limit", "int", "Show the last N (default 40).", flags=("--limit",), minimum=1,
            metavar="N"),
        Arg("first", "bool", "Show the first N instead (when did it begin?).",
            flags=("--first",)),
        Arg("time", "bool", "Show each call's duration.", flags=("--time",)),
        Arg("sum_by", "str", "Totals instead of calls: their count, time (total, mean, "
            "longest) and exceptions per function or per caller (the call site).",
            flags=("--sum-by",), metavar="function|caller"),
    ), needs="none", send="local", run=run_calls, render=render_calls,
       group="history", details=(
           "Values are compared as the literals they read as (3, -1.5, 'abc', None), so the "
           "same EXPR works on every language's records.\n\n"
           "  dbg calls check_entry --where \"value < 0\"\n"
           "  dbg calls tri --where \"n == 2 and ret != 3\"\n"
           "  dbg calls --sum-by caller")),
    Op("history", "The values EXPR took: at each recorded stop, or with --at at each hit of "
       "LOCATION as the program runs on, without stopping there.", (
        Arg("expression", "text", "The expression (without --at: a local's name, or an "
            "expression over recorded locals; the values an earlier --at of the same EXPR "
            "recorded are read too).", required=True, expression=True),
        Arg("at", "location", "Run on, evaluating EXPR at each hit of LOC (" + LOCATION_HELP
            + ") until the program stops by itself.", flags=("--at",), metavar="LOC"),
        Arg("max", "int", "With --at: stop the program at the Nth hit (default 1000).",
            flags=("--max",), minimum=1, metavar="N"),
        Arg("run", "int", "Without --at: the run (`dbg runs`; default the latest).",
            flags=("--run",), minimum=1, metavar="ID"),
        Arg("limit", "int", "Show the last N values (default 40).", flags=("--limit",),
            minimum=1, metavar="N"),
        Arg("first", "bool", "Show the first N instead (when did it go bad?).",
            flags=("--first",)),
        Arg("changes", "bool", "Show only the values that changed from the one before.",
            flags=("--changes",)),
    ), needs="none", send="local", run=run_history, handler=handle_history,
       render=render_history, group="history", core_ok=False, waits=True, ended_ok=True,
       details=(
           "Each value is marked * where it changed from the one before, with where it was "
           "seen; `;` separates several expressions, taken together at each hit. A program "
           "that has ended, or that ends without reaching LOC, is run again from its start "
           "(once).\n\n"
           "  dbg history total --at ledger.py:41\n"
           "  dbg history 'len(items)'")),
    Op("runs", "List the recorded runs of the program (start, restart, test): ids for "
       "`dbg diff`, and how each ended (in progress, or cut short when its end was never "
       "written).", (
        Arg("all", "bool", "Every session's runs, not only this session's.", flags=("--all",)),
        Arg("limit", "int", "The last N (default 40).", flags=("--limit",), minimum=1,
            metavar="N"),
    ), needs="none", send="local", run=run_runs, render=render_runs,
       group="history"),
    Op("diff", "Where two runs part ways: the first traced call, return value or line (or "
       "stop) that differs, both sides shown.", (
        Arg("run_a", "int", "The first run's id (`dbg runs`).", minimum=1, metavar="RUN_A"),
        Arg("run_b", "int", "The second run's id.", minimum=1, metavar="RUN_B"),
    ), needs="none", send="local", run=run_diff, render=render_diff,
       group="history", details=(
           "Without ids: the session's last two runs. Trace the same functions in both "
           "(e.g. a passing input and a failing one) and the answer is the first call whose "
           "arguments or result differ.\n\n"
           "  dbg diff 12 13")),
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
