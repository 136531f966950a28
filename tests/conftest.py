"""Shared fixtures: an isolated DBG_HOME per test, a `dbg` runner, marked lines.

Every test runs the real `dbg` command in a subprocess, exactly as a user or an
agent would, with DBG_HOME pointing into the test's own temporary folder so
sessions, logs and the store never leak between tests.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from builds import Target, copy_target, marked_lines

from dbgcore.testing import DBG, Dbg, Result, dbg_in, require_backend

# The `dbg` fixture comes from the testing kit (dbgcore.testing, a pytest11
# plugin), the one a plugin author uses.
__all__ = ["DBG", "Dbg", "Result", "Target", "copy_target", "marked_lines", "require_backend"]

ROOT = Path(__file__).resolve().parent.parent

# The property tests check what holds, never how fast: on a loaded machine
# (CI's workers beside real debuggers) drawing inputs can take a second, and
# hypothesis's deadline and too_slow health check would fail a correct test.
hypothesis.settings.register_profile(
    "dbg", deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow])
hypothesis.settings.load_profile("dbg")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The tests marked `first` (the longest) are handed out before the rest:
    # with pytest-xdist's workers (scripts/test) they then run beside the
    # others instead of alone at the end.
    items.sort(key=lambda item: item.get_closest_marker("first") is None)


@pytest.fixture
def target(tmp_path: Path) -> Any:
    """Copy a program from tests/targets into the test's folder; returns a
    factory: target("loops.py") -> Target(path, lines)."""

    def make(name: str) -> Target:
        return copy_target(name, tmp_path / "work")

    return make


@pytest.fixture
def short_dbg() -> Iterator[Dbg]:
    """A runner whose DBG_HOME is short enough for the fast path's sockets
    (a pytest-xdist worker's tmp_path is not: its calls would go through the
    full CLI instead)."""
    base = Path(tempfile.mkdtemp(prefix="dbg-", dir="/tmp"))
    try:
        with dbg_in(base) as runner:
            yield runner
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def module_dbg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dbg]:
    """Like `dbg`, but one DBG_HOME for a whole test module, so its tests can
    share a started session; kills the module's sessions at the end."""
    with dbg_in(tmp_path_factory.mktemp("module")) as runner:
        yield runner


@pytest.fixture(scope="module")
def module_target(module_dbg: Dbg) -> Any:
    """`target`, copying into the work folder of `module_dbg`."""

    def make(name: str) -> Target:
        return copy_target(name, module_dbg.cwd)

    return make


@pytest.fixture(scope="session")
def backend_ready() -> Callable[[str], None]:
    """`require_backend`, for tests parametrized over backends."""
    return require_backend


@pytest.fixture(scope="session")
def pdb_ready() -> None:
    """Skip (or fail, in CI) when the pdb backend is not ready; checked once."""
    require_backend("pdb")
