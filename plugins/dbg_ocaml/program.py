"""What the ocamldebug backend knows of the program it debugs, apart from
ocamldebug's answers about a stop: where its modules' sources are, the
functions they define, the events ocamldebug can stop at (`info events`),
and the processes ocamldebug runs it in."""

from __future__ import annotations

import os
from pathlib import Path

from dbg_ocaml import source
from dbg_ocaml.parse import EVENT_RE, living
from dbgcore.api import BackendSpec, ConsoleBackend, OpFailed, SessionContext, procutil


class OcamlProgram(ConsoleBackend):
    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        #: Where sources are looked for: the program's folder, the current
        #: one, the standard library's.
        self._dirs: list[str] = []
        self._main = ""  # the program's own module (Cart for cart.ml)
        self._lines: dict[str, list[str]] = {}
        #: Each module's events (`info events`): pc, first character, kind.
        self._events: dict[str, list[tuple[str, int, str]]] = {}
        self._shell: int | None = None  # the /bin/sh -c that runs the program

    def _module_file(self, module: str) -> str | None:
        """The source file of a module: cart.ml for Cart, the standard
        library's list.ml for Stdlib__List."""
        name = module.removeprefix("Stdlib__") if module.startswith("Stdlib__") else module
        for candidate in (name[:1].lower() + name[1:], name):
            for folder in self._dirs:
                path = os.path.join(folder, candidate + ".ml")
                if os.path.isfile(path):
                    return path
        return None

    def _source(self, path: str) -> list[str]:
        if path not in self._lines:
            self._lines[path] = source.read_lines(path)
        return self._lines[path]

    def _function(self, module: str, path: str | None, line: int) -> str:
        return source.function_name(self._source(path), module, line) if path else module

    def program_pids(self) -> list[int]:
        """ocamldebug starts the program detached (two forks and a session
        of its own, under ``/bin/sh -c``): that shell, the program and its
        checkpoints (the program's forks)."""
        if self._shell is None:
            return []
        return [pid for pid in [self._shell, *procutil.descendants(self._shell)]
                if living(pid)]

    def _find_shell(self, socket: str) -> None:
        """The shell ocamldebug ran the program with (its command line names
        the session's socket): ended with its process group at the end,
        even when ocamldebug is gone."""
        marker = f"CAML_DEBUG_SOCKET={socket} ".encode()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    argv = fh.read().split(b"\0")
            except OSError:
                continue
            if len(argv) > 2 and argv[1] == b"-c" and argv[2].startswith(marker):
                self._shell = int(entry)
                self.track_child(self._shell, "ocaml program")
                return

    def _events_of(self, module: str, timeout: float) -> list[tuple[str, int, str]]:
        if module not in self._events:
            answer = self.command(f"info events {module}", timeout)
            self._events[module] = [
                (m["pc"].replace(" ", ""), int(m["start"]), m["kind"])
                for m in EVENT_RE.finditer(answer) if not m["kind"].startswith("pseudo")]
        return self._events[module]

    def _event_at(self, module: str, path: str, line: int, entry: bool,
                  timeout: float) -> tuple[str, int] | None:
        """The pc of the line's first event (``entry``: of the first function
        entry from the line on). ocamldebug's own ``break @ Module LINE``
        takes an event whose expression spans the line, maybe one lines
        above it; `info events` gives each event's characters."""
        events = self._events_of(module, timeout)
        try:
            data = Path(path).read_bytes()
        except OSError:
            return None
        offsets = [0] + [i + 1 for i, byte in enumerate(data) if byte == 10]
        if not 1 <= line <= len(offsets):
            return None
        first = offsets[line - 1]
        last = offsets[line] if line < len(offsets) else len(data) + 1
        # The earliest event, a "before" one first when two start together.
        found = sorted((start, not kind.startswith("before"), pc)
                       for pc, start, kind in events
                       if (start >= first and kind.endswith("/fun") if entry
                           else first <= start < last))
        if not found:
            return None
        start = found[0][0]
        return str(found[0][-1]), sum(1 for offset in offsets if offset <= start)

    def _function_place(self, name: str) -> tuple[str, str, int]:
        """Where ``f``, ``Cart.f`` or ``Cart.Sub.f`` is defined: a breakpoint
        on its definition's line binds at the function's first event,
        whether or not its value has been computed yet."""
        module, _, function = name.rpartition(".")
        modules = [module.split(".")[0]] if module else [self._main]
        for each in modules:
            path = self._module_file(each) if each else None
            if path is None:
                continue
            line = source.definition_line(self._source(path), function)
            if line is not None:
                return each, path, line
        raise OpFailed(f"no top-level function {name} in "
                       f"{modules[0] + '' if modules[0] else 'the program'}",
                       "give Module.function, or FILE:LINE")

    def _file_for(self, requested: str) -> str:
        for folder in ["", *self._dirs]:
            path = os.path.join(folder, requested)
            if path.endswith(".ml") and os.path.isfile(path):
                return os.path.abspath(path)
        raise OpFailed(f"no source file {requested}", "give the .ml file of one of the "
                       "program's modules")
