"""Where a ``FILE:LINE`` is, for every DAP adapter (see dbgcore.sources).

The file is looked for beside the program, then by name or path suffix
among the program's sources, tier by tier: first those under the program's
folder, then (Python) below the folders of the program's own sys.path, then
all of them. Which sources a program has is asked of the debugger (gdb's
`info sources`, lldb's compile units, delve's `sources`, the modules a
Python program has loaded) or, for Python, read from the program's folder.
A name nothing matches is, for native programs, a pending breakpoint (a
library loaded later may have it); elsewhere an error.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from dbgcore.api import DbgError, OpFailed, Tier, resolve_source, walk_sources

if TYPE_CHECKING:
    from dbg_dap.backend import DapBackend


def program_root(backend: DapBackend) -> str | None:
    """The program's folder (the package's, for Go sources)."""
    program = backend.program
    if not program:
        return None
    return program if os.path.isdir(program) else os.path.dirname(program)


def resolve(backend: DapBackend, requested: str, timeout: float) -> tuple[str, str]:
    """The path to send for ``requested``, and why it is pending ("" when it
    resolved to a file)."""
    root = program_root(backend)
    roots = [r for r in (root, backend.cwd) if r]
    name = os.path.basename(requested)
    profile = backend.profile

    def debugger_files() -> list[str]:
        try:
            return profile.source_files(backend, name, timeout)
        except DbgError:
            return []  # not stopped, or the debugger cannot list them: look elsewhere

    def under_root(files: Iterable[str]) -> list[str]:
        return [f for f in files if root and f.startswith(root.rstrip("/") + "/")]

    cache: dict[str, list[str]] = {}

    def known() -> list[str]:
        if "files" not in cache:
            cache["files"] = debugger_files()
        return cache["files"]

    tiers: list[Tier] = []
    if profile.walk_suffixes and root:
        tiers.append(lambda: walk_sources(root, profile.walk_suffixes))
    # The program's own search path (a Python program's sys.path: its
    # virtualenv, PYTHONPATH, the -m package's folder) before what is
    # loaded, which says nothing before the program runs.
    tiers += [lambda: under_root(known()),
              lambda: profile.search_path_files(backend, requested, timeout), known]
    found = resolve_source(requested, roots, tiers)
    if found is not None:
        return found, ""
    if profile.pending_unknown_files:
        return requested, (f"no code from {requested} is loaded yet; it binds when a library "
                           "with it loads")
    where = f" in {root} or" if root else ""
    raise OpFailed(f"no source file matches {requested}{where} among the program's sources",
                   "check the name; give a path (relative to here or to the program) or an "
                   "absolute one")


# -- what each debugger lists ---------------------------------------------------------------


def gdb_sources(backend: DapBackend, name: str, timeout: float) -> list[str]:
    answer = backend.console(f"info sources -basename -- ^{re.escape(name)}$", timeout)
    found = []
    for line in answer.splitlines():
        for path in line.split(","):
            path = path.strip()
            if os.path.isabs(path) and os.path.basename(path) == name:
                found.append(path)
    return found


def lldb_sources(backend: DapBackend, name: str, timeout: float) -> list[str]:
    script = ("script print('\\n'.join(sorted({str(f) for m in lldb.target.module_iter() "
              "for cu in m.compile_unit_iter() for f in [cu.GetFileSpec()] "
              f"if f.GetFilename() == {name!r}}})))")
    answer = backend.console(script, timeout)
    return [line.strip() for line in answer.splitlines() if os.path.isabs(line.strip())]


def delve_sources(backend: DapBackend, name: str, timeout: float) -> list[str]:
    answer = backend.console(f"dlv sources {re.escape(name)}$", timeout)
    return [line.strip() for line in answer.splitlines()
            if os.path.isabs(line.strip()) and os.path.basename(line.strip()) == name]


def python_modules(backend: DapBackend, name: str, timeout: float) -> list[str]:
    """Files of the modules the Python program has loaded, named ``name``."""
    expression = ("[f for m in list(__import__('sys').modules.values()) "
                  f"for f in [getattr(m, '__file__', None)] if f and f.endswith({'/' + name!r})]")
    answer = backend.evaluate_with(expression, "repl", timeout).value
    try:
        files = ast.literal_eval(answer)
    except (ValueError, SyntaxError):
        return []
    return [str(f) for f in files if isinstance(f, str)]
