"""No import cycles: in dbgcore, and inside each plugin package.

The graph is read from the source with ``ast``, counting every import a module
makes: at module level, inside functions, and under ``TYPE_CHECKING`` (a cycle
hidden in a function or a type-only import is still two modules that cannot be
read, or changed, one without the other). ``from pkg import name`` is an edge
to ``pkg.name`` when that is a module, else to ``pkg``. A package's
``__init__`` is the module ``pkg``; importing ``pkg.mod`` runs it too, but that
implicit edge is not counted (every submodule would then depend on its package).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Each package checked: its name and folder.
PACKAGES = {
    "dbgcore": ROOT / "dbgcore",
    "dbg_dap": ROOT / "plugins" / "dbg_dap",
    "dbg_pdb": ROOT / "plugins" / "dbg_pdb",
    "dbg_jdb": ROOT / "plugins" / "dbg_jdb",
    "dbg_node": ROOT / "contrib" / "dbg-node" / "dbg_node",
    "dbg_example_plugin": ROOT / "contrib" / "dbg-example-plugin" / "dbg_example_plugin",
}


def modules(package: str, folder: Path) -> dict[str, Path]:
    found = {}
    for path in sorted(folder.rglob("*.py")):
        parts = [package, *path.relative_to(folder).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that module ``name`` (at ``path``) imports."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.add(submodule if submodule in known else source)
    return {m for m in found if m in known and m != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def graph_of(package: str, folder: Path) -> dict[str, set[str]]:
    known = modules(package, folder)
    return {name: imports(name, path, known) for name, path in known.items()}


def test_the_reader_sees_a_cycle_and_each_kind_of_import(tmp_path: Path) -> None:
    # The check itself: a cycle made only of a function-level import and a
    # TYPE_CHECKING one is found; a package's relative imports are followed.
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg.sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .. import a\n")
    (pkg / "c.py").write_text("from . import a\n")
    graph = graph_of("pkg", pkg)
    assert graph["pkg.c"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.sub.b"]]
    (pkg / "sub" / "b.py").write_text("import pkg\n")
    assert cycles(graph_of("pkg", pkg)) == []


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_import_cycle(package: str) -> None:
    found = cycles(graph_of(package, PACKAGES[package]))
    assert found == [], "modules importing each other: " + "; ".join(
        " <-> ".join(component) for component in found)
