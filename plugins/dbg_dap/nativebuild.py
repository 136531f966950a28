"""How gdb and lldb get a binary from a source file: `dbg start prog.c`
builds it with debug information and no optimisation (what a debugger needs
to show every line and variable) so that users need not know each
compiler's flags. The compiler is the one on PATH (cc/gcc/clang for C,
c++/g++/clang++ for C++, rustc for Rust). A .rs file inside a Cargo project
is left to `cargo build` (its crates and modules are not one file's).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from dbgcore.api import BackendMissing

#: suffix -> (compilers tried in order, flags, how to install one).
_BUILDS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    ".c": (("cc", "gcc", "clang"), ("-g", "-O0"), "apt-get install gcc (or clang)"),
    ".cc": (("c++", "g++", "clang++"), ("-g", "-O0"), "apt-get install g++ (or clang)"),
    ".cpp": (("c++", "g++", "clang++"), ("-g", "-O0"), "apt-get install g++ (or clang)"),
    ".cxx": (("c++", "g++", "clang++"), ("-g", "-O0"), "apt-get install g++ (or clang)"),
    ".rs": (("rustc",), ("-g", "-C", "opt-level=0"),
            "install Rust (https://rustup.rs, or apt-get install rustc)"),
}


def in_cargo_project(program: Path) -> bool:
    return any((folder / "Cargo.toml").is_file() for folder in program.absolute().parents)


def build_command(program: Path, out: Path) -> list[str] | None:
    """The compiler's command line for ``program``, or None when this is no
    single-file source dbg builds (a header, a Cargo project's file)."""
    entry = _BUILDS.get(program.suffix.lower())
    if entry is None or not program.is_file():
        return None
    compilers, flags, install = entry
    if program.suffix.lower() == ".rs" and in_cargo_project(program):
        return None
    compiler = next((name for name in compilers if shutil.which(name)), None)
    if compiler is None:
        raise BackendMissing(f"cannot build {program.name}: no compiler on PATH "
                             f"(tried {', '.join(compilers)})", install)
    return [compiler, *flags, str(program.absolute()), "-o", str(out)]
