"""Where dbg's home and a session's socket are, with nothing but ``os``.

The one statement of the session-name rule, the socket's name and the
longest socket path used as it is: :mod:`dbgcore.shared.paths` builds on it,
and so does the fast path's client (:mod:`dbgcore.entry`) and the early
spawn (:mod:`dbgcore.transport.early`), which run before anything else is
imported (``pathlib``, ``re`` and the errors cost a call more than it takes).
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
