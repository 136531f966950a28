"""The jdb backend: Java's own debugger, driven through a PTY.

dbg starts the program's JVM with ``-agentlib:jdwp=server=n,suspend=y``
connecting to dbg, then ``jdb -attach`` connecting to dbg too. So the
program's stdout and stderr are the JVM's own, carried by an OutputPump, and
never mix with jdb's answers on the terminal; and the exit code is the JVM's.
``dbg attach --port`` runs ``jdb -attach`` to the user's JVM instead.
Neither end of JDWP listens where others could connect: both dial dbg,
which checks who dialed (in /proc) and relays between them (see launch).

The backend is four layers, one module each, each adding what it does:
the conversation with jdb (:mod:`dbg_jdb.conversation`), inspection
(:mod:`dbg_jdb.inspection`), running (:mod:`dbg_jdb.running`), and here
availability, starting, the breakpoint ops (kept by
:class:`dbg_jdb.breaks.JdbBreakpoints`) and `dbg raw`.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path
from typing import ClassVar

from dbg_jdb import jstack
from dbg_jdb.jdwp import JdwpRelay
from dbg_jdb.parse import (
    PROMPT_RE,
    RESUMING,
    SILENT,
    STOPPED_PROMPT_RE,
    jdb_version,
)
from dbg_jdb.program import JavaProgram, java_build_command, prepare
from dbg_jdb.running import JdbRunning
from dbgcore.api import (
    AttachRequest,
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    LaunchRequest,
    NotAProgram,
    OpFailed,
    PtyDriver,
    PtyEOF,
    PtyTimeout,
    Readiness,
    StopEvent,
    Support,
    ThreadStack,
    UsageError,
    peers,
    procutil,
)


class JdbBackend(JdbRunning):
    id = "jdb"
    tool = "jdb"
    stacks_tool = "jstack"
    reads_stdin = True
    unsupported_hints: ClassVar[dict[str, str]] = {}
    features: ClassVar[dict[str, Support]] = {"return-value": "native", "pending": "native"}
    #: Where an uncaught exception would end the program: dbg stops there.
    UNCAUGHT = "uncaught java.lang.Throwable"

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
        if program.suffix.lower() == ".kt":
            raise NotAProgram(f"{program.name} is a Kotlin source file, not a program",
                              f"compile it first: kotlinc {program.name} -d "
                              f"{program.stem}.jar; then: dbg start {program.stem}.jar")
        if program.suffix.lower() not in (".java", ".class", ".jar"):
            raise NotAProgram(f"{program} is not a Java program (.java, .class or .jar)",
                              "give a .java file, a .class file, a .jar, or -cp DIR MainClass")

    @classmethod
    def build_command(cls, spec: BackendSpec, program: Path,
                      out: Path) -> tuple[list[str], Path] | None:
        return java_build_command(program, out)

    # -- starting ----------------------------------------------------------------

    def _spawn_jdb(self, argv: list[str], cwd: str | None) -> PtyDriver:
        exe = shutil.which(self.spec.command[0] if self.spec.command else "jdb") or "jdb"
        self._version = jdb_version(exe)
        roots = self.program.source_roots if self.program else []
        sourcepath = ["-sourcepath", os.pathsep.join(roots)] if roots else []
        return self.start_console([exe, *argv, *sourcepath], PROMPT_RE, cwd=cwd)

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        self._cwd = request.cwd
        self.program = prepare(request.program, request.options.get("classpath"),
                               self.ctx.run_dir / "classes", timeout, request.cwd,
                               request.built_from)
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
        self.jdwp = JdwpRelay(vm, conn)
        self.jdwp.start()
        self._read_vm_start(timeout)
        # Stop at entry: a breakpoint on main, ours, gone once it is hit; by
        # its arguments, since Kotlin's `fun main()` has a main() beside the
        # main(String[]) the JVM calls.
        main = f"{self.program.main_class}.main(java.lang.String[])"
        entry = self.breaks.add(BreakLoc(function=main), timeout, internal=True, temporary=True)
        event = self._resume("cont", timeout)
        if event.state == "stopped" and event.location is not None \
                and (event.location.line or 0) < 1:
            # Kotlin's main(String[]) is a bridge without lines to its main():
            # the program's first line is a step away.
            event = self._resume("step", timeout)
            event.reason, event.hit_breakpoints = "breakpoint", []
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

    # -- breakpoints (kept by JdbBreakpoints) --------------------------------------------

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        return self.breaks.set_breakpoint(loc, options, timeout)

    def set_breakpoints(self, locs: list[BreakLoc], timeout: float,
                        options: list[BreakOptions] | None = None
                        ) -> list[Breakpoint | Exception]:
        return self.breaks.set_breakpoints(locs, timeout, options)

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        self.breaks.remove_breakpoint(bp_id, timeout)

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        return self.breaks.list_breakpoints()

    def watch(self, expression: str, timeout: float) -> Breakpoint:
        return self.breaks.watch(expression, timeout)

    def catch(self, filters: list[str], timeout: float) -> list[str]:
        return self.breaks.catch(filters, timeout)

    def thread_stacks(self, with_locals: bool, timeout: float) -> list[ThreadStack]:
        """Every Java thread's stack while the program runs, read by jstack
        from the JVM dbg started (no stop; at a stop dbg walks jdb's own
        threads and stacks). An attached JVM's process is not dbg's to know."""
        if self.jvm is None or self.jvm.poll() is not None:
            raise self.unsupported("stacks", "jstack reads the stacks of a JVM dbg started; "
                                   "of an attached one: `dbg pause`, then `dbg stacks`")
        return jstack.parse(jstack.dump(self.jvm.pid, timeout), self.breaks.file_of)

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        words = " ".join(text.split())
        if words in RESUMING or words.split(" ")[0] in ("cont", "run", "step", "next"):
            self.require_stopped(words, timeout)
            return "", self._resume(words, timeout)
        if words.split(" ")[0] in ("quit", "exit"):
            raise UsageError("end the session with `dbg kill`")
        quiet = words.split(" ")[0] in SILENT
        answer = self.command(text, timeout, silent=quiet)
        if words.startswith("sourcepath ") and self.program is not None:
            # The user's own source path (jdb's command): dbg's files of
            # frames and breakpoints are found there too, relative paths
            # from the folder jdb runs in.
            base = Path(self._cwd or os.getcwd())
            self.program.source_roots = [str(base / p) for p in
                                         words.split(" ", 1)[1].split(os.pathsep) if p]
        return answer, None


