"""How pydevd shows a Python program's values and frames, in dbg's terms:
the rows of a scope that are pydevd's own, the folds of a long container,
the note it adds to an exception's name, the frames that are not the
program's calls, and a frame's arguments (pydevd shows no arguments scope).

Stateless: the profile hands each question here as it comes."""

from __future__ import annotations

import ast
import json
import os
import re

from dbg_dap.debugpy.answers import program_repr
from dbg_dap.host import AdapterHost
from dbgcore.api import Message, Variable

#: Rows debugpy adds to a value's children that are not children of it.
DEBUGPY_GROUPS = frozenset({"special variables", "function variables", "class variables",
                            "protected variables", "len()"})
_BUCKET_RE = re.compile(r"\[(\d+):(\d+)\]")
_NOTE_RE = re.compile(r"\s+\(note: (.*)\)\s*$", re.S)


def noise_variable(var: Message) -> bool:
    """Whether a row of a scope is pydevd's own, not the program's variable."""
    # pydevd groups "special variables" / "function variables" as
    # synthetic rows, and lists dunder names among a scope's variables.
    name = str(var.get("name", ""))
    return name in ("special variables", "function variables", "class variables") or (
        name.startswith("__") and name.endswith("__") and name != "__return__")


def child_kind(row: Message) -> str:
    """A child row's kind: "group" (pydevd's own), "fold" (more items), "item"."""
    name, value = str(row.get("name", "")), str(row.get("value", ""))
    if name in DEBUGPY_GROUPS:
        return "group"
    # pydevd shows the first 100 items of a long container, then a row
    # "more" (value "..." or "[100:150]") whose children are the rest, in
    # buckets of 1000 named "[100:1100]", "[1100:2100]"...
    if row.get("variablesReference") and (
            (name == "more" and (value == "..." or _BUCKET_RE.fullmatch(value)))
            or _BUCKET_RE.fullmatch(name)):
        return "fold"
    return "item"


def fold_size(row: Message) -> int | None:
    """How many items a fold row of pydevd's holds (None: it does not say)."""
    for text in (str(row.get("name", "")), str(row.get("value", ""))):
        bucket = _BUCKET_RE.fullmatch(text)
        if bucket:
            return int(bucket.group(2)) - int(bucket.group(1))
    return None


def split_exception_note(text: str) -> tuple[str, str]:
    """An exception's name and the note pydevd appended to it ("": none)."""
    # pydevd appends "       (note: full exception trace is shown but
    # execution is paused at: <frame>)" to an uncaught exception's type.
    note = _NOTE_RE.search(text)
    return (text[:note.start()], note.group(1)) if note else (text, "")


def internal_frame(frame: Message) -> bool:
    """Whether a frame is the runner's (runpy) or debugpy's, not the program's."""
    path = str((frame.get("source") or {}).get("path") or "")
    return path.endswith(os.sep + "runpy.py") or f"{os.sep}debugpy{os.sep}" in path


def pseudo_frame(frame: Message) -> bool:
    """Whether a frame is no call but a line of a cause's traceback."""
    # At an exception with a cause, pydevd lists the cause's traceback
    # after the stack, as frames named "[Chained Exc: MESSAGE] FUNCTION":
    # `dbg exception` shows the chain; the stack is the calls.
    return str(frame.get("name", "")).startswith("[Chained Exc: ")


def generator_frame(frame: Message) -> bool:
    """Whether a frame runs a generator (a finish there goes by its yields)."""
    from dbgcore.api import python_is_generator

    path = str((frame.get("source") or {}).get("path") or "")
    return path.endswith(".py") and python_is_generator(path, int(frame.get("line") or 0))


def frame_name(name: str | None) -> str | None:
    """The function of a frame that the adapter named ``name``."""
    # pydevd adds " (Current frame)" to the frame an exception stop is
    # reported in: not part of the function's name.
    return name.removesuffix(" (Current frame)") if name else name


def frame_args(backend: AdapterHost, frame: Message, function: str | None,
               timeout: float) -> list[Variable] | None:
    """The arguments of ``frame``, which runs ``function``."""
    # pydevd shows no arguments scope: the names come from the function's
    # `def` line, the values from one evaluate in the frame, cut short
    # there so a million-element list costs nothing.
    from dbgcore.api import DbgError, python_parameters

    names = python_parameters((frame.get("source") or {}).get("path"), frame.get("line"),
                              function)
    if not names:
        return None if names is None else []
    probe = ("(lambda L, r: (setattr(r, 'maxstring', 60), setattr(r, 'maxother', 60), "
             "__import__('json').dumps([[n, r.repr(L[n]), type(L[n]).__name__] "
             f"for n in {names!r} if n in L]))[-1])(locals(), {program_repr()})")
    try:
        rows = json.loads(ast.literal_eval(backend.evaluate_in(frame, probe, timeout)))
    except (DbgError, ValueError, SyntaxError, TypeError):
        return None
    return [Variable(str(n), str(v), str(t)) for n, v, t in rows]
