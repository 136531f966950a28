"""Shared fixtures: an isolated DBG_HOME per test, a `dbg` runner, marked lines.

Every test runs the real `dbg` command in a subprocess, exactly as a user or an
agent would, with DBG_HOME pointing into the test's own temporary folder so
sessions, logs and the store never leak between tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from builds import Target, copy_target, marked_lines

__all__ = ["Target", "copy_target", "marked_lines"]

ROOT = Path(__file__).resolve().parent.parent
DBG = [sys.executable, "-m", "dbgcore"]


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.out)
        return data


class Dbg:
    """Runs `dbg` with a private DBG_HOME; kills its sessions at teardown."""

    def __init__(self, home: Path, cwd: Path) -> None:
        self.home = home
        self.cwd = cwd
        self.env = {**os.environ, "DBG_HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}
        self.env.pop("DBG_SESSION", None)
        self.sessions: set[str] = set()

    def __call__(self, *args: str, timeout: float = 60, cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> Result:
        argv = [str(a) for a in args]
        session = "default"
        for i, arg in enumerate(argv):
            if arg in ("-s", "--session") and i + 1 < len(argv):
                session = argv[i + 1]
        self.sessions.add(session)
        proc = subprocess.run(
            [*DBG, *argv], capture_output=True, text=True, timeout=timeout,
            cwd=cwd or self.cwd, env={**self.env, **(env or {})}, stdin=subprocess.DEVNULL,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def json(self, *args: str, **kwargs: Any) -> dict[str, Any]:
        """Run with --json and return the one JSON object it printed."""
        result = self("--json", *args, **kwargs)
        try:
            data: dict[str, Any] = json.loads(result.out)
        except json.JSONDecodeError as exc:
            raise AssertionError(f"not one JSON object: {result!r}") from exc
        data["_exit"] = result.code
        return data

    def output(self, *categories: str, session: str = "default") -> str:
        """All the program output held so far, every page of it (a page is
        at most 1,000 chunks), of the given categories (default: all)."""
        text, cursor = [], 0
        while True:
            page = self.json("-s", session, "output", "--since", str(cursor))
            assert page["ok"], page
            text += [c["text"] for c in page["chunks"]
                     if not categories or c["category"] in categories]
            cursor = page["cursor"]
            if not page["more"]:
                return "".join(text)

    def kill_all(self) -> None:
        for session in self.sessions:
            self("-s", session, "kill", timeout=30)


@pytest.fixture
def dbg(tmp_path: Path) -> Iterator[Dbg]:
    home = tmp_path / "home"
    work = tmp_path / "work"
    work.mkdir()
    runner = Dbg(home, work)
    try:
        yield runner
    finally:
        runner.kill_all()


@pytest.fixture
def target(tmp_path: Path) -> Any:
    """Copy a program from tests/targets into the test's folder; returns a
    factory: target("loops.py") -> Target(path, lines)."""

    def make(name: str) -> Target:
        return copy_target(name, tmp_path / "work")

    return make


@pytest.fixture(scope="module")
def module_dbg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dbg]:
    """Like `dbg`, but one DBG_HOME for a whole test module, so its tests can
    share a started session; kills the module's sessions at the end."""
    base = tmp_path_factory.mktemp("module")
    work = base / "work"
    work.mkdir()
    runner = Dbg(base / "home", work)
    try:
        yield runner
    finally:
        runner.kill_all()


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


def require_backend(name: str) -> None:
    """Skip when a backend's debugger is missing, unless DBG_REQUIRE_ALL_BACKENDS=1
    (as in CI), where a missing debugger is a failure."""
    from dbgcore.config import load_config
    from dbgcore.plugins import PluginHost

    spec = load_config().backends[name]
    cls = PluginHost().backend_classes().get(spec.plugin)
    readiness = cls.check(spec) if cls else None
    if readiness is not None and readiness.ready:
        return
    why = readiness.detail if readiness else f"plugin {spec.plugin} not loaded"
    if os.environ.get("DBG_REQUIRE_ALL_BACKENDS") == "1":
        pytest.fail(f"backend {name} is required here but not ready: {why}")
    pytest.skip(f"backend {name} not ready: {why}")
