"""The DAP backend: every canonical op as structured Debug Adapter Protocol requests.

One class drives every adapter (its parts: dbg_dap.core, .events, .inspection,
.breakpoints, .expert); what differs per adapter is in its profile
(:mod:`dbg_dap.profiles`) and in the capabilities it announces. Every request
that needs a capability is sent only if the adapter announced it; otherwise
the op is refused here with a hint, because some adapters crash or hang on
requests they do not implement.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import dbg_dap.expert as expert
import dbg_dap.reverse as reverse
import dbg_dap.rust as rust
from dbg_dap.assign import set_value
from dbg_dap.breakpoints import BreakpointTable
from dbg_dap.core import ATTACH_STOP_WAIT, frame_location
from dbg_dap.events import DapEvents
from dbg_dap.finish import (
    finish_by_returns,
    finish_generator,
    results_at_ret,
    return_instructions,
)
from dbg_dap.memcheck import MemcheckRun
from dbg_dap.profile_base import AdapterProfile
from dbg_dap.profiles import profile_for
from dbg_dap.unixsock import connect_unix
from dbgcore.api import (
    LISTENING_RE,
    AdapterProcess,
    AttachRequest,
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    CallSink,
    DapChannel,
    DapSession,
    DbgError,
    DebuggerLost,
    LaunchRequest,
    Location,
    LoopbackListener,
    Message,
    OpFailed,
    OutputPump,
    PathMap,
    PipeTransport,
    Readiness,
    ReturnValue,
    SessionContext,
    SocketTransport,
    StopEvent,
    StopState,
    Support,
    TraceOutcome,
    Transport,
    UsageError,
    Value,
    parse_listening,
    post_mortem_description,
    read_core,
    trace_by_stops,
)

if TYPE_CHECKING:
    from dbgcore.api import Op

#: How long `dbg pause` waits for a program just launched to reach its
#: adapter (its threads) before it gives up.
INTERRUPT_WAIT = 5.0

#: How long a TCP adapter gets to say where it listens, or to dial dbg's port.
ADAPTER_START_WAIT = 20.0
#: How long connecting to an adapter that listens may take: one dbg started
#: (it has said it listens), or a debug server already running.
ADAPTER_CONNECT_WAIT = 10.0
SERVER_CONNECT_WAIT = 5.0

#: How long `dbg caps` gives an adapter to start and announce its capabilities.
CAPS_TIMEOUT = 20.0

#: A stop `poll` finds is read (its thread, its frames) with requests given
#: at least this long: poll's own timeout is how long to wait for the stop,
#: which may be no time at all.
STOP_READ_TIMEOUT = 10.0

#: How long an attach that leaves the program running waits for its pause.
ATTACH_PAUSE_TIMEOUT = 10.0

#: DAP's step requests, by the op that sends them.
_STEP_OPS = {"next": "next", "stepIn": "step", "stepOut": "finish"}


class DapBackend(DapEvents):
    id = "dap"
    tool = "dap"
    unsupported_hints: ClassVar[dict[str, str]] = {}
    # These depend on what the adapter announces; `dbg caps` asks a live one
    # (support); until is built from a breakpoint and continue.
    op_support: ClassVar[Mapping[str, Support]] = {
        "watch": "native", "catch": "native", "set": "native", "until": "fallback"}
    #: Every built-in adapter's; each instance takes its profile's (DapCore).
    reads_stdin = True
    #: Every file an adapter names goes through the channel's path map.
    maps_paths = True

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        # Only the whole backend answers everything a profile may ask (its
        # parts below it do not): mypy checks it against AdapterHost here.
        self.host = self
        self.breaks = BreakpointTable(self, self.profile)
        #: While launching for `start --run`: places the session's breakpoints.
        self._before_run: Callable[[], object] | None = None
        #: How many times `catch` set the exception breakpoints.
        self._catches = 0
        self.opens_cores = self.profile.feature("core") != "none"
        self.runs_memcheck = self.profile.runs_memcheck
        #: The core dump this session opened (`dbg start --core`), if any.
        self.core: str | None = None
        #: An attach's path map (AttachRequest.paths), for the channel it opens.
        self.paths = PathMap()

    def thread_wait(self, timeout: float) -> tuple[str, str] | None:
        return self.profile.thread_wait(self.host, timeout)

    @classmethod
    def tool_for(cls, spec: BackendSpec) -> str:
        return str(spec.options.get("tool") or spec.name)

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        return profile_for(spec).check()

    @classmethod
    def memchecks(cls, spec: BackendSpec) -> bool:
        return profile_for(spec).runs_memcheck

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        profile_for(spec).check_program(program)

    @classmethod
    def build_command(cls, spec: BackendSpec, program: Path,
                      out: Path) -> tuple[list[str], Path] | None:
        return profile_for(spec).build_command(program, out)

    @classmethod
    def support(cls, spec: BackendSpec, ops: Iterable[Op]) -> dict[str, Support]:
        """Start the adapter, read the capabilities it announces, and stop
        it: what each op needs is in :func:`dbg_dap.expert.op_support`,
        the rest in the profile's features."""
        import tempfile

        from dbgcore.api import OutputBuffer, TransLog

        with tempfile.TemporaryDirectory(prefix="dbg-caps-") as run_dir:
            ctx = SessionContext(name="caps", run_dir=Path(run_dir), output=OutputBuffer(),
                                 log=TransLog(None), shutdown_grace=0.5)
            backend = cls(spec, ctx)
            try:
                dap = backend._connect(None)
                announced = dap.initialize(backend.profile.client_caps, CAPS_TIMEOUT)
            finally:
                backend.terminate()
        support = expert.op_support(cls.capabilities(ops), cls.extension_ops(), announced,
                             backend.profile)
        for feature, capability in (("break-if", "supportsConditionalBreakpoints"),
                                    ("break-hit", "supportsHitConditionalBreakpoints"),
                                    ("break-log", "supportsLogPoints")):
            support[feature] = "native" if announced.get(capability) else "none"
        for feature in ("return-value", "pending", "core", "children"):
            support[feature] = backend.profile.feature(feature)
        support["stdin"] = "native" if backend.profile.reads_stdin else "none"
        # gdb's: its console's record and reverse commands (dbg_dap.reverse).
        support["record"] = support["reverse"] = \
            "native" if backend.profile.record_commands else "none"
        support["tasks"] = "native" if type(backend.profile).tasks is not AdapterProfile.tasks \
            else "none"
        # A profile that traces by itself overrides AdapterProfile.trace.
        support["trace"] = "native" if type(backend.profile).trace is not AdapterProfile.trace \
            else "fallback"
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
            transport = SocketTransport.connect(server[0], server[1], SERVER_CONNECT_WAIT)
        elif mode == "stdio":
            self.process = AdapterProcess(argv, env=self.profile.adapter_env(), cwd=cwd,
                                          name=name, on_stderr_line=self._adapter_stderr,
                                          early=self.ctx.early)
            transport = PipeTransport(self.process)
        elif mode == "tcp-listen":
            self.process = AdapterProcess(argv, cwd=cwd, name=name, stdio=False,
                                          on_stdout_line=self._adapter_stdout,
                                          stdin=self._adapter_stdin(), announces=LISTENING_RE,
                                          early=self.ctx.early)
            host, port = parse_listening(self.process.wait_stdout(LISTENING_RE,
                                                                  ADAPTER_START_WAIT))
            transport = SocketTransport.connect(host, port, ADAPTER_CONNECT_WAIT)
        elif mode == "tcp-dial":
            listener = LoopbackListener()
            argv = [a.replace("{address}", listener.address) for a in argv]
            self.process = AdapterProcess(argv, cwd=cwd, name=name, stdio=False,
                                          on_stdout_line=self._adapter_stdout,
                                          stdin=self._adapter_stdin(), early=self.ctx.early)
            # Only the adapter's own connection; others are noted and closed.
            transport = listener.accept(ADAPTER_START_WAIT, self.process,
                                        on_refused=self.ctx.log.note)
        elif mode == "unix-connect":
            # The adapter listens on a UNIX socket in the session's private
            # run folder (rdbg --open --sock-path): no one else can reach it.
            path = str(self.ctx.run_dir / "adapter.sock")
            argv = [a.replace("{socket}", path) for a in argv]
            self.process = AdapterProcess(argv, env=self.profile.adapter_env(), cwd=cwd,
                                          name=name, stdio=False,
                                          on_stdout_line=self._adapter_stdout,
                                          on_stderr_line=self._adapter_stderr,
                                          stdin=self._adapter_stdin(), early=self.ctx.early)
            transport = connect_unix(path, self.process, ADAPTER_START_WAIT)
        else:
            raise UsageError(f"backend {self.spec.name!r}: unknown transport {mode!r}",
                             "use stdio, tcp-listen, tcp-dial or unix-connect")
        if self.process is not None:
            self.ctx.track_process(self.process.pid, name)
        self.channel = DapChannel(transport, self.ctx.log, name, self.process, paths=self.paths)
        if self.profile.adapter_is_program:
            # Heard before the session's own handler, which would call it lost.
            self.channel.on_event("_closed", self._program_ended)
        self.dap = DapSession(self.channel, self.ctx.output, adapter_id=self.profile.name,
                              categories=self.profile.output_categories)
        self.listen(self.channel)
        self.dap.on_breakpoint(self.breaks.on_event)
        self.channel.start()
        return self.dap

    def _program_ended(self, event: Message) -> None:
        """The adapter's process (which is the program's) closed the
        connection: the program ended, with the process's exit status."""
        if self.process is None or self.dap is None:
            return
        try:
            code: int | None = self.process.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return  # still running: it did go away under the session
        self.dap.end(code)

    def _adapter_stdout(self, line: bytes) -> None:
        # Adapters that print the debuggee's output on their own stdout.
        if self.spec.options.get("stdout_is_program_output"):
            self.ctx.output.append("stdout", line.decode("utf-8", "replace"))

    def _adapter_stderr(self, line: str) -> None:
        # What an adapter's guard refused (debugpy's: adapterboot), for the log.
        if line.startswith("dbg-adapter-guard: "):
            self.ctx.log.note(line[len("dbg-adapter-guard: "):])
            return
        # An adapter that is the program's process: the rest of its stderr
        # is the program's (a Ruby traceback, a syntax error).
        own = self.profile.own_stderr_prefix
        if own and not line.startswith(own):
            self.ctx.output.append("stderr", line + "\n")

    def _adapter_stdin(self) -> str | None:
        """The program's stdin, for an adapter whose program inherits its own."""
        return self.profile.stdin if self.profile.stdin_through_adapter else None

    def _handshake(self, command: str, arguments: Message | Callable[[], Message],
                   cwd: str | None, timeout: float,
                   server: tuple[str, int] | None = None,
                   configure_launch: bool | None = None) -> StopEvent:
        dap = self._connect(cwd, server)
        dap.initialize(self.profile.client_caps, timeout)
        if callable(arguments):
            arguments = arguments()
        launching = command == "launch" if configure_launch is None else configure_launch
        dap.start(command, arguments, partial(self._configure, launching, timeout), timeout)
        # A launch stops at entry; an attached program may just keep running,
        # so attach only looks (and then pauses it).
        self.running_since = 0
        state = dap.wait_for_stop(0, timeout if command == "launch" else 0)
        event = self.stop_event(state, timeout)
        if command == "launch" and event.reason == "breakpoint" and not event.hit_breakpoints \
                and self._before_run is None:
            # The adapter's own breakpoint for stopping at entry (gdb's
            # stopAtBeginningOfMainSubprogram), not one of the user's.
            event.reason = "entry"
        if command == "launch" and event.reason == "entry":
            event = self.profile.after_entry(self, event, timeout)
        return event

    def _configure(self, launching: bool, timeout: float) -> None:
        assert self.dap is not None
        entry = self.profile.entry_function
        line = self.profile.entry_line() if launching else None
        catches = self._catches
        if launching and self._before_run is not None:
            # `start --run`: the session's breakpoints now, and no entry stop.
            self._before_run()
        elif (entry or line) and launching:
            # Stop at entry by a breakpoint on the entry function (or line):
            # the adapter's own stopOnEntry stops somewhere useless (the loader).
            loc = BreakLoc(file=line.file, line=line.line) if line else BreakLoc(function=entry)
            self.entry_bp = int(self.breaks.add(loc, BreakOptions(temporary=True), timeout,
                                                 internal=True).id)
        if launching and self.test_run:
            self._place_failure_breaks(timeout)
        self.panic_bps = set()
        if launching and self.profile.panic_function and rust.is_rust(self.program):
            self._configure_rust(timeout)
        if launching:
            self._load_printers(self.profile.language_printer_commands(), "dbg's", timeout)
        for command, arguments in self.profile.configuration_requests():
            self.dap.request(command, arguments, timeout)
        if self._catches != catches:
            return  # a catch before the run (a restart's) set them its own way
        # Sent even with no filters: some adapters wait for it before running.
        self.dap.request("setExceptionBreakpoints", {"filters": self.exception_filters},
                         timeout)

    def _configure_rust(self, timeout: float) -> None:
        """A Rust program's values through its toolchain's pretty printers,
        and its panics as stops (dbg_dap.rust)."""
        assert self.dap is not None and self.profile.panic_function is not None
        self._load_printers(self.profile.rust_printer_commands(), "Rust's", timeout)
        if self.catch_uncaught:
            # A panic is an uncaught exception's stop, as in a Python program.
            self.panic_bps.add(int(self.breaks.add(
                BreakLoc(function=self.profile.panic_function), BreakOptions(), timeout,
                internal=True).id))

    def _load_printers(self, commands: list[str], whose: str, timeout: float) -> None:
        """Run the console commands that load pretty printers."""
        assert self.dap is not None
        for command in commands:
            try:
                self.dap.request("evaluate", {"expression": self.profile.raw_expression(command),
                                              "context": "repl"}, timeout)
            except DbgError as exc:
                # Values then read as their fields: no reason to refuse the start.
                self.ctx.log.note(f"{whose} pretty printers did not load: {exc.message}")

    def _place_failure_breaks(self, timeout: float) -> None:
        """dbg's own breakpoints where a test fails (a test run)."""
        for function in self.profile.test_failure_functions:
            self.failure_bps.add(int(self.breaks.add(
                BreakLoc(function=function), BreakOptions(), timeout, internal=True).id))

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        if request.core:
            return self._open_core(request, request.core, timeout)
        if request.memcheck:
            return self._memcheck(request, timeout)
        self.cwd = request.cwd
        self.program = None if request.module else os.path.abspath(request.program)
        self.catch_uncaught = request.stop_on_uncaught
        self.recording = self.exit_ahead = False  # a record ends with its run
        self.test_run = request.test
        self.exception_filters = self.profile.default_exception_filters(request)
        extra = self.profile.launch_env(self)
        if extra:
            request = replace(request, env={**request.env, **extra})
        self._before_run = request.before_run if self.profile.breaks_before_run else None
        if self.profile.own_streams:
            # The program writes into FIFOs of ours, apart from the adapter's text.
            self.pump = OutputPump(self.ctx.run_dir, "program", self.ctx.output)
            self.profile.streams = {k: str(v) for k, v in self.pump.paths.items()}
        self.profile.stdin = request.stdin if self.profile.reads_stdin else None
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
                                   timeout)
        finally:
            self._before_run = None

    def _memcheck(self, request: LaunchRequest, timeout: float) -> StopEvent:
        """`dbg memcheck`: valgrind runs the program, stopped before its first
        instruction (dbg_dap.memcheck); the debugger attaches to valgrind's
        gdb server, the session's breakpoints are placed before that
        (``request.before_run``), and the program runs on to its first
        error, breakpoint or end. The program is dbg's, as a launched one is."""
        self.cwd = request.cwd
        self.program = os.path.abspath(request.program)
        self.catch_uncaught = request.stop_on_uncaught
        self.exception_filters = self.profile.default_exception_filters(request)
        self.profile.stdin = request.stdin if self.profile.reads_stdin else None
        run = self.memcheck = MemcheckRun(self.ctx.run_dir)
        proc = run.spawn(self.program, request.args, request.cwd, request.env,
                         self.profile.stdin)
        for stream, category in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            threading.Thread(target=self._pump, args=(stream, category), daemon=True,
                             name=f"debuggee-{category}").start()
        self._terminal.append(proc)
        self.debuggees.append(proc.pid)
        self.ctx.track_process(proc.pid, "debuggee")
        run.wait_ready(timeout)
        # Not configured as an attach (which places nothing) nor as a launch
        # (whose entry breakpoint would be one more stop): the breakpoints only.
        self._before_run = request.before_run or (lambda: None)
        try:
            event = self._handshake("attach", self.profile.memcheck_arguments(
                self.program, run.target), request.cwd, timeout, configure_launch=True)
        finally:
            self._before_run = None
        if event.state == "running" and self.dap is not None:
            # gdb says it attached (valgrind waits at the first instruction)
            # just after answering the attach.
            event = self.stop_event(self.dap.wait_for_stop(0, timeout), timeout)
        return self.cont(timeout) if event.state == "stopped" else event

    def _open_core(self, request: LaunchRequest, core: str, timeout: float) -> StopEvent:
        """`dbg start --core`: the adapter opens the core (by the request its
        profile names) and reports a stop, which is the core's: where the
        process died, and why (the core's own notes, and what the debugger adds)."""
        self.cwd = request.cwd
        self.program = os.path.abspath(request.program)
        self.core = core
        # The pid a core names (lldb-dap reports it) is a dead process's, and
        # maybe another's by now: as with an attached one, never dbg's to end.
        self.attached = True
        command, arguments = self.profile.core_arguments(request)
        event = self._handshake(command, arguments, request.cwd, timeout,
                                configure_launch=False)
        if event.state == "running" and self.dap is not None:
            event = self.stop_event(self.dap.wait_for_stop(0, timeout), timeout)
        if event.state != "stopped":
            raise OpFailed(f"{self.tool_name} opened {core} but reported no stop in it "
                           f"(the program {event.state})",
                           "check that the core is PROGRAM's: `file CORE` names it")
        info = read_core(Path(core))
        frames = self.stack_frames(timeout)
        cause = self.profile.core_cause(self, frames, timeout)
        thrown = self.profile.uncaught_exception(self, frames, timeout) if frames else None
        if thrown is not None:
            # An uncaught C++ exception's abort: shown where it was thrown.
            self.frame_index, self.thrown = thrown[0], (thrown[2], thrown[1])
            event.location = frame_location(frames[thrown[0]])
            event.location.function = self.profile.frame_name(frames[thrown[0]])
            cause = cause or thrown[1]
        if not cause and info.signal is None:
            cause = event.description  # the debugger's word, when the core has none
        event.reason, event.signal = "core", info.signal
        self.core_signal, self.stop_frame = info.signal, self.frame_index
        event.description = post_mortem_description(info, event.location, cause)
        self.last_reason, self.last_description = event.reason, event.description
        return event

    def attach(self, request: AttachRequest, timeout: float) -> StopEvent:
        if request.options.get("child"):
            return self._attach_child(request, dict(request.options["child"]), timeout)
        self.attached = True
        program = self.profile.attach_program(request)
        if program != request.program:
            request = replace(request, program=program)
        self.program = os.path.abspath(program) if program else None
        self.paths = request.paths
        try:
            event = self._handshake("attach", self.profile.attach_arguments(request), None,
                                    timeout, self.profile.attach_server(request))
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
                event = self.stop_event(state, timeout)
        if event.state == "running":
            # An attached program keeps running; stop it so it can be inspected.
            event = self.pause(ATTACH_PAUSE_TIMEOUT)
        if event.state == "stopped":
            # However the debugger got it stopped (gdb says attach, lldb a
            # SIGSTOP, a pause says pause), it is the stop of the attach.
            event.reason, event.description = "attach", ""
        return event

    def _attach_child(self, request: AttachRequest, configuration: Message,
                      timeout: float) -> StopEvent:
        """A child process of a program a parent session debugs: attach to
        it through the parent's adapter, with the configuration the adapter
        gave (startDebugging), the parent's breakpoints placed before the
        child runs on. A child of a program dbg started ends with its session;
        one of an attached program is detached from."""
        self.attached = bool(request.options.get("attached"))
        self.is_child = True
        self.program = os.path.abspath(request.program) if request.program else None
        self._before_run = request.before_run
        connect = configuration.get("connect") or {}
        server = (str(connect.get("host") or "127.0.0.1"), int(connect["port"]))
        # The child waits for this client: it is not stopped, it runs on.
        return self._handshake("attach", configuration, None, timeout, server,
                               configure_launch=True)

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

    def program_pids(self) -> list[int]:
        """The processes the adapter announced (or dbg started for it);
        for an adapter that names none (delve), the adapter's own children,
        which are the program it launched. None of an attached process's."""
        if self.attached or self.is_child or self.core is not None:
            return []
        if self.debuggees:
            return list(self.debuggees)
        from dbgcore.api import procutil

        pid = self.process.pid if self.process is not None else None
        return procutil.children_of(pid) if pid is not None else []

    def ended_unseen(self, timeout: float) -> StopEvent | None:
        # An end the adapter reported while nothing waited (debugpy and
        # lldb-dap see a SIGKILL at once), with the code it gave; else what
        # the program's processes say (gdb and delve say nothing until the
        # next resume, which then hangs or fails).
        if self.dap is not None and not self.dap.lost and self.dap.state == "exited":
            return self.stop_event("exited", max(timeout, STOP_READ_TIMEOUT))
        return super().ended_unseen(timeout)

    def poll(self, timeout: float) -> StopEvent | None:
        # Not `state() == "running"`: events arrive on their own, so the
        # stop may be here already, unreported.
        if self.dap is None or self.running_since is None:
            return None
        state = self.dap.wait_for_stop(self.running_since, timeout)
        return None if state == "running" else self.stop_event(
            state, max(timeout, STOP_READ_TIMEOUT))

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

        groups = {g for pid in self.debuggees if (g := procutil.pgid_of(pid)) is not None}
        procutil.terminate_groups(groups, grace=grace, reap=self.debuggees)
        if self.process is not None:
            own = self.profile.shutdown_grace
            self.process.terminate(grace if own is None else own)
        if self.pump is not None:
            self.pump.close()

    # -- execution ---------------------------------------------------------------------

    def resume(self, command: str, timeout: float, extra: Message | None = None) -> StopEvent:
        dap = self.stopped_session(command)
        step = _STEP_OPS.get(command)
        if step:
            self.profile.before_step(self, step, timeout)
        replaying = self.recording and reverse.record_state(self, timeout).replaying
        ended = reverse.before_forward(self, replaying, timeout) if self.recording else ""
        since = self.ctx.output.cursor
        arguments: Message = {"threadId": self.thread_id or 0, **(extra or {})}
        seq = dap.mark_running()
        self.running_since = seq
        self.drop_frames()
        try:
            dap.request(command, arguments, timeout)
        except OpFailed:
            dap.resume_refused(seq)
            raise
        event = self.stop_event(dap.wait_for_stop(seq, timeout), timeout)
        if self.recording:
            event = reverse.after_forward(self, event, replaying, since, timeout)
        if ended:
            event.description = "; ".join(filter(None, [ended, event.description]))
        if step:
            event = self.profile.after_step(self, step, event, timeout)
        return event

    def reverse(self, motion: str, timeout: float) -> StopEvent:
        if motion not in self.profile.record_commands:
            return super().reverse(motion, timeout)
        return reverse.run_back(self, motion, timeout)

    def record(self, stop: bool, timeout: float) -> Message:
        return reverse.record(self, stop, timeout)

    def cont(self, timeout: float) -> StopEvent:
        return self.resume("continue", timeout)

    def _out_of_failure(self, timeout: float) -> StopEvent | None:
        """At a test's failure, shown in the test's frame below the testing
        library's: step out of those first, so that `next` and `step` go on
        from the test's line (a step from frame 0 would walk the library).
        Returns what stopped the program elsewhere, if anything did."""
        for level in range(self.stop_frame if self.test_failed else 0):
            if level == 0:
                # Fail marks the test's parents failed too, by calling Fail:
                # those are no stops while it returns.
                for bp_id in self.failure_bps:
                    self.breaks.discard_internal(bp_id, timeout)
                self.failure_bps.clear()
            try:
                event = self.resume("stepOut", timeout)
            finally:
                if not self.failure_bps and self.state() == "stopped":
                    self._place_failure_breaks(timeout)
            if event.state != "stopped" or event.reason != "step":
                return event
        return None

    def step(self, timeout: float) -> StopEvent:
        elsewhere = self._out_of_failure(timeout)
        if elsewhere is not None:
            return elsewhere
        event = self.resume("stepIn", timeout)
        if event.state == "stopped" and self.profile.at_declaration(event.location):
            # Into a call, every backend stops at the function's first line.
            event = self.resume("next", timeout)
        return event

    def next(self, timeout: float) -> StopEvent:
        return self._out_of_failure(timeout) or self.resume("next", timeout)

    def finish(self, timeout: float) -> StopEvent:
        # stepOut leaves the top frame: once per frame up to the selected one.
        frames = self.stack_frames(timeout)
        index = min(self.frame_index, len(frames) - 1) if frames else 0
        if frames and self.profile.generator_frame(frames[index]):
            return finish_generator(self, self.resume, index, timeout)
        if self.profile.return_values_at_ret:
            return finish_by_returns(self, self.resume, index, timeout)
        event = StopEvent(state="running")
        for _ in range(index + 1):
            event = self.resume("stepOut", timeout)
            if event.state != "stopped" or event.reason != "step":
                return event  # something else stopped it first: no return value
        event.return_value = self.profile.return_value(self, timeout)
        return event

    def return_stops(self, timeout: float) -> list[int | str] | None:
        # delve: instruction breakpoints on the RETs, where the results are
        # still locals (as `finish` stops there before it steps out).
        if not self.profile.return_values_at_ret:
            return None
        addresses = return_instructions(self, timeout)
        if not addresses:
            return None
        return list(self.breaks.add_instructions(addresses, timeout))

    def returned_value(self, timeout: float) -> ReturnValue | None:
        return results_at_ret(self, timeout)

    def discard_return_stops(self, stops: list[int | str], timeout: float) -> None:
        for bp_id in stops:
            self.breaks.discard_internal(int(bp_id), timeout)

    def until(self, loc: BreakLoc | None, timeout: float) -> StopEvent:
        if loc is None:
            return self.next(timeout)
        if loc.file is None and loc.function is None:
            current = self.stack_frames(timeout)
            if not current:
                raise OpFailed("no current file for a bare line", "give FILE:LINE")
            file = frame_location(current[0]).file
            loc = BreakLoc(file=file, line=loc.line)
        bp = self.breaks.add(loc, BreakOptions(temporary=True), timeout, internal=True,
                             strict=True)
        try:
            return self.cont(timeout)
        finally:
            self.breaks.discard_internal(int(bp.id), timeout)

    def set_variable(self, lhs: str, value: str, timeout: float) -> Value:
        return set_value(self, lhs, value, timeout)

    def interrupt(self) -> None:
        # Sent from a second client's thread while the op that resumed the
        # program waits for its stop; that op reads the stop. The channel
        # matches answers by sequence number, so nobody needs this one's.
        dap, channel = self.dap, self.channel
        # "starting" too: a `start --run` that has not stopped yet (a
        # program waiting for its pool's children) is running.
        if dap is None or channel is None or dap.state in ("stopped", "exited"):
            return
        thread = self.thread_id
        # Right after a launch the program may not have reached the adapter
        # yet (debugpy: "Server is not available" until its pydevd connects):
        # ask for its threads again for a little while.
        deadline = time.monotonic() + INTERRUPT_WAIT
        while thread is None:
            try:
                thread = self.first_thread(INTERRUPT_WAIT) or 0
            except DbgError:
                if time.monotonic() > deadline or dap.state in ("stopped", "exited"):
                    raise
                time.sleep(0.05)
        self.pause_asked = True
        channel.send_request("pause", {"threadId": thread})

    def pause(self, timeout: float) -> StopEvent:
        dap = self.dap_session()
        if dap.state == "stopped":
            return self.stop_event("stopped", timeout)
        seq = dap.stop.seq
        thread = self.thread_id if self.thread_id is not None else (
            self.first_thread(timeout) or 0)
        self.pause_asked = True
        dap.request("pause", {"threadId": thread}, timeout)
        return self.stop_event(dap.wait_for_stop(seq, timeout), timeout)

    # -- breakpoints ---------------------------------------------------------------------

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions, timeout: float) -> Breakpoint:
        return self.breaks.add(loc, options, timeout)

    def set_breakpoints(self, locs: list[BreakLoc], timeout: float,
                        options: list[BreakOptions] | None = None
                        ) -> list[Breakpoint | Exception]:
        return self.breaks.add_many(locs, timeout, options)

    def function_places(self, loc: BreakLoc, timeout: float) -> list[Location] | None:
        return self.profile.function_places(self, loc, timeout)

    def functions_elsewhere(self, loc: BreakLoc, timeout: float) -> list[Location]:
        return self.profile.functions_elsewhere(self, loc, timeout)

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        self.breaks.remove(int(bp_id), timeout)

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        return self.breaks.listing()

    def watch(self, expression: str, timeout: float) -> Breakpoint:
        return self.breaks.add_watch(expression, timeout)

    def catch(self, filters: list[str], timeout: float) -> list[str]:
        dap = self.dap_session()
        self._catches += 1
        done = self.profile.catch(self, filters, timeout)
        if done is not None:
            return done
        known = {f["filter"]: f for f in dap.caps.get("exceptionBreakpointFilters") or []}
        if not known:
            raise self.unsupported("catch", f"{self.tool_name} offers no exception filters"
                                   + self.profile.hints.get("catch", ""))
        unknown = [f for f in filters if f not in known]
        if unknown:
            raise UsageError(f"unknown exception filter {', '.join(unknown)} for {self.tool_name}",
                             f"choose from: {', '.join(known)}")
        dap.request("setExceptionBreakpoints", {"filters": filters}, timeout)
        self.exception_filters = list(filters)
        return self.exception_filters

    # -- the native console ------------------------------------------------------------

    def console(self, command: str, timeout: float) -> str:
        """Run a native console command (the adapter's repl context). Also
        after the program ended, for adapters that keep answering then."""
        dap = self.dap_session()
        if dap.state == "stopped":
            answer = self.evaluate_with(self.profile.raw_expression(command),
                                        self.profile.raw_context, timeout).value
        else:
            answer = str(dap.request("evaluate", {
                "expression": self.profile.raw_expression(command),
                "context": self.profile.raw_context}, timeout).get("result", ""))
        return self.profile.raw_answer(answer)

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        return self.console(text, timeout), None

    def trace(self, functions: list[str], lines: bool, max_calls: int,
              timeout: float, sink: CallSink) -> TraceOutcome:
        # The adapter's own means where its profile has them, else dbg's fallback.
        done = self.profile.trace(self, functions, lines, max_calls, timeout, sink)
        if done is not None:
            return done
        return trace_by_stops(self, functions, lines, max_calls, timeout, sink)

    # -- expert ops (dbg scopes, vars, disasm, memory, modules, ...) -------------------
    # Declared in dbg_dap.ops (through dbg_add_ops) and answered, like any
    # backend's own ops, by ``op_<name>`` methods; the bodies are in dbg_dap.expert.

    op_scopes = expert.op_scopes
    op_vars = expert.op_vars
    op_disasm = expert.op_disasm
    op_memory_read = expert.op_memory_read

    def op_memory_write(self, args: Message, timeout: float) -> Message:
        self._not_in_core("memory write")
        return expert.op_memory_write(self, args, timeout)

    def op_break_instruction(self, args: Message, timeout: float) -> Message:
        self._not_in_core("break")
        return expert.op_break_instruction(self, args, timeout)

    def _not_in_core(self, op: str) -> None:
        # The core refuses what would change or run the program (the session
        # refuses dbg's own ops; these are this backend's).
        if self.core is not None:
            raise OpFailed(f"cannot {op}: the program is a core dump, a snapshot of its "
                           "memory when it died", "a core file is a snapshot: `dbg start "
                           "PROGRAM` runs it")
    op_modules = expert.op_modules
    op_sources = expert.op_sources
    op_exception = expert.op_exception
    op_dap = expert.op_dap

    # -- Python's own views: `print --depth`, `dbg tasks` (the profile's, or refused) ------

    def value_tree(self, expression: str, depth: int, timeout: float) -> Message:
        self.stopped_session("print")
        answer = self.profile.value_tree(self, expression, depth, timeout)
        if answer is None:
            raise self.unsupported("print --depth", "`dbg vars PATH` lists a value's "
                                                    "children, a level at a time")
        return answer

    def op_tasks(self, args: Message, timeout: float) -> Message:
        self.stopped_session("tasks")
        answer = self.profile.tasks(self, int(args.get("limit") or 50), timeout)
        if answer is None:
            raise self.unsupported("tasks", f"{self.tool_name} has no asyncio tasks to list")
        return answer
