"""The daemon's socket: where clients reach it, and the threads that serve them.

Apart from the daemon's ops because none of this knows what an op is: a
private Unix socket bound with no room for another user to connect, the test
of whether clients can still find it, its move to the session's own path,
and the threads that each serve one connection at a time. The daemon
(:mod:`dbgcore.daemon.server`) says what a connection is served with and when
the socket closes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import socket
import threading
from collections.abc import Callable
from pathlib import Path

from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.wire import encode_message

log = logging.getLogger("dbg.daemon")

#: Threads kept waiting for the next connection (see Connections).
KEEP_THREADS = 4


class Door:
    """The daemon's listening socket at ``path``: its file is this daemon's
    only while it has the inode this daemon bound (a new daemon of the same
    name may bind the path after this one began to end)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.socket: socket.socket | None = None
        self._inode = -1

    def open(self) -> socket.socket:
        """Bind and listen, the file readable by its owner only from the
        start (the umask), then accept with a timeout so the daemon looks
        at its clock between connections."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            listener.bind(str(self.path))
        finally:
            os.umask(old_umask)
        os.chmod(self.path, 0o600)
        self._inode = os.stat(self.path).st_ino
        listener.listen(16)
        listener.settimeout(0.5)
        self.socket = listener
        return listener

    def still_ours(self) -> bool:
        """Whether the socket's file is where it was, and the one bound here
        (OSError when it is gone)."""
        return os.stat(self.path).st_ino == self._inode

    def move_to(self, path: Path) -> None:
        """The listening socket moves with its file: clients reach it there."""
        os.replace(self.path, path)
        self.path = path

    def close(self) -> None:
        """No client reaches this daemon any more: the listener closed (the
        accept loop then ends), the socket's path gone."""
        if self.socket is not None:
            with contextlib.suppress(OSError):
                self.socket.close()
        with contextlib.suppress(OSError):
            # Only our own socket: a new daemon of this name may have bound
            # the path already (after a failed start, this one ends late).
            if self.still_ours():
                os.unlink(self.path)


def reply(conn: socket.socket, response: JsonObject) -> None:
    send(conn, encode_message(response))


def send(conn: socket.socket, data: bytes) -> None:
    try:
        conn.sendall(data)
    except OSError as exc:
        # The client gave up (e.g. Ctrl-C); the op's effect stands.
        log.info("client went away before the answer: %s", exc)


class Connections:
    """The threads that serve the daemon's connections, one each at a time.
    One that is done waits for the next connection (up to KEEP_THREADS of
    them wait) rather than ending: handing a connection to a waiting thread
    costs less than starting one (0.3-4 ms, median about 1, measured in a
    session's daemon between the accept and the thread's first line), on
    every command's path."""

    def __init__(self, serve: Callable[[socket.socket], None]) -> None:
        self._serve = serve
        self._lock = threading.Lock()
        #: Threads waiting for a connection; each takes one put in _handed.
        self._idle = 0
        self._handed: queue.SimpleQueue[tuple[socket.socket, threading.Event]] = \
            queue.SimpleQueue()
        #: One event per connection being served, set when it is done.
        self._serving: set[threading.Event] = set()

    def serve(self, conn: socket.socket) -> None:
        """Serve ``conn`` on a thread of its own, a waiting one if there is one."""
        done = threading.Event()
        with self._lock:
            self._serving.add(done)
            if self._idle:
                self._idle -= 1
                self._handed.put((conn, done))
                return
        threading.Thread(target=self._run, args=(conn, done), daemon=True,
                         name="dbg-connection").start()

    def _run(self, conn: socket.socket, done: threading.Event) -> None:
        while True:
            try:
                self._serve(conn)
            except Exception:
                log.exception("error while serving a connection")
            finally:
                done.set()
                with self._lock:
                    self._serving.discard(done)
                    keep = self._idle < KEEP_THREADS
                    if keep:
                        self._idle += 1
            if not keep:
                return
            conn, done = self._handed.get()

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for each connection being served."""
        with self._lock:
            serving = list(self._serving)
        for done in serving:
            done.wait(timeout)
