"""backends.yaml: the shipped file, user and project files merged over it, and
malformed files reported with file, line and key."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from dbgcore.backends.config import config_files, load_config, shipped_config_file
from dbgcore.shared.errors import ConfigError

#: These tests are about dbg's file and the user's and project's; the plugins
#: installed beside dbg (contrib/dbg-node) add a file of their own.
NO_PLUGINS: list[Path] = []


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def test_shipped_file_loads(config_home: Path, tmp_path: Path) -> None:
    config = load_config(tmp_path, NO_PLUGINS)
    assert config.files == [shipped_config_file()]
    pdb = config.backends["pdb"]
    assert pdb.plugin == "pdb"
    assert pdb.command and all(isinstance(word, str) for word in pdb.command)
    assert ".py" in pdb.extensions
    assert "pyproject.toml" in pdb.root_markers
    assert pdb.install, "a missing debugger must come with an install hint"
    assert pdb.launch == {"stop_on_entry": True}


def test_user_then_project_merge_over_shipped(config_home: Path, tmp_path: Path) -> None:
    shipped = load_config(tmp_path, NO_PLUGINS).backends
    user = write(config_home / "dbg" / "backends.yaml", """
        backends:
          pdb:
            command: [python3, -X, dev]
            launch:
              user_key: from-user
            options:
              a: 1
              b: 2
          extra:
            plugin: pdb
            command: [python3]
            extensions: [.xpy]
        """)
    project_root = tmp_path / "proj"
    project = write(project_root / ".dbg" / "backends.yaml", """
        backends:
          pdb:
            extensions: [.py3]
            launch:
              stop_on_entry: false
            options:
              b: 3
              c: 4
        """)
    deep = project_root / "src" / "pkg"
    deep.mkdir(parents=True)

    config = load_config(deep, NO_PLUGINS)

    assert config.files == [shipped_config_file(), user, project]
    pdb = config.backends["pdb"]
    # Scalars and lists are replaced by the later file...
    assert pdb.command == ["python3", "-X", "dev"]
    assert pdb.extensions == [".py3"]
    assert pdb.plugin == "pdb"  # ...keys a later file does not give are kept...
    assert pdb.root_markers == shipped["pdb"].root_markers
    # ...and the launch and options mappings merge key by key, project last.
    assert pdb.launch == {"stop_on_entry": False, "user_key": "from-user"}
    assert pdb.options == {"a": 1, "b": 3, "c": 4}
    # A backend only the user file defines is added after the shipped ones.
    assert list(config.backends) == [*shipped, "extra"]
    assert config.backends["extra"].extensions == [".xpy"]


def test_nearest_project_file_wins(config_home: Path, tmp_path: Path) -> None:
    write(tmp_path / "outer" / ".dbg" / "backends.yaml", """
        backends:
          pdb:
            description: outer
        """)
    inner = write(tmp_path / "outer" / "inner" / ".dbg" / "backends.yaml", """
        backends:
          pdb:
            install: inner hint
        """)
    cwd = tmp_path / "outer" / "inner" / "deeper"
    cwd.mkdir()
    config = load_config(cwd, NO_PLUGINS)
    assert config.files[-1] == inner
    assert config.backends["pdb"].install == "inner hint"
    assert config.backends["pdb"].description != "outer"


def test_extensions_are_matched_case_insensitively(config_home: Path, tmp_path: Path) -> None:
    write(config_home / "dbg" / "backends.yaml", """
        backends:
          pdb:
            extensions: [.PY, .Pyw]
        """)
    assert load_config(tmp_path, NO_PLUGINS).backends["pdb"].extensions == [".py", ".pyw"]


def test_missing_user_file_is_fine_and_empty_file_adds_nothing(
        config_home: Path, tmp_path: Path) -> None:
    assert config_files(tmp_path, []) == [shipped_config_file()]
    shipped = load_config(tmp_path, NO_PLUGINS).backends
    empty = write(config_home / "dbg" / "backends.yaml", "# nothing here yet\n")
    config = load_config(tmp_path, NO_PLUGINS)
    assert config.files == [shipped_config_file(), empty]
    assert config.backends == shipped


# -- malformed files -----------------------------------------------------------

BAD_FILES = {
    # The parser notices an unclosed list only at the end of the file; the
    # message must still show the line that opened it.
    "unclosed-list-at-end": ("""
        backends:
          pdb:
            plugin: pdb
            command: [python3, -u
        """, 5, "command"),
    "unclosed-list-then-key": ("""
        backends:
          pdb:
            command: [python3, -u
            install: apt
        """, 4, "command"),
    "unclosed-quote": ("""
        backends:
          pdb:
            description: 'pdb
        """, 4, "description"),
    "mapping-value-in-scalar": ("""
        backends:
          pdb:
            install: use: apt
        """, 3, "install"),
    "duplicate-key": ("""
        backends:
          pdb:
            plugin: pdb
            plugin: other
        """, 4, "plugin"),
    "unknown-key": ("""
        backends:
          pdb:
            plugin: pdb
            comand: [python3]
        """, 4, "comand"),
    "command-not-a-list": ("""
        backends:
          gdb:
            plugin: pdb
            command: gdb
        """, 4, "command"),
    "list-of-non-strings": ("""
        backends:
          pdb:
            extensions: [.py, 3]
        """, 3, "extensions"),
    "install-not-a-string": ("""
        backends:

          pdb:
            install: [apt, install]
        """, 4, "install"),
    "launch-not-a-mapping": ("""
        backends:
          pdb:
            launch: yes
        """, 3, "launch"),
    "entry-not-a-mapping": ("""
        backends:
          pdb:
            plugin: pdb
          gdb: gdb --interpreter=mi
        """, 4, "gdb"),
    "backends-not-a-mapping": ("""
        # comment
        backends: [pdb, gdb]
        """, 2, "backends"),
    "unknown-top-level-key": ("""
        backends:
          pdb:
            plugin: pdb
        adapters:
          x: 1
        """, 4, "adapters"),
    "missing-plugin": ("""
        backends:
          pdb:
            install: fine
          ghost:
            command: [ghost-debugger]
        """, 4, "plugin"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_malformed_file_names_file_line_and_key(
        case: str, config_home: Path, tmp_path: Path) -> None:
    text, line, key = BAD_FILES[case]
    project = write(tmp_path / "proj" / ".dbg" / "backends.yaml", text)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "proj", NO_PLUGINS)
    message = info.value.message
    assert f"{project}:{line}:" in message, message
    assert re.search(rf"\b{re.escape(key)}\b", message), message
    assert info.value.exit_code == 2


def test_malformed_user_file_is_named(config_home: Path, tmp_path: Path) -> None:
    user = write(config_home / "dbg" / "backends.yaml", """
        backends:
          pdb:
            root_markers: setup.py
        """)
    with pytest.raises(ConfigError, match=re.escape(f"{user}:3:")):
        load_config(tmp_path, NO_PLUGINS)


def test_plugin_given_only_by_an_earlier_file_is_enough(
        config_home: Path, tmp_path: Path) -> None:
    write(config_home / "dbg" / "backends.yaml", """
        backends:
          mine:
            plugin: pdb
        """)
    write(tmp_path / ".dbg" / "backends.yaml", """
        backends:
          mine:
            command: [python3]
        """)
    assert load_config(tmp_path, NO_PLUGINS).backends["mine"].plugin == "pdb"


# -- through the CLI -----------------------------------------------------------

def test_cli_reports_broken_project_file_in_one_line(dbg: Any) -> None:
    project = write(dbg.cwd / ".dbg" / "backends.yaml", """
        backends:
          pdb:
            command: python3
        """)
    result = dbg("backends")
    assert result.code == 2, result
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith(f"error: {project}:3:")
    assert "'command'" in lines[0]
    assert "Traceback" not in result.err

    data = dbg.json("backends")
    assert data["_exit"] == 2
    assert data["ok"] is False
    assert data["error"]["kind"] == "config"
    assert f"{project}:3:" in data["error"]["message"]

    # A bad config breaks only what needs it: help and plugins still work.
    assert dbg("--help").code == 0
    assert dbg("plugins").code == 0
