"""The node backend's breakpoints: dbg's numbers over V8's breakpoint ids.

A ``FILE:LINE`` becomes a URL pattern (V8 names a script by its path or its
``file://`` URL), so a breakpoint in a file not loaded yet binds when it
loads; V8 says where in ``Debugger.breakpointResolved``. A function is found
in the sources (:mod:`dbg_node.functions`). What this part asks of the
backend is the :class:`NodeConsole` protocol, nothing else.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Protocol
from urllib.parse import quote as url_quote

from dbgcore.api import (
    BreakLoc,
    BreakOptions,
    Breakpoint,
    Location,
    NotAProgram,
    OpFailed,
    UnsupportedOp,
    UsageError,
    no_code_message,
    resolve_source,
    walk_sources,
)

from dbg_node.functions import find_body
from dbg_node.inspector import Inspector
from dbg_node.mapped import ScriptMaps
from dbg_node.messages import JsonObject

SOURCES = (".js", ".mjs", ".cjs")


class NodeConsole(Protocol):
    """What the breakpoints ask of the node backend."""

    #: The connection to the inspector, while there is one.
    inspector: Inspector | None
    #: The folder the program runs in, and the program's own folder.
    cwd: str
    root: str

    def call(self, method: str, params: JsonObject | None,
             timeout: float) -> JsonObject: ...

    def unsupported(self, op: str, hint: str | None = None) -> UnsupportedOp: ...

    #: The source maps of the program's generated files.
    maps: ScriptMaps

    def file_of(self, script_id: str) -> str | None: ...

    def position(self, script_id: str, line: int, column: int = 0) -> tuple[str | None, int]: ...

    def generated_files(self, on_disk: bool) -> list[str]: ...

    def map_sources(self) -> list[str]: ...

    def loaded_files(self) -> list[str]: ...

    def selected_location(self) -> Location | None: ...


class Breakpoints:
    def __init__(self, node: NodeConsole) -> None:
        self.node = node
        self.table: dict[int, Breakpoint] = {}
        #: dbg's id -> V8's breakpoint ids (one per generated line of a
        #: TypeScript line; one for JavaScript's).
        self.v8: dict[int, list[str]] = {}
        self.next_id = 1

    def hit(self, v8_ids: list[str], timeout: float) -> list[int]:
        """dbg's ids of the breakpoints V8 says it stopped at, counted; the
        temporary ones among them are gone after this stop."""
        hit = [bp for bp, ids in self.v8.items() if any(v8 in v8_ids for v8 in ids)]
        for bp in hit:
            self.table[bp].hits += 1
            if self.table[bp].temporary:
                self.drop(bp, timeout)
        return hit

    def add(self, loc: BreakLoc, options: BreakOptions, timeout: float) -> Breakpoint:
        if options.hit_count is not None:
            raise self.node.unsupported("break", "V8 has no hit counts; use --if with a condition")
        if options.log_message is not None:
            raise self.node.unsupported("break", "node has no logpoints here; `dbg display EXPR` "
                                   "shows a value at every stop")
        file, line, column, requested = self.source_position(loc)
        places, line = self.generated_places(file, line, column)
        bp_id = self.next_id
        bp = Breakpoint(id=bp_id, file=file, line=line, function=loc.function,
                        verified=False, condition=options.condition, requested=requested,
                        temporary=options.temporary)
        asked = self._line_asked(loc, line)
        if asked is not None:
            bp.requested_line = asked
        answers = []
        try:
            for place in places:
                answers.append(self._set(place, file, line, options, timeout))
        except OpFailed:
            for answer in answers:
                self.node.call("Debugger.removeBreakpoint",
                               {"breakpointId": answer["breakpointId"]}, timeout)
            raise
        self.next_id += 1
        self.v8[bp_id] = [answer["breakpointId"] for answer in answers]
        self.table[bp_id] = bp
        for answer in answers:
            for where in answer.get("locations") or []:
                self._bind(bp, where)
        if not bp.verified and (not places or any(
                self.script_of(generated) is not None for generated, _, _ in places)):
            self.drop(bp_id, timeout)
            raise OpFailed(no_code_message(file, bp.requested_line or line),
                           "give a line that holds a statement")
        return bp

    def _line_asked(self, loc: BreakLoc, line: int) -> int | None:
        """The line typed, when the breakpoint's is another (a line of a
        TypeScript file with no code of its own moves to the next)."""
        return loc.line if loc.line is not None and loc.line != line else None

    def _set(self, place: tuple[str, int, int | None], file: str, line: int,
             options: BreakOptions, timeout: float) -> JsonObject:
        generated, generated_line, column = place
        params: JsonObject = {"lineNumber": generated_line - 1,
                              "urlRegex": url_regex(generated)}
        if column is not None:
            params["columnNumber"] = column
        if options.condition:
            params["condition"] = options.condition
        try:
            answer: JsonObject = self.node.call("Debugger.setBreakpointByUrl", params, timeout)
        except OpFailed as exc:
            if "already exists" in exc.message:
                same = next((b for b in self.table.values()
                             if b.file == file and (b.requested_line or b.line) == line), None)
                raise OpFailed(f"there is a breakpoint at {Path(file).name}:{line} already"
                               + (f" (#{same.id})" if same else ""),
                               "`dbg breaks` lists them; `dbg unbreak ID` removes one") from exc
            raise
        return answer

    def generated_places(self, file: str, line: int, column: int | None
                         ) -> tuple[list[tuple[str, int, int | None]], int]:
        """Where V8 is to break for ``file``:``line``: (generated file, line,
        column) for each place, and the source line they are (the next line
        with code, for one without). A JavaScript file is its own place; a
        source a map names (a TypeScript file) is the generated lines it
        became, found among the loaded scripts' maps and, for a module not
        loaded yet, the maps of the JavaScript under the program's folder."""
        own = Path(file).suffix in SOURCES
        if own and self.script_of(file) is not None:
            return [(file, line, column)], line
        found = self.node.maps.naming(file, self.node.generated_files(on_disk=not own))
        if not found:
            if own:
                return [(file, line, column)], line
            raise OpFailed(f"{Path(file).name} is in no source map of the program's JavaScript",
                           "`dbg start FILE.ts` builds a TypeScript program with its maps "
                           "(tsc --sourceMap); a program built by hand needs them too")
        places: list[tuple[str, int, int | None]] = []
        nearest: int | None = None
        for generated, source_map in found:
            where, starts = source_map.generated(file, line - 1)
            if not starts:
                continue
            if nearest is None or where + 1 < nearest:
                nearest, places = where + 1, []
            if where + 1 == nearest:
                places += [(generated, g + 1, c) for g, c in starts]
        return places, nearest or line

    def _bind(self, bp: Breakpoint, where: JsonObject) -> None:
        file, line = self.node.position(where["scriptId"], where["lineNumber"],
                                        where.get("columnNumber", 0))
        if line != bp.line and bp.requested_line is None:
            bp.requested_line = bp.line
        bp.line = line
        bp.file = file or bp.file
        bp.verified = True

    def resolved(self, params: JsonObject) -> None:
        for bp_id, ids in self.v8.items():
            if params.get("breakpointId") in ids:
                self._bind(self.table[bp_id], params["location"])

    def script_of(self, file: str) -> str | None:
        """V8's id of the script ``file`` is, if it is loaded."""
        scripts = self.node.inspector.scripts if self.node.inspector else {}
        pattern = re.compile(url_regex(file))
        return next((sid for sid, url in list(scripts.items()) if pattern.search(url)), None)

    def remove(self, bp_id: int | str, timeout: float) -> None:
        key = int(bp_id) if str(bp_id).isdigit() else -1
        if key not in self.table:
            raise OpFailed(f"no breakpoint {bp_id}", "`dbg breaks` lists them")
        self.drop(key, timeout)

    def drop(self, bp_id: int, timeout: float) -> None:
        ids = self.v8.pop(bp_id, [])
        self.table.pop(bp_id, None)
        inspector = self.node.inspector
        for v8 in ids:
            if inspector is not None and not inspector.closed.is_set():
                self.node.call("Debugger.removeBreakpoint", {"breakpointId": v8}, timeout)

    def listing(self) -> list[Breakpoint]:
        return list(self.table.values())

    def source_position(self, loc: BreakLoc) -> tuple[str, int, int | None, str]:
        """(file, line, column or None, what was asked) for a location."""
        if loc.module is not None:
            raise UsageError("node has no MODULE!FUNCTION locations",
                             "use FUNCTION, Class.method or FILE:LINE")
        if loc.function is not None:
            return self._function_position(loc.function)
        assert loc.line is not None
        if loc.file is None:
            here = self.node.selected_location()
            if here is None or not here.file:
                raise OpFailed(f"line {loc.line} of which file?", "use FILE:LINE")
            return here.file, loc.line, None, str(loc)
        found = resolve_source(loc.file, [self.node.cwd, self.node.root], [
            lambda: walk_sources(self.node.root, SOURCES), self.node.loaded_files,
            self.node.map_sources])
        if found is None:
            # Not found among the sources: a file loaded later, by its name.
            return loc.file, loc.line, None, str(loc)
        return found, loc.line, None, str(loc)

    def _function_position(self, name: str) -> tuple[str, int, int | None, str]:
        places = []
        for path in walk_sources(self.node.root, SOURCES):
            try:
                text = Path(path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            places += [(path, start) for start in find_body(text, name)]
        if not places:
            raise OpFailed(f"no function {name} in the JavaScript under {self.node.root}",
                           "use FILE:LINE, or Class.method for a method")
        if len(places) > 1:
            where = ", ".join(f"{Path(p).name}:{s.line}" for p, s in places[:5])
            raise OpFailed(f"{name} is defined {len(places)} times ({where})",
                           "break at one of them with FILE:LINE")
        path, start = places[0]
        return path, start.line, start.column, name

    def script_position(self, loc: BreakLoc, timeout: float) -> tuple[str, int, int | None]:
        file, line, column, _ = self.source_position(loc)
        places, line = self.generated_places(file, line, column)
        if not places:
            raise OpFailed(no_code_message(file, line), "give a line that holds a statement")
        file, line, column = places[0]
        script = self.script_of(file)
        if script is None:
            raise OpFailed(f"{Path(file).name} is not loaded yet",
                           "set a breakpoint there (`dbg break`) and continue")
        near = self.node.call("Debugger.getPossibleBreakpoints", {
            "start": {"scriptId": script, "lineNumber": line - 1, "columnNumber": 0},
            "end": {"scriptId": script, "lineNumber": line, "columnNumber": 0}}, timeout)
        if not near.get("locations") and column is None:
            raise OpFailed(no_code_message(file, line), "give a line that holds a statement")
        return script, line, column


# -- files ----------------------------------------------------------------------------


def entry_point(program: Path) -> Path:
    """The file node runs for ``program``: itself, or a folder's package.json main."""
    if program.is_dir():
        manifest = program / "package.json"
        if not manifest.is_file():
            raise NotAProgram(f"{program} is a folder without a package.json",
                              "give a .js file, or a folder with a package.json")
        try:
            main = json.loads(manifest.read_text(encoding="utf-8")).get("main") or "index.js"
        except (OSError, ValueError, AttributeError) as exc:
            raise NotAProgram(f"{manifest} cannot be read as JSON: {exc}") from exc
        entry = program / str(main)
        for candidate in (entry, entry.with_name(entry.name + ".js"), entry / "index.js"):
            if candidate.is_file():
                return candidate.resolve()
        raise NotAProgram(f"{manifest} says main is {main}, which is not there",
                          "fix package.json's main, or give the .js file")
    if program.suffix.lower() in (".ts", ".mts", ".cts"):
        raise NotAProgram(f"{program.name} is TypeScript, which node does not run as it is",
                          f"`dbg start {program.name}` (without --no-build) builds it with tsc "
                          "--sourceMap; or start the JavaScript tsc made of it")
    if program.suffix not in SOURCES and program.is_file():
        with open(program, "rb") as fh:
            first = fh.readline(200)
        if not (first.startswith(b"#!") and b"node" in first):
            raise NotAProgram(f"{program.name} is not JavaScript",
                              "node runs .js, .mjs and .cjs files (or a script whose #! "
                              "line names node)")
    return program.resolve()


def url_regex(file: str) -> str:
    """A regular expression for the URLs V8 may give ``file``: a path or a
    file:// URL; a bare name matches that name in any folder."""
    if os.path.isabs(file):
        forms = {re.escape(file), re.escape("file://" + url_quote(file))}
        return "^(?:" + "|".join(sorted(forms)) + ")$"
    return r"(?:^|/)" + re.escape(file) + "$"

