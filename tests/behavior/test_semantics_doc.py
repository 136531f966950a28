"""docs/semantics.md says what `dbg caps` and the code say: its per-backend
tables name every backend, and their claims match the capabilities the
backends declare (asked of the installed debuggers)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from twins import BACKENDS, caps_of

DOC = (Path(__file__).resolve().parents[2] / "docs" / "semantics.md").read_text(encoding="utf-8")
#: How the doc names each backend in its tables.
NAMES = {"pdb": "pdb", "debugpy": "debugpy", "gdb": "gdb", "lldb": "lldb", "dlv": "dlv",
         "jdb": "jdb"}


def table_after(heading_text: str) -> dict[str, list[str]]:
    """The first Markdown table after the line containing ``heading_text``:
    first cell (split on commas) -> the other cells."""
    start = DOC.index(heading_text)
    rows: dict[str, list[str]] = {}
    started = False
    for line in DOC[start:].splitlines()[1:]:
        if line.startswith("|"):
            started = True
            cells = [c.strip() for c in line.strip("|").split("|")]
            if set(cells[0]) <= {"-", " "} or cells[0] == "backend":
                continue
            for name in cells[0].split(","):
                rows[name.strip()] = cells[1:]
        elif started:
            break
    return rows


def test_the_location_table_matches_which_backends_make_pending_breakpoints(
        backend_ready: Callable[[str], None]) -> None:
    table = table_after("No match at all")
    assert set(table) == set(NAMES.values()), table
    for backend in BACKENDS:
        backend_ready(backend)
        says_pending = "pending" in table[NAMES[backend]][-1]
        assert says_pending == (caps_of(backend)["pending"] != "none"), backend
        # A name nothing matches is pending only where the code says so.
        assert ("pending" in table[NAMES[backend]][1]) == pends_unknown_files(backend), backend


def pends_unknown_files(backend: str) -> bool:
    from dbg_dap.profiles import profile_for

    from dbgcore.backends.pluginhost import PluginHost
    from dbgcore.backends.registry import BackendRegistry

    spec = BackendRegistry(PluginHost()).spec(backend)
    return spec.plugin == "dap" and profile_for(spec).pending_unknown_files


def test_the_finish_table_names_every_backend_and_matches_caps(
        backend_ready: Callable[[str], None]) -> None:
    table = table_after("| backend | how finish gets the return value |")
    assert set(table) == set(NAMES.values()), table
    for backend in BACKENDS:
        backend_ready(backend)
        supported = caps_of(backend)["return-value"] != "none"
        text = table[NAMES[backend]][0]
        assert supported == ("no return value" not in text), (backend, text)


@pytest.mark.parametrize("op", ["break", "unbreak", "restart", "continue", "step", "next",
                                "finish", "until", "pause", "exception", "stack", "kill",
                                "start", "catch"])
def test_every_op_the_issue_names_is_described(op: str) -> None:
    assert re.search(rf"\b{op}\b", DOC), op
