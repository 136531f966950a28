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

Imports also run one way: each of dbgcore's packages may import only the
packages its rule in :data:`MAY_IMPORT` names (docs/architecture.md draws the
same rules), and a plugin imports only the public API. Today's exceptions are
listed, each with its reason, in :data:`ALLOWED_TODAY`: the check fails on a
new one, and on an entry that is no longer needed.
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
    "dbg_profilers": ROOT / "plugins" / "dbg_profilers",
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


#: The pdb backend's launcher, loaded into the debugged program as one package
#: of its own (plugins/dbg_pdb/launch.py): its modules import each other.
PDB_LAUNCHER = ROOT / "plugins" / "dbg_pdb" / "inprogram"


def test_the_pdb_launcher_imports_the_standard_library_and_itself_only() -> None:
    # A relative import of a sibling is how its modules find each other in
    # the program (by the package's folder); anything else must be stdlib.
    # Besides: the program's __main__, and the type checkers' _typeshed
    # under TYPE_CHECKING (test_unit_pdb_launcher_load loads it for real).
    siblings = {f".{path.stem}" for path in PDB_LAUNCHER.glob("*.py")} | {"."}
    found = [entry for entry in outside_imports(PDB_LAUNCHER)
             if entry.rsplit(": ", 1)[1] not in siblings | {"__main__", "_typeshed"}]
    assert len(siblings) > 2 and found == [], "the pdb launcher imports what it cannot " \
        "find in the program: " + "; ".join(found)



# -- Imports run one way -------------------------------------------------------------------

#: Every package the rules below let a package import; `dbgcore` is the
#: package's ``__init__`` (its ``__version__`` alone), which anything may import.
_BELOW_THE_DAEMON = frozenset({"dbgcore", "shared", "vocab", "lang", "store", "transport",
                               "backends", "ops"})

#: What each part of dbgcore may import of the rest of dbgcore: a package
#: under dbgcore by its folder's name, a top-level module by its own name.
#: Module-level, function-level and ``TYPE_CHECKING`` imports all count: a
#: type-only import still makes a reader of the importer read the imported
#: (a ``Protocol`` in the lower package is how such a type is named without
#: it). An import inside one package is always allowed. Lowest first; each
#: rule is docs/architecture.md's "may import".
MAY_IMPORT: dict[str, frozenset[str]] = {
    # The package's __init__: the version, nothing imported.
    "dbgcore": frozenset(),
    # What every process shares, the bottom: the standard library only.
    "shared": frozenset({"dbgcore"}),
    # Loaded into the debugged program by path, alone: the standard library
    # only (test_in_program_code_imports_the_standard_library_only says which).
    "inprogram": frozenset(),
    # The op vocabulary: the words, with no process behind them.
    "vocab": frozenset({"dbgcore", "shared"}),
    # Language rules and sources; inprogram's files are stdlib-only, so the
    # daemon may read their rules (which files are a library's) too.
    "lang": frozenset({"dbgcore", "shared", "vocab", "inprogram"}),
    "store": frozenset({"dbgcore", "shared", "vocab"}),
    # Talking to a debugger: never how a daemon was started (start).
    "transport": frozenset({"dbgcore", "shared", "vocab"}),
    # The backend contract and the plugin host, over the transports.
    "backends": frozenset({"dbgcore", "shared", "vocab", "lang", "transport", "inprogram"}),
    # The ops: never the daemon, a front end, the daemon's start, or entry.
    "ops": frozenset({"dbgcore", "shared", "vocab", "lang", "store", "transport", "backends"}),
    # The daemon runs the ops; it is given its start-up, never imports start,
    # and no front end.
    "daemon": _BELOW_THE_DAEMON,
    # Starting a daemon: everything a daemon is made of, never a front end.
    "start": _BELOW_THE_DAEMON | {"daemon"},
    # The front ends run in the client: they start daemons and talk to
    # them over the wire, never import the daemon or a transport.
    "frontends": frozenset({"dbgcore", "shared", "vocab", "lang", "store", "backends", "ops",
                            "start"}),
    # The `dbg` command: the fast path, then a front end.
    "entry": frozenset({"dbgcore", "shared", "start", "frontends"}),
    "__main__": frozenset({"entry"}),
    # The public API for plugins names what it re-exports (by string, its
    # stub api.pyi by import): anything but the top-level tools.
    "api": _BELOW_THE_DAEMON | {"inprogram", "daemon", "start", "frontends"},
    # The testing kit drives `dbg` as a command; it reads the plugin host.
    "testing": frozenset({"dbgcore", "shared", "vocab", "backends", "api"}),
    # Writes api.pyi and docs/cli.md from the op table and the API.
    "docgen": _BELOW_THE_DAEMON | {"frontends", "api"},
}

