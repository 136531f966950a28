"""What the native profilers share: which library a native frame belongs
to (the program's own code is what a fix touches; libc's, the kernel's and a
toolchain's runtime are folded into it), and a process's end as a shell
gives it."""

from __future__ import annotations

import os
import re
from pathlib import Path

#: A shared object's name without its version: ``libc.so.6`` -> ``libc``.
_SO_RE = re.compile(r"\.so(?:\.[\d.]+)?$")


def library(function: str, file: str | None, dso: str | None,
            program: str | None) -> str | None:
    """The library a native frame belongs to (None: the program's own code).

    A frame is a library's when it runs in another object than the program's
    (libc, the kernel), or its source is a toolchain's (Go's runtime and
    standard library, Rust's std and core, crates from the registry), or it
    is the C runtime's start-up code that has no source (``_start``): none is
    code a fix of the program would touch."""
    if dso:
        if "kernel" in dso or dso.startswith("[vdso"):
            return "kernel"
        if program is None or Path(dso).name != Path(program).name:
            return _SO_RE.sub("", Path(dso).name) or dso
    if file:
        return _toolchain(file)
    if function.startswith(("_", "0x", "(")):  # _start, an address, callgrind's "(below main)"
        return "crt"
    return None


def _toolchain(file: str) -> str | None:
    parts = Path(file).parts
    if file.startswith("/rustc/") or ".cargo" in parts or ".rustup" in parts:
        return "rust"
    goroot = os.environ.get("GOROOT")
    if goroot and file.startswith(goroot.rstrip("/") + "/"):
        return "go"
    # Go's own sources: GOROOT/src/..., GOROOT a folder named go or go-1.NN
    # (/usr/lib/go-1.19, /usr/local/go), and the module cache.
    for index, part in enumerate(parts[:-1]):
        if part == "src" and index and re.fullmatch(r"go(?:-?[\d.]+)?", parts[index - 1]):
            return "go"
    if "pkg" in parts and "mod" in parts:
        return "go"
    if file.startswith(("/usr/include/", "/usr/lib/gcc/", "/usr/src/")) \
            or "/glibc-" in file or "../sysdeps/" in file:
        return "libc"
    return None


def shell_status(returncode: int | None) -> int | None:
    """A process's end as a shell's ``$?``: its exit code, or 128 plus the
    signal that ended it (139 for SIGSEGV), as the other profilers say it."""
    if returncode is None:
        return None
    return 128 - returncode if returncode < 0 else returncode
