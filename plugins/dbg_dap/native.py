"""What the native debuggers' profiles share (gdb and lldb-dap: programs
are compiled binaries), and how dbg reads a debugger's version.

Facts each native profile rests on (measured; see docs/backends.md):

- gdb >= 14 speaks DAP with ``-i=dap``; older gdbs answer "Interpreter 'dap'
  unrecognized". Its ``repl`` context runs gdb CLI commands. ``env`` replaces
  the whole environment of the program. ``hitCondition`` is an ignore count
  (:mod:`dbg_dap.gdb`).
- lldb-dap must be started by absolute path; ``stopOnEntry`` stops inside the
  loader, so dbg stops at ``main`` with a function breakpoint instead; it
  crashes on requests it does not implement and does not exit by itself
  (:mod:`dbg_dap.lldb`).
- delve (``dlv dap --client-addr``) dials a loopback port of dbg's and
  prints the debuggee's stdout on its own stdout; it ends with ``terminated``
  only, and says the exit status in console text. In debug mode it builds
  the package in its own working folder (:mod:`dbg_dap.delve`).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import ClassVar

import dbg_dap.nativebuild as nativebuild
import dbg_dap.natlang as natlang
import dbg_dap.rust as rust
from dbg_dap.frames import (
    native_library,
)
from dbg_dap.host import AdapterHost, JsonValue, program_root
from dbg_dap.profile_base import AdapterProfile
from dbgcore.api import (
    AttachRequest,
    LaunchRequest,
    Location,
    Message,
    NotAProgram,
    StopEvent,
    UsageError,
    binary_kind,
)

#: Files that must be compiled before a native debugger can run them.
SOURCE_SUFFIXES = {
    ".c": "gcc -g -O0 {src} -o {out}",
    ".h": "gcc -g -O0 FILE.c -o {out}",
    ".cc": "g++ -g -O0 {src} -o {out}",
    ".cpp": "g++ -g -O0 {src} -o {out}",
    ".cxx": "g++ -g -O0 {src} -o {out}",
    ".hpp": "g++ -g -O0 FILE.cpp -o {out}",
    ".rs": "rustc -g {src} -o {out}  (or: cargo build)",
    ".d": "ldc2 -g -O0 {src} -of={out}",
    ".nim": "nim c --debugger:native --opt:none -o:{out} {src}",
}

#: A C or C++ array type, ending in its dimensions ("int [10000000]",
#: "int[3][4]": the first is how many children it has).
_ARRAY_TYPE_RE = re.compile(r"\[(\d+)\](?:\[\d+\])*$")

_VERSION_RE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")

#: `--version` answers, per executable path (a check runs on every `dbg start`).
_versions: dict[str, str] = {}


#: Where coreutils keeps stdbuf's library (Debian, Ubuntu; Fedora, Arch).
STDBUF_LIBRARIES = ("/usr/libexec/coreutils/libstdbuf.so", "/usr/lib/coreutils/libstdbuf.so")


def line_buffered(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the program's stdout line-buffered, as in a terminal.

    The program's stdout is a pipe or FIFO of dbg's, so the C library
    buffers it fully: the lines a program printed before it crashed would
    die in its buffer and never be shown. coreutils' ``stdbuf -oL`` does what
    is needed without changing anything else the program sees (its stdout is
    still not a terminal: isatty() stays false, no colours appear, no
    carriage returns): its library, preloaded, calls setvbuf before main.
    Without that library (another system; a static binary ignores it) the
    environment is unchanged. The user's own LD_PRELOAD is kept, and their
    ``_STDBUF_O`` wins."""
    library = next((path for path in STDBUF_LIBRARIES if os.path.exists(path)), None)
    if library is None:
        return env
    preload = env.get("LD_PRELOAD", "")
    if library not in preload.replace(":", " ").split():
        env["LD_PRELOAD"] = f"{library}:{preload}" if preload else library
    env.setdefault("_STDBUF_O", "L")
    return env


#: The most steps over that take an entry stop off main's closing brace.
ENTRY_STEPS = 3


def _closing_brace(path: str, line: int) -> bool:
    """Whether line ``line`` of ``path`` holds only a closing brace that
    ends a body with statements in it (the line before it does not open
    the body): no statement of a function's first line is there."""
    try:
        with open(path, encoding="utf-8", errors="replace") as source:
            lines = [t.split("//")[0].strip() for t in source.readlines()[:line]]
    except OSError:
        return False
    if len(lines) < line or lines[-1] not in ("}", "};"):
        return False
    before = next((t for t in reversed(lines[:-1]) if t), "")
    return bool(before) and not before.endswith("{")


