"""debugpy's launcher, started with dbg's debugpy adapter before any launch
(adapterboot/dbg_debugpy_adapter.py, ``DBG_WARM_LAUNCHER``): it imports what
every launcher imports, then waits on the pipe named by its argument for the
command the adapter would have started a launcher with (its argv, folder and
environment, one JSON line), and runs debugpy's launcher with it, as that
command would have. A launch then waits for neither an interpreter's start
nor those imports (40-60 ms of every debugpy launch on this machine).

It runs on the adapter's interpreter, not the program's: debugpy's launcher
starts the program with the interpreter the launch names, whatever runs it.
It ends at once, unused, when the pipe closes with nothing on it (the
adapter ended, or a launch it could not take).

Python 3.8 syntax and the standard library only.
"""

from __future__ import annotations

import json
import locale
import os
import sys


def main() -> int:
    pipe = os.fdopen(int(sys.argv[1]), "rb")
    from debugpy.common import log, sockets  # noqa: F401 (what every launcher imports)
    from debugpy.launcher import __main__ as launcher_main
    from debugpy.launcher import debuggee, handlers, output  # noqa: F401

    with pipe:
        line = pipe.readline()
    if not line:
        return 0
    order = json.loads(line)
    os.environ.clear()
    os.environ.update(order["env"])
    # Taken out by dbg's start code as a launcher starts, so that the
    # program does not inherit it (pyboot/dbg_boot.py).
    os.environ.pop("DBG_LAUNCHER_QUIET", None)
    if order.get("cwd"):
        os.chdir(order["cwd"])
    sys.argv = list(order["argv"])
    try:
        # As debugpy's launcher does: after the environment is the launch's.
        locale.setlocale(locale.LC_ALL, "")
    except Exception:
        pass
    launcher_main.main()  # type: ignore[no-untyped-call]
    return 0


if __name__ == "__main__":
    sys.exit(main())
