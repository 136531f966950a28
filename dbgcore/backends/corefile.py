"""Core dumps: telling one from another file, and what it says about the death.

A Linux core dump is an ELF file of type ``ET_CORE`` whose notes record the
process at its death: ``NT_PRSTATUS`` per thread (the signal in
``pr_cursig``), ``NT_PRPSINFO`` (the program's name and arguments) and, since
Linux 3.7, ``NT_SIGINFO`` (the whole ``siginfo_t``: signal, code, fault
address). These are the kernel's (and gdb's ``gcore``'s) records, read
here without any debugger, so every backend that opens a core says the same
thing about why the process died; a debugger adds what only it can tell (a
Go panic's message).

Only headers and note segments are read: a core can be gigabytes.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from dbgcore.shared.errors import UsageError
from dbgcore.vocab.model import Location, signal_name

_ET_CORE = 4
_PT_NOTE = 4
_NT_PRSTATUS = 1
_NT_PRPSINFO = 3
_NT_SIGINFO = 0x53494749  # "SIGI"

#: Note segments larger than this are not read (real ones are kilobytes).
_MAX_NOTES = 64 << 20

#: Signals the kernel raises for a fault at an address (si_addr is it).
_FAULTS = frozenset({"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGTRAP"})

#: What a fault's si_code means (asm-generic/siginfo.h), by signal.
_CODES: dict[str, dict[int, str]] = {
    "SIGSEGV": {1: "address not mapped to object", 2: "invalid permissions for mapped object",
                3: "failed address bound checks", 4: "failed protection key checks"},
    "SIGBUS": {1: "invalid address alignment", 2: "nonexistent physical address",
               3: "object-specific hardware error"},
    "SIGFPE": {1: "integer divide by zero", 2: "integer overflow",
               3: "floating-point divide by zero", 4: "floating-point overflow",
               5: "floating-point underflow", 6: "floating-point inexact result",
               7: "invalid floating-point operation", 8: "subscript out of range"},
    "SIGILL": {1: "illegal opcode", 2: "illegal operand", 3: "illegal addressing mode",
               4: "illegal trap", 5: "privileged opcode", 6: "privileged register",
               7: "coprocessor error", 8: "internal stack error"},
}


@dataclass
class CoreInfo:
    """What a core file's notes say (None: the core does not say)."""

    path: str
    #: The signal that killed the process ("SIGSEGV").
    signal: str | None = None
    #: siginfo's si_code: > 0 the kernel raised it (a fault), <= 0 a process sent it.
    code: int | None = None
    #: The faulting address, for a fault signal raised by the kernel.
    address: int | None = None
    #: Who sent the signal (si_pid), for a signal a process sent.
    sender: int | None = None
    pid: int | None = None
    #: The program's name as the kernel kept it (at most 15 bytes) and its command line.
    program: str = ""
    command: str = ""
    #: The file's size, and the size its program headers say it has: a core
    #: cut short (by a core size limit, or still being written) is smaller.
    size: int = 0
    expected_size: int = 0

    def truncated(self) -> str:
        """A note when the file is shorter than its segments say, else ""."""
        if self.size >= self.expected_size:
            return ""
        return (f"{os.path.basename(self.path)} is cut short ({self.size} of "
                f"{self.expected_size} bytes: a core size limit, or still being written): "
                "memory past its end does not read")

    def death(self) -> str:
        """How the process died, in a few words: ``killed by SIGSEGV
        (address not mapped to object, fault address 0x8)``."""
        if self.signal is None:
            return "the core does not say how it died"
        details = []
        meaning = _CODES.get(self.signal, {}).get(self.code or 0) if (self.code or 0) > 0 \
            else None
        if meaning:
            details.append(meaning)
        if self.address is not None:
            details.append(f"fault address {self.address:#x}")
        if self.code is not None and self.code <= 0 and self.sender is not None:
            details.append("sent by the program itself" if self.sender == self.pid
                           else f"sent by process {self.sender}")
        return f"killed by {self.signal}" + (f" ({', '.join(details)})" if details else "")


def post_mortem_description(info: CoreInfo, location: Location | None, cause: str = "") -> str:
    """The description of a core's stop, the same on every backend:
    ``post-mortem of core: killed by SIGSEGV (...) in wc_count at wc.c:16``,
    then ``; CAUSE``, what the debugger adds (a Go panic's message)."""
    text = f"post-mortem of {os.path.basename(info.path)}: {info.death()}"
    if location is not None and location.function:
        text += f" in {location.function}"
    if location is not None and location.file and location.line:
        text += f" at {os.path.basename(location.file)}:{location.line}"
    return f"{text}; {cause}" if cause else text


