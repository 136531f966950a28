"""Where the program stops, and what a stop is at.

Whose code a frame runs (the debugger's: this folder, launch.py, bdb, pdb,
cmd; a library's: the standard library, an installed package; or the
program's), by dbg's own modules that run in the program (dbgcore/inprogram:
pyrepr, libfiles, pywatch, pytrace) loaded from the paths dbg gives. What a
stop says: the stack it shows, its reason (:class:`StopReport`, gathered by
the debugger's hooks), and the exception it is at: the one line a stop says,
and the story `dbg exception` answers (the chain of causes, each traceback
as Python prints it, from the program's own first frame). What makes a stop,
as dbg asks for it: pdb's breakpoints listed, a condition compiled in the
program's own Python, a function found in a module's source (and a decorated
function's first line, where bdb looks), `dbg watch`'s expressions
(:class:`Watches`) and `dbg catch`'s exceptions (:class:`_Catch`).

Apart from the debugger class because these are the rules; the debugger's
hooks decide when to stop and ask them. One module rather than one for the
stop report and one for breakpoints: each file is read at every start.
"""

from __future__ import annotations

import ast
import bdb
import os
import pdb
import sys
import traceback
from types import FrameType, ModuleType, TracebackType
from typing import TYPE_CHECKING, Any

from .values import _condition_errors, _error_line

if TYPE_CHECKING:  # (subscripted types: the program's Python may be 3.8)
    from collections.abc import Callable, Iterable

    from _typeshed import ExcInfo

    #: What the launcher tells dbg: JSON.
    Json = Any
    JsonObject = dict[str, Json]
    #: pdb's stack: each frame with the line it is at, outermost first.
    Stack = list[tuple[FrameType, int]]


#: This folder: every frame of a file in it is the launcher's own.
FOLDER = os.path.dirname(os.path.abspath(__file__))
_IN_FOLDER = FOLDER + os.sep
#: launch.py, which the backend runs: it loads this folder from its bytecode.
BOOT = os.path.join(os.path.dirname(FOLDER), "launch.py")


def _internal(frame: FrameType) -> bool:
    return _internal_file(frame.f_code.co_filename)


def _internal_file(name: str) -> bool:
    return name.startswith(_IN_FOLDER) or name in (BOOT, "<string>") or name == bdb.__file__


def _debugger_frame(frame: FrameType) -> bool:
    """A frame of the debugger's own (this launcher, bdb, pdb, cmd)."""
    return _internal(frame) or frame.f_code.co_filename in _DEBUGGER_FILES


_DEBUGGER_FILES = frozenset(os.path.abspath(getattr(m, "__file__", "") or "")
                            for m in (pdb, bdb, sys.modules.get("cmd")) if m is not None)


def _library_file(path: str) -> bool:
    """Whether ``path`` is the standard library's or an installed package's
    (below a site-packages or dist-packages folder), not the program's: by
    dbgcore/inprogram/libfiles.py, loaded from pyrepr's folder. (A launcher
    started without pyrepr's path, not by dbg: code with no file only.)"""
    if _libfiles is None:
        return path.startswith("<")
    found: bool = _libfiles.library_file(path)
    return found



#: dbgcore/inprogram/pyrepr.py in the program, once dbg has said where it
#: is, and libfiles.py beside it.
_pyrepr: ModuleType | None = None
_libfiles: ModuleType | None = None


def load_core_helpers(pyrepr_path: str) -> ModuleType:
    """pyrepr from the path dbg gives, and libfiles beside it; pyrepr."""
    global _pyrepr, _libfiles
    _pyrepr = _load_helper("_dbg_pyrepr", pyrepr_path)
    _libfiles = _load_helper("_dbg_libfiles",
                             os.path.join(os.path.dirname(pyrepr_path), "libfiles.py"))
    return _pyrepr


