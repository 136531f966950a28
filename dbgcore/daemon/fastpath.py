"""The fast path's daemon side: a command line read and answered in the daemon.

The `dbg` client's fast path (dbgcore.entry) imports nothing: it sends its
words as an ``argv`` request, and the daemon reads them with the op table,
runs the op through :func:`dbgcore.ops.call.call_op` (the path every front
end takes) and sends back the exit code, the stream and the bytes to print,
or ``fallback`` when the click CLI must read them. Apart from the daemon's
op running because this is a front end's work done in the daemon: reading
words, rendering text, and the first client's `start` of a daemon it forked
before it read its own command line.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Protocol

from dbgcore.backends.registry import Front
from dbgcore.daemon.listener import Door, send
from dbgcore.daemon.startup import StartUp
from dbgcore.ops.call import call_op
from dbgcore.shared.globalopts import read_globals, reveals
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.status import remove_status
from dbgcore.vocab.opspec import OpTable

#: How long a daemon forked by the first client of its session (dbgcore.entry)
#: waits for that client's `start` before it ends.
FIRST_CLIENT_WAIT = 30.0


class FirstStart:
    """The `start` a daemon forked by its session's first client waits for:
    that client's command line comes as its first `argv` request, and the
    daemon ends if none comes in FIRST_CLIENT_WAIT seconds."""

    def __init__(self, forked_by_client: bool) -> None:
        self._until = time.monotonic() + FIRST_CLIENT_WAIT if forked_by_client else None
        self._lock = threading.Lock()

    def overdue(self) -> bool:
        return self._until is not None and time.monotonic() > self._until

    def take(self) -> bool:
        """Whether this is the first client's start (once)."""
        with self._lock:
            first = self._until is not None
            self._until = None
        return first


class ArgvDaemon(Protocol):
    """What the fast path asks of the daemon that serves it."""

    name: str
    front: Front
    table: OpTable
    startup: StartUp
    door: Door
    first_start: FirstStart

    def dispatch(self, op: str, args: JsonObject, timeout: float) -> JsonObject: ...

    def program_ended(self) -> bool: ...

    def start_here(self, name: str, op: str, args: JsonObject, timeout: float,
                   idle_timeout: float | None) -> JsonObject: ...

    def shutdown(self) -> None: ...


def serve_argv(daemon: ArgvDaemon, conn: socket.socket, args: JsonObject,
               timeout: float) -> None:
    """A fast-path client (dbgcore.entry) sent its command line: read it
    with the op table, run it, and send back ``CODE STREAM\n`` and the
    bytes to print; ``fallback`` when the click CLI must read it."""
    table = daemon.table
    lifted, words = table.lift_globals([str(w) for w in args.get("words") or []])
    # The client sent the global options it read before the op; those after
    # it are read here, where the op table says which words are the op's.
    given = read_globals(lifted, str(args.get("session") or daemon.name),
                         bool(args.get("json")), timeout)
    if given is None or given[0] != daemon.name:
        # Another session's command (the client guessed at -s), or a value
        # click explains.
        send(conn, b"fallback\n")
        return
    _, as_json, timeout, _ = given
    found = table.read_words(words)
    first = False
    if found is None and args.get("first"):
        first = daemon.first_start.take()
        found = table.read_start_words(words) if first else None
    if found is None:
        if not first and daemon.program_ended() \
                and table.read_start_words(words) is not None:
            # A start on this session, whose program has ended: the
            # client replaces it (dbgcore.entry), and need not ask.
            send(conn, b"ended\n")
            return
        send(conn, b"fallback\n")
        return
    op, values = found
    # The client's --reveal (or DBG_REVEAL), or one after the op: never
    # this daemon's environment, which is not the caller's.
    reveal = bool(args.get("reveal")) or reveals(lifted)
    answer = call_op(op, values, daemon.name, timeout, daemon.front, cwd=args.get("cwd"),
                     send=daemon.dispatch, start=daemon.start_here if first else None,
                     reveal=reveal)
    text, err = answer.output(as_json)
    encodings = args.get("encoding") or []
    encoding = str(encodings[1 if err else 0]) if len(encodings) == 2 else "utf-8"
    try:
        body = (text + "\n").encode(encoding, "backslashreplace") if text else b""
    except LookupError:
        body = (text + "\n").encode("utf-8", "backslashreplace")
    refused = first and not answer.ok
    if refused:
        # Before the refusal is answered, so that when the client returns
        # nothing of this start runs and no session of its name is seen
        # or reached (a next call went on to find this daemon still
        # listening, with no program).
        daemon.startup.early.discard()
        remove_status(daemon.name, os.getpid())
        daemon.door.close()
    send(conn, b"%d %d\n" % (answer.exit_code, 2 if err else 1) + body)
    if refused:
        # Refused before it reached the debugger (a usage error): this
        # session never began, and must not linger.
        threading.Thread(target=daemon.shutdown, daemon=True).start()
