"""What both Python profilers share: the program's interpreter, running it
in a process group of its own with its output kept aside, and telling the
program's frames from the libraries'."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from dbgcore.api import RecordRequest, libfiles, procutil, pyspy, real_python

#: Lines of the program's output an answer carries when it failed.
OUTPUT_LINES = 8
#: How long a profiler has to write its file after it was told to stop.
WRAP_UP = 10.0
#: How long the rest of a profiler's process group has to end by itself.
SETTLE = 2.0


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


def run_bounded(argv: Sequence[str], request: RecordRequest, output: Path,
                stop_after: float | None) -> tuple[int | None, bool]:
    """Run ``argv`` (a profiler over the program) in a process group of its
    own, its output into ``output``. At ``stop_after`` seconds it is sent
    SIGINT, as Ctrl-C would (both profilers then write what they have);
    past the request's timeout the group is killed. Answers its exit code
    and whether it was cut short; nothing of the group outlives this."""
    env = {**os.environ, **request.env, "PYTHONUNBUFFERED": "1"}
    with output.open("wb") as out:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=request.cwd, env=env,
                                start_new_session=True)
    began = time.monotonic()
    limit = max(request.timeout, (stop_after or 0) + WRAP_UP)
    interrupted = False
    try:
        while True:
            try:
                return proc.wait(0.05), interrupted
            except subprocess.TimeoutExpired:
                pass
            spent = time.monotonic() - began
            if stop_after is not None and spent >= stop_after and not interrupted:
                interrupted = True
                _signal_group(proc.pid, signal.SIGINT)
                limit = spent + WRAP_UP
            elif spent >= limit:
                interrupted = True
                _signal_group(proc.pid, signal.SIGKILL)
                return proc.wait(), interrupted
    finally:
        if proc.poll() is None:
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
        # The rest of the group may still be finishing (py-spy ends when the
        # program does, before the shell around it writes the exit code):
        # a moment for that, then nothing of it outlives the recording.
        _settle(proc.pid, SETTLE)
        _signal_group(proc.pid, signal.SIGKILL)


def _settle(pgid: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.01)


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


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
