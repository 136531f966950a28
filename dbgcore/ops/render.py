"""Concise text for each op's answer (the JSON payload, rendered for people):
the op table (:mod:`dbgcore.ops.table`) names each op's renderer here."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from dbgcore.lang.sourcefind import suffix_matches
from dbgcore.ops.stacks import blocked_lines

Payload = dict[str, Any]


def text(renderer: Callable[[Payload], str] | None, payload: Payload) -> str:
    """The text of an answer by its op's renderer (None: a stop snapshot's,
    or ``key: value`` lines), with the answer's note when it does not show it."""
    if renderer is None:
        if "state" in payload:
            return snapshot(payload)
        return "\n".join(f"{k}: {v}" for k, v in payload.items())
    shown = renderer(payload)
    note = payload.get("note")
    if note and f"note: {note}" not in shown:  # a renderer that does not show it
        shown = f"{shown}\nnote: {note}" if shown else f"note: {note}"
    return shown


def _where(loc: Payload | None) -> str:
    if not loc:
        return "an unknown location"
    text = f"{loc.get('file') or '?'}:{loc.get('line') or '?'}"
    if loc.get("function"):
        text += f" in {loc['function']}"
    return text


def _source(lines: list[Payload]) -> list[str]:
    if not lines:
        return []
    width = len(str(lines[-1]["line"]))
    return [f"{'>' if s.get('current') else ' '} {s['line']:>{width}} | {s['text']}" for s in lines]


def _var(v: Payload) -> str:
    kind = f" ({v['type']})" if v.get("type") else ""
    cut = f" [cut: {v['cut']} chars]" if v.get("cut") else ""
    return f"{v['name']} = {v['value']}{kind}{cut}"


def snapshot(p: Payload) -> str:
    state = p.get("state")
    out: list[str] = []
    returned = p.get("return_value")
    if returned:
        kind = f" ({returned['type']})" if returned.get("type") else ""
        out.append(f"{returned.get('kind') or 'returned'}: {returned['value']}{kind}")
    if state == "exited":
        out.append(ending(p))
        if p.get("description"):
            out.append(p["description"])
        if p.get("stderr_tail"):
            out.append("its stderr ended with:")
            out += [f"  {line}" for line in p["stderr_tail"]]
        for bp in p.get("never_hit") or []:
            out.append(f"never hit: {_breakpoint(bp)}")
    elif state == "running" and p.get("waiting_for_input"):
        out.append("running: the program waits for input on stdin (`dbg input TEXT` sends a "
                   "line and waits for the next stop, `dbg input --eof` closes it)")
        if p.get("prompt"):
            out.append(f"it printed last: {p['prompt']!r}")
    elif state == "running" and p.get("blocked"):
        out += blocked_lines(p)
    elif state == "running":
        out.append("running: the target has not stopped yet "
                   "(`dbg wait` waits for the next stop, `dbg pause` interrupts it)")
        for child in p.get("children_stopped") or []:
            # The program may be waiting for this child (a pool's map).
            where = f" at {_where(child['location'])}" if child.get("location") else ""
            out.append(f"child session {child['session']} stopped: "
                       f"{child.get('reason') or 'stopped'}{where} "
                       f"(`dbg -s {child['session']} ...` drives it)")
    else:
        reason = p.get("reason") or "stopped"
        hits = p.get("hit_breakpoints") or []
        description = p.get("description") or ""
        if reason == "condition_error":
            # At a breakpoint whose condition the debugger could not evaluate.
            reason, description = "breakpoint", f"condition error: {description}"
        if reason == "breakpoint" and hits:
            reason += " " + ",".join(str(h) for h in hits)
        thread = f" [thread {p['thread']}]" if p.get("thread") is not None else ""
        out.append(f"stopped: {reason} at {_where(p.get('location'))}{thread}")
        if description:
            out.append(description)
        out += _source(p.get("source") or [])
        for w in p.get("watch") or []:
            out.append(f"watch {w['id']}: {w['expression']}: {w['old']} -> {w['new']}")
        variables = p.get("locals") or []
        if variables:
            out.append("locals:")
            for v in variables:
                out.append(f"{'*' if v.get('changed') else ' '} {_var(v)}")
                out += [f"    .{_var(f)}" for f in v.get("fields") or []]
            if p.get("locals_more"):
                out.append(f"  +{p['locals_more']} more locals (`dbg locals` shows them all)")
        out += [_shown(v) for v in p.get("shown") or []]
    if p.get("note"):
        out.append(f"note: {p['note']}")
    never = {bp.get("id") for bp in p.get("never_hit") or []}
    for bp in p.get("breakpoints") or []:
        if bp.get("id") not in never:  # said above
            out.append(_breakpoint(bp))
    for failed in p.get("failed_breakpoints") or []:
        out.append(f"breakpoint {failed['location']} could not be set again: {failed['error']}")
    return "\n".join(out)


