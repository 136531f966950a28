"""dbg's start of a debugpy program and of debugpy's launcher: runs
dbg_boot.py (what it does is said there) as this module.

Its code comes from bytecode: the one Python keeps beside it, else the one
dbg keeps for this interpreter in ``$DBG_PYC_DIR``, made there the first
time. Python reads its sitecustomize before any import hook of dbg's is in
place, and a Python that writes no bytecode beside this folder (another
version than the one dbg was installed with under PYTHONDONTWRITEBYTECODE,
a folder it cannot write) compiled all of it at every start: 5 ms of each
program and each launcher on 3.12. This file is the small part compiled.

Python 3.8 syntax and the standard library only.
"""

import os
import sys
from types import CodeType


def _boot_code(source: str) -> CodeType:
    import importlib.util
    import marshal

    facts = os.stat(source)
    header = importlib.util.MAGIC_NUMBER + b"\0\0\0\0" + \
        (int(facts.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + \
        (facts.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    folder = os.environ.get("DBG_PYC_DIR", "")
    tag = sys.implementation.cache_tag
    places = []
    try:
        places.append(importlib.util.cache_from_source(source))
    except (NotImplementedError, ValueError):
        pass
    kept = os.path.join(folder, tag, source.lstrip(os.sep) + "c") if folder and tag else ""
    if kept:
        places.append(kept)
    for place in places:
        try:
            with open(place, "rb") as data:
                if data.read(16) == header:
                    code = marshal.loads(data.read())
                    if isinstance(code, CodeType):
                        return code
        except (OSError, ValueError, EOFError, TypeError):
            pass
    with open(source, "rb") as text:
        code = compile(text.read(), source, "exec", dont_inherit=True)
    if kept:
        try:
            os.makedirs(os.path.dirname(kept), mode=0o700, exist_ok=True)
            partial = f"{kept}.{os.getpid()}"
            with open(partial, "wb") as out:
                out.write(header + marshal.dumps(code))
            os.replace(partial, kept)
        except OSError:
            pass  # compiled again next time
    return code


exec(_boot_code(os.path.join(os.path.dirname(os.path.abspath(__file__)), "dbg_boot.py")))
