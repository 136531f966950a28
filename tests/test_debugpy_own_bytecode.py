"""dbg's own modules in debugpy's program (the test hook; plugins/dbg_dap/
pyboot/dbg_boot.py, which the folder's sitecustomize runs) come from dbg's
bytecode cache on a Python other than dbg's, rather than being compiled in
every program, and a test run there still stops where a test fails.

The speed itself is measured by bench/tests.py and bench/s1.py.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path
from typing import Any

from test_debugpy_end import other_python

from dbgcore.testing import Dbg, marked_lines, require_backend


def ok(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["ok"], answer
    return answer


def test_a_test_run_on_another_python_loads_dbgs_modules_from_its_cache(
        dbg: Dbg, tmp_path: Path) -> None:
    require_backend("debugpy")
    python = other_python()
    has_pytest = subprocess.run([python, "-c", "import pytest"], capture_output=True,
                                timeout=60).returncode == 0
    tag = subprocess.run([python, "-c", "import sys; print(sys.implementation.cache_tag)"],
                         capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    project = tmp_path / "proj"
    project.mkdir()
    (project / "test_one.py").write_text(textwrap.dedent('''\
        import unittest


        class T(unittest.TestCase):
            def test_fails(self):
                total = 2 + 2
                self.assertEqual(total, 5)  # @fails
        '''))
    line = marked_lines(project / "test_one.py")["fails"]
    args = ["-q", "-p", "no:cacheprovider"] if has_pytest else []
    snap = dbg.json("test", "--backend", "debugpy", "--python", python, "--cwd", str(project),
                    *(["--", *args] if args else []), timeout=120)
    assert snap["ok"] and snap["state"] == "stopped" and snap["reason"] == "exception", snap
    assert snap["location"]["line"] == line, snap
    # Loaded by dbg's bytecode loader (which uses a .pyc Python wrote beside
    # the source if there is one, else its own cache).
    loader = "type(__import__('sys').modules['dbg_testhook'].__loader__).__name__"
    assert ok(dbg.json("print", loader))["value"] == "'_DebugpyLoader'"
    beside = Path(__file__).parent.parent / "plugins" / "dbg_dap" / "pyboot" / "__pycache__"
    # The start's own code too (sitecustomize runs dbg_boot's bytecode).
    for module in ("dbg_testhook", "dbg_boot"):
        if not list(beside.glob(f"{module}.{tag}.pyc")):
            cached = list((dbg.home / "pyc" / tag).rglob(f"{module}.pyc"))
            assert cached, (module, sorted(p.name for p in (dbg.home / "pyc").rglob("*.pyc"))[:20])
    end = ok(dbg.json("continue", timeout=60))
    assert end["state"] == "exited" and end["exit_code"] == 1, end