def ending(p: Payload) -> str:
    """How a program ended, said the same way for every backend."""
    if p.get("signal"):
        return f"killed by {p['signal']}"
    code = p.get("exit_code")
    return "exited" + (f" with code {code}" if code is not None else "")


def _breakpoint(bp: Payload) -> str:
    requested = bp.get("requested") or ""
    where = requested
    if bp.get("file") and bp.get("line"):
        where = f"{bp['file']}:{bp['line']}"
        file, _, line = requested.rpartition(":")
        # The file as typed (a name, a path suffix) resolved to this one.
        same_file = file == bp["file"] or bool(suffix_matches(file, [bp["file"]]))
        if same_file and line != str(bp["line"]):
            where += f" (requested line {line}, bound at line {bp['line']})"
        elif requested and not same_file:
            where += f" (requested {requested})"
    elif bp.get("function"):
        where = bp["function"]
        if requested and requested != where:
            where += f" (requested {requested})"
    kind = "temporary breakpoint" if bp.get("temporary") else (
        "watchpoint" if bp.get("kind") == "watch" else "breakpoint")
    text = f"{kind} {bp['id']} at {where}"
    if not bp.get("verified", True):
        text += " [pending: " + (bp.get("message") or "not bound yet") + "]"
    extras = []
    if bp.get("condition"):
        extras.append(f"if {bp['condition']}")
    if bp.get("hit_count"):
        extras.append(f"stops on hit {bp['hit_count']}")
    if bp.get("log_message"):
        extras.append(f"logs {bp['log_message']!r}")
    if bp.get("hits"):
        extras.append(f"hit {bp['hits']} time{'s' if bp['hits'] != 1 else ''}")
    if extras:
        text += " (" + ", ".join(extras) + ")"
    if bp.get("message") and bp.get("verified", True):
        text += f" — {bp['message']}"
    return text


def break_(p: Payload) -> str:
    return _breakpoint(p["breakpoint"]) + _children_told(p)


def _children_told(p: Payload) -> str:
    """What the parent's child sessions did with a break or unbreak."""
    told = p.get("children") or []
    done = sorted({t["session"] for t in told if t.get("ok")})
    lines = [f"\nalso in child session {name}" for name in done]
    lines += [f"\nnot in child session {t['session']}: {t.get('error', '')}"
              for t in told if not t.get("ok")]
    return "".join(lines)


def breaks(p: Payload) -> str:
    bps = p.get("breakpoints") or []
    return "\n".join(_breakpoint(b) for b in bps) if bps else "no breakpoints"


def unbreak(p: Payload) -> str:
    return "\n".join("removed " + _breakpoint(b) for b in p.get("removed", [])) \
        + _children_told(p)


#: A frame's arguments together are cut at this length in `dbg stack`.
ARGS_TEXT_CHARS = 160


def stack(p: Payload) -> str:
    runs = sorted(p.get("hidden") or [], key=lambda r: r["first"])
    lines = []
    for f in p.get("frames", []):
        while runs and runs[0]["first"] < f["index"]:
            lines.append(_hidden(runs.pop(0)))
        mark = ">" if f.get("current") else " "
        lines.append(f"{mark} #{f['index']:<2} {_call(f)} at "
                     f"{f.get('file') or '?'}:{f.get('line') or '?'}{_frame_tag(f)}")
    lines += [_hidden(run) for run in runs]
    if p.get("cut"):
        lines.append(f"... {p['cut']} outer frames not shown (--levels N shows more)")
    return "\n".join(lines) or "no frames"


def _call(f: Payload) -> str:
    """``function(name=value, ...)``; the bare name when the arguments are
    unknown, or for code that takes none and is no function (``<module>``)."""
    name = f.get("function") or "??"
    args = f.get("args")
    if args is None or (not args and name.startswith("<")):
        return name
    text = ", ".join(f"{a['name']}={a['value']}" for a in args)
    if len(text) > ARGS_TEXT_CHARS:
        text = text[: ARGS_TEXT_CHARS - 3] + "..."
    return f"{name}({text})"


def _frame_tag(f: Payload) -> str:
    if f.get("internal"):
        return "  [internal]"
    if f.get("library"):
        return f"  [library{' ' + f['library_name'] if f.get('library_name') else ''}]"
    return ""


def _hidden(run: Payload) -> str:
    count = run["count"]
    names = run.get("of") or []
    whose = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    frames = f"frame{'s' if count != 1 else ''}"
    what = f"{count} {frames} of {whose}" if whose else f"{count} more {frames}"
    return f"   ... {what} (dbg stack --all shows them)"


