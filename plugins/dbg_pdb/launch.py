"""Starts the pdb launcher (inprogram/) from its cached bytecode: the pdb
backend runs

    python launch.py --wait

which loads the launcher (and pdb with it), then reads one line on its
terminal: the path of a JSON file (private to the user; removed once read)
holding the launcher's arguments and its settings from the environment,

    {"argv": [PROMPT, STDOUT_FIFO, STDERR_FIFO, STDIN, CATCH, (-m MODULE | SCRIPT), ARGS...],
     "env": {"DBG_PDB_TEST": "1", ...}}

so that a daemon forked for a start can spawn it before it knows the run
(dbgcore.start.prespawn), and the interpreter's start and the launcher's imports
go on beside the daemon's own. ``python launch.py PROMPT STDOUT_FIFO ...``
(the arguments themselves, the settings in the environment) runs at once.

A file run as a script is compiled on every start, and the launcher's 1,300
lines took 20-40 ms of each `dbg start` to compile; loaded as a package
(under its own name, ``_dbg_pdb_launcher``, since the program gets the real
__main__ and dbg's packages are not on its path), it is read from
__pycache__ (written there even under PYTHONDONTWRITEBYTECODE, which is
the program's to obey). This frame is hidden from the program's stack with
the launcher's (inprogram/stops.py, _internal_file).

Python 3.8 syntax and the standard library only.
"""

import importlib.util
import os
import sys

# inprogram/launcher.py is loaded as the package itself (its siblings are
# found by the folder given here): its __init__.py, a docstring for dbg's
# side, would be one more file read at every start.
_folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inprogram")
_spec = importlib.util.spec_from_file_location(
    "_dbg_pdb_launcher", os.path.join(_folder, "launcher.py"),
    submodule_search_locations=[_folder])
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
sys.modules["_dbg_pdb_launcher"] = _module
# dbg's own bytecode is written even where the user's is not
# (PYTHONDONTWRITEBYTECODE): without it, each start on a Python whose
# bytecode was never written compiled the launcher again (30-70 ms).
_dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, False
try:
    # Its siblings are imported with it, while dbg's bytecode is written.
    _spec.loader.exec_module(_module)
finally:
    sys.dont_write_bytecode = _dont_write
if sys.argv[1:] == ["--wait"]:
    import json
    import sysconfig  # noqa: F401  (imported now for the launcher's hello, while it waits)

    _line = b""
    while not _line.endswith(b"\n"):
        try:
            _part = os.read(0, 4096)
        except OSError:  # EIO: the terminal's other side is gone
            _part = b""
        if not _part:
            sys.exit(0)  # the daemon went away before the run was known
        _line += _part
    _path = _line.decode("utf-8", "surrogateescape").strip()
    with open(_path, encoding="utf-8") as _file:
        _run = json.load(_file)
    os.unlink(_path)
    sys.argv[1:] = _run["argv"]
    os.environ.update(_run["env"])
_module.main()
