"""The history ops a front end answers from the store, with no debugger:
`dbg calls`, `dbg history` (recorded stops; with ``--at`` it asks the
session's daemon), `dbg runs` and `dbg diff`. They work after the session
ended, and after a crash, as `dbg hits` does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.errors import DbgError, OpFailed, UsageError
from dbgcore.recorded import RecordedExpression, Unknown

if TYPE_CHECKING:
    from dbgcore.jsontypes import JsonObject
    from dbgcore.opspec import Payload, Via
    from dbgcore.registry import Front
    from dbgcore.store import Store

#: Rows an answer shows unless --limit says otherwise.
DEFAULT_SHOWN = 40


def _open(by: str) -> Store:
    from dbgcore.store import Store

    return Store(by=by)


def _budget(rows: list[JsonObject], limit: int | None, newest: bool = True) -> tuple[
        list[JsonObject], int]:
    """At most ``limit`` rows (the newest, or the first), and how many were cut."""
    keep = limit or DEFAULT_SHOWN
    if len(rows) <= keep:
        return rows, 0
    return (rows[-keep:] if newest else rows[:keep]), len(rows) - keep


def _run_id(store: Store, session: str, asked: object) -> int:
    """The run asked for (--run, which must exist), else the session's latest."""
    if asked is not None:
        run_id = int(str(asked))
        if not store.has_run(run_id):
            raise OpFailed(f"no recorded run {run_id}", "list them with `dbg runs --all`")
        return run_id
    runs = store.runs(session, limit=1)
    if not runs:
        raise OpFailed(f"no recorded run of session {session!r}",
                       "start one: dbg start PROGRAM (see `dbg runs --all`)")
    return int(runs[-1]["id"])


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
        run_id = _run_id(store, session, values.get("run"))
        rows = store.calls(run_id)
        notes = store.take_notes()
    finally:
        store.close()
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
                       "run": run_id, "function": function, "where": values.get("where")}
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
        from dbgcore import client

        response = client.call(session, "history", {
            k: v for k, v in values.items() if v is not None}, timeout)
        if not response.get("ok"):
            raise DbgError.from_wire(response.get("error") or {})
        return response.get("result") or {}, response.get("via")
    parsed = RecordedExpression(expression)
    store = _open("dbg history")
    try:
        run_id = _run_id(store, session, values.get("run"))
        stops = store.hits(None, run_id=run_id, limit=100_000)
        notes = store.take_notes()
    finally:
        store.close()
    rows: list[JsonObject] = []
    last: object = object()
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
        text = value if isinstance(value, str) else repr(value)
        rows.append({"value": text, "file": stop.get("file"), "line": stop.get("line"),
                     "function": stop.get("function"), "stop": stop.get("id"),
                     "changed": text != last})
        last = text
    shown, omitted = _budget(rows, values.get("limit"))
    if not rows:
        notes.insert(0, f"no recorded stop of run {run_id} has {expression!r} among its "
                        "locals; --at LOCATION evaluates it as the program runs")
    # The same shape as with --at (there beside the stop it ended at).
    return {"history": {
        "expression": expression, "at": None, "values": shown, "total": len(rows),
        "omitted": omitted, "changes": sum(1 for r in rows if r["changed"]), "run": run_id,
        "source": "recorded stops", "note": "; ".join(notes)}}, None


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
    from dbgcore.rundiff import compare

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
