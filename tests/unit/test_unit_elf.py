"""dbgcore/shared/elf.py on real files: a compiled C binary's section table
(its names, its dynamic symbols), this Python's, and files that are not ELF."""

from __future__ import annotations

import sys
from pathlib import Path

import builds
from dbgcore.shared import elf

from dbg_dap.debugpy.pidcheck import exports_python


def test_a_c_binary_has_its_sections_named(tmp_path: Path) -> None:
    source = tmp_path / "tiny.c"
    source.write_text("int main(void) { return 0; }\n")
    binary = builds.build_c(source)
    with open(binary, "rb") as f:
        table = elf.sections(f)
        assert table is not None
        found, names_at = table
        names = elf.section_bytes(f, found[names_at])
    assert b".text\0" in names and b".dynsym\0" in names, names[:200]
    assert exports_python(str(binary)) is False


def test_the_python_running_this_exports_its_c_api_or_maps_libpython() -> None:
    exported = exports_python(sys.executable)
    maps = Path("/proc/self/maps").read_text()
    assert exported is True or "libpython" in maps, (sys.executable, exported)


def test_files_that_are_not_elf(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("\x7fELF but only four bytes of it\n")
    short = tmp_path / "short"
    short.write_bytes(b"\x7fELF")
    for path in (text, short):
        with open(path, "rb") as f:
            assert elf.sections(f) is None
        assert exports_python(str(path)) is None
