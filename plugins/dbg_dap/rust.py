"""What gdb and lldb need to show a Rust program as Rust's own tools do.

A Rust panic unwinds and ends the program with exit code 101: no signal,
no exception a native debugger knows of. Every panic of a program built
with unwinding goes through std's ``rust_panic`` after the panic hook has
printed its message, so a breakpoint there is the panic's stop; the
message is read back from the program's stderr, and the stop is shown in
the program's own frame below std's and core's machinery.

Rust's values (``String``, ``Vec``, ``HashMap``, ``Option``...) read as
their fields unless the pretty printers of the program's own toolchain are
loaded: they live in ``$(rustc --print sysroot)/lib/rustlib/etc``, the
folder rust-gdb and rust-lldb load them from.
"""

from __future__ import annotations

import mmap
import os
import re
import shutil
import subprocess
from functools import cache

#: A mark every Rust binary linked with std holds: its panic handler.
_RUST_MARK = b"rust_begin_unwind"

#: Frames of the toolchain's own libraries (their sources are under /rustc/).
_LIBRARY_PREFIXES = ("std::", "core::", "alloc::", "__rustc::", "<core::", "<alloc::",
                     "<std::")

#: The panic hook's header: "thread 'main' (1234) panicked at src/main.rs:14:9:".
_PANICKED = re.compile(r"thread '([^']*)'(?: \(\d+\))? panicked at ([^\n]*?):?\n")

#: The header of Rust before 1.73: "panicked at 'MESSAGE', src/main.rs:14:9".
_OLD_HEADER = re.compile(r"'(.*)', (\S+?)")

#: Where the message ends: the hook's notes and the backtrace after it.
_MESSAGE_END = ("note: ", "stack backtrace:")

#: The hash a legacy-mangled symbol ends with, which lldb shows in names.
_SYMBOL_HASH = re.compile(r"::h[0-9a-f]{16}$")

#: The toolchain's pretty-printer files gdb and lldb load (lib/rustlib/etc).
GDB_PRINTERS = ("gdb_load_rust_pretty_printers.py",)
LLDB_PRINTERS = ("lldb_lookup.py", "lldb_commands")

#: A panic message longer than this is cut (and says so).
MESSAGE_LIMIT = 500


def is_rust(program: str | None) -> bool:
    """Whether ``program`` is a Rust binary (one with std's panic handler)."""
    if not program:
        return False
    try:
        with open(program, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return m.find(_RUST_MARK) >= 0
    except (OSError, ValueError):
        return False  # unreadable, or empty


def library_frame(frame: dict[str, object]) -> bool:
    """A frame of the toolchain's libraries (std, core, alloc), not the program's."""
    source = frame.get("source")
    path = str(source.get("path") or "") if isinstance(source, dict) else ""
    return path.startswith("/rustc/") or str(frame.get("name", "")).startswith(_LIBRARY_PREFIXES)


def own_frame(frames: list[dict[str, object]]) -> int:
    """The index of the innermost frame of the program's own code."""
    return next((i for i, f in enumerate(frames) if not library_frame(f)), 0)


def main_index(frames: list[dict[str, object]]) -> int | None:
    """The index of a Rust program's own ``main`` (``inv::main``): std's
    start-up (``lang_start``) and the C ``main`` that calls it are below."""
    for index in range(len(frames) - 1, -1, -1):
        name = plain_name(str(frames[index].get("name", "")))
        if name.endswith("::main") and not library_frame(frames[index]):
            return index
    return None


def plain_name(name: str) -> str:
    """A function's name without its symbol's hash (``inv::take::h3334...``
    is ``inv::take``), as gdb and rustc's backtraces show it."""
    return _SYMBOL_HASH.sub("", name)


def panic_message(stderr: str) -> str:
    """The last panic's words in what the program wrote to stderr:
    "panicked at inv.rs:14:9: not enough kiwi" ("" when the hook printed none)."""
    found = list(_PANICKED.finditer(stderr))
    if not found:
        return ""
    last = found[-1]
    old = _OLD_HEADER.fullmatch(last.group(2))
    if old is not None:
        # Before Rust 1.73 the message came first, quoted, on the header's line.
        return f"panicked at {old.group(2)}: {_cut(old.group(1))}"
    lines = []
    for line in stderr[last.end():].splitlines():
        if line.startswith(_MESSAGE_END):
            break
        lines.append(line)
    message = _cut("\n".join(lines).strip())
    where = f"panicked at {last.group(2)}"
    return f"{where}: {message}" if message else where


def _cut(message: str) -> str:
    if len(message) <= MESSAGE_LIMIT:
        return message
    return message[:MESSAGE_LIMIT] + f"... [{len(message) - MESSAGE_LIMIT} more characters]"


def printer_files(*names: str) -> list[str] | None:
    """The toolchain's pretty-printer files of these names, when it has
    them all (Debian's rustc has gdb's only with rust-gdb, lldb's with rust-lldb)."""
    folder = printers_folder()
    if folder is None:
        return None
    paths = [os.path.join(folder, name) for name in names]
    return paths if all(os.path.isfile(p) for p in paths) else None


@cache
def printers_folder() -> str | None:
    """The toolchain's folder of pretty printers for gdb and lldb (None:
    no rustc on PATH, or a toolchain without them)."""
    rustc = shutil.which("rustc")
    if rustc is None:
        return None
    try:
        sysroot = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True,
                                 timeout=10, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    folder = os.path.join(sysroot, "lib", "rustlib", "etc")
    return folder if os.path.isdir(folder) else None
