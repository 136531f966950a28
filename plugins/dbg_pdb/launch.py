"""Starts launcher.py from its cached bytecode: the pdb backend runs

    python launch.py PROMPT STDOUT_FIFO STDERR_FIFO STDIN CATCH (-m MODULE | SCRIPT) [ARGS...]

A file run as a script is compiled on every start, and launcher.py's 1,300
lines took 20-40 ms of each `dbg start` to compile; loaded as a module (under
its own name, since the program gets the real __main__), it is read from
__pycache__ (written there even under PYTHONDONTWRITEBYTECODE, which is
the program's to obey). This frame is hidden from the program's stack with
the launcher's.

Python 3.8 syntax and the standard library only.
"""

import importlib.util
import os
import sys

_spec = importlib.util.spec_from_file_location(
    "_dbg_pdb_launcher", os.path.join(os.path.dirname(os.path.abspath(__file__)), "launcher.py"))
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
sys.modules["_dbg_pdb_launcher"] = _module
# dbg's own bytecode is written even where the user's is not
# (PYTHONDONTWRITEBYTECODE): without it, each start on a Python whose
# bytecode was never written compiled the launcher again (30-70 ms).
_dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, False
try:
    _spec.loader.exec_module(_module)
finally:
    sys.dont_write_bytecode = _dont_write
_module.main()
