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
import sys
import time

from dbgcore.shared import client, homecheck, procutil
from dbgcore.shared.diskspace import home_errno, refusal, refused
from dbgcore.shared.ended import noted, replace_ended
from dbgcore.shared.errors import BackendError, DbgError, SessionExists
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import dbg_home, private_dir, session_dir, socket_path, untrusted
from dbgcore.shared.status import daemon_alive, read_status
from dbgcore.start.daemonfork import fork_daemon

#: The files a session's daemon writes in its folder (their rotations,
#: NAME.1, are only renamed over).
SESSION_FILES = ("daemon.log", "debugger.log", "status.json")
#: How long a new daemon has to start listening.
DAEMON_START_TIMEOUT = 15.0


def spawn_daemon(name: str, idle_timeout: float | None,
                 backend: str | None = None) -> JsonObject:
    """Start a detached daemon for ``name`` and wait until it listens; one
    forked for a start on ``backend`` spawns its debugger early
    (:mod:`dbgcore.start.prespawn`)."""
    import subprocess

    if client.live_status(name) is not None:
        raise SessionExists.taken(name)
    run_dir = private_dir(session_dir(name))
    # Here, where its refusal reaches the user, rather than in the daemon,
    # whose refusal only its log would tell (a /tmp/dbg-UID of someone else's).
    socket_path(name)
    problem = homecheck.files_problem(str(run_dir), SESSION_FILES)
    if problem is not None:
        raise untrusted(problem)
    log_path = run_dir / "daemon.log"
    argv = [name] if idle_timeout is None else [name, str(idle_timeout)]
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
        # A new process session and no inherited stdio: a harness that runs
        # `dbg start` and waits for its pipes to close must not wait for us.
        pid = None
        if _can_fork():
            pid = fork_daemon(argv, fd, start_words=words)
        else:
            from dbgcore.start import forkserver

            if (server := forkserver.current()) is not None:
                pid = server.fork(argv, str(log_path), words)
        if pid is None:
            pid = subprocess.Popen(
                [sys.executable, "-m", "dbgcore.daemon.server", *argv], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=fd, start_new_session=True, close_fds=True,
            ).pid
    finally:
        os.close(fd)
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


def _can_fork() -> bool:
    """Fork the daemon off a single-threaded client (the CLI): it has the
    modules, the configuration and the plugins the daemon needs already
    loaded, where a new interpreter would load them all again. A process
    with other threads (the MCP server) starts a new interpreter instead:
    forking it could copy a lock another thread holds."""
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1 \
        and not os.environ.get("DBG_DAEMON_NO_FORK")


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
