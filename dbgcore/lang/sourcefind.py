"""Finding the source file a user means by what they typed (``ledger.py``,
``pkg/util.go``, ``../src/ring.c``), the way gdb does, for every backend.

A ``FILE`` in ``FILE:LINE`` resolves, in order: an absolute path; a path
relative to the folder the user typed it in (done by the front end, see
:meth:`dbgcore.vocab.location.BreakLoc.anchored`); a path relative to the
program's folder; then a file name or path suffix matched against the
program's sources, tier by tier (a backend's tiers are, say, "the files
under the program's folder", then "every file in the debug info"). The
first tier with matches decides: one match is the file, two or more are an
error that lists them. No match anywhere is ``None``: the backend then
either makes a pending breakpoint (code that is not loaded yet) or refuses.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from dbgcore.shared.errors import OpFailed

#: Folders never searched for a program's sources.
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules", ".tox", ".nox",
                          ".venv", "venv", ".mypy_cache", ".pytest_cache", ".ruff_cache",
                          "site-packages", "dist-packages", "build", "target"})
#: At most this many files are looked at in one tree walk.
WALK_LIMIT = 20000

Tier = Callable[[], Iterable[str]]


#: A process's own root (a container's files, read here: dbgcore.shared.pathmap).
_PROC_ROOT = re.compile(r"/proc/\d+/root(?=/|$)")


def real_path(path: str) -> str:
    """``os.path.realpath(path)``, except below /proc/PID/root: that link
    is the process's own root, which realpath would follow to ours and so
    lose the container's file; such a path is only normalized."""
    if _PROC_ROOT.match(path):
        return os.path.normpath(path)
    return os.path.realpath(path)


def _parts(path: str) -> list[str]:
    return [p for p in os.path.normpath(path).replace("\\", "/").split("/") if p not in ("", ".")]


def suffix_matches(requested: str, paths: Iterable[str]) -> list[str]:
    """The paths that end with ``requested``, compared whole component by
    whole component (``util.go`` matches ``/a/util.go``, not ``/a/myutil.go``)."""
    wanted = _parts(requested)
    if not wanted or ".." in wanted:
        return []
    found: dict[str, None] = {}
    for path in paths:
        if _parts(path)[-len(wanted):] == wanted:
            found[real_path(path)] = None
    return list(found)


def walk_sources(root: str, suffixes: Sequence[str], limit: int = WALK_LIMIT) -> Iterator[str]:
    """Files under ``root`` whose names end in one of ``suffixes``, skipping
    version control, caches and virtual environments."""
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")
                         and not os.path.exists(os.path.join(folder, d, "pyvenv.cfg")))
        for name in sorted(files):
            seen += 1
            if seen > limit:
                return
            if name.endswith(tuple(suffixes)):
                yield os.path.join(folder, name)


def resolve_source(requested: str, roots: Sequence[str], tiers: Sequence[Tier]) -> str | None:
    """The one source file ``requested`` means, as a real path, or None if
    nothing matches; two or more matches in the deciding tier are an
    OpFailed listing them."""
    if os.path.isabs(requested):
        if os.path.isfile(requested):
            return real_path(requested)
    else:
        for root in roots:
            candidate = os.path.join(root, requested)
            if os.path.isfile(candidate):
                return real_path(candidate)
    for tier in tiers:
        found = suffix_matches(requested, tier())
        if len(found) == 1:
            return found[0]
        if found:
            raise ambiguous(requested, found)
    return None


def ambiguous(requested: str, found: Sequence[str]) -> OpFailed:
    shown = ", ".join(sorted(found)[:6]) + (f" and {len(found) - 6} more" if len(found) > 6
                                              else "")
    longer = _longer_suffix(sorted(found)[0])
    return OpFailed(f"{requested} matches {len(found)} source files: {shown}",
                    f"give more of the path, e.g. {longer}" if longer else
                    "give the full path")


def _longer_suffix(path: str) -> str:
    parts = _parts(path)
    return "/".join(parts[-2:]) if len(parts) >= 2 else ""
