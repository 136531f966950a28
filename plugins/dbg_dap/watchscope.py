"""A watch on a local ends with the frame it was set in.

gdb deletes such a watchpoint when the program leaves its block, and
reports that stop with DAP reason "stopped" and no words of its own in the
event (only in console text). lldb-dap's data breakpoints are addresses:
once the frame has returned, the watch fires when another call reuses that
stack memory, which is no change of the variable at all. Both are told one
way: each watch on a local notes its frame (its depth from the stack's
bottom and its function); a stop that hits the watch when that frame is no
longer on the stack says that the watch left scope, and the watch is
deleted, as gdb does.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol, TypeVar

from dbg_dap.frames import LOCAL_SCOPE_HINTS
from dbgcore.api import Message

if TYPE_CHECKING:
    from dbg_dap.host import AdapterHost


class WatchRecord(Protocol):
    """What is read of a breakpoint record (dbg_dap.breakpoints.BpRecord)."""

    id: int
    kind: str
    name: str | None
    frame: tuple[int, str] | None


Record = TypeVar("Record", bound=WatchRecord)

#: The stop's reason when a watched local's frame returned.
REASON = "watch_scope"

_LEADING_NAME = re.compile(r"\s*\**\s*([A-Za-z_]\w*)")


def local_frame(backend: AdapterHost, expression: str,
                timeout: float) -> tuple[int, str] | None:
    """The selected frame, as (depth from the stack's bottom, function), when
    ``expression`` starts with one of its locals or arguments; None for a
    global (a watch on it lives on)."""
    found = _LEADING_NAME.match(expression)
    frames = backend.stack_frames(timeout)
    index = backend.frame_index
    if found is None or not 0 <= index < len(frames):
        return None
    name = found.group(1)
    for scope in backend.scopes(timeout, int(frames[index]["id"])):
        kind = f"{scope.get('presentationHint', '')} {scope.get('name', '')}".lower()
        if scope.get("expensive") or not any(hint in kind for hint in LOCAL_SCOPE_HINTS):
            continue
        if any(v.get("name") == name
               for v in backend.variables(int(scope["variablesReference"]), timeout)):
            return len(frames) - index, str(frames[index].get("name") or "")
    return None


def left_scope(hit: list[Record], frames: list[Message]) -> list[Record]:
    """The watches among ``hit`` whose frame is no longer on ``frames``."""
    gone = []
    for record in hit:
        if record.kind != "watch" or record.frame is None:
            continue
        depth, function = record.frame
        at = len(frames) - depth
        if at < 0 or str(frames[at].get("name") or "") != function:
            gone.append(record)
    return gone


def description(gone: list[Record]) -> str:
    """What the stop says of the watches that left scope."""
    return "; ".join(f"watch {r.id} ({r.name}) left scope: {(r.frame or (0, ''))[1]} "
                     "returned, so the watch is deleted" for r in gone)
