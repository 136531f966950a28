"""The text of the history ops' answers: `dbg trace`, `calls`, `history`,
`runs` and `diff`. Each says what its budget cut and how to see the rest."""

from __future__ import annotations

import time

from dbgcore.ops.render import snapshot
from dbgcore.vocab.opspec import Payload


def _short(path: object) -> str:
    text = str(path or "?")
    return text.rsplit("/", 1)[-1]


def _at(file: object, line: object) -> str:
    return f"{_short(file)}:{line}" if line is not None else _short(file)


def call_line(c: Payload, indent: bool = True) -> str:
    """One call: ``#3    tri(n=2) -> 3   [tri.c:9 from tri.c:12 tri]``."""
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
    where = f"from {_at(caller.get('file'), caller.get('line'))}" if caller else ""
    if caller.get("function"):
        where += f" {caller['function']}"
    out = f"#{c['seq']:<4} {pad}{c['function']}({args}){end}"
    if c.get("thread") not in (None, "", "MainThread", 1):
        where += f" thread {c['thread']}"
    return out + (f"   [{where.strip()}]" if where.strip() else "")


def _lines(c: Payload) -> list[str]:
    out = []
    for r in c.get("lines") or []:
        changed = ", ".join(f"{x['name']}={x['value']}" for x in r.get("changed") or [])
        out.append(f"        line {r['line']}" + (f": {changed}" if changed else ""))
    if c.get("lines_omitted"):
        out.append(f"        ... {c['lines_omitted']} more lines (dbg calls --json has them)")
    return out


def _calls(rows: list[Payload], omitted: int, what: str) -> list[str]:
    out = []
    if omitted:
        out.append(f"... {omitted} earlier {what} not shown (--limit N shows more)")
    for c in rows:
        out.append(call_line(c))
        out.extend(_lines(c))
    return out


def trace(p: Payload) -> str:
    t = p.get("trace") or {}
    total, dropped = t.get("total", 0), t.get("dropped", 0)
    head = f"traced {', '.join(t.get('functions') or [])}: {total} call" + \
        ("s" if total != 1 else "") + f" recorded in run {t.get('run')}"
    if t.get("means"):
        head += f" (by {t['means']})"
    out = [head]
    out += _calls(t.get("calls") or [], int(t.get("omitted") or 0), "calls")
    if dropped:
        out.append(f"... {dropped} later calls not recorded (--max {t.get('max')})")
    if t.get("note"):
        out.append(f"note: {t['note']}")
    out.append("ended: " + snapshot(p))
    return "\n".join(out)


def calls(p: Payload) -> str:
    rows = p.get("calls") or []
    what = f"calls of {p['function']}" if p.get("function") else "traced calls"
    if p.get("where"):
        what += f" where {p['where']}"
    if not rows:
        return f"no recorded {what} in run {p.get('run')}"
    out = [f"{p.get('total')} {what} in run {p.get('run')}"]
    out += _calls(rows, int(p.get("omitted") or 0), "calls")
    if p.get("note"):
        out.append(f"note: {p['note']}")
    return "\n".join(out)


def history(p: Payload) -> str:
    h = p["history"]
    out = [f"{h['expression']}: {h.get('total', 0)} values, {h.get('changes', 0)} changes "
           f"({h.get('source')}, run {h.get('run')})"]
    if h.get("omitted"):
        out.append(f"... {h['omitted']} earlier values not shown (--limit N shows more)")
    for r in h.get("values") or []:
        mark = "*" if r.get("changed") else " "
        value = r["value"] if r.get("value") is not None else f"<{r.get('error', 'no value')}>"
        where = _at(r.get("file"), r.get("line"))
        if r.get("function"):
            where += f" in {r['function']}"
        out.append(f" {mark} {value}   [{where}]")
    if h.get("note"):
        out.append(f"note: {h['note']}")
    if h.get("at") is not None:  # it ran the program: where it ended
        out.append("ended: " + snapshot(p))
    return "\n".join(out)


def runs(p: Payload) -> str:
    rows = p.get("runs") or []
    if not rows:
        return "no recorded runs" + (f" of session {p['session']}" if p.get("session") else "")
    out = []
    for r in rows:
        stamp = time.strftime("%H:%M:%S", time.localtime(r["started_at"]))
        args = " ".join(str(a) for a in r.get("args") or [])
        values = f", {r['values']} history values" if r.get("values") else ""
        out.append(f"run {r['id']}  {stamp}  {r.get('session')}  {_short(r.get('program'))}"
                   f"{' ' + args if args else ''}  {run_end(r)}, {r.get('stops', 0)} stops, "
                   f"{r.get('calls', 0)} traced calls{values}")
    return "\n".join(out)


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


def _event(e: Payload | None) -> str:
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
    where = _at(e.get("file"), e.get("line"))
    shown = ", ".join(f"{v['name']}={v['value']}" for v in (e.get("locals") or [])[:6])
    return f"stop at {where} in {e.get('function')}" + (f" [{shown}]" if shown else "")


def diff(p: Payload) -> str:
    a, b = p["a"], p["b"]
    head = f"run {a['id']} vs run {b['id']} ({p.get('basis')})"
    out = [head]
    if p.get("same"):
        out.append(f"no divergence: the same {p.get('compared')} events")
    else:
        d = p["divergence"]
        out.append(f"first divergence at event {d['index']} ({d['kind']}):")
        out.append(f"  run {a['id']}: {_event(d.get('a'))}")
        out.append(f"  run {b['id']}: {_event(d.get('b'))}")
        if p.get("before"):
            out.append("after the same: " + "; ".join(_event(e) for e in p["before"]))
    for side in (a, b):
        end = run_end(side)
        out.append(f"run {side['id']}: {_short(side.get('program'))} "
                   f"{' '.join(str(x) for x in side.get('args') or [])} -> {end}")
    if p.get("note"):
        out.append(f"note: {p['note']}")
    return "\n".join(out)