#: What libstdc++'s terminate handler prints of an uncaught exception.
_TERMINATE_RE = re.compile(r"terminate called after throwing an instance of '([^']+)'"
                           r"(?:\s*\n\s*what\(\):\s*(.*))?")


def version_of(exe: str, flag: str = "--version") -> str:
    """The version number ``exe flag`` prints ("18.1"). Asking costs 0.1-0.2
    s (gdb, lldb), on every `dbg start`; so answers are kept in DBG_HOME,
    keyed by the executable's path, size and modification time."""
    if exe in _versions:
        return _versions[exe]
    from dbgcore.api import file_key, recall, remember

    # With the flag: entries written before the cache held bare numbers
    # ("18.1") held whole lines, and must not be read as numbers.
    key = f"{identity}:{flag}" if (identity := file_key(exe)) else ""
    known = recall(_version_cache_file(), key) if key else ""
    if known:
        _versions[exe] = known
        return known
    try:
        out = subprocess.run([exe, flag], capture_output=True, text=True,
                             timeout=20, stdin=subprocess.DEVNULL)
        found = _VERSION_RE.search(out.stdout or out.stderr) if out.returncode == 0 else None
        _versions[exe] = found.group(0) if found else ""
    except (OSError, subprocess.SubprocessError):
        _versions[exe] = ""
    if key and _versions[exe]:
        remember(_version_cache_file(), key, _versions[exe])
    return _versions[exe]


def _version_cache_file() -> Path:
    from dbgcore.api import dbg_home

    return dbg_home() / "tool-versions.json"


