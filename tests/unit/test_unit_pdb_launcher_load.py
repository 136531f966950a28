"""The pdb launcher loads into a program's interpreter as launch.py loads it,
with nothing of dbg's imported: dbg's packages are importable in this
interpreter (its venv), so an import of one the launcher made by mistake
would be seen here, where in a program's Python it would fail the start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LAUNCH = Path(__file__).resolve().parents[2] / "plugins" / "dbg_pdb" / "launch.py"

#: Runs launch.py's wait for a run, which ends at once (stdin is empty), and
#: says which modules of dbg's the interpreter then holds.
PROBE = """
import runpy, sys
sys.argv = [sys.argv[1], "--wait"]
try:
    runpy.run_path(sys.argv[0])
except SystemExit as exc:
    assert exc.code == 0, exc.code
print(" ".join(sorted(n for n in sys.modules if "dbg" in n)))
"""


def test_the_launcher_loads_by_path_without_dbg_packages() -> None:
    done = subprocess.run([sys.executable, "-I", "-c", PROBE, str(LAUNCH)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.split()
    assert "_dbg_pdb_launcher" in loaded and "_dbg_pdb_launcher.debugger" in loaded, loaded
    assert [n for n in loaded if not n.startswith("_dbg_pdb_launcher")] == [], loaded
