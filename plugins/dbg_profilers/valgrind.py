"""What the profilers over valgrind share (massif, memcheck's leak check,
callgrind): finding valgrind, its version, how to install it, and what
programs it runs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import ClassVar

from dbg_profilers.common import tool_version
from dbgcore.api import OpFailed, Profiler, Readiness, binary_kind

INSTALL = "install valgrind (Debian: apt-get install valgrind)"


def valgrind() -> str | None:
    return shutil.which("valgrind")


def valgrind_readiness() -> Readiness:
    path = valgrind()
    if path is None:
        return Readiness(False, "valgrind is not installed")
    version = tool_version([path, "--version"], r"valgrind-(\S+)")
    if version is None:
        return Readiness(False, f"{path} does not run")
    return Readiness(True, path, version)


def is_native(program: Path) -> bool:
    """An ELF program (C, C++, Rust; Go's runtime hides its heap from
    valgrind, so a Go program is not taken)."""
    return binary_kind(program) == "elf"


class ValgrindProfiler(Profiler):
    """A profiler that runs the program under one of valgrind's tools."""

    languages: ClassVar[tuple[str, ...]] = ("c", "c++", "rust")
    install: ClassVar[str] = INSTALL

    @classmethod
    def readiness(cls) -> Readiness:
        return valgrind_readiness()

    @classmethod
    def fits(cls, program: Path) -> bool:
        return is_native(program)

    @staticmethod
    def valgrind_path() -> str:
        """valgrind's path; refused when it is gone since the choice."""
        path = valgrind()
        if path is None:
            raise OpFailed("valgrind is not installed", INSTALL)
        return path
