"""How dbg shows a Python program's values and exceptions, from inside it.

Bounded reprs of the program's values in the value's own order:
:class:`reprlib.Repr` cuts a repr short, as dbg wants at every stop, but it
also sorts a dict's keys and a set's items: ``{'zeta': 1, 'alpha': 2}``
came out as ``{'alpha': 2, 'zeta': 1}``, which is not what the program
holds (a dict keeps its insertion order, and a bug can hang on it).
:func:`keep_order` makes a ``Repr`` list them as ``repr()`` does. And
what Python's traceback says of an exception that pdb's and debugpy's own
texts do not: :func:`exception_rows` (its causes, a never-raised one too),
:func:`worker_place` (where a pool's worker raised it).

It runs in the *debuggee* (the pdb launcher loads it by file path, as
``_dbg_pyrepr``; so do dbg's tracer and debugpy's evaluates), so it imports
only the standard library and keeps to Python 3.8's syntax.
"""

from __future__ import annotations

import itertools
import re
import reprlib
import traceback
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


# -- exceptions: what Python's own traceback would say of them ---------------------


def worker_place(exc: BaseException) -> str:
    """Where a worker process raised ``exc``, as "FUNCTION at FILE:LINE":
    multiprocessing (and concurrent.futures) re-raise a worker's exception
    in the parent with the worker's traceback as the text of a cause that
    was never raised (RemoteTraceback); "" for any other exception."""
    cause = exc.__cause__
    if cause is None or cause.__traceback__ is not None:
        return ""
    found = _TRACEBACK_FRAME_RE.findall(str(cause))
    if not found:
        return ""
    path, line, function = found[-1]
    return f"{function} at {path}:{line}"


def exception_rows(exc: BaseException) -> list[object]:
    """``exc``'s causes, outermost first, and its own traceback, as JSON can
    hold them: ``[causes, entries]``, each cause ``[type's name, text,
    relation to the next ("cause" or "context"), its traceback's entries,
    its line(s) as Python prints them]``, each entry ``[file, line,
    function, code]``. Python's own rules: ``__cause__`` first, an
    unsuppressed ``__context__`` else, each exception once."""
    causes: list[object] = [
        [type(cause).__name__, str(cause), relation, _entries(cause.__traceback__),
         "".join(traceback.format_exception_only(type(cause), cause))]
        for cause, relation in chain(exc)]
    return [causes, _entries(exc.__traceback__)]


def chain(exc: BaseException) -> list[tuple[BaseException, str]]:
    """The exceptions before ``exc`` in its chain, outermost cause first,
    each with how it leads to the next ("cause" or "context"), by Python's
    own rules: ``__cause__`` first, an unsuppressed ``__context__`` else,
    each exception once."""
    found: list[tuple[BaseException, str]] = []
    seen = {id(exc)}
    current = exc
    while True:
        if current.__cause__ is not None:
            following, relation = current.__cause__, "cause"
        elif current.__context__ is not None and not current.__suppress_context__:
            following, relation = current.__context__, "context"
        else:
            break
        if id(following) in seen:
            break
        seen.add(id(following))
        found.insert(0, (following, relation))
        current = following
    return found


def _entries(tb: types.TracebackType | None) -> list[list[object]]:
    return [[f.filename, f.lineno, f.name, f.line or ""] for f in traceback.extract_tb(tb)]


#: A frame of a traceback as Python prints it.
_TRACEBACK_FRAME_RE = re.compile(r'^  File "(.*)", line (\d+), in (.*)$', re.M)
