"""A session's socket, for a process that has imported nothing but ``os``:
where it is (the session-name rule, dbg's home, the socket's name and the
longest path used as it is), and one request to it as a JSON line, without
the ``json`` module (2-3 ms to import), with its whole answer read over the
built-in ``_socket``.

The one statement of these: :mod:`dbgcore.shared.paths` builds on it, and
so do the fast path's client (:mod:`dbgcore.entry`), the ways of starting a
daemon that run before anything else is imported (:mod:`dbgcore.start.launch`)
and the early spawn (:mod:`dbgcore.transport.early`). One module, not two: each
costs the fast path's every call a tenth of a millisecond to import.
"""

from __future__ import annotations

import os

#: The longest socket path used as it is (Linux allows 107 bytes); a longer
#: one goes under a short private folder in /tmp (dbgcore.shared.paths.socket_path).
MAX_SOCKET_PATH = 100
#: The letters of each part of a session's name, and its longest part.
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
NAME_MAX = 64
#: A child process's session is named PARENT/NAME-PID; its folder is a
#: sibling of its parent's, "/" written as this.
CHILD_SEP_IN_DIR = "+"
#: The folder of the sessions in the home, and a session's socket in its folder.
SESSIONS = "sessions"
SOCKET_NAME = "daemon.sock"
#: A live session's status file (dbgcore.shared.status), and its daemon's log.
STATUS_NAME = "status.json"
DAEMON_LOG = "daemon.log"


def well_formed(name: str) -> bool:
    """Whether ``name`` is a session's name: up to 64 letters, digits, '.',
    '_' or '-', from a letter or digit; a child process's session is its
    parent's name, '/', its own (each part so)."""
    return all(0 < len(part) <= NAME_MAX and set(part) <= NAME_CHARS and part[0] not in "._-"
               for part in name.split("/"))


def home() -> str:
    """dbg's home: ``$DBG_HOME`` when set, else ``$XDG_STATE_HOME/dbg``
    (``~/.local/state/dbg``), as an absolute path."""
    found = os.environ.get("DBG_HOME")
    if found:
        return os.path.abspath(os.path.expanduser(found))
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "dbg")


def session_folder(base: str, name: str) -> str:
    """Session ``name``'s folder under the home ``base``."""
    return os.path.join(base, SESSIONS, name.replace("/", CHILD_SEP_IN_DIR))


_JSON_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)} | {ord('"'): '\\"', ord("\\"): "\\\\"}


def json_text(value: object) -> str:
    """Enough JSON for a request: strings, lists of them, bools, numbers,
    objects of them."""
    if isinstance(value, str):
        return '"' + value.translate(_JSON_ESCAPES) + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ",".join(f"{json_text(k)}:{json_text(v)}" for k, v in value.items()) + "}"


def ask(path: str, request: bytes, timeout: float) -> bytes:
    """``request`` (one line) to whoever listens at ``path``, and all it answers."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(request)
        chunks: list[bytes] = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        sock.close()
