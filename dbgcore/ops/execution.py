"""The ops that run the program until it stops: `dbg continue`, `step`,
`next`, `finish`, `until`, `pause`, `wait` and `input`. Each answers with
the stop it reaches (:func:`dbgcore.ops.stops.render_stop`); `pause`, `wait`
and `input` are also answered beside another client's op that waits.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from dbgcore.backends.contract import Backend
from dbgcore.lang.sourcefind import suffix_matches
from dbgcore.ops import stacks
from dbgcore.ops.starting import NO_STDIN
from dbgcore.ops.stops import render_stop, stopping
from dbgcore.shared.errors import (
    OpFailed,
    TargetExited,
    UsageError,
)
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook, breaks_line

if TYPE_CHECKING:

    from dbgcore.ops.opsession import OpSession as Session
    from dbgcore.vocab.model import BreakLoc, StopEvent
    from dbgcore.vocab.opspec import Payload


def _run(session: Session, event: StopEvent, timeout: float) -> Payload:
    return session.snapshot(event, timeout).to_dict()


def _back(session: Session, motion: str, timeout: float) -> Payload:
    """`--back`: the same motion, backwards in the program's time; a backend
    that cannot refuses it (unsupported, exit 3)."""
    assert session.backend is not None
    return _run(session, session.backend.reverse(motion, timeout), timeout)


def handle_continue(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    if args.get("back"):
        return _back(session, "continue", timeout)
    return _run(session, session.backend.cont(timeout), timeout)


def handle_step(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    if args.get("back"):
        return _back(session, "step", timeout)
    return _run(session, session.backend.step(timeout), timeout)


def handle_next(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    if args.get("back"):
        return _back(session, "next", timeout)
    return _run(session, session.backend.next(timeout), timeout)


def handle_finish(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.ops.inspecting import program_frames

    assert session.backend is not None
    if args.get("back"):
        return _back(session, "finish", timeout)
    frames = program_frames(session.backend.stack(None, timeout))
    selected = next((f for f in frames if f.current), frames[0] if frames else None)
    if selected is not None and selected.index >= len(frames) - 1:
        raise OpFailed(f"finish: frame #{selected.index} ({selected.function or '?'}) is the "
                       "outermost frame; it has no caller to return to",
                       "`dbg continue` runs to the end; `dbg next` steps on")
    return _run(session, session.backend.finish(timeout), timeout)


def handle_record(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    return dict(session.backend.record(bool(args.get("stop")), timeout))


def render_record(p: Payload) -> str:
    return str(p.get("said") or ("recording" if p.get("recording") else "not recording"))


def handle_until(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.vocab.model import BreakLoc

    assert session.backend is not None
    loc = BreakLoc.from_wire(args["location"]) if args.get("location") else None
    if loc is not None:
        from dbgcore.ops.breakpoints import found_line

        loc = found_line(session, loc)
    if loc is not None and loc.line is not None:
        refuse_behind(session, loc, timeout)
    return _run(session, session.backend.until(loc, timeout), timeout)


def refuse_behind(session: Session, loc: BreakLoc, timeout: float) -> None:
    """`until` runs forward: a line at or behind the current one, in the
    same function, is refused before anything runs."""
    from dbgcore.lang.rules import function_span

    assert session.backend is not None and loc.line is not None
    frames = session.backend.stack(None, timeout)
    here = next((f for f in frames if f.current), frames[0] if frames else None)
    if here is None or not here.file or not here.line or loc.line > here.line:
        return
    if loc.file is not None and not suffix_matches(loc.file, [here.file]) and \
            os.path.realpath(loc.file) != os.path.realpath(here.file):
        return
    span = function_span(here.file, here.line)
    if span is None or not span[0] <= loc.line <= span[1]:
        return
    where = "the current line" if loc.line == here.line else f"behind line {here.line}"
    raise OpFailed(f"until runs forward: line {loc.line} is {where} in "
                   f"{here.function or 'this function'}",
                   f"to stop there on a later pass: `dbg break {loc}` then `dbg continue`")


def handle_pause(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    state = session.backend.state()
    cls = type(session.backend)
    if cls.pause is Backend.pause and cls.op_support.get("pause", "none") == "none":
        # A debugger that cannot pause (ghci: an interrupt abandons the
        # evaluation) says so at a stop too, as `dbg caps` does.
        raise session.backend.unsupported("pause")
    if state == "stopped" and session.last is not None:
        return {**session.last.to_dict(), "note": "the target was already stopped"}
    if state == "exited":
        raise TargetExited("the program has exited", "run it again with `dbg restart`")
    paused = stacks.pause(session, timeout)  # a Python program blocked in C: its stacks
    return paused if isinstance(paused, dict) else _run(session, paused, timeout)


def handle_wait(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.vocab.model import StopSnapshot

    assert session.backend is not None
    if session.backend.state() != "running" and (session.last is None
                                               or session.last.state != "running"):
        assert session.last is not None
        return session.last.to_dict()
    event = session.backend.poll(timeout)
    if event is None:
        return StopSnapshot(state="running").to_dict()
    return _run(session, event, timeout)


def handle_input(session: Session, args: Payload, timeout: float) -> Payload:
    """Send a line (and/or the end of file) to the program's stdin. On a
    running program, then wait for its next stop like `dbg wait`."""
    from dbgcore.vocab.model import StopSnapshot

    assert session.backend is not None
    payload = send_input(session, args)
    if session.backend.state() == "running" or (session.last is not None
                                             and session.last.state == "running"):
        event = session.backend.poll(timeout)
        stop = (StopSnapshot(state="running") if event is None
                else session.snapshot(event, timeout))
        return {**stop.to_dict(), "input": payload}
    return payload


def send_input(session: Session, args: Payload) -> Payload:
    """Write ``text`` (a line) and/or close the program's stdin; safe to
    call while another op waits for the program (`dbg input` from a
    second client)."""
    assert session.backend is not None
    text, eof = args.get("text"), bool(args.get("eof"))
    if text is None and not eof:
        raise UsageError("input needs TEXT, or --eof to close the program's stdin")
    if session.stdin is None:
        if session.stdin_file:
            raise OpFailed(f"the program reads its stdin from {session.stdin_file} "
                           "(`dbg start --stdin`)", "start without --stdin to send lines")
        raise session.backend.unsupported("input", session.backend.unsupported_hints.get("stdin")
                                       or NO_STDIN)
    if session.backend.state() == "exited":
        raise TargetExited("the program has exited", "run it again with `dbg restart`")
    sent = 0
    if text is not None:
        if breaks_line(text):
            raise UsageError("input takes one line", "send one `dbg input` per line")
        try:
            sent = session.stdin.write((text + "\n").encode("utf-8"))
        except BlockingIOError:
            raise OpFailed("the program's stdin is full: it has not read the 64 KiB "
                           "already sent", "let it run (`dbg continue`) first") from None
        except ValueError:
            raise OpFailed("the program's stdin is closed (`dbg input --eof`)",
                           "`dbg restart` runs it again with a new one") from None
    if eof:
        session.stdin.close()
    return {"sent": sent, "closed": session.stdin.closed, "unread": session.stdin.pending()}


def pause_beside(session: Session, args: Payload, timeout: float,
                 busy: str) -> tuple[Payload | None, Payload]:
    """Interrupts the program; the waiting op gets the stop, and so does this."""
    if session.backend is not None and session.backend.state() == "running":
        session.backend.interrupt()
    return None, {}


def wait_beside(session: Session, args: Payload, timeout: float,
                busy: str) -> tuple[Payload | None, Payload]:
    return None, {}


def input_beside(session: Session, args: Payload, timeout: float,
                 busy: str) -> tuple[Payload | None, Payload]:
    """Sends the line, then answers with the stop the waiting op gets."""
    return None, {"input": send_input(session, args)}


def render_input(p: Payload) -> str:
    sent = p.get("input", p)
    text = f"sent {sent.get('sent', 0)} bytes to the program's stdin"
    text += " and closed it" if sent.get("closed") else ""
    if "state" in p:
        # A running program: the input was sent, and this is its next stop.
        return text + "\n" + render_stop(p)
    if sent.get("unread"):
        text += f" ({sent['unread']} bytes unread yet: the program reads them when it runs)"
    return text


def _back_arg(what: str) -> Arg:
    return Arg("back", "bool", f"Run backwards; {what} (gdb after `dbg record`; "
               "ocamldebug).", flags=("--back",))


#: The ops that run the program, in the op table's order.
OPS: tuple[Op, ...] = (
    stopping("continue", "Resume until the next stop (alias: c).",
              _back_arg("to the previous breakpoint or the start"), aliases=("c",),
              own_tool=True,
              handler=handle_continue, method=Backend.cont, title="continue"),
    stopping("step", "Step into the next line, entering calls (alias: s).",
              _back_arg("to the previous line, entering calls"), aliases=("s",),
              own_tool=True,
              handler=handle_step, method=Backend.step, title="step into"),
    stopping("next", "Step over to the next line (alias: n).",
              _back_arg("to the previous line, over calls"), aliases=("n",),
              own_tool=True,
              handler=handle_next, method=Backend.next, title="step over"),
    stopping("finish", "Run until the selected frame returns; show its return value.",
              _back_arg("to where the current function was called"),
              own_tool=True,
              handler=handle_finish, method=Backend.finish, title="step out"),
    stopping("until", "Run to LOCATION ahead (FILE:LINE or LINE), or past the current loop.",
              Arg("location", "location", "Where to stop: a line ahead."),
              handler=handle_until, method=Backend.until, title="run until"),
    Op("record", "Record the run from this stop, so that --back can go back (gdb); "
       "--stop ends the record.", (
        Arg("stop", "bool", "End the record: the program runs live from where it is.",
            flags=("--stop",)),
    ), needs="stopped", handler=handle_record, method=Backend.record, render=render_record,
       group="execution", core_ok=False, title="record", details=(
        "While recording, `dbg step/next/finish/continue --back` go back through the record, "
        "the stop showing the program as it was then; a forward motion goes forward through "
        "it, and past its end the program runs live again, recording on. See docs/back.md.")),
    stopping("pause", "Interrupt the running target.", needs="session", handler=handle_pause,
              own_tool=True,
              beside=pause_beside, method=Backend.pause, title="pause"),
    stopping("wait", "Wait for a running target to stop or exit.", needs="session",
              handler=handle_wait, beside=wait_beside, ended_ok=True, core_ok=True),
    Op("input", "Send TEXT and a newline to the program's standard input; on a running "
       "program, wait for its next stop.", (
        Arg("text", "text", "The line to send (a newline is added)."),
        Arg("eof", "bool", "Close the program's standard input (after the line, if any).",
            flags=("--eof",)),
    ), handler=handle_input, beside=input_beside, render=render_input,
       own_tool=True,
       group="execution", ended_ok=True, core_ok=False, waits=True, details=(
        "A program started without --stdin reads what `dbg input` sends. A stopping "
        "command (`continue`, `step`...) whose program waits for input answers at once "
        "with `running: waiting for input`; `dbg input` then sends the line and waits for "
        "the next stop, as `dbg wait` does. `dbg output` shows the prompt it printed.")),
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
