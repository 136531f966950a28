"""The jdb backend: Java's own debugger, driven through a PTY.

dbg starts the program's JVM with ``-agentlib:jdwp=server=n,suspend=y``
connecting to dbg, then ``jdb -attach`` connecting to dbg too. So the
program's stdout and stderr are the JVM's own, carried by an OutputPump, and
never mix with jdb's answers on the terminal; and the exit code is the JVM's.
``dbg attach --port`` runs ``jdb -attach`` to the user's JVM instead.
Neither end of JDWP listens where others could connect: both dial dbg,
which checks who dialed (in /proc) and relays between them (see launch).

jdb's prompt is ``> `` with no current thread and ``THREAD[FRAME] `` with
one (``main[1] ``, ``main[2] `` after ``up``): the frame number in it is how
dbg knows the selected frame. Events (breakpoint hit, step completed, field
modified, exception) arrive after the ``> `` that a resuming command prints
at once; they are read as the answer to that command.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar, NoReturn

from dbg_jdb.breaks import JdbBreakpoints
from dbg_jdb.parse import (
    EVENT_RE,
    EXIT_RE,
    PROMPT_RE,
    RESUMING,
    RUNNING_PROMPT_RE,
    SILENT,
    STOPPED_PROMPT_RE,
    SUSPENDED_RE,
    THREAD_RE,
    THREAD_STATUS_RE,
    WHERE_RE,
    java_library,
    jdb_error,
    jdb_version,
    method_arguments,
)
from dbg_jdb.program import JavaProgram, prepare
from dbgcore.api import (
    AttachRequest,
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    ConsoleBackend,
    DebuggerTimeout,
    Frame,
    LaunchRequest,
    Location,
    Match,
    NotAProgram,
    OpFailed,
    PtyDriver,
    PtyEOF,
    PtyTimeout,
    Readiness,
    ReturnValue,
    SessionContext,
    StopEvent,
    StopState,
    Support,
    TargetExited,
    Thread,
    UsageError,
    Value,
    Variable,
    ended,
    peers,
    procutil,
)

#: An op's arguments and answer: JSON, any of it.
JsonObject = dict[str, Any]


class JdbBackend(ConsoleBackend):
    id = "jdb"
    tool = "jdb"
    reads_stdin = True
    unsupported_hints: ClassVar[dict[str, str]] = {}
    features: ClassVar[dict[str, Support]] = {"return-value": "native", "pending": "native"}
    #: Where an uncaught exception would end the program: dbg stops there.
    UNCAUGHT = "uncaught java.lang.Throwable"

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self.jvm: subprocess.Popen[bytes] | None = None
        #: The JVM's and jdb's connections to dbg, which relays between them.
        self._jdwp: tuple[socket.socket, socket.socket] | None = None
        self.program: JavaProgram | None = None
        self._exit_code: int | None = None
        self.breaks = JdbBreakpoints(self)
        self._thread = ""
        self._frame = 1
        self._location: Location | None = None
        self._version = ""
        self.attached = False
        self._last_reason = ""
        self._last_exception = ""
        #: Right after the VM started: jdb's late first prompt, which the
        #: first command's answer may begin with (see _read_vm_start).
        self._late_prompt: re.Pattern[str] | None = None
        #: The stack of this stop, listed once: a stop's snapshot asks for it
        #: twice. Forgotten whenever the program or the selected thread or
        #: frame may have changed (see command, set_state).
        self._frames: list[Frame] | None = None

    # -- availability ------------------------------------------------------------

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        exe = shutil.which(spec.command[0] if spec.command else "jdb")
        if exe is None:
            return Readiness(False, "jdb not found (it comes with a JDK)")
        if shutil.which("java") is None:
            return Readiness(False, "java not found")
        version = jdb_version(exe)
        return Readiness(True, f"jdb {version or '(version unknown)'} ({exe})", version)

    def version(self) -> str:
        return self._version

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        if program.is_dir():
            raise NotAProgram(f"{program} is a folder, not a Java program",
                              "give a .java file, a .class file, a .jar, or -cp DIR MainClass")
        if program.suffix.lower() not in (".java", ".class", ".jar"):
            raise NotAProgram(f"{program} is not a Java program (.java, .class or .jar)",
                              "give a .java file, a .class file, a .jar, or -cp DIR MainClass")

    # -- starting ----------------------------------------------------------------

    def _spawn_jdb(self, argv: list[str], cwd: str | None) -> PtyDriver:
        exe = shutil.which(self.spec.command[0] if self.spec.command else "jdb") or "jdb"
        self._version = jdb_version(exe)
        roots = self.program.source_roots if self.program else []
        sourcepath = ["-sourcepath", os.pathsep.join(roots)] if roots else []
        return self.start_console([exe, *argv, *sourcepath], PROMPT_RE, cwd=cwd)

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        self.program = prepare(request.program, request.options.get("classpath"),
                               self.ctx.run_dir / "classes", timeout)
        # JDWP's two ends both reach dbg, which relays between them: the JVM
        # dials a port of dbg's, and jdb another (`jdb -attach`). Each port
        # takes only its own process's connection (checked in /proc) and is
        # closed once it has it, so no port is ever open to anyone else.
        # (`jdb -listen` would take the first connection to its port, from
        # anyone: JDI offers no guard, and JDWP no Unix sockets on Linux.)
        vm_door = peers.loopback_listener()
        jdb_door = peers.loopback_listener()
        pump = self.output_pump("jvm")
        java = shutil.which("java") or "java"
        argv = [java, f"-agentlib:jdwp=transport=dt_socket,server=n,suspend=y,"
                      f"address=127.0.0.1:{vm_door.getsockname()[1]}",
                "-cp", os.pathsep.join(self.program.classpath), self.program.main_class,
                *request.args]
        env = {**os.environ, **request.env}
        # dbg starts the VM: it gets the program's stdin (dbg's FIFO opens
        # at once, since dbg holds its write end).
        with open(pump.paths["stdout"], "wb") as out, open(pump.paths["stderr"], "wb") as err, \
                open(request.stdin or os.devnull, "rb") as stdin:
            command, preexec = procutil.bound_to_parent(argv, env, request.cwd)
            self.jvm = subprocess.Popen(command, stdin=stdin, stdout=out, stderr=err,
                                        cwd=request.cwd, env=env, start_new_session=True,
                                        preexec_fn=preexec)
        self.track_child(self.jvm.pid)
        # jdb (a JVM of its own, the slower of the two to start) starts
        # meanwhile: its JDWP handshake waits, unanswered, until the
        # program's VM has dialed and the relay begins.
        try:
            driver = self._spawn_jdb(["-attach", f"127.0.0.1:{jdb_door.getsockname()[1]}"],
                                     request.cwd)
        except BaseException:
            jdb_door.close()
            vm_door.close()
            raise
        jvm = self.jvm
        child = driver.child
        # Both ports are open at once: each is drained (and any stranger's
        # connection refused) while dbg waits, on its own thread for jdb's.
        gave_up = threading.Event()
        dialed: list[socket.socket | None] = []
        waiter = threading.Thread(target=lambda: dialed.append(peers.accept_only(
            jdb_door, [driver.pid], timeout,
            lambda: not gave_up.is_set() and child is not None and bool(child.isalive()),
            self.ctx.log.note)), name="jdb-door", daemon=True)
        waiter.start()
        vm = peers.accept_only(vm_door, [jvm.pid], timeout, lambda: jvm.poll() is None,
                               self.ctx.log.note)
        if vm is None:
            gave_up.set()
            waiter.join()
            code = jvm.poll()
            raise OpFailed("the program's JVM did not connect to dbg "
                           f"({'in time' if code is None else f'exit code {code}'})",
                           "`dbg output` shows what java said")
        waiter.join()
        conn = dialed[0] if dialed else None
        if conn is None:
            vm.close()
            raise OpFailed("jdb did not connect to dbg", "see the session's debugger.log")
        self._jdwp = (vm, conn)
        peers.relay(vm, conn, "jdwp")
        self._read_vm_start(timeout)
        # Stop at entry: a breakpoint on main, ours, gone once it is hit.
        entry = self.breaks.add(BreakLoc(function=f"{self.program.main_class}.main"),
                                timeout, internal=True, temporary=True)
        event = self._resume("cont", timeout)
        self.breaks.discard(entry, timeout)
        if event.state == "stopped":
            # jdb itself catches uncaught Throwables from the start: the
            # default dbg wants, which `--no-catch` undoes.
            if request.stop_on_uncaught:
                self.breaks.catches = [self.UNCAUGHT]
            else:
                self.command(f"ignore {self.UNCAUGHT}", timeout, silent=True)
        if event.state == "stopped" and event.reason == "breakpoint" and not event.hit_breakpoints:
            event.reason = "entry"
            if request.before_run is not None:
                # `start --run`: the session's breakpoints go in at the entry
                # stop (a file's line needs its class loaded to be checked
                # for code), and the program runs on from there at once, with
                # no snapshot of an entry stop nobody sees.
                request.before_run()
                event = self._resume("cont", timeout)
        return event

    def attach(self, request: AttachRequest, timeout: float) -> StopEvent:
        if request.port is None:
            raise UsageError("jdb attaches by --port (a JVM started with "
                             "-agentlib:jdwp=transport=dt_socket,server=y,address=PORT)")
        self.attached = True
        host = request.host or "127.0.0.1"
        self.program = JavaProgram([], "", [os.getcwd()])
        driver = self._spawn_jdb(["-attach", f"{host}:{request.port}"], None)
        try:
            match = driver.expect([], timeout)
        except PtyEOF as exc:
            raise OpFailed(f"jdb could not attach to {host}:{request.port}: "
                           f"{' '.join(exc.output.split())}",
                           "is the JVM running with -agentlib:jdwp=...,server=y?") from exc
        self._note_prompt(match)
        if match.groups and match.groups[0].startswith(">"):
            # "> " comes first either way; a VM that waits (suspend=y) then
            # says "VM Started" and shows a thread's prompt.
            try:
                self._note_prompt(driver.expect([], 1.0, prompt=STOPPED_PROMPT_RE))
            except PtyTimeout:
                self.set_state("running")
                return StopEvent(state="running")
        self._swallow_stray_prompt()
        self.set_state("stopped")
        return StopEvent(state="stopped", reason="attach", thread=self._thread or None)

    # -- talking to jdb ---------------------------------------------------------------

    def _drv(self) -> PtyDriver:
        if self.state() == "exited":
            raise TargetExited("the program has exited", "run it again with `dbg restart`")
        return self.drv()

    def _note_prompt(self, match: Match) -> None:
        prompt = match.groups[0] if match.groups else ""
        if prompt.endswith("] "):
            self._thread = prompt[:prompt.rindex("[")]
            self._frame = int(match.groups[1] or 1)
        self._scan(match.before)

    def _scan(self, text: str) -> None:
        """Notes jdb makes in passing: deferred breakpoints set or refused."""
        self.breaks.note_deferred(text)

    def current_location(self) -> Location | None:
        """Where the program last stopped (in the selected thread)."""
        return self._location

    def _read_vm_start(self, timeout: float) -> None:
        """Read jdb's greeting up to the stop of the VM it attached to: the
        prompt after "VM Started:". jdb's command loop prints a prompt of its
        own once, before it reads its first command, usually before that
        ("> "), late under load ("main[1] main[1] "): either way it comes
        before the answer to the first command, whose reader (``command``,
        a command that always says something) reads past an empty answer."""
        deadline = time.monotonic() + timeout
        seen = ""
        while "VM Started:" not in seen:
            match = self._drv().expect([], max(0.0, deadline - time.monotonic()),
                                       prompt=STOPPED_PROMPT_RE)
            prompt = match.groups[0] if match.groups else ""
            if prompt.startswith(_VM_STARTED):
                # The stopped thread's prompt on the same line, right after
                # it (under load): read as a prompt "VM Started: main[1] ".
                seen += _VM_STARTED
                match = replace(match, groups=(prompt[len(_VM_STARTED):], *match.groups[1:]))
            self._note_prompt(match)
            seen += match.before
        if _NO_FRAMES not in seen:
            # jdb's greeting ends "No frames on the current call stack" and
            # a prompt; under load the stopped thread's prompt may come
            # first ("VM Started: main[1] "), the greeting after it, which
            # the first command would then take for its answer.
            with contextlib.suppress(PtyTimeout):
                self._note_prompt(self._drv().expect(
                    [], min(_GREETING_WAIT, max(0.0, deadline - time.monotonic())),
                    prompt=STOPPED_PROMPT_RE))
        #: The late prompt may also come in one piece with that answer.
        self._late_prompt = re.compile(rf"\A(?:> |{re.escape(self._thread)}\[\d+\] )+")

    def _swallow_stray_prompt(self) -> None:
        """Right after the VM connects jdb sometimes prints its prompt twice;
        read a second one if it comes at once, so answers do not shift."""
        try:
            self._note_prompt(self.drv().expect([], 0.1))
        except PtyTimeout:
            pass

    def _read_prompt(self, timeout: float) -> str:
        """Read up to the prompt of a stopped thread (jdb may print a "> "
        of its own before it, e.g. while the VM connects)."""
        match = self._drv().expect([], timeout, prompt=STOPPED_PROMPT_RE)
        self._note_prompt(match)
        return match.before

    def command(self, line: str, timeout: float, silent: bool = False) -> str:
        """One command that does not move the program; its answer. jdb now
        and then prints a prompt twice; an empty answer to a command that
        always says something (not ``silent``) is that stray prompt, and
        the real answer follows."""
        bad = next((c for c in line if (ord(c) < 32 and c != "\t") or ord(c) == 127), None)
        if bad is not None:
            # jdb's expression parser dies on one (an Error in its command
            # thread) and never answers.
            raise UsageError(f"jdb cannot take control characters (found {bad!r})",
                             "write them as escapes, e.g. \\u001b in a string")
        if line.split(" ", 1)[0] not in _KEEP_STACK:
            self._frames = None
        try:
            match = self.exchange(line, timeout)
            if not silent and not match.before.strip():
                try:
                    match = self.drv().expect([], 1.0)
                except PtyTimeout:
                    pass  # it was the answer after all
        except PtyEOF as exc:
            self._terminal_closed(exc)
        self._note_prompt(match)
        answer = match.before
        if self._late_prompt is not None:
            answer = self._late_prompt.sub("", answer.lstrip("\r\n"))
            self._late_prompt = None
        return answer.replace("\r\n", "\n").strip("\n")

    def _two_commands(self, first: str, second: str, timeout: float) -> tuple[str, str]:
        """Two commands that do not move the program, typed together, and
        their answers: jdb reads them in turn, so the second is not held
        back until the first answer is read. The first must always say
        something: an empty answer to it is a stray prompt, read past as
        :meth:`command` does."""
        driver = self._drv()
        self.settle(timeout)
        deadline = time.monotonic() + timeout
        driver.send_line(first)
        driver.send_line(second)
        answers: list[str] = []
        try:
            while len(answers) < 2:
                try:
                    match = driver.expect([], max(0.0, deadline - time.monotonic()))
                except PtyTimeout as exc:
                    # The answers not read are owed: the next command reads them first.
                    driver.owed = 2 - len(answers)
                    raise DebuggerTimeout(
                        f"jdb did not answer {first!r} and {second!r} within {timeout:g}s",
                        "it may still be working: the next command waits for it first; "
                        "a larger --timeout gives it longer") from exc
                self._note_prompt(match)
                text = match.before
                if not answers:
                    # Both answers in one read: the first ends at the prompt
                    # the second follows on the same line.
                    joined = list(_JOINED_RE.finditer(text))
                    if joined:
                        answers.append(text[:joined[-1].start()])
                        text = text[joined[-1].end():]
                if answers or text.strip():
                    answers.append(text)
        except PtyEOF as exc:
            self._terminal_closed(exc)
        first_answer, second_answer = (a.replace("\r\n", "\n").strip("\n") for a in answers)
        return first_answer, second_answer

    def _terminal_closed(self, exc: PtyEOF) -> NoReturn:
        """jdb's terminal closed during a command: jdb died, or the program ended."""
        if self._jdb_died(exc.output):
            assert self.lost is not None
            raise self.lost from exc
        self._ended(exc.output)
        raise TargetExited("the program has exited", "run it again with `dbg restart`") from exc

    def _jdb_died(self, output: str) -> bool:
        """jdb's terminal closed. jdb ends by itself only after it said the
        application ended; killed (by a signal), or gone while the program
        still runs, it died under the session."""
        driver = self.drv()
        driver.wait_exit(1.0)
        child = driver.child
        killed = child is not None and bool(child.signalstatus)
        if not killed:
            if EXIT_RE.search(output):
                return False
            if self.jvm is not None:
                try:
                    self.jvm.wait(timeout=0.5)
                except subprocess.TimeoutExpired:
                    pass
                if self.jvm.poll() is not None:
                    return False
        self.debugger_lost(output, grace=0)
        return True

    def on_owed_answer(self, match: Match) -> None:
        self._note_prompt(match)

    def on_console_end(self, output: str) -> None:
        self._ended(output)

    # -- running -------------------------------------------------------------------------

    def _resume(self, command: str, timeout: float) -> StopEvent:
        driver = self._drv()
        if (driver.child is None or not driver.child.isalive()) and self._jdb_died(""):
            assert self.lost is not None
            raise self.lost
        self.settle(timeout)
        driver.send_line(command)
        self.set_state("running")
        return self._wait_event(timeout, timeout, resumed=True)

    def _wait_event(self, wait: float, timeout: float, resumed: bool = False) -> StopEvent:
        """Read up to jdb's next event (a stop, the program's end) for up to
        ``wait``; ``timeout`` bounds the commands sent about the stop."""
        driver = self._drv()
        deadline = time.monotonic() + wait
        try:
            match = None
            if resumed:
                # jdb answers a resuming command with "> " at once (the VM
                # runs), unless the event is already here: read past it, or
                # it would pass for the answer to the next command.
                match = driver.expect([EVENT_RE, EXIT_RE, SUSPENDED_RE], wait,
                                      prompt=RUNNING_PROMPT_RE)
                if match.index == 0:
                    match = None
            while match is None:
                match = driver.expect([EVENT_RE, EXIT_RE, SUSPENDED_RE],
                                      max(0.0, deadline - time.monotonic()),
                                      prompt=STOPPED_PROMPT_RE)
                if match.index == 0 and not match.before.strip("\r\n> "):
                    # A thread's prompt with nothing before it while the
                    # program runs: jdb's event thread printing late (seen
                    # under load: "> " and "main[1] " right after `cont`,
                    # then the breakpoint). A command that did not run says
                    # why.
                    match = None
        except PtyTimeout:
            return StopEvent(state="running")
        except PtyEOF as exc:
            if self._jdb_died(exc.output):
                assert self.lost is not None
                raise self.lost from exc
            return self._ended(exc.output)
        self._scan(match.before)
        if match.index == 2:
            return self._ended(match.before)
        if match.index == 3:
            # A second client's `dbg pause` (interrupt) typed `suspend`.
            self._note_prompt(driver.expect([], wait))
            self.set_state("stopped")
            return self._suspended(timeout)
        if match.index == 0:
            # A prompt with no event: the command did not run (jdb said why).
            self._note_prompt(match)
            self.set_state("stopped")
            answer = " ".join(match.before.split()).lstrip("> ").strip()
            raise OpFailed(f"jdb: {answer or 'the command did nothing'}")
        self._read_prompt(wait)
        self.set_state("stopped")
        return self._stop_event(match.named, timeout)

    def _stop_event(self, event: dict[str, str], timeout: float) -> StopEvent:
        kind = event["kind"]
        where = event["where"]  # "Main.square()"
        line = int(re.sub(r"[,.]", "", event["line"]))
        function = where[:-2] if where.endswith("()") else where
        location = Location(self.breaks.file_of(function.rsplit(".", 1)[0]), line, function)
        self._location = location
        description, reason, hit = "", "step", []
        if kind == "Breakpoint hit":
            reason = "breakpoint"
            hit = [bp for bp in self.breaks.table.values() if bp.kind != "watch"
                   and self.breaks.matches(bp, function, location)]
        elif kind.startswith("Field"):
            reason = "watchpoint"
            hit = [bp for bp in self.breaks.table.values() if bp.kind == "watch"
                   and bp.native == event["field"]]
            description = f"{event['field']}: {event['old']} -> {event['new']}"
        elif kind.startswith("Method exited"):
            reason = "return"
        elif kind.startswith("Exception"):
            reason = "exception"
            description = f"{event['exc']} ({event['caught']})"
        for bp in hit:
            bp.hits += 1
        user = [bp for bp in hit if not bp.internal]
        if hit and not user:
            reason = "until" if any(bp.until for bp in hit) else "breakpoint"
        for bp in hit:
            if bp.temporary and not bp.internal:
                self.breaks.discard(bp.id, timeout)
        self._last_reason = reason
        if reason == "exception":
            self._last_exception = event["exc"]
        returned = event.get("ret") or None
        return StopEvent(state="stopped", reason=reason, location=location,
                         return_value=ReturnValue(returned) if returned is not None else None,
                         thread=self._thread or None, description=description,
                         hit_breakpoints=[bp.id for bp in user])

    def _ended(self, text: str) -> StopEvent:
        self._scan(text)
        self.set_state("exited")
        if self.jvm is not None:
            try:
                self._exit_code = self.jvm.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._exit_code = None
        if self.driver is not None:
            # jdb takes a third of a second more to exit on its own; what it
            # still prints is not needed (what has come is read, without a
            # wait), and the session's end reaps it.
            self.driver.wait_exit(0.0 if self.jvm is not None else 2.0)
        if self.pump is not None:
            self.pump.drain()
        return ended(self._exit_code)

    def wait_stop(self, wait: float, timeout: float) -> StopEvent:
        return self._wait_event(wait, timeout)

    def cont(self, timeout: float) -> StopEvent:
        self.require_stopped("continue", timeout)
        return self._resume("cont", timeout)

    def step(self, timeout: float) -> StopEvent:
        self.require_stopped("step", timeout)
        return self._resume(self._line_step("step"), timeout)

    def next(self, timeout: float) -> StopEvent:
        self.require_stopped("next", timeout)
        return self._resume(self._line_step("next"), timeout)

    def _line_step(self, command: str) -> str:
        # Stopped in a native method (a pause in Thread.sleep), a line step
        # never completes: the JVM steps by lines and the frame has none.
        # Going back to the caller is the next line there is.
        native = self._location is not None and self._location.line is None
        return "step up" if native else command

    def finish(self, timeout: float) -> StopEvent:
        # jdb's `step up` says nothing of the value; a method-exit trace
        # does ("Method exited: return value = ..."): stop at the selected
        # method's exit first, then step out to the caller.
        self.require_stopped("finish", timeout)
        for _ in range(self._frame - 1):  # the frames above the selected one
            event = self._resume("step up", timeout)
            if event.state != "stopped" or event.reason != "step":
                return event
        self.command("trace method exit", timeout, silent=True)
        try:
            event = self._resume("cont", timeout)
        finally:
            if self.state() == "stopped":
                self.command("untrace", timeout, silent=True)
        if event.state != "stopped" or event.reason != "return":
            return event  # stopped by something else first
        after = self._resume("step up", timeout)
        after.return_value = event.return_value
        return after

    def until(self, loc: BreakLoc | None, timeout: float) -> StopEvent:
        self.require_stopped("until", timeout)
        if loc is None:
            return self.next(timeout)
        if loc.file is None and loc.function is None and self._location is not None:
            loc = BreakLoc(file=self._location.file, line=loc.line)
        bp = self.breaks.add(loc, timeout, internal=True, temporary=True, strict=True)
        self.breaks.table[bp].until = True
        try:
            return self._resume("cont", timeout)
        finally:
            if self.state() != "exited":
                self.breaks.discard(bp, timeout)

    def pause(self, timeout: float) -> StopEvent:
        if self.state() == "stopped":
            return StopEvent(state="stopped", reason="pause", location=self._location,
                             thread=self._thread or None)
        driver = self._drv()
        driver.send_line("suspend")
        match = driver.expect([], timeout)
        self._note_prompt(match)
        self.set_state("stopped")
        return self._suspended(timeout)

    def interrupt(self) -> None:
        # From a second client's thread while an op waits in _wait_event,
        # which reads jdb's answer to this (SUSPENDED_RE) as the stop.
        if self.state() == "running" and self.driver is not None:
            self.driver.send_line("suspend")

    def _suspended(self, timeout: float) -> StopEvent:
        """The stop of a VM that `suspend` stopped."""
        # A suspended VM has no current thread: choose the one dbg stopped last
        # in, else main.
        wanted = self._thread or "main"
        for thread in self.threads(timeout):
            if thread.name == wanted:
                self.select_thread(thread.id, timeout)
                break
        frames = self.stack(1, timeout)
        top = frames[0] if frames else None
        self._location = Location(top.file, top.line, top.function) if top else None
        return StopEvent(state="stopped", reason="pause", location=self._location,
                         thread=self._thread or None)

    # -- breakpoints (kept by JdbBreakpoints) --------------------------------------------

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        return self.breaks.set_breakpoint(loc, options, timeout)

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        self.breaks.remove_breakpoint(bp_id, timeout)

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        return self.breaks.list_breakpoints()

    def watch(self, expression: str, timeout: float) -> Breakpoint:
        return self.breaks.watch(expression, timeout)

    def catch(self, filters: list[str], timeout: float) -> list[str]:
        return self.breaks.catch(filters, timeout)

    # -- inspection -------------------------------------------------------------------------

    def set_state(self, state: StopState) -> None:
        self._frames = None
        super().set_state(state)

    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        self.require_stopped("stack", timeout)
        if self._frames is None:
            self._frames = self._where(timeout)
        frames = [replace(f) for f in self._frames]
        return frames[:levels] if levels else frames

    def _where(self, timeout: float) -> list[Frame]:
        selected = self._frame
        if selected > 1:
            # jdb lists the stack from the selected frame on: list it from the
            # top, then select the frame again.
            self.command(f"down {selected - 1}", timeout, silent=True)
            try:
                listing = self.command("where", timeout)
            finally:
                self.command(f"up {selected - 1}", timeout, silent=True)
        else:
            listing = self.command("where", timeout)
        return self._frames_of(listing, selected)

    def _frames_of(self, listing: str, selected: int) -> list[Frame]:
        """The frames of a `where` listing from the top frame."""
        frames = []
        for number, function, file_name, line in WHERE_RE.findall(listing):
            index = int(number) - 1
            owner = function.rsplit(".", 1)[0]
            file = self.breaks.file_of(owner) if file_name.endswith(".java") else None
            package = java_library(function)
            frames.append(Frame(index, function, file,
                                int(re.sub(r"[,.]", "", line)) if line else None,
                                index == selected - 1, library=package is not None,
                                library_name=package or None))
        return frames

    def frame_args(self, frames: list[Frame], timeout: float) -> None:
        # jdb's `locals` lists the selected frame's arguments apart from its
        # locals: two commands a frame (select it, `locals`), and one to
        # select the user's frame again.
        self.require_stopped("stack", timeout)
        selected = at = self._frame - 1
        try:
            for frame in sorted((f for f in frames if f.args is None), key=lambda f: f.index):
                if frame.index != at:
                    move = frame.index - at
                    self.command(f"{'up' if move > 0 else 'down'} {abs(move)}", timeout,
                                 silent=True)
                    at = frame.index
                rows = method_arguments(self.command("locals", timeout))
                frame.args = None if rows is None else [Variable(n, v, None) for n, v in rows]
        finally:
            if at != selected:
                move = selected - at
                self.command(f"{'up' if move > 0 else 'down'} {abs(move)}", timeout, silent=True)

    def select_frame(self, index: int, timeout: float) -> Frame:
        frames = self.stack(None, timeout)
        if index < 0 or index >= len(frames):
            raise OpFailed(f"no frame {index}: the stack has {len(frames)} frames",
                           "see `dbg stack`")
        move = index - (self._frame - 1)
        if move:
            self.command(f"{'up' if move > 0 else 'down'} {abs(move)}", timeout, silent=True)
        chosen = frames[index]
        chosen.current = True
        return chosen

    def locals(self, timeout: float) -> list[Variable]:
        self.require_stopped("locals", timeout)
        if self._frames is None and self._frame == 1 and self._late_prompt is None \
                and self._location is not None:
            # At a stop jdb reported (so the thread has frames), the snapshot
            # asks for the stack next: `where` goes with `locals`, and jdb
            # answers both in one round trip.
            answer, listing = self._two_commands("locals", "where", timeout)
            self._frames = self._frames_of(listing, 1)
        else:
            answer = self.command("locals", timeout)
        if "information not available" in answer:
            raise OpFailed("jdb has no local variable information here",
                           "compile with javac -g (dbg does so for a .java file)")
        out = []
        for line in answer.splitlines():
            name, eq, value = line.partition(" = ")
            if eq and name.strip() and " " not in name.strip():
                out.append(Variable(name.strip(), value.strip(), None))
        return out

    def evaluate(self, expression: str, timeout: float) -> Value:
        self.require_stopped("print", timeout)
        if any(c in expression for c in "\r\n"):
            raise UsageError("an expression must be one line")
        answer = self.command(f"print {expression}", timeout)
        prefix = f"{expression} = "
        text = answer.strip()
        if text.startswith(prefix):
            return Value(text[len(prefix):], None)
        raise OpFailed(f"cannot evaluate {expression}: {jdb_error(text)[5:]}")

    def set_variable(self, lhs: str, value: str, timeout: float) -> Value:
        self.require_stopped("set", timeout)
        if not _JAVA_LVALUE_RE.fullmatch(lhs.strip()):
            # jdb "sets" `r.cap + 1 = 2` by printing r.cap + 1, and changes nothing.
            raise OpFailed(f"cannot set {lhs}: it is not a variable, a field or an array "
                           "element", "give something `dbg print` shows, e.g. r.cap or a[2]")
        answer = self.command(f"set {lhs} = {value}", timeout).strip()
        if not answer.startswith(f"{lhs} = "):
            raise OpFailed(f"cannot set {lhs}: {_set_error(answer)}", "nothing was changed")
        return self.evaluate(lhs, timeout)

    def threads(self, timeout: float) -> list[Thread]:
        self.require_stopped("threads", timeout)
        out = []
        for _, ident, rest in THREAD_RE.findall(self.command("threads", timeout)):
            name = THREAD_STATUS_RE.sub("", rest.strip()).strip()
            out.append(Thread(ident, name, name == self._thread))
        return out

    def select_thread(self, thread_id: int | str, timeout: float) -> Thread:
        listed = {str(t.id): t for t in self.threads(timeout)}
        thread = listed.get(str(thread_id))
        if thread is None:
            raise OpFailed(f"no thread {thread_id}", "see `dbg threads`")
        answer = self.command(f"thread {thread.id}", timeout, silent=True)
        if answer.strip():
            raise OpFailed(jdb_error(answer))
        self._thread = thread.name
        thread.current = True
        return thread

    def op_exception(self, args: JsonObject, timeout: float) -> JsonObject:
        """The exception the program stopped at: its class (jdb cannot show
        its message) and the stack, outermost first."""
        self.require_stopped("exception", timeout)
        if self._last_reason != "exception":
            raise OpFailed("the program did not stop at an exception",
                           "`dbg stack` shows where it is")
        frames = self.stack(None, timeout)
        return {"exception": self._last_exception, "description": "",
                "stack": "\n".join(f'  File "{f.file or "?"}", line {f.line or "?"}, '
                                   f"in {f.function or '?'}" for f in reversed(frames))}

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        words = " ".join(text.split())
        if words in RESUMING or words.split(" ")[0] in ("cont", "run", "step", "next"):
            self.require_stopped(words, timeout)
            return "", self._resume(words, timeout)
        if words.split(" ")[0] in ("quit", "exit"):
            raise UsageError("end the session with `dbg kill`")
        quiet = words.split(" ")[0] in SILENT
        return self.command(text, timeout, silent=quiet), None


