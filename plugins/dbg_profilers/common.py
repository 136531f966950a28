"""What both Python profilers share: the program's interpreter, running it
in a process group of its own with its output kept aside, and telling the
program's frames from the libraries'."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from dbgcore.api import RecordRequest, libfiles, procutil, pyspy, real_python

# Running a profiler over the program is the API's, for every profiler plugin.
from dbgcore.api import run_bounded as run_bounded


def tool_version(argv: Sequence[str], pattern: str) -> str | None:
    """The version a tool prints when asked (``pattern``'s first group, ""
    when its answer has none); None when it does not run."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=20,
                              check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(pattern, done.stdout)
    return found.group(1) if found else ""


#: Lines of the program's output an answer carries when it failed.
OUTPUT_LINES = 8


def interpreter(request: RecordRequest) -> str:
    """The program's own Python: ``--python``, else ``python3`` as the
    program's PATH finds it (a version manager's shim resolved)."""
    if request.python:
        return request.python
    env = {**os.environ, **request.env}
    return real_python("python3", env, str(request.cwd) if request.cwd else None)


def library(file: str | None, stdlib: Sequence[str]) -> str | None:
    """The library a frame's file belongs to (None: the program's own). Code
    with no file of its own ("<string>", a frozen module) is a library's:
    it is not the program's code a fix would touch."""
    if not file:
        return "python"
    if file.startswith("<"):
        return libfiles.library_of(file, list(stdlib)) or "python"
    if not file.endswith(".py"):
        return "native"  # py-spy's --native frames: C, C++, Cython
    return libfiles.library_of(file, list(stdlib))


def stdlib_of(files: Sequence[str]) -> list[str]:
    return pyspy.stdlib_folders(files)


def tail(output: Path, skip_prefix: str = "") -> str:
    """The program's last lines of output (a profiler's own lines left out)."""
    try:
        lines = output.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    kept = [line for line in lines if line.strip()
            and not (skip_prefix and line.startswith(skip_prefix))]
    return "\n".join(kept[-OUTPUT_LINES:])


def alive(pid: int) -> bool:
    return procutil.alive(pid)
