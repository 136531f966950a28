"""dbgcore.lang.pyprobe.real_python: the interpreter behind a version manager's
shim, asked once and kept in DBG_HOME until what the shim chooses by changes.
A real shell script stands for the shim (it counts its runs), and a real
interpreter answers for it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from dbgcore.lang.pyprobe import real_python

REAL = os.path.realpath(sys.executable)


def script(folder: Path, body: str) -> Path:
    """A `python3` script in ``folder`` that counts its runs in runs.txt."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "python3"
    path.write_text(f'#!/bin/sh\necho run >> "{folder}/runs.txt"\n{body}\n')
    path.chmod(0o755)
    return path


def runs(folder: Path) -> int:
    counted = folder / "runs.txt"
    return len(counted.read_text().splitlines()) if counted.exists() else 0


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("DBG_HOME", str(tmp_path / "home"))
    return {"PATH": str(tmp_path / "shims"), "HOME": str(tmp_path)}


def test_a_shims_choice_is_asked_once_and_kept(tmp_path: Path, env: dict[str, str]) -> None:
    shims = tmp_path / "shims"
    # As pyenv writes its shims: `exec "$PYENV_ROOT/libexec/pyenv" exec "$program" "$@"`.
    script(shims, f'[ -n "$NEVER" ] && exec "/x/libexec/pyenv" exec python3\nexec {REAL} "$@"')
    work = tmp_path / "work"
    work.mkdir()
    assert real_python("python3", env, str(work)) == REAL
    assert real_python("python3", env, str(work)) == REAL
    assert runs(shims) == 1
    # A version file in the folder (`pyenv local`) may change the choice: asked again.
    (work / ".python-version").write_text("3.11\n")
    assert real_python("python3", env, str(work)) == REAL
    assert runs(shims) == 2
    # So may a variable it reads.
    assert real_python("python3", {**env, "PYENV_VERSION": "3.12"}, str(work)) == REAL
    assert runs(shims) == 3
    # A folder that finds the same version files (none, here) shares the answer.
    assert real_python("python3", env, str(tmp_path)) == REAL
    (work / "sub").mkdir()
    assert real_python("python3", env, str(work / "sub")) == REAL
    assert real_python("python3", env, str(work)) == REAL
    assert runs(shims) == 3


def test_another_script_or_a_binary_is_run_as_it_is(tmp_path: Path,
                                                    env: dict[str, str]) -> None:
    shims = tmp_path / "shims"
    # A wrapper of the user's own may set what its interpreter runs with.
    script(shims, f'export WRAPPED=1\nexec {REAL} "$@"')
    assert real_python("python3", env, str(tmp_path)) == "python3"
    assert runs(shims) == 0
    assert real_python(REAL, env, str(tmp_path)) == REAL
    assert real_python("no-such-python", env, str(tmp_path)) == "no-such-python"


def test_a_shim_that_fails_is_run_as_it_is(tmp_path: Path, env: dict[str, str]) -> None:
    shims = tmp_path / "shims"
    script(shims, 'exec "/x/libexec/pyenv" exec python3 "$@"')
    assert real_python("python3", env, str(tmp_path)) == "python3"
