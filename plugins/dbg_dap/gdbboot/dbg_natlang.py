"""gdb's pretty printers for D's and Nim's strings and arrays, loaded into
gdb (``source``) when the program is one of theirs (dbg_dap.natlang).

Without them a D string reads as its slice, ``{length = 5, ptr = "apple"}``,
and a Nim string as a pointer to its descriptor; the toolchains' own
printers are missing (LDC ships none) or do not load in a current gdb
(Nim 1.6's nim-gdb.py uses names gdb 15 removed). Runs inside gdb's Python.
"""

from __future__ import annotations

import re

import gdb  # type: ignore[import-untyped,import-not-found,unused-ignore]

#: D's character slices: string, wstring, dstring and their mutable forms.
_D_TEXT = re.compile(r"^(?:string|wstring|dstring|(?:immutable|const)\((?:char|wchar|dchar)\)\[\]"
                     r"|(?:char|wchar|dchar)\[\])$")
#: Any other D slice (T[]): a struct of length and ptr named for its type.
_D_SLICE = re.compile(r"\[\]$")
#: Nim's string, refc (NimStringDesc *) and ARC (NimStringV2).
_NIM_TEXT = re.compile(r"^(?:NimStringDesc \*|NimStringV2)$")
#: Nim's seq[T] (refc: a pointer to tySequence__HASH).
_NIM_SEQ = re.compile(r"^tySequence__\w+ \*$")

#: The most elements a slice or seq lists.
ELEMENTS = 100


def _fields(value: gdb.Value) -> set[str]:
    try:
        return {f.name for f in value.type.strip_typedefs().fields()}
    except (TypeError, gdb.error):
        return set()


class _DText:
    def __init__(self, value: gdb.Value) -> None:
        self.value = value

    def to_string(self) -> object:
        length = int(self.value["length"])
        return self.value["ptr"].lazy_string(length=length) if length else '""'

    def display_hint(self) -> str:
        return "string"


class _DSlice:
    def __init__(self, value: gdb.Value) -> None:
        self.value = value
        self.length = int(value["length"])

    def to_string(self) -> str:
        return f"{self.value.type.name} of length {self.length}"

    def children(self):  # type: ignore[no-untyped-def]
        ptr = self.value["ptr"]
        for i in range(min(self.length, ELEMENTS)):
            yield f"[{i}]", (ptr + i).dereference()

    def display_hint(self) -> str:
        return "array"


class _NimText:
    def __init__(self, value: gdb.Value) -> None:
        self.value = value

    def to_string(self) -> object:
        value = self.value
        if value.type.code == gdb.TYPE_CODE_PTR:  # refc
            if int(value) == 0:
                return '""'  # nil is the empty string
            length = int(value["Sup"]["len"])
            return value["data"].address.cast(gdb.lookup_type("char").pointer()).lazy_string(
                length=length) if length else '""'
        length = int(value["len"])  # ARC: len and a payload of cap and data
        return value["p"]["data"].address.cast(gdb.lookup_type("char").pointer()).lazy_string(
            length=length) if length else '""'

    def display_hint(self) -> str:
        return "string"


class _NimSeq:
    def __init__(self, value: gdb.Value) -> None:
        self.value = value
        self.length = int(value["Sup"]["len"]) if int(value) else 0

    def to_string(self) -> str:
        return f"seq of length {self.length}"

    def children(self):  # type: ignore[no-untyped-def]
        if not self.length:
            return
        data = self.value["data"]
        for i in range(min(self.length, ELEMENTS)):
            yield f"[{i}]", data[i]

    def display_hint(self) -> str:
        return "array"


def _lookup(value: gdb.Value) -> object:
    name = str(value.type.strip_typedefs()) if value.type.name is None else value.type.name
    shown = str(value.type)
    if _D_TEXT.match(shown) or _D_TEXT.match(name):
        return _DText(value) if {"length", "ptr"} <= _fields(value) else None
    if _D_SLICE.search(shown) and {"length", "ptr"} <= _fields(value):
        return _DSlice(value)
    if _NIM_TEXT.match(shown):
        return _NimText(value)
    if _NIM_SEQ.match(shown):
        return _NimSeq(value)
    return None


gdb.pretty_printers.append(_lookup)
