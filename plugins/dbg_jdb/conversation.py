"""The conversation with jdb under dbg's jdb backend: commands typed on
its terminal and their answers, read up to its prompt, and the end of the
program or of jdb as the terminal shows it.

jdb's prompt is ``> `` with no current thread and ``THREAD[FRAME] `` with
one (``main[1] ``, ``main[2] `` after ``up``): the frame number in it is how
dbg knows the selected frame. jdb now and then prints a prompt twice, or
late; each reader here says how it reads past that. The layers of the
backend: this one, then inspection (:mod:`dbg_jdb.inspection`), running
(:mod:`dbg_jdb.running`), and the backend itself (:mod:`dbg_jdb.backend`:
starting and the op table's entry points).
"""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
import time
from dataclasses import replace
from typing import Any, NoReturn

from dbg_jdb.breaks import JdbBreakpoints
from dbg_jdb.jdwp import JdwpError, JdwpRelay
from dbg_jdb.objects import ObjectView
from dbg_jdb.parse import (
    EXIT_RE,
    STOPPED_PROMPT_RE,
    check_line,
)
from dbg_jdb.program import JavaProgram
from dbgcore.api import (
    BackendSpec,
    ConsoleBackend,
    DebuggerTimeout,
    Frame,
    Location,
    Match,
    PtyDriver,
    PtyEOF,
    PtyTimeout,
    SessionContext,
    StopEvent,
    TargetExited,
    ended,
)

#: An op's arguments and answer: JSON, any of it.
JsonObject = dict[str, Any]


class JdbConversation(ConsoleBackend):
    """The session's state as jdb shows it, and the exchanges with jdb."""

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self.jvm: subprocess.Popen[bytes] | None = None
        #: The JVM's and jdb's connections to dbg, which relays between them.
        self._jdwp: tuple[socket.socket, socket.socket] | None = None
        self.program: JavaProgram | None = None
        #: The folder jdb and the program run in (None: dbg's own).
        self._cwd: str | None = None
        self._exit_code: int | None = None
        self.breaks = JdbBreakpoints(self)
        self._thread = ""
        self._frame = 1
        self._location: Location | None = None
        self._version = ""
        self.attached = False
        self._last_reason = ""
        self._last_exception = ""
        #: The message of the exception last stopped at ("": none, or unknown).
        self._last_message = ""
        #: JDWP as dbg relays it between the JVM it started and jdb (None
        #: when jdb attached to the user's JVM itself).
        self.jdwp: JdwpRelay | None = None
        #: What reads objects over that JDWP, made when first needed.
        self._object_view: ObjectView | None = None
        #: The JDWP ids of the object locals last listed, by name.
        self._object_ids: dict[str, int] = {}
        #: Right after the VM started: jdb's late first prompt, which the
        #: first command's answer may begin with (see _read_vm_start).
        self._late_prompt: re.Pattern[str] | None = None
        #: The stack of this stop, listed once: a stop's snapshot asks for it
        #: twice. Forgotten whenever the program or the selected thread or
        #: frame may have changed (see command, set_state).
        self._frames: list[Frame] | None = None

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
        check_line(line)
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

    def commands(self, lines: list[str], timeout: float) -> list[str | DebuggerTimeout]:
        """Many commands that do not move the program and always say
        something (``stop at``, ``stop in``), typed in chunks of
        :data:`PIPELINE_CHUNK` without waiting for each answer, and their
        answers in order (jdb reads them in turn). A chunk's input and
        answers stay well under a terminal's buffer, so neither side blocks
        the other. An empty answer is a stray prompt, read past. A chunk
        that times out: its answers not read are owed (the next command
        reads them first), and it and every command after it answer with
        the DebuggerTimeout."""
        if not lines:
            return []
        for line in lines:
            check_line(line)
        driver = self._drv()
        self.settle(timeout)
        self._frames = None
        out: list[str | DebuggerTimeout] = []
        try:
            for start in range(0, len(lines), PIPELINE_CHUNK):
                chunk = lines[start:start + PIPELINE_CHUNK]
                for line in chunk:
                    driver.send_line(line)
                answers: list[str] = []
                deadline = time.monotonic() + timeout
                while len(answers) < len(chunk):
                    try:
                        match = driver.expect([], max(0.0, deadline - time.monotonic()))
                    except PtyTimeout as exc:
                        driver.owed = len(chunk) - len(answers)
                        late = DebuggerTimeout(
                            f"jdb did not answer {len(chunk) - len(answers)} of "
                            f"{len(lines)} commands within {timeout:g}s",
                            "it may still be working: the next command waits for it first; "
                            "a larger --timeout gives it longer")
                        late.__cause__ = exc
                        out += answers
                        return out + [late] * (len(lines) - len(out))
                    self._note_prompt(match)
                    # Answers read at once: each but the last ends at a
                    # prompt that the next one follows on the same line.
                    answers += [a.replace("\r\n", "\n").strip("\n")
                                for a in _ANSWER_SPLIT_RE.split(match.before) if a.strip()]
                self._late_prompt = None
                out += answers[:len(chunk)]
        except PtyEOF as exc:
            self._terminal_closed(exc)
        return out

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

    def exception_message(self, timeout: float) -> str:
        """The message of the exception the latest exception event threw,
        asked of the JVM over the JDWP dbg relays ("" when it has none, or
        the JVM could not say: the stop is shown without it)."""
        thrown = self.jdwp.thrown if self.jdwp is not None else None
        if self.jdwp is None or thrown is None:
            return ""
        self.jdwp.thrown = None
        try:
            return self.jdwp.exception_message(thrown, timeout) or ""
        except JdwpError as exc:
            self.ctx.log.note(f"the exception's message: {exc}")
            return ""

    def on_owed_answer(self, match: Match) -> None:
        self._note_prompt(match)

    def on_console_end(self, output: str) -> None:
        self._ended(output)

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


#: A stopped thread's prompt with a `where` listing after it on the same
#: line ("main[1]   [1] Main.run (Main.java:8)"): two answers read at once.
_JOINED_RE = re.compile(r"\r?\n[^\s\[\]>][^\r\n\[\]]*\[\d+\] (?= *\[\d+\] \S)")

#: A prompt (or prompts) at the start of a line, that an answer follows:
#: where answers typed together and read at once part.
_ANSWER_SPLIT_RE = re.compile(r"(?:\A|\r?\n)(?:> |[^\s\[\]>][^\r\n\[\]]*\[\d+\] )+")
#: How many commands :meth:`JdbConversation.commands` types before it reads
#: their answers: ~30 bytes each way a breakpoint, well under the 4 KiB a
#: terminal holds.
PIPELINE_CHUNK = 50

#: The last line of jdb's greeting once the VM it started is stopped, and
#: how long it may come after the stopped thread's prompt.
_NO_FRAMES = "No frames on the current call stack"
_VM_STARTED = "VM Started: "
_GREETING_WAIT = 2.0

#: jdb commands that leave the stack and the selected frame as they were.
_KEEP_STACK = frozenset({"where", "locals", "print", "dump", "eval", "threads"})
