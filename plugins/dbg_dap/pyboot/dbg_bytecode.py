"""The bytecode dbg keeps for the code it runs in a debugpy program (its own
start code, debugpy's modules) on an interpreter that keeps none beside the
source: in ``$DBG_PYC_DIR``, one folder per interpreter (its cache tag), each
file named by its source's path, with the header Python writes (the magic
number, then the source's time and size: a changed source is compiled again).

Python 3.8 syntax and the standard library only.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import sys
from types import CodeType


def header(source: str) -> bytes:
    """What a .pyc of ``source`` starts with while ``source`` is as it is now."""
    facts = os.stat(source)
    return importlib.util.MAGIC_NUMBER + b"\0\0\0\0" + \
        (int(facts.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + \
        (facts.st_size & 0xFFFFFFFF).to_bytes(4, "little")


def kept_path(pyc_dir: str, source: str) -> str:
    """Where dbg keeps the bytecode of ``source`` for this interpreter."""
    return os.path.join(pyc_dir, sys.implementation.cache_tag or "none",
                        source.lstrip(os.sep) + "c")


def read(path: str, expected: bytes) -> CodeType | None:
    """The code in the .pyc ``path`` if it starts with ``expected``."""
    try:
        with open(path, "rb") as data:
            if data.read(16) == expected:
                code = marshal.loads(data.read())
                if isinstance(code, CodeType):
                    return code
    except (OSError, ValueError, EOFError, TypeError):
        pass
    return None


def write(path: str, head: bytes, code: CodeType) -> None:
    """Keep ``code`` at ``path`` (a cache: nothing is lost if it cannot)."""
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        partial = f"{path}.{os.getpid()}"
        with open(partial, "wb") as out:
            out.write(head + marshal.dumps(code))
        os.replace(partial, path)
    except OSError:
        pass  # compiled again next time


def code_of(source: str) -> CodeType:
    """``source`` compiled: from the bytecode Python keeps beside it, else
    from dbg's in ``$DBG_PYC_DIR`` (made there the first time)."""
    head = header(source)
    try:
        beside = read(importlib.util.cache_from_source(source), head)
    except (NotImplementedError, ValueError):
        beside = None
    if beside is not None:
        return beside
    pyc_dir = os.environ.get("DBG_PYC_DIR", "")
    kept = kept_path(pyc_dir, source) if pyc_dir else ""
    code = read(kept, head) if kept else None
    if code is None:
        with open(source, "rb") as text:
            code = compile(text.read(), source, "exec", dont_inherit=True)
        if kept:
            write(kept, head, code)
    return code
