"""Each op's story is in one module: its declaration, the front end's
preparation (or its local ``run``), the daemon's handler (and its
``beside``) and its renderer are functions of the op group that declares it
(the stop's text, which every op that stops answers with, is the one shared
renderer). The op groups are op plugins, listed in one place, whose
``dbg_add_ops`` hooks make the table in its order; and the op modules import
no daemon and no front end."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from types import ModuleType

import pytest

from dbgcore.ops import stops
from dbgcore.ops.table import BUILTIN, DEFAULT_OP_PLUGINS
from dbgcore.vocab.opspec import Op

ROOT = Path(__file__).resolve().parents[2]
OPS_FOLDER = ROOT / "dbgcore" / "ops"
#: What the op vocabulary must never import: the daemon and the front ends.
FORBIDDEN = ("dbgcore.daemon", "dbgcore.frontends", "dbgcore.entry")
#: The renderers one op group shares with the others, and why: the text of a stop.
SHARED_RENDERERS = {stops.render_stop}


def _groups() -> list[tuple[ModuleType, list[Op]]]:
    found = []
    for name in DEFAULT_OP_PLUGINS:
        module = importlib.import_module(name)
        added: list[Op] = []
        module.dbg_add_ops(added.append)
        found.append((module, added))
    return found


def _functions(op: Op) -> dict[str, object]:
    named = {"prepare": op.prepare, "run": op.run, "handler": op.handler, "beside": op.beside,
             "render": op.render}
    return {role: fn for role, fn in named.items() if fn is not None}


def test_the_table_is_the_op_plugins_ops_in_their_order() -> None:
    made = [op for _, ops in _groups() for op in ops]
    assert [op.name for op in made] == [op.name for op in BUILTIN]
    assert all(a is b for a, b in zip(made, BUILTIN, strict=True))
    assert all(ops for _, ops in _groups()), "an op plugin that adds no op"


@pytest.mark.parametrize("op", BUILTIN, ids=lambda op: op.name)
def test_each_op_lives_in_the_module_that_declares_it(op: Op) -> None:
    module = next(m for m, ops in _groups() if op in ops)
    for role, fn in _functions(op).items():
        if role == "render" and fn in SHARED_RENDERERS:
            continue
        where = getattr(fn, "__module__", None)
        assert where == module.__name__, (
            f"{op.name}: its {role} {getattr(fn, '__qualname__', fn)} is in {where}, "
            f"not in {module.__name__}, which declares the op")
        assert getattr(module, getattr(fn, "__name__", ""), None) is fn


def forbidden_imports(path: Path) -> list[str]:
    """The daemon and front-end modules ``path`` imports, at module level, in
    a function or under TYPE_CHECKING alike."""
    def forbidden(name: str) -> bool:
        return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)

    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if forbidden(a.name))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if forbidden(node.module):
                found.add(node.module)
            else:  # `from dbgcore import entry`
                found.update(f"{node.module}.{a.name}" for a in node.names
                             if forbidden(f"{node.module}.{a.name}"))
    return sorted(found)


def test_the_import_rule_sees_each_kind_of_import(tmp_path: Path) -> None:
    module = tmp_path / "wrong.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "import dbgcore.daemon.server\n"
        "if TYPE_CHECKING:\n"
        "    from dbgcore.daemon.session import Session\n"
        "def f():\n"
        "    from dbgcore import entry\n"
        "    from dbgcore.frontends.doctor import doctor\n")
    assert forbidden_imports(module) == ["dbgcore.daemon.server", "dbgcore.daemon.session",
                                         "dbgcore.entry", "dbgcore.frontends.doctor"]


@pytest.mark.parametrize("path", sorted(OPS_FOLDER.rglob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_op_modules_import_no_daemon_and_no_front_end(path: Path) -> None:
    assert forbidden_imports(path) == []
