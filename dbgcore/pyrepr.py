"""Bounded reprs of a Python program's values in the value's own order.

:class:`reprlib.Repr` cuts a repr short, as dbg wants at every stop, but it
also sorts a dict's keys and a set's items: ``{'zeta': 1, 'alpha': 2}``
came out as ``{'alpha': 2, 'zeta': 1}``, which is not what the program
holds (a dict keeps its insertion order, and a bug can hang on it).
:func:`keep_order` makes a ``Repr`` list them as ``repr()`` does.

It runs in the *debuggee* (the pdb launcher loads it by file path, as
``_dbg_pyrepr``; so do dbg's tracer and debugpy's evaluates), so it imports
only the standard library and keeps to Python 3.8's syntax.
"""

from __future__ import annotations

import itertools
import reprlib
import types

MODULE_NAME = "_dbg_pyrepr"


def keep_order(shown: reprlib.Repr) -> reprlib.Repr:
    """``shown``, now listing dicts, sets and frozensets in their own order."""
    shown.repr_dict = types.MethodType(_repr_dict, shown)  # type: ignore[method-assign]
    shown.repr_set = types.MethodType(_repr_set, shown)  # type: ignore[method-assign]
    shown.repr_frozenset = types.MethodType(_repr_frozenset, shown)  # type: ignore[method-assign]
    return shown


def _fill(shown: reprlib.Repr) -> str:
    return str(getattr(shown, "fillvalue", "..."))  # an attribute from 3.11 on


def _repr_dict(shown: reprlib.Repr, value: dict, level: int) -> str:  # type: ignore[type-arg]
    if not value:
        return "{}"
    if level <= 0:
        return "{" + _fill(shown) + "}"
    pieces = [f"{shown.repr1(key, level - 1)}: {shown.repr1(item, level - 1)}"
              for key, item in itertools.islice(value.items(), shown.maxdict)]
    if len(value) > shown.maxdict:
        pieces.append(_fill(shown))
    return "{" + ", ".join(pieces) + "}"


def _repr_set(shown: reprlib.Repr, value: set, level: int) -> str:  # type: ignore[type-arg]
    if not value:
        return "set()"
    return str(shown._repr_iterable(value, level, "{", "}",  # type: ignore[attr-defined]
                                    shown.maxset))


def _repr_frozenset(shown: reprlib.Repr, value: frozenset, level: int) -> str:  # type: ignore[type-arg]
    if not value:
        return "frozenset()"
    return str(shown._repr_iterable(value, level, "frozenset({", "})",  # type: ignore[attr-defined]
                                    shown.maxfrozenset))
