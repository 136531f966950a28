"""Exceptions as dbg tells of them: what `dbg catch` stops on, the one
line a stop says of an exception, and the story `dbg exception` answers
(the chain of causes, each traceback as Python prints it, from the
program's own first frame). The debugger decides when to stop; this module
says what the stop is at.
"""

from __future__ import annotations

import sys
import traceback
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any

from . import files
from .files import _debugger_frame, _internal_file, _library_file
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


def _loaded_classes(name: str) -> list[type]:
    """The exception classes called ``name``: the builtin one, or those of
    the modules loaded now."""
    import builtins

    found = [getattr(builtins, name, None)]
    if not isinstance(found[0], type):
        found = [vars(m).get(name) for m in list(sys.modules.values()) if m is not None]
    return [c for c in found if isinstance(c, type) and issubclass(c, BaseException)]



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
    chain = files._pyrepr.chain(exc) if files._pyrepr is not None else []
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