#: Today's imports against the rules, each (importer, imported) with its
#: reason and what ends it. Remove an entry when its import is gone: the
#: check fails on an entry that no longer matches an import, so this list
#: only shrinks.
ALLOWED_TODAY: dict[tuple[str, str], str] = {
}


def part_of(module: str) -> str:
    """The part of dbgcore a module is in: its package under dbgcore
    (``dbgcore.daemon.server`` -> ``daemon``), a top-level module's own name
    (``dbgcore.entry`` -> ``entry``), or ``dbgcore`` for the package itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def against_the_rules(graph: dict[str, set[str]],
                      may_import: dict[str, frozenset[str]]) -> set[tuple[str, str]]:
    """Each import (importer, imported) from one part of ``graph`` into
    another that the importer's rule in ``may_import`` does not name (a part
    with no rule may import nothing)."""
    found: set[tuple[str, str]] = set()
    for importer, imported in graph.items():
        part = part_of(importer)
        allowed = may_import.get(part, frozenset())
        found |= {(importer, other) for other in imported
                  if part_of(other) != part and part_of(other) not in allowed}
    return found


def test_the_rules_see_each_kind_of_wrong_import(tmp_path: Path) -> None:
    # The check itself, with dbgcore's own rules on a small tree: an import
    # against them is found at module level, in a function and under
    # TYPE_CHECKING, through a relative import and a from-import of a
    # module; an allowed one, one inside a package and the package's
    # __init__ are not; a part the rules do not name may import nothing.
    root = tmp_path / "dbgcore"
    for folder in ("shared", "vocab", "ops", "daemon", "start", "transport", "newpart"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text('__version__ = "0"\n')
    (root / "shared" / "paths.py").write_text("import dbgcore\n")
    (root / "shared" / "errors.py").write_text("from . import paths\n")
    (root / "vocab" / "model.py").write_text(
        "from dbgcore.shared import errors\ndef f():\n    from dbgcore.ops import table\n")
    (root / "ops" / "table.py").write_text(
        "from typing import TYPE_CHECKING\nfrom dbgcore.vocab import model\n"
        "if TYPE_CHECKING:\n    from ..daemon.session import Session\n")
    (root / "daemon" / "session.py").write_text("from dbgcore.ops.table import x\n")
    (root / "daemon" / "server.py").write_text("from dbgcore.start import spawn\n")
    (root / "start" / "spawn.py").write_text("import dbgcore.daemon.server\n")
    (root / "transport" / "pty.py").write_text("from dbgcore.start import spawn\n")
    (root / "newpart" / "thing.py").write_text("from dbgcore.shared import paths\n")
    graph = graph_of("dbgcore", root)
    assert against_the_rules(graph, MAY_IMPORT) == {
        ("dbgcore.vocab.model", "dbgcore.ops.table"),
        ("dbgcore.ops.table", "dbgcore.daemon.session"),
        ("dbgcore.daemon.server", "dbgcore.start.spawn"),
        ("dbgcore.transport.pty", "dbgcore.start.spawn"),
        ("dbgcore.newpart.thing", "dbgcore.shared.paths"),
    }


def test_every_part_of_dbgcore_has_a_rule() -> None:
    parts = {part_of(module) for module in graph_of("dbgcore", PACKAGES["dbgcore"])}
    assert parts == set(MAY_IMPORT), (
        f"a part with no rule in MAY_IMPORT (add it, and to docs/architecture.md): "
        f"{sorted(parts - set(MAY_IMPORT))}; a rule for no part: {sorted(set(MAY_IMPORT) - parts)}")


def test_imports_run_one_way() -> None:
    found = against_the_rules(graph_of("dbgcore", PACKAGES["dbgcore"]), MAY_IMPORT)
    new = sorted(found - set(ALLOWED_TODAY))
    gone = sorted(set(ALLOWED_TODAY) - found)
    assert new == [], "imports against the rules of MAY_IMPORT (docs/architecture.md): " + \
        "; ".join(f"{importer} -> {imported}" for importer, imported in new)
    assert gone == [], "ALLOWED_TODAY entries with no import left (remove them): " + \
        "; ".join(f"{importer} -> {imported}" for importer, imported in gone)


# -- Plugins import the public API only ----------------------------------------------------

#: The built-in plugins' folders and the contrib plugins' projects (the
#: package and its tests).
BUILT_IN_PLUGINS = ("dbg_dap", "dbg_pdb", "dbg_jdb", "dbg_profilers")
CONTRIB_PLUGINS = {"dbg_node": ROOT / "contrib" / "dbg-node",
                   "dbg_example_plugin": ROOT / "contrib" / "dbg-example-plugin"}

#: What a plugin's package may import of dbgcore, and what a contrib
#: plugin's tests may (the testing kit too).
PLUGIN_MAY_IMPORT = frozenset({"dbgcore.api"})
PLUGIN_TESTS_MAY_IMPORT = frozenset({"dbgcore.api", "dbgcore.testing"})

#: Today's imports of a contrib plugin's tests beyond the API and the
#: testing kit: (file, module) with the reason. Remove an entry when its
#: import is gone (the check fails on one that no longer matches).
PLUGIN_TESTS_ALLOWED_TODAY: dict[tuple[str, str], str] = {
    ("contrib/dbg-node/tests/test_dbg_node.py", "dbgcore"):
        "dbgcore.__file__: the checkout that becomes a wheel for a fresh venv",
    ("contrib/dbg-node/tests/test_dbg_node.py", "dbgcore.shared.procutil"):
        "looks for processes left behind; the testing kit has no such helper yet",
    ("contrib/dbg-node/tests/test_node_version.py", "dbgcore.backends.contract"):
        "BackendSpec, to make a spec without a backends.yaml; dbgcore.api does not export it",
}


def named_imports(folder: Path) -> list[tuple[Path, int, str]]:
    """Every absolute import in the modules under ``folder``: (file, line,
    module); ``from pkg import name`` is ``pkg.name`` when that is one of
    dbgcore's modules (``from dbgcore import api`` imports the module api),
    else ``pkg``."""
    core = modules("dbgcore", PACKAGES["dbgcore"])
    found: list[tuple[Path, int, str]] = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found += [(path, node.lineno, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found += [(path, node.lineno, f"{node.module}.{alias.name}"
                           if f"{node.module}.{alias.name}" in core else node.module)
                          for alias in node.names]
    return found


def beyond_the_api(folder: Path, own: str, may_import: frozenset[str]) -> list[tuple[Path, str]]:
    """The imports under ``folder`` of dbgcore beyond ``may_import`` (a
    module or its submodules), and of any other plugin's package than
    ``own``: (file, module)."""
    others = {*BUILT_IN_PLUGINS, *CONTRIB_PLUGINS} - {own}
    def beyond(module: str) -> bool:
        top = module.split(".")[0]
        if top == "dbgcore":
            return not any(module == m or module.startswith(m + ".") for m in may_import)
        return top in others

    return sorted({(path, module) for path, _line, module in named_imports(folder)
                   if beyond(module)})


def test_the_plugin_rule_sees_each_kind_of_import(tmp_path: Path) -> None:
    # The check itself: a plugin importing dbgcore beyond its API (at module
    # level, in a function, `from dbgcore import` a module, dbgcore itself)
    # and another plugin's package is found; its own package, the API and
    # the rest are not.
    folder = tmp_path / "dbg_thing"
    folder.mkdir()
    (folder / "fine.py").write_text(
        "import os\nfrom dbgcore.api import Backend\nfrom dbgcore import api\n"
        "import dbg_thing.fine\nimport pexpect\n")
    assert beyond_the_api(folder, "dbg_thing", PLUGIN_MAY_IMPORT) == []
    (folder / "wrong.py").write_text(
        "from dbgcore.backends.contract import Backend\ndef f():\n    import dbgcore\n"
        "from dbgcore import testing\nfrom dbg_dap.core import x\nimport dbgcore.apix\n")
    wrong = folder / "wrong.py"
    assert beyond_the_api(folder, "dbg_thing", PLUGIN_MAY_IMPORT) == [
        (wrong, "dbg_dap.core"), (wrong, "dbgcore"), (wrong, "dbgcore.apix"),
        (wrong, "dbgcore.backends.contract"), (wrong, "dbgcore.testing")]
    assert (wrong, "dbgcore.testing") not in beyond_the_api(
        folder, "dbg_thing", PLUGIN_TESTS_MAY_IMPORT)


@pytest.mark.parametrize("plugin", BUILT_IN_PLUGINS)
def test_a_built_in_plugin_imports_the_public_api_only(plugin: str) -> None:
    # Built-in plugins are ordinary plugins: what a third party could write.
    found = beyond_the_api(ROOT / "plugins" / plugin, plugin, PLUGIN_MAY_IMPORT)
    assert found == [], "imports beyond dbgcore.api: " + "; ".join(
        f"{path.relative_to(ROOT)}: {module}" for path, module in found)


@pytest.mark.parametrize("plugin", sorted(CONTRIB_PLUGINS))
def test_a_contrib_plugin_imports_the_api_and_the_testing_kit_only(plugin: str) -> None:
    project = CONTRIB_PLUGINS[plugin]
    found = beyond_the_api(project / plugin, plugin, PLUGIN_MAY_IMPORT)
    assert found == [], "the package imports beyond dbgcore.api: " + "; ".join(
        f"{path.relative_to(ROOT)}: {module}" for path, module in found)
    in_tests = {(str(path.relative_to(ROOT)), module) for path, module
                in beyond_the_api(project / "tests", plugin, PLUGIN_TESTS_MAY_IMPORT)}
    allowed = {entry for entry in PLUGIN_TESTS_ALLOWED_TODAY
               if entry[0].startswith(str(project.relative_to(ROOT)) + "/")}
    assert sorted(in_tests - allowed) == [], "tests importing beyond dbgcore.api and " \
        "dbgcore.testing: " + "; ".join(f"{file}: {module}" for file, module in
                                        sorted(in_tests - allowed))
    assert sorted(allowed - in_tests) == [], "PLUGIN_TESTS_ALLOWED_TODAY entries with no " \
        "import left (remove them): " + "; ".join(
            f"{file}: {module}" for file, module in sorted(allowed - in_tests))


def test_the_core_imports_no_plugin() -> None:
    # The core loads plugins by name (pluginhost.DEFAULT_PLUGINS, entry
    # points), never by an import a reader would have to follow.
    plugins = {*BUILT_IN_PLUGINS, *CONTRIB_PLUGINS}
    found = [f"{path.relative_to(ROOT)}:{line}: {module}" for path, line, module
             in named_imports(PACKAGES["dbgcore"]) if module.split(".")[0] in plugins]
    assert found == [], "the core imports a plugin: " + "; ".join(found)
