"""Whether a Python file is a library's (the standard library's or an
installed package's) or the program's own: the one rule for it, asked in the
program (dbg's tracer, the pdb launcher, the test hook under debugpy) and by
dbg itself (:class:`dbgcore.lang.pyframes.PythonLibraries`, for `dbg stack`).

In the program it is loaded by its path, as ``_dbg_libfiles`` (see this
package's docstring); dbg imports it as a module. So: the standard library
only, Python 3.8's syntax.
"""

from __future__ import annotations

import os
import re

#: The folders installed packages live in, in a virtualenv or the system's.
_INSTALLED = ("site-packages", "dist-packages")
_FROZEN_RE = re.compile(r"<frozen ([\w.]+)>")

#: In the program: its interpreter's standard library folders, as named and
#: as their links resolve; and what :func:`library_file` answered, by path.
_roots: list[str] = []
_known: dict[str, bool] = {}


def library_of(path: str, stdlib: list[str], program_root: str | None = None) -> str | None:
    """The name of the library ``path`` belongs to (its top-level package or
    module: ``_pytest``, ``unittest``, ``runpy``), or None for the program's
    own code. A file below a site-packages or dist-packages folder is always
    a library's (even in a virtualenv inside the program's folder); one
    below a folder of ``stdlib`` (normalized paths) is the standard
    library's unless it is below ``program_root`` too (a program kept
    there). A frozen module is the standard library's; other code with no
    file ("<string>") is not a library's."""
    frozen = _FROZEN_RE.fullmatch(path)
    if frozen:
        return frozen.group(1).split(".")[0]
    parts = os.path.normpath(path).split(os.sep)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] in _INSTALLED:
            return _module_name(parts[i + 1])
    if not os.path.isabs(path):
        return None
    if program_root and _below(path, program_root):
        return None
    for folder in stdlib:
        if _below(path, folder):
            rest = os.path.relpath(path, folder).split(os.sep)
            return _module_name(rest[0]) if rest[0] != "lib-dynload" else None
    return None


def library_file(path: str) -> bool:
    """In the program: whether ``path`` is a library's (:func:`library_of`,
    with this interpreter's standard library folders). Code with no file
    ("<string>", "<stdin>") counts as a library's here: it is not code of
    the program's that a stop or a trace should be in."""
    known = _known.get(path)
    if known is None:
        if not _roots:
            import sysconfig

            for key in ("stdlib", "platstdlib"):
                folder = sysconfig.get_path(key)
                if folder:
                    _roots.extend({os.path.normpath(folder), os.path.realpath(folder)})
        known = path.startswith("<") or library_of(path, _roots) is not None
        _known[path] = known
    return known


def _below(path: str, folder: str) -> bool:
    return os.path.normpath(path).startswith(folder.rstrip(os.sep) + os.sep)


def _module_name(part: str) -> str:
    return part[:-3] if part.endswith(".py") else part