#: A stopped thread's prompt with a `where` listing after it on the same
#: line ("main[1]   [1] Main.run (Main.java:8)"): two answers read at once.
_JOINED_RE = re.compile(r"\r?\n[^\s\[\]>][^\r\n\[\]]*\[\d+\] (?= *\[\d+\] \S)")

#: jdb commands that leave the stack and the selected frame as they were.
#: The last line of jdb's greeting once the VM it started is stopped, and
#: how long it may come after the stopped thread's prompt.
_NO_FRAMES = "No frames on the current call stack"
_VM_STARTED = "VM Started: "
_GREETING_WAIT = 2.0

_KEEP_STACK = frozenset({"where", "locals", "print", "dump", "eval", "threads"})

#: What `set` can assign: a name, then fields and array elements.
_JAVA_LVALUE_RE = re.compile(r"[A-Za-z_$][\w$]*(?:\s*(?:\.\s*[A-Za-z_$][\w$]*|\[[^\]]+\]))*")


def _set_error(answer: str) -> str:
    """jdb's reason a `set` failed, without the class names of its parser's
    exceptions: "Attempt to set value of incorrect type: Can't assign...".
    """
    text = jdb_error(answer).removeprefix("jdb: ")
    text = re.sub(r"^com\.sun\.tools\.example\.debug\.expr\.ParseException: ", "", text)
    return re.sub(r"\s*com\.sun\.jdi\.\w+: ", ": ", text)
