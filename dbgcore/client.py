"""The client side of a session: find its daemon, start one, send it an op.

Kept light on imports: every ``dbg`` command goes through here, and most of
them should cost little more than starting Python.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from typing import Any

from dbgcore.errors import BackendError, DbgError, NoSession, SessionExists
from dbgcore.paths import private_dir, session_dir
from dbgcore.protocol import recv_message, send_message
from dbgcore.status import clean_stale, daemon_alive, read_status

#: Extra seconds a client waits beyond the op's own timeout, for the daemon to
#: gather the stop snapshot after the target stops.
ANSWER_MARGIN = 15.0
DAEMON_START_TIMEOUT = 15.0


def live_status(name: str) -> dict[str, Any] | None:
    """The status of a live daemon for ``name``; tidies up after a dead one."""
    status = read_status(name)
    if status is None:
        # A socket without a status file is left over from a crash: not trusted.
        clean_stale(name, None)
        return None
    if daemon_alive(status):
        return status
    clean_stale(name, status)
    raise NoSession(
        f"session {name!r} is gone: its daemon (pid {status.get('pid')}) died",
        "recorded stops are kept (see `dbg hits`); start again with `dbg start`",
    )


def require_live(name: str) -> dict[str, Any]:
    status = live_status(name)
    if status is None:
        raise NoSession(f"no session named {name!r}", "start one with `dbg start PROGRAM`")
    return status


def call(name: str, op: str, args: dict[str, Any] | None = None,
         timeout: float = 30.0) -> dict[str, Any]:
    """Send one op to the session's daemon and return its response."""
    status = require_live(name)
    return _exchange(name, str(status["socket"]), op, args or {}, timeout)


def _exchange(name: str, sock_path: str, op: str, args: dict[str, Any],
              timeout: float) -> dict[str, Any]:
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
    if status is None or not daemon_alive(status):
        clean_stale(name, status)
        return NoSession(
            f"the daemon of session {name!r} died while running {op}",
            f"recorded stops are kept (see `dbg hits`); its log: "
            f"{session_dir(name) / 'daemon.log'}",
        )
    return BackendError(f"the daemon of session {name!r} closed the connection during {op}")


def spawn_daemon(name: str, idle_timeout: float | None) -> dict[str, Any]:
    """Start a detached daemon for ``name`` and wait until it listens."""
    import subprocess

    if live_status(name) is not None:
        raise SessionExists(f"session {name!r} is already running",
                            f"end it with `dbg -s {name} kill`, or pick another --session name")
    run_dir = private_dir(session_dir(name))
    log_path = run_dir / "daemon.log"
    cmd = [sys.executable, "-m", "dbgcore.daemon", name]
    if idle_timeout is not None:
        cmd.append(str(idle_timeout))
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        # A new process session and no inherited stdio: a harness that runs
        # `dbg start` and waits for its pipes to close must not wait for us.
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=fd,
            start_new_session=True, close_fds=True,
        )
    finally:
        os.close(fd)
    deadline = time.monotonic() + DAEMON_START_TIMEOUT
    while time.monotonic() < deadline:
        status = read_status(name)
        if status is not None and status.get("pid") == proc.pid and daemon_alive(status):
            return status
        if proc.poll() is not None:
            raise DbgError(f"the session daemon exited at start (code {proc.returncode})",
                           f"see {log_path}")
        time.sleep(0.01)
    proc.kill()
    raise BackendError("the session daemon did not start in time", f"see {log_path}")


def start(name: str, op: str, args: dict[str, Any], timeout: float,
          idle_timeout: float | None) -> dict[str, Any]:
    """Start a daemon and hand it its first op (start or attach)."""
    status = spawn_daemon(name, idle_timeout)
    return _exchange(name, str(status["socket"]), op, args, timeout)
