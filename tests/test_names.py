"""Code named by a bare name, one resolver for `dbg break`, `dbg trace` and
`dbg list` (dbgcore/lang/pyplaces.py), on pdb and debugpy, over
tests/targets/names/: a method by its own name (``_load_templates`` for
``Renderer._load_templates``), a name two modules define (``normalize``),
and a test helper named as a method of pytest's (``assign``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg, Target

BACKENDS = ["pdb", "debugpy"]
FILES = ("names/pkg/__init__.py", "names/pkg/render.py", "names/pkg/text.py",
         "names/other/__init__.py", "names/other/fmt.py")


def program(target: Any) -> tuple[Target, dict[str, Target]]:
    parts = {name: target(name) for name in FILES}
    return target("names/app.py"), parts


def start(dbg: Dbg, backend: str, app: Target) -> None:
    require_backend(backend)
    started = dbg.json("start", "--backend", backend, str(app.path))
    assert started["ok"] and started["state"] == "stopped", started


def real(path: Path) -> str:
    return str(path.resolve())


def where(stop: dict[str, Any]) -> tuple[str, int]:
    return stop["location"]["file"], stop["location"]["line"]


def at(target: Target, mark: str) -> tuple[str, int]:
    """The (file, line) an answer gives for a marked line of ``target``."""
    return real(target.path), target.lines[mark]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_method_by_its_bare_name(dbg: Dbg, target: Any, backend: str) -> None:
    app, parts = program(target)
    render = parts["names/pkg/render.py"]
    start(dbg, backend, app)
    placed = dbg.json("break", "_load_templates")
    assert placed["ok"], placed
    bp = placed["breakpoint"]
    assert (bp["file"], bp["line"]) == at(render, "load"), placed
    assert "note" not in placed, placed  # no other function of that name is loaded
    text = dbg("break", "divide")
    assert text.code == 0 and "{}:{}".format(*at(app, "divide")) in text.out, text
    stop = dbg.json("continue")
    assert where(stop) == at(render, "load"), stop


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_name_of_two_places_binds_both_and_lists_them(dbg: Dbg, target: Any,
                                                        backend: str) -> None:
    app, parts = program(target)
    text, fmt = parts["names/pkg/text.py"], parts["names/other/fmt.py"]
    start(dbg, backend, app)
    placed = dbg.json("break", "normalize")
    assert placed["ok"], placed
    bound = {(b["file"], b["line"]) for b in placed["breakpoints"]}
    assert bound == {at(text, "normalize"),
                     at(fmt, "fmt")}, placed
    assert "2 places" in placed["note"], placed
    listed = dbg.json("breaks")["breakpoints"]
    assert {(b["file"], b["line"]) for b in listed} == bound, listed
    said = dbg("breaks").out
    assert "{}:{}".format(*at(text, "normalize")) in said, said
    first = dbg.json("continue")
    assert where(first) == at(text, "normalize"), first
    second = dbg.json("continue")
    assert where(second) == at(fmt, "fmt"), second
    # Removed by the name as typed: both places.
    removed = dbg.json("unbreak", "normalize")
    assert len(removed["removed"]) == 2, removed


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_test_helper_named_as_pytests_own_binds_in_the_test(dbg: Dbg, target: Any,
                                                              backend: str) -> None:
    require_backend(backend)
    test = target("names/test_names.py")
    ran = dbg.json("test", "--backend", backend, "--break", "assign", str(test.path),
                   cwd=test.path.parent, timeout=120)
    assert ran["ok"], ran
    # Not pytest's AssertionRewriter.assign, which runs as pytest imports the test.
    assert where(ran) == at(test, "assign"), ran
    # Asked again now that pytest's is loaded: the answer names what it left out.
    again = dbg.json("break", "assign")
    assert (again["breakpoint"]["file"], again["breakpoint"]["line"]) == at(test, "assign")
    note = again["note"]
    assert "left out: _pytest.assertion.rewrite.AssertionRewriter.assign (" in note, again
    assert "_pytest/assertion/rewrite.py:" in note and "_dbg" not in note, again


@pytest.mark.parametrize("backend", BACKENDS)
def test_trace_a_method_by_its_bare_name_and_a_name_of_two_places(
        dbg: Dbg, target: Any, backend: str) -> None:
    app, _ = program(target)
    start(dbg, backend, app)
    answer = dbg.json("trace", "_load_templates", "normalize")
    assert answer["ok"], answer
    functions = [c["function"] for c in answer["trace"]["calls"]]
    assert functions == ["Renderer._load_templates", "normalize", "Fmt.normalize"], answer
    note = answer["trace"]["note"]
    assert "normalize means 2 functions" in note and "Fmt.normalize" in note, note


@pytest.mark.parametrize("backend", BACKENDS)
def test_history_at_a_name_of_two_places_samples_both(dbg: Dbg, target: Any,
                                                      backend: str) -> None:
    app, parts = program(target)
    start(dbg, backend, app)
    answer = dbg.json("history", "s", "--at", "normalize")
    assert answer["ok"], answer
    values = [v["value"] for v in answer["history"]["values"]]
    assert values == ["' Hi '", "'x'"], answer
    assert dbg.json("breaks")["breakpoints"] == []  # history's own are gone
