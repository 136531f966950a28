"""Choosing a backend for a program when ``--backend`` is not given.

Candidates come from backends.yaml in file order, from the first rule that
finds any:

1. the program's extension is in a backend's ``extensions`` (for a folder:
   the extension of a file in it, e.g. a Go package's ``.go`` files);
2. the program is an executable binary: backends whose ``binaries`` name its
   kind ("go" for a Go binary), then those that take any ELF file ("elf");
3. a file of a backend's ``root_markers`` sits in the program's folder or a
   parent.

The first candidate whose debugger is installed wins; if none is, the error
carries the first candidate's install hint.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from dbgcore.backends.contract import Backend, BackendSpec
from dbgcore.shared import elf
from dbgcore.shared.errors import BackendMissing, UsageError

#: Section names only the Go toolchain writes.
_GO_SECTIONS = (b".go.buildinfo", b".gopclntab", b".note.go.buildid")


def binary_kind(path: Path) -> str | None:
    """"go" for a Go ELF binary, "elf" for another ELF file, None otherwise."""
    try:
        with path.open("rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF":
                return None
            return "go" if _has_go_section(f) else "elf"
    except OSError:
        return None


def _has_go_section(stream: BinaryIO) -> bool:
    """Look the section names up in the section header string table."""
    table = elf.sections(stream)
    if table is None or table[1] >= len(table[0]):
        return False
    names = elf.section_bytes(stream, table[0][table[1]])
    return any(name + b"\0" in names for name in _GO_SECTIONS)


def _suffixes(program: Path) -> set[str]:
    if program.is_dir():
        try:
            return {p.suffix.lower() for p in program.iterdir() if p.is_file() and p.suffix}
        except OSError:
            return set()
    return {program.suffix.lower()} if program.suffix else set()


def candidates(program: Path, specs: dict[str, BackendSpec]) -> list[BackendSpec]:
    suffixes = _suffixes(program)
    found = [s for s in specs.values() if suffixes & set(s.extensions)]
    if found:
        return found
    if program.is_file():
        kind = binary_kind(program)
        if kind is not None:
            kinds = [kind, "elf"] if kind != "elf" else ["elf"]
            found = [s for k in kinds for s in specs.values() if k in s.binaries]
            # Each backend once, in the order of the kinds.
            return list({s.name: s for s in found}.values())
    start = program if program.is_dir() else program.parent
    for folder in (start, *start.parents):
        marked = [s for s in specs.values()
                  if any((folder / marker).exists() for marker in s.root_markers)]
        if marked:
            return marked
    return []


def select_backend(program: Path, specs: dict[str, BackendSpec],
                   classes: dict[str, type[Backend]]) -> BackendSpec:
    options = candidates(program, specs)
    if not options:
        raise UsageError(
            f"cannot tell which debugger fits {program}",
            f"pass --backend NAME (one of: {', '.join(specs)})",
        )
    for spec in options:
        cls = classes.get(spec.plugin)
        if cls is not None and cls.check(spec).ready:
            return spec
    first = options[0]
    cls = classes.get(first.plugin)
    detail = cls.check(first).detail if cls else f"plugin {first.plugin!r} is not loaded"
    raise BackendMissing(f"no debugger for {program.name} is ready ({first.name}: {detail})",
                         first.install)
