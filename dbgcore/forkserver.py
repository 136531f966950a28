"""A fork server for session daemons, for a front end that has threads.

A process with threads (`dbg mcp`) must not fork a daemon off itself (the
child could inherit a lock another thread holds), so without this it starts
each daemon as a new interpreter that imports dbg and its plugins again
(about 0.1 s a start). Instead such a front end starts one helper at its own
start: a new, single-threaded interpreter (``python -m dbgcore.forkserver``)
that imports the daemon and loads the plugins once, then forks each new
session's daemon on request, exactly as the CLI forks one
(:func:`dbgcore.spawn.fork_daemon`), and answers its pid.

The helper reads requests on its stdin and answers on its stdout, one JSON
line each; its stdin is the control pipe, so it ends when the front end ends
(the pipe closes), and outlives no one. A daemon it forks gets the front
end's environment and working folder only if they are the helper's own
(they are, unless the front end changed them after it started the helper):
otherwise, or if the helper is gone or busy with threads of its own, the
request is refused and the caller starts a new interpreter as before.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from typing import IO

#: The variable a front end sets to go without the helper (a new
#: interpreter per daemon, as before).
NO_FORK_SERVER = "DBG_NO_FORK_SERVER"


class ForkServer:
    """The front end's side: the helper process and its two pipes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-m", "dbgcore.forkserver"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, close_fds=True)
        self.pid = self._proc.pid

    def fork(self, argv: list[str], log_path: str) -> int | None:
        """Fork a daemon that runs ``dbgcore.daemon.main(argv)`` with its
        stderr appended to ``log_path``; its pid, or None when the helper
        cannot (the caller then starts a new interpreter)."""
        request = json.dumps({"argv": argv, "log": log_path, "env": dict(os.environ),
                              "cwd": os.getcwd()}) + "\n"
        with self._lock:
            proc = self._proc
            if proc is None or proc.stdin is None or proc.stdout is None:
                return None
            try:
                proc.stdin.write(request.encode("utf-8", "surrogateescape"))
                proc.stdin.flush()
                line = proc.stdout.readline()
            except (OSError, ValueError):
                line = b""
            if not line:
                # The helper died: every later start goes the old way.
                self._close_locked()
                return None
        answer = json.loads(line)
        pid = answer.get("pid")
        return int(pid) if isinstance(pid, int) else None

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


def start() -> ForkServer | None:
    """A fork server for this process, or None where there can be none (no
    fork, or turned off by ``DBG_NO_FORK_SERVER``)."""
    if not hasattr(os, "fork") or os.environ.get(NO_FORK_SERVER) \
            or os.environ.get("DBG_DAEMON_NO_FORK"):
        return None
    try:
        return ForkServer()
    except OSError:
        return None


# -- the helper ------------------------------------------------------------------------


def _serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    from dbgcore.spawn import fork_daemon

    env, cwd = dict(os.environ), os.getcwd()
    for line in requests:
        try:
            request = json.loads(line.decode("utf-8", "surrogateescape"))
            answer = _fork(request, env, cwd, fork_daemon)
        except Exception as exc:  # a bad request must not end the helper
            answer = {"refused": f"{type(exc).__name__}: {exc}"}
        answers.write((json.dumps(answer) + "\n").encode())
        answers.flush()


def _fork(request: dict[str, object], env: dict[str, str], cwd: str,
          fork_daemon: object) -> dict[str, object]:
    # The daemon must see what a new interpreter started by the front end
    # now would see; what this helper loaded at its start (the plugins, by
    # DBG_LOAD_PLUGINS and sys.path) hangs on the same environment.
    if request.get("env") != env or request.get("cwd") != cwd:
        return {"refused": "the environment or working folder changed"}
    if threading.active_count() != 1:
        return {"refused": "the fork server has threads"}
    argv = request.get("argv")
    log = request.get("log")
    if not isinstance(argv, list) or not isinstance(log, str):
        return {"refused": "bad request"}
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        assert callable(fork_daemon)
        return {"pid": fork_daemon([str(a) for a in argv], fd)}
    finally:
        os.close(fd)


def _preload() -> None:
    """What every daemon needs before it can take its first op: the daemon
    and its modules, and the plugins (their modules stay imported for each
    daemon forked from here; each daemon makes its own host of them)."""
    from dbgcore.daemon import Daemon  # noqa: F401
    from dbgcore.plugins import PluginHost

    PluginHost().backend_classes()


def main() -> int:
    with contextlib.suppress(OSError), open("/proc/self/comm", "w") as comm:
        comm.write("dbg-forkserver")
    # A terminal's Ctrl-C reaches the front end's whole process group: the
    # helper ends with its control pipe, not before (a daemon sets its own
    # SIGINT handler before it starts anything).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The pipes move off fds 0 and 1, which become what a daemon's are, so
    # nothing else reads the requests or writes into the answers.
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    try:
        _preload()
    except Exception:
        import traceback

        traceback.print_exc()  # each request still forks; the daemon loads what failed
    with contextlib.suppress(BrokenPipeError):
        _serve(requests, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
