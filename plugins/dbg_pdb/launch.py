"""Starts launcher.py from its cached bytecode: the pdb backend runs

    python launch.py PROMPT STDOUT_FIFO STDERR_FIFO STDIN CATCH (-m MODULE | SCRIPT) [ARGS...]

A file run as a script is compiled on every start, and launcher.py's 1,300
lines took 20-40 ms of each `dbg start` to compile; loaded as a module (under
its own name, since the program gets the real __main__), it is read from
__pycache__. This frame is hidden from the program's stack with the launcher's.

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
_spec.loader.exec_module(_module)
_module.main()
