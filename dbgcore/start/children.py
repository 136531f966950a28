"""Child processes as sessions of their own, for a backend that can follow
them (debugpy's startDebugging): the child's session is named
``PARENT/NAME-PID`` and run by a daemon the parent's daemon starts (so it is
one of the parent's processes: an adapter that takes connections only from
the session's own processes takes its connection), and the parent's daemon
knows it by the role it tracks it under (:data:`CHILD_SESSION_ROLE`).
"""

from __future__ import annotations

import os
import re

from dbgcore.backends.contract import SessionContext
from dbgcore.shared import client
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import CHILD_SESSION_ROLE
from dbgcore.start import spawn

__all__ = ["child_session_name", "start_child_session"]


def child_session_name(parent: str, program: str, pid: int) -> str:
    """``PARENT/NAME-PID``, NAME the program's file name without its suffix
    (each part of a session name: at most 64 characters, from a letter or digit)."""
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.splitext(os.path.basename(program))[0])
    stem = stem.lstrip("_.-")[:40] or "child"
    return f"{parent}/{stem}-{pid}"


def start_child_session(ctx: SessionContext, name: str, attach: JsonObject,
                        timeout: float) -> JsonObject:
    """Start session ``name``'s daemon, track it as the parent's (``ctx``),
    and send it ``attach`` (the `attach` op's arguments, with ``child``: what
    the debugger says of the child); returns the daemon's answer. Raises
    DbgError when the daemon cannot be started or reached."""
    status = spawn.spawn_daemon(name, None)
    ctx.track_process(int(status["pid"]), CHILD_SESSION_ROLE + name)
    return client.call(name, "attach", attach, timeout)
