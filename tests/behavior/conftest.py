"""The behaviour suite: each semantic of docs/semantics.md written once and
run on all six backends, over twin programs (see twins.py).

dbg always runs from a folder that is not the program's (the test's `work`
folder), with file names as people type them: `ledger.py:26`, `main.go:12`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
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




# -- no false positives of the secrets' mask (docs/secrets.md) --------------------------

#: What the scan below read, by store: its records, and those masked.
SCANNED: dict[Path, tuple[int, int]] = {}
_RECORDS = ("SELECT result FROM commands", "SELECT locals FROM stops", "SELECT stack FROM stops",
            "SELECT return_value FROM stops", "SELECT data FROM calls", "SELECT data FROM samples")


def _homes(item: pytest.Item) -> set[Path]:
    from dbgcore.testing import Dbg

    found: set[Path] = set()
    for value in getattr(item, "funcargs", {}).values():
        for candidate in (value, getattr(value, "dbg", None),
                          getattr(getattr(value, "prog", None), "dbg", None)):
            if isinstance(candidate, Dbg):
                found.add(candidate.home)
    return found


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After each test, before its sessions end: every answer its programs
    gave, as the store keeps it (every op the daemon answered, every stop,
    traced call and sampled value, masked as the answers are), holds no
    mask, for none of their values is a secret."""
    result = yield
    import sqlite3

    for home in _homes(item):
        store = home / "store.sqlite3"
        if not store.is_file():
            continue
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        try:
            texts = [row[0] for query in _RECORDS for row in db.execute(query) if row[0]]
        finally:
            db.close()
        masked = [text for text in texts if "<redacted:" in text]
        SCANNED[store] = (len(texts), len(masked))
        assert not masked, f"the secrets' mask hid an ordinary value: {masked[0][:2000]}"
    return result


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    records = sum(n for n, _ in SCANNED.values())
    if records:
        masked = sum(m for _, m in SCANNED.values())
        terminalreporter.write_line(
            f"secrets' mask: {masked} of {records} recorded answers and records of "
            f"{len(SCANNED)} sessions' stores masked")
