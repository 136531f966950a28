"""The history ops a front end answers from the store, with no debugger:
`dbg calls`, `dbg history` (recorded stops; with ``--at`` it asks the
session's daemon), `dbg runs` and `dbg diff`. They work after the session
ended, and after a crash, as `dbg hits` does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.shared.errors import DbgError, OpFailed, UsageError
from dbgcore.store.recorded import RecordedExpression, Unknown

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front
    from dbgcore.shared.jsontypes import JsonObject
    from dbgcore.store.db import Store
    from dbgcore.vocab.opspec import Payload, Via

#: Rows an answer shows unless --limit says otherwise.
DEFAULT_SHOWN = 40


def _open(by: str) -> Store:
    from dbgcore.store.db import Store

    return Store(by=by)


def _budget(rows: list[JsonObject], limit: int | None, newest: bool = True) -> tuple[
        list[JsonObject], int]:
    """At most ``limit`` rows (the newest, or the first), and how many were cut."""
    keep = limit or DEFAULT_SHOWN
    if len(rows) <= keep:
        return rows, 0
    return (rows[-keep:] if newest else rows[:keep]), len(rows) - keep


def _run(store: Store, session: str, asked: object) -> JsonObject:
    """The run asked for (--run, which must exist), else the session's
    latest: its row of `dbg runs`. The error when there is none says what
    the store said on the way (its damage: why there may be none)."""
    said = "".join(f"; {note}" for note in store.notes)
    if asked is not None:
        run_id = int(str(asked))
        found = store.runs(None, run_id=run_id)
        if not found:
            raise OpFailed(f"no recorded run {run_id}{said}", "list them with `dbg runs --all`")
        return found[-1]
    runs = store.runs(session, limit=1)
    if not runs:
        raise OpFailed(f"no recorded run of session {session!r}{said}",
                       "start one: dbg start PROGRAM (see `dbg runs --all`)")
    return runs[-1]


def run_note(run: JsonObject, what: str) -> str | None:
    """What an answer from a run's records says of a run whose end was
    never written (``what``: what it shows of it)."""
    if run.get("state") == "in progress":
        return f"run {run['id']} is in progress: the {what} recorded so far"
    if run.get("state") == "cut short":
        return f"run {run['id']} was cut short ({run.get('cut_short')}): the {what} " \
            "recorded until then"
    return None


def same_function(recorded: str | None, asked: str) -> bool:
    """``asked`` names the recorded function: exactly, or as its last part
    (``fee`` for Go's ``main.fee``, Java's ``Ledger.fee``)."""
    name = recorded or ""
    if "!" in asked:
        asked = asked.split("!", 1)[1]
    return name == asked or name.endswith(("." + asked, "::" + asked)) \
        or asked.endswith("." + name)


def _call_names(call: JsonObject) -> dict[str, object]:
    names: dict[str, object] = {str(a["name"]): a["value"] for a in call.get("args") or []}
    names.update(fn=call.get("function"), depth=call.get("depth"),
                 ret=call.get("value") if call.get("outcome") == "returned" else None,
                 exc=call.get("value") if call.get("outcome") == "raised" else None)
    return names


def calls(values: Payload, session: str, timeout: float,
          front: Front | None) -> tuple[Payload, Via | None]:
    function = values.get("function")
    where = RecordedExpression(values["where"], "--where") if values.get("where") else None
    store = _open("dbg calls")
    try:
        run = _run(store, session, values.get("run"))
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
        known = set().union(*(_call_names(r) for r in rows)) if rows else set()
        missing = where.names - known
        if rows and missing:
            raise UsageError(f"--where names {', '.join(sorted(missing))}, which no recorded "
                             "call has", "its names: " + ", ".join(sorted(known)))
        kept = []
        for row in rows:
            try:
                if where.evaluate(_call_names(row)):
                    kept.append(row)
            except Unknown:
                continue
        rows = kept
    shown, omitted = _budget(rows, values.get("limit"))
    answer: Payload = {"calls": shown, "total": len(rows), "omitted": omitted,
                       "run": run_id, "run_state": run.get("state"),
                       "function": function, "where": values.get("where")}
    if notes:
        answer["note"] = "; ".join(notes)
    return answer, None


def history(values: Payload, session: str, timeout: float,
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
    parsed = RecordedExpression(expression)
    store = _open("dbg history")
    try:
        run = _run(store, session, values.get("run"))
        run_id = int(run["id"])
        stops = store.hits(None, run_id=run_id, limit=100_000)
        sampled = store.samples(run_id, "history", expression.strip())
        notes = store.take_notes()
    finally:
        store.close()
    rows = _recorded_values(expression, parsed, stops, sampled)
    shown, omitted = _budget(rows, values.get("limit"))
    if not rows:
        notes.insert(0, f"no recorded stop of run {run_id} has {expression!r} among its "
                        "locals; --at LOCATION evaluates it as the program runs")
    if (said := run_note(run, "values")) is not None:
        notes.insert(0, said)
    places = sorted({str(s.get("location")) for s in sampled})
    source = "recorded stops" + (f" and hits of {', '.join(places)}" if places else "")
    # The same shape as with --at (there beside the stop it ended at).
    return {"history": {
        "expression": expression, "at": None, "values": shown, "total": len(rows),
        "omitted": omitted, "changes": sum(1 for r in rows if r["changed"]), "run": run_id,
        "source": source, "note": "; ".join(notes)}}, None


def _recorded_values(expression: str, parsed: RecordedExpression, stops: list[JsonObject],
                     sampled: list[JsonObject]) -> list[JsonObject]:
    """The values EXPR had in a run's records, in the order they were taken:
    at each recorded stop whose locals answer it, and at each hit `history
    --at` sampled it (kept as they were taken, so a run cut short keeps them)."""
    taken: list[tuple[float, JsonObject]] = []
    bare = expression.strip().isidentifier()
    for stop in stops:
        if stop.get("state") != "stopped":
            continue
        names = {str(v["name"]): v.get("value") for v in stop.get("locals") or []}
        try:
            value = names[expression.strip()] if bare and expression.strip() in names \
                else parsed.evaluate(names)
        except Unknown:
            continue
        taken.append((float(stop.get("at") or 0), {
            "value": value if isinstance(value, str) else repr(value),
            "file": stop.get("file"), "line": stop.get("line"),
            "function": stop.get("function"), "stop": stop.get("id")}))
    for sample in sampled:
        row = {k: sample.get(k) for k in ("value", "file", "line", "function", "hit")}
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


def runs(values: Payload, session: str, timeout: float,
         front: Front | None) -> tuple[Payload, Via | None]:
    store = _open("dbg runs")
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


def diff(values: Payload, session: str, timeout: float,
         front: Front | None) -> tuple[Payload, Via | None]:
    from dbgcore.store.rundiff import compare

    store = _open("dbg diff")
    try:
        a, b = values.get("run_a"), values.get("run_b")
        if a is None or b is None:
            recent = store.runs(session, limit=2)
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
