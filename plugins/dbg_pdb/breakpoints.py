"""The pdb backend's breakpoints and watches: where pdb is told to stop
(a function found in the program's sources, a `def` line moved to the
body's first line, a line without code moved to the next that has one),
the breakpoints as dbg lists them (with the line and function the user
asked for), and `dbg watch` by the launcher's check at each line. A layer
of :class:`~dbg_pdb.backend.PdbBackend`, over the console.
"""

from __future__ import annotations

import ast
import functools
import itertools
import os
import stat
from dataclasses import replace

from dbg_pdb.console import BREAK_SET_RE, ERROR_RE, PdbConsole
from dbgcore.api import (
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    DbgError,
    Location,
    OpFailed,
    PythonSetup,
    SessionContext,
    UnsupportedOp,
    UsageError,
    next_python_code_line,
    no_code_message,
    pywatch,
    resolve_source,
    walk_sources,
)


class PdbBreakpoints(PdbConsole):
    """Breakpoints and watches, with what pdb does not keep of them."""

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        #: The program's folder: file names are looked for below it.
        self._root = os.getcwd()
        self._last_location: Location | None = None
        #: The function asked for, by pdb's breakpoint number, for a function
        #: breakpoint dbg placed on a line (found in the program's sources).
        self._asked_functions: dict[int, str] = {}
        self._requested: dict[int, tuple[str, int | None, BreakOptions]] = {}
        self._until_bp: int | None = None
        self._last_breaks: list[Breakpoint] = []
        #: `dbg watch`: the launcher's number for the next one; each one's
        #: Breakpoint as set (its id is "w" and that number).
        self._watch_numbers = itertools.count(1)
        self._watches: dict[str, Breakpoint] = {}

    def _python_setup(self) -> PythonSetup:
        """The program's interpreter's word on its search path, for a file
        name to find: the backend's to give, which knows the launch."""
        raise NotImplementedError

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        return self._place(loc, options, timeout)

    def _place(self, loc: BreakLoc, options: BreakOptions, timeout: float,
               strict: bool = False) -> Breakpoint:
        """A breakpoint; ``strict`` (for `until`): a line without code is an
        error instead of moving to the next line that has some."""
        command, requested_line = self._break_command(loc, options, timeout, strict)
        bp_id = self._placed_id(loc, self._native(command, timeout))
        if options.hit_count and options.hit_count > 1:
            self._native(f"ignore {bp_id} {options.hit_count - 1}", timeout)
        self._remember(bp_id, loc, options, requested_line, command)
        return next(b for b in self.list_breakpoints(timeout) if b.id == bp_id)

    def set_breakpoints(self, locs: list[BreakLoc], timeout: float,
                        options: list[BreakOptions] | None = None
                        ) -> list[Breakpoint | Exception]:
        """All of them in one exchange with pdb (``_dbg_natives``), and one
        more for the hit counts if any has one; the breakpoints listed once.
        Each answer as :meth:`set_breakpoint` gives it: the breakpoint, or
        the error that refused it (a line without code, an unknown file, a
        condition that does not compile: one exchange each for those)."""
        wanted = options or [BreakOptions()] * len(locs)
        out: list[Breakpoint | Exception | None] = [None] * len(locs)
        sent: list[tuple[int, str, int | None]] = []
        for index, (loc, opts) in enumerate(zip(locs, wanted, strict=True)):
            try:
                command, requested_line = self._break_command(loc, opts, timeout)
            except DbgError as exc:
                out[index] = exc
                continue
            sent.append((index, command, requested_line))
        ids: dict[int, int] = {}
        ignores: list[str] = []
        for (index, command, requested_line), text in zip(
                sent, self._natives([c for _, c, _ in sent], timeout), strict=True):
            loc, opts = locs[index], wanted[index]
            try:
                errors = ERROR_RE.findall(text)
                if errors:
                    raise OpFailed(f"pdb: {errors[-1]}")
                bp_id = self._placed_id(loc, text)
            except DbgError as exc:
                out[index] = exc
                continue
            ids[index] = bp_id
            self._remember(bp_id, loc, opts, requested_line, command)
            if opts.hit_count and opts.hit_count > 1:
                ignores.append(f"ignore {bp_id} {opts.hit_count - 1}")
        self._natives(ignores, timeout)
        listed = {b.id: b for b in self.list_breakpoints(timeout)} if ids else {}
        for index, bp_id in ids.items():
            out[index] = listed.get(bp_id) or OpFailed(
                f"pdb set breakpoint {bp_id} at {locs[index].key()} and then did not list it")
        return [item if item is not None else OpFailed("no answer") for item in out]

    def _break_command(self, loc: BreakLoc, options: BreakOptions, timeout: float,
                       strict: bool = False) -> tuple[str, int | None]:
        """pdb's `break` command for a breakpoint, and the line the user
        asked for when it was moved; refused here what pdb cannot do."""
        if options.log_message:
            raise UnsupportedOp("logpoints", self.tool,
                                "pdb has no logpoints; a breakpoint with --if, or a "
                                "print in the program, can stand in for one")
        if options.condition:
            compiled = self._query(f"_dbg_compile {options.condition!r}", "compiled", timeout)
            if compiled.get("error"):
                raise OpFailed(f"the condition does not compile: {compiled['error']}",
                               "write it in Python; nothing was set")
        target, requested_line = self._break_target(loc, timeout, strict)
        command = ("tbreak " if options.temporary else "break ") + target
        if options.condition:
            command += ", " + options.condition
        return command, requested_line

    def _placed_id(self, loc: BreakLoc, text: str) -> int:
        placed = BREAK_SET_RE.search(text)
        if placed is None:
            raise OpFailed(f"pdb did not set a breakpoint at {loc.key()}: {text.strip()[:200]}")
        return int(placed.group(1))

    def _remember(self, bp_id: int, loc: BreakLoc, options: BreakOptions,
                  requested_line: int | None, command: str) -> None:
        self._requested[bp_id] = (loc.key(), requested_line, options)
        target = command.split(" ", 1)[1]
        if loc.function and not loc.module and not target.startswith(loc.function):
            self._asked_functions[bp_id] = loc.function

    def _break_target(self, loc: BreakLoc, timeout: float,
                      strict: bool = False) -> tuple[str, int | None]:
        """pdb's text for a location, and the line the user asked for when we
        moved it (a `def` line, which pdb would only stop at while defining,
        or a line without code)."""
        if loc.module and loc.function:
            found = self._query(f"_dbg_findfunc {(loc.module, loc.function)!r}", "found",
                                timeout)
            if "error" in found:
                raise OpFailed(f"cannot find {loc.key()}: {found['error']}")
            file, line = found["file"], int(found["line"])
            body = _first_body_line(file, line)
            return f"{file}:{body or line}", line
        if loc.function:
            # As debugpy does: a function found once in the program's sources
            # is placed there, imported yet or not (pdb resolves a name only
            # in the current frame's scope, so `money` of a module imported
            # later would be refused); else pdb resolves the name. (Several:
            # the session's table binds each, see function_places.)
            places = self.function_places(loc, timeout) or []
            if len(places) == 1:
                return f"{places[0].file}:{places[0].line}", None
            return loc.function, None
        assert loc.line is not None
        if loc.file is None:
            if self._last_location is None or not self._last_location.file:
                raise UsageError("a bare line number needs a current file",
                                 "give FILE:LINE instead")
            file = self._last_location.file
        else:
            file = self._resolve(loc.file, timeout)
        body = _first_body_line(file, loc.line)
        moved = body if body is not None else next_python_code_line(file, loc.line)
        if moved is None or (strict and moved != loc.line):
            raise OpFailed(no_code_message(file, loc.line), "give a line that holds a statement")
        if moved != loc.line:
            return f"{file}:{moved}", loc.line
        return f"{file}:{loc.line}", None

    def function_places(self, loc: BreakLoc, timeout: float) -> list[Location] | None:
        """The functions of the program's sources ``loc`` names, methods
        too (MODULE!FUNCTION: None, pdb's launcher finds it where it loads)."""
        from dbgcore.api import python_places

        if not loc.function or loc.module:
            return None
        return [Location(p.file, p.line, p.qualname)
                for p in python_places([self._root], loc.function)]

    def functions_elsewhere(self, loc: BreakLoc, timeout: float) -> list[Location]:
        """The loaded functions of that name outside the program's sources
        (a library's, the test runner's), read from the stopped program."""
        from dbgcore.api import DbgError, loaded_functions_expression, outside_program

        if not loc.function or loc.module or "." in loc.function or self.state() != "stopped":
            return []
        try:
            answer = ast.literal_eval(self.evaluate(
                loaded_functions_expression(loc.function), timeout).value)
        except (DbgError, ValueError, SyntaxError):
            return []
        return [Location(p.file, p.line, p.qualname)
                for p in outside_program(answer, [self._root])]

    def _resolve(self, file: str, timeout: float) -> str:
        """The source file a typed name means (see dbgcore.lang.sourcefind)."""

        def loaded() -> list[str]:
            if self.state() != "stopped":
                return []
            return list(self._query(f"_dbg_modules {os.path.basename(file)!r}",
                                    "modules", timeout)["files"])

        found = resolve_source(file, [self._root], [
            lambda: walk_sources(self._root, (".py",)),
            lambda: self._python_setup().first_on_path(file), loaded])
        if found is None:
            raise OpFailed(f"no Python source file matches {file} in {self._root}, on the "
                           "program's Python path or among the loaded modules",
                           "give a path (relative to here or to the program) or an absolute one")
        return found

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        if str(bp_id) in self._watches:
            self._query(f"_dbg_unwatch {int(str(bp_id)[1:])!r}", "unwatch", timeout)
            del self._watches[str(bp_id)]
            return
        self._native(f"clear {int(bp_id)}", timeout)
        self._requested.pop(int(bp_id), None)

    def watch(self, expression: str, timeout: float) -> Breakpoint:
        """A watch of ``expression`` in the selected frame, checked by the
        launcher at each line that frame runs (see dbgcore/inprogram/pywatch.py)."""
        self._not_post_mortem("watch")
        number = next(self._watch_numbers)
        placed = self._query(f"_dbg_watch {(pywatch.__file__, number, expression)!r}",
                             "watch", timeout)
        if "error" in placed:
            raise OpFailed(f"cannot watch {expression}: {placed['error']}",
                           "a watch is set in the selected frame, where the expression must "
                           "evaluate now (`dbg frame N` selects another)")
        bp = Breakpoint(id=f"w{number}", kind="watch", requested=expression,
                        message=pywatch.note(placed["function"], placed["file"], placed["line"]))
        self._watches[str(bp.id)] = bp
        return bp

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        if self.state() == "exited":
            return self._last_breaks  # pdb is gone; its last word on them stands
        out = []
        answer = self._query("_dbg_breaks", "breaks", timeout)
        for item in answer["breakpoints"]:
            if item["id"] == self._until_bp:
                continue
            requested, requested_line, options = self._requested.get(
                item["id"], ("", None, BreakOptions()))
            line = item["line"]
            if item.get("function"):
                # pdb files a function breakpoint under its `def` line and
                # stops at the first line of the body: show where it stops.
                line = _first_body_line(item["file"], line) or line
            asked = self._asked_functions.get(item["id"])
            out.append(Breakpoint(
                id=item["id"], file=item["file"], line=line, kind="function" if asked else (
                    "function" if item.get("function") else "source"),
                function=item.get("function") or asked, verified=True,
                condition=item.get("condition"),
                hits=item.get("hits", 0), requested=requested, requested_line=requested_line,
                temporary=item.get("temporary", False), hit_count=options.hit_count,
            ))
        for item in answer.get("watches") or []:
            watch = self._watches.get(f"w{item['id']}")
            if watch is not None:
                out.append(watch if item["running"] else replace(
                    watch, message=watch.message + pywatch.GONE))
        self._last_breaks = out
        return out


