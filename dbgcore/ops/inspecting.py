"""What the inspection ops (stack, frames, variables, source: their
handlers are in :mod:`dbgcore.ops.inspection`) share with :mod:`dbgcore.daemon.session`:
which frames to show, how long a value may be, where a file is.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from dbgcore.shared.errors import UsageError
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.vocab.model import Frame, Variable
from dbgcore.vocab.opspec import breaks_line

if TYPE_CHECKING:
    from dbgcore.backends.contract import LaunchRequest

#: ``dbg locals`` cuts single values at this length: a frame holding a
#: million-element list and a 10 MB string still answers in a few KB.
LOCALS_VALUE_CHARS = 1000
#: Values shown for several expressions at once are cut at this length.
SHOWN_VALUE_CHARS = 400
#: `dbg stack` cuts each argument's value at this length.
ARG_VALUE_CHARS = 60


def one_line(text: str) -> str:
    # A newline would let a second command reach a line-oriented debugger.
    if breaks_line(text):
        raise UsageError("the text must be a single line",
                         "remove the newline; send one command at a time")
    if not text.strip():
        raise UsageError("the text is empty")
    return text


def program_frames(frames: list[Frame]) -> list[Frame]:
    """The stack without its outermost run of internal frames (the runner's,
    the debugger's, the runtime's: runpy, __libc_start_main, runtime.main).
    Library frames stay: stop snapshots record this stack, and `finish`
    checks against it (a test's caller is the test runner's frame)."""
    end = len(frames)
    while end > 1 and frames[end - 1].internal:
        end -= 1
    return frames[:end]


def shown_frames(frames: list[Frame]) -> tuple[list[Frame], list[JsonObject]]:
    """The frames `dbg stack` shows: the program's own, frame 0, the
    selected one and the first async caller past each boundary; and each
    run of the others (library and internal frames) as ``{"first", "last",
    "count", "of"}``, ``of`` naming whose they were."""
    shown: list[Frame] = []
    hidden: list[JsonObject] = []
    run: list[Frame] = []
    for position, frame in enumerate(frames):
        # The first caller across an async boundary stays: the stack says
        # where each boundary is.
        if (frame.library or frame.internal) and position > 0 and not frame.current \
                and frame.async_boundary is None:
            run.append(frame)
            continue
        if run:
            hidden.append(_hidden_run(run))
            run = []
        shown.append(frame)
    if run:
        hidden.append(_hidden_run(run))
    return shown, hidden


#: A recursion of more than this many frames, each the same function calling
#: itself from the same line, is folded: its first RECURSION_KEPT frames and
#: its outermost one are shown, the rest counted in their place.
RECURSION_FOLDED = 6
RECURSION_KEPT = 3


def fold_recursion(shown: list[Frame],
                   hidden: list[JsonObject]) -> tuple[list[Frame], list[JsonObject]]:
    """``shown`` and ``hidden`` (of :func:`shown_frames`) with the middle of
    each long recursion moved into ``hidden`` as ``{"first", "last", "count",
    "of": [], "recursion": function}``: a hundred identical frames of a
    runaway recursion read as its three innermost, a count and the call that
    began it. The selected frame is never folded. Not for `up` and `down`,
    which walk through a recursion frame by frame."""
    kept: list[Frame] = []
    runs = list(hidden)
    i = 0
    while i < len(shown):
        j = i + 1
        while (j < len(shown) and shown[j].index == shown[j - 1].index + 1
               and _same_call(shown[j], shown[i]) and not shown[j].current):
            j += 1
        run = shown[i:j]
        if len(run) > RECURSION_FOLDED:
            middle = run[RECURSION_KEPT:-1]
            kept += run[:RECURSION_KEPT] + run[-1:]
            runs.append({"first": middle[0].index, "last": middle[-1].index,
                         "count": len(middle), "of": [], "recursion": middle[0].function})
        else:
            kept += run
        i = j
    return kept, sorted(runs, key=lambda r: int(r["first"]))


def _same_call(a: Frame, b: Frame) -> bool:
    return (a.function, a.file, a.line) == (b.function, b.file, b.line) and a.line is not None


def _hidden_run(run: list[Frame]) -> JsonObject:
    names = list(dict.fromkeys(f.library_name for f in run if f.library_name))
    return {"first": run[0].index, "last": run[-1].index, "count": len(run), "of": names}


def cut_value(variable: Variable, chars: int) -> Variable:
    """``variable`` with its value cut to ``chars`` (``cut``: its length)."""
    if len(variable.value) <= chars:
        return variable
    return Variable(variable.name, variable.value[: chars - 3] + "...", variable.type,
                    cut=len(variable.value), scope=variable.scope)


def cap_variables(variables: list[Variable], count: int | None,
         chars: int) -> tuple[list[Variable], bool]:
    cut = count is not None and len(variables) > count
    kept = variables[:count] if count is not None else list(variables)
    out = []
    for v in kept:
        if len(v.value) > chars:
            cut = True
            out.append(Variable(v.name, v.value[: chars - 3] + "...", v.type, scope=v.scope))
        else:
            out.append(v)
    return out, cut


def resolve_file(file: str, launch: LaunchRequest | None) -> str:
    if os.path.isabs(file) or launch is None:
        return file
    base = launch.cwd or os.getcwd()
    return os.path.join(base, file)
