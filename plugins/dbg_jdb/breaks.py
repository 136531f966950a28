"""jdb's breakpoints, watchpoints and catches: a part the jdb backend holds.

jdb names a breakpoint by where it is (``Main:8``, ``Main.square``): dbg
keeps its own record of each, with the id the session maps to the user's.
A class not loaded yet gets a *deferred* breakpoint, which jdb sets (or
refuses) when the class loads. What this part asks of the backend is the
:class:`JdbConsole` protocol, nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from dbg_jdb import kotlin
from dbg_jdb.parse import DEFERRED_FAIL_RE, DEFERRED_SET_RE, check_line, jdb_error
from dbg_jdb.program import JavaProgram, class_at_line
from dbgcore.api import (
    BreakLoc,
    BreakOptions,
    Breakpoint,
    DbgError,
    DebuggerTimeout,
    Location,
    OpFailed,
    StopState,
    UnsupportedOp,
    UsageError,
    function_span,
    no_code_message,
    resolve_source,
    walk_sources,
)

#: java.lang's throwables, which `dbg catch` takes by their short names.
JAVA_LANG_THROWABLES = frozenset({
    "Throwable", "Exception", "RuntimeException", "Error", "ArithmeticException",
    "ArrayIndexOutOfBoundsException", "ArrayStoreException", "AssertionError",
    "ClassCastException", "ClassNotFoundException", "CloneNotSupportedException",
    "ExceptionInInitializerError", "IllegalAccessException", "IllegalArgumentException",
    "IllegalMonitorStateException", "IllegalStateException", "IndexOutOfBoundsException",
    "InstantiationException", "InterruptedException", "LinkageError",
    "NegativeArraySizeException", "NoClassDefFoundError", "NoSuchFieldException",
    "NoSuchMethodException", "NullPointerException", "NumberFormatException", "OutOfMemoryError",
    "ReflectiveOperationException", "SecurityException", "StackOverflowError",
    "StringIndexOutOfBoundsException", "UnsupportedOperationException"
})


#: jdb's answer for a line of a loaded class that has no code.
_NO_CODE_RE = re.compile(r"No code at line")
#: How far a breakpoint on a line without code may move down, within its method.
_MOVE_LIMIT = 20


@dataclass
class JdbBreak:
    id: int
    native: str  # what jdb calls it: "Main:8", "Main.square", "Main.counter"
    kind: str  # "source" | "function" | "watch"
    requested: str
    file: str | None = None
    line: int | None = None
    verified: bool = False
    temporary: bool = False
    internal: bool = False
    hits: int = 0
    message: str = ""
    #: dbg's own breakpoint of an `until`: a stop there is the until's.
    until: bool = False
    #: The line the user asked for, when it had no code and dbg moved it.
    asked_line: int | None = None

    def to_breakpoint(self) -> Breakpoint:
        return Breakpoint(id=self.id, file=self.file, line=self.line,
                          function=self.native if self.kind == "function" else None,
                          verified=self.verified, hits=self.hits, requested=self.requested,
                          requested_line=self.asked_line, temporary=self.temporary,
                          kind=self.kind, message=self.message)


def _stop_command(native: str, kind: str) -> str:
    return f"stop {'in' if kind == 'function' else 'at'} {native}"


class JdbConsole(Protocol):
    """What the breakpoints ask of the jdb backend."""

    #: The program being debugged (its main class and source roots), once known.
    program: JavaProgram | None

    def command(self, line: str, timeout: float, silent: bool = False) -> str: ...

    def commands(self, lines: list[str], timeout: float) -> list[str | DebuggerTimeout]: ...

    def require_stopped(self, what: str, timeout: float) -> None: ...

    def unsupported(self, op: str, hint: str | None = None) -> UnsupportedOp: ...

    def state(self) -> StopState: ...

    def current_location(self) -> Location | None: ...


class JdbBreakpoints:
    """The breakpoint ops of :class:`dbg_jdb.backend.JdbBackend`, and dbg's
    record of what it set in jdb."""

    def __init__(self, console: JdbConsole) -> None:
        self.console = console
        #: Every breakpoint and watchpoint, by dbg's id.
        self.table: dict[int, JdbBreak] = {}
        self._next_id = 1
        #: dbg's own breakpoints (entry, until) get ids users never see.
        self._next_internal = -1
        #: The exception classes jdb stops at (`catch`).
        self.catches: list[str] = []
        #: Class -> its source file, where that is not CLASS.java.
        self._class_files: dict[str, str] = {}

    def add(self, loc: BreakLoc, timeout: float, internal: bool = False,
            temporary: bool = False, strict: bool = False) -> int:
        """A breakpoint; its id. ``strict`` (for `until`): a line without code
        is an error instead of moving to the next line that has some."""
        native, kind, file, line = self._native(loc)
        answer = self.console.command(_stop_command(native, kind), timeout)
        return self._placed(loc, native, kind, file, line, answer, timeout,
                            internal=internal, temporary=temporary, strict=strict)

    def add_many(self, locs: list[BreakLoc], temporary: list[bool],
                 timeout: float) -> list[int | Exception]:
        """Many breakpoints, their ``stop`` commands typed together
        (:meth:`JdbConsole.commands`); for each, its id or the error that
        refused it, as :meth:`add` gives them. A line without code, or a
        method the program's source lacks, takes more exchanges of its own."""
        out: list[int | Exception | None] = [None] * len(locs)
        sent: list[tuple[int, str, str, str | None, int | None]] = []
        for index, loc in enumerate(locs):
            try:
                native, kind, file, line = self._native(loc)
                check_line(_stop_command(native, kind))
            except DbgError as exc:
                out[index] = exc
                continue
            sent.append((index, native, kind, file, line))
        answers = self.console.commands([_stop_command(n, k) for _, n, k, _, _ in sent], timeout)
        for (index, native, kind, file, line), answer in zip(sent, answers, strict=True):
            if isinstance(answer, Exception):
                out[index] = answer
                continue
            try:
                out[index] = self._placed(locs[index], native, kind, file, line, answer,
                                          timeout, temporary=temporary[index])
            except DbgError as exc:
                out[index] = exc
        return [item if item is not None else OpFailed("no answer") for item in out]

    def _native(self, loc: BreakLoc) -> tuple[str, str, str | None, int | None]:
        """What jdb calls a location (``Main:8``, ``Main.square``), its
        kind ("source" or "function"), and its file and line."""
        if loc.function is not None:
            name = loc.function if loc.module is None else f"{loc.module}.{loc.function}"
            if "." not in name:
                program = self.console.program
                if not program or not program.main_class:
                    raise UsageError(f"say which class {name} is in", "e.g. Main.compute")
                name = f"{self._current_class() or program.main_class}.{name}"
            return name, "function", None, None
        if loc.line is None:
            raise UsageError("a breakpoint needs a line or a method")
        here = self.console.current_location()
        path = loc.file or (here.file if here else None)
        if not path:
            raise UsageError("a bare line number needs a current file", "give File.java:LINE")
        file = self._resolve(path)
        return self._class_line(file, loc.line), "source", file, loc.line

    def _placed(self, loc: BreakLoc, native: str, kind: str, file: str | None,
                line: int | None, answer: str, timeout: float, internal: bool = False,
                temporary: bool = False, strict: bool = False) -> int:
        """The breakpoint jdb's ``answer`` to its ``stop`` says it set (or
        deferred), recorded; its id. Raises what refused it."""
        if kind == "source" and _NO_CODE_RE.search(answer):
            assert file is not None and line is not None
            native, line, answer = self._next_line_with_code(file, line, strict, timeout)
        bp = JdbBreak(self._next_id, native, kind, str(loc), file, line,
                      temporary=temporary, internal=internal,
                      asked_line=loc.line if line != loc.line else None)
        if "Unable to set" in answer or "Invalid" in answer or "Usage:" in answer:
            raise OpFailed(jdb_error(answer))
        bp.verified = answer.startswith("Set breakpoint")
        if not bp.verified and not answer.startswith("Deferring"):
            raise OpFailed(jdb_error(answer))
        if not bp.verified:
            owner = native.split(":")[0].rsplit(".", 1)[0] if kind == "function" else \
                native.split(":")[0]
            missing = self._method_missing(native) if kind == "function" else None
            if missing is not None:
                # The class's source is the program's and has no such method:
                # jdb would fail the deferred breakpoint when the class loads
                # and stop the program there. Refused now, like a loaded class's.
                self.console.command(f"clear {native}", timeout)
                raise OpFailed(f"no method {native.rsplit('.', 1)[1]} in {owner} ({missing})",
                               "nothing was set; check the name")
            bp.message = f"class {owner} is not loaded yet; it binds when the class loads"
        if internal:
            bp.id = self._next_internal
            self._next_internal -= 1
        else:
            self._next_id += 1
        self.table[bp.id] = bp
        return bp.id

    def _class_line(self, file: str, line: int) -> str:
        """jdb's name for a line: the class whose body holds it, and the line."""
        owner = (kotlin.class_at_line if file.endswith(".kt") else class_at_line)(Path(file), line)
        # Classes need not live in a file of their own name.
        self._class_files[owner.split("$", 1)[0]] = file
        return f"{owner}:{line}"

    def _next_line_with_code(self, file: str, line: int, strict: bool,
                             timeout: float) -> tuple[str, int, str]:
        """jdb refuses a line without code in a loaded class: the next line
        of the same method that takes the breakpoint, as gdb does."""
        span = function_span(file, line)
        if not strict and span is not None:
            for candidate in range(line + 1, min(span[1], line + _MOVE_LIMIT) + 1):
                native = self._class_line(file, candidate)
                answer = self.console.command(f"stop at {native}", timeout)
                if not _NO_CODE_RE.search(answer):
                    return native, candidate, answer
        raise OpFailed(no_code_message(file, line), "give a line that holds a statement")

    def _resolve(self, path: str) -> str:
        """The source file a typed name means (see dbgcore.lang.sourcefind)."""
        roots = self._source_roots()
        found = resolve_source(path, roots, [
            lambda: (f for root in roots for f in walk_sources(root, (".java", ".kt")))])
        if found is None:
            raise OpFailed(f"no Java or Kotlin source file matches {path} under "
                           f"{', '.join(roots) or 'the source roots'}",
                           "give a path (relative to here or to the program) or an absolute one")
        return found

    def _method_missing(self, native: str) -> str | None:
        """The program's source of the class of ``Class.method`` when it
        declares no such method (None: no source of it here, or it does)."""
        owner, _, method = native.split("(")[0].rpartition(".")
        relative = owner.split("$")[0].replace(".", "/") + ".java"
        for root in self._source_roots():
            source = Path(root) / relative
            if source.is_file():
                try:
                    text = source.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    return None
                # A call or a declaration: the name followed by "(".
                return None if re.search(rf"\b{re.escape(method)}\s*\(", text) else str(source)
        return None

    def _source_roots(self) -> list[str]:
        program = self.console.program
        return program.source_roots if program else []

    def _current_class(self) -> str:
        here = self.console.current_location()
        if here and here.function and "." in here.function:
            return here.function.rsplit(".", 1)[0]
        return ""

    def file_of(self, class_name: str) -> str | None:
        """The source file of a class jdb names (``Main$Inner`` is in Main's)."""
        outer = class_name.split("$", 1)[0]
        if outer in self._class_files:
            return self._class_files[outer]
        program = self.console.program
        if program is not None and outer in program.class_sources:
            return program.class_sources[outer]
        relative = Path(*outer.split(".")).with_suffix(".java")
        for root in self._source_roots():
            candidate = Path(root) / relative
            if candidate.exists():
                return str(candidate)
        return None

    def note_deferred(self, text: str) -> None:
        """What jdb says in passing of deferred breakpoints: set, or refused
        (and why), when their class loaded."""
        for native in DEFERRED_SET_RE.findall(text):
            for bp in self.table.values():
                if bp.native == native:
                    bp.verified, bp.message = True, ""
        for native, why in DEFERRED_FAIL_RE.findall(text):
            for bp in self.table.values():
                if bp.native == native:
                    bp.verified, bp.message = False, why.strip()

    def discard(self, bp_id: int, timeout: float) -> None:
        bp = self.table.pop(bp_id, None)
        if bp is None or self.console.state() == "exited":
            return
        verb = "unwatch" if bp.kind == "watch" else "clear"
        self.console.command(f"{verb} {bp.native}", timeout)

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        self._check_options(options)
        return self.table[self.add(loc, timeout, temporary=options.temporary)].to_breakpoint()

    def set_breakpoints(self, locs: list[BreakLoc], timeout: float,
                        options: list[BreakOptions] | None = None
                        ) -> list[Breakpoint | Exception]:
        """:meth:`set_breakpoint` for each, the ``stop`` commands typed
        together (:meth:`add_many`): the breakpoint or the error that refused it."""
        wanted = options or [BreakOptions()] * len(locs)
        out: list[Breakpoint | Exception | None] = [None] * len(locs)
        asked: list[int] = []
        for index, opts in enumerate(wanted):
            try:
                self._check_options(opts)
            except DbgError as exc:
                out[index] = exc
                continue
            asked.append(index)
        placed = self.add_many([locs[i] for i in asked],
                               [wanted[i].temporary for i in asked], timeout)
        for index, bp_id in zip(asked, placed, strict=True):
            out[index] = bp_id if isinstance(bp_id, Exception) else \
                self.table[bp_id].to_breakpoint()
        return [item if item is not None else OpFailed("no answer") for item in out]

    def _check_options(self, options: BreakOptions) -> None:
        """Refuse what jdb's breakpoints cannot do."""
        unsupported = self.console.unsupported
        if options.condition:
            raise unsupported("break", "jdb has no conditional breakpoints; break "
                              "without --if and check with `dbg print`")
        if options.hit_count:
            raise unsupported("break", "jdb has no hit counts; `dbg continue` N-1 times")
        if options.log_message:
            raise unsupported("break", "jdb has no logpoints")

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        number = int(bp_id)
        if number not in self.table or self.table[number].internal:
            raise OpFailed(f"no breakpoint {bp_id}", "list them with `dbg breaks`")
        self.discard(number, timeout)

    def list_breakpoints(self) -> list[Breakpoint]:
        return [bp.to_breakpoint() for bp in self.table.values() if not bp.internal]

    def watch(self, expression: str, timeout: float) -> Breakpoint:
        self.console.require_stopped("watch", timeout)
        name = expression.strip()
        if not re.fullmatch(r"[\w$.]+", name):
            raise UsageError(f"jdb watches fields, not expressions: {expression!r}",
                             "give a field: NAME, or Class.NAME")
        if "." not in name:
            owner = self._current_class()
            if not owner:
                raise UsageError(f"say which class {name} is in", "e.g. Main.count")
            name = f"{owner}.{name}"
        probe = self.console.command(f"print {name}", timeout)
        if not probe.strip().startswith(f"{name} = "):
            # jdb itself fails with an internal error on a field that is not there.
            raise OpFailed(f"no field {name}: {jdb_error(probe)[5:]}",
                           "jdb watches fields (static or of this object), not local variables")
        answer = self.console.command(f"watch {name}", timeout)
        if not (answer.startswith("Set watch") or answer.startswith("Deferring watch")):
            raise OpFailed(jdb_error(answer))
        bp = JdbBreak(self._next_id, name, "watch", expression,
                      verified=answer.startswith("Set watch"))
        self._next_id += 1
        self.table[bp.id] = bp
        return bp.to_breakpoint()

    def catch(self, filters: list[str], timeout: float) -> list[str]:
        for name in filters:
            if not re.fullmatch(r"[\w$.]+", name):
                raise UsageError(f"bad exception class {name!r}", "e.g. java.io.IOException")
        for name in self.catches:
            self.console.command(f"ignore {name}", timeout)
        self.catches = []
        for name in (self._exception_class(f, timeout) for f in filters):
            answer = self.console.command(f"catch {name}", timeout)
            if "Set" not in answer and "Deferring" not in answer:
                raise OpFailed(jdb_error(answer))
            self.catches.append(name)
        return list(self.catches)

    def _exception_class(self, name: str, timeout: float) -> str:
        """The class jdb must be given for a name as a person types it: jdb
        defers a bare `IllegalStateException` for good (no class has that
        name), so a name without a package is looked for among the loaded
        classes (one of the program's, or java.lang's) first."""
        if "." in name:
            return name
        found = sorted({c for c in self.console.command("classes", timeout).split()
                        if c.rsplit(".", 1)[-1] == name})
        if len(found) == 1:
            return found[0]
        # Not loaded yet: java.lang's by its short name, else a class of the
        # default package (whose full name has no dot).
        return f"java.lang.{name}" if name in JAVA_LANG_THROWABLES else name

    def matches(self, bp: JdbBreak, function: str, location: Location) -> bool:
        """Whether a stop in ``function`` at ``location`` is at ``bp``."""
        if bp.kind == "function":
            return function == bp.native or function.endswith("." + bp.native)
        if bp.line != location.line:
            return False
        return not bp.file or not location.file or \
            Path(bp.file).resolve() == Path(location.file).resolve()

