"""`dbg record` and `--back` on a DAP adapter whose debugger records the run
in its console (gdb's process record; its profile's ``record_commands``).

gdb's DAP server announces no stepBack, so the reverse motions are its
console commands, sent as a `raw` command is (an evaluate in the repl
context). gdb's server reports what such a command does as it reports a
request's motion: ``continued``, then ``stopped``, before the evaluate's
answer. The motion is therefore waited for like a resume (the stop counter
noted before it is sent), and its stop read as any other: the frames and
variables asked for anew, where the record put the registers and memory
back.

Where the record ends, gdb stops with no reason of its own ("stopped"):
backwards, the record's start (nothing before it was recorded); forwards,
the present (the program goes on live, recording). A stop at the
program's exit is gdb's too: its record cannot go past the exit, and it
stops the program before it; the next forward motion ends the record, and
the program with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from dbgcore.api import Message, OpFailed, StopEvent

if TYPE_CHECKING:
    from dbg_dap.profile_base import AdapterProfile, RecordState
    from dbgcore.api import DapSession, SessionContext, UnsupportedOp

class Recorder(Protocol):
    """What this module asks of the DAP backend (which it sits below)."""

    profile: AdapterProfile
    ctx: SessionContext
    recording: bool
    backwards: bool
    exit_ahead: bool
    running_since: int | None
    frame_index: int
    thread_id: int | None

    @property
    def tool_name(self) -> str: ...

    def unsupported(self, op: str, hint: str | None = None) -> UnsupportedOp: ...

    def console(self, command: str, timeout: float) -> str: ...

    def stopped_session(self, what: str) -> DapSession: ...

    def stack_frames(self, timeout: float, levels: int | None = None) -> list[Message]: ...

    def drop_frames(self) -> None: ...

    def forget_frames(self) -> None: ...

    def stop_event(self, state: str, timeout: float) -> StopEvent: ...


#: How the debugger words a stop at either end of its record (no reason).
END_REASON = "stopped"
#: dbg's reason for a stop at the record's start.
NO_HISTORY = "no-history"
#: What a forward motion that reached the record's end says.
LIVE_AGAIN = ("the end of the record: the program is live again from here, and still "
              "recorded as it runs on")


def _commands(backend: Recorder, op: str) -> dict[str, str]:
    commands = backend.profile.record_commands
    if not commands:
        raise backend.unsupported(op, f"{backend.tool_name} does not record the run; gdb "
                                      "does (`dbg record`), and OCaml's ocamldebug always does")
    return commands


def record_state(backend: Recorder, timeout: float) -> RecordState:
    commands = _commands(backend, "record")
    return backend.profile.record_state(backend.console(commands["info"], timeout))


def _here(backend: Recorder, timeout: float) -> str:
    from dbg_dap.core import frame_location

    frames = backend.stack_frames(timeout, levels=1)
    if not frames:
        return "this stop"
    loc = frame_location(frames[0])
    where = f"{loc.file}:{loc.line}" if loc.file else "this stop"
    return where + (f" in {loc.function}" if loc.function else "")


def record(backend: Recorder, stop: bool, timeout: float) -> Message:
    """`dbg record` (``stop``: `dbg record --stop`)."""
    commands = _commands(backend, "record")
    backend.stopped_session("record")
    state = record_state(backend, timeout)
    tool = backend.tool_name
    if stop:
        if not state.active:
            raise OpFailed(f"{tool} is not recording the program",
                           "`dbg record` starts a record at the current stop")
        backend.console(commands["stop"], timeout)
        _calls(backend, True, timeout)
        backend.recording = backend.exit_ahead = False
        backend.forget_frames()
        note = f"record ended ({state.logged} instructions dropped): the program runs live"
        if state.replaying:
            note += (f" from {_here(backend, timeout)}, where the replay was; what the record "
                     "held after it is gone")
        return {"recording": False, "said": note}
    if state.active:
        backend.recording = True
        mode = "replaying it" if state.replaying else "live"
        return {"recording": True, "logged": state.logged,
                "said": f"already recording ({state.logged} instructions, {mode}): "
                        "`dbg record --stop` ends the record"}
    backend.console(commands["start"], timeout)
    _calls(backend, False, timeout)
    backend.recording, backend.exit_ahead = True, False
    return {"recording": True, "logged": 0,
            "said": f"recording from {_here(backend, timeout)} ({tool}'s `{commands['start']}`): "
                    "`dbg step/next/finish/continue --back` go back through what runs from "
                    "here; the program runs slower meanwhile, "
                    "and expressions cannot call its functions"}


def _calls(backend: Recorder, allowed: bool, timeout: float) -> None:
    """Let expressions call the program's functions again (``allowed``), or not."""
    command = backend.profile.record_commands.get("calls" if allowed else "no-calls")
    if command:
        backend.console(command, timeout)