def _load_helper(name: str, path: str) -> ModuleType:
    """One of dbgcore's modules that run in the program (pywatch, pytrace,
    pyrepr, libfiles), from the path dbg gives (dbg's package is not on the program's
    path), as a module of its own: ``name`` in sys.modules."""
    import importlib.util

    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %s" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # dbg's own bytecode is written even where the program's is not (as
    # launch.py does for this file): not compiled again at every start.
    dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, False
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = dont_write
    return module


def user_frames(stack: Stack) -> list[tuple[int, tuple[FrameType, int]]]:
    """The program's frames of pdb's ``stack``, each with its index there."""
    return [(i, entry) for i, entry in enumerate(stack) if not _internal(entry[0])]


def stack_report(stack: Stack, current: int,
                 canonic: Callable[[str], str]) -> list[JsonObject]:
    """The program's frames of ``stack``, innermost first, as a stop tells
    them: the one at ``current`` (pdb's curindex) is the selected one."""
    frames = []
    for position, (i, (frame, lineno)) in enumerate(reversed(user_frames(stack))):
        frames.append({
            "index": position,
            "function": frame.f_code.co_name,
            "file": canonic(frame.f_code.co_filename),
            "line": lineno,
            "current": i == current,
        })
    return frames


class StopReport:
    """What the next stop's report says beside its stack, gathered by the
    debugger's hooks while the program runs to it (a pause asked, a value
    `finish` brought back, an exception a step went through or a catch
    stopped at, the watches that changed); :meth:`said` tells it and starts
    gathering for the next stop. Apart from the debugger so that the reason
    of a stop is decided in one place, whichever hook made it."""

    def __init__(self) -> None:
        self.first = True
        #: SIGINT came (`dbg pause`) since the last stop.
        self.interrupted = False
        #: What the frame `finish` ran out of gave back.
        self.returned: JsonObject | None = None
        #: An exception a step, next or finish went through, as its stop says it.
        self.passed_note = ""
        #: The description of the stop a `dbg catch` made.
        self.catch_note = ""
        #: The post mortem stop's exception: its line, and its story as
        #: `dbg exception` tells it (_exception_info's).
        self.exception_text = ""
        self.exception_info: JsonObject | None = None
        #: The watches whose value changed at this stop.
        self.watch_hits: list[int] = []

    def describe(self, exc: BaseException, shown: TracebackType | None) -> None:
        """The exception a post mortem stop is at (``shown``: its traceback
        from the program's own first frame)."""
        worker = _pyrepr.worker_place(exc) if _pyrepr is not None else ""
        self.exception_text = _exception_line(exc) + (
            " (raised in %s, in a worker process)" % worker if worker else "")
        self.exception_info = _exception_info(exc, shown)

    def said(self, current: FrameType | None, breakpoint: int,
             post_mortem: bool) -> JsonObject:
        """The stop's reason and what goes with it: ``current``, the frame
        it is in; ``breakpoint``, the number of the one bdb stopped at (0:
        none)."""
        data: JsonObject = {}
        broken = _condition_errors[:1]
        del _condition_errors[:]
        if self.returned is not None:
            reason = "step"
            data["return_value"] = self.returned
            self.returned = None
        elif post_mortem or self.catch_note:
            reason = "exception"
        elif self.first:
            reason = "entry"
        elif self.interrupted:
            reason = "pause"
        elif self.watch_hits:
            reason = "watchpoint"
        elif breakpoint:
            reason = "condition_error" if broken else "breakpoint"
        elif current is not None and "__return__" in current.f_locals:
            reason = "return"
        else:
            reason = "step"
        data["reason"] = reason
        data["breakpoint"] = breakpoint or None
        data["watches"], self.watch_hits = self.watch_hits, []
        note = self._note(post_mortem)
        data["description"] = broken[0] if reason == "condition_error" else note
        data["post_mortem"] = post_mortem
        self.first = False
        self.interrupted = False
        return data

    def _note(self, post_mortem: bool) -> str:
        """The description of this stop: the exception it is at, or the one
        the step that led here went through (once)."""
        note = self.passed_note
        self.passed_note = ""
        if post_mortem:
            return self.exception_text
        return self.catch_note or note


