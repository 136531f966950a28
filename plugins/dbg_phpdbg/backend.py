"""The ``phpdbg`` backend: PHP programs under PHP's own debugger, phpdbg,
driven through dbg's PTY layer (:class:`ConsoleBackend`).

What phpdbg prints, and how it is read here:

- a stop: ``[Breakpoint #1 at /abs/cart.php:53, hits: 1]`` (or
  ``[Conditional breakpoint #2: at ... if COND at FILE:LINE, hits: 1]``, or
  ``[Uncaught InvalidArgumentException in FILE on line 40: message]``), then
  a listing whose current line is ``>00053: code``; a step prints the
  listing alone. The end is ``[Script ended normally]``.
- ``back``: one ``frame #0: fee(amount=19.25) at /abs/cart.php:27`` a frame.
- the program's own output (its STDERR too) comes on phpdbg's terminal
  (phpdbg writes it on its own stdout): its whole lines while it runs, and
  the text before a stop's report, go to ``dbg output``. phpdbg's stderr
  is a FIFO (stderr.py), where its `print` answers come.
- values: ``ev`` prints a PHP value with print_r, on many lines; dbg
  evaluates through small helper functions it defines in the program at the
  entry stop (helpers.php), which answer one line between ``\\x1d`` marks.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, ClassVar

from dbg_phpdbg.breaks import PhpdbgBreaks
from dbg_phpdbg.replies import (
    ADDED_RE,
    CURRENT_RE,
    ENDED_RE,
    FAILURE_FUNCTIONS,
    FAILURE_MESSAGE,
    HIT_RE,
    MAX_COMMAND,
    OPLINE_RE,
    OUTPUT_LINE_RE,
    RESOLVED_RE,
    RUN_WORDS,
    TAKER,
    UNCAUGHT_RE,
    VERSION_RE,
    frames_of,
    php_string,
)
from dbg_phpdbg.stderr import SharedStderr
from dbgcore.api import (
    BackendSpec,
    Frame,
    LaunchRequest,
    Location,
    OpFailed,
    PtyEOF,
    PtyTimeout,
    Readiness,
    SessionContext,
    StopEvent,
    Support,
    UsageError,
    Value,
    Variable,
)

#: phpdbg's prompt, set by the init file dbg gives it (phpdbg adds the space).
PROMPT_TEXT = "dbg-phpdbg-4c1e>"
PROMPT = re.compile(re.escape(PROMPT_TEXT) + " ")
#: How long phpdbg has to compile the program and reach its first opline.
START_WAIT = 30.0
HELPERS = Path(__file__).with_name("helpers.php")
#: A JSON object (an op's arguments and answer).
JsonObject = dict[str, Any]

class PhpdbgBackend(PhpdbgBreaks):
    id = "phpdbg"
    tool = "phpdbg"
    features: ClassVar[dict[str, Support]] = {"break-if": "native", "return-value": "none"}
    unsupported_hints: ClassVar[dict[str, str]] = {
        "watch": "phpdbg's watchpoints are limited (a variable of the current scope, "
                 "no condition) and dbg does not drive them: `dbg raw watch $var` sets one",
        "catch": "dbg catch takes raised (every throw) and uncaught; phpdbg cannot tell "
                 "an exception's class at its throw: `dbg raw break ZEND_THROW` stops at "
                 "each throw, where `dbg step` goes on to its catch",
        "threads": "PHP runs one thread",
        "thread": "PHP runs one thread",
    }

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self._frames: list[Frame] | None = None
        self._selected = 0
        #: What the command that let the program run calls its next stop.
        self._reason = ""
        self._uncaught = False
        self._stop_uncaught = True
        self._stderr: SharedStderr | None = None
        #: The exception the program stopped at: its class and message.
        self._exception: tuple[str, str] | None = None
        #: `dbg catch raised`: phpdbg's breakpoint at every ZEND_THROW.
        self._throws: int | None = None
        self._raising = False
        #: Where `continue` left from: the top frame's file, line and depth,
        #: and its opline (see _same_pass).
        self._resumed: tuple[tuple[str | None, int | None, int], int] | None = None
        #: A PHPUnit run: phpdbg's breakpoints where an assertion fails.
        self._failures: set[int] = set()

    # -- availability ----------------------------------------------------------------

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        found = super().check(spec)
        if not found.ready:
            versioned = shutil.which(f"{spec.command[0]}8.2") if spec.command else None
            if versioned is None:
                return found
            found = Readiness(True, versioned)
        try:
            banner = subprocess.run([found.detail, "-V"], capture_output=True, text=True,
                                    timeout=10).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            return Readiness(False, f"{found.detail} does not run: {exc}")
        version = VERSION_RE.search(banner)
        if version is None:
            return Readiness(False, f"{found.detail} -V says no phpdbg version")
        return Readiness(True, f"{found.detail} (phpdbg {version[1]})", version[1])

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        if program.is_dir():
            raise UsageError(f"{program} is a folder; phpdbg runs a script",
                             "give the script: dbg start path/to/script.php")

    # -- lifecycle ---------------------------------------------------------------------

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        if request.module:
            raise UsageError("phpdbg runs a script, not -m MODULE")
        if request.stdin:
            raise self.unsupported("--stdin", "phpdbg reads its commands on the program's stdin")
        self._cwd = request.cwd or os.getcwd()
        self._stop_uncaught = request.stop_on_uncaught
        self._program = os.path.abspath(os.path.join(self._cwd, request.program))
        self._stderr = SharedStderr(Path(self.ctx.run_dir), self.ctx.output)
        init = Path(self.ctx.run_dir) / "phpdbginit"
        init.write_text(f"set prompt {PROMPT_TEXT}\n")
        # phpdbg pages long answers by the terminal's height: make it tall.
        # phpdbg's stderr is a FIFO of dbg's, where its `print` answers come
        # (stderr.py); the program's output is on phpdbg's terminal.
        argv = ["/bin/sh", "-c", 'stty rows 60000 2>/dev/null; exec "$@" 2>"$DBG_STDERR"', "sh",
                *self._command(), "-q", "-b", "-i", str(init), "-e", self._program,
                *request.args]
        env = {**request.env, "DBG_STDERR": str(self._stderr.path)}
        self.start_console(argv, PROMPT, env=env, cwd=self._cwd)
        try:
            banner = self.drv().expect([], START_WAIT).before
        except PtyEOF as exc:
            raise OpFailed(f"phpdbg did not start: {exc.output.strip()[-300:]}") from exc
        if "[Successful compilation" not in banner:
            # A parse error: phpdbg waits at its prompt with nothing to run.
            said = re.sub(r"\s+", " ", banner.replace("[Could not find information about "
                                                    "included file...]", "")).strip(" []")
            raise OpFailed(f"php cannot compile {self._program}: {said[:300]}",
                           f"fix the script (php -l {self._program} checks it)")
        self.set_state("stopped")
        # The entry: the main script's first statement, else its first opline.
        first = self._first_line(timeout)
        self.command(f"break {self._program}:{first}" if first else
                     f"break {self._program}:#0", timeout)
        event = self._run("run", "start", "entry", max(timeout, START_WAIT))
        if event.state != "stopped":
            return event
        # Off, not deleted: deleting that breakpoint leaves phpdbg deaf to
        # every breakpoint set after it (phpdbg 8.2).
        self.command("set break 0 off", timeout)
        self.command(f"ev eval({php_string(TAKER)})", timeout)
        answer = self.command(f"ev eval({self._held(HELPERS.read_text(), timeout)})", timeout)
        if "error" in answer.lower():
            raise OpFailed(f"phpdbg: cannot define dbg's helpers: {answer.strip()[:300]}")
        if request.test or os.path.basename(self._program).startswith("phpunit"):
            # A test run stops where an assertion fails, though PHPUnit catches it.
            for function in FAILURE_FUNCTIONS:
                added = ADDED_RE.search(self.command(f"break {function}", timeout))
                if added:
                    self._failures.add(int(added["id"]))
        return event

    def _first_line(self, timeout: float) -> int | None:
        """The line of the main script's first statement (not a class's or a
        function's declaration), from its oplines (`print exec`, whose answer
        comes on stderr)."""
        assert self._stderr is not None
        self._stderr.hold()
        try:
            self.command("print exec", timeout)
        finally:
            listing = self._stderr.release(" RETURN ")
        for found in OPLINE_RE.finditer(listing):
            if found[2] not in ("NOP", "EXT_NOP"):
                line = re.match(r"L(\d+)", found[0])
                return int(line[1]) if line else None
        return None

    def _command(self) -> list[str]:
        """phpdbg's command line: the configured one, or Debian's versioned
        name when the alternatives link is missing."""
        command = list(self.spec.command)
        if command and shutil.which(command[0]) is None:
            command[0] = shutil.which(f"{command[0]}8.2") or command[0]
        return command

    def wait_stop(self, wait: float, timeout: float) -> StopEvent:
        deadline = time.monotonic() + wait
        while True:
            try:
                match = self.drv().expect([OUTPUT_LINE_RE],
                                          max(0.0, deadline - time.monotonic()))
            except PtyTimeout:
                self.set_state("running")
                return StopEvent(state="running")
            except PtyEOF as exc:
                self._program_output(exc.output)
                return self.console_ended()
            if match.index == 0:
                return self._stopped(match.before, self._reason, timeout)
            # A line of the program's while it runs: `dbg output` has it now.
            self._program_output(match.before + match.groups[0])

    def _stopped(self, answer: str, reason: str, timeout: float) -> StopEvent:
        text = answer.replace("\r\n", "\n")
        ended = list(ENDED_RE.finditer(text))
        current = list(CURRENT_RE.finditer(text))
        if ended and (not current or ended[-1].start() > current[-1].start()):
            self._program_output(text[:ended[-1].start()])
            return self._end(timeout)
        if not current:
            # Nothing moved (an error, "[Not running]"): the stop stands.
            self.set_state("stopped")
            self._program_output(text)
            return StopEvent(state="stopped", location=self._where,
                             description=text.strip()[:300])
        report = current[-1].start()
        hits = [m for m in HIT_RE.finditer(text, 0, report)
                if not text[m.end():report].strip()]
        uncaught = [m for m in UNCAUGHT_RE.finditer(text, 0, report)
                    if not text[m.end():report].strip()]
        head = hits[-1] if hits else uncaught[-1] if uncaught else None
        self._program_output(text[:head.start() if head else report])
        self.set_state("stopped")
        self._frames, self._selected = None, 0
        frames = self.stack(None, timeout)
        top = frames[0] if frames else None
        self._where = Location(top.file or "", top.line or 0, top.function) if top else None
        if uncaught and head is uncaught[-1]:
            self._uncaught = True
            found = uncaught[-1]
            if not self._stop_uncaught:  # dbg start --no-catch
                return self._run("continue", "continue", reason, timeout)
            self._exception = (found["type"], found["message"] or "")
            return StopEvent(state="stopped", reason="exception", location=self._where,
                             description=f"{found['type']}: {found['message'] or ''}".strip())
        hit: list[int | str] = []
        if hits and head is hits[-1] and int(hits[-1]["id"]) in self._failures:
            return self._test_failed(frames, timeout)
        if hits and head is hits[-1] and int(hits[-1]["id"]) == self._throws and self._raising:
            return StopEvent(state="stopped", reason="exception", location=self._where,
                             description="an exception is thrown here (dbg catch raised)")
        if hits and head is hits[-1] and self._same_pass(frames, timeout):
            return self._run("continue", "continue", reason, timeout)
        if hits and head is hits[-1]:
            native = int(hits[-1]["id"])
            for number, (theirs, bp) in self._breaks.items():
                if theirs == native:
                    bp.hits += 1
                    hit.append(number)
        if reason == "entry":
            return StopEvent(state="stopped", reason="entry", location=self._where)
        return StopEvent(state="stopped", reason="breakpoint" if hit else reason or "step",
                         location=self._where, hit_breakpoints=hit)

    def _same_pass(self, frames: list[Frame], timeout: float) -> bool:
        """Whether a breakpoint's stop after `continue` is phpdbg's second
        word on a line already stopped at: it checks breakpoints on each
        change of line, so a line's breakpoint fires again when a call made
        on it returns (at the call's EXT_FCALL_END), and a conditional one
        at each later opline of the line. A new pass over the line (a loop)
        comes back to an earlier opline."""
        resumed, self._resumed = self._resumed, None
        if resumed is None or not frames:
            return False
        number, opcode = self._opline(timeout)
        if opcode == "EXT_FCALL_END":
            return True
        place = (frames[0].file, frames[0].line, len(frames))
        return place == resumed[0] and number > resumed[1]

    def _opline(self, timeout: float) -> tuple[int, str]:
        """The current opline's number and opcode (phpdbg answers on stderr)."""
        if self._stderr is None:
            return -1, ""
        self._stderr.hold()
        try:
            self.command("print opline", timeout)
        finally:
            said = self._stderr.release("\n")
        found = OPLINE_RE.search(said)
        rest = said[:found.start()] + said[found.end():].lstrip("\n") if found else said
        self.ctx.output.append("stderr", rest)
        return (int(found[1]), found[2]) if found else (-1, "")

    def console_ended(self, code: int | None = None) -> StopEvent:
        event = super().console_ended(code)
        if self._stderr is not None:
            self._stderr.drain()  # the program's last words on stderr
        return event

    def terminate(self) -> None:
        super().terminate()
        if self._stderr is not None:
            self._stderr.close()

    def _test_failed(self, frames: list[Frame], timeout: float) -> StopEvent:
        """A stop in PHPUnit where an assertion failed: shown in the test's
        own frame, with the failure's message."""
        written = self._value(FAILURE_MESSAGE, "continue", timeout) or '""'
        message = re.sub(r'\\(.)', r"\1", written[1:-1])
        own = next((f for f in frames if not f.library and not f.internal), frames[0])
        if own.index:
            self.command(f"frame {own.index}", timeout)
            self._selected = own.index
        # phpdbg looks up each catch's class as the failure passes up through
        # PHPUnit, and a class autoloaded then ends the run: load them now.
        self._marked("ev __dbg_phpdbg_preload()", "continue", timeout)
        self._where = Location(own.file or "", own.line or 0, own.function)
        self._exception = ("PHPUnit\\Framework\\ExpectationFailedException", message)
        return StopEvent(state="stopped", reason="exception", location=self._where,
                         description=f"{own.function} failed: {message}")

    def _end(self, timeout: float) -> StopEvent:
        """phpdbg said the script ended: quit it, whose status is the program's."""
        try:
            self.drv().send_line("quit")
        except PtyEOF:
            pass
        event = self.console_ended()
        if self._uncaught and event.exit_code == 0:
            # The program ended by an uncaught exception, where php exits 255
            # (phpdbg, having stopped at it, says 0).
            event.exit_code = 255
        return event

    def _program_output(self, text: str) -> None:
        # phpdbg's own word, whenever code is compiled, about the entry
        # breakpoint (kept, switched off), is not the program's output.
        text = RESOLVED_RE.sub("", text.replace("\r\n", "\n"))
        if text:
            self.ctx.output.append("stdout", text)

    def _run(self, command: str, op: str, reason: str, timeout: float) -> StopEvent:
        self.require_stopped(op, timeout)
        self._exception = None
        self._resumed = None
        if command == "continue" and self._frames:
            top = self._frames[0]
            self._resumed = ((top.file, top.line, len(self._frames)), self._opline(timeout)[0])
        self._reason = reason
        self._frames, self._selected = None, 0
        self.set_state("running")
        self._send(command)
        return self.wait_stop(timeout, timeout)

    def _send(self, line: str) -> None:
        if len(line.encode()) > MAX_COMMAND:
            self.set_state("stopped")
            raise UsageError(f"phpdbg takes commands of at most {MAX_COMMAND} bytes")
        self.drv().send_line(line)

    # -- running ---------------------------------------------------------------------------

    def cont(self, timeout: float) -> StopEvent:
        return self._run("continue", "continue", "step", timeout)

    def step(self, timeout: float) -> StopEvent:
        before = len(self._frames or self.stack(None, timeout))
        event = self._run("step", "step", "step", timeout)
        # Into a call, phpdbg stops first at the declaration's line (where the
        # parameters are received): step on to the body's first line.
        for _ in range(8):
            if event.state != "stopped" or event.reason != "step" or event.location is None \
                    or len(self._frames or []) <= before \
                    or not self._is_declaration(event.location):
                break
            event = self._run("step", "step", "step", timeout)
        return event

    def _is_declaration(self, where: Location) -> bool:
        try:
            text = Path(where.file or "").read_text(errors="replace").splitlines()
        except OSError:
            return False
        line = where.line or 0
        return 0 < line <= len(text) and re.search(r"\bfunction\b", text[line - 1]) is not None

    def next(self, timeout: float) -> StopEvent:
        # phpdbg's `next` enters calls: step, and come back out of any call
        # the line made (`leave`, then a step into the caller) until the
        # line is left in this frame.
        frames = self._frames or self.stack(None, timeout)
        depth, origin = len(frames), (frames[0].file, frames[0].line) if frames else None
        event = self._run("step", "next", "step", timeout)
        for _ in range(50):
            if event.state != "stopped" or event.reason != "step":
                break
            now = self._frames or []
            if len(now) > depth:
                event = self._run("leave", "next", "step", timeout)
                if event.state == "stopped" and event.reason == "step":
                    event = self._run("step", "next", "step", timeout)
            elif len(now) == depth and now and (now[0].file, now[0].line) == origin:
                event = self._run("step", "next", "step", timeout)
            else:
                break
        return event

    def _next_line(self, timeout: float) -> StopEvent:
        """`until` with no place: the next line, not going back in a loop."""
        frames = self._frames or self.stack(None, timeout)
        depth, origin = len(frames), frames[0].line if frames else None
        event = self.next(timeout)
        for _ in range(10000):
            now = self._frames or []
            if event.state != "stopped" or event.reason != "step" or len(now) != depth \
                    or origin is None or (now[0].line or 0) > origin:
                break
            event = self.next(timeout)
        if event.reason == "step":
            event.reason = "until"
        return event

    def catch(self, filters: list[str], timeout: float) -> list[str]:
        unknown = [f for f in filters if f not in ("raised", "uncaught")]
        if unknown:
            raise self.unsupported(f"catch {unknown[0]}", self.unsupported_hints["catch"])
        self.require_stopped("catch", timeout)
        raised = "raised" in filters
        if raised and self._throws is None:
            added = ADDED_RE.search(self.command("break ZEND_THROW", timeout))
            if added is None:
                raise OpFailed("phpdbg cannot stop at ZEND_THROW")
            self._throws = int(added["id"])
        elif self._throws is not None:
            self.command(f"set break {self._throws} {'on' if raised else 'off'}", timeout)
        self._raising = raised
        self._stop_uncaught = "uncaught" in filters
        return [f for f in ("raised", "uncaught") if f in filters]

    def pause(self, timeout: float) -> StopEvent:
        self._reason = "pause"
        return self.interrupt_and_wait(timeout)

    def interrupt(self) -> None:
        # A second client's `dbg pause`: the op waiting for the program reads the stop.
        if self.state() == "running":
            self._reason = "pause"
        super().interrupt()

    def finish(self, timeout: float) -> StopEvent:
        # phpdbg's own `finish` runs on to the next breakpoint after the frame
        # returns; `leave` stops at the frame's return, and a step from there
        # comes back into the caller.
        depth = len(self._frames or self.stack(None, timeout))
        event = self._run("leave", "finish", "return", timeout)
        if event.state == "stopped" and event.reason == "return" \
                and len(self._frames or []) == depth:
            event = self._run("step", "finish", "return", timeout)
        return event

    # -- inspection ------------------------------------------------------------------------

    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        if self._frames is None:
            self.require_stopped("stack", timeout)
            self._frames = frames_of(self.command("back", timeout))
        frames = list(self._frames)
        for frame in frames:
            frame.current = frame.index == self._selected
        return frames[:levels] if levels else frames

    def select_frame(self, index: int, timeout: float) -> Frame:
        frames = self.stack(None, timeout)
        if not 0 <= index < len(frames):
            raise OpFailed(f"no frame {index}; the stack has {len(frames)}", "see `dbg stack`")
        self.command(f"frame {index}", timeout)
        self._selected = index
        return frames[index]

    def locals(self, timeout: float) -> list[Variable]:
        listing = self._marked("ev __dbg_phpdbg_vars(get_defined_vars(), "
                               "isset($this) ? $this : null)", "locals", timeout)
        found = []
        for item in listing.split("\x1e"):
            name, _, rest = item.partition("\x1f")
            kind, _, value = rest.partition("\x1f")
            if name:
                found.append(Variable(name, value, kind))
        return found

    def evaluate(self, expression: str, timeout: float) -> Value:
        return self._evaluated(f"return ({expression});", "print", timeout)

    def _evaluated(self, code: str, op: str, timeout: float) -> Value:
        status, _, rest = self._ev(code, op, timeout).partition("\x1f")
        kind, _, value = rest.partition("\x1f")
        if status != "ok":
            raise OpFailed(f"php: {kind}: {value}")
        return Value(value, kind)

    def set_variable(self, lhs: str, value: str, timeout: float) -> Value:
        try:
            return self._evaluated(f"return ({lhs} = ({value}));", "set", timeout)
        except OpFailed as exc:
            raise OpFailed(f"cannot set {lhs}: {exc.message.removeprefix('php: ')}",
                           "nothing was changed") from exc

    def op_exception(self, args: JsonObject, timeout: float) -> JsonObject:
        """The uncaught exception (or PHPUnit's failure) the program stopped
        at: its class, its message, and the stack, outermost first."""
        self.require_stopped("exception", timeout)
        if self._exception is None:
            raise OpFailed("the program did not stop at an exception",
                           "an uncaught exception or a failing PHPUnit test stops it; "
                           "`dbg stack` shows where it is")
        frames = self.stack(None, timeout)
        return {"exception": self._exception[0], "description": self._exception[1],
                "stack": "\n".join(f"  {f.file or '?'}:{f.line or '?'} in {f.function or '?'}"
                                   for f in reversed(frames))}

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        word = text.split(maxsplit=1)[0] if text.strip() else ""
        if word in RUN_WORDS:
            self.require_stopped("raw", timeout)
            self._reason, self._frames, self._selected = "step", None, 0
            self.set_state("running")
            self._send(text)
            event = self.wait_stop(timeout, timeout)
            return event.description, event
        self.require_stopped("raw", timeout)
        answer = self.command(text, timeout)
        return answer.replace("\r\n", "\n").strip("\n"), None
