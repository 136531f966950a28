"""`dbg test`'s question whether the program's Python has pytest: asked of
the interpreter once, then kept in DBG_HOME while nothing on its path changed
(dbgcore/cli/prepare.py, _has_module)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from dbgcore.cli.prepare import _has_module


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
