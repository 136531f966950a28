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
    """A daemon forked before its session's start
    (:func:`dbgcore.start.daemonfork.fork_spare`), for any start, listening
    at ``path`` (:mod:`dbgcore.start.spare`): a start through `dbg mcp` then
    waits for no fork. It holds no debugger while it waits (it spawns the
    start's once taken: :func:`dbgcore.start.sparedaemon.run_for_helper`).
    One at a time; it ends with the helper."""

    def __init__(self, path: str) -> None:
        from dbgcore.start.daemonfork import fork_spare
        from dbgcore.start.sparedaemon import listen, unlisten

        # Listening before the fork: a start asked of `dbg mcp` as it
        # starts (once the helper has said it is ready) waits for the spare
        # in the socket's backlog rather than finding no socket yet.
        listener, inode = listen(path)
        try:
            self.pid, self._control, self.done = fork_spare((listener.fileno(), path, inode))
        except BaseException:
            unlisten(listener, path, inode)
            raise
        listener.close()  # the spare's now

    def end(self, wait: float) -> None:
        """Close its control pipe (untaken, it exits); wait up to ``wait``
        seconds for that."""
        import select

        os.close(self._control)
        with contextlib.suppress(OSError):
            select.select([self.done], [], [], wait)
        os.close(self.done)


class _Spares:
    """The helper's spare daemon, if it keeps one (not with
    ``DBG_NO_SPARE``, nor ``DBG_NO_EARLY_SPAWN``, which turns every early
    spawn off)."""

    def __init__(self, path: str | None) -> None:
        from dbgcore.start.spare import NO_SPARE

        self.spare: _Spare | None = None
        self.path = path
        self.enabled = path is not None and not os.environ.get(NO_SPARE) \
            and not os.environ.get("DBG_NO_EARLY_SPAWN")

    def ready(self) -> None:
        """A spare from now on (one is kept already, or this makes one)."""
        if not self.enabled or self.spare is not None or threading.active_count() != 1:
            return
        assert self.path is not None
        with contextlib.suppress(Exception):  # no spare: each start forks, as before
            self.spare = _Spare(self.path)

    def gone(self) -> None:
        """The spare's done pipe closed: a start took it (it runs on as
        that start's daemon), and the next start gets a new one; or it
        ended on its own, and the next fork readies one."""
        from dbgcore.shared.procutil import alive

        spare, self.spare = self.spare, None
        if spare is None:
            return
        spare.end(0)
        if alive(spare.pid):
            self.ready()

    def end(self) -> None:
        if self.spare is not None:
            self.spare.end(3)
            self.spare = None


def _serve(requests: int, answers: IO[bytes], spares: _Spares) -> None:
    """Answer each request line read from ``requests`` (a descriptor) with
    a fork, and keep a spare meanwhile: when a start takes it, another is
    forked."""
    import select

    from dbgcore.start import spare as protocol
    from dbgcore.start.daemonfork import fork_daemon

    own = protocol.terms()
    pending = b""
    while True:
        done = spares.spare.done if spares.spare is not None else -1
        readable, _, _ = select.select([requests, *([done] if done >= 0 else [])], [], [])
        if done in readable:
            spares.gone()
        if requests not in readable:
            continue
        data = os.read(requests, 65536)
        if not data:
            return
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            try:
                request = json.loads(line.decode("utf-8", "surrogateescape"))
                answer = _fork(request, own, fork_daemon)
            except Exception as exc:  # a bad request must not end the helper
                answer = {"refused": f"{type(exc).__name__}: {exc}"}
            answers.write((json.dumps(answer) + "\n").encode())
            answers.flush()
            spares.ready()  # after the answer, off the start's path


def _fork(request: object, own: dict[str, object],
          fork_daemon: Callable[..., int]) -> dict[str, object]:
    """Fork the daemon of ``request`` (:func:`dbgcore.start.spare.request`)
    on the terms a spare checks: the daemon must see what a new
    interpreter started by the front end now would see, and what this
    helper loaded at its start (the plugins, by DBG_LOAD_PLUGINS and
    sys.path) hangs on the same environment."""
    from dbgcore.start import spare as protocol

    start = protocol.well_formed(request)
    if start is None:
        return {"refused": "bad request"}
    why = protocol.mismatch(start, own)
    if why:
        return {"refused": why}
    if threading.active_count() != 1:
        return {"refused": "the fork server has threads"}
    argv, words = start["argv"], start["words"]
    assert isinstance(argv, list) and isinstance(words, list)  # well formed
    fd = open_log(str(start["log"]))
    try:
        return {"pid": fork_daemon([str(a) for a in argv], fd,
                                   first_client=start["first_client"] is True,
                                   replacing_at=str(start["replacing_at"]) or None,
                                   start_words=[str(w) for w in words])}
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
    requests = os.dup(0)
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
    from dbgcore.start.spare import helper_path

    # The first spare listens before the helper says it is ready (the
    # front end asks it only then: dbgcore.start.launch.take_helper_spare).
    spares = _Spares(helper_path(os.getpid()))
    spares.ready()
    try:
        with contextlib.suppress(BrokenPipeError):
            answers.write((json.dumps(first) + "\n").encode())
            answers.flush()
            _serve(requests, answers, spares)
    finally:
        spares.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
