"""dbgcore/inprogram/libfiles.py: the one rule for a library's file, as dbg's
side asks it (library_of, given the debuggee's folders) and as the program's
side does (library_file, loaded by its path, with its own interpreter's)."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

from dbgcore.inprogram import libfiles


def test_a_file_is_a_librarys_by_its_folder(tmp_path: Path) -> None:
    stdlib = "/usr/lib/python3.11"
    assert libfiles.library_of(f"{tmp_path}/.venv/lib/python3.11/site-packages/attr/_make.py",
                               [stdlib], str(tmp_path)) == "attr"
    assert libfiles.library_of("/usr/lib/python3/dist-packages/six.py", [stdlib]) == "six"
    assert libfiles.library_of(f"{stdlib}/json/decoder.py", [stdlib]) == "json"
    assert libfiles.library_of(f"{stdlib}/json/decoder.py", [stdlib], f"{stdlib}/json") is None
    assert libfiles.library_of("<frozen runpy>", [stdlib]) == "runpy"
    assert libfiles.library_of("<string>", [stdlib]) is None
    assert libfiles.library_of(f"{tmp_path}/app.py", [stdlib]) is None
    # A relative name below an installed folder is an installed package's too.
    assert libfiles.library_of("env/lib/site-packages/six.py", [stdlib]) == "six"
    assert libfiles.library_of("app.py", [stdlib]) is None


def test_the_program_side_loaded_by_its_path_asks_its_own_interpreter(tmp_path: Path) -> None:
    # As the pdb launcher and dbg's tracer load it: by its file, under a
    # name of its own, with no dbgcore to import (python -S -I: no site).
    stdlib = sysconfig.get_path("stdlib")
    own = tmp_path / "app.py"
    driver = (
        "import importlib.util, json, sys\n"
        "spec = importlib.util.spec_from_file_location('_dbg_libfiles', sys.argv[1])\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "print(json.dumps([module.library_file(p) for p in sys.argv[2:]]))\n")
    paths = [f"{stdlib}/json/decoder.py", "<string>", "<frozen runpy>", str(own),
             "/x/site-packages/six.py"]
    done = subprocess.run([sys.executable, "-S", "-I", "-c", driver,
                           str(Path(libfiles.__file__)), *paths],
                          capture_output=True, text=True, check=True, cwd=tmp_path)
    assert json.loads(done.stdout) == [True, True, True, False, True]
