"""The client side of a session: find its daemon, start one, send it an op.

Kept light on imports: every ``dbg`` command goes through here, and most of
them should cost little more than starting Python.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time

from dbgcore.shared import procutil
from dbgcore.shared.errors import BackendError, DbgError, NoSession
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import CHILD_SESSION_ROLE, session_dir
from dbgcore.shared.status import clean_stale, daemon_alive, end_by_force, read_status
from dbgcore.shared.wire import recv_message, send_message

#: Extra seconds a client waits beyond the op's own timeout, for the daemon to
#: gather the stop snapshot after the target stops.
ANSWER_MARGIN = 15.0
#: How long `dbg kill` gives the daemon to take the kill (its first act is to
#: remove its status file), or a daemon stopped (SIGSTOP) on its way out to
#: go on, before the client ends the session's processes itself.
KILL_GRACE = 5.0
#: How often a `dbg kill` waiting for the daemon looks at it.
_KILL_POLL = 0.05


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


def call(name: str, op: str, args: JsonObject | None, timeout: float,
         by: str | None = None) -> JsonObject:
    """Send one op to the session's daemon and return its response; the
    timeout is the op's (every caller knows its own). ``by``: who sends it,
    when not the CLI or MCP (a DAP client of `dbg dap`), kept with the
    command in the store."""
    status = require_live(name)
    return exchange(name, status, op, args or {}, timeout, by)


def exchange(name: str, status: JsonObject, op: str, args: JsonObject,
             timeout: float, by: str | None = None) -> JsonObject:
    """``op`` sent to the daemon of ``status`` (the session's, read and
    found alive) and its answer, waited for up to the op's timeout and
    :data:`ANSWER_MARGIN`; sooner, an error that says so when the daemon's
    process stays stopped by a signal (procutil.StoppedWatch)."""
    sock_path, daemon = str(status["socket"]), int(status.get("pid", 0))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout + ANSWER_MARGIN)
    try:
        try:
            sock.connect(sock_path)
        except OSError as exc:
            raise NoSession(f"cannot reach the daemon of session {name!r}: {exc.strerror}",
                            "it may have just ended; check with `dbg sessions`") from exc
        request: JsonObject = {"op": op, "args": args, "timeout": timeout}
        if by:
            request["by"] = by
        send_message(sock, request)
        deadline = time.monotonic() + timeout + ANSWER_MARGIN
        watch = procutil.StoppedWatch(daemon)
        while not select.select([sock], [], [], procutil.STOP_CHECK)[0]:
            if time.monotonic() >= deadline:
                raise late_answer(name, op)
            if watch.stopped_long():
                raise stopped_daemon(name, daemon)
        try:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
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


def stopped_daemon(name: str, pid: int) -> DbgError:
    return BackendError(f"the daemon of session {name!r} (pid {pid}) is stopped by a signal "
                        "from outside (SIGSTOP, Ctrl-Z) and cannot answer",
                        f"`kill -CONT {pid}` lets it go on, and it runs what it was sent "
                        "then; `dbg kill` ends the session")


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


def kill(name: str, timeout: float) -> JsonObject:
    """`kill` sent to the session's daemon, and its answer. A daemon that
    does not take it within :data:`KILL_GRACE` (stopped, hung), that stays
    stopped that long on its way out, or that has not ended within the op's
    timeout is ended here, with every process of its session
    (:func:`dbgcore.shared.status.end_by_force`): the answer then says how many
    (``forced``). `kill` always ends the session."""
    status = require_live(name)
    pid, started = int(status.get("pid", 0)), status.get("start_time")
    sock: socket.socket | None = _send_kill(str(status["socket"]), timeout)
    try:
        began = time.monotonic()
        # A stop by a tracer ("t") counts too: a daemon held so cannot end either.
        stopped = procutil.StoppedWatch(pid, KILL_GRACE, ("T", "t"))
        while True:
            if sock is not None and select.select([sock], [], [], _KILL_POLL)[0]:
                try:
                    sock.settimeout(KILL_GRACE)
                    response = recv_message(sock)
                except (OSError, DbgError):
                    response = None
                if response is not None:
                    return response
                sock.close()
                sock = None  # closed unanswered: it died on its way out
            elif sock is None:
                time.sleep(_KILL_POLL)
            if not procutil.alive(pid, started):
                clean_stale(name, status)
                return _ended(name, None)
            now = time.monotonic()
            if (now - began > KILL_GRACE and not _taken(name, pid)) or stopped.stopped_long() \
                    or now - began > timeout + ANSWER_MARGIN:
                break
    finally:
        if sock is not None:
            sock.close()
    forced = end_by_force(name, status)
    if procutil.alive(pid, started):
        raise BackendError(f"could not end the daemon (pid {pid}) of session {name!r}",
                           f"see {session_dir(name) / 'daemon.log'}")
    for child in status.get("children", []):
        role = str(child.get("role", ""))
        if role.startswith(CHILD_SESSION_ROLE):
            with contextlib.suppress(DbgError):
                kill(role[len(CHILD_SESSION_ROLE):], timeout)
    return _ended(name, forced)


def _send_kill(path: str, timeout: float) -> socket.socket | None:
    """The connection `kill` was sent on; None for a daemon that takes no
    connection (it is watched, then ended, all the same)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(KILL_GRACE)
        sock.connect(path)
        send_message(sock, {"op": "kill", "args": {}, "timeout": timeout})
    except OSError:
        sock.close()
        return None
    return sock


def _taken(name: str, pid: int) -> bool:
    """Whether the daemon ``pid`` has begun to end: its status file is gone
    (or is another daemon's)."""
    status = read_status(name)
    return status is None or status.get("pid") != pid


def _ended(name: str, forced: int | None) -> JsonObject:
    """The answer to a `kill` the daemon did not give: ``forced`` processes
    besides it ended here (None: it ended by itself meanwhile)."""
    result: JsonObject = {"killed": name, "program": "ended"}
    if forced is not None:
        result["forced"] = forced
    return {"ok": True, "result": result, "via": None}
