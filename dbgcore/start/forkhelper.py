"""The fork server's helper process (``python -m dbgcore.start.forkhelper``): see
:mod:`dbgcore.start.forkserver`. A module of its own, above the daemon and
:mod:`dbgcore.start.daemonfork`, which it imports; the front end's side imports neither.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import IO

from dbgcore.shared.homecheck import open_log


class _Spare:
    """A daemon forked before its session's start, its debugger spawned
    already (:func:`dbgcore.start.daemonfork.fork_spare`), for a start of the same
    words: a start through `dbg mcp` then waits for neither the fork nor the
    debugger's own start. One at a time, for the words of the last start (at
    first, the backend a start spawned last from this DBG_HOME); it ends
    with the helper, its debugger with it."""

    def __init__(self, words: list[str]) -> None:
        from dbgcore.start.daemonfork import fork_spare

        self.words = words
        self.pid, self._control, self._done = fork_spare(words)

    def take(self, argv: list[str], log: str) -> int | None:
        """Its pid, once given the session of ``argv``; None if it is gone."""
        from dbgcore.start.daemonfork import assign

        os.close(self._done)
        return self.pid if assign(self._control, argv, log) else None

    def end(self, wait: float) -> None:
        """Close its control pipe (it ends its debugger and exits); wait up
        to ``wait`` seconds for that."""
        import select

        os.close(self._control)
        with contextlib.suppress(OSError):
            select.select([self._done], [], [], wait)
        os.close(self._done)


class _Spares:
    """The helper's spare daemon, if it keeps one (not with
    ``DBG_NO_EARLY_SPAWN``, which turns every early spawn off)."""

    def __init__(self) -> None:
        self.spare: _Spare | None = None
        self.enabled = not os.environ.get("DBG_NO_EARLY_SPAWN")

    def ready(self, words: list[str] | None) -> None:
        """A spare for a start of ``words`` from now on."""
        if not self.enabled or not words or threading.active_count() != 1:
            return
        if self.spare is not None:
            if self.spare.words == words:
                return
            self.spare.end(0)
            self.spare = None
        with contextlib.suppress(Exception):  # no spare: each start forks, as before
            self.spare = _Spare(words)

    def take(self, words: list[str], argv: list[str], log: str) -> int | None:
        """The spare's pid, given this session, if it was forked for ``words``."""
        spare = self.spare
        if spare is None or spare.words != words:
            return None
        self.spare = None
        return spare.take(argv, log)

    def end(self) -> None:
        if self.spare is not None:
            self.spare.end(3)
            self.spare = None


def _first_words() -> list[str] | None:
    """The words of the start the first spare is forked for: one naming the
    backend a start spawned last (as `dbg mcp` names it)."""
    from dbgcore.transport.early import last_backend

    backend = last_backend()
    return ["start", "--backend", backend] if backend else None


def _serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    from dbgcore.start.daemonfork import fork_daemon

    env, cwd = dict(os.environ), os.getcwd()
    spares = _Spares()
    spares.ready(_first_words())
    try:
        for line in requests:
            words: list[str] | None = None
            try:
                request = json.loads(line.decode("utf-8", "surrogateescape"))
                answer = _fork(request, env, cwd, fork_daemon, spares)
                if "pid" in answer and isinstance(request.get("start_words"), list):
                    words = [str(w) for w in request["start_words"]]
            except Exception as exc:  # a bad request must not end the helper
                answer = {"refused": f"{type(exc).__name__}: {exc}"}
            answers.write((json.dumps(answer) + "\n").encode())
            answers.flush()
            spares.ready(words)  # after the answer, off the start's path
    finally:
        spares.end()


def _fork(request: dict[str, object], env: dict[str, str], cwd: str,
          fork_daemon: Callable[..., int], spares: _Spares) -> dict[str, object]:
    # The daemon must see what a new interpreter started by the front end
    # now would see; what this helper loaded at its start (the plugins, by
    # DBG_LOAD_PLUGINS and sys.path) hangs on the same environment.
    if request.get("env") != env or request.get("cwd") != cwd:
        return {"refused": "the environment or working folder changed"}
    if threading.active_count() != 1:
        return {"refused": "the fork server has threads"}
    argv = request.get("argv")
    log = request.get("log")
    words = request.get("start_words")
    if not isinstance(argv, list) or not isinstance(log, str) \
            or not (words is None or isinstance(words, list)):
        return {"refused": "bad request"}
    if words:
        pid = spares.take([str(w) for w in words], [str(a) for a in argv], log)
        if pid is not None:
            return {"pid": pid}
    fd = open_log(log)
    try:
        return {"pid": fork_daemon([str(a) for a in argv], fd,
                                   start_words=[str(w) for w in words or []])}
    finally:
        os.close(fd)


def _support() -> dict[str, object]:
    """Each configured backend's op support, as `dbg mcp`'s tool listing
    names it: every backend's class is loaded here anyway, while the front
    end imports the MCP SDK, so the front end need not load them too."""
    from dbgcore.backends.pluginhost import PluginHost
    from dbgcore.daemon import server
    from dbgcore.ops.table import front

    return {"support": (server.prepared_front or front(PluginHost)).backend_support()}


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
        from dbgcore.daemon import server

        server.preload()
    except Exception:
        import traceback

        traceback.print_exc()  # each request still forks; the daemon loads what failed
    # The first line is the backends' op support (ForkServer.support), then
    # one answer per request.
    try:
        first: dict[str, object] = _support()
    except Exception as exc:
        first = {"support": None, "refused": f"{type(exc).__name__}: {exc}"}
    with contextlib.suppress(BrokenPipeError):
        answers.write((json.dumps(first) + "\n").encode())
        answers.flush()
        _serve(requests, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
