"""Fixtures for the unit and component tests: real files, real installed plugins.

``plugin_site`` builds installed distributions the way pip leaves them (a
``*.dist-info`` folder with METADATA and entry_points.txt next to the module),
so plugin discovery goes through the real ``importlib.metadata`` entry points.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _no_plugin_filters(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own DBG_LOAD_PLUGINS / DBG_BLOCK_PLUGINS must not change results."""
    monkeypatch.delenv("DBG_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("DBG_BLOCK_PLUGINS", raising=False)


@dataclass
class PluginSite:
    """A folder of installed distributions, to put on PYTHONPATH."""

    path: Path
    _ahead: list[PluginSite] = field(default_factory=list)

    def ahead(self) -> PluginSite:
        """Another folder, put before this one on PYTHONPATH: entry points are
        found in sys.path order, so its plugins register first."""
        site = PluginSite(self.path.with_name(f"{self.path.name}-ahead{len(self._ahead)}"))
        site.path.mkdir()
        self._ahead.append(site)
        return site

    def install(self, dist: str, module: str, source: str, entry: str | None = None,
                version: str = "1.0") -> None:
        """Install distribution ``dist`` holding ``module`` (source text), which it
        exposes as entry point ``entry`` (default: the module's name) in group ``dbg``."""
        (self.path / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        info = self.path / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8")
        (info / "entry_points.txt").write_text(
            f"[dbg]\n{entry or module} = {module}\n", encoding="utf-8")

    def env(self) -> dict[str, str]:
        """Environment for a `dbg` subprocess that sees these distributions."""
        paths = [*(str(s.path) for s in self._ahead), str(self.path),
                 *filter(None, [os.environ.get("PYTHONPATH")])]
        return {"PYTHONPATH": os.pathsep.join(paths)}


@pytest.fixture
def plugin_site(tmp_path: Path) -> Iterator[PluginSite]:
    site = tmp_path / "site"
    site.mkdir()
    yield PluginSite(site)


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty XDG_CONFIG_HOME; the user's backends.yaml goes in <it>/dbg/."""
    home = tmp_path / "xdg-config"
    (home / "dbg").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home
