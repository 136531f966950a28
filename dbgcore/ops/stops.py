"""The stop: the answer of every op that runs the program (start, restart,
continue, step...), shared by their op groups: its text
(:func:`render_stop`), the ``--show`` argument each such op takes, and
:func:`stopping`, which declares such an op. Also the generic text of any
answer (:func:`text`), which every front end prints by.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from dbgcore.lang.sourcefind import suffix_matches
from dbgcore.vocab.opspec import Arg, Op

if TYPE_CHECKING:
    from collections.abc import Callable

    from dbgcore.vocab.opspec import Beside, Handler

Payload = dict[str, Any]

#: `--show EXPR`, which every op that stops takes.
SHOW = Arg("show", "text", "Also evaluate EXPR; at this stop, shown with it.",
           flags=("--show",), multiple=True, metavar="EXPR", expression=True)
#: The forms of a location, in the help of the arguments that take one.
LOCATION_HELP = 'FILE:LINE, FILE:"TEXT", LINE, FUNCTION or MODULE!FUNCTION'


def text(renderer: Callable[[Payload], str] | None, payload: Payload) -> str:
    """The text of an answer by its op's renderer (None: a stop snapshot's,
    or ``key: value`` lines), with the answer's note when it does not show it."""
    if renderer is None:
        if "state" in payload:
            return render_stop(payload)
        return "\n".join(f"{k}: {v}" for k, v in payload.items())
    shown = renderer(payload)
    note = payload.get("note")
    if note and f"note: {note}" not in shown:  # a renderer that does not show it
        shown = f"{shown}\nnote: {note}" if shown else f"note: {note}"
    return shown


def location_text(loc: Payload | None) -> str:
    if not loc:
        return "an unknown location"
    text = f"{loc.get('file') or '?'}:{loc.get('line') or '?'}"
    if loc.get("function"):
        text += f" in {loc['function']}"
    return text


def source_lines(lines: list[Payload]) -> list[str]:
    if not lines:
        return []
    width = len(str(lines[-1]["line"]))
    return [f"{'>' if s.get('current') else ' '} {s['line']:>{width}} | {s['text']}" for s in lines]


def variable_text(v: Payload) -> str:
    kind = f" ({v['type']})" if v.get("type") else ""
    cut = f" [cut: {v['cut']} chars]" if v.get("cut") else ""
    scope = f"  [{v['scope']}]" if v.get("scope") else ""
    return f"{v['name']} = {v['value']}{kind}{cut}{scope}"


def breakpoint_text(bp: Payload) -> str:
    requested = bp.get("requested") or ""
    where = requested
    if bp.get("file") and bp.get("line"):
        where = f"{bp['file']}:{bp['line']}"
        file, _, line = _requested_place(requested)
        # The file as typed (a name, a path suffix) resolved to this one.
        same_file = file == bp["file"] or bool(suffix_matches(file, [bp["file"]]))
        if line.startswith('"'):
            # Asked by a line's text: the text is shown beside the line.
            if not same_file:
                where += f" (requested {requested})"
        elif same_file and line != str(bp["line"]):
            where += f" (requested line {line}, bound at line {bp['line']})"
        elif requested and not same_file:
            where += f" (requested {requested})"
    elif bp.get("function"):
        where = bp["function"]
        if requested and requested != where:
            where += f" (requested {requested})"
    if bp.get("line_text"):
        where += f" `{bp['line_text']}`"
    kind = "temporary breakpoint" if bp.get("temporary") else (
        "watchpoint" if bp.get("kind") == "watch" else "breakpoint")
    text = f"{kind} {bp['id']} at {where}"
    if bp.get("text_gone"):
        text += f" [line text gone: was {bp['text_gone']!r}]"
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


def _requested_place(requested: str) -> tuple[str, str, str]:
    """A requested FILE:LINE or FILE:"TEXT" split at its colon."""
    if requested.endswith('"') and ':"' in requested:
        file, _, text = requested.partition(':"')
        return file, ":", '"' + text
    return requested.rpartition(":")


def moved_text(moved: Payload) -> str:
    """What a restart did with a breakpoint whose file was edited."""
    name = os.path.basename(str(moved.get("file") or "?"))
    if moved.get("gone") is not None:
        return (f"breakpoint {moved['id']} kept at {name}:{moved.get('line')}: line text gone: "
                f"was {moved['gone']!r}")
    return (f"breakpoint {moved['id']} moved with its line's text from {name}:"
            f"{moved.get('from')} to {name}:{moved.get('to')} `{moved.get('text')}`")


