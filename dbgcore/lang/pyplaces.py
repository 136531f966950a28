"""Every place of a Python program's own code a function name means: the
one answer `dbg break FUNCTION`, `dbg list FUNCTION` and `dbg trace
FUNCTION` give on pdb and debugpy.

A name means a function or method whose qualified name it ends with, whole
part by whole part, the module's dotted name before it counting too:
``_load_templates`` means ``Renderer._load_templates``, ``normalize`` means
``normalize`` in any module, ``text.normalize`` the one in ``text.py`` or
``pkg/text.py``. Only the program's sources are searched (the files below
its folder, without virtual environments or installed packages: the
library rule of :mod:`dbgcore.inprogram.libfiles`), so a name the test
runner's code also defines (pytest's ``AssertionRewriter.assign``) means
the program's own when the program has it.
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass

from dbgcore.inprogram.libfiles import library_of
from dbgcore.lang.sourcefind import walk_sources
from dbgcore.lang.sourcetext import MAX_SOURCE_BYTES, SourceUnreadable, read_source

#: At most this many places are listed (and bound) for one name.
MAX_PLACES = 20


@dataclass(frozen=True)
class CodePlace:
    """A function of the program: its file, the line a breakpoint on it
    stops at (its first statement, after a docstring), its `def` line and
    its qualified name (``Renderer._load_templates``)."""

    file: str
    line: int
    def_line: int
    qualname: str

    def text(self, root: str | None = None) -> str:
        file = os.path.relpath(self.file, root) if root and self.file.startswith(
            root.rstrip(os.sep) + os.sep) else self.file
        return f"{self.qualname} at {file}:{self.line}"


def python_places(roots: Sequence[str], name: str, module: str | None = None) -> list[CodePlace]:
    """The functions of the program's sources below ``roots`` that ``name``
    (``f``, ``C.m``, ``mod.f``) means; with ``module`` (MODULE!FUNCTION),
    only those in a module whose dotted name ends with it. In file order."""
    wanted = [p for p in name.split(".") if p]
    if not wanted or not all(p.isidentifier() for p in wanted):
        return []
    found: dict[tuple[str, int], CodePlace] = {}
    for root in dict.fromkeys(os.path.realpath(r) for r in roots if r and os.path.isdir(r)):
        for path in walk_sources(root, (".py",)):
            real = os.path.realpath(path)
            if library_of(real, [], root) is not None:
                continue
            dotted = _dotted(real, root)
            if module and dotted != module and not dotted.endswith("." + module):
                continue
            for first, def_line, qualname in file_functions(real):
                full = [*dotted.split("."), *qualname.split(".")]
                if full[-len(wanted):] == wanted:
                    found.setdefault((real, first), CodePlace(real, first, def_line, qualname))
            if len(found) >= MAX_PLACES:
                return list(found.values())
    return list(found.values())


def _dotted(path: str, root: str) -> str:
    rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
    return rel.removesuffix(".__init__")


def file_functions(path: str) -> tuple[tuple[int, int, str], ...]:
    """(first statement's line, `def` line, qualified name) of every
    function and method of the Python file ``path``, in file order."""
    return _functions(path, *_stamp(path))


def _stamp(path: str) -> tuple[int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return 0, 0
    return info.st_mtime_ns, info.st_size


@functools.lru_cache(maxsize=256)
def _functions(path: str, mtime_ns: int, size: int) -> tuple[tuple[int, int, str], ...]:
    """(first statement's line, `def` line, qualified name without
    ``<locals>``) of every function in ``path``; cached on its stamp, as a
    tree of hundreds of files is searched at each `dbg break NAME`."""
    if not mtime_ns or size > MAX_SOURCE_BYTES:
        return ()
    try:
        tree = ast.parse(read_source(path), path)
    except (SourceUnreadable, SyntaxError, ValueError):
        return ()
    out: list[tuple[int, int, str]] = []

    def visit(nodes: list[ast.stmt], prefix: str) -> None:
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                body = node.body[0]
                if (isinstance(body, ast.Expr) and isinstance(body.value, ast.Constant)
                        and isinstance(body.value.value, str) and len(node.body) > 1):
                    body = node.body[1]  # a docstring is not where it stops
                out.append((body.lineno, node.lineno, prefix + node.name))
                visit(node.body, prefix + node.name + ".")
            else:
                # Defined under an `if`, `try` or `with`: still the module's.
                for child in ("body", "orelse", "finalbody", "handlers"):
                    for inner in getattr(node, child, None) or []:
                        if isinstance(inner, ast.ExceptHandler):
                            visit(inner.body, prefix)
                        elif isinstance(inner, ast.stmt):
                            visit([inner], prefix)

    visit(tree.body, "")
    return tuple(out)


def loaded_functions_expression(name: str, skipped: Sequence[str] = ("_dbg",)) -> str:
    """A Python expression (3.8 on, no names of the frame's) whose value is
    ``[[qualified name, file, def line], ...]``: the functions and methods
    named ``name`` in the modules the program has loaded, a library's among
    them (pytest's ``_pytest.assertion.rewrite.AssertionRewriter.assign``),
    but for modules whose names start with one of ``skipped`` (the
    debugger's own: dbg's helpers load as ``_dbg_...``). Only the types of
    values are looked at (``type(v)``, never ``isinstance``, which asks a
    lazily loaded module for its ``__class__`` and so loads it).
    :func:`outside_program` keeps those that are not the program's."""
    return (
        "[[n + '.' + q, f.__code__.co_filename, f.__code__.co_firstlineno] "
        "for m in list(__import__('sys').modules.values()) "
        "if type(m) is type(__import__('sys')) "
        "for d in [m.__dict__] for n in [str(d.get('__name__') or '')] "
        f"if not n.startswith({tuple(skipped)!r}) "
        f"for q, f in [({name!r}, d.get({name!r}))] + "
        f"[(k + '.' + {name!r}, vars(v).get({name!r})) for k, v in list(d.items()) "
        "if issubclass(type(v), type) and getattr(v, '__module__', None) == n] "
        "if type(f) is type(lambda: 0) and getattr(f, '__module__', n) == n]"
        f"[:{MAX_PLACES}]")


def outside_program(answer: object, roots: Sequence[str]) -> list[CodePlace]:
    """The places of :func:`loaded_functions_expression`'s value (already
    read as a list) that are not the program's own code: a library's file,
    or one outside the program's folders."""
    if not isinstance(answer, list):
        return []
    real_roots = [os.path.realpath(r) for r in roots if r]
    out: dict[tuple[str, int], CodePlace] = {}
    for item in answer:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[1], str)
                and isinstance(item[2], int) and isinstance(item[0], str)):
            continue
        qualname, file, line = item
        real = os.path.realpath(file) if os.path.isabs(file) else file
        mine = any(real.startswith(r.rstrip(os.sep) + os.sep) and library_of(real, [], r) is None
                   for r in real_roots)
        if not mine:
            out.setdefault((real, line), CodePlace(real, line, line, qualname))
    return list(out.values())
