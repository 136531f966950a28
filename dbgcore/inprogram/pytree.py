"""`dbg print EXPR --depth N` for a Python program: the value and its nested
children down to N levels, read inside the program.

A repr cuts nesting where its maker chose (pydevd's at two levels, reprlib
at six) and says nothing of an object's attributes (``<Node object at
0x...>``), so the tree is walked here instead: a container's items (a
dict's by key, a sequence's and a set's by position), an instance's
attributes (its ``__dict__`` and ``__slots__``), each with a short repr and
its type, each level bounded (:data:`WIDTH` children, then a count) and the
whole tree too (:data:`NODES`). pdb and debugpy both answer with it, so
they agree on what `print --depth` shows.

It runs in the *debuggee* (the pdb launcher loads it by its path, as
``_dbg_pytree``; so does a debugpy evaluate), so it imports only the
standard library and keeps to Python 3.8's syntax.
"""

from __future__ import annotations

import reprlib
import sys
import traceback
import types
from typing import Any

#: Its name as a module of the program's.
MODULE_NAME = "_dbg_pytree"

#: Children shown of one value; the rest are counted (``more``).
WIDTH = 20
#: Values shown in one tree, all levels together.
NODES = 400

_short = reprlib.Repr()
_short.maxlevel = 2
_short.maxstring = _short.maxother = 100
_short.maxlist = _short.maxtuple = _short.maxset = _short.maxdict = 6

_top = reprlib.Repr()
_top.maxlevel = 3
_top.maxstring = _top.maxother = 1000

#: dbgcore/inprogram/pyrepr.py, as dbg loads it into the program (before this).
_PYREPR = "_dbg_pyrepr"
_ordered: list[bool] = []

#: Values whose insides are not data: not opened.
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
           types.MethodType, types.CodeType, types.FrameType)
_SCALARS = (str, bytes, bytearray, int, float, complex, bool, type(None))


def _repr(value: Any, shown: reprlib.Repr) -> str:
    try:
        return shown.repr(value)
    except Exception as exc:  # a repr that raises is the program's bug
        return f"<repr failed: {type(exc).__name__}>"


def _type(value: Any) -> str:
    return type(value).__name__


def _children(value: Any) -> list[Any] | None:
    """(name, child) of ``value``'s parts, or None when it has none to show:
    a mapping's items by key, a sequence's and a set's by position, an
    instance's attributes."""
    if isinstance(value, _SCALARS + _OPAQUE):
        return None
    if isinstance(value, dict):
        return [(_repr(k, _short), v) for k, v in list(value.items())]
    if isinstance(value, (list, tuple, range)) or type(value).__name__ == "deque":
        return [(f"[{i}]", v) for i, v in enumerate(list(value))]
    if isinstance(value, (set, frozenset)):
        return [(f"[{i}]", v) for i, v in enumerate(list(value))]
    parts = []
    own = getattr(value, "__dict__", None)
    if isinstance(own, dict):
        parts = [(str(k), v) for k, v in list(own.items())]
    for klass in type(value).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in [slots] if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(value, name):
                parts.append((name, getattr(value, name)))
    return parts or None


def _node(value: Any, levels: int, budget: list[int]) -> dict[str, Any]:
    """``value``'s row and, ``levels`` deep, its children's."""
    row: dict[str, Any] = {"value": _repr(value, _short), "type": _type(value)}
    if levels <= 0:
        return row
    try:
        parts = _children(value)
    except Exception as exc:
        row["error"] = f"{type(exc).__name__}: {exc}"
        return row
    if not parts:
        return row
    shown = []
    for name, child in parts[:WIDTH]:
        if budget[0] <= 0:
            break
        budget[0] -= 1
        shown.append({"name": name, **_node(child, levels - 1, budget)})
    row["children"] = shown
    if len(parts) > len(shown):
        row["more"] = len(parts) - len(shown)
    return row


def tree_of(expression: str, depth: int, globals_: dict[str, Any],
            locals_: Any) -> dict[str, Any]:
    """The value of ``expression`` (evaluated in those namespaces) with its
    children ``depth`` levels deep; ``error``: the exception it raised."""
    pyrepr = sys.modules.get(_PYREPR)
    if pyrepr is not None and not _ordered:
        # reprlib sorts a dict's keys; pyrepr lists them as the program holds them.
        pyrepr.keep_order(_short)
        pyrepr.keep_order(_top)
        _ordered.append(True)
    try:
        value = eval(expression, globals_, locals_)
    except Exception as exc:
        said = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return {"error": said.splitlines()[-1] if said else type(exc).__name__}
    row = _node(value, depth, [NODES])
    row["value"] = _repr(value, _top)
    return row
