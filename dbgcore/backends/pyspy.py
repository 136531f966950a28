"""py-spy, the tool dbg asks for a running Python program's stacks.

A debugger sees a Python program only where it runs Python code: a thread
blocked in C (``lock.acquire``, a read, a sleep) never reaches a line, so
neither pdb's SIGINT nor debugpy's pause can stop it. py-spy reads the
interpreter's memory from outside (``process_vm_readv``), so it tells every
thread's stack whatever the thread does, without the program's help and
without a debugger in it. ``py-spy dump --json`` is its answer; this module
runs it and turns that into dbg's :class:`~dbgcore.vocab.model.ThreadStack`.

py-spy is installed beside dbg (the ``profile`` extra; scripts/setup does
it). It pauses the process for the moment it reads (with ptrace), unless
another tracer holds it: then it reads without pausing (``--nonblocking``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from dbgcore.inprogram.libfiles import library_of
from dbgcore.shared import procutil
from dbgcore.shared.errors import OpFailed, UsageError
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.vocab.model import Frame, ThreadStack, Variable

#: What py-spy is called, and how to get it when it is missing.
TOOL = "py-spy"
INSTALL = "pip install py-spy (into dbg's environment; ./scripts/setup does it)"
#: A standard library folder, named by the files of its frames.
_STDLIB_RE = re.compile(r"^(.*/lib/python3\.\d+)/")
#: A folder name that says its files are an interpreter's.
_PYTHON_EXE_RE = re.compile(r"^python(\d(\.\d+)?)?[dmu]*$")


def find() -> str | None:
    """py-spy's path: beside dbg's own Python (a venv's bin), else on PATH."""
    beside = Path(sys.executable).parent / "py-spy"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("py-spy")


def version(path: str) -> str:
    """py-spy's version ("0.4.2"), or "" when it does not say."""
    try:
        answer = subprocess.run([path, "--version"], capture_output=True, text=True,
                                timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return answer.split()[-1] if answer.split() else ""


def is_python(pid: int) -> bool:
    """Whether process ``pid`` runs a CPython interpreter: its executable is
    named like one, or it has libpython loaded (an embedding program)."""
    try:
        exe = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return False
    if _PYTHON_EXE_RE.match(exe):
        return True
    try:
        with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
            return any("/libpython3" in line for line in maps)
    except OSError:
        return False


def refusal(pid: int) -> str:
    """Why py-spy cannot read process ``pid`` ("" when it can, as far as
    /proc tells): gone, another user's, or no Python."""
    if not procutil.alive(pid):
        return f"no process {pid} (see `ps -p {pid}`)"
    owner = procutil.owner_of(pid)
    if owner is not None and owner != os.geteuid() and os.geteuid() != 0:
        return f"process {pid} belongs to another user (uid {owner}); run dbg as that user"
    if not is_python(pid):
        return (f"process {pid} ({_command_name(pid)}) is not a Python program: py-spy reads "
                "only CPython's stacks")
    return ""


def dump(pid: int, with_locals: bool, timeout: float) -> list[ThreadStack]:
    """Every thread of Python process ``pid`` with its stack (the main thread
    first), each frame marked as a library's or the program's; with
    ``with_locals``, each frame's locals and its arguments."""
    why = refusal(pid)
    if why:
        raise UsageError(why, "give the pid of a running Python program (`pgrep -a python`)")
    path = find()
    if path is None:
        raise OpFailed("py-spy is not installed", INSTALL)
    argv = [path, "dump", "--pid", str(pid), "--json"]
    if with_locals:
        argv.append("--locals")
    if _traced(pid):
        argv.append("--nonblocking")  # ptrace is taken: read without pausing it
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              check=False, stdin=subprocess.DEVNULL,
                              env={**os.environ, "RUST_BACKTRACE": "0"})
    except subprocess.TimeoutExpired as exc:
        raise OpFailed(f"py-spy did not read process {pid}'s stacks within {timeout:g} s",
                       "try again with a longer --timeout") from exc
    except OSError as exc:
        raise OpFailed(f"py-spy could not run: {exc}", INSTALL) from exc
    if done.returncode != 0:
        raise OpFailed(f"py-spy could not read process {pid}: {_first_error(done.stderr)}",
                       "is it a CPython program that still runs? (`ps -p PID -o args`)")
    try:
        threads = json.loads(done.stdout)
    except ValueError as exc:
        raise OpFailed(f"py-spy's answer is no JSON: {done.stdout[:200]!r}") from exc
    return threads_from(threads, pid)


def threads_from(answer: list[JsonObject], pid: int) -> list[ThreadStack]:
    """py-spy's JSON dump as dbg's threads: the main thread (whose id is the
    process's) first, then py-spy's order."""
    stdlib = stdlib_folders(str(f.get("filename") or "") for t in answer
                            for f in t.get("frames") or [])
    out = [_thread(t, stdlib) for t in answer]
    out.sort(key=lambda t: t.id != pid)
    return out


def stdlib_folders(files: Iterable[str]) -> list[str]:
    """The standard library folders the files of a program's frames name
    (``.../lib/python3.11``): py-spy reads another interpreter than dbg's,
    so its folders are found from the paths, not asked of ``sysconfig``."""
    return sorted({m.group(1) for m in map(_STDLIB_RE.match, files) if m is not None})


def _thread(raw: JsonObject, stdlib: list[str]) -> ThreadStack:
    ident = raw.get("os_thread_id") or raw.get("thread_id") or 0
    frames: list[Frame] = []
    local_values: dict[int, list[Variable]] = {}
    for index, f in enumerate(raw.get("frames") or []):
        file = str(f.get("filename") or "") or None
        library = library_of(file, stdlib) if file else None
        frame = Frame(index=index, function=f.get("name"), file=file, line=f.get("line"),
                      library=library is not None, library_name=library)
        given = f.get("locals")
        if isinstance(given, list):
            pairs = [(Variable(str(v.get("name")), str(v.get("repr") or "?")), bool(v.get("arg")))
                     for v in given]
            frame.args = [v for v, is_arg in pairs if is_arg]
            local_values[index] = [v for v, is_arg in pairs if not is_arg]
        frames.append(frame)
    active = raw.get("active")
    return ThreadStack(
        id=int(ident), name=str(raw.get("thread_name") or f"Thread-{ident}"), frames=frames,
        state=None if active is None else ("running" if active else "idle"),
        gil=raw.get("owns_gil"), locals=local_values if local_values else None)


def _traced(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    found = re.search(r"^TracerPid:\s*(\d+)", status, re.M)
    return found is not None and found.group(1) != "0"


def _command_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() or "?"
    except OSError:
        return "?"


def _first_error(stderr: str) -> str:
    """py-spy's reason, without its backtrace: the line after ``Error:``."""
    for line in stderr.splitlines():
        if line.startswith("Error:"):
            return line[len("Error:"):].strip()
    lines = [line for line in stderr.splitlines() if line.strip()]
    return lines[0].strip() if lines else "no reason given"
