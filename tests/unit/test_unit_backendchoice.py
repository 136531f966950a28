"""Choosing a backend from the program: by extension, by root markers found
walking up, the first installed candidate, and clear errors otherwise."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from dbgcore.backends.choice import candidates, select_backend
from dbgcore.backends.pluginhost import PluginHost
from dbgcore.backends.registry import BackendRegistry
from dbgcore.shared.errors import BackendMissing, UsageError

NOWHERE = "dbgtest-no-such-debugger-7f3a"

# The shipped markers (pyproject.toml...) could sit above the test's folder
# on some machines; these tests clear them and use markers of their own.
USER_CONFIG = f"""
backends:
  pdb:
    root_markers: [pdb-marker.dbgtest]
  ghost:
    plugin: pdb
    command: [{NOWHERE}]
    extensions: [.ghost, .both]
    root_markers: [ghost-marker.dbgtest]
    install: get the ghost debugger from https://example.invalid/ghost
  spare:
    plugin: pdb
    command: [python3]
    extensions: [.both]
"""


@pytest.fixture
def classes() -> dict[str, Any]:
    return dict(PluginHost(load_entry_points=False).backend_classes())


def user_config(shipped: list[str]) -> str:
    cleared = "".join(f"  {name}:\n    root_markers: []\n"
                      for name in shipped if name != "pdb")
    return textwrap.dedent(USER_CONFIG) + cleared


@pytest.fixture
def specs(config_home: Path, tmp_path: Path) -> dict[str, Any]:
    shipped = list(BackendRegistry(PluginHost()).config(tmp_path).backends)
    (config_home / "dbg" / "backends.yaml").write_text(user_config(shipped))
    return BackendRegistry(PluginHost()).config(tmp_path).backends


def touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()
    return path


def test_by_extension(specs: dict[str, Any], classes: dict[str, Any], tmp_path: Path) -> None:
    # debugpy comes before pdb in the shipped file, and is installed here.
    assert select_backend(tmp_path / "app.py", specs, classes).name == "debugpy"
    assert select_backend(tmp_path / "APP.PY", specs, classes).name == "debugpy"
    assert [s.name for s in candidates(tmp_path / "x.both", specs)] == ["ghost", "spare"]


def test_first_ready_candidate_wins(specs: dict[str, Any], classes: dict[str, Any],
                                   tmp_path: Path) -> None:
    # ghost comes first in file order but is not installed; spare is.
    assert select_backend(tmp_path / "x.both", specs, classes).name == "spare"


def test_by_root_marker_walking_up(specs: dict[str, Any], classes: dict[str, Any],
                                   tmp_path: Path) -> None:
    root = tmp_path / "proj"
    touch(root / "pdb-marker.dbgtest")
    program = touch(root / "src" / "pkg" / "tool")
    assert [s.name for s in candidates(program, specs)] == ["pdb"]
    assert select_backend(program, specs, classes).name == "pdb"
    # A program given as a folder is looked up from the folder itself.
    assert select_backend(root / "src", specs, classes).name == "pdb"


def test_nearest_marker_wins(specs: dict[str, Any], tmp_path: Path) -> None:
    touch(tmp_path / "outer" / "pdb-marker.dbgtest")
    touch(tmp_path / "outer" / "inner" / "ghost-marker.dbgtest")
    program = touch(tmp_path / "outer" / "inner" / "bin" / "run")
    assert [s.name for s in candidates(program, specs)] == ["ghost"]


def test_extension_beats_marker(specs: dict[str, Any], tmp_path: Path) -> None:
    touch(tmp_path / "ghost-marker.dbgtest")
    found = candidates(touch(tmp_path / "main.py"), specs)
    assert [s.name for s in found][:2] == ["debugpy", "pdb"]
    assert all(".py" in s.extensions for s in found)


def test_unknown_program_is_a_usage_error_listing_backends(
        specs: dict[str, Any], classes: dict[str, Any], tmp_path: Path) -> None:
    program = touch(tmp_path / "lonely" / "prog.unknown")
    with pytest.raises(UsageError) as info:
        select_backend(program, specs, classes)
    assert str(program) in info.value.message
    assert "--backend" in info.value.hint
    for name in ("pdb", "ghost", "spare"):
        assert name in info.value.hint


def test_missing_debugger_names_it_and_gives_the_install_hint(
        specs: dict[str, Any], classes: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(BackendMissing) as info:
        select_backend(tmp_path / "thing.ghost", specs, classes)
    assert "ghost" in info.value.message
    assert NOWHERE in info.value.message
    assert info.value.hint == "get the ghost debugger from https://example.invalid/ghost"
    assert info.value.exit_code == 1


def test_candidate_whose_plugin_is_not_loaded(specs: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(BackendMissing, match="plugin 'dap' is not loaded"):
        select_backend(tmp_path / "app.py", specs, {})


def test_missing_debugger_through_the_cli(dbg: Any) -> None:
    config = dbg.home / "config" / "dbg" / "backends.yaml"
    config.parent.mkdir(parents=True)
    config.write_text(textwrap.dedent(USER_CONFIG))
    program = dbg.cwd / "thing.ghost"
    program.write_text("")

    result = dbg("start", str(program))
    assert result.code == 1
    assert result.out == ""
    assert result.err.count("\n") == 1, result.err
    assert NOWHERE in result.err
    assert "https://example.invalid/ghost" in result.err
    assert "Traceback" not in result.err

    data = dbg.json("start", str(program))
    assert data["error"]["kind"] == "backend"
    assert data["error"]["hint"] == "get the ghost debugger from https://example.invalid/ghost"

    listed = {b["name"]: b for b in dbg.json("backends")["backends"]}
    assert listed["ghost"]["ready"] is False
    assert listed["ghost"]["install"].startswith("get the ghost debugger")
    assert "missing ghost" in dbg("backends").out
