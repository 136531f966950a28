"""`dbg diff`: where two recorded runs part ways.

Each run's traced calls become one sequence of events in the order they
happened: a call entered (its function and arguments), the lines it reached
(with ``--lines``), the traced calls made inside it, and its end (returned
a value, raised, or unfinished). The first event that differs is the
divergence, shown with both sides. Runs without traced calls are compared
stop by stop (where each stopped, and its locals).

Values are compared as they would be by a person reading both runs: an
object's address (``<generator object f at 0x7f87b367d210>``, a pointer
``0x55555556eee0``) differs from run to run without the runs differing, so
addresses are left out of the comparison (a null or small pointer is kept:
``0x0`` against ``0x55...`` does differ).
"""

from __future__ import annotations

import re

from dbgcore.shared.jsontypes import JsonObject

#: Events shown before the divergence, for context.
CONTEXT = 3


def _events(calls: list[JsonObject]) -> list[JsonObject]:
    """The calls as enter / line / end events, in the order they happened
    (a call's lines are listed at its entry: the records do not say when
    they came relative to the calls it made)."""
    out: list[JsonObject] = []
    open_: list[JsonObject] = []

    def end(call: JsonObject) -> None:
        out.append({"kind": "end", "seq": call["seq"], "function": call.get("function"),
                    "outcome": call.get("outcome"), "value": call.get("value")})

    for call in calls:
        # The calls it was not made inside have ended before it.
        while open_ and open_[-1]["seq"] != call.get("parent"):
            end(open_.pop())
        out.append({"kind": "call", "seq": call["seq"], "function": call.get("function"),
                    "args": _pairs(call.get("args"))})
        for line in call.get("lines") or []:
            out.append({"kind": "line", "seq": call["seq"], "function": call.get("function"),
                        "line": line.get("line"), "changed": _pairs(line.get("changed"))})
        open_.append(call)
    while open_:
        end(open_.pop())
    return out


def _pairs(rows: object) -> list[JsonObject]:
    """Names and values, as calls and stops carry them (``{"name", "value"}``)."""
    return [{"name": r.get("name"), "value": r.get("value")} for r in rows or []
            if isinstance(r, dict)] if isinstance(rows, list) else []


#: An address: six hex digits or more (a heap's, a stack's, a mapping's).
_ADDRESS_RE = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def _unplaced(value: object) -> str:
    """``value`` as compared: its addresses left out (see the module's docstring)."""
    return _ADDRESS_RE.sub("0x?", value if isinstance(value, str) else repr(value))


def _key(event: JsonObject) -> tuple[object, ...]:
    kind = event["kind"]
    if kind == "call":
        return kind, event["function"], _unplaced(event["args"])
    if kind == "line":
        return kind, event["line"], _unplaced(event["changed"])
    if kind == "end":
        return kind, event["outcome"], _unplaced(event["value"])
    return kind, event.get("file"), event.get("line"), event.get("function"), \
        _unplaced(event.get("locals"))


def _stop_events(stops: list[JsonObject]) -> list[JsonObject]:
    out = []
    for stop in stops:
        if stop.get("state") != "stopped":
            continue
        out.append({"kind": "stop", "file": stop.get("file"), "line": stop.get("line"),
                    "function": stop.get("function"), "reason": stop.get("reason"),
                    "locals": _pairs(stop.get("locals"))})
    return out


def _kind_of(a: JsonObject | None, b: JsonObject | None) -> str:
    if a is None or b is None:
        return "length"
    if a["kind"] != b["kind"]:
        return "path"  # one run called or reached something where the other ended
    if a["kind"] == "end":
        return "return"
    return str(a["kind"])


def _summary(run: JsonObject) -> JsonObject:
    return {"id": run["id"], "session": run.get("session"), "program": run.get("program"),
            "args": run.get("args"), "exit_code": run.get("exit_code"),
            "signal": run.get("signal"), "calls": run.get("calls"), "stops": run.get("stops"),
            "state": run.get("state"), "cut_short": run.get("cut_short")}


def compare(run_a: JsonObject, run_b: JsonObject, calls_a: list[JsonObject],
            calls_b: list[JsonObject], stops_a: list[JsonObject],
            stops_b: list[JsonObject]) -> JsonObject:
    """The first divergence of two runs (see the module's docstring)."""
    if calls_a or calls_b:
        basis = "traced calls"
        events_a, events_b = _events(calls_a), _events(calls_b)
    else:
        basis = "recorded stops"
        events_a, events_b = _stop_events(stops_a), _stop_events(stops_b)
    answer: JsonObject = {"a": _summary(run_a), "b": _summary(run_b), "basis": basis,
                          "compared": min(len(events_a), len(events_b))}
    if bool(calls_a) != bool(calls_b):
        answer["note"] = ("only run {} has traced calls: trace the same functions in both "
                          "(dbg trace FUNCTION) to compare them").format(
                              run_a["id"] if calls_a else run_b["id"])
    for index in range(max(len(events_a), len(events_b))):
        a = events_a[index] if index < len(events_a) else None
        b = events_b[index] if index < len(events_b) else None
        if a is not None and b is not None and _key(a) == _key(b):
            continue
        answer["same"] = False
        answer["divergence"] = {"kind": _kind_of(a, b), "index": index + 1, "a": a, "b": b}
        answer["before"] = events_a[max(0, index - CONTEXT):index]
        return answer
    answer["same"] = True
    return answer
