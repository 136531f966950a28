"""node's version is asked once per node executable, not at every start: a
start checks the backend is ready, then asks its version for the answer,
and each `node --version` forked from the daemon cost 10-25 ms of it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from dbgcore.backends.contract import BackendSpec
from dbgcore.testing import require_backend

from dbg_node.backend import NodeBackend


@pytest.fixture
def counted_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A `node` that notes each run in a file, then runs the real one."""
    require_backend("node")
    real = shutil.which("node")
    assert real is not None
    runs = tmp_path / "runs"
    node = tmp_path / "bin" / "node"
    node.parent.mkdir()
    node.write_text(f'#!/bin/sh\necho run >> "{runs}"\nexec "{real}" "$@"\n')
    node.chmod(0o755)
    monkeypatch.setenv("DBG_HOME", str(tmp_path / "home"))
    return node, runs


def test_the_version_is_asked_once_per_executable(counted_node: tuple[Path, Path]) -> None:
    node, runs = counted_node
    spec = BackendSpec(name="node", plugin="dbg_node", command=[str(node)])
    first = NodeBackend.check(spec)
    second = NodeBackend.check(spec)
    assert first.ready and first.version and second == first, (first, second)
    assert runs.read_text().count("run") == 1
    # Another node at the same path (its time changed) is asked again.
    stamp = node.stat().st_mtime_ns + 1_000_000_000
    os.utime(node, ns=(stamp, stamp))
    third = NodeBackend.check(spec)
    assert third == first
    assert runs.read_text().count("run") == 2


def test_a_node_that_does_not_answer_is_not_kept(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "node"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setenv("DBG_HOME", str(tmp_path / "home"))
    spec = BackendSpec(name="node", plugin="dbg_node", command=[str(broken)])
    assert not NodeBackend.check(spec).ready
    assert not NodeBackend.check(spec).ready
    assert not (tmp_path / "home" / "node-versions.json").exists()
