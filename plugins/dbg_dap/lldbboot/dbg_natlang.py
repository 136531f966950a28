"""lldb's summaries and children for D's strings and slices, imported
into lldb (``command script import``) when the program is D's
(dbg_dap.natlang): a string reads as its text, not as
``(length = 5, ptr = u8"apple")``, a slice as its elements. (A Nim
string already reads as its text through lldb's own char summary.) Runs
inside lldb's Python.
"""

from __future__ import annotations

import json

import lldb  # type: ignore[import-untyped,import-not-found,unused-ignore]

#: The longest text a summary reads, and the most elements listed.
TEXT_BYTES = 4096
ELEMENTS = 100

_D_TEXT = r"^(string|wstring|dstring|((immutable|const)\()?(char|wchar|dchar)\)?\[\])$"
_D_SLICE = r"^.+\[\]$"


def _quoted(valobj: lldb.SBValue, address: int, length: int) -> str:
    if not length:
        return '""'
    error = lldb.SBError()
    data = valobj.GetProcess().ReadMemory(address, min(length, TEXT_BYTES), error)
    if not error.Success():
        return f"<unreadable at {address:#x}>"
    text = json.dumps(data.decode("utf-8", "replace"), ensure_ascii=False)
    return text if length <= TEXT_BYTES else text + f" (+{length - TEXT_BYTES} bytes)"


def d_text(valobj: lldb.SBValue, internal_dict: dict[str, object]) -> str:
    value = valobj.GetNonSyntheticValue()
    length = value.GetChildMemberWithName("length").GetValueAsUnsigned()
    address = value.GetChildMemberWithName("ptr").GetValueAsUnsigned()
    return _quoted(valobj, address, length)


class DText:
    """A D string has no children: its text is all of it (as a C string's)."""

    def __init__(self, valobj: lldb.SBValue, internal_dict: dict[str, object]) -> None:
        self.valobj = valobj

    def update(self) -> bool:
        return False

    def num_children(self) -> int:
        return 0

    def has_children(self) -> bool:
        return False


class DSlice:
    """A D slice's elements, from its ptr and length."""

    def __init__(self, valobj: lldb.SBValue, internal_dict: dict[str, object]) -> None:
        self.valobj = valobj

    def update(self) -> bool:
        self.length = int(self.valobj.GetChildMemberWithName("length").GetValueAsUnsigned())
        self.ptr = self.valobj.GetChildMemberWithName("ptr")
        self.element = self.ptr.GetType().GetPointeeType()
        return False

    def num_children(self) -> int:
        return min(self.length, ELEMENTS)

    def get_child_index(self, name: str) -> int:
        return int(name.strip("[]")) if name.startswith("[") else -1

    def get_child_at_index(self, index: int) -> lldb.SBValue:
        return self.valobj.CreateValueFromAddress(
            f"[{index}]", self.ptr.GetValueAsUnsigned() + index * self.element.GetByteSize(),
            self.element)

    def has_children(self) -> bool:
        return True


def d_slice(valobj: lldb.SBValue, internal_dict: dict[str, object]) -> str:
    length = valobj.GetNonSyntheticValue().GetChildMemberWithName("length").GetValueAsUnsigned()
    return f"{valobj.GetTypeName()} of length {length}"


def __lldb_init_module(debugger: lldb.SBDebugger, internal_dict: dict[str, object]) -> None:
    name = __name__
    for command in (
            f'type summary add -w dbg-natlang -F {name}.d_text -x "{_D_TEXT}"',
            f'type synthetic add -w dbg-natlang -l {name}.DText -x "{_D_TEXT}"',
            f'type synthetic add -w dbg-natlang -l {name}.DSlice -x "{_D_SLICE}"',
            f'type summary add -w dbg-natlang -F {name}.d_slice -x "{_D_SLICE}"',
            "type category enable dbg-natlang"):
        debugger.HandleCommand(command)
