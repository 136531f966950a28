"""What the ghci backend asks of a stop: the stack of the stop and ghci's
``:history`` (``dbg frame N`` is ``:back``), the bindings, and the values of
expressions, evaluated with ghci's own printer and bounded by the op's
timeout; and the state of a session the backend's other parts share.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from dbg_ghci import parse
from dbgcore.api import (
    BackendSpec,
    Breakpoint,
    ConsoleBackend,
    Frame,
    Location,
    OpFailed,
    PtyTimeout,
    SessionContext,
    UsageError,
    Value,
    Variable,
)

#: How long ghci has to come back to its prompt after an interrupt.
INTERRUPT_WAIT = 5.0


class GhciInspection(ConsoleBackend):
    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self._where: Location | None = None
        self._stop: parse.Stop | None = None
        self._reason = ""
        self._cwd = os.getcwd()
        self._program = ""
        self._name = "main"
        #: dbg's breakpoint id -> (ghci's number, the span ghci put it on).
        self._breaks: dict[int, tuple[int, str, Breakpoint]] = {}
        self._iserv_pid_file = Path(ctx.run_dir) / "iserv.pid"
        self._modules: dict[str, str] = {}  # a source's path -> its module
        #: The stop's stack (see :meth:`stack`), each frame with the :history
        #: step it is (0: the stop itself), read once per stop.
        self._frames: list[tuple[Frame, int]] | None = None
        #: How far back in :history ghci is (`dbg frame N` is `:back`), and
        #: the names in scope there (None: at the stop, all of :show bindings).
        self._depth = 0
        self._frame_index = 0
        self._scope: set[str] | None = None
        self._catches: list[str] = []
        #: Whether main's evaluation has begun, and with which of ghci's
        #: exception flags (the run keeps those it began with).
        self._started = False
        self._run_catches: list[str] = []
        #: ghci's number of the breakpoint `dbg until` made for its run.
        self._until_break: int | None = None

    # -- inspection ---------------------------------------------------------------------

    def _path(self, name: str) -> str:
        return os.path.normpath(os.path.join(self._cwd, name))

    def _module(self, file: str) -> str:
        path = self._path(file)
        if path not in self._modules:
            try:
                self._modules[path] = parse.module_of(Path(path).read_text(errors="replace"))
            except OSError:
                self._modules[path] = "Main"
        return self._modules[path]

    def _qualified(self, name: str, file: str) -> str:
        """A :history name (``cartTotal:costs``) as a stop names it: the
        top-level function, with its module."""
        return f"{self._module(file)}.{name.split(':')[0]}"

    def _location(self, stop: parse.Stop) -> Location | None:
        if stop.where is None:
            return None
        return Location(self._path(stop.where.file), stop.where.line, parse.top_level(stop.name))

    def _track_interpreter(self) -> None:
        if self.child_pids:
            return
        try:
            pid = int(self._iserv_pid_file.read_text().strip())
        except (OSError, ValueError):
            return
        self.track_child(pid, "ghc-iserv")

    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        """The stop, then the functions ``:history`` traced before it, most
        recent first: each run of steps in one function is a frame, at the
        run's latest step. A lazy program has no call stack; these are the
        evaluations that led here (the caller that demanded the value among
        them), not frames waiting for a return."""
        self.require_stopped("stack", timeout)
        frames = [Frame(f.index, f.function, f.file, f.line, f.index == self._frame_index)
                  for f, _ in self._stack(timeout)]
        return frames[:levels] if levels else frames

    def _stack(self, timeout: float) -> list[tuple[Frame, int]]:
        if self._frames is not None:
            return self._frames
        if self._where is None:
            return []
        # :history counts from where ghci is: read it from the stop.
        back = self._depth
        self._to_history_step(0, timeout)
        frames = [(Frame(0, self._where.function, self._where.file, self._where.line, True), 0)]
        last = self._where.function
        for step in parse.history(self.command(":history", timeout)):
            if step.where is None:
                continue
            function = self._qualified(step.name, step.where.file)
            if function == last:
                continue
            last = function
            frames.append((Frame(len(frames), function, self._path(step.where.file),
                                 step.where.line), step.index))
        self._frames = frames
        self._to_history_step(back, timeout)
        return frames

    def select_frame(self, index: int, timeout: float) -> Frame:
        """Frame N is its step of ``:history``: ``:back`` goes there, and
        locals and print see the values that step had."""
        self.require_stopped("frame", timeout)
        frames = self._stack(timeout)
        if not 0 <= index < len(frames):
            raise OpFailed(f"no frame {index}; the stack has {len(frames)}", "see `dbg stack`")
        frame, step = frames[index]
        self._to_history_step(step, timeout)
        self._frame_index = index
        return Frame(frame.index, frame.function, frame.file, frame.line, True)

    def _to_history_step(self, step: int, timeout: float) -> None:
        if step == self._depth:
            return
        if step > self._depth:
            answer = self.command(f":back {step - self._depth}", timeout)
        else:
            answer = self.command(f":forward {self._depth - step}", timeout)
        self._depth, self._frame_index = step, 0 if step == 0 else self._frame_index
        # "Logged breakpoint at SPAN" and the names in scope there, typed.
        self._scope = {name for name, _, _ in parse.bindings(answer)} if step else None

    def locals(self, timeout: float) -> list[Variable]:
        self.require_stopped("locals", timeout)
        # At a frame's step, :show bindings still lists the stop's names too.
        return [Variable(name, value or "_", kind)
                for name, kind, value in parse.bindings(self.command(":show bindings", timeout))
                if name not in (parse.OWN_NAME, "it")
                and (self._scope is None or name in self._scope)]

    def _checked(self, line: str, timeout: float) -> str:
        answer = self._bounded(line, timeout)
        if parse.last_stop(answer) is not None:
            # Evaluating it reached a breakpoint: ghci stopped inside. Leave
            # that evaluation, back to the stop the user is at.
            self.command(":abandon", timeout)
            raise OpFailed("evaluating it reached a breakpoint",
                           "remove the breakpoint (`dbg unbreak`) to evaluate it")
        failed = parse.error(answer)
        if failed:
            raise OpFailed(f"ghci: {failed}")
        thrown = parse.EXCEPTION_RE.search(answer)
        if thrown:
            raise OpFailed(f"evaluating it raised an exception: {thrown['what'].strip()}")
        return answer

    def _bounded(self, line: str, timeout: float) -> str:
        """A command that evaluates the program's code, which may never end
        (``length [1..]``): past ``timeout`` ghci is interrupted, which
        abandons that evaluation only; the program stays at its stop."""
        driver = self.drv()
        self.settle(timeout)
        try:
            return driver.exchange(line, timeout).before
        except PtyTimeout:
            self._interrupt_interpreter()
            try:
                driver.expect([], INTERRUPT_WAIT)
                driver.owed = 0
            except PtyTimeout:
                pass  # still owed: the next command waits for it first
            raise OpFailed(f"ghci did not finish evaluating it within {timeout:g}s, and "
                           "was interrupted; the program is still at its stop",
                           "a larger --timeout gives it longer") from None

    def _interrupt_interpreter(self) -> None:
        # The evaluation runs in ghc-iserv: ghci does not pass its own SIGINT
        # on, the interpreter's is what interrupts it.
        self._track_interpreter()
        if not self.child_pids:
            self.drv().interrupt()
            return
        self.ctx.log.note(f"SIGINT to ghc-iserv (pid {self.child_pids[0]})")
        try:
            os.kill(self.child_pids[0], signal.SIGINT)
        except OSError:
            pass

    def evaluate(self, expression: str, timeout: float) -> Value:
        """The value as ``show`` writes it, forced with ``:force`` (in ghci,
        not in the interpreter, whose output is the program's); a value with
        no Show instance as ghci's term printer writes it. Forcing runs the
        program's code: it may loop, raise, or reach a breakpoint."""
        self.require_stopped("print", timeout)
        text = expression.strip()
        if not text:
            raise UsageError("give an expression to evaluate")
        shown = True
        try:
            self._checked(f"let {parse.OWN_NAME} = show ({text})", timeout)
        except OpFailed as exc:
            if "No instance for (Show" not in exc.message:
                raise
            shown = False
            self._checked(f"let {parse.OWN_NAME} = ({text})", timeout)
        answer = self._checked(f":force {parse.OWN_NAME}", timeout).strip()
        value = " ".join(answer.split("\n")).replace("\r", "")
        value = value.removeprefix(f"{parse.OWN_NAME} = ")
        if shown and len(value) >= 2 and value.startswith('"') and value.endswith('"'):
            value = value[1:-1]  # :force writes a String between quotes, unescaped
        return Value(value)
