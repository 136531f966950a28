"""`dbg print EXPR --depth N` (and `dbg locals --depth N`) on pdb and debugpy: the value's children, N
levels deep, the same on both (pydevd's own repr stops at two levels, an
object's repr shows no attributes): a dict's keys, a list's items, an
object's attributes (its __dict__ and its __slots__), twenty a level and
the rest counted. Several expressions, a failing one and a backend without
it are refused in one line, the session still usable."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dbgcore.testing import Dbg, require_backend

BACKENDS = ["pdb", "debugpy"]


def _stop(dbg: Dbg, backend: str, program: Any) -> None:
    require_backend(backend)
    snap = dbg.json("start", "--backend", backend, "--break", program.loc("nested"), "--run",
                    str(program.path))
    assert snap["_exit"] == 0 and snap["state"] == "stopped", snap


def _printed(dbg: Dbg, *words: str) -> list[str]:
    result = dbg("print", *words)
    assert result.code == 0, result
    return [re.sub(r" at 0x[0-9a-f]+", " at 0x?", line) for line in result.out.splitlines()
            if not line.startswith("[via ")]


@pytest.mark.parametrize("backend", BACKENDS)
def test_depth_shows_nested_containers_and_objects(dbg: Dbg, target: Any, backend: str) -> None:
    program = target("nested.py")
    _stop(dbg, backend, program)
    lines = _printed(dbg, "config", "--depth", "4")
    assert "        'd' = {'e': 1} (dict)" in lines, lines
    assert "        [1] = [3, [4, [...]]] (list)" in lines, lines
    assert not any(line.startswith(" " * 10) for line in lines), lines  # four levels, no more

    answer = dbg.json("print", "chain", "--depth", "4")
    level = answer
    for value in (1, 2, 3, 4):
        rows = {row["name"]: row for row in level["children"]}
        assert rows["value"]["value"] == str(value) and rows["value"]["type"] == "int", rows
        level = rows["child"]
    assert level["type"] == "Node" and "children" not in level, level

    assert _printed(dbg, "point", "--depth", "1")[1:] == ["  x = 3 (int)", "  y = 4 (int)"]
    wide = _printed(dbg, "wide", "--depth", "2")
    assert wide[1:3] == ["  'k0' = [0] (list)", "    [0] = 0 (int)"], wide
    assert wide[-1] == "  ... 280 more", wide
    # As the program holds the keys (reprlib would sort them).
    assert _printed(dbg, "order", "--depth", "1") == [
        "{'zeta': {'b': 1, 'a': 2}, 'alpha': 0} (dict)", "  'zeta' = {'b': 1, 'a': 2} (dict)",
        "  'alpha' = 0 (int)"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_locals_depth_shows_each_ones_children(dbg: Dbg, target: Any, backend: str) -> None:
    program = target("nested.py")
    _stop(dbg, backend, program)
    result = dbg("locals", "--depth", "2")
    assert result.code == 0, result
    lines = result.out.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("point = ")))
    assert lines[at + 1:at + 3] == ["  x = 3 (int)", "  y = 4 (int)"], lines
    at = lines.index(next(line for line in lines if line.startswith("config = ")))
    assert lines[at + 1:at + 3] == ["  'a' = {'b': {'c': {...}}} (dict)",
                                    "    'b' = {'c': {'d': {...}}} (dict)"], lines
    rows = {v["name"]: v for v in dbg.json("locals", "--depth", "1")["variables"]}
    assert [c["name"] for c in rows["order"]["children"]] == ["'zeta'", "'alpha'"], rows
    assert "children" not in dbg.json("locals")["variables"][0]


def test_pdb_and_debugpy_agree(dbg: Dbg, target: Any) -> None:
    program = target("nested.py")
    shown = {}
    for backend in BACKENDS:
        _stop(dbg, backend, program)
        shown[backend] = [_printed(dbg, expression, "--depth", "3")
                          for expression in ("config", "chain", "point", "wide", "order")]
        dbg("kill")
    assert shown["pdb"] == shown["debugpy"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_depth_refusals_are_one_line(dbg: Dbg, target: Any, backend: str) -> None:
    program = target("nested.py")
    _stop(dbg, backend, program)
    for words, code, said in ((["nope", "--depth", "2"], 1, "NameError: name 'nope'"),
                              (["config; chain", "--depth", "2"], 2, "not several"),
                              (["config", "--depth", "0"], 2, "depth")):
        result = dbg("print", *words)
        assert result.code == code, result
        assert said in result.err and result.err.count("\n") == 1, result.err
        assert "Traceback" not in result.err
    assert _printed(dbg, "point.x") == ["3 (int)"]


def test_a_backend_without_depth_refuses_with_the_raw_hint(dbg: Dbg, target: Any) -> None:
    from builds import build_c

    require_backend("gdb")
    binary = build_c(target("native/cart.c").path)
    assert dbg.json("start", "--backend", "gdb", str(binary))["_exit"] == 0
    result = dbg("print", "argc", "--depth", "2")
    assert result.code == 3 and "dbg raw" in result.err, result
    assert "dbg vars PATH" in result.err, result.err
    assert dbg("print", "argc").code == 0
    assert dbg("locals", "--depth", "1").code == 3
    assert dbg("locals").code == 0
