"""The ops about the session itself rather than its program: `dbg
status` (asked of the daemon, also beside an op that waits), `sessions`
and `kill` (answered in the front end's process).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.ops.stops import ending, location_text
from dbgcore.shared.errors import (
    DbgError,
)
from dbgcore.vocab.opspec import Op, add_ops_hook

if TYPE_CHECKING:

    from dbgcore.backends.registry import Front
    from dbgcore.ops.call import Answer
    from dbgcore.ops.opsession import OpSession as Session
    from dbgcore.vocab.opspec import Payload, Via


def run_sessions(values: Payload, session: str, timeout: float,
                 front: Front) -> tuple[Payload, Via | None]:
    from dbgcore.shared import attached, client
    from dbgcore.shared.status import list_session_names

    rows = []
    for name in list_session_names():
        try:
            live = client.live_status(name)
        except DbgError:
            continue  # gone, or on its way out (a start that failed ends its daemon)
        if live is None:
            continue
        try:
            response = client.call(name, "ping", None, 5.0)
        except DbgError:
            continue
        info = (response.get("result") or {}).get("session") or {}
        row = {"name": name, "backend": info.get("backend"), "tool": info.get("tool"),
               "state": info.get("state", "?"), "program": info.get("program")}
        clients = attached.attached(name)
        if clients:
            row["attached"] = [attached.describe(c) for c in clients]
        rows.append(row)
    return {"sessions": rows}, None


def run_kill(values: Payload, session: str, timeout: float,
             front: Front | None) -> tuple[Payload, Via | None]:
    from dbgcore.shared import client

    response = client.kill(session, timeout)
    if not response.get("ok"):
        raise DbgError.from_wire(response.get("error") or {})
    return response.get("result") or {}, response.get("via")


def kill_answer(session: str, timeout: float) -> Answer:
    """What call_op answers for a bare `dbg kill`, without the op table and
    its plugins: dbgcore.entry's fast path answers every session's last
    call so (the click CLI cost some 100 ms more)."""
    from dbgcore.ops.call import Answer

    try:
        payload, via = run_kill({}, session, timeout, None)
    except DbgError as exc:
        return Answer("kill", session, None, error=exc)
    return Answer("kill", session, via, payload, render=render_kill)


def handle_status(session: Session, args: Payload, timeout: float) -> Payload:
    problem = ""
    try:
        session.refresh(timeout)
    except DbgError as exc:
        # Status must still answer when the debugger is gone; say why instead.
        problem = exc.message
    info = session.describe()
    if problem:
        info["problem"] = problem
    info["breakpoints"] = len(session.breaks.entries)
    info["output_cursor"] = session.output.cursor
    return info


def status_beside(session: Session, args: Payload, timeout: float,
                  busy: str) -> tuple[Payload | None, Payload]:
    return {**session.describe(), "busy": busy, "breakpoints": len(session.breaks.entries),
            "output_cursor": session.output.cursor}, {}


def render_status(p: Payload) -> str:
    state = ending(p) if p["state"] == "exited" else str(p["state"]).replace("_", " ")
    line = f"session {p['name']}: {state}"
    if p.get("program"):
        line += f", {p['program']}"
    if p.get("backend"):
        line += f" [{p['backend']}]"
    if p.get("location"):
        line += f" at {location_text(p['location'])}"
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


def render_sessions(p: Payload) -> str:
    rows = p.get("sessions") or []
    if not rows:
        return "no sessions"
    return "\n".join(
        f"{s['name']}: {str(s['state']).replace('_', ' ')} {s.get('program') or ''} "
        f"[{s.get('backend') or '?'} via {s.get('tool') or '?'}]".replace("  ", " ")
        + "".join(f"; {who}" for who in s.get("attached") or ())
        for s in rows
    )


def render_kill(p: Payload) -> str:
    program = p.get("program")
    if p.get("forced") is not None:
        forced = p["forced"]
        return f"session {p['killed']} ended: the daemon did not answer; killed it and its " \
               f"{forced} process{'' if forced == 1 else 'es'}"
    return f"session {p['killed']} ended" + (f"; its program: {program}" if program else "")


#: The session ops, in the op table's order.
OPS: tuple[Op, ...] = (
    Op("status", "Show the session's state and where it stopped.", group="sessions",
       own_tool=True,
       handler=handle_status, beside=status_beside, render=render_status,
       lost_ok=True, ended_ok=True, checked=False),
    Op("sessions", "List live sessions.", needs="none", send="local",
       own_tool=True,
       run=run_sessions, render=render_sessions, group="sessions"),
    Op("kill", "End the session: debuggee, debugger and daemon.", send="local",
       own_tool=True,
       run=run_kill, render=render_kill, group="sessions", lost_ok=True),
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
