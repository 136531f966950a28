"""D and Nim on gdb and lldb: what their binaries need beyond C's.

Both compile to native code with DWARF, so gdb and lldb step them as they
do C; what they lack is how a user of the language reads a frame and a
value:

- **Names.** gdb demangles D (``shop.total(shop.Item[])``) but lldb-dap
  names such a frame by its address: for a D program it is asked for the
  symbol (``customFrameFormat``), which dbg demangles to ``shop.total``.
  Nim names each C function ``total__shop_4`` (its module and a number,
  ``_u4`` in Nim 2): dbg shows ``total``.
- **Values.** A D string is a slice, ``{length = 5, ptr = "apple"}``; a Nim
  string a pointer to its descriptor. dbg loads printers of its own into
  the debugger (gdbboot/dbg_natlang.py, lldbboot/dbg_natlang.py: D's
  toolchain ships none, and Nim 1.6's nim-gdb.py no longer loads in gdb 15+).
- **Locals.** Nim's C code declares temporaries (``T1_``, ``LA3_``,
  ``FR_``, its stack-trace frame) and D's ``foreach`` a range and key
  (``__r42``, ``__key43``): not the program's variables, so left out.
"""

from __future__ import annotations

import mmap
import re
from pathlib import Path

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
