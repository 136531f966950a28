"""An ELF file's section table, read from its headers with :mod:`struct`:
enough for dbg's few questions of a binary (is it Go's, does it export
Python's C API) without a library. 32- and 64-bit, either byte order.
"""

from __future__ import annotations

import struct
from typing import BinaryIO, NamedTuple

#: A section table's string table is read up to this size.
MAX_TABLE = 1 << 20


class Section(NamedTuple):
    """One section header: its name's offset in the section-name table,
    its type (``SHT_*``), where its bytes are, and its link (for a symbol
    table, its string table's index)."""

    name: int
    kind: int
    offset: int
    size: int
    link: int


def sections(stream: BinaryIO) -> tuple[list[Section], int] | None:
    """The section headers of the ELF file open in ``stream`` and the index
    of its section-name table; None when it is no ELF file or has no
    section table."""
    try:
        stream.seek(0)
        head = stream.read(64)
        if len(head) < 52 or head[:4] != b"\x7fELF" or head[4] not in (1, 2):
            return None
        wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
        if wide:
            (shoff,) = struct.unpack_from(order + "Q", head, 0x28)
            entry, count, names = struct.unpack_from(order + "HHH", head, 0x3A)
            layout = order + "IIQQQQII"
        else:
            (shoff,) = struct.unpack_from(order + "I", head, 0x20)
            entry, count, names = struct.unpack_from(order + "HHH", head, 0x2E)
            layout = order + "IIIIIIII"
        if not shoff or not count or entry < struct.calcsize(layout):
            return None
        stream.seek(shoff)
        table = stream.read(entry * count)
        found = []
        for i in range(min(count, len(table) // entry)):
            name, kind, _flags, _addr, offset, size, link, _info = struct.unpack_from(
                layout, table, i * entry)
            found.append(Section(name, kind, offset, size, link))
    except (OSError, struct.error, ValueError):
        return None
    return found, names


def section_bytes(stream: BinaryIO, section: Section, limit: int = MAX_TABLE) -> bytes:
    """A section's bytes (at most ``limit``); b"" when they cannot be read."""
    try:
        stream.seek(section.offset)
        return stream.read(min(section.size, limit))
    except (OSError, ValueError):
        return b""