def read_core(path: Path, name: str | None = None) -> CoreInfo:
    """The notes of the core dump at ``path`` (``name``: as the user gave
    it, for messages); UsageError when it is not one (not an ELF file, or
    an ELF file of another type: a program, a library)."""
    name = name or str(path)
    try:
        with path.open("rb") as stream:
            info = _read(stream, name)
    except PermissionError:
        raise UsageError(f"--core {name}: cannot read it (permission denied)",
                         "a core belongs to the user whose program crashed: read it as them, "
                         "or chmod it") from None
    except OSError as exc:
        raise UsageError(f"--core {name}: cannot read it ({exc.strerror or exc})") from None
    info.path = str(path)
    return info


def _read(stream: BinaryIO, name: str) -> CoreInfo:
    head = stream.read(64)
    if len(head) < 52 or head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
        raise UsageError(f"--core {name}: not a core file (not an ELF file)",
                         "give the core dump the crash left (see /proc/sys/kernel/core_pattern "
                         "for where cores go)")
    wide, end = head[4] == 2, "<" if head[5] == 1 else ">"
    e_type, = struct.unpack_from(end + "H", head, 16)
    if e_type != _ET_CORE:
        kind = {1: "an object file", 2: "a program", 3: "a program or a shared library"}.get(
            e_type, "another kind of ELF file")
        raise UsageError(f"--core {name}: not a core file ({kind})",
                         "dbg start --core CORE PROGRAM: the core first, then the program")
    if wide:
        phoff, = struct.unpack_from(end + "Q", head, 0x20)
        phentsize, phnum = struct.unpack_from(end + "HH", head, 0x36)
    else:
        phoff, = struct.unpack_from(end + "I", head, 0x1C)
        phentsize, phnum = struct.unpack_from(end + "HH", head, 0x2A)
    info = CoreInfo(path=name, size=os.fstat(stream.fileno()).st_size,
                    expected_size=phoff + phnum * phentsize)
    for index in range(min(phnum, 4096)):
        stream.seek(phoff + index * phentsize)
        entry = stream.read(phentsize)
        if len(entry) < (56 if wide else 32):
            break
        if wide:
            p_type, _, offset, _, _, size = struct.unpack_from(end + "IIQQQQ", entry)
        else:
            p_type, offset, _, _, size = struct.unpack_from(end + "IIIII", entry)
        info.expected_size = max(info.expected_size, offset + size)
        if p_type == _PT_NOTE and 0 < size <= _MAX_NOTES:
            stream.seek(offset)
            _notes(stream.read(size), end, wide, info)
    return info


def _notes(data: bytes, end: str, wide: bool, info: CoreInfo) -> None:
    at = 0
    siginfo_seen = False
    while at + 12 <= len(data):
        namesz, descsz, kind = struct.unpack_from(end + "III", data, at)
        name_at = at + 12
        desc_at = name_at + (namesz + 3) // 4 * 4
        at = desc_at + (descsz + 3) // 4 * 4
        desc = data[desc_at:desc_at + descsz]
        if data[name_at:name_at + namesz].rstrip(b"\0") != b"CORE" or len(desc) < descsz:
            continue
        if kind == _NT_SIGINFO and len(desc) >= 16 and not siginfo_seen:
            siginfo_seen = True
            signo, _, code = struct.unpack_from(end + "iii", desc, 0)
            info.signal, info.code = (signal_name(signo) if signo else None), code
            # The union after the three ints starts at 16 on 64-bit (aligned), 12 on 32-bit.
            union = 16 if wide else 12
            if code > 0 and info.signal in _FAULTS and len(desc) >= union + (8 if wide else 4):
                info.address, = struct.unpack_from(end + ("Q" if wide else "I"), desc, union)
            elif code <= 0 and len(desc) >= union + 4:
                info.sender, = struct.unpack_from(end + "i", desc, union)
        elif kind == _NT_PRSTATUS and len(desc) >= 14 and info.signal is None:
            # The first thread's is the one that took the signal; pr_cursig
            # follows pr_info's three ints. (NT_SIGINFO, when there, says more.)
            cursig, = struct.unpack_from(end + "h", desc, 12)
            if cursig > 0:
                info.signal = signal_name(cursig)
        elif kind == _NT_PRPSINFO and not info.program:
            # 64-bit: the ids after pr_flag (8 bytes) and 32-bit uid/gid; 32-bit
            # (i386): 16-bit uid/gid after a 4-byte pr_flag.
            ids, fname = (24, 40) if wide else (12, 28)
            if len(desc) >= fname + 16:
                info.pid, = struct.unpack_from(end + "i", desc, ids)
                info.program = _c_string(desc[fname:fname + 16])
                info.command = _c_string(desc[fname + 16:fname + 96]).strip()


def _c_string(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def program_mismatch(info: CoreInfo, program: Path, name: str) -> str:
    """A note when the core (``name``, as the user gave it) is of another
    program than ``program`` (by the name the kernel kept, at most 15
    bytes), else "". Not an error: a program renamed since still fits its core."""
    if not info.program:
        return ""
    if program.name[:15] == info.program:
        return ""
    return (f"{name} is a core of a program named {info.program!r}"
            + (f" (`{info.command}`)" if info.command else "")
            + f", not {program.name}: its stack and variables may make no sense")
