"""A base for backends that drive a console debugger over a PTY (pdb, jdb...).

It holds what such backends share, above :class:`dbgcore.transport.ptydriver.PtyDriver`:
the debugger process and the program's output pump, the running / stopped /
exited state, one command at a time with an answer a timed-out command still
owes read before the next one, refusing ops while the program runs, waiting
for a stop in the background (``poll``), interrupting with SIGINT, and ending
everything it started. A plugin for another console debugger subclasses it,
starts its debugger with :meth:`start_console`, and implements
:meth:`wait_stop` (read until the debugger says the program stopped or
ended) plus the ops it supports (each op's timeout passed down to every
command it sends), translating them into the debugger's own
commands and parsing the answers; nothing debugger-specific lives here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dbgcore.backends.contract import Backend, BackendSpec, SessionContext
from dbgcore.shared import procutil
from dbgcore.shared.errors import DebuggerLost, DebuggerTimeout, NotStopped, TargetExited
from dbgcore.shared.timeouts import DEFAULT_TIMEOUT
from dbgcore.transport.ptydriver import Match, PtyDriver, PtyEOF, PtyTimeout
from dbgcore.transport.streams import OutputPump
from dbgcore.vocab.model import StopEvent, StopState, ended, signal_name


class ConsoleBackend(Backend):
    #: Patterns that end a command's answer early (besides the prompt), e.g.
    #: "the program exited"; the match is passed to :meth:`on_owed_answer`
    #: when it ends an answer a timed-out command still owed.
    end_patterns: Sequence[re.Pattern[str]] = ()
    #: The debugger runs inside the program's own process (pdb, perl -d):
    #: the program's death is the debugger's, and is told as the program's.
    runs_in_program: bool = False

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self.driver: PtyDriver | None = None
        self.pump: OutputPump | None = None
        self._state: StopState = "running"
        #: Process groups of programs the backend started besides the debugger.
        self.child_groups: list[int] = []
        self.child_pids: list[int] = []

    # -- the debugger -------------------------------------------------------------

    def start_console(self, argv: Sequence[str], prompt: str | re.Pattern[str],
                      env: dict[str, str] | None = None, cwd: str | None = None,
                      early: bool = False) -> PtyDriver:
        """Spawn the debugger in a terminal. ``early``: ``argv`` starts it
        waiting for what the backend sends it first (its run's details), so
        a daemon forked for a start may have spawned it already, while it
        imported (the session's :attr:`SessionContext.early`); a process
        spawned with the same argv, environment and folder is taken then."""
        driver = PtyDriver(argv, prompt, self.ctx.log, env=env, cwd=cwd, name=self.tool_name)
        if early:
            driver.spawn(self.ctx.early)
        else:
            driver.spawn()
        self.ctx.track_process(driver.pid, self.tool_name)
        self.driver = driver
        return driver

    def output_pump(self, prefix: str) -> OutputPump:
        """FIFOs for the program's stdout and stderr, apart from the debugger's
        terminal (``pump.paths["stdout"]``...), drained into ``dbg output``."""
        self.pump = OutputPump(self.ctx.run_dir, prefix, self.ctx.output)
        return self.pump

    def track_child(self, pid: int, role: str = "debuggee") -> None:
        """A process the backend started itself (not the debugger): ended
        with its process group when the session ends."""
        self.ctx.track_process(pid, role)
        self.child_pids.append(pid)
        group = procutil.pgid_of(pid)
        if group is not None:
            self.child_groups.append(group)

    def drv(self) -> PtyDriver:
        if self.driver is None:
            raise TargetExited(f"{self.tool_name} is not running")
        return self.driver

    def debugger_lost(self, output: str, grace: float = 1.0) -> DebuggerLost:
        """The debugger's terminal closed under the session: reap it, say how it
        ended (a signal, an exit code), and mark the session's debugger lost."""
        driver = self.drv()
        pid = driver.pid
        driver.wait_exit(grace)
        status = driver.returncode
        how = "died"
        if status is not None and status < 0:
            how = f"was killed by {signal_name(-status)}"
        elif status is not None:
            how = f"exited with code {status}"
        self.lost = DebuggerLost(self.tool_name, pid, output[-500:], how)
        self._state = "debugger_lost"
        return self.lost

    def program_pids(self) -> list[int]:
        """The debugger's process where it runs inside the program, and the
        processes the backend started for the program (:meth:`track_child`)."""
        inside = [self.driver.pid] if self.runs_in_program and self.driver is not None else []
        return inside + list(self.child_pids)

    def ended_unseen(self, timeout: float) -> StopEvent | None:
        end = super().ended_unseen(timeout)
        # A program killed by a signal died first, whatever became of its
        # debugger since (jdb leaves when its VM is gone). Else, with a
        # debugger of its own process gone too, the debugger died first and
        # took the program with it (a JVM ends, code 0, when the jdb it
        # serves dies): that is the debugger's death, which the next command
        # tells, not the program's end.
        if end is None or end.signal is not None or self.runs_in_program \
                or self.driver is None or self.driver.alive():
            return end
        return None

    # -- state ------------------------------------------------------------------------

    def state(self) -> StopState:
        return self._state

    def set_state(self, state: StopState) -> None:
        """Record what the backend has learnt of the program: "running" once
        a command let it run (so that a second client's `dbg pause`
        interrupts it), "stopped" at a stop, "exited" at its end."""
        self._state = state

    def wait_stop(self, wait: float, timeout: float) -> StopEvent:
        """Read until the debugger reports a stop or the program's end, for up
        to ``wait`` seconds; a StopEvent with state "running" if neither came
        in time. ``timeout`` bounds each command the backend sends the
        debugger about the stop it read (the stack, the breakpoints)."""
        raise NotImplementedError

    def poll(self, timeout: float) -> StopEvent | None:
        if self._state != "running":
            return None
        # poll(0) (a look whether the program stopped meanwhile) waits for
        # nothing, but a stop it finds may still need the debugger's answers.
        event = self.wait_stop(timeout, timeout if timeout > 0 else DEFAULT_TIMEOUT)
        return None if event.state == "running" else event

    def require_stopped(self, what: str, timeout: float) -> None:
        """Refuse an op while the program runs or after it ended; first read
        any answer an earlier, timed-out command still owes (waiting up to
        ``timeout`` for it)."""
        if self._state == "running":
            raise NotStopped(f"{self.tool_name} cannot take {what!r} while the program runs",
                             "`dbg pause` interrupts it; `dbg wait` waits for the next stop")
        if self._state == "exited":
            raise TargetExited("the program has exited", "run it again with `dbg restart`")
        self.settle(timeout)

    # -- one command at a time ----------------------------------------------------------

    def exchange(self, line: str, timeout: float) -> Match:
        """Send one command line; the answer up to the prompt. A timeout
        leaves the answer owed, and the next command reads it first."""
        driver = self.drv()
        self.settle(timeout)
        try:
            return driver.exchange(line, timeout)
        except PtyTimeout as exc:
            raise DebuggerTimeout(
                f"{self.tool_name} did not answer within {timeout:g}s",
                "it may still be working: the next command waits for it first; "
                "a larger --timeout gives it longer") from exc

    def command(self, line: str, timeout: float) -> str:
        return self.exchange(line, timeout).before

    def settle(self, timeout: float) -> None:
        """Read the answer a timed-out command still owes (waiting up to
        ``timeout`` for it), so that the next answer read is the next
        command's own."""
        if self.driver is None:
            return
        try:
            match = self.driver.settle(self.end_patterns, timeout)
        except PtyTimeout as exc:
            raise DebuggerTimeout(f"{self.tool_name} is still busy with an earlier command",
                                  "wait and try again, or end the session with `dbg kill`") \
                from exc
        except PtyEOF as exc:
            self.on_console_end(exc.output)
            raise TargetExited(f"{self.tool_name} ended while it was busy with an earlier "
                               "command", "run the program again with `dbg restart`") from exc
        if match is not None:
            self.on_owed_answer(match)

    def console_ended(self, code: int | None = None) -> StopEvent:
        """The debugger's terminal closed with the program's end: reap the
        debugger, take the program's last output, and say how it ended:
        ``code`` when the debugger reported it, else the debugger process's
        own status (for a debugger that is the program's process, or that
        went away without a word)."""
        driver = self.drv()
        driver.wait_exit(2.0)
        if self.pump is not None:
            self.pump.drain()
        self._state = "exited"
        return ended(code if code is not None else driver.returncode)

    def on_owed_answer(self, match: Match) -> None:
        """A late answer has been read (see :attr:`end_patterns`)."""

    def on_console_end(self, output: str) -> None:
        """The debugger's terminal closed; the default marks the program ended."""
        self._state = "exited"

    def interrupt_and_wait(self, timeout: float) -> StopEvent:
        """Stop a running program with SIGINT to the debugger, and read up to
        the stop it reports."""
        if self._state != "running":
            raise NotStopped("the program is not running", "")
        self.drv().interrupt()
        return self.wait_stop(timeout, timeout)

    def interrupt(self) -> None:
        """SIGINT to the debugger (safe from any thread); the op waiting for
        the program reads the stop it reports."""
        if self._state == "running" and self.driver is not None:
            self.driver.interrupt()

    # -- the end --------------------------------------------------------------------------

    def terminate(self) -> None:
        grace = self.ctx.shutdown_grace
        if self.driver is not None:
            # Stopped, the debugger sits at its prompt, where SIGINT does nothing.
            self.driver.close(grace=grace, at_prompt=self._state == "stopped")
        if self.child_groups or self.child_pids:
            procutil.terminate_groups(set(self.child_groups), grace=grace, reap=self.child_pids)
        if self.pump is not None:
            self.pump.close()
        self._state = "exited"