def frame(p: Payload) -> str:
    f = p["frame"]
    head = f"frame #{f['index']}: {_call(f)} at {f.get('file')}:{f.get('line')}{_frame_tag(f)}"
    return "\n".join([head, *_source(p.get("source") or [])])


def locals_(p: Payload) -> str:
    variables = p.get("variables") or []
    lines = [_var(v) for v in variables] or ["no locals"]
    if p.get("truncated"):
        lines.append("(long values cut short; `dbg print NAME` shows one in full)")
    return "\n".join(lines)


def print_(p: Payload) -> str:
    if "values" in p:
        return "\n".join(_shown(v) for v in p["values"])
    kind = f" ({p['type']})" if p.get("type") else ""
    return f"{p['value']}{kind}"


def _shown(v: Payload) -> str:
    """One expression and its value (or why it has none)."""
    if v.get("error"):
        return f"{v['expression']}: error: {v['error']}"
    kind = f" ({v['type']})" if v.get("type") else ""
    return f"{v['expression']} = {v['value']}{kind}"


def display(p: Payload) -> str:
    rows = p.get("display") or []
    if not rows:
        return "no display expressions"
    return "\n".join(f"{d['number']}: {d['expression']}" for d in rows)


def input_(p: Payload) -> str:
    sent = p.get("input", p)
    text = f"sent {sent.get('sent', 0)} bytes to the program's stdin"
    text += " and closed it" if sent.get("closed") else ""
    if "state" in p:
        # A running program: the input was sent, and this is its next stop.
        return text + "\n" + snapshot(p)
    if sent.get("unread"):
        text += f" ({sent['unread']} bytes unread yet: the program reads them when it runs)"
    return text


def set_(p: Payload) -> str:
    return f"{p['lhs']} = {p['value']}" + (f" ({p['type']})" if p.get("type") else "")


def threads(p: Payload) -> str:
    lines = [f"{'*' if t.get('current') else ' '} {t['id']} {t['name']}"
             for t in p.get("threads", [])]
    if p.get("cut"):
        lines.append(f"... {p['cut']} more threads not listed")
    return "\n".join(lines) or "no threads"


def thread(p: Payload) -> str:
    t = p["thread"]
    return f"thread {t['id']} {t['name']}"


def list_(p: Payload) -> str:
    return "\n".join([p["file"], *_source(p.get("lines") or [])])


def output(p: Payload) -> str:
    parts = []
    if p.get("dropped"):
        parts.append("(older output was dropped to bound memory)")
    # Chunks split lines anywhere; join runs of one stream before marking lines.
    runs: list[list[str]] = []
    for chunk in p.get("chunks", []):
        if runs and runs[-1][0] == chunk["category"]:
            runs[-1][1] += chunk["text"]
        else:
            runs.append([chunk["category"], chunk["text"]])
    for category, text in runs:
        if category != "stdout":
            text = "".join(f"[{category}] {line}" for line in text.splitlines(True))
        parts.append(text.rstrip("\n"))

    more = " (more: repeat with this --since)" if p.get("more") else ""
    parts.append(f"-- cursor {p.get('cursor', 0)}{more}")
    return "\n".join(parts)


def raw(p: Payload) -> str:
    text: str = p.get("output", "").rstrip("\n")
    if p.get("stop"):
        text += ("\n" if text else "") + snapshot(p["stop"])
    return text


def status(p: Payload) -> str:
    state = ending(p) if p["state"] == "exited" else str(p["state"]).replace("_", " ")
    line = f"session {p['name']}: {state}"
    if p.get("program"):
        line += f", {p['program']}"
    if p.get("backend"):
        line += f" [{p['backend']}]"
    if p.get("location"):
        line += f" at {_where(p['location'])}"
    if p.get("core"):
        line += f"\npost mortem: the core dump {p['core']} (nothing runs)"
    if p.get("waiting_for_input"):
        line += " (waiting for input on stdin: `dbg input TEXT`)"
        if p.get("prompt"):
            line += f"\nit printed last: {p['prompt']!r}"
    if p.get("busy"):
        line += f" (another call's `{p['busy']}` waits for it to stop)"
    if p.get("problem"):
        line += f"\nproblem: {p['problem']}"
    if p.get("logs"):
        line += f"\nlogs: {p['logs']}"
    return line


def sessions(p: Payload) -> str:
    rows = p.get("sessions") or []
    if not rows:
        return "no sessions"
    return "\n".join(
        f"{s['name']}: {str(s['state']).replace('_', ' ')} {s.get('program') or ''} "
        f"[{s.get('backend') or '?'} via {s.get('tool') or '?'}]".replace("  ", " ")
        for s in rows
    )


