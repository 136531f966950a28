"""A stop as dbg is told of it: which frames are the program's, and what
the stop is at.

Whose code a frame runs (the debugger's: this folder, launch.py, bdb, pdb,
cmd; a library's: the standard library, an installed package; or the
program's), by dbg's own modules that run in the program (dbgcore/inprogram:
pyrepr, libfiles, pywatch, pytrace) loaded from the paths dbg gives; the
stack a stop shows; and an exception as a stop tells of it: the one line a
stop says, and the story `dbg exception` answers (the chain of causes, each
traceback as Python prints it, from the program's own first frame). A stop's
stack, a catch, a failing test's frame and the program's own traceback all
ask these same questions. The debugger decides when to stop; this module
says what the stop is at, and needs no pdb.Pdb to say it.
"""

from __future__ import annotations

import bdb
import os
import pdb
import sys
import traceback
from types import FrameType, ModuleType, TracebackType
from typing import TYPE_CHECKING, Any

from .values import _condition_errors, _error_line

if TYPE_CHECKING:  # (subscripted types: the program's Python may be 3.8)
    from collections.abc import Callable

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

