"""Whether debugpy can attach to a process by pid, asked before it tries.

debugpy attaches by pid by having gdb inject a small library into the
process, which looks up ``Py_IsInitialized`` among the process's exported
symbols. In a process that is no Python (a shell or ``uv run`` wrapper
whose child is the program), or a Python whose C API is not exported, that
library prints ``Py_IsInitialized not found.`` into the program's own
output and gives up, and debugpy's adapter waits until the attach's
timeout runs out, saying nothing of why. The kernel's refusals (the
process already traced, another user's, Yama's ptrace_scope) end the same
way. All of that can be read from /proc in a few milliseconds, so the
attach fails at once with the reason and what to do.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from dbgcore.api import OpFailed, elf, procutil

#: An ELF section holding the dynamic symbol table (its strings: sh_link).
_SHT_DYNSYM = 11
#: The function debugpy's injected library looks up first.
_PY_SYMBOL = b"\0Py_IsInitialized\0"
#: A mapped libpython: the interpreter is a shared library of the process.
_LIBPYTHON_RE = re.compile(r"/libpython[0-9.]*[a-z]*\.so")


def check_attachable(pid: int, ptrace_reason: str) -> None:
    """Raise OpFailed, one line and a hint, when debugpy cannot attach to
    ``pid``: ``ptrace_reason`` is why the kernel would refuse ("" if it
    would not), then whether the process runs a Python debugpy can inject
    into. Unknown (unreadable files, no section table): let debugpy try."""
    if ptrace_reason:
        raise OpFailed(f"cannot attach to process {pid}", ptrace_reason)
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return
    files = {line.split(None, 5)[5] for line in maps.splitlines()
             if len(line.split(None, 5)) == 6 and line.split(None, 5)[5].startswith("/")}
    if any(_LIBPYTHON_RE.search(f) for f in files):
        return
    exported = exports_python(exe)
    if exported is not False:
        return
    name = os.path.basename(exe)
    children = python_children(pid)
    if children:
        child, child_exe = children[0]
        hint = (f"its child process {child} runs {os.path.basename(child_exe)}: "
                f"`dbg attach --backend debugpy --pid {child}`")
    elif name.startswith("python"):
        hint = ("this Python does not export its C API (a static build), which debugpy's "
                "attach by pid needs: start the program under dbg (`dbg start --backend "
                "debugpy`), or have it call debugpy.listen(PORT) and `dbg attach --port PORT`")
    else:
        hint = "give the pid of the Python process (`pgrep -af python` lists them)"
    raise OpFailed(f"process {pid} ({exe}) is not a Python that debugpy can attach to: "
                   "it exports no Py_IsInitialized", hint)


def python_children(pid: int) -> list[tuple[int, str]]:
    """The processes whose parent is ``pid`` and that run a Python (their
    pid and program), for the wrapper case: `bash -c`, `uv run`, `timeout`."""
    found: list[tuple[int, str]] = []
    for child in procutil.children_of(pid):
        try:
            exe = os.readlink(f"/proc/{child}/exe")
            maps = Path(f"/proc/{child}/maps").read_text()
        except OSError:
            continue
        if _LIBPYTHON_RE.search(maps) or exports_python(exe):
            found.append((child, exe))
    return found


def exports_python(path: str) -> bool | None:
    """Whether the ELF file ``path`` exports Python's C API (its dynamic
    symbol names hold ``Py_IsInitialized``); None when that cannot be read
    (no ELF, no section table)."""
    try:
        with open(path, "rb") as f:
            table = elf.sections(f)
            if table is None:
                return None
            found = table[0]
            for section in found:
                if section.kind == _SHT_DYNSYM and section.link < len(found):
                    return _PY_SYMBOL in b"\0" + elf.section_bytes(f, found[section.link],
                                                                  1 << 30)
            return False
    except OSError:
        return None
