"""The phpdbg backend's breakpoints, and the commands everything sends
through: the base class of :class:`dbg_phpdbg.backend.PhpdbgBackend`.

phpdbg keeps one breakpoint a line and numbers its own; dbg's numbers map
onto them (two of dbg's may share one of phpdbg's). A removed breakpoint is
switched off, not deleted: after `break del`, phpdbg 8.2 no longer stops at
breakpoints set later. `until` runs to a breakpoint of dbg's own, switched
off again at the stop.
"""

from __future__ import annotations

import base64
import os
import re

from dbg_phpdbg.replies import ADDED_RE, MARKED_RE, MAX_COMMAND, php_string
from dbgcore.api import (
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    ConsoleBackend,
    Location,
    Match,
    OpFailed,
    SessionContext,
    StopEvent,
    UsageError,
    no_code_message,
    resolve_source,
    walk_sources,
)


class PhpdbgBreaks(ConsoleBackend):
    """Breakpoints, `until`, and the commands and PHP evaluations the
    backend sends phpdbg at a stop."""

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self._program = ""
        self._cwd = os.getcwd()
        self._where: Location | None = None
        #: dbg's breakpoint id -> (phpdbg's id, the breakpoint).
        self._breaks: dict[int, tuple[int, Breakpoint]] = {}
        self._numbered = 0
        self._lines: dict[str, set[int]] = {}
        #: phpdbg's breakpoint for each target and condition dbg asked for.
        self._natives: dict[tuple[str, str | None], int] = {}

    def _run(self, command: str, op: str, reason: str, timeout: float) -> StopEvent:
        """Send a command that lets the program run; the stop it comes to."""
        raise NotImplementedError

    def _next_line(self, timeout: float) -> StopEvent:
        """Run to the next line, not going back in a loop."""
        raise NotImplementedError

    # -- commands and evaluations -------------------------------------------------------

    def _held(self, code: str, timeout: float) -> str:
        """A PHP expression that is ``code`` as a string: the code itself when
        short, else handed to the program in parts first."""
        encoded = base64.b64encode(code.encode()).decode()
        if len(encoded) <= 300:
            return f"base64_decode('{encoded}')"
        for start in range(0, len(encoded), 400):
            self.command(f"ev __dbg_phpdbg_put('{encoded[start:start + 400]}')", timeout)
        return "__dbg_phpdbg_put('', true)"

    def exchange(self, line: str, timeout: float) -> Match:
        if len(line.encode()) > MAX_COMMAND:
            raise UsageError(f"phpdbg takes commands of at most {MAX_COMMAND} bytes; "
                             f"this one is {len(line.encode())}",
                             "shorten it (a function in the program can hold long code)")
        return super().exchange(line, timeout)

    def _marked(self, command: str, op: str, timeout: float) -> str:
        """A helper's answer: the text between its marks."""
        self.require_stopped(op, timeout)
        answer = self.command(command, timeout)
        found = MARKED_RE.search(answer)
        if found is None:
            raise OpFailed(f"phpdbg: {answer.strip()[:300] or 'no answer'}")
        return found.group(1)

    def _ev(self, code: str, op: str, timeout: float) -> str:
        """``code`` (PHP statements ending in a return) run in the selected
        frame, catching what it throws (warnings and a parse error included:
        an error left pending would be thrown into the program when it goes
        on); the helper's answer."""
        self.require_stopped(op, timeout)
        held = self._held(code, timeout)
        return self._marked(f"ev __dbg_phpdbg_result(eval(__dbg_phpdbg_wrap({held})))",
                            op, timeout)

    def _value(self, code: str, op: str, timeout: float) -> str | None:
        """The repr of what ``code`` returns, None if it threw."""
        status, _, rest = self._ev(code, op, timeout).partition("\x1f")
        if status != "ok":
            return None
        return rest.partition("\x1f")[2]

    def _executable(self, file: str, timeout: float) -> set[int]:
        if file not in self._lines:
            listed = self._marked(f"ev __dbg_phpdbg_lines({php_string(file)})", "break", timeout)
            self._lines[file] = {int(n) for n in listed.split(",") if n.isdigit()}
        return self._lines[file]

    def _file_for(self, requested: str, timeout: float) -> str:
        root = os.path.dirname(self._program)
        found = resolve_source(requested, [self._cwd, root],
                               [lambda: walk_sources(root, [".php", ".inc", ".phtml"])])
        if found is None:
            raise OpFailed(f"no source file {requested} in or under {root}",
                           "give the path of a PHP file of the program")
        return found

    def _function_line(self, name: str, timeout: float) -> tuple[str | None, int | None]:
        """Where a function's (or ``Class::method``'s) body begins: its file
        and first line with code after its declaration's first line."""
        if "::" in name:
            cls, method = name.split("::", 1)
            reflect = f"new \\ReflectionMethod({php_string(cls)}, {php_string(method)})"
        else:
            reflect = f"new \\ReflectionFunction({php_string(name)})"
        code = (f"$__dbg_r = {reflect}; try {{ return [$__dbg_r->getFileName(), "
                "$__dbg_r->getStartLine(), $__dbg_r->getEndLine()]; } "
                "finally { unset($__dbg_r); }")
        found = self._value(code, "break", timeout)
        if found is None:
            return None, None
        parts = re.findall(r'"((?:[^"\\]|\\.)*)"|(\d+)', found)
        if len(parts) < 3 or not parts[0][0]:
            return None, None
        file, start, end = parts[0][0], int(parts[1][1]), int(parts[2][1])
        lines = sorted(n for n in self._executable(file, timeout) if start <= n <= end)
        body = [n for n in lines if n > start]
        return file, (body or lines or [start])[0]

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        for asked, what in ((options.hit_count, "hit counts (--hit)"),
                            (options.log_message, "logpoints (--log)"),
                            (options.temporary, "temporary breakpoints (--temp)")):
            if asked:
                raise self.unsupported(what, "phpdbg has conditions (--if) only: "
                                       "`dbg raw break at FILE:LINE if COND`")
        self.require_stopped("break", timeout)
        file, line = None, loc.line
        if loc.function:
            file, line = self._function_line(loc.function, timeout)
        elif loc.file or self._where:
            file = self._file_for(loc.file, timeout) if loc.file else \
                self._where.file if self._where else None
        if file is None or line is None:
            if not loc.function:
                raise UsageError("give a location as FILE:LINE or FUNCTION")
            target = loc.function  # not defined yet: phpdbg's own, by name
        else:
            if line not in self._executable(file, timeout):
                raise OpFailed(no_code_message(file, line), "pick a line with a statement")
            target = f"{file}:{line}"
        if options.condition:
            answer = self.command(f"break at {target} if {options.condition}", timeout)
        else:
            answer = self.command(f"break {target}", timeout)
        added = ADDED_RE.search(answer)
        native = int(added["id"]) if added else self._natives.get((target, options.condition))
        if native is None:
            raise OpFailed(f"phpdbg: {answer.strip()[:300]}")
        if added is None:
            # phpdbg keeps one breakpoint a line ("... exists"): the one dbg
            # made there before, switched off when it was removed.
            self.command(f"set break {native} on", timeout)
        self._natives[(target, options.condition)] = native
        self._numbered += 1  # never an id again, once removed
        number = self._numbered
        bp = Breakpoint(id=number, file=file, line=line, function=loc.function,
                        condition=options.condition, requested=loc.key(),
                        verified=file is not None)
        self._breaks[number] = (native, bp)
        return bp

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        entry = self._breaks.get(int(bp_id)) if str(bp_id).isdigit() else None
        if entry is None:
            raise OpFailed(f"no breakpoint {bp_id}", "`dbg breaks` lists them")
        self.require_stopped("unbreak", timeout)
        # Switched off rather than deleted: after `break del`, phpdbg 8.2 no
        # longer stops at breakpoints set later.
        del self._breaks[int(bp_id)]
        if all(native != entry[0] for native, _ in self._breaks.values()):
            self.command(f"set break {entry[0]} off", timeout)

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        return [bp for _, bp in self._breaks.values()]

    def until(self, loc: BreakLoc | None, timeout: float) -> StopEvent:
        # phpdbg's own `until` only runs past the current line: dbg's runs to
        # a line by a breakpoint of its own there, switched off at the stop.
        self.require_stopped("until", timeout)
        if loc is None:
            return self._next_line(timeout)
        if loc.function:
            file, line = self._function_line(loc.function, timeout)
        else:
            file = self._file_for(loc.file, timeout) if loc.file else \
                self._where.file if self._where else None
            line = loc.line
        if file is None or line is None:
            raise OpFailed(f"no place {loc.key()} to run to", "give FILE:LINE or FUNCTION")
        if line not in self._executable(file, timeout):
            raise OpFailed(no_code_message(file, line), "pick a line with a statement")
        target = f"{file}:{line}"
        native = self._natives.get((target, None))
        used = native is not None and any(n == native for n, _ in self._breaks.values())
        if native is None:
            added = ADDED_RE.search(self.command(f"break {target}", timeout))
            if added is None:
                raise OpFailed(f"phpdbg cannot stop at {target}")
            native = self._natives[(target, None)] = int(added["id"])
        elif not used:
            self.command(f"set break {native} on", timeout)
        try:
            return self._run("continue", "until", "until", timeout)
        finally:
            if not used and self.state() == "stopped":
                self.command(f"set break {native} off", timeout)
