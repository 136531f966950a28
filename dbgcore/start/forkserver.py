"""A fork server for session daemons, for a front end that has threads.

A process with threads (`dbg mcp`) must not fork a daemon off itself (the
child could inherit a lock another thread holds), so without this it starts
each daemon as a new interpreter that imports dbg and its plugins again
(about 0.1 s a start). Instead such a front end starts one helper at its own
start: a new, single-threaded interpreter (``python -m dbgcore.start.forkhelper``)
that imports the daemon and loads the plugins once, then forks each new
session's daemon on request, exactly as the CLI forks one
(:func:`dbgcore.start.spawn.fork_daemon`), and answers its pid.

The helper keeps a spare daemon, forked with dbg loaded and no debugger
(it spawns its start's once taken), which a start asks first, as it would a
session's spare: the spare protocol (:mod:`dbgcore.start.spare`), at
:attr:`ForkServer.spare_path`.
Else the helper reads the same request on its stdin and answers on its
stdout, one JSON line each; its stdin is the control pipe, so it ends when
the front end ends (the pipe closes), its spare with it, and outlives no
one. A daemon it forks, or its spare, gets the front end's environment,
working folder, umask and limits only if they are the helper's own (they
are, unless the front end changed them after it started the helper):
otherwise, or if the helper is gone or busy with threads of its own, the
request is refused and the caller starts a new interpreter as before.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading

#: The variable a front end sets to go without the helper (a new
#: interpreter per daemon, as before).
NO_FORK_SERVER = "DBG_NO_FORK_SERVER"


class ForkServer:
    """The front end's side: the helper process and its two pipes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-m", "dbgcore.start.forkhelper"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, close_fds=True)
        self.pid = self._proc.pid
        #: The helper's first line, read when first needed (see :meth:`support`).
        self._first: dict[str, object] | None = None
        self._spare_path: str | None = None

    def fork(self, request: dict[str, object]) -> int | None:
        """Fork the daemon of ``request`` (:func:`dbgcore.start.spare.request`,
        what a spare is asked), as :func:`dbgcore.start.daemonfork.fork_daemon`
        does; its pid, or None when the helper cannot (the caller then
        starts a new interpreter)."""
        line = json.dumps(request) + "\n"
        with self._lock:
            self._read_first_locked()
            proc = self._proc
            if proc is None or proc.stdin is None or proc.stdout is None:
                return None
            try:
                proc.stdin.write(line.encode("utf-8", "surrogateescape"))
                proc.stdin.flush()
                answer = proc.stdout.readline()
            except (OSError, ValueError):
                answer = b""
            if not answer:
                # The helper died: every later start goes the old way.
                self._close_locked()
                return None
        pid = json.loads(answer).get("pid")
        return int(pid) if isinstance(pid, int) else None

    def wait_ready(self) -> None:
        """Wait until the helper has loaded dbg and readied its first spare
        (its first line), once: a start asks the spare only then."""
        if self._first is None:
            with self._lock:
                self._read_first_locked()

    @property
    def spare_path(self) -> str | None:
        """Where the helper's spare listens (:func:`dbgcore.start.spare.helper_path`),
        found once (its folder is made and checked there); None for nowhere."""
        if self._spare_path is None:
            from dbgcore.start.spare import helper_path

            self._spare_path = helper_path(self.pid) or ""
        return self._spare_path or None

    def support(self) -> dict[str, dict[str, str]] | None:
        """Each configured backend's op support (what
        :meth:`dbgcore.backends.registry.Front.backend_support` answers), as the helper
        found it at its start with the plugins it loaded; None if it could
        not say."""
        with self._lock:
            first = self._read_first_locked()
        found = first.get("support")
        return found if isinstance(found, dict) else None

    def _read_first_locked(self) -> dict[str, object]:
        if self._first is None:
            proc = self._proc
            line = b""
            if proc is not None and proc.stdout is not None:
                try:
                    line = proc.stdout.readline()
                except (OSError, ValueError):
                    line = b""
            try:
                first = json.loads(line) if line else {}
            except ValueError:
                first = {}
            self._first = first if isinstance(first, dict) else {}
            if not line:
                self._close_locked()
        return self._first

    def close(self) -> None:
        """End the helper (its stdin closes) and collect it."""
        with self._lock:
            self._close_locked()

    def _close_locked(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


#: This process's fork server, once :func:`use` started it.
_current: ForkServer | None = None


def use() -> None:
    """Fork this process's daemons off a fork server from now on (through
    :func:`dbgcore.start.spawn.spawn_daemon`): for a long-lived front end with
    threads, called before it starts them; it ends with this process, or
    at :func:`stop`."""
    global _current
    if _current is None:
        _current = start()


def current() -> ForkServer | None:
    return _current


def stop() -> None:
    """End this process's fork server (at the front end's end)."""
    global _current
    server, _current = _current, None
    if server is not None:
        server.close()


def start() -> ForkServer | None:
    """A fork server for this process, or None where there can be none (no
    fork, or turned off by ``DBG_NO_FORK_SERVER``)."""
    if not hasattr(os, "fork") or os.environ.get(NO_FORK_SERVER):
        return None
    try:
        return ForkServer()
    except OSError:
        return None
