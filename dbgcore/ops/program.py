"""What the program and its debugger show besides frames and values:
`exception`, `output` (the program's, paged by cursor), `raw` (the
debugger's own answer) and `tool` (which debugger it is); `dbg list` (the
source) is :mod:`dbgcore.ops.listing`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.backends.contract import Backend
from dbgcore.ops.stops import render_stop
from dbgcore.shared.errors import (
    TargetExited,
)
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:

    from dbgcore.ops.opsession import OpSession as Session
    from dbgcore.vocab.opspec import Payload


#: Characters of output one `dbg output` answer carries (the cursor pages on).
OUTPUT_CHARS = 64_000


#: Traceback lines `dbg exception` shows: the first and the last, the middle cut.
TRACEBACK_HEAD, TRACEBACK_TAIL = 20, 40


def handle_exception(session: Session, args: Payload, timeout: float) -> Payload:
    """The backend's answer, its traceback cut in the middle past a budget
    (a RecursionError's has a thousand frames)."""
    assert session.backend is not None
    answer = session.backend.op_exception(args, timeout)
    text = answer.get("stack")
    if isinstance(text, str):
        lines = text.splitlines()
        if len(lines) > TRACEBACK_HEAD + TRACEBACK_TAIL:
            cut = len(lines) - TRACEBACK_HEAD - TRACEBACK_TAIL
            answer["stack"] = "\n".join([*lines[:TRACEBACK_HEAD],
                                          f"... {cut} lines cut ...",
                                          *lines[-TRACEBACK_TAIL:]])
            answer["stack_cut"] = cut
    return answer


def handle_output(session: Session, args: Payload, timeout: float) -> Payload:
    cats = args.get("categories") or [
        c for c in ("stdout", "stderr") if args.get(c)]
    return session.output.read(int(args.get("since", 0)), set(cats) if cats else None,
                               int(args.get("limit", 1000)), OUTPUT_CHARS)


def handle_raw(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.ops.inspecting import one_line

    assert session.backend is not None
    text = one_line(args["text"])
    if session.backend.state() == "exited":
        raise TargetExited("the program has exited", "run it again with `dbg restart`")
    output, event = session.backend.raw(text, timeout)
    payload: Payload = {"output": output}
    if event is not None:
        payload["stop"] = session.snapshot(event, timeout).to_dict()
    return payload


def handle_tool(session: Session, args: Payload, timeout: float) -> Payload:
    return {"backend": session.spec.name if session.spec else None, **session.via()}


def output_beside(session: Session, args: Payload, timeout: float,
                  busy: str) -> tuple[Payload | None, Payload]:
    return handle_output(session, args, timeout), {}


def tool_beside(session: Session, args: Payload, timeout: float,
                busy: str) -> tuple[Payload | None, Payload]:
    return handle_tool(session, args, timeout), {}


def render_exception(p: Payload) -> str:
    head = f"{p.get('exception')}: {p.get('description') or ''}".rstrip(": ")
    if p.get("handled"):
        head += "\n(being handled: the stop is inside its except block, or below it)"
    return "\n".join([head, *([p["stack"]] if p.get("stack") else [])])


def render_output(p: Payload) -> str:
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


def render_raw(p: Payload) -> str:
    text: str = p.get("output", "").rstrip("\n")
    if p.get("stop"):
        text += ("\n" if text else "") + render_stop(p["stop"])
    return text


def render_tool(p: Payload) -> str:
    return f"{p.get('tool')} {p.get('version')} (backend {p.get('backend')})"


#: The program's exception, output and debugger, in the op table's order.
OPS: tuple[Op, ...] = (
    Op("exception", "The exception the target stopped on: type, message, traceback in "
       "call order.", needs="stopped", method=Backend.op_exception,
       handler=handle_exception, render=render_exception),
    Op("output", "Show the program's output (stdout and stderr kept apart), paged by cursor.", (
        Arg("since", "int", "Cursor from the previous answer; only newer output is shown.",
            flags=("--since",), default=0, minimum=0),
        Arg("stdout", "bool", "Only the program's stdout.", flags=("--stdout",)),
        Arg("stderr", "bool", "Only the program's stderr.", flags=("--stderr",)),
    ), handler=handle_output, beside=output_beside, render=render_output,
       own_tool=True,
       lost_ok=True, ended_ok=True),
    Op("raw", "Send TEXT to the native debugger and print its answer unparsed.", (
        Arg("text", "text", "A command in the debugger's own language.", required=True,
            passthrough=True),
    ), handler=handle_raw, method=Backend.raw, title="raw commands", render=render_raw,
       own_tool=True,
       waits=True),
    Op("tool", "Show the debugger (tool and version) behind the current session.",
       handler=handle_tool, beside=tool_beside, render=render_tool, group="meta",
       lost_ok=True, ended_ok=True),
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
