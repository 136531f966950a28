"""The public plugin API: dbgcore.api names what plugins may use, and the
built-in plugins (and the contrib ones) use nothing else of dbgcore."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import dbgcore.api as api

ROOT = Path(__file__).resolve().parents[2]
#: The plugins' own code; their tests may use the testing kit (dbgcore.testing).
PLUGIN_FILES = sorted(p for p in [*(ROOT / "plugins").rglob("*.py"),
                                  *(ROOT / "contrib").rglob("*.py")]
                      if "tests" not in p.relative_to(ROOT).parts)


def dbgcore_imports(path: Path) -> list[str]:
    """The dbgcore modules a file imports from (its own top-level package aside)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "dbgcore" or node.module.startswith("dbgcore."):
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "dbgcore"]
    return found


@pytest.mark.parametrize("path", PLUGIN_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_plugins_import_only_the_public_api(path: Path) -> None:
    outside = [m for m in dbgcore_imports(path) if m != "dbgcore.api"]
    assert outside == [], f"{path.relative_to(ROOT)} imports {outside}; use dbgcore.api"


def test_every_public_name_resolves_to_its_home() -> None:
    for name in api.__all__:
        value = getattr(api, name)
        assert value is not None, name
    assert api.procutil is importlib.import_module("dbgcore.shared.procutil")
    assert api.Backend is importlib.import_module("dbgcore.backends.contract").Backend


def test_an_unknown_name_says_where_to_look() -> None:
    with pytest.raises(AttributeError, match="docs/plugins.md"):
        api.NoSuchThing  # noqa: B018


def test_the_docs_list_every_public_name() -> None:
    text = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    section = text.split("## The public API", 1)[1].split("\n## ", 1)[0]
    missing = [n for n in api.__all__ if f"`{n}`" not in section]
    assert missing == []


def test_the_type_stub_is_made_from_the_one_list_of_names() -> None:
    from dbgcore.docgen import API_STUB, api_stub

    assert API_STUB.read_text(encoding="utf-8") == api_stub(), \
        "dbgcore/api.pyi is stale: run python -m dbgcore.docgen"
    stubbed = ast.parse(API_STUB.read_text(encoding="utf-8"))
    names = [a.asname for node in stubbed.body if isinstance(node, ast.ImportFrom)
             for a in node.names]
    assert sorted(names) == sorted(api.__all__)
