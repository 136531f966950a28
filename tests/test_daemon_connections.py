"""The daemon's connection threads (dbgcore.daemon.listener.Connections): every
connection is served at once, however many wait at the same time; a thread
done with one waits for the next rather than ending, and no more than
KEEP_THREADS of them wait."""

from __future__ import annotations

import socket
import threading
import time

from dbgcore.daemon.listener import KEEP_THREADS, Connections


def _pair() -> tuple[socket.socket, socket.socket]:
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)


def _connection_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "dbg-connection"]


def _settle(most: int) -> None:
    """Until no more than ``most`` connection threads are alive (10 s at most)."""
    deadline = time.monotonic() + 10
    while len(_connection_threads()) > most and time.monotonic() < deadline:
        time.sleep(0.01)


def test_connections_that_wait_at_once_are_all_served_and_threads_are_kept() -> None:
    release = threading.Event()
    served: list[bytes] = []
    lock = threading.Lock()

    def serve(conn: socket.socket) -> None:
        with conn:
            data = conn.recv(16)
            with lock:
                served.append(data)
            if data.startswith(b"wait"):
                release.wait(10)
            conn.sendall(b"ok " + data)

    connections = Connections(serve)
    before = len(_connection_threads())
    # More connections waiting at once than threads are kept: each is served.
    clients = []
    for n in range(KEEP_THREADS + 3):
        ours, theirs = _pair()
        ours.sendall(b"wait%d" % n)
        connections.serve(theirs)
        clients.append(ours)
    deadline = time.monotonic() + 10
    while len(served) < len(clients) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(served) == len(clients)
    release.set()
    for n, ours in enumerate(clients):
        ours.settimeout(10)
        assert ours.recv(16) == b"ok wait%d" % n
        ours.close()
    connections.join(10)
    # The threads beyond the kept ones end; the kept ones serve what comes next.
    _settle(before + KEEP_THREADS)
    assert len(_connection_threads()) == before + KEEP_THREADS
    for n in range(20):
        ours, theirs = _pair()
        ours.sendall(b"now%d" % n)
        connections.serve(theirs)
        ours.settimeout(10)
        assert ours.recv(16) == b"ok now%d" % n
        ours.close()
    # A client has its answer before the thread that sent it is back among
    # the waiting ones: under load the next connection may find none waiting
    # and get a new thread, one that ends when the others are back.
    _settle(before + KEEP_THREADS)
    assert len(_connection_threads()) == before + KEEP_THREADS


def test_join_waits_for_a_connection_being_served_not_for_waiting_threads() -> None:
    release = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            if conn.recv(16) == b"slow":
                release.wait(10)
            conn.sendall(b"done")

    connections = Connections(serve)
    quick, theirs = _pair()
    quick.sendall(b"quick")
    connections.serve(theirs)
    quick.settimeout(10)
    assert quick.recv(16) == b"done"
    # Only a kept thread, waiting for a connection: nothing to wait for.
    began = time.monotonic()
    connections.join(5)
    assert time.monotonic() - began < 1
    slow, theirs = _pair()
    slow.sendall(b"slow")
    connections.serve(theirs)
    threading.Timer(0.3, release.set).start()
    began = time.monotonic()
    connections.join(5)
    assert 0.2 < time.monotonic() - began < 4
    slow.settimeout(10)
    assert slow.recv(16) == b"done"