def shown_text(v: Payload) -> str:
    """One expression and its value (or why it has none)."""
    if v.get("error"):
        return f"{v['expression']}: error: {v['error']}"
    kind = f" ({v['type']})" if v.get("type") else ""
    return f"{v['expression']} = {v['value']}{kind}"


#: How many of its breakpoints a start's (or restart's) answer shows in text.
BREAKS_TOLD = 20


def render_stop(p: Payload) -> str:
    state = p.get("state")
    # A source file dbg built before starting it: the command it ran.
    out: list[str] = [f"built: {p['build']['command']}"] if p.get("build") else []
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
            out.append(f"never hit: {breakpoint_text(bp)}")
    elif state == "running" and p.get("waiting_for_input"):
        out.append("running: the program waits for input on stdin (`dbg input TEXT` sends a "
                   "line and waits for the next stop, `dbg input --eof` closes it)")
        if p.get("prompt"):
            out.append(f"it printed last: {p['prompt']!r}")
    elif state == "running" and p.get("blocked"):
        from dbgcore.ops.stacks import blocked_lines

        out += blocked_lines(p)
    elif state == "running":
        out.append("running: the target has not stopped yet "
                   "(`dbg wait` waits for the next stop, `dbg pause` interrupts it)")
        for child in p.get("children_stopped") or []:
            # The program may be waiting for this child (a pool's map).
            where = f" at {location_text(child['location'])}" if child.get("location") else ""
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
        if p.get("thread_name"):
            thread = f" [thread {p['thread']} {p['thread_name']!r}]"
        out.append(f"stopped: {reason} at {location_text(p.get('location'))}{thread}")
        if description:
            out.append(description)
        out += source_lines(p.get("source") or [])
        for w in p.get("watch") or []:
            out.append(f"watch {w['id']}: {w['expression']}: {w['old']} -> {w['new']}")
        variables = p.get("locals") or []
        if variables:
            out.append("locals:")
            for v in variables:
                out.append(f"{'*' if v.get('changed') else ' '} {variable_text(v)}")
                out += [f"    .{variable_text(f)}" for f in v.get("fields") or []]
                if v.get("fields_more"):
                    out.append(f"    +{v['fields_more']} more fields (`dbg vars {v['name']}` "
                               f"lists them)")
            if p.get("locals_more"):
                out.append(f"  +{p['locals_more']} more locals (`dbg locals` shows them all)")
        out += [shown_text(v) for v in p.get("shown") or []]
    if p.get("note"):
        out.append(f"note: {p['note']}")
    never = {bp.get("id") for bp in p.get("never_hit") or []}
    told = [bp for bp in p.get("breakpoints") or [] if bp.get("id") not in never]  # said above
    out += [breakpoint_text(bp) for bp in told[:BREAKS_TOLD]]
    if len(told) > BREAKS_TOLD:
        # A start with 1,000 breakpoints says a page of them, not 1,000 lines.
        out.append(f"+{len(told) - BREAKS_TOLD:,} more breakpoints (`dbg breaks` lists them "
                   "by id)")
    out += [moved_text(m) for m in p.get("moved_breakpoints") or []]
    for failed in p.get("failed_breakpoints") or []:
        out.append(f"breakpoint {failed['location']} could not be set again: {failed['error']}")
    return "\n".join(out)


def ending(p: Payload) -> str:
    """How a program ended, said the same way for every backend."""
    if p.get("signal"):
        return f"killed by {p['signal']}"
    code = p.get("exit_code")
    return "exited" + (f" with code {code}" if code is not None else "")


def stopping(name: str, summary: str, *args: Arg, aliases: tuple[str, ...] = (),
              needs: str = "stopped", handler: Handler | None = None,
              beside: Beside | None = None, method: Callable[..., object] | None = None,
              title: str = "", lost_ok: bool = False, ended_ok: bool = False, checked: bool = True,
              new_debugger: bool | None = None, own_tool: bool = False,
              core_ok: bool = False) -> Op:
    # core_ok: each runs the program, which a core cannot (but `wait` only waits).
    return Op(name, summary, (*args, SHOW), aliases=aliases, needs=needs, stops=True,
              group="execution", render=render_stop, handler=handler, beside=beside,
              method=method, title=title, lost_ok=lost_ok, ended_ok=ended_ok, checked=checked,
              new_debugger=new_debugger, own_tool=own_tool, core_ok=core_ok)