def run_back(backend: Recorder, motion: str, timeout: float) -> StopEvent:
    """`dbg MOTION --back`: the debugger's reverse command, waited for as a
    resume; refused when nothing is recorded."""
    commands = _commands(backend, f"{motion} --back")
    dap = backend.stopped_session(f"{motion} --back")
    state = record_state(backend, timeout)
    if not state.active:
        tool = backend.tool_name
        raise OpFailed(f"{motion} --back: {tool} is not recording the program",
                       f"run `dbg record` first: {tool} goes back only through what ran since")
    backend.recording = True
    if state.logged == 0:
        # Nothing recorded yet. Not sent: gdb 18.1, asked to go back through
        # an empty record, then dies (SIGILL) at the next forward motion.
        return at_record_start(backend, timeout)
    seq = dap.mark_running()
    backend.running_since = seq
    backend.drop_frames()
    backend.backwards = True
    try:
        try:
            backend.console(commands[motion], timeout)
        except OpFailed as exc:
            dap.resume_refused(seq)
            # gdb's words after the request's ("evaluate failed: ...").
            words = exc.message.partition("failed: ")[2] or exc.message
            raise OpFailed(f"{motion} --back: {words}", exc.hint) from None
        event = backend.stop_event(dap.wait_for_stop(seq, timeout), timeout)
    finally:
        backend.backwards = False
    if event.state == "stopped" and event.reason == END_REASON:
        event.reason = NO_HISTORY
        event.description = start_words(backend)
    return event


def start_words(backend: Recorder) -> str:
    return (f"the start of the record: {backend.tool_name} recorded nothing before this "
            "point (`dbg record` began here); a forward motion replays the record")


def at_record_start(backend: Recorder, timeout: float) -> StopEvent:
    """The stop the program is at, as the answer of a motion that could not
    go back: the record starts here."""
    from dbg_dap.core import frame_location

    frames = backend.stack_frames(timeout)
    location = frame_location(frames[min(backend.frame_index, len(frames) - 1)]) \
        if frames else None
    return StopEvent(state="stopped", reason=NO_HISTORY, location=location,
                     thread=backend.thread_id, description=start_words(backend))


def before_forward(backend: Recorder, replaying: bool, timeout: float) -> str:
    """Before a forward motion while recording, at the stop before the
    program's exit (the record's end, not replaying): the record ends (it
    cannot record the exit), so that the program can end. Returns what to
    say, or ""."""
    if not (backend.recording and backend.exit_ahead) or replaying:
        return ""
    backend.console(backend.profile.record_commands["stop"], timeout)
    _calls(backend, True, timeout)
    backend.recording = backend.exit_ahead = False
    return f"the record ended before the program's exit ({backend.tool_name} cannot record past it)"


def after_forward(backend: Recorder, event: StopEvent, replaying: bool, since: int,
                  timeout: float) -> StopEvent:
    """A forward motion's stop while recording: the end of the replay (the
    program is live again), or the stop before the program's exit, said."""
    if event.state != "stopped":
        backend.recording = backend.exit_ahead = False  # the record ends with the program
        return event
    if event.reason != END_REASON:
        if replaying and not record_state(backend, timeout).replaying:
            # The motion ended just where the record does (a step to its
            # last line): the program is live again all the same.
            event.description = "; ".join(filter(None, [event.description, LIVE_AGAIN]))
        return event
    said = backend.ctx.output.text(since, {"console"})
    if backend.profile.exits_under_record(said) or (replaying and backend.exit_ahead):
        backend.exit_ahead = True
        event.reason = "record-exit"
        event.description = ("the program is about to exit: the record stops it here, where "
                             "it ends; `dbg continue --back` goes back, `dbg continue` lets "
                             "it exit (ending the record)")
    elif replaying:
        event.reason, event.description = "record-end", LIVE_AGAIN
    return event
