"""dbg_dap's layers: an adapter profile talks to the backend only through
dbg_dap.host.AdapterHost, so no profile module imports the backend or its
parts (counting imports inside functions and under TYPE_CHECKING), and the
seam imports no profile."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "dbg_dap"

#: The profile layer, bottom up: what a profile module may import of dbg_dap.
LAYERS = {
    "frames": set(),
    "rust": set(),
    "natlang": set(),
    "nativebuild": set(),
    "host": set(),
    "profile_base": {"host"},
    "debugpy": {"host", "profile_base"},
    "native": {"host", "frames", "natlang", "nativebuild", "profile_base", "rust"},
    "gdb": {"host", "native", "profile_base", "rust"},
    "lldb": {"host", "frames", "natlang", "native", "profile_base", "rust"},
    "delve": {"host", "frames", "native", "profile_base"},
    "rdbg": {"host", "native", "profile_base"},
    "profiles": {"profile_base", "debugpy", "native", "gdb", "lldb", "delve", "rdbg"},
}


def _sources(module: str) -> list[Path]:
    """The files of ``module``: itself, or every module of a package's."""
    package = PLUGIN / module
    return sorted(package.glob("*.py")) if package.is_dir() else [PLUGIN / f"{module}.py"]


def _is_module(name: str) -> bool:
    return (PLUGIN / f"{name}.py").exists() or (PLUGIN / name / "__init__.py").exists()


def plugin_imports(module: str) -> set[str]:
    """The dbg_dap modules ``module`` imports, anywhere in it (a package's
    imports of its own modules are its own)."""
    found: set[str] = set()
    for source in _sources(module):
        found |= _imports_of(ast.parse(source.read_text()))
    found.discard(module)
    return found


def _imports_of(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "dbg_dap" and len(parts) > 1 and _is_module(parts[1]):
                found.add(parts[1])
    return found


@pytest.mark.parametrize("module", sorted(LAYERS))
def test_profile_modules_stay_below_the_backend(module: str) -> None:
    imported = plugin_imports(module)
    assert imported <= LAYERS[module], (
        f"dbg_dap.{module} imports {sorted(imported - LAYERS[module])}: a profile asks "
        "the backend through dbg_dap.host.AdapterHost")


def test_every_profile_module_is_placed() -> None:
    # A new adapter's module joins LAYERS, so that this test reads it.
    importing = plugin_imports("profiles")
    assert importing <= set(LAYERS), sorted(importing - set(LAYERS))
