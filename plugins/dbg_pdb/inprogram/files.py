"""Files, as the launcher tells them apart and reads them: whose code a
frame runs (the debugger's: this folder, launch.py, bdb, pdb, cmd; a
library's: the standard library, an installed package; or the program's),
dbg's own modules that run in the program (dbgcore/inprogram: pyrepr,
libfiles, pywatch, pytrace) loaded from the paths dbg gives, and the
program's sources read with a bound (a FIFO named as a source must not
block, /dev/zero not fill memory) and parsed where pdb gets a function's
line wrong. A stop's stack, a catch, a failing test's frame and the
program's own traceback all ask these same questions.
"""

from __future__ import annotations

import ast
import bdb
import os
import pdb
import sys
from types import FrameType, ModuleType

#: This folder: every frame of a file in it is the launcher's own.
FOLDER = os.path.dirname(os.path.abspath(__file__))
_IN_FOLDER = FOLDER + os.sep
#: launch.py, which the backend runs: it loads this folder from its bytecode.
BOOT = os.path.join(os.path.dirname(FOLDER), "launch.py")


def _internal(frame: FrameType) -> bool:
    return _internal_file(frame.f_code.co_filename)


def _internal_file(name: str) -> bool:
    return name.startswith(_IN_FOLDER) or name in (BOOT, "<string>") or name == bdb.__file__


def _debugger_frame(frame: FrameType) -> bool:
    """A frame of the debugger's own (this launcher, bdb, pdb, cmd)."""
    return _internal(frame) or frame.f_code.co_filename in _DEBUGGER_FILES


_DEBUGGER_FILES = frozenset(os.path.abspath(getattr(m, "__file__", "") or "")
                            for m in (pdb, bdb, sys.modules.get("cmd")) if m is not None)


def _library_file(path: str) -> bool:
    """Whether ``path`` is the standard library's or an installed package's
    (below a site-packages or dist-packages folder), not the program's: by
    dbgcore/inprogram/libfiles.py, loaded from pyrepr's folder. (A launcher
    started without pyrepr's path, not by dbg: code with no file only.)"""
    if _libfiles is None:
        return path.startswith("<")
    found: bool = _libfiles.library_file(path)
    return found



#: dbgcore/inprogram/pyrepr.py in the program, once dbg has said where it
#: is, and libfiles.py beside it.
_pyrepr: ModuleType | None = None
_libfiles: ModuleType | None = None


def load_core_helpers(pyrepr_path: str) -> ModuleType:
    """pyrepr from the path dbg gives, and libfiles beside it; pyrepr."""
    global _pyrepr, _libfiles
    _pyrepr = _load_helper("_dbg_pyrepr", pyrepr_path)
    _libfiles = _load_helper("_dbg_libfiles",
                             os.path.join(os.path.dirname(pyrepr_path), "libfiles.py"))
    return _pyrepr


def _load_helper(name: str, path: str) -> ModuleType:
    """One of dbgcore's modules that run in the program (pywatch, pytrace,
    pyrepr, libfiles), from the path dbg gives (dbg's package is not on the program's
    path), as a module of its own: ``name`` in sys.modules."""
    import importlib.util

    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %s" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # dbg's own bytecode is written even where the program's is not (as
    # launch.py does for this file): not compiled again at every start.
    dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, False
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = dont_write
    return module


#: A source file larger than this is not parsed (dbg's bound for sources).
MAX_SOURCE_BYTES = 8 * 1024 * 1024


def _read_source(path: str) -> str:
    """The text of the regular file ``path`` of at most MAX_SOURCE_BYTES;
    OSError for anything else (a FIFO must not block, /dev/zero not fill
    memory)."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
            raise OSError("%s is not a regular file of at most %d bytes"
                          % (path, MAX_SOURCE_BYTES))
        data = os.read(fd, MAX_SOURCE_BYTES + 1)
    finally:
        os.close(fd)
    return data.decode("utf-8")


def _first_decorator_line(filename: str, def_line: int) -> int:
    """The line of the first decorator of the function defined at ``def_line``
    (``def_line`` itself when it has none, or the file cannot be parsed)."""
    try:
        tree = ast.parse(_read_source(filename), filename)
    except (OSError, SyntaxError, ValueError):
        return def_line
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.lineno == def_line and node.decorator_list:
            return min(d.lineno for d in node.decorator_list)
    return def_line

