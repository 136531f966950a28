"""The ``ghci`` backend: Haskell programs under GHCi's debugger, driven over
a pseudo-terminal (:class:`ConsoleBackend`).

ghci interprets the source, so ``dbg start Main.hs`` builds nothing. It runs
as ``ghci -v0 -ignore-dot-ghci -ghci-script INIT -fexternal-interpreter
-pgmi WRAPPER PROGRAM``: INIT sets a prompt no program prints (ghci puts the
stop's span before it, ``[cart.hs:18:19-39] ``), and the program's code runs
in ghci's external interpreter (``ghc-iserv``), a process of its own that
WRAPPER starts with its stdin, stdout and stderr on dbg's files. So the
terminal carries only ghci's answers, the program's output reaches ``dbg
output`` apart, and the interpreter is the program's process. (The dynamic
interpreter, ``ghc-iserv-dyn``, crashes at a breakpoint in GHC 9.0; the
static one does not, and is the one started.)

The program is evaluated with ``:trace main`` (and continued with
``:trace``), so that ``:history`` holds the steps that led to a stop:
``dbg stack`` shows them below the stop (see :meth:`GhciBackend.stack`).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import ClassVar

from dbg_ghci import parse
from dbg_ghci.inspection import GhciInspection
from dbgcore.api import (
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    LaunchRequest,
    Location,
    OpFailed,
    PtyEOF,
    PtyTimeout,
    Readiness,
    StopEvent,
    Support,
    UsageError,
    no_code_message,
    resolve_source,
    walk_sources,
)

MARK = "\u2551dbg-ghci\u2551 "
#: ghci's prompt: ours, after the stop's context ghci puts before it (one
#: per nested stop: ``[cart.hs:18:19-39] ``, ``[-1: cart.hs:19:6-21] ``).
PROMPT = re.compile(r"(?:\[[^\]\r\n]*\] )*" + re.escape(MARK))
#: How long ghci has to load and interpret the program, whatever --timeout.
START_WAIT = 60.0
#: How many of ghci's steps one `dbg step` or `next` takes at most while
#: they stay on one line (ghci stops at every subexpression).
LINE_STEPS = 200
#: Commands that let the program run: `dbg raw` reads their stop.
RESUMING = (":continue", ":trace", ":step", ":steplocal", ":stepmodule", ":main", ":run")
#: The exception of -fbreak-on-error's stop: ghci gives ``_exception`` no
#: type (``e``), so it is told it is a SomeException to be shown.
EXCEPTION_SHOWN = "(Unsafe.Coerce.unsafeCoerce _exception :: Control.Exception.SomeException)"
#: What begins main's evaluation, for each command that goes on with one.
FIRST_RUN = {":trace": ":trace main", ":continue": ":trace main", ":step": ":step main",
             ":stepmodule": ":step main", ":steplocal": ":step main"}
#: `dbg catch` filters: ghci's flags that make an exception a stop.
CATCH_FLAGS = {"uncaught": "break-on-error", "all": "break-on-exception"}
WRAPPER = """#!/bin/sh
# dbg's ghc-iserv: the program's own process, its streams on dbg's files.
echo $$ > "$DBG_ISERV_PID"
exec "$DBG_ISERV" "$@" <"$DBG_STDIN" >"$DBG_STDOUT" 2>"$DBG_STDERR"
"""


def haskell_string(text: str) -> str:
    """``text`` as a Haskell string literal (for ``:set args``)."""
    out = []
    for char in text:
        if char in '\\"':
            out.append("\\" + char)
        elif char.isprintable() and char.isascii():
            out.append(char)
        else:
            out.append(f"\\{ord(char)}\\&")
    return '"' + "".join(out) + '"'


def _libdir(ghci: str) -> str:
    """GHC's library folder, which holds its interpreters: asked of the ghc
    beside ghci (ghci is ``ghc --interactive``, which refuses the question)."""
    beside = Path(ghci).with_name("ghc")
    ghc = str(beside) if os.access(beside, os.X_OK) else "ghc"
    return subprocess.run([ghc, "--print-libdir"], capture_output=True, text=True,
                          timeout=30).stdout.strip()


class GhciBackend(GhciInspection):
    id = "ghci"
    tool = "ghci"
    reads_stdin = True
    features: ClassVar[dict[str, Support]] = {"stdin": "native"}
    #: until is a breakpoint of ghci's for the one run.
    op_support: ClassVar[dict[str, Support]] = {"until": "fallback"}
    unsupported_hints: ClassVar[dict[str, str]] = {
        "pause": "an interrupt makes ghci abandon the evaluation, which ends the program; "
                 "stop it with a breakpoint (`dbg break`) instead",
        "watch": "ghci has no watchpoints (values do not change in Haskell); "
                 "`dbg raw :print NAME` shows how far a value is evaluated",
        "set": "Haskell values are immutable: ghci cannot change one; "
               "`dbg raw let NAME = VALUE` binds a new name",
        "finish": "ghci has no step out; `dbg raw :steplocal` or `dbg raw :continue`",
        "threads": "ghci's debugger shows one evaluation; `dbg raw :show context`",
        "thread": "ghci's debugger shows one evaluation; `dbg raw :show context`",
        "stacks": "ghci has no call stacks; `dbg stack` shows the stop and its "
                  ":history, `dbg raw :history` all of it",
        "trace": "`dbg raw :history` lists the steps ghci traced",
        "attach": "ghci runs Haskell source itself; it cannot attach to a process",
    }

    # -- availability --------------------------------------------------------------

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        found = super().check(spec)
        if not found.ready:
            return found
        try:
            version = subprocess.run([found.detail, "--numeric-version"], capture_output=True,
                                     text=True, timeout=30).stdout.strip()
            iserv = Path(_libdir(found.detail)) / "bin" / "ghc-iserv"
        except (OSError, subprocess.SubprocessError) as exc:
            return Readiness(False, f"{found.detail} does not run: {exc}")
        if not os.access(iserv, os.X_OK):
            return Readiness(False, f"{found.detail} (GHC {version}) has no {iserv}, its "
                             "external interpreter")
        return Readiness(True, f"{found.detail} (GHC {version})", version)

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        if program.is_dir():
            raise UsageError(f"{program} is a folder; ghci runs a Haskell source file",
                             "give the file that holds main: dbg start path/to/Main.hs")

    # -- lifecycle ------------------------------------------------------------------

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        if request.module:
            raise UsageError("ghci runs a source file, not -m MODULE")
        self._cwd = request.cwd or os.getcwd()
        self._program = os.path.abspath(os.path.join(self._cwd, request.program))
        self._name = Path(self._program).stem
        ghci = self.spec.command[0]
        run_dir = Path(self.ctx.run_dir)
        wrapper = run_dir / "ghc-iserv.sh"
        wrapper.write_text(WRAPPER)
        wrapper.chmod(0o700)
        script = run_dir / "ghci-init.ghci"
        lines = [f':set prompt "{MARK.replace(chr(0x2551), chr(92) + "9553")}"',
                 f':set prompt-cont "{MARK.replace(chr(0x2551), chr(92) + "9553")}"']
        self._catches = ["uncaught"] if request.stop_on_uncaught else []
        if request.stop_on_uncaught:
            lines.append(":set -fbreak-on-error")
        if request.args:
            lines.append(":set args " + " ".join(map(haskell_string, request.args)))
        script.write_text("\n".join(lines) + "\n")
        pump = self.output_pump("ghci")
        env = {**request.env, "DBG_ISERV": str(Path(_libdir(ghci)) / "bin" / "ghc-iserv"),
               "DBG_ISERV_PID": str(self._iserv_pid_file),
               "DBG_STDOUT": str(pump.paths["stdout"]), "DBG_STDERR": str(pump.paths["stderr"]),
               "DBG_STDIN": request.stdin or os.devnull}
        argv = [*self.spec.command, "-v0", "-ignore-dot-ghci", "-ghci-script", str(script),
                "-fexternal-interpreter", "-pgmi", str(wrapper),
                # The program's own modules are found beside it, wherever dbg runs.
                f"-i{os.path.dirname(self._program)}", self._program]
        self.start_console(argv, PROMPT, env=env, cwd=self._cwd)
        try:
            loaded = self.drv().expect([], START_WAIT).before
        except (PtyEOF, PtyTimeout) as exc:
            raise OpFailed(f"ghci did not load {request.program}: {exc.output.strip()[-800:]}")\
                from exc
        if ": error:" in loaded or "Failed, " in loaded:
            raise OpFailed(f"ghci cannot load {request.program}:\n{loaded.strip()[-2000:]}",
                           "fix the program's errors, then `dbg restart`")
        has_main = self.command(":type main", START_WAIT)
        if parse.error(has_main):
            raise OpFailed(f"{request.program} has no main: ghci says "
                           f"{parse.error(has_main)}", "give the file that holds main")
        self.set_state("stopped")
        if not request.stop_on_entry:
            return self._run(":trace", "start", "continue", max(timeout, START_WAIT))
        # The entry stop is before main's evaluation begins: what is set
        # there (breakpoints, `dbg catch`) holds for the whole run, as ghci
        # takes its flags when an evaluation begins.
        self._where = Location(self._program, parse.main_line(
            Path(self._program).read_text(errors="replace")),
            f"{self._module(self._program)}.main")
        return StopEvent(state="stopped", reason="entry", location=self._where)

    def wait_stop(self, wait: float, timeout: float) -> StopEvent:
        """Read up to ghci's prompt for ``wait`` seconds: a stop if the answer
        says ``Stopped in``, else the end of ``main``'s evaluation, the
        program's end (ghci is then told to quit)."""
        try:
            match = self.drv().expect([], wait)
        except PtyTimeout:
            self.set_state("running")
            return StopEvent(state="running")
        except PtyEOF:
            return self.console_ended(1)
        self._track_interpreter()
        if self.pump is not None:
            self.pump.drain()
        answer = match.before
        stop = parse.last_stop(answer)
        reason, self._reason = self._reason, ""
        if stop is None:
            return self._ended(answer)
        self.set_state("stopped")
        self._stop = stop
        if self._until_break is not None:
            self.command(f":delete {self._until_break}", timeout)
            self._until_break = None
        self._frames, self._depth, self._frame_index, self._scope = None, 0, 0, None
        if stop.exception and self._started and not self._catches:
            # `dbg catch` with no filter during a run that began catching:
            # the exception goes on, as it would uncaught.
            return self._run(":trace", "continue", reason or "continue", timeout)
        if stop.exception:
            return self._exception_stop(timeout)
        self._where = self._location(stop)
        hit = [number for number, (_, where, _) in self._breaks.items()
               if where == stop.span_text.strip()]
        if reason == "continue":
            reason = "breakpoint" if hit else "step"
        for number in hit:
            self._breaks[number][2].hits += 1
        ids: list[int | str] = list(hit)
        return StopEvent(state="stopped", reason=reason or "step", location=self._where,
                         hit_breakpoints=ids if reason == "breakpoint" else [])

    def _ended(self, answer: str) -> StopEvent:
        code, message = parse.exit_code(answer)
        if message:  # what the compiled program would write as it dies
            self.ctx.output.append("stderr", f"{self._name}: {message}\n")
        try:
            self.drv().send_line(":quit")
        except PtyEOF:
            pass
        return self.console_ended(code)

    def _exception_stop(self, timeout: float) -> StopEvent:
        """-fbreak-on-error's stop has no place of its own: the last step
        ``:history`` traced is where the exception was raised. ``exitWith``
        is an exception too: the program's end, not a stop."""
        description = ""
        try:
            description = self.evaluate(EXCEPTION_SHOWN, timeout).value
        except OpFailed:
            pass
        if description == "ExitSuccess" or parse.EXIT_FAILURE_RE.match(description):
            return self._run(":trace", "continue", "continue", timeout)
        steps = parse.history(self.command(":history", timeout))
        if steps and steps[0].where is not None:
            self._where = Location(self._path(steps[0].where.file), steps[0].where.line,
                                   self._qualified(steps[0].name, steps[0].where.file))
        else:
            self._where = None
        return StopEvent(state="stopped", reason="exception", location=self._where,
                         description=description)

    def _run(self, command: str, op: str, reason: str, timeout: float) -> StopEvent:
        self.require_stopped(op, timeout)
        self._to_history_step(0, timeout)  # run from the stop, not from a frame's step
        if not self._started:
            # At the entry stop main's evaluation has not begun: this begins it.
            command = FIRST_RUN.get(command, command)
            self._started, self._run_catches = True, list(self._catches)
        self._reason = reason
        self.set_state("running")
        self.drv().send_line(command)
        return self.wait_stop(timeout, timeout)

    def _line_step(self, command: str, op: str, timeout: float) -> StopEvent:
        """ghci stops at each subexpression; dbg's step goes on to another line
        (or function), as a line debugger's does."""
        start = self._where
        event = self._run(command, op, "step", timeout)
        for _ in range(LINE_STEPS):
            here = event.location
            if event.state != "stopped" or event.reason == "exception" or start is None \
                    or here is None or (here.file, here.line, here.function) != \
                    (start.file, start.line, start.function):
                break
            event = self._run(command, op, "step", timeout)
        return event

    # -- running ----------------------------------------------------------------------

    def cont(self, timeout: float) -> StopEvent:
        return self._run(":trace", "continue", "continue", timeout)

    def step(self, timeout: float) -> StopEvent:
        return self._line_step(":step", "step", timeout)

    def next(self, timeout: float) -> StopEvent:
        # :steplocal would be "over", but from a local binding (a let's right
        # side) it runs on to the end of the program; :stepmodule steps over
        # other modules' code (the libraries), into the module's own.
        return self._line_step(":stepmodule", "next", timeout)

    def until(self, loc: BreakLoc | None, timeout: float) -> StopEvent:
        """A breakpoint of ghci's at ``loc`` for one ``:trace`` (another
        breakpoint met first stops there, as it would for a continue)."""
        if loc is None or loc.line is None:
            raise self.unsupported("until", "ghci runs to a place: `dbg until FILE:LINE`")
        self.require_stopped("until", timeout)
        self._to_history_step(0, timeout)
        made = parse.BREAK_SET_RE.search(self._break_line(loc, timeout))
        if made is None:
            raise OpFailed(f"ghci put no breakpoint at {loc.key()}", "pick a line with code")
        # Not one of dbg's breakpoints: the stop there is a step's. It goes
        # at the next stop, whenever that comes (see wait_stop).
        self._until_break = int(made["number"])
        return self._run(":trace", "until", "continue", timeout)

    # -- breakpoints ------------------------------------------------------------------

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        self.refuse_break_options(options, "ghci's :break takes a place only; "
                                  "`dbg raw :break ...` for its own syntax")
        self.require_stopped("break", timeout)
        if loc.function:
            answer = self.command(f":break {loc.function}", timeout)
        else:
            if loc.line is None:
                raise UsageError("give a location as FILE:LINE or FUNCTION")
            answer = self._break_line(loc, timeout)
        made = parse.BREAK_SET_RE.search(answer)
        if made is None and "was already set" in answer:
            raise OpFailed(f"there is a breakpoint at {loc.key()} already",
                           "`dbg breaks` lists them; `dbg unbreak ID` removes one")
        if made is None:
            first = answer.strip().splitlines()[0] if answer.strip() else "no answer"
            raise OpFailed(f"ghci: {first}", "`dbg raw :show breaks` lists ghci's own")
        where = parse.span(made["span"])
        span_text = made["span"].strip()
        if any(known == span_text for _, known, _ in self._breaks.values()):
            raise OpFailed(f"there is a breakpoint at {loc.key()} already",
                           "`dbg breaks` lists them; `dbg unbreak ID` removes one")
        number = max(self._breaks, default=0) + 1
        bp = Breakpoint(id=number, file=self._path(where.file) if where else None,
                        line=where.line if where else None, function=loc.function,
                        requested=loc.key())
        if loc.line is not None and where is not None and where.line != loc.line:
            bp.requested_line = loc.line
        self._breaks[number] = (int(made["number"]), span_text, bp)
        return bp

    def _break_line(self, loc: BreakLoc, timeout: float) -> str:
        """``:break MODULE LINE``, for a FILE:LINE (or a line of the stop's
        file); ghci's answer."""
        assert loc.line is not None
        file = self._file_for(loc.file) if loc.file else \
            self._where.file if self._where and self._where.file else self._program
        answer = self.command(f":break {self._module(file)} {loc.line}", timeout)
        if "No breakpoints found" in answer:
            raise OpFailed(no_code_message(file, loc.line), "pick a line with an expression")
        return answer

    def catch(self, filters: list[str], timeout: float) -> list[str]:
        """``uncaught``: an exception nothing handles stops where it is raised
        (-fbreak-on-error, on from the start unless --no-catch); ``all``:
        every exception raised, handled or not (-fbreak-on-exception). No
        filter: neither."""
        unknown = [f for f in filters if f not in CATCH_FLAGS]
        if unknown:
            raise UsageError(f"ghci cannot catch {unknown[0]!r}",
                             "its filters: uncaught (exceptions nothing handles), all")
        self.require_stopped("catch", timeout)
        if self._started and filters and set(filters) != set(self._run_catches):
            raise OpFailed("ghci takes its exception flags when main's evaluation begins; "
                           "this run catches "
                           + (", ".join(self._run_catches) or "nothing") + " (or nothing)",
                           "`dbg restart`, then `dbg catch ...` at the entry stop")
        for name, flag in CATCH_FLAGS.items():
            on = name in filters
            if on != (name in self._catches):
                self.command(f":set -f{'' if on else 'no-'}{flag}", timeout)
        self._catches = [name for name in CATCH_FLAGS if name in filters]
        return list(self._catches)

    def _file_for(self, requested: str) -> str:
        root = os.path.dirname(self._program)
        found = resolve_source(requested, [self._cwd, root],
                               [lambda: walk_sources(root, [".hs", ".lhs"])])
        if found is None:
            raise OpFailed(f"no source file {requested} in or under {root}",
                           "give the path of a Haskell file the program loads")
        return found

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        entry = self._breaks.get(int(bp_id)) if str(bp_id).isdigit() else None
        if entry is None:
            raise OpFailed(f"no breakpoint {bp_id}", "`dbg breaks` lists them")
        self.require_stopped("unbreak", timeout)
        self.command(f":delete {entry[0]}", timeout)
        del self._breaks[int(bp_id)]

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        return [bp for _, _, bp in self._breaks.values()]

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        words = text.strip()
        first = words.split(" ")[0]
        if first in (":quit", ":q"):
            raise UsageError("end the session with `dbg kill`")
        if first in RESUMING or first == ":step":
            return "", self._run(words, "raw", "step", timeout)
        self.require_stopped("raw", timeout)
        if not first.startswith(":") and not first.startswith("let") \
                and "<-" not in words:
            # An expression: ghci's interpreter would print its value on the
            # program's stdout; show it here, unless it is an IO action.
            kind = self.command(f":type ({words})", timeout)
            if parse.error(kind) is None and ":: IO " not in kind.replace("\n", " "):
                try:
                    return self.evaluate(words, timeout).value, None
                except OpFailed as exc:
                    return exc.message, None
        answer = self.command(words, timeout)
        stop = parse.last_stop(answer)
        if stop is not None and not stop.exception:
            self._stop, self._where = stop, self._location(stop)
            return answer.strip("\r\n"), StopEvent(state="stopped", reason="step",
                                                   location=self._where)
        return answer.strip("\r\n"), None
