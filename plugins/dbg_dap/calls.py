"""Requests that run the program's code while it is stopped: an evaluate
that calls a function (`dbg print 'count(t)'`), an assignment (`dbg set`).

Afterwards the program is stopped where it was, and the session says so,
whatever the adapter reported meanwhile (see DapSession.running_code):

- gdb reports the call as ``continued`` and its end as ``stopped`` (reason
  "function call"); lldb-dap, delve and debugpy report nothing. Either way
  the frame and variable ids gdb gave before are gone: dbg asks again.
- A breakpoint (or a signal) inside the called code stops the program there,
  in gdb and delve (lldb ignores breakpoints in expressions). gdb can drop
  the call (its frames and the call's dummy frame); delve cannot, but when
  the program runs on it finishes the call and stops where it was. dbg does
  that, and the answer says where the call stopped. A debugger that can do
  neither leaves the program there, and the session's stop is that one.
"""

from __future__ import annotations

import os
import weakref
from typing import TYPE_CHECKING

from dbgcore.api import DbgError, DebuggerTimeout, Message, OpFailed

if TYPE_CHECKING:
    from dbg_dap.core import DapCore

#: How many stops inside a called function dbg runs past to finish the call
#: (delve) before it leaves the program stopped there.
MAX_CALL_STOPS = 20


def run_code(backend: DapCore, command: str, arguments: Message, timeout: float) -> Message:
    """Send ``command``, which may run the program's code, and leave the
    program stopped where it was. Code that runs past --timeout is
    interrupted where the adapter can (see :func:`_interrupt`), so that the
    next command does not wait for a runaway."""
    dap = backend.dap_session()
    before = _place(backend, timeout)
    interrupted = ""
    _arm_interrupt(backend, arguments, timeout)
    try:
        with dap.running_code():
            if dap.channel.closed is not None:
                return dap.request(command, arguments, timeout)  # says how the adapter ended
            pending = dap.channel.send_request(command, arguments)
            try:
                return pending.wait(timeout)
            except DebuggerTimeout:
                interrupted = _interrupt(backend, pending.seq)
                if not interrupted:
                    raise
            try:
                return pending.wait(INTERRUPT_GRACE)  # just in time
            except DebuggerTimeout as exc:
                raise DebuggerTimeout(
                    f"the expression ran past --timeout ({timeout:g}s), and dbg's interrupt "
                    f"({interrupted}) has not stopped it yet", "the program may still be "
                    "running it: `dbg pause`, or `dbg kill` to end the session") from exc
            except DbgError as exc:
                # Answered: outside running_code(), which takes a timeout
                # for a request still unanswered.
                failure: DbgError = exc
        raise _interrupted_error(timeout, interrupted) from failure
    finally:
        run = dap.last_code_run
        if run.resumed or run.stops:
            # gdb numbers frames and variables anew after the program ran.
            backend.forget_frames()
            if run.stops and not run.unanswered and dap.state == "stopped" and \
                    _place(backend, timeout) != before:
                try:
                    _call_stopped(backend, before, timeout)
                except OpFailed as exc:
                    if not interrupted:
                        raise
                    raise _interrupted_error(timeout, interrupted, exc.message) from exc


#: An adapter that interrupts an evaluation itself does it this much after
#: dbg's own timeout: were both timers the same, its interrupt could come
#: first under load and read as the expression's own failure, not a timeout.
SELF_INTERRUPT_LATER = 0.5
#: Per backend: the (program, timeout) the profile's setting was made for.
_armed: weakref.WeakKeyDictionary[DapCore, tuple[tuple[int, ...], float]] = \
    weakref.WeakKeyDictionary()


def _arm_interrupt(backend: DapCore, arguments: Message, timeout: float) -> None:
    setting = backend.profile.evaluation_timeout_setting
    if setting is None or "frameId" not in arguments:
        return
    key = (tuple(backend.debuggee_pids()), timeout)
    if _armed.get(backend) == key:
        return
    try:
        backend.dap_session().request("evaluate", {
            "expression": setting.format(timeout=float(timeout) + SELF_INTERRUPT_LATER),
            "context": "watch",
            "frameId": arguments["frameId"]}, min(timeout, 5.0))
    except DbgError:
        _armed.pop(backend, None)
        return
    _armed[backend] = key


