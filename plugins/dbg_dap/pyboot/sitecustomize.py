"""dbg's start of a debugpy program and of debugpy's launcher: runs
dbg_boot.py (what it does is said there) as this module.

Its code comes from bytecode (dbg_bytecode.code_of): the one Python keeps
beside it, else the one dbg keeps for this interpreter in ``$DBG_PYC_DIR``.
Python reads its sitecustomize before any import hook of dbg's is in place,
and a Python that writes no bytecode beside this folder (another version
than the one dbg was installed with under PYTHONDONTWRITEBYTECODE, a folder
it cannot write) compiled all of it at every start: 3.5 ms of each program
and each launcher on 3.12, against 0.05 ms to load it.

Python 3.8 syntax and the standard library only.
"""

import importlib
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dbg_dap.pyboot import dbg_bytecode
else:  # this folder is on the program's path, as a folder of top-level modules
    dbg_bytecode = importlib.import_module("dbg_bytecode")

exec(dbg_bytecode.code_of(os.path.join(os.path.dirname(os.path.abspath(__file__)), "dbg_boot.py")))