def hits(p: Payload) -> str:
    rows = p.get("hits") or []
    if not rows:
        return "no recorded stops" + (f" at {p['filter']}" if p.get("filter") else "")
    out = []
    if len(rows) < int(p.get("total") or 0):
        out.append(f"(the first {len(rows)} of {p['total']} stops; --limit N shows more)")
    for h in rows:
        stamp = time.strftime("%H:%M:%S", time.localtime(h["at"]))
        if h["state"] == "exited":
            out.append(f"{stamp} #{h['id']} {ending(h)}")
            continue
        line = f"{stamp} #{h['id']} {h.get('reason') or 'stop'} at {_where(h)}"
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


def doctor(p: Payload) -> str:
    marks = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}
    out = []
    for c in p.get("checks", []):
        line = f"{marks.get(c['status'], c['status'])} {c['check']}: {c['detail']}"
        if c["status"] != "ok" and c.get("fix"):
            line += f" -- fix: {c['fix']}"
        out.append(line)
    return "\n".join(out)


def report(p: Payload) -> str:
    return str(p.get("path", ""))


def backends(p: Payload) -> str:
    out = []
    for b in p.get("backends", []):
        mark = "ready  " if b["ready"] else "missing"
        line = f"{mark} {b['name']:<10} {b.get('detail') or ''}"
        if not b["ready"] and b.get("install"):
            line += f"\n          install: {b['install']}"
        out.append(line.rstrip())
    return "\n".join(out)


_CAP_MARKS = {"native": "yes", "fallback": "fallback", "none": "-"}


def caps(p: Payload) -> str:
    ready = [c for c in p.get("backends", []) if c.get("ready")]
    if p.get("markdown"):
        head = ["op", *(f"{c['name']} ({c['tool']} {c.get('version') or ''})".replace(" )", ")")
                        for c in ready)]
        rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for op in p["ops"]:
            cells = [_CAP_MARKS[c["ops"].get(op, "none")] for c in ready]
            rows.append(f"| `{op}` | " + " | ".join(cells) + " |")
        return "\n".join(rows)
    out = []
    if ready:
        width = max(len(op) for op in p["ops"]) + 2
        columns = [(c, max(len(c["name"]), 8) + 2) for c in ready]
        out.append("".ljust(width) + "".join(c["name"].ljust(w) for c, w in columns))
        for op in p["ops"]:
            row = "".join(_CAP_MARKS[c["ops"].get(op, "none")].ljust(w) for c, w in columns)
            out.append((op.ljust(width) + row).rstrip())
    for c in p.get("backends", []):
        if not c.get("ready"):
            out.append(f"{c['name']}: not ready ({c.get('detail') or 'unknown'})")
    return "\n".join(out)


def plugins(p: Payload) -> str:
    out = []
    for item in p.get("plugins", []):
        if item["ok"]:
            backends = ", ".join(item.get("backends") or []) or "no backends"
            out.append(f"ok     {item['name']} ({item['source']}): {backends}")
        else:
            out.append(f"broken {item['name']} ({item['source']}): {item['error']}")
    return "\n".join(out)


def tool(p: Payload) -> str:
    return f"{p.get('tool')} {p.get('version')} (backend {p.get('backend')})"


def kill(p: Payload) -> str:
    program = p.get("program")
    if p.get("forced") is not None:
        forced = p["forced"]
        return f"session {p['killed']} ended: the daemon did not answer; killed it and its " \
               f"{forced} process{'' if forced == 1 else 'es'}"
    return f"session {p['killed']} ended" + (f"; its program: {program}" if program else "")


def catch(p: Payload) -> str:
    filters = p.get("filters") or []
    return "catching: " + ", ".join(filters) if filters else "catching no exceptions"


def exception(p: Payload) -> str:
    head = f"{p.get('exception')}: {p.get('description') or ''}".rstrip(": ")
    return "\n".join([head, *([p["stack"]] if p.get("stack") else [])])


def agent_install(p: Payload) -> str:
    files = p.get("files") or []
    if not p.get("written"):
        out = [f"{p.get('agent')} ({p.get('scope')}): nothing written; --print shows:"]
        for f in files:
            out.append(f"{f['path']} ({f['action']}): {f['content']}")
        return "\n".join(out)
    done = {"create": "created", "update": "updated", "unchanged": "unchanged"}
    out = [f"{p.get('agent')} ({p.get('scope')}): `dbg mcp` registered, skill installed"]
    out += [f"  {done.get(f['action'], f['action']):<9} {f['path']} ({f['what']})"
            for f in files]
    if any(f["action"] != "unchanged" for f in files):
        out.append(f"restart {p.get('agent')} to load them")
    return "\n".join(out)
