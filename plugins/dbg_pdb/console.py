"""The pdb backend's conversation with its launcher (inprogram/) over the
pseudo-terminal: the frames the launcher answers in
(``\\x1edbg:KIND:{json}\\x1f``), a query and its answer (kept from the
stop report when the stop sent it), a native pdb command sent as one
literal, a line too long for a terminal sent through a file, an
expression interrupted at --timeout, and what a closed terminal means.
The lowest layer of :class:`~dbg_pdb.backend.PdbBackend`: breakpoints
and the rest of the ops are said in these terms.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from dbgcore.api import (
    BackendSpec,
    ConsoleBackend,
    DebuggerLost,
    DebuggerTimeout,
    Match,
    OpFailed,
    PtyEOF,
    PtyTimeout,
    SessionContext,
    StopEvent,
    TargetExited,
)

#: A value decoded from JSON (the launcher answers in JSON; an op's arguments
#: and answer are JSON too): truly any of them.
Json = Any
JsonObject = dict[str, Json]

#: How long an interrupted expression has to answer after SIGINT.
INTERRUPT_GRACE = 3.0
FRAME_RE = re.compile(r"\x1edbg:(\w+):(.*?)\x1f")
EXIT_RE = re.compile(r"\x1edbg:exit:(\{.*?\})\x1f")
NATIVE_RE = re.compile(r"\x1edbg:native:\{\"i\": (\d+)\}\x1f")
HELLO_RE = re.compile(r"\x1edbg:hello:(\{.*?\})\x1f")
BREAK_SET_RE = re.compile(r"Breakpoint (\d+) at (.+):(\d+)\s*$", re.M)
# pdb answers through a terminal: lines end in "\r\n", and "." matches the "\r".
ERROR_RE = re.compile(r"^\*\*\* (.*?)\r?$", re.M)

#: pdb commands that start a nested interactive loop with its own prompt; over
#: `dbg raw` they would leave the session waiting for input that never comes.
INTERACTIVE = {"commands", "interact", "debug"}
#: Lines longer than this go to pdb through a file (a terminal line holds 4,095 bytes).
LONG_LINE = 2000


def _frames(text: str, kind: str) -> list[JsonObject]:
    return [json.loads(body) for k, body in FRAME_RE.findall(text) if k == kind]



class PdbConsole(ConsoleBackend):
    """Queries and commands to pdb through the launcher, and the post-mortem
    rule every op that moves the program asks."""

    end_patterns = (EXIT_RE,)

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        #: Whether the last stop was the post-mortem one.
        self._post_mortem = False
        #: The last stop report's stack, locals and breakpoints, by the kind
        #: of answer they stand for; any other command to pdb forgets them.
        self._at_stop: dict[str, JsonObject] = {}

    def _ended(self, code: int | None, text: str) -> StopEvent:
        # Without a code, the launcher went away without reporting the
        # program's end (os._exit, a signal): the process's own status says how.
        return self.console_ended(code)

    def _debugger_lost(self, output: str) -> DebuggerLost:
        """pdb's terminal closed while the program was stopped: a stopped
        program cannot end by itself, so pdb (its process) was killed."""
        return self.debugger_lost(FRAME_RE.sub("", output), grace=2.0)

    def _query(self, command: str, kind: str, timeout: float) -> JsonObject:
        # Name the op the user asked for, not the launcher's command.
        self.require_stopped(command.split()[0].removeprefix("_dbg_"), timeout)
        if command == f"_dbg_{kind}":
            cached = self._at_stop.get(kind)
            if cached is not None:
                return cached
        try:
            text = self.command(command, timeout)
        except PtyEOF as exc:
            raise self._debugger_lost(exc.output) from exc
        except DebuggerTimeout:
            if not command.startswith(("_dbg_eval ", "_dbg_set ", "_dbg_tree ")):
                raise
            text = self._interrupt_expression(timeout)
        answers = _frames(text, kind)
        if not answers:
            errors = ERROR_RE.findall(text)
            raise OpFailed(f"pdb did not answer {command.split()[0]}: "
                           f"{errors[-1] if errors else text.strip()[:200]}")
        return answers[-1]

    def _interrupt_expression(self, timeout: float) -> str:
        """An expression ran past --timeout: SIGINT to the program (the
        launcher raises it inside the expression), and its answer read at
        once, so that the next command does not wait for a runaway. An answer
        that came just in time is kept."""
        driver = self.drv()
        driver.interrupt()
        try:
            match = driver.settle(self.end_patterns, INTERRUPT_GRACE)
        except PtyTimeout as exc:
            raise DebuggerTimeout(
                f"the expression ran past --timeout ({timeout:g}s) and pdb could not "
                f"interrupt it (Python checks for SIGINT between bytecodes, not inside "
                f"one long C call)",
                "the next command waits for it first; `dbg kill` ends the session") from exc
        except PtyEOF as exc:
            raise self._debugger_lost(exc.output) from exc
        if match is not None:
            self.on_owed_answer(match)
        text = match.before if match is not None else ""
        answers = _frames(text, "value")
        if answers and "error" not in answers[-1]:
            return text
        raise DebuggerTimeout(f"the expression ran past --timeout ({timeout:g}s): "
                              "dbg interrupted it", "the program is stopped where it was; "
                              "a larger --timeout gives it longer")

    def command(self, line: str, timeout: float) -> str:
        self._at_stop = {}  # it may move the frame or change what is there
        return super().command(self._short(line), timeout)

    def _short(self, line: str) -> str:
        """``line``, or for one longer than a terminal line may be (an
        expression of 100 KB), a command that has the launcher read it from
        a private file."""
        if len(line.encode("utf-8")) <= LONG_LINE or any(c in line for c in "\r\n\0"):
            return line  # a newline or NUL is refused as it is, not hidden in a file
        import tempfile

        fd, path = tempfile.mkstemp(prefix="line-", dir=self.ctx.run_dir)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(line)
        except OSError:
            os.unlink(path)  # a full disk: the op fails, and leaves no empty file
            raise
        return f"_dbg_long {path!r}"

    def _native(self, command: str, timeout: float) -> str:
        """Run a pdb command that answers in prose; its *** lines are errors."""
        self.require_stopped(command.split()[0], timeout)
        # Sent as one literal: pdb would cut the bare line at ';;' (which a
        # condition may hold) and run the rest as a second command.
        text = self._exchange(f"_dbg_native {command!r}", timeout)
        errors = ERROR_RE.findall(text)
        if errors:
            raise OpFailed(f"pdb: {errors[-1]}")
        return text

    def _exchange(self, line: str, timeout: float) -> str:
        """One line of the launcher's native commands, and its answer; a
        command that changed the breakpoints answers with them all, kept."""
        try:
            text = self.command(line, timeout)
        except PtyEOF as exc:
            raise self._debugger_lost(exc.output) from exc
        breaks = _frames(text, "breaks")
        if breaks:
            self._at_stop["breaks"] = breaks[-1]
        return text

    def _natives(self, commands: list[str], timeout: float) -> list[str]:
        """Native pdb commands in one exchange (the launcher's
        ``_dbg_natives``): each one's prose, in order. Errors stay in each
        text (ERROR_RE), for the caller to tell per command."""
        if not commands:
            return []
        self.require_stopped(commands[0].split()[0], timeout)
        text = self._exchange(f"_dbg_natives {commands!r}", timeout)
        # Each command's text runs from its own frame to the next one.
        parts = NATIVE_RE.split(text)
        # split: [before, i0, text0, i1, text1, ...]
        texts = [""] * len(commands)
        for index, body in zip(parts[1::2], parts[2::2], strict=True):
            texts[int(index)] = FRAME_RE.sub("", body)
        return texts

    def on_owed_answer(self, match: Match) -> None:
        if match.index == 1:
            self._ended(json.loads(match.groups[0]).get("code"), match.before)
            raise TargetExited("the program ended while pdb was busy with an earlier command",
                               "run it again with `dbg restart`")

    def on_console_end(self, output: str) -> None:
        self._ended(None, output)

    def _not_post_mortem(self, op: str) -> None:
        if self._post_mortem and self.state() == "stopped":
            raise OpFailed(f"cannot {op} here: the program stopped post mortem, after the "
                           "exception ended these frames",
                           "`dbg continue` goes on, to the next failing test or the end; "
                           "`dbg print`, `dbg frame` and `dbg exception` look around")