def _exception_line(exc: BaseException) -> str:
    """A stop's description of ``exc``: its class and its message's first
    line (a pytest assertion's message goes on over several)."""
    message = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, message[0]) if message else type(exc).__name__


def _raised_at(tb: TracebackType | None) -> str:
    """Where the exception of traceback ``tb`` was raised: "FUNCTION at FILE:LINE"."""
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    code = tb.tb_frame.f_code
    return "%s at %s:%d" % (code.co_name, code.co_filename, tb.tb_lineno)


def _passing_note(exc_info: ExcInfo, here: FrameType | None = None) -> str:
    """One line for a stop an exception led to: what it is, and where it
    was raised unless that is ``here``."""
    kind, value, tb = exc_info
    text = _exception_line(value) if isinstance(value, BaseException) else getattr(
        kind, "__name__", str(kind))
    last = tb
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if last is None or last.tb_frame is here:
        return text
    return "%s (raised in %s)" % (text, _raised_at(tb))


def _from_program(tb: TracebackType | None) -> TracebackType | None:
    """``tb`` from the first frame of the program's own code: without the
    runner's frames (pytest's, unittest's) above the test. If no frame is
    the program's, from the first one that is not the debugger's."""
    entry = tb
    while entry is not None:
        frame = entry.tb_frame
        if not _debugger_frame(frame) and not _library_file(frame.f_code.co_filename):
            return entry
        entry = entry.tb_next
    entry = tb
    while entry is not None and _debugger_frame(entry.tb_frame):
        entry = entry.tb_next
    return entry if entry is not None else tb


_CAUSE = "The above exception was the direct cause of the following exception:"
_CONTEXT = "During handling of the above exception, another exception occurred:"


def _exception_info(exc: BaseException, shown: TracebackType | None,
                    here: FrameType | None = None) -> JsonObject:
    """What `dbg exception` says: the exception, and its traceback as Python
    prints it, causes first (without the final line, which is the
    exception, said first). ``shown`` is its traceback from the program's
    first frame; ``here`` (a stop where it was just raised or reached): the
    frames that lead to it are the stack's, not the traceback's."""
    # (Without pyrepr, which dbg always names: the exception alone.)
    chain = _pyrepr.chain(exc) if _pyrepr is not None else []
    blocks = []
    for cause, relation in chain:
        blocks.append(_traceback_block(cause.__traceback__) + [_error_line(cause), ""])
        blocks.append([_CAUSE if relation == "cause" else _CONTEXT, ""])
    if here is not None:
        entries = [e for e in traceback.extract_stack(here)
                   if not _internal_file(e.filename)] + \
            list(traceback.extract_tb(shown.tb_next if shown is not None else None))
        blocks.append(_format_entries(_program_entries(entries)))
    else:
        blocks.append(_traceback_block(shown))
    return {"exception": type(exc).__name__, "description": str(exc),
            "stack": "\n".join(line for block in blocks for line in block).rstrip("\n"),
            "chain": [{"exception": type(c).__name__, "description": str(c), "relation": r}
                      for c, r in chain]}



def _program_entries(entries: list[traceback.FrameSummary]) -> list[traceback.FrameSummary]:
    """Stack entries without the runner's ones above the program's first."""
    for index, entry in enumerate(entries):
        if not _library_file(entry.filename):
            return entries[index:]
    return entries


def _traceback_block(tb: TracebackType | None) -> list[str]:
    if tb is None:
        # Never raised (multiprocessing's RemoteTraceback, made to be a
        # cause): Python prints its line alone.
        return []
    entries = [e for e in traceback.extract_tb(tb) if not _internal_file(e.filename)]
    return _format_entries(entries)


def _format_entries(entries: list[traceback.FrameSummary]) -> list[str]:
    lines = ["Traceback (most recent call last):"]
    for text in traceback.format_list(entries):
        # Without the carets Python 3.11 puts under part of a line.
        lines += [line for line in text.rstrip("\n").split("\n") if line.strip(" ^~")]
    return lines


# -- what makes a stop: breakpoints, conditions, catches, watches -----------------------------


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
