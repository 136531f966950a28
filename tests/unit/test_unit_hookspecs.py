"""Every hook a plugin can implement is named dbg_*, typed, documented, and
exercised by some test (after datasette's test_plugin_hooks_have_tests)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dbgcore.backends import hookspecs

TESTS = Path(__file__).resolve().parent.parent


def all_hookspecs() -> dict[str, Callable[..., Any]]:
    specs = {
        name: fn for name, fn in vars(hookspecs).items()
        if callable(fn) and hasattr(fn, "dbg_spec")
    }
    assert specs, "no hookspecs found: has the marker's project name changed?"
    return specs


HOOKS = sorted(all_hookspecs())


def test_every_hook_function_in_the_module_is_a_spec() -> None:
    # A dbg_* function without @hookspec would silently accept nothing.
    functions = {name for name, fn in vars(hookspecs).items()
                 if inspect.isfunction(fn) and fn.__module__ == hookspecs.__name__}
    assert functions == set(HOOKS)


@pytest.mark.parametrize("name", HOOKS)
def test_hookspec_is_named_typed_and_documented(name: str) -> None:
    fn = all_hookspecs()[name]
    assert re.fullmatch(r"dbg_[a-z0-9_]+", name), name
    signature = inspect.signature(fn)
    assert signature.parameters, f"{name} takes no arguments"
    doc = inspect.getdoc(fn) or ""
    assert doc, f"{name} has no docstring"
    for param in signature.parameters.values():
        assert param.annotation is not inspect.Parameter.empty, f"{name}({param.name}) untyped"
        assert re.search(rf"^:param {param.name}: \S", doc, re.M), \
            f"{name}'s docstring has no ':param {param.name}:' line"
    documented = set(re.findall(r"^:param (\w+):", doc, re.M))
    assert documented == set(signature.parameters), f"{name} documents unknown parameters"
    assert signature.return_annotation is not inspect.Signature.empty, f"{name} return untyped"
    # The calling rule in words.
    options: dict[str, Any] = fn.dbg_spec  # type: ignore[attr-defined]
    if options.get("firstresult"):
        assert "first" in doc.lower(), f"{name} is firstresult but its docstring does not say so"
    else:
        assert "every plugin" in doc.lower(), f"{name}'s docstring does not say who is called"


def test_plugin_hooks_have_tests() -> None:
    this = Path(__file__).resolve()
    texts = [p.read_text(encoding="utf-8") for p in TESTS.rglob("test_*.py")
             if p.resolve() != this]
    untested = [name for name in HOOKS
                if not any(re.search(rf"\bdef {name}\(", text) for text in texts)]
    assert not untested, f"hooks no test implements: {untested}"
