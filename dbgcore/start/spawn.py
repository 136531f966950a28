"""Starting a session's daemon: spawned by the front end that starts a session
(`dbg start`, `attach`, `test`; an MCP call) and by a parent session's daemon
for a child process's session.

Apart from :mod:`dbgcore.shared.client`, which only talks to daemons that run: the
daemon itself uses the client (a parent asks its children's daemons), so the
one module that imports the daemon (the forked child runs it) must sit above both.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

from dbgcore.shared import client, homecheck, procutil
from dbgcore.shared.diskspace import home_errno, refusal, refused
from dbgcore.shared.ended import noted, replace_ended
from dbgcore.shared.errors import BackendError, DbgError, SessionExists
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import dbg_home, private_dir, session_dir, socket_path, untrusted
from dbgcore.shared.sessionsocket import DAEMON_LOG
from dbgcore.shared.status import daemon_alive, read_status
from dbgcore.start.launch import AFTER_IMPORT, DAEMON_START_TIMEOUT, Launch, start_daemon

#: The files a session's daemon writes in its folder (their rotations,
#: NAME.1, are only renamed over).
SESSION_FILES = ("daemon.log", "debugger.log", "status.json")

__all__ = ["DAEMON_START_TIMEOUT", "spawn_daemon", "start"]


def spawn_daemon(name: str, idle_timeout: float | None,
                 backend: str | None = None) -> JsonObject:
    """Start a detached daemon for ``name`` (the first of
    :data:`dbgcore.start.launch.AFTER_IMPORT` that can) and wait until it
    listens; one forked for a start on ``backend`` spawns its debugger early
    (:mod:`dbgcore.start.prespawn`)."""
    if client.live_status(name) is not None:
        raise SessionExists.taken(name)
    run_dir = private_dir(session_dir(name))
    # Here, where its refusal reaches the user, rather than in the daemon,
    # whose refusal only its log would tell (a /tmp/dbg-UID of someone else's).
    socket_path(name)
    problem = homecheck.files_problem(str(run_dir), SESSION_FILES)
    if problem is not None:
        raise untrusted(problem)
    log_path = run_dir / DAEMON_LOG
    try:
        fd = homecheck.open_log(str(log_path))
    except homecheck.Untrusted as exc:
        raise untrusted(exc.problem) from None
    except OSError as exc:
        disk = refused(exc, dbg_home(), f"cannot start session {name!r}")
        if disk is None:
            raise
        raise disk from exc
    words = ["start", "--backend", backend] if backend else None
    try:
        pid = start_daemon(Launch(name, str(run_dir), fd, str(log_path), words, idle_timeout),
                           AFTER_IMPORT)
    finally:
        os.close(fd)
    assert pid is not None  # a new interpreter can always be started
    deadline = time.monotonic() + DAEMON_START_TIMEOUT
    while time.monotonic() < deadline:
        status = read_status(name)
        if status is not None and status.get("pid") == pid and daemon_alive(status, name):
            return status
        code = _exit_code(pid)
        if code is not None:
            # Its status file could not be written, nor what it would have
            # said about that (daemon.log is on the same disk).
            err = home_errno(dbg_home())
            if err is not None:
                raise refusal(err, dbg_home(), f"cannot start session {name!r}")
            raise DbgError(f"the session daemon exited at start (code {code})",
                           f"see {log_path}")
        # Every poll saved is time the start answers sooner (a forked daemon
        # listens within tens of milliseconds).
        time.sleep(0.002)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    raise BackendError("the session daemon did not start in time", f"see {log_path}")


def _exit_code(pid: int) -> int | None:
    """The exit code of a daemon that ended (reaped if it is our child); None
    while it runs."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        # Not our child (forked off): no code to read, only whether it runs.
        return None if procutil.alive(pid) else -1
    return os.waitstatus_to_exitcode(status) if done else None


def start(name: str, op: str, args: JsonObject, timeout: float,
          idle_timeout: float | None) -> JsonObject:
    """Start a daemon and hand it its first op (start or attach). A session
    of that name whose program has ended is replaced, and the answer says so."""
    replaced = replace_ended(name)
    backend = args.get("backend") if op == "start" else None
    status = spawn_daemon(name, idle_timeout, backend if isinstance(backend, str) else None)
    return noted(client.exchange(name, status, op, args, timeout), replaced)
