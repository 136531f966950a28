"""Driving a console debugger through a pseudo-terminal (pexpect).

:class:`PtyDriver` spawns the debugger with a clean terminal environment,
sends one command line at a time, and reads until the prompt or one of the
plugin's own patterns, with ``EOF`` and ``TIMEOUT`` always in the expect list
and turned into typed errors. It never edits the text it returns except to
strip ANSI escape sequences. Translating ops into native commands and parsing
answers stays in each plugin.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pexpect
from ptyprocess import PtyProcess

from dbgcore.shared import procutil
from dbgcore.shared.errors import BackendError, DebuggerStopped, DebuggerTimeout, UsageError
from dbgcore.transport.early import CONSOLE_DIMENSIONS
from dbgcore.transport.translog import TransLog

if TYPE_CHECKING:
    from dbgcore.transport.early import EarlyProcesses

ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[@-Z\\-_]")

#: Environment every PTY debugger starts with, over the caller's environment.
CLEAN_TERMINAL = {
    "TERM": "dumb",
    "NO_COLOR": "1",
    "PAGER": "cat",
    "PYTHON_BASIC_REPL": "1",
    "PYTHONIOENCODING": "utf-8",
    "COLUMNS": "4000",
    "LINES": "50",
}


class PtyEOF(BackendError):
    """The debugger closed its terminal (it exited or crashed)."""

    def __init__(self, message: str, output: str = "", hint: str = "") -> None:
        super().__init__(message, hint)
        self.output = output


class PtyTimeout(DebuggerTimeout):
    """Nothing we expected arrived in time; ``output`` holds what did."""

    def __init__(self, message: str, output: str = "", hint: str = "") -> None:
        super().__init__(message, hint)
        self.output = output


@dataclass
class Match:
    index: int  # which pattern matched (0 is the prompt)
    before: str  # text before the match, ANSI stripped
    groups: tuple[str, ...]
    #: The pattern's named groups, by name.
    named: dict[str, str] = field(default_factory=dict)


def strip_ansi(text: str) -> str:
    return ANSI_RE.sub("", text)


#: The longest command line sent to a debugger's terminal: Linux keeps 4,096
#: bytes of a line being typed, newline included, and drops the rest.
MAX_LINE_BYTES = 4000


class _Adopted(pexpect.spawn):  # type: ignore[misc]  # (pexpect has no types)
    """pexpect's spawn around a process started already in its terminal
    (handed in: dbgcore.transport.early), in place of the one pexpect would start."""

    def __init__(self, process: PtyProcess, *args: Any, **kwargs: Any) -> None:
        self._process = process
        super().__init__(*args, **kwargs)

    def _spawnpty(self, args: list[bytes], **kwargs: Any) -> PtyProcess:
        return self._process


class PtyDriver:
    def __init__(self, argv: Sequence[str], prompt: str | re.Pattern[str], log: TransLog,
                 env: dict[str, str] | None = None, cwd: str | None = None,
                 name: str = "debugger") -> None:
        self.argv = list(argv)
        self.prompt = prompt if isinstance(prompt, re.Pattern) else re.compile(re.escape(prompt))
        self.log = log
        self.env = {**os.environ, **(env or {}), **CLEAN_TERMINAL}
        self.cwd = cwd
        self.name = name
        self.child: pexpect.spawn | None = None
        self.pgid: int | None = None
        #: Prompts still owed: the answers of commands that timed out (or were
        #: typed together and not all read), read by :meth:`settle` first.
        self.owed = 0

    @property
    def owes_prompt(self) -> bool:
        return self.owed > 0

    @property
    def pid(self) -> int:
        return int(self.child.pid) if self.child is not None else 0

    def spawn(self, early: EarlyProcesses | None = None) -> None:
        """Start the debugger; ``early``: where to take the process a daemon
        forked for this start spawned already with the same argv,
        environment and folder, if there is one."""
        adopted = early.adopt_console(self.argv, self.env, self.cwd) \
            if early is not None else None
        self.log.note(("adopted " if adopted is not None else "spawn ") + " ".join(self.argv))
        parent = os.getpid()
        try:
            if adopted is not None:
                self.child = _Adopted(
                    adopted, self.argv[0], self.argv[1:], env=self.env, cwd=self.cwd,
                    echo=False, encoding="utf-8", codec_errors="replace", timeout=None)
            else:
                self.child = pexpect.spawn(
                    self.argv[0], self.argv[1:], env=self.env, cwd=self.cwd, echo=False,
                    encoding="utf-8", codec_errors="replace",
                    dimensions=CONSOLE_DIMENSIONS,
                    preexec_fn=procutil.death_pact(), timeout=None,
                )
        except (pexpect.ExceptionPexpect, OSError) as exc:
            if os.getpid() != parent:
                # ptyprocess lets an error before its exec (a chdir) rise in
                # the forked child: it must not go on as the daemon.
                os._exit(1)
            raise BackendError(f"cannot start {self.name}: {exc}") from exc
        # pexpect sleeps 50 ms before every send by default, for terminals
        # that drop input typed before they echo it off; our debuggers read a
        # line at a time with echo off, and a `next` is several lines.
        self.child.delaybeforesend = None
        # And it sleeps 0.1 ms after every read while it waits for a match;
        # on a busy machine that sleep gives the CPU away for a whole
        # scheduler slice, several times per `next`.
        self.child.delayafterread = None
        self.pgid = procutil.pgid_of(self.child.pid)

    def _spawned(self) -> pexpect.spawn:
        """The debugger's process (PtyEOF before :meth:`spawn`)."""
        if self.child is None:
            raise PtyEOF(f"{self.name} is not running")
        return self.child

    def alive(self) -> bool:
        return self.child is not None and bool(self.child.isalive())

    def send_line(self, text: str) -> None:
        if any(c in text for c in "\r\n\0"):
            # One line is one command: a newline would smuggle in a second one.
            raise UsageError("a command for the debugger must be a single line")
        size = len(text.encode("utf-8", "surrogateescape"))
        if size > MAX_LINE_BYTES:
            # The terminal's line discipline would cut it, and the debugger
            # would run (or choke on) the first part.
            raise UsageError(f"{self.name} reads commands as terminal lines of at most "
                             f"{MAX_LINE_BYTES:,} bytes; this one is {size:,}",
                             "shorten it (a helper function in the program can hold "
                             "long logic)")
        if not self.alive():
            raise PtyEOF(f"{self.name} is not running")
        self.log.sent(text)
        self._spawned().sendline(text)

    def expect(self, patterns: Sequence[re.Pattern[str]], timeout: float,
               prompt: re.Pattern[str] | None = None) -> Match:
        """Read until the prompt (index 0) or one of ``patterns`` (index 1...).
        ``prompt`` replaces the usual prompt pattern for this read, for
        debuggers whose prompt says what state they are in (jdb prints ``> ``
        while the program runs, ``main[1] `` when a thread is stopped)."""
        if self.child is None:
            raise PtyEOF(f"{self.name} is not running")
        wanted = [prompt or self.prompt, *patterns]
        index = self._expect_awake([*wanted, pexpect.EOF, pexpect.TIMEOUT], timeout)
        before = strip_ansi(self.child.before or "")
        if index == len(wanted):
            self.log.received(before + "<EOF>")
            raise PtyEOF(f"{self.name} exited", before)
        if index == len(wanted) + 1:
            if before:
                self.log.received(before + "<...>")
            raise PtyTimeout(f"{self.name} did not answer within {timeout:g}s", before)
        matched = self.child.match
        text = strip_ansi(matched.group(0)) if matched is not None else ""
        self.log.received(before + text)
        groups = tuple(g or "" for g in matched.groups()) if matched is not None else ()
        named = {k: v or "" for k, v in matched.groupdict().items()} if matched is not None else {}
        return Match(index, before, groups, named)

    def _expect_awake(self, patterns: list[Any], timeout: float | None) -> int:
        """pexpect's expect over ``patterns`` (TIMEOUT last), in slices of
        :data:`~dbgcore.shared.procutil.STOP_CHECK` seconds (what was read stays in
        pexpect's buffer between them), looking between slices whether the
        debugger's process is stopped by a signal: DebuggerStopped once it
        has been for :data:`~dbgcore.shared.procutil.STOPPED_GRACE` seconds."""
        child = self._spawned()
        deadline = None if timeout is None else time.monotonic() + timeout
        watch = procutil.StoppedWatch(self.pid)
        while True:
            wait = procutil.STOP_CHECK if deadline is None else \
                max(0.0, min(procutil.STOP_CHECK, deadline - time.monotonic()))
            try:
                index = int(child.expect(patterns, timeout=wait))
            except OSError as exc:
                raise PtyEOF(f"lost {self.name}'s terminal: {exc}") from exc
            if index != len(patterns) - 1 or (deadline is not None
                                                and time.monotonic() >= deadline):
                return index
            if watch.stopped_long():
                self.log.note(f"{self.name} (pid {self.pid}) is stopped by a signal")
                raise DebuggerStopped(self.name, self.pid)

    def exchange(self, text: str, timeout: float) -> Match:
        """Send one line and read the answer up to the next prompt.

        If no prompt comes in time, the debugger still owes it (a slow
        expression, say): :attr:`owes_prompt` is set, and the late answer must
        be read with :meth:`settle` before the next one, or every answer after
        it would be read as the following command's.
        """
        self.send_line(text)
        try:
            return self.expect([], timeout)
        except (PtyTimeout, DebuggerStopped):
            self.owed = 1
            raise

    def command(self, text: str, timeout: float) -> str:
        """:meth:`exchange`, returning only the answer's text."""
        return self.exchange(text, timeout).before

    def settle(self, patterns: Sequence[re.Pattern[str]], timeout: float) -> Match | None:
        """Read the answers timed-out commands still owe (each up to the prompt,
        or all up to one of ``patterns``); the last one, None if nothing is
        owed. Raises PtyTimeout while the debugger is still busy, PtyEOF if
        it went away meanwhile."""
        match = None
        while self.owed:
            try:
                match = self.expect(patterns, timeout)
            except PtyEOF:
                self.owed = 0
                raise
            # One of ``patterns`` (the program ended, say): nothing more comes.
            self.owed = self.owed - 1 if match.index == 0 else 0
        return match

    @property
    def returncode(self) -> int | None:
        """How the process ended, as ``Popen.returncode`` says it: its exit
        status, or minus the signal that killed it; None while it runs."""
        child = self.child
        if child is None or child.isalive():
            return None
        return -int(child.signalstatus) if child.signalstatus else child.exitstatus

    def interrupt(self) -> None:
        if self.alive():
            self.log.note("SIGINT")
            os.kill(self.pid, signal.SIGINT)

    def wait_exit(self, timeout: float) -> None:
        """After the debugger announced its end: read to EOF and reap it."""
        try:
            self.expect([], timeout)
        except (PtyEOF, PtyTimeout):
            pass
        except BackendError:
            pass

    def close(self, grace: float = 1.0, at_prompt: bool = False) -> None:
        """End the debugger's process group; ``at_prompt``: it waits at its
        prompt, where SIGINT does nothing, so SIGTERM comes first."""
        if self.child is None:
            return
        groups = [self.pgid] if self.pgid else []
        # pexpect reaps its own child in close(); we only make sure the group is gone.
        procutil.terminate_groups(groups, grace=grace, interrupt=not at_prompt)
        if groups:
            # terminate_groups waited for the group to go, leader included
            # (a zombie pexpect reaps at once): ptyprocess's 0.1 s sleep after
            # closing the terminal, for the kernel to update the child's
            # status, only delayed every `kill` and every replaced session.
            self.child.ptyproc.delayafterclose = 0
        try:
            self.child.close(force=True)
        except (pexpect.ExceptionPexpect, OSError):
            pass
        self.log.note(f"closed (exit status {self.child.exitstatus}, "
                      f"signal {self.child.signalstatus})")
