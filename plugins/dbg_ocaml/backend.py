"""The ocamldebug backend: OCaml bytecode programs under OCaml's own
debugger, driven through a PTY; the first backend that runs backwards.

ocamldebug runs the program as its child, through ``/bin/sh -c`` with the
``set arguments`` text after the program's name, so the program's stdin,
stdout and stderr are redirected there (to the output pump's FIFOs) and
never mix with ocamldebug's answers. What it prints, and how it is read:

- a stop: ``Time: 169 - pc: 0:138552 - module Cart``, maybe ``Breakpoint: 1``
  (``Breakpoints: 1 2``), then the source line with the event's mark,
  ``17   <|b|>let discount = ...`` (``<|a|>``: after a call);
- the end: ``Program exit.``, or ``Program end.`` then ``Uncaught exception:
  Not_found``; going back to the start, ``Beginning of program.``;
- ``backtrace``: ``#0 Cart cart.ml:17:3`` per frame, with no function names,
  which dbg reads from the source (:mod:`dbg_ocaml.source`);
- ``print x``: ``x: float = 19.25``, a long value on indented lines after.

ocamldebug steps by *events* (a function's entry, before an expression,
after a call), several to a line; dbg's `step`, `next` and their reverse
run ocamldebug's command until the line changes, as other backends step by
line. Going back is ocamldebug's checkpoints: it forks the program as it
runs and goes back by running a copy forward from an earlier time, so the
program writes again what it wrote then; dbg drops that repeated output.
ocamldebug does not report the exit code: a breakpoint of dbg's own on
``Stdlib.exit`` reads ``retcode`` (a program that ends otherwise ends 0,
with an uncaught exception 2, as OCaml's runtime does).

What dbg knows of the program apart from ocamldebug's answers (its
sources, functions, events and processes) is :mod:`dbg_ocaml.program`, a
layer under this one; the patterns it reads ocamldebug's text with are
:mod:`dbg_ocaml.parse`, and what it reads from the source itself
:mod:`dbg_ocaml.source`.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
from pathlib import Path
from typing import ClassVar

from dbg_ocaml import source
from dbg_ocaml.parse import (
    BACKWARD,
    BREAK_SET_RE,
    EVENT_LINE_RE,
    EVENT_RE,
    FORWARD,
    FRAME_RE,
    HIT_RE,
    MAX_EVENTS,
    PRINTABLE_RE,
    PRINTED_RE,
    PROMPT,
    QUESTION_RE,
    START_WAIT,
    TIME_RE,
    UNBOUND_RE,
    UNCAUGHT_RE,
    entries,
    ocaml_build_command,
    one_line,
    stdlib_dir,
)
from dbg_ocaml.program import OcamlProgram
from dbgcore.api import (
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    Frame,
    LaunchRequest,
    Location,
    Message,
    OpFailed,
    OutputPump,
    PtyEOF,
    PtyTimeout,
    Readiness,
    SessionContext,
    StopEvent,
    UsageError,
    Value,
    Variable,
    ended,
    no_code_message,
)

PRINT_HINT = ("ocamldebug prints a name, a field (r.f), an item (a.(0), s.[0]) or a "
              "dereference (!r); not operators or calls")


class OcamlBackend(OcamlProgram):
    id = "ocamldebug"
    tool = "ocamldebug"
    reads_stdin = True
    unsupported_hints: ClassVar[dict[str, str]] = {
        "watch": "ocamldebug has no watchpoints; `dbg raw break @ Module LINE` stops at a line",
        "set": "ocamldebug cannot change a value (`dbg raw print NAME` reads one)",
        "until": "`dbg raw break @ Module LINE`, then `dbg continue`",
        "catch": "ocamldebug does not stop at a raise; dbg stops where an uncaught "
                 "exception was raised (`dbg start --no-catch`: the end), and `dbg step "
                 "--back` goes back from any stop",
        "threads": "ocamldebug debugs one thread (`dbg raw backtrace`)",
        "thread": "ocamldebug debugs one thread (`dbg raw backtrace`)",
        "attach": "ocamldebug starts the program itself",
    }

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self._where: Location | None = None
        self._module = ""
        self._pc = ""
        self._time = 0
        self._latest = 0  # the latest time the program has reached: later is new
        self._exit_code: int | None = None
        self._socket = ""  # where the program reaches ocamldebug
        self._stop_on_uncaught = True
        #: The times of the ends by an uncaught exception already shown as
        #: a stop at the raise: the next run to one of them is the end.
        self._uncaught_seen: set[int] = set()
        self._exit_break: int | None = None  # ocamldebug's number of dbg's own
        self._at_exit = False  # stopped at it
        self._breaks: dict[int, tuple[int, Breakpoint]] = {}  # dbg's id -> (theirs, bp)
        self._frame = 0
        self._replay = False  # the output now is the program's again, from a checkpoint
        self._held: list[tuple[str, str]] = []

    # -- availability ------------------------------------------------------------

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        found = super().check(spec)
        if not found.ready:
            return found
        try:
            text = subprocess.run([found.detail, "-version"], capture_output=True, text=True,
                                  timeout=10).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            return Readiness(False, f"{found.detail} does not run: {exc}")
        version = text.split()[-1] if text.split() else ""
        return Readiness(True, f"{found.detail} (OCaml {version})", version)

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        if program.is_dir():
            raise UsageError(f"{program} is a folder; ocamldebug runs a bytecode program",
                             "give the .ml file (dbg builds it) or a program built with "
                             "ocamlc -g")
        if program.suffix in (".ml", ".mli") and program.is_file():
            raise UsageError(f"{program} is OCaml source", "let dbg build it (without "
                             "--no-build), or run `ocamlc -g -o prog " + program.name + "`")

    @classmethod
    def build_command(cls, spec: BackendSpec, program: Path,
                      out: Path) -> tuple[list[str], Path] | None:
        return ocaml_build_command(program, out)

    # -- starting ------------------------------------------------------------------

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        if request.module:
            raise UsageError("ocamldebug runs a bytecode program, not -m MODULE")
        cwd = request.cwd or os.getcwd()
        self._stop_on_uncaught = request.stop_on_uncaught
        program = os.path.abspath(os.path.join(cwd, request.program))
        origin = request.built_from or program
        self._dirs = [os.path.dirname(os.path.abspath(origin)), cwd]
        lib = stdlib_dir()
        if lib:
            self._dirs.append(lib)
        stem = Path(origin).stem
        self._main = source.module_name(stem) if \
            self._module_file(source.module_name(stem)) else ""
        self.pump = OutputPump(self.ctx.run_dir, "ocaml", self.ctx.output,
                               transform=self._program_output)
        includes = [word for d in self._dirs[:1] for word in ("-I", d)]
        self.start_console([*self.spec.command, *includes, program], PROMPT, cwd=cwd)
        try:
            self.drv().expect([], START_WAIT)
        except PtyTimeout as exc:
            raise OpFailed("ocamldebug did not start", exc.output[-300:]) from exc
        redirect = " ".join(
            [*map(shlex.quote, request.args),
             "<", shlex.quote(request.stdin or os.devnull),
             ">", shlex.quote(str(self.pump.paths["stdout"])),
             "2>", shlex.quote(str(self.pump.paths["stderr"]))])
        self.set_state("stopped")
        self.command(f"set arguments {redirect}", timeout)
        # The program's socket in the session's folder (not /tmp), where only
        # the session's user reaches it; a path too long for a socket keeps
        # ocamldebug's own.
        # (one per ocamldebug: the one before a restart may not have gone yet)
        socket = str(self.ctx.run_dir / f"ocamldebug-{self.drv().pid}.sock")
        if len(socket.encode()) < 100:
            with contextlib.suppress(OSError):
                os.unlink(socket)
            self.command(f"set socket {socket}", timeout)
        else:
            socket = f"/tmp/camldebug{self.drv().pid}"
        self._socket = socket
        loaded = self.command("goto 0", max(timeout, START_WAIT))
        self._find_shell(socket)
        if "done" not in loaded and "Time" not in loaded:
            raise OpFailed(f"ocamldebug cannot load {program}", loaded.strip()[-300:] or
                           "build it with ocamlc -g (bytecode, not ocamlopt)")
        self._exit_breakpoint(lib, timeout)
        if request.before_run is not None:
            request.before_run()
            return self._run("run", "breakpoint", timeout, START_WAIT)
        return self._entry(timeout)

    def _exit_breakpoint(self, lib: str, timeout: float) -> None:
        """dbg's own breakpoint in ``Stdlib.exit``, where ``retcode`` is the exit code."""
        line = source.definition_line(source.read_lines(os.path.join(lib, "stdlib.ml")),
                                      "exit") if lib else None
        if line is None:
            return
        event = self._event_at("Stdlib", os.path.join(lib, "stdlib.ml"), line, True, timeout)
        placed = BREAK_SET_RE.search(self.command(f"break {event[0]}", timeout)) \
            if event else None
        if placed:
            self._exit_break = int(placed["id"])

    def _entry(self, timeout: float) -> StopEvent:
        """Stop at the program's first event in its own module: ocamldebug
        has no such stop, so a breakpoint on each of the module's events,
        removed once one is hit."""
        if not self._main:
            return self._run("step", "entry", timeout, START_WAIT)
        events = [m["pc"].replace(" ", "") for m in
                  EVENT_RE.finditer(self.command(f"info events {self._main}", timeout))
                  if not m["kind"].startswith("pseudo")]
        placed = []
        for pc in events:
            made = BREAK_SET_RE.search(self.command(f"break {pc}", timeout))
            if made:
                placed.append(made["id"])
        event = self._run("run", "entry", timeout, START_WAIT)
        for start in range(0, len(placed), 50):
            self.command("delete " + " ".join(placed[start:start + 50]), timeout)
        return event

    # -- the program's output ------------------------------------------------------------

    def _program_output(self, category: str, text: str) -> str:
        # Called by the pump's thread. What a copy run from a checkpoint
        # writes again is held until its stop says whether it went past
        # the latest time the program had reached (then it is new).
        if self._replay:
            self._held.append((category, text))
            return ""
        return text

    def _settle_output(self) -> None:
        if self.pump is not None:
            self.pump.drain()
        held, self._held = self._held, []
        if self._replay and self._time > self._latest:
            for category, text in held:
                self.ctx.output.append(category, text)
        self._replay = False
        self._latest = max(self._latest, self._time)

    # -- running ---------------------------------------------------------------------------

    def wait_stop(self, wait: float, timeout: float) -> StopEvent:
        try:
            match = self.drv().expect([QUESTION_RE], wait)
        except PtyTimeout:
            self.set_state("running")
            return StopEvent(state="running")
        except PtyEOF:
            self._replay = False
            return self.console_ended(self._exit_code)
        if match.index == 1:  # "Lost connection with process ...": do not retry
            self.drv().send_line("n")
            self.drv().expect([], timeout)
            self.set_state("exited")
            self._settle_output()
            end = ended(self._exit_code)
            end.description = f"ocamldebug lost the program: {match.before.strip()}"
            return end
        return self._read_stop(match.before, timeout)

    def _read_stop(self, text: str, timeout: float) -> StopEvent:
        self.set_state("stopped")
        self._frame = 0
        self._at_exit = False
        times = list(TIME_RE.finditer(text))
        if times:
            self._time = int(times[-1]["time"])
        self._settle_output()
        if "Program exit." in text or "Program end." in text:
            self.set_state("exited")
            uncaught = UNCAUGHT_RE.search(text)
            if uncaught and self._stop_on_uncaught and self._time not in self._uncaught_seen:
                return self._at_raise(uncaught["exception"].strip(), timeout)
            if uncaught:
                # OCaml's runtime ends a program with an uncaught exception with 2.
                end = ended(2)
                end.description = f"uncaught exception {uncaught['exception'].strip()}"
                return end
            return ended(self._exit_code if self._exit_code is not None else 0)
        if "Beginning of program." in text:
            self._where = None
            return StopEvent(state="stopped", reason="entry",
                             description="the beginning of the program (time 0): "
                                         "nothing runs before it")
        if not times or not times[-1]["module"]:
            return StopEvent(state="stopped", location=self._where)
        module = times[-1]["module"]
        after = text[times[-1].end():]
        line = EVENT_LINE_RE.search(after)
        path = self._module_file(module)
        if line is None or path is None:
            frames = self.stack(1, timeout)
            where = frames[0] if frames else None
            self._where = Location(where.file, where.line, where.function) if where else None
        else:
            number = int(line["line"])
            self._where = Location(path, number, self._function(module, path, number))
        self._module = module
        self._pc = (times[-1]["pc"] or "").replace(" ", "")
        hits = HIT_RE.search(after)
        theirs = [int(n) for n in hits["ids"].split()] if hits else []
        self._at_exit = self._exit_break in theirs
        if self._at_exit:
            self._read_exit_code(timeout)
        hit: list[int | str] = [ours for ours, (number, _) in self._breaks.items()
                                if number in theirs]
        return StopEvent(state="stopped", reason="breakpoint" if hit else "step",
                         location=self._where, hit_breakpoints=hit)

    def _at_raise(self, exception: str, timeout: float) -> StopEvent:
        """An uncaught exception ended the program: one event back is the
        raise, with the program as it was (ocamldebug keeps it), which is
        the stop; going on from there ends it."""
        self._uncaught_seen.add(self._time)
        self.set_state("stopped")
        self._replay = True
        back = self._read_stop(self.command("backstep", timeout), timeout)
        if back.state != "stopped" or self._where is None:
            end = ended(2)
            end.description = f"uncaught exception {exception}"
            return end
        return StopEvent(state="stopped", reason="exception", location=self._where,
                         description=f"uncaught exception {exception}")

    def _read_exit_code(self, timeout: float) -> None:
        printed = PRINTED_RE.match(self.command("print retcode", timeout).strip())
        if printed and printed["value"].strip().lstrip("-").isdigit():
            self._exit_code = int(printed["value"].strip())

    def _run(self, command: str, reason: str, timeout: float, wait: float | None = None,
             back: bool = False) -> StopEvent:
        self.settle(timeout)
        self._replay = back or self._time < self._latest
        self.set_state("running")
        self.drv().send_line(command)
        event = self.wait_stop(wait if wait is not None else timeout, timeout)
        if event.state != "stopped":
            return event
        if self._at_exit and not event.hit_breakpoints and command in ("run", "reverse"):
            return self._run(command, reason, timeout, wait, back)  # dbg's own: run on
        if event.reason == "breakpoint" and not back:
            for bp_id in event.hit_breakpoints:
                self._breaks[int(bp_id)][1].hits += 1
        if reason != "breakpoint" and event.reason == "step":
            event.reason = reason
        return event

    def _by_line(self, op: str, back: bool, timeout: float) -> StopEvent:
        """`step`/`next` (and back): ocamldebug's command until the line
        changes; going back, on to the first event of the line reached."""
        command = (BACKWARD if back else FORWARD)[op]
        self.require_stopped(op, timeout)
        start = (self._where.file, self._where.line) if self._where else None
        event = self._run(command, "step", timeout, back=back)
        for _ in range(MAX_EVENTS):
            here = (self._where.file, self._where.line) if self._where else None
            if event.state != "stopped" or event.reason == "breakpoint" or here != start \
                    or (op == "step" and self._at_function_entry(timeout)):
                break
            event = self._run(command, "step", timeout, back=back)
        if not back or event.state != "stopped" or event.reason == "breakpoint" \
                or self._where is None or self._at_function_entry(timeout):
            return event
        reached = (self._where.file, self._where.line)
        for _ in range(MAX_EVENTS):
            earlier = self._run(command, "step", timeout, back=True)
            here = (self._where.file, self._where.line) if self._where else None
            if earlier.state != "stopped" or earlier.reason == "breakpoint":
                return earlier
            if here != reached:
                return self._run("step", "step", timeout)  # one event on: the line's first
            event = earlier
            if self._at_function_entry(timeout):
                return event
        return event

    def until(self, loc: BreakLoc | None, timeout: float) -> StopEvent:
        self.require_stopped("until", timeout)
        if loc is None or loc.line is None:
            raise self.unsupported("until", "give a line ahead: `dbg until LINE`")
        known = self._file_for(loc.file) if loc.file else \
            (self._where.file if self._where else None)
        if known is None:
            raise UsageError("give a location as FILE:LINE")
        event = self._event_at(source.module_name(known), known, loc.line, False, timeout)
        if event is None:
            raise OpFailed(no_code_message(known, loc.line), "pick a line with an expression")
        placed = BREAK_SET_RE.search(self.command(f"break {event[0]}", timeout))
        if placed is None:
            raise OpFailed(f"ocamldebug cannot stop at {known}:{loc.line}",
                           "`dbg break` it and `dbg continue`")
        try:
            return self._run("run", "step", timeout)
        finally:
            if self.state() == "stopped":
                self.command(f"delete {placed['id']}", timeout)

    def cont(self, timeout: float) -> StopEvent:
        self.require_stopped("continue", timeout)
        return self._run("run", "breakpoint", timeout)

    def step(self, timeout: float) -> StopEvent:
        return self._by_line("step", False, timeout)

    def next(self, timeout: float) -> StopEvent:
        return self._by_line("next", False, timeout)

    def finish(self, timeout: float) -> StopEvent:
        self.require_stopped("finish", timeout)
        return self._run("finish", "return", timeout)

    def reverse(self, motion: str, timeout: float) -> StopEvent:
        if motion in ("step", "next"):
            return self._by_line(motion, True, timeout)
        self.require_stopped(f"{motion} --back", timeout)
        if motion == "continue":
            return self._run("reverse", "breakpoint", timeout, back=True)
        # finish --back: ocamldebug's `start` goes back to the beginning of
        # the program from a function's first event; stepping back over
        # calls until the stack is shorter stops at the call instead.
        depth = len(self.stack(None, timeout))
        event = StopEvent(state="stopped", location=self._where)
        for _ in range(MAX_EVENTS * 5):
            event = self._run("previous", "step", timeout, back=True)
            if event.state != "stopped" or event.reason == "breakpoint" or \
                    self._where is None or len(self.stack(None, timeout)) < depth:
                return event
        return event

    def record(self, stop: bool, timeout: float) -> Message:
        # ocamldebug keeps its checkpoints from the program's start, always:
        # there is no record to start, nor one to end.
        if stop:
            raise OpFailed("ocamldebug's record cannot be ended: its checkpoints are how "
                           "it debugs", "`dbg continue` runs on; `--back` goes back")
        return {"recording": True, "said": "ocamldebug records every run from its start "
                                           "(its checkpoints): `--back` needs no `dbg record`"}

    def terminate(self) -> None:
        super().terminate()
        # ocamldebug leaves its socket behind when it is ended by a signal.
        if self._socket.startswith(str(self.ctx.run_dir)):
            with contextlib.suppress(OSError):
                os.unlink(self._socket)

    def pause(self, timeout: float) -> StopEvent:
        return self.interrupt_and_wait(timeout)

    # -- breakpoints ------------------------------------------------------------------------

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        self.refuse_break_options(options, "ocamldebug breakpoints are plain: "
                                  "`dbg raw break @ Module LINE`")
        if self.state() == "running":
            self.require_stopped("break", timeout)
        if loc.function:
            module, path, line = self._function_place(loc.function)
        else:
            if loc.line is None:
                raise UsageError("give a location as FILE:LINE or FUNCTION")
            known = self._file_for(loc.file) if loc.file else \
                (self._where.file if self._where else None)
            if known is None:
                raise UsageError("give a location as FILE:LINE")
            path, module, line = known, source.module_name(known), loc.line
        event = self._event_at(module, path, line, bool(loc.function), timeout)
        if event is None:
            raise OpFailed(no_code_message(path, line), "pick a line with an expression")
        pc, bound = event
        answer = self.command(f"break {pc}", timeout)
        placed = BREAK_SET_RE.search(answer)
        if placed is None:
            raise OpFailed(f"ocamldebug: {answer.strip() or 'no breakpoint set'}",
                           "give a line of a module the program has, built with -g")
        # (ocamldebug's answer may name a line above: an event that shares
        # its instruction with the end of the call before it.)
        number = max(self._breaks, default=0) + 1
        bp = Breakpoint(id=number, file=path, line=bound, function=loc.function,
                        requested=loc.key(),
                        requested_line=line if bound != line and not loc.function else None)
        self._breaks[number] = (int(placed["id"]), bp)
        return bp

    def _at_function_entry(self, timeout: float) -> bool:
        """At a function's first event: a call entered (or, going back, the
        start of the current one), even on the same line (recursion)."""
        return any(pc == self._pc and kind.endswith("/fun")
                   for pc, _, kind in self._events_of(self._module, timeout))

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        entry = self._breaks.get(int(bp_id)) if str(bp_id).isdigit() else None
        if entry is None:
            raise OpFailed(f"no breakpoint {bp_id}", "`dbg breaks` lists them")
        if self.state() == "running":
            self.require_stopped("unbreak", timeout)
        self.command(f"delete {entry[0]}", timeout)
        del self._breaks[int(bp_id)]

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        return [bp for _, bp in self._breaks.values()]

    # -- inspection ---------------------------------------------------------------------------

    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        self.require_stopped("stack", timeout)
        answer = self.command("backtrace" + (f" {levels}" if levels else ""), timeout)
        frames = []
        for found in FRAME_RE.finditer(answer):
            module, line = found["module"], int(found["line"])
            path = self._module_file(module)
            index = int(found["index"])
            library = module.startswith(("Stdlib", "Camlinternal"))
            frames.append(Frame(index, self._function(module, path, line),
                                path or found["file"], line, current=index == self._frame,
                                library=library, library_name="stdlib" if library else None))
        return frames

    def frame_args(self, frames: list[Frame], timeout: float) -> None:
        """Each frame's parameters, from its function's header in the source,
        printed in that frame (then the selected frame is selected again)."""
        self.require_stopped("stack", timeout)
        try:
            for frame in frames:
                names = source.parameters(self._source(frame.file), frame.line) \
                    if frame.file and frame.line else []
                if not names:
                    continue
                self.command(f"frame {frame.index}", timeout)
                # None when ocamldebug knows none of them there: the line is
                # in a function inside the definition (a `fun`), whose
                # parameters the header does not give.
                frame.args = self._printed(names, timeout) or None
        finally:
            self.command(f"frame {self._frame}", timeout)

    def _printed(self, names: list[str], timeout: float) -> list[Variable]:
        """The values of those of ``names`` ocamldebug knows where it is, in
        order; one `print` of them all, again after each unknown one."""
        found: list[Variable] = []
        while names:
            answer = self.command("print " + " ".join(names), timeout)
            for entry in entries(answer):
                printed = PRINTED_RE.match(entry)
                if printed and printed["name"] in names:
                    found.append(Variable(printed["name"], one_line(printed["value"]),
                                          printed["type"]))
            unbound = UNBOUND_RE.search(answer)
            if unbound is None or unbound["name"] not in names:
                break
            names = names[names.index(unbound["name"]) + 1:]
        return found

    def select_frame(self, index: int, timeout: float) -> Frame:
        frames = self.stack(None, timeout)
        if not 0 <= index < len(frames):
            raise OpFailed(f"no frame {index}; the stack has {len(frames)}", "see `dbg stack`")
        self.command(f"frame {index}", timeout)
        self._frame = index
        for frame in frames:
            frame.current = frame.index == index
        return frames[index]

    def locals(self, timeout: float) -> list[Variable]:
        """ocamldebug cannot list a frame's names: dbg reads the ones the
        enclosing definition binds from the source, and asks for each; those
        ocamldebug does not know there are out of scope."""
        self.require_stopped("locals", timeout)
        frame = self._where
        if self._frame:
            frames = self.stack(self._frame + 1, timeout)
            chosen = frames[self._frame] if len(frames) > self._frame else None
            frame = Location(chosen.file, chosen.line, chosen.function) if chosen else None
        if frame is None or not frame.file or not frame.line:
            return []
        return self._printed(source.names_in_scope(self._source(frame.file), frame.line),
                             timeout)

    def evaluate(self, expression: str, timeout: float) -> Value:
        self.require_stopped("print", timeout)
        if not PRINTABLE_RE.match(expression.strip()):
            raise OpFailed(f"ocamldebug cannot print {expression.strip()!r}", PRINT_HINT)
        answer = self.command(f"print {expression.strip()}", timeout).strip()
        printed = PRINTED_RE.match(answer)
        if printed is None:
            raise OpFailed(f"ocamldebug: {answer.splitlines()[0] if answer else 'no value'}",
                           PRINT_HINT)
        return Value(one_line(printed["value"]), printed["type"])

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        if self.state() == "exited":
            return self.command(text, timeout).strip(), None
        self.require_stopped("raw", timeout)
        # Sent before the state says running: a line the terminal refuses
        # (too long) leaves the program stopped where it was.
        self.drv().send_line(text)
        self._replay = self._time < self._latest
        self.set_state("running")
        try:
            match = self.drv().expect([], timeout)
        except PtyTimeout:
            return "", StopEvent(state="running")
        except PtyEOF:
            return "", self.console_ended(self._exit_code)
        if TIME_RE.search(match.before) or "Program e" in match.before:
            return match.before.strip(), self._read_stop(match.before, timeout)
        self.set_state("stopped")
        self._settle_output()
        return match.before.strip(), None
