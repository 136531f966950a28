"""No import cycles: in dbgcore, and inside each plugin package. And the
core's code that runs in the debugged program (dbgcore/inprogram) imports
the standard library only.

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
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The core's modules loaded into the debugged program by their file's path.
IN_PROGRAM = ROOT / "dbgcore" / "inprogram"

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
    """Each module's imports. A module with a type stub beside it counts the
    stub's too: dbgcore.api imports its names by string, on first use, and
    its stub (api.pyi) says where each comes from, so a core module importing
    from dbgcore.api is still seen to depend on those modules."""
    known = modules(package, folder)
    graph = {}
    for name, path in known.items():
        graph[name] = imports(name, path, known)
        stub = path.with_suffix(".pyi")
        if stub.exists():
            graph[name] |= imports(name, stub, known)
    return graph


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
    # A module that imports by string, as dbgcore.api does, has its stub's
    # imports counted.
    (pkg / "lazy.py").write_text("import importlib\n")
    (pkg / "lazy.pyi").write_text("from pkg.c import x as x\n")
    (pkg / "a.py").write_text("from pkg.lazy import x\n")
    assert cycles(graph_of("pkg", pkg)) == [["pkg.a", "pkg.c", "pkg.lazy"]]


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_import_cycle(package: str) -> None:
    found = cycles(graph_of(package, PACKAGES[package]))
    assert found == [], "modules importing each other: " + "; ".join(
        " <-> ".join(component) for component in found)


def outside_imports(folder: Path) -> list[str]:
    """The imports of the modules in ``folder`` of anything but the standard
    library, as ``file:line: module``. A relative import is one too: each
    module is loaded into the program alone, by its path, as a top-level
    module of its own, so neither ``from . import pyrepr`` nor
    ``dbgcore.inprogram.pyrepr`` would be found there (a sibling is loaded
    by its path, as pytrace loads pyrepr)."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = ["." * node.level + (node.module or "")]
            else:
                continue
            found += [(str(path.relative_to(folder)), node.lineno, name) for name in names
                      if name.startswith(".") or name.split(".")[0] not in sys.stdlib_module_names]
    return [f"{file}:{line}: {name}" for file, line, name in sorted(found)]


def test_the_in_program_rule_sees_each_kind_of_outside_import(tmp_path: Path) -> None:
    # The check itself: in a tree like dbgcore/inprogram, an import of the
    # rest of dbgcore (in a function, under TYPE_CHECKING too), of another
    # package, and a relative one are each found; the standard library's
    # (__future__, a submodule, a from-import) are not.
    folder = tmp_path / "dbgcore" / "inprogram"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "fine.py").write_text(
        "from __future__ import annotations\nimport os, importlib.util\n"
        "from collections.abc import Callable\n")
    assert outside_imports(folder) == []
    (folder / "wrong.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from dbgcore import paths\n"
        "def f():\n    import dbgcore.vocab.traces\n    from . import fine\n"
        "import json, yaml\n")
    assert outside_imports(folder) == [
        "wrong.py:3: dbgcore", "wrong.py:5: dbgcore.vocab.traces", "wrong.py:6: .",
        "wrong.py:7: yaml"]


def test_in_program_code_imports_the_standard_library_only() -> None:
    assert sorted(p.name for p in IN_PROGRAM.glob("*.py")) != ["__init__.py"]
    found = outside_imports(IN_PROGRAM)
    assert found == [], "code that runs in the debugged program imports what it cannot " \
        "find there: " + "; ".join(found)
