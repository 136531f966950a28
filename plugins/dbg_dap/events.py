"""Stops and adapter events of the DAP backend: what a stop means (reason,
location, return value), how the program ended, and the adapter's events
and reverse requests (output, processes, threads, runInTerminal)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import threading
import time
from typing import TYPE_CHECKING

import dbg_dap.rust as rust
import dbg_dap.watchscope as watchscope
from dbg_dap.core import (
    QUIET_REASONS,
    REASONS,
    frame_location,
)
from dbg_dap.inspection import DapInspection
from dbg_dap.memcheck import MEMCHECK_SUMMARY_WAIT, own_frame_index
from dbgcore.api import (
    DEFAULT_TIMEOUT,
    BackendSpec,
    BreakLoc,
    DapChannel,
    DbgError,
    Message,
    SessionContext,
    StopEvent,
    ended,
)

if TYPE_CHECKING:
    from dbg_dap.breakpoints import BpRecord

#: How much of the debugger's text before a stop is kept for it.
STOP_OUTPUT_CHARS = 16384
#: At most how long the program's end waits for an adapter that says the
#: exit status only on disconnect (delve) to say it.
EXIT_STATUS_WAIT = 5.0
#: How long a stop at a conditional breakpoint waits for the debugger to say
#: the condition failed, where it says so just after the stop (gdb, lldb
#: print it within a millisecond or two).
CONDITION_ERROR_WAIT = 0.1

#: How long a child process's session gets to start and attach: the
#: default op timeout, as the adapter asks for it outside any op of ours.
CHILD_START_TIMEOUT = DEFAULT_TIMEOUT

#: How long each step of releasing a child with no session of its own
#: (attach, configure, leave) may take: it happens outside any op.
CHILD_RELEASE_TIMEOUT = 10.0
#: How long connecting to such a child's debug server may take.
CHILD_CONNECT_WAIT = 5.0


class DapEvents(DapInspection):
    """Stops and events, over inspection: what a stop means needs its
    frames (the layers: DapCore, DapInspection, DapEvents, DapBackend)."""

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        #: The exit status an adapter gave only as text (delve).
        self._text_exit_code: int | None = None
        #: Programs dbg started for the adapter (runInTerminal): their wait
        #: status is the truth about how they ended.
        self._terminal: list[subprocess.Popen[bytes]] = []
        #: What the debugger printed since the last stop (bounded).
        self._stop_output = ""

    def listen(self, channel: DapChannel) -> None:
        """Take the adapter's events and reverse requests that this part
        answers (before the channel starts reading)."""
        channel.on_event("process", self._process_event)
        channel.on_event("thread", self._thread_event)
        channel.on_event("output", self._output_event)
        channel.on_reverse_request("runInTerminal", self._run_in_terminal)
        channel.on_reverse_request("startDebugging", self._start_debugging)

    def _process_event(self, event: Message) -> None:
        pid = (event.get("body") or {}).get("systemProcessId")
        # An attached process is not ours to clean up (nor its process group),
        # nor is a child process's group, its parent's: its session ends it
        # by the adapter (disconnect).
        if isinstance(pid, int) and pid > 0 and not self.attached and not self.is_child:
            self.debuggees.append(pid)
            self.ctx.track_process(pid, "debuggee")

    def _output_event(self, event: Message) -> None:
        text = str((event.get("body") or {}).get("output") or "")
        code = self.profile.exit_code_from_output(text)
        if code is not None:
            self._text_exit_code = code
        # Kept for the next stop: a debugger says a condition failed in text.
        self._stop_output = (self._stop_output + text)[-STOP_OUTPUT_CHARS:]

    def _thread_event(self, event: Message) -> None:
        body = event.get("body") or {}
        if body.get("reason") == "exited" and body.get("threadId") == self.thread_id:
            self.thread_id = None

    def _run_in_terminal(self, request: Message) -> Message:
        args = request.get("arguments") or {}
        env = {**os.environ, **{k: v for k, v in (args.get("env") or {}).items() if v is not None}}
        # The program's stdin (dbg's FIFO opens at once: dbg holds its write end).
        with open(self.profile.stdin or os.devnull, "rb") as stdin:
            proc = subprocess.Popen(
                self.profile.terminal_argv([str(a) for a in args.get("args") or []]),
                cwd=args.get("cwd") or None, env=env,
                stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True)
        for stream, category in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            threading.Thread(target=self._pump, args=(stream, category), daemon=True,
                             name=f"debuggee-{category}").start()
        self._terminal.append(proc)
        self.debuggees.append(proc.pid)
        self.ctx.track_process(proc.pid, "debuggee")
        return {"processId": proc.pid}

    def _pump(self, stream: io.BufferedReader, category: str) -> None:
        # Popen's pipes (bufsize -1): read1 hands on what has arrived, at once.
        for chunk in iter(lambda: stream.read1(65536), b""):
            self.ctx.output.append(category, chunk.decode("utf-8", "replace"))

    def _start_debugging(self, request: Message) -> Message:
        # Answered at once: the adapter waits for the answer, and the child
        # for a client to attach to it, which its own session does.
        arguments = request.get("arguments") or {}
        configuration = dict(arguments.get("configuration") or {})
        self.ctx.log.note(f"startDebugging: {configuration}")
        if arguments.get("request", "attach") != "attach" or \
                not isinstance(configuration.get("subProcessId"), int):
            raise DbgError("dbg follows child processes by attaching to them, "
                           "given their subProcessId")
        threading.Thread(target=self._follow_child, args=(configuration,), daemon=True,
                         name="child-session").start()
        return {}

    def _follow_child(self, configuration: Message) -> None:
        """Start the child's session (PARENT/NAME-PID), a daemon of its own
        started by this one (so the adapter's guard takes its connection),
        attached with this session's breakpoints."""
        from dbgcore.api import child_session_name, start_child_session

        pid = int(configuration["subProcessId"])
        program = _child_program(pid)
        name = child_session_name(self.ctx.name, program, pid)
        # Each with its condition, hit count and log message: a conditional
        # breakpoint of the parent's must not stop a child unconditionally.
        breaks = [{"loc": (BreakLoc(file=b.file, line=b.asked_line or b.line)
                           if b.kind == "source" else BreakLoc(function=b.name)).to_wire(),
                   "condition": b.options.condition, "hit_count": b.options.hit_count,
                   "log_message": b.options.log_message}
                  for b in self.breaks.records.values() if not b.internal
                  and b.kind in ("source", "function")]
        try:
            answer = start_child_session(self.ctx, name, {
                "backend": self.spec.name, "child": configuration, "pid": pid,
                "program": program, "breaks": breaks, "attached": self.attached},
                CHILD_START_TIMEOUT)
        except DbgError as exc:
            self.ctx.log.note(f"child {pid}: no session: {exc.message}")
            self._release_child(configuration)
            return
        if not answer.get("ok"):
            self.ctx.log.note(f"child {pid}: attach failed: {answer.get('error')}")
            self._release_child(configuration)

    def _release_child(self, configuration: Message) -> None:
        """A child whose session could not be made still waits for a client:
        attach to it and leave at once, so it runs on undebugged instead of
        holding the program up."""
        from dbgcore.api import DapChannel, SocketTransport

        connect = configuration.get("connect") or {}
        try:
            transport = SocketTransport.connect(str(connect.get("host") or "127.0.0.1"),
                                                int(connect["port"]), CHILD_CONNECT_WAIT)
            channel = DapChannel(transport, self.ctx.log, "child")
            initialized = threading.Event()
            channel.on_event("initialized", lambda _event: initialized.set())
            channel.start()
            channel.request("initialize", {"clientID": "dbg", "adapterID": self.profile.name,
                                           "pathFormat": "path", **self.profile.client_caps},
                            CHILD_RELEASE_TIMEOUT)
            attached = channel.send_request("attach", configuration)
            if not initialized.wait(CHILD_RELEASE_TIMEOUT):
                attached.wait(0, "the adapter")  # its failure, if it failed
            channel.request("configurationDone", None, CHILD_RELEASE_TIMEOUT)
            attached.wait(CHILD_RELEASE_TIMEOUT, "the adapter")
            channel.request("disconnect", {"terminateDebuggee": False}, CHILD_RELEASE_TIMEOUT)
            channel.close()
        except (DbgError, KeyError, ValueError) as exc:
            self.ctx.log.note(f"child {configuration.get('subProcessId')}: not released: {exc}")

    def stop_event(self, state: str, timeout: float) -> StopEvent:
        """What the adapter's ``state`` ("stopped", "exited", "running", as
        DapSession.wait_for_stop says) means for dbg: the stop's reason,
        place and description, or the program's end."""
        assert self.dap is not None
        self.drop_frames()
        self.frame_index = 0
        if state == "running":
            return StopEvent(state="running")
        self.running_since = None
        if self.pump is not None:
            self.pump.drain()  # what the program wrote before it stopped
        if state == "exited":
            end = self._ended(timeout)
            if self.memcheck is not None:
                # Valgrind's word on the whole run, once it has written it.
                said = self.memcheck.summary(MEMCHECK_SUMMARY_WAIT)
                end.description = "\n".join(filter(None, [end.description, *said]))
            return end
        stop = self.dap.stop
        self.thread_id = stop.thread_id if stop.thread_id is not None else \
            self.first_thread(timeout)
        frames = self.stack_frames(timeout)
        top = frames[0] if frames else None
        if stop.reason == "exception" and frames:
            own = self.profile.program_frame(self.host, frames, timeout)
            self.frame_index, top = own, frames[own]
        location = frame_location(top) if top else None
        if location is not None and top is not None:
            location.function = self.profile.frame_name(top)  # as stacks show it
        asked, self.pause_asked = self.pause_asked, False
        reason = self.profile.stop_reason(REASONS.get(stop.reason, stop.reason or "step"),
                                          stop.description, bool(stop.hit_breakpoint_ids),
                                          asked)
        hit = self.breaks.record_hits(stop.hit_breakpoint_ids, location,
                                      watch=reason == "watchpoint",
                                      at_breakpoint=reason != "step", count=not self.backwards)
        if reason in ("breakpoint", "step") and hit and all(b.kind == "watch" for b in hit):
            reason = "watchpoint"
        gone = watchscope.left_scope(hit, frames)
        if gone:
            # A watched local's frame returned (gdb: "Watchpoint N deleted
            # because the program has left the block..."): said, and ended.
            reason = watchscope.REASON
            for record in gone:
                self.breaks.end_watch(record, timeout)
            if frames:
                # lldb notices where another call wrote that stack memory
                # (inside std::vector, say): shown in the program's frame.
                self.frame_index = self.profile.own_code_frame(self.host, frames, timeout)
                top = frames[self.frame_index]
                location = frame_location(top)
                location.function = self.profile.frame_name(top)
        failure: tuple[int, str] | None = None
        panic = ""
        thrown = self.profile.uncaught_exception(self.host, frames, timeout) \
            if reason == "signal" and frames else None
        if thrown is not None:
            # An uncaught C++ exception ends in abort(): shown where it was
            # thrown, as an exception, not inside the C library's abort.
            self.frame_index, top = thrown[0], frames[thrown[0]]
            location, reason = frame_location(top), "exception"
            location.function = self.profile.frame_name(top)
        elif any(b.id in self.failure_bps for b in hit):
            failure = self.profile.test_failure(self.host, frames, timeout)
            if failure is None:
                return self._skip(timeout)  # not a test's own failure (a parent test's, say)
            # Shown where the test failed, not inside the testing library.
            self.frame_index, top = failure[0], frames[failure[0]]
            location, reason = frame_location(top), "exception"
        elif any(b.id in self.panic_bps for b in hit):
            # A Rust panic: shown in the program's frame that panicked, not
            # in std's machinery, with the message its hook printed.
            self.frame_index = rust.own_frame(frames)
            top = frames[self.frame_index]
            location, reason = frame_location(top), "exception"
            location.function = self.profile.frame_name(top)
            panic = rust.panic_message(self.ctx.output.text(0, {"stderr"}, limit=100000)) \
                or "panicked"
        elif hit and all(b.internal for b in hit):
            # Our own temporary breakpoint, not one the user set.
            reason = "entry" if any(b.id == self.entry_bp for b in hit) else "until"
        if self.entry_bp is not None:
            # It stood for the first stop, whatever that stop was.
            entry, self.entry_bp = self.entry_bp, None
            self.breaks.discard_internal(entry, timeout)
        user_hits = [b for b in hit if not b.internal]
        broken = self._condition_error(user_hits, frames, timeout) if failure is None else None
        # DAP puts an exception's name in `text` and its message in `description`.
        text = self.profile.split_exception_note(stop.text)[0]
        # A description that only restates the reason ("breakpoint 1.1",
        # "step over", "paused on step") is noise; an exception's or a
        # signal's ("signal SIGSEGV") is the point.
        restated = reason in QUIET_REASONS or stop.description.lower() in (
            stop.reason.lower(), f"paused on {stop.reason}".lower())
        detail = "" if restated else stop.description
        if self.profile.skip_stop(self.host, reason, stop.text, stop.description, timeout):
            return self._skip(timeout)
        description = failure[1] if failure else thrown[1] if thrown else panic or \
            self.profile.stop_description(text, detail)
        if gone:
            description = watchscope.description(gone)
        if broken is not None:
            # The debugger stopped because it could not evaluate the
            # condition, not because it held.
            reason, description = "condition_error", broken
        if not description and reason in ("signal", "exception"):
            description = self.profile.signal_description(self.host, timeout)
        error = self.memcheck.new_error() if self.memcheck is not None else None
        if error is not None and frames:
            # Valgrind stopped for an error it logged (gdb says only "stopped"):
            # shown in the program's own frame, not in valgrind's free().
            reason, description = "memcheck", error.description()
            self.frame_index = own_frame_index(frames)
            location = frame_location(frames[self.frame_index])
            location.function = self.profile.frame_name(frames[self.frame_index])
        elif self.memcheck is not None and asked and reason == "stopped":
            reason = "pause"  # an interrupt through vgdb comes back as a bare stop
        self.breaks.after_stop(user_hits, timeout)
        self.last_reason, self.last_description = reason, description
        self.test_failed = failure is not None
        self.thrown = (thrown[2], thrown[1]) if thrown is not None else \
            (self.frame_index, f"panic: {panic}") if panic else None
        self.stop_frame = self.frame_index
        return StopEvent(state="stopped", reason=reason, location=location,
                         thread=self.thread_id, description=description,
                         hit_breakpoints=[b.id for b in user_hits])

    def _condition_error(self, hits: list[BpRecord], frames: list[Message],
                         timeout: float) -> str | None:
        """The debugger's message when it stopped at one of ``hits`` because
        their condition could not be evaluated (None: it held, or there is
        none). Read from what the debugger printed around the stop, which
        some print just after it (gdb, lldb): those get a moment, unless
        every condition is one that reads and does not write, and evaluates
        in the stopped frame now (then none failed: the stop's own)."""
        assert self.dap is not None
        conditions = {int(b.dap["id"]): str(b.options.condition) for b in hits
                      if b.options.condition and isinstance(b.dap.get("id"), int)}
        if not conditions:
            self._stop_output = ""
            return None
        stop = self.dap.stop
        deadline = time.monotonic() + CONDITION_ERROR_WAIT
        checked = False
        while True:
            message = self.profile.condition_failure(
                self._stop_output, conditions, stop.reason, stop.description, stop.text)
            if message is None and self.profile.condition_errors_after_stop and not checked:
                checked = True
                if self._conditions_evaluate(list(conditions.values()), frames, timeout):
                    deadline = 0.0
            if message is not None or not self.profile.condition_errors_after_stop or \
                    time.monotonic() >= deadline:
                self._stop_output = ""
                return message
            time.sleep(0.01)

    def _conditions_evaluate(self, conditions: list[str], frames: list[Message],
                             timeout: float) -> bool:
        """Whether each of ``conditions`` only reads (no call, assignment,
        increment, or debugger variable) and evaluates in the top frame now:
        then the debugger evaluated it at the stop too, and no message that
        it could not is coming. A few ms, against the 100 of waiting for
        one (every stop at a conditional breakpoint paid them)."""
        assert self.dap is not None
        if not frames or not isinstance(frames[0].get("id"), int) \
                or not all(_reads_only(c) for c in conditions):
            return False
        for condition in conditions:
            try:
                self.dap.request("evaluate", {"expression": condition, "context": "watch",
                                              "frameId": frames[0]["id"]}, timeout)
            except DbgError:
                return False
        return True

    def _skip(self, timeout: float) -> StopEvent:
        """Resume from a stop the profile says is not one (SystemExit...)."""
        dap = self.dap_session()
        seq = dap.mark_running()
        self.running_since = seq
        dap.request(self.profile.resume_after_skip(), {"threadId": self.thread_id or 0},
                    timeout)
        return self.stop_event(dap.wait_for_stop(seq, timeout), timeout)

    def _ended(self, timeout: float) -> StopEvent:
        """The program's end: its exit code, or the signal that killed it,
        from our own child when dbg started it, else from the adapter."""
        assert self.dap is not None
        code = self.dap.exit_code
        if code is None and self._text_exit_code is None and \
                self.profile.exit_status_on_disconnect and self.channel is not None:
            # delve says the exit status only when told to disconnect. Its
            # answer is given more than the shutdown grace, within the op's
            # time: a loaded machine (CI) has seen the code come too late.
            grace = max(self.ctx.shutdown_grace, min(timeout, EXIT_STATUS_WAIT))
            try:
                self.channel.request("disconnect", {"terminateDebuggee": True},
                                     timeout=grace)
            except DbgError:
                pass
            # Its output event may come after the answer (seen under load):
            # the adapter closes the connection next, and every message it
            # sent has been read by then.
            if self._text_exit_code is None:
                self.channel.wait_closed(grace)
        code = self._text_exit_code if code is None else code
        for proc in self._terminal:
            try:
                status = proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                continue
            return ended(status)
        signal = self.profile.exit_signal(self.host, code, timeout)
        if signal is not None:
            return StopEvent(state="exited", reason="exited", signal=signal)
        return StopEvent(state="exited", reason="exited", exit_code=code)


#: What makes a condition more than a read of the program: a call (or a
#: cast), an increment, an assignment of any kind, a debugger's own variable
#: or function (gdb's `$count++`, `$_streq(...)`).
_WRITES = re.compile(r"\(|\+\+|--|\$|(<<|>>|[-+*/%&|^])=")
_COMPARISONS = re.compile(r"==|!=|<=|>=")


def _reads_only(condition: str) -> bool:
    """Whether evaluating ``condition`` (C, C++, Rust, Go syntax) again
    cannot change the program: conservative, a doubt is a no."""
    return not _WRITES.search(condition) and "=" not in _COMPARISONS.sub("", condition)


def _child_program(pid: int) -> str:
    """The script a Python child runs, from its command line (the
    interpreter's name when it runs none: a multiprocessing spawn's `-c`)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = [w.decode("utf-8", "replace") for w in f.read().split(b"\0") if w]
    except OSError:
        return "python"
    if "-c" in words:
        return words[0]
    scripts = [w for w in words[1:] if w.endswith(".py") and not w.startswith("-")]
    return scripts[-1] if scripts else (words[0] if words else "python")
