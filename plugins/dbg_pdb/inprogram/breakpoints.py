"""Where the program stops, as dbg asks for it: pdb's breakpoints listed,
a condition compiled in the program's own Python, a function found in a
module's source (and a decorated function's first line, where bdb looks),
`dbg watch`'s expressions and `dbg catch`'s exceptions. Apart from the
debugger class because these are the rules of each kind of stop; the
debugger's trace hooks ask them when an event comes.
"""

from __future__ import annotations

import ast
import bdb
import os
import sys
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any

from .stops import _debugger_frame, _library_file, _load_helper
from .values import _error_line

if TYPE_CHECKING:  # (subscripted types: the program's Python may be 3.8)
    from collections.abc import Iterable

    from _typeshed import ExcInfo

    #: What the launcher tells dbg: JSON.
    JsonObject = dict[str, Any]


#: Exceptions that end a loop, a generator or the program the usual way: a
#: catch of every exception (`raised`) passes them by; naming one catches it.
_FLOW = (StopIteration, StopAsyncIteration, GeneratorExit, SystemExit)


class _Catch:
    """What `dbg catch` stops on: exceptions of the named classes (or their
    subclasses; a name without a module is any class of that name, a builtin
    one among them), or all of them (`raised`), in the program's own code
    (in any code with ``all_code``)."""

    def __init__(self, names: Iterable[object], raised: bool, all_code: bool) -> None:
        self.names = frozenset(str(n) for n in names)
        self.raised = bool(raised)
        self.all_code = bool(all_code)

    def matches(self, kind: object) -> bool:
        if not isinstance(kind, type):
            return False
        for cls in kind.__mro__:
            qualname = getattr(cls, "__qualname__", cls.__name__)
            if qualname in self.names or "%s.%s" % (cls.__module__, qualname) in self.names:
                return True
        return self.raised and not issubclass(kind, _FLOW)

    def code(self, frame: FrameType) -> bool:
        return self.all_code or not _library_file(frame.f_code.co_filename)

    def stops_at(self, frame: FrameType, arg: ExcInfo) -> bool:
        """Whether this catch stops at this exception event: one of its classes,
        in the first frame of the program's own code it reaches (of any
        code's with --all-code), which is where it was raised unless it came
        out of a library."""
        kind, _, tb = arg
        if not self.matches(kind) or _debugger_frame(frame) or not self.code(frame):
            return False
        inner = tb.tb_next if tb is not None and tb.tb_frame is frame else tb
        while inner is not None:
            if not _debugger_frame(inner.tb_frame) and self.code(inner.tb_frame):
                return False  # it was there first
            inner = inner.tb_next
        return True


def _loaded_classes(name: str) -> list[type]:
    """The exception classes called ``name``: the builtin one, or those of
    the modules loaded now."""
    import builtins

    found = [getattr(builtins, name, None)]
    if not isinstance(found[0], type):
        found = [vars(m).get(name) for m in list(sys.modules.values()) if m is not None]
    return [c for c in found if isinstance(c, type) and issubclass(c, BaseException)]


#: A source file larger than this is not parsed (dbg's bound for sources).
MAX_SOURCE_BYTES = 8 * 1024 * 1024


def _read_source(path: str) -> str:
    """The text of the regular file ``path`` of at most MAX_SOURCE_BYTES;
    OSError for anything else (a FIFO must not block, /dev/zero not fill
    memory)."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
            raise OSError("%s is not a regular file of at most %d bytes"
                          % (path, MAX_SOURCE_BYTES))
        data = os.read(fd, MAX_SOURCE_BYTES + 1)
    finally:
        os.close(fd)
    return data.decode("utf-8")


def _first_decorator_line(filename: str, def_line: int) -> int:
    """The line of the first decorator of the function defined at ``def_line``
    (``def_line`` itself when it has none, or the file cannot be parsed)."""
    try:
        tree = ast.parse(_read_source(filename), filename)
    except (OSError, SyntaxError, ValueError):
        return def_line
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.lineno == def_line and node.decorator_list:
            return min(d.lineno for d in node.decorator_list)
    return def_line


def breakpoint_list() -> list[JsonObject]:
    """pdb's breakpoints, as dbg's breakpoint table reads them."""
    out = []
    for bp in bdb.Breakpoint.bpbynumber:
        if bp is None:
            continue
        out.append({"id": bp.number, "file": bp.file, "line": bp.line,
                    "function": bp.funcname, "condition": bp.cond, "hits": bp.hits,
                    "ignore": bp.ignore, "temporary": bool(bp.temporary),
                    "enabled": bool(bp.enabled)})
    return out


def compiled(condition: str) -> JsonObject:
    """Whether a condition compiles, in the program's own Python."""
    try:
        compile(condition, "<condition>", "eval")
    except SyntaxError as exc:
        return {"error": "%s: %s" % (type(exc).__name__, exc.msg)}
    return {}


def find_function(module: str, function: str) -> JsonObject:
    """Where ``function`` (``Class.method`` too) is defined in ``module``'s
    source, found without importing the module."""
    try:
        import importlib.util

        spec = importlib.util.find_spec(module)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            raise LookupError("module %s has no Python source" % module)
        tree = ast.parse(_read_source(spec.origin), spec.origin)
        parts = function.split(".")
        nodes = tree.body
        found = None
        for part in parts:
            found = next((n for n in nodes if isinstance(
                n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part),
                None)
            if found is None:
                raise LookupError("no function %s in module %s" % (function, module))
            nodes = found.body
        assert found is not None
        return {"file": spec.origin, "line": found.lineno}
    except BaseException as exc:
        return {"error": _error_line(exc)}


class Watches:
    """`dbg watch`: dbgcore/inprogram/pywatch.py loaded from the path dbg
    gives (it keeps each watch's frame, code and last value), and the
    watches by id."""

    def __init__(self) -> None:
        self.pywatch: ModuleType | None = None
        self.expressions: dict[int, str] = {}

    def __bool__(self) -> bool:
        """Whether any watch is set (the trace must then see line events)."""
        return bool(self.expressions)

    def add(self, path: str, number: int, expression: str,
            frame: FrameType | None, post_mortem: bool) -> JsonObject:
        """Watch ``expression`` in ``frame``; what `dbg watch` answers."""
        try:
            if frame is None or post_mortem:
                raise LookupError("no running frame to watch in")
            if self.pywatch is None:
                self.pywatch = _load_helper("_dbg_pywatch", path)
            placed = self.pywatch.add(number, expression, frame=frame)
        except BaseException as exc:
            said = str(exc) if type(exc).__name__ == "WatchRefused" else _error_line(exc)
            return {"error": said}
        self.expressions[number] = expression
        return dict(placed, expression=expression)

    def remove(self, number: int) -> None:
        self.expressions.pop(number, None)
        if self.pywatch is not None:
            self.pywatch.remove(number)

    def changed(self, frame: FrameType) -> list[int]:
        """The watches whose value changed by the line that ran in ``frame``."""
        if not self.expressions or self.pywatch is None:
            return []
        check = self.pywatch.check
        return [number for number in self.expressions if check(number, frame)]

    def listed(self) -> list[JsonObject]:
        if not self.expressions or self.pywatch is None:
            return []
        gone = set(self.pywatch.not_running(list(self.expressions)))
        return [{"id": number, "expression": expression, "running": number not in gone}
                for number, expression in self.expressions.items()]
