"""The behaviour suite: each semantic of docs/semantics.md written once and
run on all six backends, over twin programs (see twins.py).

dbg always runs from a folder that is not the program's (the test's `work`
folder), with file names as people type them: `ledger.py:26`, `main.go:12`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from twins import BACKENDS, Program, build_twin, twin_program

if TYPE_CHECKING:
    from conftest import Dbg


@pytest.fixture(scope="session")
def _built(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, Path]]:
    """Each language's twin, built once for the test run."""
    done: dict[str, tuple[Path, Path]] = {}

    def get(language: str) -> tuple[Path, Path]:
        if language not in done:
            root = tmp_path_factory.mktemp("ledger") / "prog"
            done[language] = (root, build_twin(language, root))
        return done[language]

    return get


@pytest.fixture(params=BACKENDS)
def prog(request: pytest.FixtureRequest, dbg: Dbg, backend_ready: Callable[[str], None],
         _built: Callable[[str], tuple[Path, Path]]) -> Program:
    return twin_program(request.param, dbg, backend_ready, _built)


