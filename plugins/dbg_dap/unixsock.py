"""Connecting to an adapter that listens on a UNIX socket of dbg's choosing
(rdbg --open --sock-path): the socket is in the session's private run
folder, so only this user can reach it, and no port is ever open."""

from __future__ import annotations

import os
import socket
import time

from dbgcore.api import AdapterProcess, BackendError, SocketTransport


def connect_unix(path: str, process: AdapterProcess, timeout: float) -> SocketTransport:
    """A connection to ``path`` once ``process`` listens there; a clear
    error when it ends first or does not listen within ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        if os.path.exists(path):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(path)
                return SocketTransport(sock)
            except OSError:
                sock.close()
        if process.proc.poll() is not None:
            raise BackendError(process.exit_description() + " before listening",
                               process.diagnostics())
        if time.monotonic() > deadline:
            raise BackendError(f"the adapter did not listen on {path} within {timeout:g}s",
                               process.diagnostics())
        time.sleep(0.02)
