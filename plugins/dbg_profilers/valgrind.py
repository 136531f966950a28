"""What the profilers over valgrind share (massif, memcheck's leak check,
callgrind): finding valgrind, its version, and how to install it."""

from __future__ import annotations

import shutil
import subprocess

from dbgcore.api import Readiness

INSTALL = "install valgrind (Debian: apt-get install valgrind)"


def valgrind() -> str | None:
    return shutil.which("valgrind")


def valgrind_readiness() -> Readiness:
    path = valgrind()
    if path is None:
        return Readiness(False, "valgrind is not installed")
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10,
                              check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return Readiness(False, f"valgrind does not run: {exc}")
    return Readiness(True, path, done.stdout.strip().removeprefix("valgrind-"))
