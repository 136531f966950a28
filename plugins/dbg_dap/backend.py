"""The DAP backend: every canonical op as structured Debug Adapter Protocol requests.

One class drives every adapter; what differs per adapter is in its profile
(:mod:`dbg_dap.profiles`) and in the capabilities it announces. Every request
that needs a capability is sent only if the adapter announced it; otherwise
the op is refused here with a hint, because some adapters crash or hang on
requests they do not implement.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from dbg_dap.breakpoints import BreakpointTable
from dbg_dap.profiles import DEBUGPY_GROUPS, AdapterProfile, profile_for
from dbgcore.api import (
    LISTENING_RE,
    AdapterProcess,
    AttachRequest,
    Backend,
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    DapChannel,
    DapRequestError,
    DapSession,
    DbgError,
    DebuggerLost,
    Frame,
    LaunchRequest,
    Location,
    LoopbackListener,
    Message,
    NotStopped,
    OpFailed,
    OutputPump,
    PipeTransport,
    Readiness,
    SessionContext,
    SocketTransport,
    StopEvent,
    StopState,
    Support,
    TargetExited,
    Thread,
    Transport,
    UsageError,
    Value,
    Variable,
    ended,
    parse_listening,
)

#: How long an attach waits for the debugger to report a stop before pausing.
ATTACH_STOP_WAIT = 0.3

#: Children beyond which a local is not expanded one level in a snapshot.
MAX_FIELDS = 1000

#: DAP stop reasons -> dbg's.
REASONS = {"function breakpoint": "breakpoint", "instruction breakpoint": "breakpoint",
           "data breakpoint": "watchpoint", "goto": "step"}

#: lldb-dap's value for a struct or class: its type and address only.
_BARE_AGGREGATE = re.compile(r"[\w:<>,*& ]+ @ 0x[0-9a-fA-F]+")

#: Stop reasons whose adapter description says nothing more than the reason.
QUIET_REASONS = frozenset({"breakpoint", "step", "entry", "until", "watchpoint", "goto"})

#: How lldb-dap describes a stop by a signal ("signal SIGSEGV: ...").
_SIGNAL_RE = re.compile(r"signal SIG[A-Z0-9]+\b")

#: debugpy names a return value "(return) FUNCTION" among the caller's locals.
RETURN_PREFIX = "(return) "

#: Scopes whose variables a stop snapshot shows (others: `dbg scopes`).
LOCAL_SCOPE_HINTS = ("locals", "arguments", "parameters")


class DapBackend(Backend):
    id = "dap"
    tool = "dap"
    unsupported_hints: ClassVar[dict[str, str]] = {}

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self.profile: AdapterProfile = profile_for(spec)
        self.process: AdapterProcess | None = None
        #: The program's own stdout and stderr, for adapters that mix them with their text.
        self.pump: OutputPump | None = None
        self.channel: DapChannel | None = None
        self.dap: DapSession | None = None
        self.thread_id: int | None = None
        self.frame_index = 0
        self._frames: list[Message] | None = None
        #: Each of the last locals() that has children: its variablesReference
        #: and how many children the adapter counted.
        self._refs: dict[str, tuple[int, int]] = {}
        self.breaks = BreakpointTable(self)
        self.exception_filters: list[str] = []
        self._children: list[int] = []
        #: Attached to a process dbg did not start: `dbg kill` detaches from it.
        self.attached = False
        #: While the target runs unwatched (an op timed out): the stop counter
        #: it was resumed at, so `poll` sees a stop that has arrived since.
        self._running_since: int | None = None
        self._lock = threading.Lock()
        self.cwd: str | None = None
        self.profile.build_dir = str(ctx.run_dir)
        #: The internal breakpoint that stands for "stop at entry", if any.
        self._entry_bp: int | None = None
        #: While launching for `start --run`: places the session's breakpoints.
        self._before_run: Callable[[], object] | None = None
        #: The exit status an adapter gave only as text (delve).
        self._text_exit_code: int | None = None
        #: The program, as `dbg start` / `dbg attach` named it (None: a module).
        self.program: str | None = None
        #: Stop where an exception would end the program (`--no-catch`: not).
        self.catch_uncaught = True
        #: Programs dbg started for the adapter (runInTerminal): their wait
        #: status is the truth about how they ended.
        self._terminal: list[subprocess.Popen[bytes]] = []
        #: Why the program last stopped ("exception", "signal"...).
        self.last_reason = ""
        self.last_description = ""

    # -- identity ----------------------------------------------------------------

    @classmethod
    def tool_for(cls, spec: BackendSpec) -> str:
        return str(spec.options.get("tool") or spec.name)

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        return profile_for(spec).check()

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        profile_for(spec).check_program(program)

    @classmethod
    def capabilities(cls) -> dict[str, Support]:
        caps = super().capabilities()
        # These depend on what the adapter announces; `dbg caps` asks a live one.
        for op in ("watch", "catch", "set"):
            caps[op] = "native"
        caps["until"] = "fallback"
        return caps

    @classmethod
    def extension_ops(cls) -> list[str]:
        from dbg_dap.expert import EXPERT_OPS

        return list(EXPERT_OPS)

    @classmethod
    def support(cls, spec: BackendSpec) -> dict[str, Support]:
        """Start the adapter, read the capabilities it announces, and stop
        it: what each op needs is in :func:`dbg_dap.expert.op_support`,
        the rest in the profile's features."""
        import tempfile

        from dbg_dap.expert import op_support
        from dbgcore.api import OutputBuffer, SessionContext, TransLog

        with tempfile.TemporaryDirectory(prefix="dbg-caps-") as run_dir:
            ctx = SessionContext(name="caps", run_dir=Path(run_dir), output=OutputBuffer(),
                                 log=TransLog(None), shutdown_grace=0.5, op_timeout=20)
            backend = cls(spec, ctx)
            try:
                dap = backend._connect(None)
                announced = dap.initialize(backend.profile.client_caps, 20)
            finally:
                backend.terminate()
        support = op_support(cls.capabilities(), announced, backend.profile)
        for feature, capability in (("break-if", "supportsConditionalBreakpoints"),
                                    ("break-hit", "supportsHitConditionalBreakpoints"),
                                    ("break-log", "supportsLogPoints")):
            support[feature] = "native" if announced.get(capability) else "none"
        for feature in ("return-value", "pending"):
            support[feature] = backend.profile.features.get(feature, "none")
        return support

    def version(self) -> str:
        return self.profile.version()

    # -- starting ------------------------------------------------------------------

    def _connect(self, cwd: str | None, server: tuple[str, int] | None = None) -> DapSession:
        mode = str(self.spec.options.get("transport", "stdio"))
        argv = self.profile.argv()
        name = self.tool_name
        transport: Transport
        if server is not None:
            # The debug server is an adapter already (debugpy.listen starts
            # one): talk to it; a second adapter of ours would wait for a
            # debuggee that never connects to it.
            transport = SocketTransport.connect(server[0], server[1], 5)
        elif mode == "stdio":
            self.process = AdapterProcess(argv, cwd=cwd, name=name)
            transport = PipeTransport(self.process)
        elif mode == "tcp-listen":
            self.process = AdapterProcess(argv, cwd=cwd, name=name, stdio=False,
                                          on_stdout_line=self._adapter_stdout)
            host, port = parse_listening(self.process.wait_stdout(LISTENING_RE, 20))
            transport = SocketTransport.connect(host, port, 10)
        elif mode == "tcp-dial":
            listener = LoopbackListener()
            argv = [a.replace("{address}", listener.address) for a in argv]
            self.process = AdapterProcess(argv, cwd=cwd, name=name, stdio=False,
                                          on_stdout_line=self._adapter_stdout)
            transport = listener.accept(20, self.process)
        else:
            raise UsageError(f"backend {self.spec.name!r}: unknown transport {mode!r}",
                             "use stdio, tcp-listen or tcp-dial")
        if self.process is not None:
            self.ctx.track_process(self.process.pid, name)
        self.channel = DapChannel(transport, self.ctx.log, name, self.process)
        self.dap = DapSession(self.channel, self.ctx.output, adapter_id=self.profile.name,
                              request_timeout=lambda: self.ctx.op_timeout,
                              categories=self.profile.output_categories)
        self.channel.on_event("process", self._process_event)
        self.channel.on_event("thread", self._thread_event)
        self.channel.on_event("output", self._output_event)
        self.channel.on_reverse_request("runInTerminal", self._run_in_terminal)
        self.channel.on_reverse_request("startDebugging", self._start_debugging)
        self.dap.on_breakpoint(self.breaks.on_event)
        self.channel.start()
        return self.dap

    def _adapter_stdout(self, line: bytes) -> None:
        # Adapters that print the debuggee's output on their own stdout.
        if self.spec.options.get("stdout_is_program_output"):
            self.ctx.output.append("stdout", line.decode("utf-8", "replace"))

    def _process_event(self, event: Message) -> None:
        pid = (event.get("body") or {}).get("systemProcessId")
        # An attached process is not ours to clean up (nor its process group).
        if isinstance(pid, int) and pid > 0 and not self.attached:
            self._children.append(pid)
            self.ctx.track_process(pid, "debuggee")

    def _output_event(self, event: Message) -> None:
        code = self.profile.exit_code_from_output(str((event.get("body") or {}).get("output")))
        if code is not None:
            self._text_exit_code = code

    def _thread_event(self, event: Message) -> None:
        body = event.get("body") or {}
        if body.get("reason") == "exited" and body.get("threadId") == self.thread_id:
            self.thread_id = None

    def _run_in_terminal(self, request: Message) -> Message:
        args = request.get("arguments") or {}
        env = {**os.environ, **{k: v for k, v in (args.get("env") or {}).items() if v is not None}}
        proc = subprocess.Popen(
            list(args.get("args") or []), cwd=args.get("cwd") or None, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
        for stream, category in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            threading.Thread(target=self._pump, args=(stream, category), daemon=True,
                             name=f"debuggee-{category}").start()
        self._terminal.append(proc)
        self._children.append(proc.pid)
        self.ctx.track_process(proc.pid, "debuggee")
        return {"processId": proc.pid}

    def _pump(self, stream: Any, category: str) -> None:
        for chunk in iter(lambda: stream.read1(65536), b""):
            self.ctx.output.append(category, chunk.decode("utf-8", "replace"))

    def debuggee_pids(self) -> list[int]:
        return list(self._children)

    def _start_debugging(self, request: Message) -> Message:
        # Acknowledged; adapters that need the child followed (js-debug) get
        # a profile that does so.
        self.ctx.log.note(f"startDebugging acknowledged: {request.get('arguments')}")
        return {}

    def _handshake(self, command: str, arguments: Message | Callable[[], Message],
                   cwd: str | None, timeout: float,
                   server: tuple[str, int] | None = None) -> StopEvent:
        dap = self._connect(cwd, server)
        dap.initialize(self.profile.client_caps, timeout)
        if callable(arguments):
            arguments = arguments()
        dap.start(command, arguments, partial(self._configure, command == "launch"), timeout)
        # A launch stops at entry; an attached program may just keep running,
        # so attach only looks (and then pauses it).
        self._running_since = 0
        state = dap.wait_for_stop(0, timeout if command == "launch" else 0)
        event = self._event(state)
        if command == "launch" and event.reason == "breakpoint" and not event.hit_breakpoints \
                and self._before_run is None:
            # The adapter's own breakpoint for stopping at entry (gdb's
            # stopAtBeginningOfMainSubprogram), not one of the user's.
            event.reason = "entry"
        return event

    def _configure(self, launching: bool) -> None:
        assert self.dap is not None
        entry = self.profile.entry_function
        if launching and self._before_run is not None:
            # `start --run`: the session's breakpoints now, and no entry stop.
            self._before_run()
        elif entry and launching:
            # Stop at entry by a breakpoint on the entry function: the
            # adapter's own stopOnEntry stops somewhere useless (the loader).
            loc = BreakLoc(function=entry)
            self._entry_bp = int(self.breaks.add(loc, BreakOptions(temporary=True),
                                                 internal=True).id)
        # Sent even with no filters: some adapters wait for it before running.
        self.dap.request("setExceptionBreakpoints", {"filters": self.exception_filters})

    def ctx_cwd(self) -> str:
        return self.cwd or os.getcwd()

    def launch(self, request: LaunchRequest) -> StopEvent:
        self.cwd = request.cwd
        self.program = None if request.module else os.path.abspath(request.program)
        self.catch_uncaught = request.stop_on_uncaught
        self.exception_filters = self.profile.default_exception_filters(request)
        extra = self.profile.launch_env(self)
        if extra:
            request = replace(request, env={**request.env, **extra})
        self._before_run = request.before_run if self.profile.breaks_before_run else None
        if self.profile.own_streams:
            # The program writes into FIFOs of ours, apart from the adapter's text.
            self.pump = OutputPump(self.ctx.run_dir, "program", self.ctx.output)
            self.profile.streams = {k: str(v) for k, v in self.pump.paths.items()}
        # Made while the adapter starts: they may ask an interpreter (debugpy's).
        made: Future[Message] = Future()

        def make_arguments() -> None:
            try:
                arguments = self.profile.launch_arguments(request)
                if self._before_run is not None:
                    arguments.update({key: False for key in self.profile.entry_arguments})
                made.set_result(arguments)
            except BaseException as exc:
                made.set_exception(exc)

        threading.Thread(target=make_arguments, name="launch-arguments", daemon=True).start()
        try:
            return self._handshake("launch", made.result, self.profile.adapter_cwd(request),
                                   self.ctx.op_timeout)
        finally:
            self._before_run = None

    def attach(self, request: AttachRequest) -> StopEvent:
        self.attached = True
        self.program = os.path.abspath(request.program) if request.program else None
        try:
            event = self._handshake("attach", self.profile.attach_arguments(request), None,
                                    self.ctx.op_timeout, self.profile.attach_server(request))
        except DbgError as exc:
            # Debuggers explain in several lines ("warning: ...\nptrace: ...").
            exc.message = " ".join(exc.message.split())
            hint = self.profile.attach_failure_hint(exc.message, request.pid)
            if hint:
                exc.hint = hint
            raise
        if event.state == "running" and self.dap is not None:
            # A debugger attached to a server may report the stop it finds
            # just after answering (gdb over `target remote`): a pause now
            # would leave an interrupt for the next continue.
            state = self.dap.wait_for_stop(0, ATTACH_STOP_WAIT)
            if state != "running":
                event = self._event(state)
        if event.state == "running":
            # An attached program keeps running; stop it so it can be inspected.
            event = self.pause(10)
        if event.state == "stopped":
            # However the debugger got it stopped (gdb says attach, lldb a
            # SIGSTOP, a pause says pause), it is the stop of the attach.
            event.reason, event.description = "attach", ""
        return event

    def state(self) -> StopState:
        if self.dap is None:
            return "exited"
        if self.dap.lost:
            if self.lost is None:
                closed = self.dap.channel.closed
                self.lost = closed if isinstance(closed, DebuggerLost) else DebuggerLost(
                    self.tool_name, None, "", "closed the connection")
            return "debugger_lost"
        state = self.dap.state
        if state == "stopped":
            return "stopped"
        return "exited" if state == "exited" else "running"

    def poll(self, timeout: float) -> StopEvent | None:
        # Not `state() == "running"`: events arrive on their own, so the
        # stop may be here already, unreported.
        if self.dap is None or self._running_since is None:
            return None
        state = self.dap.wait_for_stop(self._running_since, timeout)
        return None if state == "running" else self._event(state)

    def terminate(self) -> None:
        grace = self.ctx.shutdown_grace
        if self.channel is not None and self.channel.closed is None and self.dap is not None:
            try:
                # Like gdb quitting while attached: a process dbg did not
                # start is detached from, and resumes; one it launched ends.
                arguments: Message = {"terminateDebuggee": not self.attached}
                self.channel.request("disconnect", arguments, timeout=grace)
            except DbgError:
                pass
        if self.channel is not None:
            self.channel.close()
        from dbgcore.api import procutil

        groups = {g for pid in self._children if (g := procutil.pgid_of(pid)) is not None}
        procutil.terminate_groups(groups, grace=grace, reap=self._children)
        if self.process is not None:
            own = self.profile.shutdown_grace
            self.process.terminate(grace if own is None else own)
        if self.pump is not None:
            self.pump.close()

    # -- stops -------------------------------------------------------------------

    def _event(self, state: str) -> StopEvent:
        assert self.dap is not None
        self._frames = None
        self.frame_index = 0
        if state == "running":
            return StopEvent(state="running")
        self._running_since = None
        if self.pump is not None:
            self.pump.drain()  # what the program wrote before it stopped
        if state == "exited":
            return self._ended()
        stop = self.dap.stop
        self.thread_id = stop.thread_id if stop.thread_id is not None else self._first_thread()
        frames = self._stack_frames()
        top = frames[0] if frames else None
        if stop.reason == "exception" and frames:
            # Where the program raised it, not inside the runtime's own
            # machinery for it (Go's gopanic and fatalpanic).
            internal = self.profile.internal_frames(frames)
            own = next((i for i, inside in enumerate(internal) if not inside), 0)
            self.frame_index, top = own, frames[own]
        location = _location(top) if top else None
        reason = REASONS.get(stop.reason, stop.reason or "step")
        if reason == "exception" and _SIGNAL_RE.match(stop.description):
            reason = "signal"  # lldb-dap calls a signal an exception
        if reason == "breakpoint" and not stop.hit_breakpoint_ids and \
                stop.description.startswith("watchpoint "):
            # lldb-dap 19 reports a data breakpoint as reason "breakpoint",
            # description "watchpoint N", with no ids.
            reason = "watchpoint"
        hit = self.breaks.record_hits(stop.hit_breakpoint_ids, location,
                                      watch=reason == "watchpoint")
        if reason in ("breakpoint", "step") and hit and all(b.kind == "watch" for b in hit):
            reason = "watchpoint"
        if hit and all(b.internal for b in hit):
            # Our own temporary breakpoint, not one the user set.
            reason = "entry" if any(b.id == self._entry_bp for b in hit) else "until"
        if self._entry_bp is not None:
            # It stood for the first stop, whatever that stop was.
            entry, self._entry_bp = self._entry_bp, None
            self.breaks.discard_internal(entry)
        user_hits = [b for b in hit if not b.internal]
        # DAP puts an exception's name in `text` and its message in `description`.
        text = self.profile.split_exception_note(stop.text)[0]
        # A description that only restates the reason ("breakpoint 1.1",
        # "step over", "paused on step") is noise; an exception's or a
        # signal's ("signal SIGSEGV") is the point.
        restated = reason in QUIET_REASONS or stop.description.lower() in (
            stop.reason.lower(), f"paused on {stop.reason}".lower())
        detail = "" if restated else stop.description
        if self.profile.skip_stop(self, reason, stop.text, stop.description):
            return self._skip()
        description = self.profile.stop_description(text, detail)
        if not description and reason in ("signal", "exception"):
            description = self.profile.signal_description(self)
        self.breaks.after_stop(user_hits)
        self.last_reason, self.last_description = reason, description
        return StopEvent(state="stopped", reason=reason, location=location,
                         thread=self.thread_id, description=description,
                         hit_breakpoints=[b.id for b in user_hits])

    def _skip(self) -> StopEvent:
        """Resume from a stop the profile says is not one (SystemExit...)."""
        dap = self._dap()
        seq = dap.mark_running()
        self._running_since = seq
        dap.request("continue", {"threadId": self.thread_id or 0})
        return self._event(dap.wait_for_stop(seq, self.ctx.op_timeout))

    def _ended(self) -> StopEvent:
        """The program's end: its exit code, or the signal that killed it,
        from our own child when dbg started it, else from the adapter."""
        assert self.dap is not None
        code = self.dap.exit_code
        if code is None and self._text_exit_code is None and \
                self.profile.exit_status_on_disconnect and self.channel is not None:
            # delve says the exit status only when told to disconnect.
            try:
                self.channel.request("disconnect", {"terminateDebuggee": True},
                                     timeout=self.ctx.shutdown_grace)
            except DbgError:
                pass
        code = self._text_exit_code if code is None else code
        for proc in self._terminal:
            try:
                status = proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                continue
            return ended(status)
        signal = self.profile.exit_signal(self, code)
        if signal is not None:
            return StopEvent(state="exited", reason="exited", signal=signal)
        return StopEvent(state="exited", reason="exited", exit_code=code)

    def _first_thread(self) -> int | None:
        threads = self._dap().request("threads").get("threads") or []
        return int(threads[0]["id"]) if threads else None

    def _stack_frames(self, levels: int | None = None) -> list[Message]:
        if self._frames is not None and levels is None:
            return self._frames
        if self.thread_id is None:
            return []
        arguments: Message = {"threadId": self.thread_id, "startFrame": 0}
        if levels:
            arguments["levels"] = levels
        try:
            frames = list(self._dap().request("stackTrace", arguments).get("stackFrames") or [])
        except DapRequestError as exc:
            if not self.profile.no_stack_yet(exc.message):
                raise
            frames = []  # stopped before the program's first frame exists
        if levels is None:
            self._frames = frames
        return frames

    # -- helpers -------------------------------------------------------------------

    def _dap(self) -> DapSession:
        if self.dap is None:
            raise TargetExited("the debugger is not running")
        return self.dap

    def _stopped(self, what: str) -> DapSession:
        dap = self._dap()
        if dap.state == "running":
            raise NotStopped(f"{what} needs a stopped target, and it is running",
                             "`dbg pause` interrupts it; `dbg wait` waits for the next stop")
        if dap.state == "exited":
            raise TargetExited("the program has exited", "run it again with `dbg restart`")
        return dap

    def _frame_id(self) -> int | None:
        frames = self._stack_frames()
        if not frames:
            return None
        return int(frames[min(self.frame_index, len(frames) - 1)]["id"])

    def _resume(self, command: str, timeout: float, extra: Message | None = None) -> StopEvent:
        dap = self._stopped(command)
        arguments: Message = {"threadId": self.thread_id or 0, **(extra or {})}
        seq = dap.mark_running()
        self._running_since = seq
        self._frames = None
        try:
            dap.request(command, arguments, timeout)
        except OpFailed:
            dap.resume_refused(seq)
            raise
        return self._event(dap.wait_for_stop(seq, timeout))

    # -- execution ---------------------------------------------------------------------

    def cont(self, timeout: float) -> StopEvent:
        return self._resume("continue", timeout)

    def step(self, timeout: float) -> StopEvent:
        return self._resume("stepIn", timeout)

    def next(self, timeout: float) -> StopEvent:
        return self._resume("next", timeout)

    def finish(self, timeout: float) -> StopEvent:
        # stepOut leaves the top frame: once per frame up to the selected one.
        frames = self._stack_frames()
        index = min(self.frame_index, len(frames) - 1) if frames else 0
        if frames and self.profile.generator_frame(frames[index]):
            from dbg_dap.finish import finish_generator

            return finish_generator(self, index, timeout)
        if self.profile.return_values_at_ret:
            from dbg_dap.finish import finish_by_returns

            return finish_by_returns(self, index, timeout)
        event = StopEvent(state="running")
        for _ in range(index + 1):
            event = self._resume("stepOut", timeout)
            if event.state != "stopped" or event.reason != "step":
                return event  # something else stopped it first: no return value
        event.return_value = self.profile.return_value(self)
        return event

    def until(self, loc: BreakLoc | None, timeout: float) -> StopEvent:
        if loc is None:
            return self.next(timeout)
        if loc.file is None and loc.function is None:
            current = self._stack_frames()
            if not current:
                raise OpFailed("no current file for a bare line", "give FILE:LINE")
            file = _location(current[0]).file
            loc = BreakLoc(file=file, line=loc.line)
        bp = self.breaks.add(loc, BreakOptions(temporary=True), internal=True, strict=True)
        try:
            return self.cont(timeout)
        finally:
            self.breaks.discard_internal(int(bp.id))

    def pause(self, timeout: float) -> StopEvent:
        dap = self._dap()
        if dap.state == "stopped":
            return self._event("stopped")
        seq = dap.stop.seq
        thread = self.thread_id if self.thread_id is not None else (self._first_thread() or 0)
        dap.request("pause", {"threadId": thread}, timeout)
        return self._event(dap.wait_for_stop(seq, timeout))

    # -- breakpoints ---------------------------------------------------------------------

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions) -> Breakpoint:
        return self.breaks.add(loc, options)

    def remove_breakpoint(self, bp_id: int | str) -> None:
        self.breaks.remove(int(bp_id))

    def list_breakpoints(self) -> list[Breakpoint]:
        return self.breaks.listing()

    def watch(self, expression: str) -> Breakpoint:
        return self.breaks.add_watch(expression)

    def catch(self, filters: list[str]) -> list[str]:
        dap = self._dap()
        known = {f["filter"]: f for f in dap.caps.get("exceptionBreakpointFilters") or []}
        if not known:
            raise self.unsupported("catch", f"{self.tool_name} offers no exception filters"
                                   + self.profile.hints.get("catch", ""))
        unknown = [f for f in filters if f not in known]
        if unknown:
            raise UsageError(f"unknown exception filter {', '.join(unknown)} for {self.tool_name}",
                             f"choose from: {', '.join(known)}")
        dap.request("setExceptionBreakpoints", {"filters": filters})
        self.exception_filters = list(filters)
        return self.exception_filters

    # -- inspection ---------------------------------------------------------------------

    def stack(self, levels: int | None) -> list[Frame]:
        self._stopped("stack")
        frames = self._stack_frames()
        internal = self.profile.internal_frames(frames)
        shown = frames[:levels] if levels else frames
        return [Frame(i, f.get("name"), _location(f).file, f.get("line"), i == self.frame_index,
                      internal=internal[i])
                for i, f in enumerate(shown)]

    def select_frame(self, index: int) -> Frame:
        self._stopped("frame")
        frames = self._stack_frames()
        if index >= len(frames):
            raise OpFailed(f"no frame {index}: the stack has {len(frames)} frames",
                           "see `dbg stack`")
        self.frame_index = index
        f = frames[index]
        return Frame(index, f.get("name"), _location(f).file, f.get("line"), True)

    def scopes(self, frame_id: int | None = None) -> list[Message]:
        dap = self._stopped("scopes")
        frame_id = self._frame_id() if frame_id is None else frame_id
        if frame_id is None:
            return []
        return list(dap.request("scopes", {"frameId": frame_id}).get("scopes") or [])

    def variables(self, reference: int, start: int = 0, count: int = 0) -> list[Message]:
        dap = self._stopped("vars")
        arguments: Message = {"variablesReference": reference}
        if count:
            if not dap.supports("supportsVariablePaging"):
                arguments = {"variablesReference": reference}
            else:
                arguments.update(start=start, count=count)
        return list(dap.request("variables", arguments).get("variables") or [])

    def locals(self) -> list[Variable]:
        out: list[Variable] = []
        self._refs = {}
        for scope in self.scopes():
            name = str(scope.get("name", "")).lower()
            hint = str(scope.get("presentationHint", "")).lower()
            if scope.get("expensive") or not (hint in LOCAL_SCOPE_HINTS or any(
                    word in name for word in LOCAL_SCOPE_HINTS)):
                continue
            for var in self.variables(int(scope["variablesReference"])):
                if _noise(var) or str(var.get("name", "")).startswith(RETURN_PREFIX):
                    continue
                value = str(var.get("value", ""))
                if not value.strip() and var.get("variablesReference"):
                    value = "{...}"  # a struct: `dbg print NAME` shows its fields
                if var.get("variablesReference"):
                    self._refs[str(var.get("name"))] = (
                        int(var["variablesReference"]),
                        int(var.get("indexedVariables") or 0) + int(var.get("namedVariables") or 0))
                out.append(Variable(str(var.get("name")), value, var.get("type")))
        return out

    def fields(self, variable: Variable) -> list[Variable] | None:
        ref, size = self._refs.get(variable.name, (0, 0))
        if not ref or not self.profile.hides_fields(variable.value):
            return None
        if size > MAX_FIELDS:
            # A million-element array is not expanded: asking an adapter
            # without paging (gdb) for its children takes all of them.
            return None
        rows = [v for v in self.variables(ref) if not _noise(v)
                and str(v.get("name", "")) not in DEBUGPY_GROUPS]
        return [Variable(str(v.get("name")), str(v.get("value", "")) or "{...}", v.get("type"))
                for v in rows]

    def return_rows(self) -> list[Message]:
        """debugpy's "(return) NAME" rows among the top frame's locals (a
        finish's return value; `dbg locals` leaves them out)."""
        rows = []
        for scope in self.scopes():
            if scope.get("expensive"):
                continue
            rows += [v for v in self.variables(int(scope["variablesReference"]))
                     if str(v.get("name", "")).startswith(RETURN_PREFIX)]
        return rows

    def shown_value(self, var: Message) -> str:
        """A variable's value as `dbg print` shows it (a struct: its fields)."""
        value = str(var.get("value", ""))
        reference = int(var.get("variablesReference") or 0)
        if reference and (not value.strip() or _BARE_AGGREGATE.fullmatch(value)):
            return self._summary(reference)
        return value

    def evaluate(self, expression: str, context: str | None = None) -> Value:
        dap = self._stopped("print")
        arguments: Message = {"expression": expression,
                              "context": context or self.profile.print_context}
        frame_id = self._frame_id()
        if frame_id is not None:
            arguments["frameId"] = frame_id
        body = dap.request("evaluate", arguments)
        result = str(body.get("result", ""))
        reference = int(body.get("variablesReference") or 0)
        if reference and (not result.strip() or _BARE_AGGREGATE.fullmatch(result)):
            # gdb gives a struct no value of its own, lldb-dap "TYPE @ ADDRESS":
            # show the fields.
            result = self._summary(reference)
        return Value(result, body.get("type"))

    def _summary(self, reference: int, limit: int = 12) -> str:
        """A value's children on one line: {name = value, ...}."""
        rows = [r for r in self.variables(reference) if self.profile.child_kind(r) == "item"]
        parts = []
        for row in rows[:limit]:
            value = str(row.get("value", ""))
            if not value.strip() and row.get("variablesReference"):
                value = "{...}"
            parts.append(f"{row.get('name')} = {value}")
        more = ", ..." if len(rows) > limit else ""
        return "{" + ", ".join(parts) + more + "}"

    def set_variable(self, lhs: str, value: str) -> Value:
        dap = self._stopped("set")
        frame_id = self._frame_id()
        if dap.supports("supportsSetExpression"):
            arguments: Message = {"expression": lhs, "value": value}
            if frame_id is not None:
                arguments["frameId"] = frame_id
            body = dap.request("setExpression", arguments)
            return Value(str(body.get("value", "")), body.get("type"))
        if not dap.supports("supportsSetVariable"):
            raise self.unsupported("set", f"{self.tool_name} cannot assign variables")
        for scope in self.scopes():
            for var in self.variables(int(scope["variablesReference"])):
                if var.get("name") == lhs:
                    body = dap.request("setVariable", {
                        "variablesReference": scope["variablesReference"], "name": lhs,
                        "value": value})
                    self._frames = None
                    # lldb-dap 19 answers with `result` where the spec says `value`.
                    return Value(str(body.get("value", body.get("result", ""))), body.get("type"))
        raise OpFailed(f"no variable {lhs!r} in the selected frame",
                       f"{self.tool_name} can only assign plain variable names")

    def threads(self) -> list[Thread]:
        dap = self._stopped("threads")
        threads = dap.request("threads").get("threads") or []
        return [Thread(t["id"], str(t.get("name", "")), t["id"] == self.thread_id)
                for t in threads]

    def select_thread(self, thread_id: int | str) -> Thread:
        for thread in self.threads():
            if str(thread.id) == str(thread_id):
                self.thread_id = int(thread.id)
                self._frames = None
                self.frame_index = 0
                thread.current = True
                return thread
        raise OpFailed(f"no thread {thread_id}", "see `dbg threads`")

    def console(self, command: str) -> str:
        """Run a native console command (the adapter's repl context). Also
        after the program ended, for adapters that keep answering then."""
        dap = self._dap()
        if dap.state == "stopped":
            answer = self.evaluate(self.profile.raw_expression(command),
                                   self.profile.raw_context).value
        else:
            answer = str(dap.request("evaluate", {
                "expression": self.profile.raw_expression(command),
                "context": self.profile.raw_context}).get("result", ""))
        return self.profile.raw_answer(answer)

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        return self.console(text), None

    # -- expert ops (dbg scopes, vars, disasm, memory, modules, ...) -------------------

    def extension_op(self, op: str) -> Callable[[dict[str, Any], float], dict[str, Any]] | None:
        from dbg_dap.expert import EXPERT_OPS

        handler = EXPERT_OPS.get(op)
        return partial(handler, self) if handler is not None else None


def _location(frame: Message) -> Location:
    source = frame.get("source") or {}
    file = source.get("path") or source.get("name")
    return Location(file, frame.get("line"), frame.get("name"))


def _noise(var: Message) -> bool:
    # debugpy groups "special variables" / "function variables" as synthetic entries.
    name = str(var.get("name", ""))
    return name in ("special variables", "function variables", "class variables") or (
        name.startswith("__") and name.endswith("__") and name != "__return__")