def _first_body_line(file: str, line: int) -> int | None:
    """If ``line`` is a function's ``def`` (or decorator) line, the line of its
    first statement; pdb would otherwise stop there only while the function
    is being defined, never when it is called."""
    try:
        info = os.stat(file)
    except OSError:
        return None
    for first, start, body in _function_heads(file, info.st_mtime_ns, info.st_size):
        if first <= line < start:
            return body
    return None


@functools.lru_cache(maxsize=16)
def _function_heads(file: str, stamp: int, size: int) -> tuple[tuple[int, int, int], ...]:
    """Each function of ``file`` as (its first line, decorators included;
    the line its body starts; the line of its first statement, past a
    docstring), the file parsed once for all the breakpoints of a batch
    (known by its modification time and size)."""
    text = _bounded_source(file)
    if text is None:
        return ()
    try:
        tree = ast.parse(text, file)
    except (SyntaxError, ValueError):
        return ()
    heads = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        body = node.body[0]
        if (isinstance(body, ast.Expr) and isinstance(body.value, ast.Constant)
                and isinstance(body.value.value, str) and len(node.body) > 1):
            body = node.body[1]  # a docstring is not a line pdb can stop on
        heads.append((first, node.body[0].lineno, body.lineno))
    return tuple(heads)


#: A source larger than this is not parsed (dbg's own limit for sources).
MAX_SOURCE_BYTES = 8 * 1024 * 1024


def _bounded_source(file: str) -> str | None:
    """The text of ``file`` if it is a regular file of at most
    MAX_SOURCE_BYTES: a FIFO or /dev/zero named as a source must neither
    block nor fill the daemon's memory."""
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
            return None
        data = os.read(fd, MAX_SOURCE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if len(data) > MAX_SOURCE_BYTES else data.decode("utf-8", errors="replace")