def version_number(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


class NativeProfile(AdapterProfile):
    """What gdb and lldb-dap share: programs are compiled binaries."""

    #: A file no debug info names may come with a library loaded later.
    pending_unknown_files = True
    #: The program's output reaches dbg apart (gdb: FIFOs; lldb: the
    #: runInTerminal process's pipes), so "stdout" and "stderr" output events
    #: are the debugger's own (gdb's messages, what lldb's `script` prints).
    output_categories: ClassVar[dict[str, str]] = {"stdout": "console", "stderr": "console"}
    #: The program's language where it needs more than C's reading ("d",
    #: "nim": dbg_dap.natlang), found when it is launched.
    language: str | None = None

    #: The program launched, for its symbols (natlang.native_function), and
    #: the source dbg built it from, if it did.
    program: str | None = None
    source: str | None = None

    def launch_arguments(self, request: LaunchRequest) -> Message:
        self.language = natlang.language(request.program)
        self.program, self.source = request.program, request.built_from
        return super().launch_arguments(request)

    def entry_line(self) -> Location | None:
        # A Nim program starts in a C main of Nim's own: the entry stop is
        # the module's first top-level line (known when dbg built it).
        line = natlang.nim_first_line(self.source) if self.language == "nim" else None
        return Location(self.source, line, None) if line and self.source else None

    def function_name(self, module: str | None, function: str) -> str:
        native = None if module else natlang.native_function(self.program, self.language,
                                                              function)
        return native or super().function_name(module, function)

    def language_printer_commands(self) -> list[str]:
        command = natlang.printer_command(self.name, self.language)
        return [command] if command else []

    def frame_name(self, frame: Message) -> str | None:
        name = super().frame_name(frame)
        return natlang.plain_name(name, self.language) if name else name

    def noise_variable(self, var: Message) -> bool:
        return natlang.temporary(str(var.get("name") or ""), self.language)

    def build_command(self, program: Path, out: Path) -> tuple[list[str], Path] | None:
        return nativebuild.build_command(program, out)

    def check_program(self, program: Path) -> None:
        if program.is_dir():
            raise NotAProgram(f"{program} is a folder, not a program",
                              "give the path of the compiled binary")
        recipe = SOURCE_SUFFIXES.get(program.suffix.lower())
        if recipe is not None:
            out = program.with_suffix("")
            command = recipe.format(src=program.name, out=out.name)
            raise NotAProgram(f"{program.name} is a source file, not a program",
                              f"compile it with debug info first: {command}; "
                              f"then: dbg start ./{out.name}")
        if binary_kind(program) is None:
            raise NotAProgram(f"{program} is not a compiled program (not an ELF executable)",
                              "give a binary built with -g; scripts run under their own "
                              "interpreter's debugger")
        if not os.access(program, os.X_OK):
            raise NotAProgram(f"{program} is not executable",
                              "give a compiled binary (built with -g), or chmod +x it")

    def children_counted(self, row: Message) -> int:
        # lldb-dap's evaluate answers no count; a C array's type says it.
        counted = super().children_counted(row)
        found = None if counted else _ARRAY_TYPE_RE.search(str(row.get("type") or ""))
        return int(found.group(1)) if found else counted

    def internal_frames(self, frames: list[Message]) -> list[bool]:
        # What calls main is the C runtime's start-up (__libc_start_main,
        # _start), with or without libc's debug info; a thread's first frames
        # (start_thread, clone3) have no source of the program's.
        # Rust's: std's start-up runs the program's own main from the C main.
        rust_main = rust.main_index(frames)
        mains = [rust_main] if rust_main is not None else \
            [i for i, f in enumerate(frames) if f.get("name") == "main"]
        if mains:
            return [i > mains[-1] for i in range(len(frames))]
        return [not os.path.isabs(str((f.get("source") or {}).get("path") or ""))
                for f in frames]

    def library_frames(self, backend: AdapterHost, frames: list[Message],
                       timeout: float) -> list[str | None]:
        root = program_root(backend.program)
        return [native_library(f, root) for f in frames]

    def uncaught_exception(self, backend: AdapterHost, frames: list[Message],
                           timeout: float) -> tuple[int, str, int] | None:
        # An exception no handler caught: __cxa_throw found none and called
        # std::terminate, which aborts. Shown at the program's own frame
        # nearest the throw (not libstdc++'s or a system header's), as
        # what libstdc++'s terminate handler printed on stderr says.
        names = [str(f.get("name") or "") for f in frames]
        throws = [i for i, name in enumerate(names) if name.startswith("__cxa_throw")
                  or name.startswith("__cxa_rethrow")]
        if not throws or not any("terminate" in name for name in names[:throws[0]]):
            return None
        libraries = self.library_frames(backend, frames, timeout)
        own = next((i for i in range(throws[0] + 1, len(frames)) if libraries[i] is None), None)
        if own is None:
            return None
        said = backend.ctx.output.text(max(0, backend.ctx.output.cursor - 20), {"stderr"})
        found = _TERMINATE_RE.search(said)
        if found is None:
            return own, "uncaught C++ exception", throws[0] + 1
        kind, what = found.group(1), (found.group(2) or "").strip()
        return own, f"{kind}: {what}" if what else kind, throws[0] + 1

    def after_entry(self, backend: AdapterHost, event: StopEvent,
                    timeout: float) -> StopEvent:
        # g++ files the code that builds the temporaries of main's first
        # statement (the strings of `vector<string> v{"a", "b"}`) under main's
        # closing brace, and that code comes first after the prologue: gdb's
        # and lldb's "start of main" is then the line-table row of the `}`,
        # shown with nothing constructed. A step over runs that code, and
        # stops on main's first line, where the entry stop belongs.
        where = event.location
        if where is None or not where.file or not where.line \
                or not _closing_brace(where.file, where.line):
            return event
        stepped = event
        for _ in range(ENTRY_STEPS):
            stepped = backend.resume("next", timeout)
            here = stepped.location
            if stepped.state != "stopped" or here is None or here.file != where.file \
                    or here.function != where.function:
                return stepped
            if here.line != where.line:
                stepped.reason, stepped.description = "entry", ""
                return stepped
        return stepped

    def env_argument(self, request: LaunchRequest) -> JsonValue:
        # gdb's `env` replaces the program's whole environment: add to ours.
        return line_buffered({**os.environ, **request.env})

    def attach_program(self, request: AttachRequest) -> str | None:
        # A process in a container (its files under a path map): lldb looks
        # for the binary at the path the process names, which is the
        # container's (gdb follows the namespace itself); both are given
        # the one here.
        if request.program or request.pid is None or not request.paths:
            return request.program
        try:
            named = os.readlink(f"/proc/{request.pid}/exe")
        except OSError:
            return None
        here = request.paths.to_local(named) if named.startswith("/") else named
        return here if here != named and os.path.isfile(here) else None

    def attach_arguments(self, request: AttachRequest) -> Message:
        args: Message = {}
        if request.program:
            args["program"] = request.program
        if request.port is not None:
            return {**args, **self.remote_arguments(request.host or "127.0.0.1", request.port)}
        if request.pid is None:
            raise UsageError(f"{self.name} attaches by --pid, or by --port to a debug server")
        return {**args, "pid": request.pid}

    def remote_arguments(self, host: str, port: int) -> Message:
        """Attach arguments for a gdb-protocol server (gdbserver, lldb-server)."""
        raise UsageError(f"{self.name} cannot attach to a debug server")

    def core_arguments(self, request: LaunchRequest) -> tuple[str, Message]:
        # gdb (18+) and lldb-dap both take a core by `attach`, with the program.
        return "attach", {"program": request.program, "coreFile": request.core}
