"""A session whose program has ended gives its name to the next start.

Imports nothing at its top (dbgcore.entry, the fast path's client, reads
ENDED_STATES before anything else is loaded): :func:`replace_ended` is run
by dbgcore.start.spawn for the click CLI and MCP, and by a daemon forked by the
fast path's client, which replaces the session once it has read and checked
the start's command line. Either way the start's answer says what it
replaced (:func:`noted`). Here, below the daemon and the ways of starting
one, because both sides do it: what every process shares.
"""

from __future__ import annotations

import contextlib
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dbgcore.shared.jsontypes import JsonObject

#: Session states whose program is over: a new start takes the name.
ENDED_STATES = ("exited", "debugger_lost")


def replaced_note(name: str, info: dict[str, object]) -> str:
    """What a start says about the session ``name`` it replaces, from that
    session's `ping` (``info``: its ``session`` part); "" when its program
    has not ended (the name is not free)."""
    state = info.get("state")
    if state not in ENDED_STATES:
        return ""
    how = ("had exited" + (f" with code {info['exit_code']}" if info.get("exit_code")
                           is not None else "")) if state == "exited" else "had lost its debugger"
    if info.get("signal"):
        how = f"was killed by {info['signal']}"
    return f"replaced session {name!r}, whose program {how}"


def noted(response: JsonObject, replaced: str) -> JsonObject:
    """A start's ``response`` (the wire's), with ``replaced`` (what
    :func:`replace_ended` said) before its own note, when it succeeded."""
    if replaced and response.get("ok"):
        result = response.setdefault("result", {})
        result["note"] = "; ".join(n for n in (replaced, result.get("note")) if n)
    return response


def replace_ended(name: str) -> str:
    """End the live session ``name`` if its program has ended (or its
    debugger died), and say what was replaced; "" when there was none.

    Returns once the name is free: the ended session's daemon has removed
    its status file and its socket, the first thing its end does. The rest
    of that end (the debugger's, which takes tens of ms for some) goes on
    beside the new start; the kill's answer is read by a thread of this
    process that nothing waits for."""
    import threading

    from dbgcore.shared import client
    from dbgcore.shared.errors import DbgError, NoSession
    from dbgcore.shared.paths import socket_path
    from dbgcore.shared.status import read_status

    try:
        if client.live_status(name) is None:
            return ""
    except NoSession as gone:
        # Its daemon died (killed): what it left is cleaned up now, and the
        # name is free; the start goes on, and says so.
        return f"replaced session {name!r}: {gone.message}"
    try:
        info = (client.call(name, "ping", None, 5.0).get("result") or {}).get("session") or {}
    except DbgError:
        return ""  # gone meanwhile: the start sees to the rest
    note = replaced_note(name, info)
    if not note:
        return ""
    def kill() -> None:
        with contextlib.suppress(DbgError):
            client.call(name, "kill", None, 10.0)

    killing = threading.Thread(target=kill, name="dbg-replace-ended", daemon=True)
    killing.start()
    # Its status file goes first, then its socket (its own only, by inode: a
    # new daemon's socket must not take that place before the old one is
    # gone); once the kill is answered, its end has run whole.
    sock = socket_path(name)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (
            read_status(name) is not None or (sock.exists() and killing.is_alive())):
        time.sleep(0.002)
    return note
