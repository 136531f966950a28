"""The ``perl`` backend: Perl programs under perl's own debugger, ``perl -d``
(perl5db.pl), driven through dbg's PTY layer (:class:`ConsoleBackend`).

Every canonical op either maps onto a perl5db command or is refused with a
hint; what perl5db prints is parsed here:

- a stop: ``main::fee(/abs/ledger.pl:5):<TAB>code`` before the prompt
  ``  DB<3> ``; ``r`` first prints ``scalar context return from main::fee: 3``;
- ``T``: one line per caller, ``$ = main::fee(100) called from file 'F' line N``;
- ``L b``: every breakpoint, under a ``FILE:`` header, as `` N:<TAB>code`` and
  ``    break if (COND)``;
- ``y``: the lexicals in scope (it needs the PadWalker module), one
  ``$name = ...`` per variable; values are written by ``Data::Dumper``, the
  same way for ``dbg locals`` and ``dbg print``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import ClassVar

from dbgcore.api import (
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    ConsoleBackend,
    Frame,
    LaunchRequest,
    Location,
    OpFailed,
    PtyEOF,
    PtyTimeout,
    Readiness,
    ReturnValue,
    SessionContext,
    StopEvent,
    Support,
    UsageError,
    Value,
    Variable,
    no_code_message,
    resolve_source,
    walk_sources,
)

PROMPT = re.compile(r"  DB<+\d+>+ ")
#: How long perl has to compile the program and stop at its first line,
#: whatever the op's --timeout.
START_WAIT = 30.0
WHERE_RE = re.compile(r"^(?P<function>[\w:]+)\((?P<file>.+):(?P<line>\d+)\):", re.M)
RETURN_RE = re.compile(r"^(?P<context>\w+) context return from \S+:(?P<value>.*?)(?=^[\w:]+\()",
                       re.M | re.S)
CALLER_RE = re.compile(r"^[$@.] = (?P<function>[\w:]+)(?:\((?P<args>.*?)\))?.*? "
                       r"called from file '(?P<file>.+)' line (?P<line>\d+)\s*$", re.M)
#: A module of perl's own library (/usr/share/perl/5.36/List/Util.pm).
LIBRARY_RE = re.compile(r"^/usr/(?:local/)?(?:share|lib)/(?:[^/]+/)*perl[^/]*/(?:[\d.]+/)?"
                        r"(.+)\.pm$")
BREAKS_FILE_RE = re.compile(r"^(\S.*):\s*$")
BREAKS_LINE_RE = re.compile(r"^ (\d+):")
LEXICAL_RE = re.compile(r"^([$@%]\w+) = ", re.M)
#: How perl5db reports an expression's error: "MESSAGE at (eval 9)[.../perl5db.pl:742] line 2."
EVAL_ERROR_RE = re.compile(r"^(?P<message>.*?) at \(eval \d+\)\[[^\]]*\] line \d+", re.M)
#: Data::Dumper on one line, hash keys sorted, strings double-quoted with escapes.
DUMP = ("do {{ require Data::Dumper; local $Data::Dumper::Terse = 1; "
        "local $Data::Dumper::Indent = 0; local $Data::Dumper::Sortkeys = 1; "
        "local $Data::Dumper::Useqq = 1; join qq{{\\x1f}}, map {{ Data::Dumper::Dumper($_) }} "
        "({values}) }}")


def dumped(expression: str) -> str:
    """Perl code for one value: a scalar as it is, an array or hash by reference."""
    text = expression.strip()
    if text.startswith("@"):
        return f"[{text}]"
    if text.startswith("%"):
        return f"+{{{text}}}"
    return f"scalar({text})"


class PerlBackend(ConsoleBackend):
    id = "perl"  # backends.yaml selects this class with `plugin: perl`
    tool = "perl"  # answers start with [via perl VERSION]
    reads_stdin = True  # the program's STDIN is LaunchRequest.stdin (see launch)
    runs_in_program = True  # the program's process is the debugger's
    features: ClassVar[dict[str, Support]] = {"break-if": "native", "return-value": "native"}
    unsupported_hints: ClassVar[dict[str, str]] = {
        "watch": "perl's debugger watches with `dbg raw w EXPR`",
        "until": "`dbg raw c LINE` runs to LINE of the current file",
        "catch": "perl's debugger does not stop where a `die` ends the program; a "
                 "breakpoint in the program's own $SIG{__DIE__} handler does",
    }

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self._where: Location | None = None
        self._reason = ""  # what the op that let the program run calls a stop
        self._answer = ""  # perl5db's text before the last prompt
        self._breaks: dict[int, Breakpoint] = {}
        self._cwd = os.getcwd()
        self._program = ""

    # -- availability ------------------------------------------------------------------

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        found = super().check(spec)
        if not found.ready:
            return found
        try:
            version = subprocess.run([found.detail, "-e", "print substr($^V, 1)"],
                                     capture_output=True, text=True, timeout=10).stdout
            padwalker = subprocess.run([found.detail, "-MPadWalker", "-e", "1"],
                                       capture_output=True, timeout=10).returncode == 0
        except (OSError, subprocess.SubprocessError) as exc:
            return Readiness(False, f"{found.detail} does not run: {exc}")
        note = "" if padwalker else "; without PadWalker, so no `dbg locals`"
        return Readiness(True, f"{found.detail} (perl {version}{note})", version)

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        if program.is_dir():
            raise UsageError(f"{program} is a folder; perl runs a script",
                             "give the script: dbg start path/to/script.pl")

    # -- lifecycle -----------------------------------------------------------------------

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        if request.module:
            raise UsageError("perl runs a script, not -m MODULE")
        self._cwd = request.cwd or os.getcwd()
        self._program = os.path.abspath(os.path.join(self._cwd, request.program))
        pump = self.output_pump("perl")
        # The program's output goes to the pump's FIFOs and its STDIN is
        # LaunchRequest.stdin; perl5db talks on the terminal, which it opens
        # as /dev/tty. Until it does, fd 3 holds the terminal: with no process
        # holding it, the terminal would read as closed (EOF) right away.
        # PERL5DB closes fd 3 once perl5db.pl is loaded, so the program does
        # not inherit it. ornaments= keeps escapes out of the prompt;
        # inhibit_exit=0 lets perl end with the program, so its exit status
        # is the program's.
        env = {**request.env, "PERLDB_OPTS": "ornaments= inhibit_exit=0",
               "PERL5DB": "BEGIN { require q(perl5db.pl); "
                          "close($DB::dbg_tty) if open($DB::dbg_tty, q(<&=), 3) }",
               "DBG_STDOUT": str(pump.paths["stdout"]), "DBG_STDERR": str(pump.paths["stderr"]),
               "DBG_STDIN": request.stdin or os.devnull}
        argv = ["/bin/sh", "-c",
                'exec "$@" 3<&0 <"$DBG_STDIN" >"$DBG_STDOUT" 2>"$DBG_STDERR"', "sh",
                *self.spec.command, "-d", self._program, *request.args]
        self.start_console(argv, PROMPT, env=env, cwd=self._cwd)
        self._reason = "entry"
        return self.wait_stop(START_WAIT, timeout)

    def wait_stop(self, wait: float, timeout: float) -> StopEvent:
        """Read up to perl5db's prompt (a stop) or the end of perl, for up to
        ``wait``. (A stop's report comes whole before the prompt: nothing more
        is asked of perl5db, so ``timeout`` is not needed here.)"""
        try:
            match = self.drv().expect([], wait)
        except PtyTimeout:
            self.set_state("running")
            return StopEvent(state="running")
        except PtyEOF:
            return self.console_ended()  # perl is the program: its status is the program's
        self.set_state("stopped")
        if self.pump is not None:
            self.pump.drain()
        self._answer = match.before
        wheres = list(WHERE_RE.finditer(match.before))
        if not wheres:  # a command that did not move the program: the stop stands
            return StopEvent(state="stopped", location=self._where)
        where = wheres[-1]
        self._where = Location(self._path(where["file"]), int(where["line"]),
                               where["function"].removesuffix("::"))
        hit = [b.id for b in self._breaks.values()
               if (b.file, b.line) == (self._where.file, self._where.line)]
        reason, self._reason = self._reason, ""
        if reason == "continue":
            reason = "breakpoint" if hit else "step"
        returned = RETURN_RE.search(match.before)
        return StopEvent(state="stopped", reason=reason or "step", location=self._where,
                         hit_breakpoints=hit if reason == "breakpoint" else [],
                         return_value=_returned(returned["context"], returned["value"])
                         if returned else None)

    def _path(self, name: str) -> str:
        return os.path.normpath(os.path.join(self._cwd, name))

    def _run(self, command: str, op: str, reason: str, timeout: float) -> StopEvent:
        self.require_stopped(op, timeout)
        self._reason = reason
        # Running from here on: a second client's `dbg pause` interrupts it.
        self.set_state("running")
        self.drv().send_line(command)
        return self.wait_stop(timeout, timeout)

    def _query(self, command: str, op: str, timeout: float) -> str:
        """A command for ``op`` that does not move the program, bounded by the
        op's ``timeout``; an expression's error is an OpFailed."""
        self.require_stopped(op, timeout)
        answer = self.command(command, timeout)
        error = EVAL_ERROR_RE.search(answer)
        if error:
            raise OpFailed(f"perl: {error['message'].strip()}")
        return answer.strip("\r\n")

    # -- breakpoints -----------------------------------------------------------------------

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        for asked, what in ((options.hit_count, "hit counts (--hit)"),
                            (options.log_message, "logpoints (--log)"),
                            (options.temporary, "temporary breakpoints (--temp)")):
            if asked:
                raise self.unsupported(what, "perl's debugger has conditions (--if) only")
        condition = f" {options.condition}" if options.condition else ""
        if loc.function:
            answer = self._query(f"b {loc.function}{condition}", "break", timeout)
            if answer:  # "Subroutine main::nope not found."
                raise OpFailed(f"perl: {answer.splitlines()[0]}",
                               "a subroutine must be compiled before it can have a breakpoint")
        else:
            file = self._file_for(loc.file, timeout) if loc.file else \
                self._where.file if self._where else None
            if not file or loc.line is None:
                raise UsageError("give a location as FILE:LINE or SUBROUTINE")
            # perl's answer is empty, or "Line 3 of 'F' not breakable."
            if self._query(f"b {file}:{loc.line}{condition}", "break", timeout):
                raise OpFailed(no_code_message(file, loc.line), "pick a line with a statement")
        placed = [spot for spot in self._perl_breaks(timeout) if spot not in
                  {(b.file, b.line) for b in self._breaks.values()}]
        if not placed:  # perl keeps one per line: the one there took the new condition
            raise OpFailed(f"there is a breakpoint at {loc.key()} already",
                           "`dbg breaks` lists them; `dbg unbreak ID` removes one")
        number = max(self._breaks, default=0) + 1
        bp = Breakpoint(id=number, file=placed[0][0], line=placed[0][1], function=loc.function,
                        condition=options.condition, requested=loc.key())
        self._breaks[number] = bp
        return bp

    def _file_for(self, requested: str, timeout: float) -> str:
        """The loaded file a user's name for it means (``ledger.pl``,
        ``lib/Money.pm``, an absolute path), as perl knows it."""
        loaded = {os.path.realpath(self._path(name)): self._path(name) for name in
                  self._query(r"p join qq{\n}, grep { s/^_<// } keys %main::", "break", timeout)
                  .splitlines()
                  if not name.startswith("(")}
        root = os.path.dirname(self._program)
        found = resolve_source(requested, [self._cwd, root],
                               [lambda: list(loaded), lambda: walk_sources(root, [".pl", ".pm"])])
        if found is None:
            raise OpFailed(f"no source file {requested} in or under {root}",
                           "give the path of a Perl file the program loads")
        if found not in loaded:
            raise OpFailed(f"{found} is not loaded yet",
                           "break where it is used, step in, and set the breakpoint then")
        return loaded[found]

    def _perl_breaks(self, timeout: float) -> list[tuple[str, int]]:
        spots, file = [], ""
        for text in self._query("L b", "break", timeout).splitlines():
            header, line = BREAKS_FILE_RE.match(text), BREAKS_LINE_RE.match(text)
            if header:
                file = self._path(header[1])
            elif line and file:
                spots.append((file, int(line[1])))
        return spots

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        bp = self._breaks.get(int(bp_id)) if str(bp_id).isdigit() else None
        if bp is None:
            raise OpFailed(f"no breakpoint {bp_id}", "`dbg breaks` lists them")
        # B takes a line of the file being viewed: view the breakpoint's, then the stop's again.
        back = self._where.file if self._where else bp.file
        for command in (f"f {bp.file}", f"B {bp.line}", f"f {back}"):
            self._query(command, "unbreak", timeout)
        del self._breaks[int(bp_id)]

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        return list(self._breaks.values())

    # -- running: each answers with what stopped the program, or state "running" ----------

    def cont(self, timeout: float) -> StopEvent:
        return self._run("c", "continue", "continue", timeout)

    def step(self, timeout: float) -> StopEvent:
        return self._run("s", "step", "step", timeout)

    def next(self, timeout: float) -> StopEvent:
        return self._run("n", "next", "step", timeout)

    def finish(self, timeout: float) -> StopEvent:
        return self._run("r", "finish", "step", timeout)

    def pause(self, timeout: float) -> StopEvent:
        self._reason = "pause"
        return self.interrupt_and_wait(timeout)

    def interrupt(self) -> None:
        # A second client's `dbg pause`: the op waiting for the program reads the stop.
        if self.state() == "running":
            self._reason = "pause"
        super().interrupt()

    # -- inspection --------------------------------------------------------------------------

    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        assert self._where is not None
        callers = [c for c in CALLER_RE.finditer(self._query("T", "stack", timeout))
                   if not c["function"].startswith("DB::")]
        frames = [Frame(0, self._where.function, self._where.file, self._where.line, True)]
        for index, caller in enumerate(callers, 1):
            # A line of T names the sub that was called and where its caller was.
            function = callers[index]["function"] if index < len(callers) else "main"
            frames.append(Frame(index, function, self._path(caller["file"]), int(caller["line"])))
        for frame, caller in zip(frames, callers, strict=False):
            # ...and the arguments it was called with: perl names none (@_).
            if caller["args"] is not None:
                frame.args = [Variable(f"$_[{i}]", value)
                              for i, value in enumerate(_perl_list(caller["args"]))]
        for frame in frames:
            library = LIBRARY_RE.match(frame.file or "")
            if library:
                frame.library, frame.library_name = True, library.group(1).replace("/", "::")
        return frames[:levels] if levels else frames

    def select_frame(self, index: int, timeout: float) -> Frame:
        frames = self.stack(None, timeout)
        if not 0 <= index < len(frames):
            raise OpFailed(f"no frame {index}; the stack has {len(frames)}", "see `dbg stack`")
        if index:
            raise self.unsupported("frame", "perl's debugger evaluates in the innermost frame "
                                   f"only; `dbg raw y {index}` lists that frame's lexicals")
        return frames[0]

    def locals(self, timeout: float) -> list[Variable]:
        listing = self._query("y", "locals", timeout)
        if "PadWalker" in listing and not LEXICAL_RE.search(listing):
            raise OpFailed("perl's debugger lists lexicals with the PadWalker module, "
                           "which is not installed",
                           "apt-get install libpadwalker-perl (or cpan PadWalker)")
        names = LEXICAL_RE.findall(listing)
        values: list[str] = []
        for start in range(0, len(names), 50):  # a command is one terminal line: keep it short
            chunk = ", ".join(map(dumped, names[start:start + 50]))
            values += self._query("p " + DUMP.format(values=chunk), "locals",
                                  timeout).split("\x1f")
        return [Variable(name, value) for name, value in zip(names, values, strict=False)]

    def evaluate(self, expression: str, timeout: float) -> Value:
        return Value(self._query("p " + DUMP.format(values=dumped(expression)), "print",
                                 timeout))

    def set_variable(self, lhs: str, value: str, timeout: float) -> Value:
        try:
            self._query(f"p do {{ {lhs} = ({value}); 1 }}", "set", timeout)
        except OpFailed as exc:
            raise OpFailed(f"cannot set {lhs}: {exc.message.removeprefix('perl: ')}",
                           "nothing was changed") from exc
        return self.evaluate(lhs, timeout)

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        event = self._run(text, "raw", "step", timeout)
        moved = event.state != "stopped" or bool(WHERE_RE.search(self._answer))
        return self._answer.strip("\r\n"), event if moved else None


def _perl_list(text: str) -> list[str]:
    """The items of T's argument list (``100, 'a, b', HASH(0x55d0)``)."""
    items, depth, quoted, current = [], 0, False, ""
    for i, char in enumerate(text):
        if char == "'" and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted:
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == "," and depth == 0:
                items.append(current.strip())
                current = ""
                continue
        current += char
    return [*items, current.strip()] if current.strip() else items


def _returned(context: str, dump: str) -> ReturnValue | None:
    """What ``r`` printed: ``scalar context return from main::fee: 3``, or for a
    list one ``0  4`` line per item (a reference's contents follow it indented)."""
    lines = dump.strip("\r\n").splitlines()
    if context == "scalar":
        return ReturnValue(lines[0].strip())
    if context == "list":
        items = [re.sub(r"^\d+ {2}", "", line) for line in lines if re.match(r"\d+ {2}", line)]
        return ReturnValue("(" + ", ".join(items) + ")")
    return None  # void context: nothing was returned
