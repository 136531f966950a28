"""What the history ops (:mod:`dbgcore.ops.history`) share: reading the
session store (which run, how many rows an answer shows, what a run's end
says) and the text of a recorded call and of a run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.shared.errors import OpFailed

if TYPE_CHECKING:
    from dbgcore.shared.jsontypes import JsonObject
    from dbgcore.store.db import Store
    from dbgcore.vocab.opspec import Payload


#: Rows an answer shows unless --limit says otherwise.
DEFAULT_SHOWN = 40


def open_store(by: str) -> Store:
    from dbgcore.store.db import Store

    return Store(by=by)


def budget(rows: list[JsonObject], limit: int | None, newest: bool = True) -> tuple[
        list[JsonObject], int]:
    """At most ``limit`` rows (the newest, or the first), and how many were cut."""
    keep = limit or DEFAULT_SHOWN
    if len(rows) <= keep:
        return rows, 0
    return (rows[-keep:] if newest else rows[:keep]), len(rows) - keep


def chosen_run(store: Store, session: str, asked: object) -> JsonObject:
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
    runs = store.runs(session, limit=1, debugged=True)
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


def call_names(call: JsonObject) -> dict[str, object]:
    names: dict[str, object] = {str(a["name"]): a["value"] for a in call.get("args") or []}
    names.update(fn=call.get("function"), depth=call.get("depth"),
                 ret=call.get("value") if call.get("outcome") == "returned" else None,
                 exc=call.get("value") if call.get("outcome") == "raised" else None)
    return names


def short_path(path: object) -> str:
    text = str(path or "?")
    return text.rsplit("/", 1)[-1]


def place(file: object, line: object) -> str:
    return f"{short_path(file)}:{line}" if line is not None else short_path(file)


def duration_text(seconds: float) -> str:
    """A call's duration in the unit that reads best: 840 µs, 12.5 ms, 3.20 s."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.2f} s"


def call_line(c: Payload, indent: bool = True, timed: bool = False) -> str:
    """One call: ``#3    tri(n=2) -> 3   [tri.c:9 from tri.c:12 tri]``;
    ``timed``: its duration after its end (``-> 3  (1.2 ms)``)."""
    args = ", ".join(f"{a['name']}={a['value']}" for a in c.get("args") or [])
    pad = "  " * int(c.get("depth") or 0) if indent else ""
    outcome = c.get("outcome")
    if outcome == "returned":
        end = f" -> {c['value']}" if c.get("value") is not None else " returned"
    elif outcome == "raised":
        end = f" raised {c.get('value') or ''}".rstrip()
    else:
        end = " (unfinished)"
    caller = c.get("caller") or {}
    where = f"from {place(caller.get('file'), caller.get('line'))}" if caller else ""
    if caller.get("function"):
        where += f" {caller['function']}"
    if timed and c.get("duration") is not None:
        end += f"  ({duration_text(float(c['duration']))})"
    out = f"#{c['seq']:<4} {pad}{c['function']}({args}){end}"
    if c.get("thread") not in (None, "", "MainThread", 1):
        where += f" thread {c['thread']}"
    return out + (f"   [{where.strip()}]" if where.strip() else "")


def call_lines(c: Payload) -> list[str]:
    out = []
    for r in c.get("lines") or []:
        changed = ", ".join(f"{x['name']}={x['value']}" for x in r.get("changed") or [])
        out.append(f"        line {r['line']}" + (f": {changed}" if changed else ""))
    if c.get("lines_omitted"):
        out.append(f"        ... {c['lines_omitted']} more lines (dbg calls --json has them)")
    return out


def calls_text(rows: list[Payload], omitted: int, what: str, timed: bool = False,
               first: bool = False) -> list[str]:
    """The calls' lines, with those cut counted where they were: before the
    last ones shown, or after the ``first`` ones."""
    out = []
    cut = f"{omitted} {'later' if first else 'earlier'} {what} not shown (--limit N shows more)"
    if omitted and not first:
        out.append(f"... {cut}")
    for c in rows:
        out.append(call_line(c, timed=timed))
        out.extend(call_lines(c))
    if omitted and first:
        out.append(f"... {cut}")
    return out


def run_end(r: Payload) -> str:
    """How a run ended, as `dbg runs` says it: a run whose end was never
    written is in progress, or was cut short (and why)."""
    if r.get("signal"):
        return f"killed by {r['signal']}"
    if r.get("exit_code") is not None:
        return f"exit {r['exit_code']}"
    if r.get("state") == "cut short":
        return f"cut short ({r.get('cut_short')})"
    if r.get("state") == "in progress":
        return "in progress"
    return "ended" if r.get("ended_at") is not None else "not ended"


def event_text(e: Payload | None) -> str:
    if e is None:
        return "(nothing: the run had ended)"
    kind = e.get("kind")
    if kind == "call":
        args = ", ".join(f"{a['name']}={a['value']}" for a in e.get("args") or [])
        return f"call {e['function']}({args})"
    if kind == "line":
        changed = ", ".join(f"{c['name']}={c['value']}" for c in e.get("changed") or [])
        return f"{e['function']} line {e['line']}" + (f": {changed}" if changed else "")
    if kind == "end":
        value = e.get("value")
        return f"{e['function']} {e.get('outcome')}" + (f" {value}" if value is not None else "")
    where = place(e.get("file"), e.get("line"))
    shown = ", ".join(f"{v['name']}={v['value']}" for v in (e.get("locals") or [])[:6])
    return f"stop at {where} in {e.get('function')}" + (f" [{shown}]" if shown else "")
