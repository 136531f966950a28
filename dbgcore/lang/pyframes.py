"""What dbg tells about a Python program's frames without asking the
program much: which are a library's (the standard library's or an installed
package's, site-packages or dist-packages) rather than the program's own
code, and what a function's parameters are called. pdb and debugpy both ask
it; the standard library's folders come from the debuggee's own interpreter
(:data:`STDLIB_EXPRESSION`).
"""

from __future__ import annotations

import ast
import functools
import json
import os

from dbgcore.inprogram import libfiles

#: A Python expression (3.8 and newer, no names of the frame's) whose value
#: is JSON text: the interpreter's standard library folders.
STDLIB_EXPRESSION = ("__import__('json').dumps(sorted({__import__('sysconfig').get_path(k) "
                     "for k in ('stdlib', 'platstdlib')}))")


class PythonLibraries:
    """Tells a library's frame by its file: below a site-packages or
    dist-packages folder (always a library, even in a virtualenv inside the
    program's folder), or below the standard library's folders (unless the
    program itself lives there)."""

    def __init__(self, stdlib: list[str], program_root: str | None) -> None:
        self.stdlib = [os.path.normpath(p) for p in stdlib if p]
        self.program_root = os.path.normpath(program_root) if program_root else None
        self._known: dict[str, str | None] = {}

    @staticmethod
    def stdlib_from(answer: str) -> list[str]:
        """The folders in the answer to :data:`STDLIB_EXPRESSION` (the
        debugger's rendering of a string: its repr); none if unreadable."""
        try:
            text = ast.literal_eval(answer)
            found = json.loads(text) if isinstance(text, str) else text
        except (ValueError, SyntaxError, TypeError):
            return []
        return [str(p) for p in found if isinstance(p, str)] if isinstance(found, list) else []

    def library_of(self, path: str | None) -> str | None:
        """The name of the library ``path`` belongs to (its top-level
        package or module: ``_pytest``, ``unittest``, ``runpy``), or None
        for the program's own code: by the rule the program's side asks
        too (:func:`dbgcore.inprogram.libfiles.library_of`)."""
        if not path:
            return None
        if path not in self._known:
            self._known[path] = libfiles.library_of(path, self.stdlib, self.program_root)
        return self._known[path]


def python_parameters(path: str | None, line: int | None, function: str | None) -> list[str] | None:
    """The parameters of the function named ``function`` whose code holds
    ``line`` of ``path``, in the order its `def` gives them (positional,
    *args, keyword-only, **kwargs); [] for module or class code and
    comprehensions; None when the source does not say."""
    if not function or not path or not line:
        return None
    if function in ("<module>", "<genexpr>", "<listcomp>", "<setcomp>", "<dictcomp>"):
        return []
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return None
    found = [(first, last, names) for first, last, name, names in _definitions(path, stamp)
             if name == function and first <= line <= last]
    if not found:
        return None
    return list(min(found, key=lambda d: d[1] - d[0])[2])


@functools.lru_cache(maxsize=64)
def _definitions(path: str, stamp: int) -> tuple[tuple[int, int, str, tuple[str, ...]], ...]:
    """Every function, lambda and class of a file: its lines, its name and
    its parameters (a class: none)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as source:
            tree = ast.parse(source.read(), path)
    except (OSError, SyntaxError, ValueError):
        return ()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            names = [p.arg for p in [*a.posonlyargs, *a.args]]
            names += [a.vararg.arg] if a.vararg else []
            names += [p.arg for p in a.kwonlyargs]
            names += [a.kwarg.arg] if a.kwarg else []
            name = node.name if not isinstance(node, ast.Lambda) else "<lambda>"
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            out.append((first, node.end_lineno or node.lineno, name, tuple(names)))
        elif isinstance(node, ast.ClassDef):
            out.append((node.lineno, node.end_lineno or node.lineno, node.name, ()))
    return tuple(out)