#: How long interrupted code has to answer.
INTERRUPT_GRACE = 3.0


def _interrupted_error(timeout: float, how: str, after: str = "") -> DebuggerTimeout:
    return DebuggerTimeout(f"the expression ran past --timeout ({timeout:g}s): dbg "
                           f"interrupted it ({how})" + (f"; {after}" if after else ""),
                           "a larger --timeout gives it longer")


def _interrupt(backend: DapCore, seq: int) -> str:
    """Interrupt the code a request runs, as the adapter allows; how, or ""
    when it cannot. A `cancel` of the request where the adapter takes one
    (gdb interrupts the called function, and dbg drops the call); else the
    adapter interrupts it itself (its profile's ``evaluation_timeout_setting``)."""
    dap = backend.dap_session()
    if dap.supports("supportsCancelRequest"):
        try:
            dap.channel.send_request("cancel", {"requestId": seq})
        except DbgError:
            return ""
        return "a DAP cancel"
    if backend.profile.evaluation_timeout_setting is not None and backend in _armed:
        return f"by {backend.tool_name} itself, at dbg's request"
    return ""


def _place(backend: DapCore, timeout: float) -> tuple[object, ...]:
    """Where the selected thread is: its top frame and the stack's depth."""
    frames = backend.stack_frames(timeout)
    top = frames[0] if frames else {}
    return (backend.thread_id, top.get("name"), top.get("line"),
            top.get("instructionPointerReference"), len(frames))


def _call_stopped(backend: DapCore, before: tuple[object, ...], timeout: float) -> None:
    """A stop inside the called code left the program elsewhere: bring it
    back if the debugger can, and fail the request saying where the call
    stopped (its own message would say the program is still there)."""
    dap = backend.dap_session()
    stop = dap.last_code_run.stops[-1]
    where = _stop_place(backend, stop.thread_id, timeout)
    profile = backend.profile
    at_breakpoint = stop.reason in ("breakpoint", "function breakpoint")
    if at_breakpoint:
        why = "a breakpoint"
        hint = ("remove that breakpoint to make the call (`dbg breaks`); what the call "
                "changed before it stopped stays changed")
    else:
        # A signal (gdb leaves the program in the called code) or the like.
        why = (stop.description if stop.description not in ("", stop.reason) else
               profile.signal_description(backend.host, timeout)) or stop.reason or "a stop"
        hint = "what the call changed before it stopped stays changed"
    back = False
    try:
        if profile.abandon_call(backend.host, timeout):
            back = True
        elif profile.call_ends_on_continue:
            back = _finish_call(backend, before, timeout)
    except DbgError:
        back = False
    backend.forget_frames()
    if back and _place(backend, timeout) == before:
        raise OpFailed(f"the called code stopped at {where} ({why}): dbg dropped the call, "
                       "and the program is where it was", hint)
    if dap.state == "stopped" and not back:
        dap.adopt_stop(stop)
    raise OpFailed(f"the called code stopped at {where} ({why}), and the program is stopped "
                   "there now", "`dbg stack` shows it; `dbg continue` finishes the call")


def _finish_call(backend: DapCore, before: tuple[object, ...], timeout: float) -> bool:
    """Run the program until the call has ended and it is back where it was
    (delve stops there when the call returns)."""
    dap = backend.dap_session()
    for _ in range(MAX_CALL_STOPS):
        seq = dap.mark_running()
        try:
            dap.request("continue", {"threadId": backend.thread_id or 0}, timeout)
        except DbgError:
            dap.resume_refused(seq)
            raise
        if dap.wait_for_stop(seq, timeout) != "stopped":
            return False
        backend.forget_frames()
        if _place(backend, timeout) == before:
            return True
    return False


def _stop_place(backend: DapCore, thread_id: int | None, timeout: float) -> str:
    """FILE:LINE in FUNCTION of the top frame of the thread that stopped."""
    try:
        frames = backend.dap_session().request("stackTrace", {
            "threadId": thread_id if thread_id is not None else backend.thread_id or 0,
            "startFrame": 0, "levels": 1}, timeout).get("stackFrames") or []
    except DbgError:
        frames = []
    if not frames:
        return "another place"
    top = frames[0]
    path = str((top.get("source") or {}).get("path") or "")
    return f"{os.path.basename(path) or '?'}:{top.get('line')} in {top.get('name')}"
