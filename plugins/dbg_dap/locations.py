"""Where a ``FILE:LINE`` is, for every DAP adapter (see dbgcore.lang.sourcefind).

The file is looked for beside the program, then by name or path suffix
among the program's sources, tier by tier: first those under the program's
folder, then (Python) below the folders of the program's own sys.path, then
all of them. Which sources a program has is asked of the debugger, as its profile
knows how (gdb's `info sources`, lldb's compile units, delve's `sources`, the
modules a Python program has loaded: ``source_files``) or, for Python, read
from the program's folder.
A name nothing matches is, for native programs, a pending breakpoint (a
library loaded later may have it); elsewhere an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from dbg_dap.host import AdapterHost, program_root
from dbg_dap.profile_base import AdapterProfile
from dbgcore.api import DbgError, OpFailed, Tier, resolve_source, walk_sources


def resolve(backend: AdapterHost, profile: AdapterProfile, requested: str,
            timeout: float) -> tuple[str, str]:
    """The path to send for ``requested``, and why it is pending ("" when it
    resolved to a file)."""
    root = program_root(backend.program)
    roots = [r for r in (root, backend.cwd) if r]
    name = os.path.basename(requested)

    # The files a profile reads from the debugger or the program are named
    # as the program sees them: here they are where the path map says.
    here = backend.paths.to_local

    def debugger_files() -> list[str]:
        try:
            return [here(f) for f in profile.source_files(backend, name, timeout)]
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
              lambda: [here(f) for f in profile.search_path_files(backend, requested, timeout)],
              known]
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
