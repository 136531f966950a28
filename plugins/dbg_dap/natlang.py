"""D and Nim on gdb and lldb: what their binaries need beyond C's.

Both compile to native code with DWARF, so gdb and lldb step them as they
do C; what they lack is how a user of the language reads a frame and a
value:

- **Names.** gdb demangles D (``shop.total(shop.Item[])``) but lldb-dap
  names such a frame by its address: for a D program it is asked for the
  symbol (``customFrameFormat``), which dbg demangles to ``shop.total``,
  and gdb's name loses its parameters to read the same.
  Nim names each C function ``total__shop_4`` (its module and a number,
  ``_u4`` in Nim 2): dbg shows ``total``.
- **Values.** A D string is a slice, ``{length = 5, ptr = "apple"}``; a Nim
  string a pointer to its descriptor. dbg loads printers of its own into
  the debugger (gdbboot/dbg_natlang.py, lldbboot/dbg_natlang.py: D's
  toolchain ships none, and Nim 1.6's nim-gdb.py no longer loads in gdb 15+).
- **Function breakpoints.** ``dbg break apply_discount`` names the
  function as the user writes it; lldb knows a D function by its mangled
  symbol only, and gdb a Nim proc by its C name (``apply_discount__cart_12``):
  dbg finds that symbol in the binary's symbol table.
- **Locals.** Nim's C code declares temporaries (``T1_``, ``LA3_``,
  ``FR_``, its stack-trace frame) and D's ``foreach`` a range and key
  (``__r42``, ``__key43``): not the program's variables, so left out.
"""

from __future__ import annotations

import functools
import mmap
import re
from pathlib import Path

from dbgcore.api import elf

#: What a binary holds when its language is D (druntime's entry point calls
#: the program's _Dmain) or Nim (its generated main calls NimMain).
_MARKS = {"d": b"_Dmain", "nim": b"NimMain"}

_GDB_PRINTERS = str(Path(__file__).with_name("gdbboot") / "dbg_natlang.py")
_LLDB_PRINTERS = str(Path(__file__).with_name("lldbboot") / "dbg_natlang.py")

#: Nim's C name of a proc: NAME__MODULE_N (Nim 1) or NAME__MODULE_uN (Nim 2).
_NIM_NAME = re.compile(r"^(\w+?)__\w+?_u?\d+$")
#: Nim's own locals in the C code it writes.
_NIM_TEMPORARY = re.compile(r"^(?:FR_|T\d+_|LA\d+_|TM__\w+|colontmp_\w*)$")
#: D's foreach temporaries.
_D_TEMPORARY = re.compile(r"^__(?:r|key|aggr|limit|applyArg)\d+$")


def language(program: str | None) -> str | None:
    """"d" or "nim" when ``program`` is a binary of theirs, else None."""
    if not program:
        return None
    try:
        with open(program, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return next((lang for lang, mark in _MARKS.items() if m.find(mark) >= 0), None)
    except (OSError, ValueError):
        return None  # unreadable, or empty


def entry_function(lang: str | None) -> str | None:
    """The function the program's own code starts in, where C's main is
    the runtime's (D's _Dmain, which druntime's main calls)."""
    return "_Dmain" if lang == "d" else None


#: Top-level Nim lines that run no code of their own.
_NIM_NO_CODE = re.compile(r"^(?:#|import\b|include\b|from\b|export\b|type\b|const\b|proc\b"
                          r"|func\b|method\b|iterator\b|template\b|macro\b|converter\b|\{\.|when\b"
                          r"|discard\s+\"\"\")")


def nim_first_line(source: str | None) -> int | None:
    """The first line of a Nim module's top-level code: where its program
    starts (Nim runs a module's statements in NimMainModule, called from a
    C main of its own that has no line of the program's)."""
    if not source or not source.endswith(".nim"):
        return None
    try:
        lines = Path(source).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for number, text in enumerate(lines, 1):
        if text.strip() and not text[0].isspace() and not _NIM_NO_CODE.match(text):
            return number
    return None


def printer_command(debugger: str, lang: str | None) -> str | None:
    """The debugger's command that loads dbg's printers for ``lang``."""
    if lang is None:
        return None
    if debugger == "gdb":
        return f"source {_GDB_PRINTERS}"
    return f"command script import {_LLDB_PRINTERS}" if lang == "d" else None


def plain_name(name: str, lang: str | None) -> str:
    """A frame's function as the language's user writes it."""
    if lang == "d" and name.startswith("_D") and name[2:3].isdigit():
        return d_demangled(name)
    if lang == "d" and name.endswith(")") and "(" in name:
        return name[:name.index("(")]  # gdb's demangling: as lldb's, without the parameters
    if lang == "nim":
        found = _NIM_NAME.match(name)
        if found:
            return found.group(1)
    return name


def d_demangled(symbol: str) -> str:
    """The qualified name a D symbol mangles (``_D4shop5totalFASQo4ItemZi``
    is ``shop.total``): its length-prefixed parts, up to its type."""
    parts: list[str] = []
    at = 2
    while at < len(symbol) and symbol[at].isdigit():
        end = at
        while end < len(symbol) and symbol[end].isdigit():
            end += 1
        size = int(symbol[at:end])
        part = symbol[end:end + size]
        if len(part) < size:
            return symbol
        parts.append(part)
        at = end + size
    return ".".join(parts) if parts else symbol


def temporary(name: str, lang: str | None) -> bool:
    """Whether a local is the compiler's, not the program's."""
    if lang == "nim":
        return bool(_NIM_TEMPORARY.match(name))
    return lang == "d" and bool(_D_TEMPORARY.match(name))


#: The symbol table's section type (SHT_SYMTAB), and the most of its
#: string table read (a D program's holds druntime's and Phobos's names).
_SYMTAB = 2
_STRINGS_READ = 64 << 20


@functools.lru_cache(maxsize=8)
def _symbol_names(program: str, _stamp: int) -> bytes:
    """The string table of the program's symbols: NUL-separated names."""
    try:
        with open(program, "rb") as fh:
            found = elf.sections(fh)
            if found is None:
                return b""
            table = next((s for s in found[0] if s.kind == _SYMTAB), None)
            if table is None or table.link >= len(found[0]):
                return b""
            return b"\0" + elf.section_bytes(fh, found[0][table.link], _STRINGS_READ)
    except OSError:
        return b""


def native_function(program: str | None, lang: str | None, name: str) -> str | None:
    """The symbol of the function a user names (``cart.apply_discount``,
    ``apply_discount``) in a D or Nim program, where the debugger knows it
    by that symbol only; None when there is none (or it is no such program)."""
    if not program or lang not in ("d", "nim") or not re.fullmatch(r"[\w.]+", name):
        return None
    try:
        names = _symbol_names(program, Path(program).stat().st_mtime_ns)
    except OSError:
        return None
    if lang == "nim":
        found = re.search(rb"\0(" + re.escape(name.encode()) + rb"__\w+?_u?\d+)\0", names)
        return found.group(1).decode() if found else None
    parts = name.split(".")
    last = f"{len(parts[-1])}{parts[-1]}".encode()
    for match in re.finditer(rb"\0(_D\w*?" + last + rb"[A-Z]\w*)\0", names):
        symbol = match.group(1).decode()
        shown = d_demangled(symbol)
        if shown == name or (len(parts) == 1 and shown.endswith("." + name)):
            return symbol
    return None
