"""`dbg test`'s question whether the program's Python has pytest: asked of
the interpreter once, then kept in DBG_HOME while nothing on its path changed
(dbgcore/ops/prepare.py, _has_module)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from dbgcore.ops.pythonfind import has_module as _has_module


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("DBG_HOME", str(home))
    return home


def _kept(home: Path) -> list[dict[str, object]]:
    data = json.loads((home / "module-probes.json").read_text())
    return [json.loads(value) for value in data.values()]


def test_an_answer_is_kept_and_asked_again_when_the_path_changes(home: Path,
                                                                   tmp_path: Path) -> None:
    base = tmp_path / "project"
    base.mkdir()
    name = "dbg_probe_module_xyz"
    assert _has_module(sys.executable, name, base) is False
    (kept,) = _kept(home)
    assert kept["found"] is False
    assert str(base) in kept["stamps"]  # type: ignore[operator]
    assert _has_module(sys.executable, name, base) is False  # the kept answer
    # Installed (here: a module in the folder the tests run from, which is on
    # the path): the folder changed, so the interpreter is asked again.
    time.sleep(0.02)  # the folder's time must be able to move
    (base / f"{name}.py").write_text("")
    assert _has_module(sys.executable, name, base) is True
    assert _has_module(sys.executable, name, base) is True
    time.sleep(0.02)
    (base / f"{name}.py").unlink()
    assert _has_module(sys.executable, name, base) is False


def test_each_module_has_its_own_answer(home: Path, tmp_path: Path) -> None:
    """Answers are kept by interpreter, module and folder: one module's
    answer is never another's."""
    base = tmp_path / "project"
    base.mkdir()
    assert _has_module(sys.executable, "json", base) is True
    assert _has_module(sys.executable, "no_such_module_dbg", base) is False
    assert sorted(bool(k["found"]) for k in _kept(home)) == [False, True]


def test_a_file_made_in_the_program_folder_keeps_the_answer(home: Path, tmp_path: Path) -> None:
    """The program's folder changes with every file made in it (an editor's
    save): only a module of the name asked about there asks again."""
    base = tmp_path / "project"
    base.mkdir()
    asked = tmp_path / "asked"
    python = tmp_path / "python"  # counts the times the interpreter is asked
    python.write_text(f"#!/bin/sh\necho >> {asked}\nexec {sys.executable} \"$@\"\n")
    python.chmod(0o755)
    name = "dbg_probe_module_abc"

    def times() -> int:
        return len(asked.read_text().splitlines())

    assert _has_module(str(python), name, base) is False
    assert times() == 1
    time.sleep(0.02)
    (base / "notes.txt").write_text("")
    (base / f"{name}_other.py").write_text("")
    assert _has_module(str(python), name, base) is False
    assert times() == 1
    # A package of that name (a folder) is a module too.
    (base / name).mkdir()
    (base / name / "__init__.py").write_text("")
    assert _has_module(str(python), name, base) is True
    assert times() == 2
