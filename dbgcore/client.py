"""The client side of a session: find its daemon, start one, send it an op.

Kept light on imports: every ``dbg`` command goes through here, and most of
them should cost little more than starting Python.
"""

from __future__ import annotations

import socket

from dbgcore.errors import BackendError, DbgError, NoSession
from dbgcore.jsontypes import JsonObject
from dbgcore.paths import session_dir
from dbgcore.protocol import recv_message, send_message
from dbgcore.status import clean_stale, daemon_alive, read_status

#: Extra seconds a client waits beyond the op's own timeout, for the daemon to
#: gather the stop snapshot after the target stops.
ANSWER_MARGIN = 15.0


def live_status(name: str) -> JsonObject | None:
    """The status of a live daemon for ``name``; tidies up after a dead one."""
    status = read_status(name)
    if status is None:
        # A socket without a status file is left over from a crash: not trusted.
        clean_stale(name, None)
        return None
    if daemon_alive(status, name):
        return status
    clean_stale(name, status)
    raise NoSession(
        f"session {name!r} is gone: its daemon (pid {status.get('pid')}) died",
        "recorded stops are kept (see `dbg hits`); start again with `dbg start`",
    )


def require_live(name: str) -> JsonObject:
    status = live_status(name)
    if status is None:
        raise NoSession(f"no session named {name!r}", "start one with `dbg start PROGRAM`")
    return status


def call(name: str, op: str, args: JsonObject | None, timeout: float) -> JsonObject:
    """Send one op to the session's daemon and return its response; the
    timeout is the op's (every caller knows its own)."""
    status = require_live(name)
    return exchange(name, str(status["socket"]), op, args or {}, timeout)


def exchange(name: str, sock_path: str, op: str, args: JsonObject,
              timeout: float) -> JsonObject:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout + ANSWER_MARGIN)
    try:
        try:
            sock.connect(sock_path)
        except OSError as exc:
            raise NoSession(f"cannot reach the daemon of session {name!r}: {exc.strerror}",
                            "it may have just ended; check with `dbg sessions`") from exc
        send_message(sock, {"op": op, "args": args, "timeout": timeout})
        try:
            response = recv_message(sock)
        except TimeoutError as exc:
            raise late_answer(name, op) from exc
    except OSError as exc:
        raise BackendError(f"lost the daemon of session {name!r}: {exc}") from exc
    finally:
        sock.close()
    if response is None:
        raise no_answer(name, op)
    return response


def late_answer(name: str, op: str) -> DbgError:
    return BackendError(f"the daemon of session {name!r} did not answer {op} in time",
                        f"see {session_dir(name) / 'daemon.log'}; `dbg kill` ends the session")


def no_answer(name: str, op: str) -> DbgError:
    """The error for a daemon that closed the connection without answering."""
    status = read_status(name)
    if status is None or not daemon_alive(status, name):
        clean_stale(name, status)
        return NoSession(
            f"the daemon of session {name!r} died while running {op}",
            f"recorded stops are kept (see `dbg hits`); its log: "
            f"{session_dir(name) / 'daemon.log'}",
        )
    return BackendError(f"the daemon of session {name!r} closed the connection during {op}")
