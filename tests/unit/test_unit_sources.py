"""Locations on the wire, files found by name or path suffix, and what dbg
reads from source text (function spans, Python's code lines, generators)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from builds import TARGETS, marked_lines

from dbgcore.lang.rules import (
    function_span,
    next_python_code_line,
    python_code_lines,
    python_function,
    python_is_generator,
)
from dbgcore.lang.sourcefind import resolve_source, suffix_matches, walk_sources
from dbgcore.shared.errors import OpFailed, UsageError
from dbgcore.vocab.location import BreakLoc, location_arg

LEDGER = TARGETS / "ledger"

# -- the wire ---------------------------------------------------------------------


@pytest.mark.parametrize("wire", [
    "ledger.py:12", 12, None, [], {"line": 0}, {"line": True}, {"line": "12"},
    {"file": "a.py"}, {"function": "f", "line": 3}, {"module": "m"}, {"line": 3, "color": 1},
    {"file": "a\nb.py", "line": 3}, {"file": "", "line": 3},
])
def test_the_daemon_takes_only_well_formed_locations(wire: Any) -> None:
    with pytest.raises(UsageError):
        BreakLoc.from_wire(wire)


def test_a_relative_file_is_anchored_to_the_folder_it_was_typed_in(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "util.py").write_text("x = 1\n")
    anchored = location_arg("pkg/util.py:1", str(tmp_path))
    assert anchored is not None
    assert anchored["file"] == str(tmp_path / "pkg" / "util.py")
    assert anchored["text"] == "pkg/util.py:1"
    # A name that is not here is left as typed, for the backend to find.
    kept = location_arg("elsewhere.py:3", str(tmp_path))
    assert kept is not None and kept["file"] == "elsewhere.py"
    assert BreakLoc.from_wire(kept) == BreakLoc(file="elsewhere.py", line=3)


# -- finding files ------------------------------------------------------------------


def test_suffixes_match_whole_path_components() -> None:
    paths = ["/a/util.go", "/a/myutil.go", "/b/pkg/util.go"]
    assert suffix_matches("util.go", paths) == ["/a/util.go", "/b/pkg/util.go"]
    assert suffix_matches("pkg/util.go", paths) == ["/b/pkg/util.go"]
    assert suffix_matches("../util.go", paths) == []


def test_resolution_order_and_ambiguity(tmp_path: Path) -> None:
    root = tmp_path / "prog"
    for rel in ("main.py", "util/fmt.py", "report/fmt.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("pass\n")
    tree = [lambda: walk_sources(str(root), (".py",))]
    assert resolve_source("main.py", [str(root)], tree) == str(root / "main.py")
    assert resolve_source("util/fmt.py", [], tree) == str(root / "util/fmt.py")
    assert resolve_source(str(root / "report/fmt.py"), [], tree) == str(root / "report/fmt.py")
    assert resolve_source("nothing.py", [str(root)], tree) is None
    with pytest.raises(OpFailed) as info:
        resolve_source("fmt.py", [str(root)], tree)
    assert str(root / "util/fmt.py") in info.value.message
    assert str(root / "report/fmt.py") in info.value.message
    # The first tier with a match decides: a later tier is not asked.
    asked = []
    found = resolve_source("fmt.py", [], [lambda: [str(root / "util/fmt.py")],
                                         lambda: asked.append(1) or []])
    assert found == str(root / "util/fmt.py") and asked == []


def test_walks_skip_virtual_environments_and_caches(tmp_path: Path) -> None:
    for rel in ("a.py", ".venv/lib/x.py", "env/pyvenv.cfg", "env/lib/y.py", "__pycache__/z.py",
                "node_modules/w.py", "sub/b.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    found = sorted(Path(p).relative_to(tmp_path).as_posix()
                   for p in walk_sources(str(tmp_path), (".py",)))
    assert found == ["a.py", "sub/b.py"]


# -- reading source -------------------------------------------------------------------


@pytest.mark.parametrize("rel", ["py/ledger.py", "c/ledger.c", "go/main.go", "java/Ledger.java"])
def test_function_spans_in_each_twin(rel: str) -> None:
    path = str(LEDGER / rel)
    marks = marked_lines(Path(path))
    fee = function_span(path, marks["fee"])
    assert fee is not None and fee[0] < marks["fee"] < marks["fee-return"] <= fee[1]
    main = function_span(path, marks["loop"])
    assert main is not None and main[0] < marks["main-first"] <= marks["call-fee"] <= main[1]
    assert function_span(path, marks["no-code"]) == main
    assert fee != main


def test_python_code_lines_generators_and_functions() -> None:
    path = str(LEDGER / "py/ledger.py")
    marks = marked_lines(Path(path))
    lines = python_code_lines(path)
    assert lines is not None and marks["no-code"] not in lines and marks["loop"] in lines
    assert next_python_code_line(path, marks["no-code"]) == marks["call-fee"]
    assert python_is_generator(path, marks["yield"]) and not python_is_generator(path, marks["fee"])
    assert python_function(path, "fee") == (marks["fee"], False)
    assert python_function(path, "entries") == (marks["yield"], True)
    assert python_function(path, "nothing") is None
