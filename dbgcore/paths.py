"""Where dbg keeps its files.

Everything dbg writes lives under one home directory: ``$DBG_HOME`` when set
(tests use it), else ``$XDG_STATE_HOME/dbg`` (``~/.local/state/dbg``). The home
and every session directory are private to the user (0700); sockets are 0600.
Unix socket paths are limited to ~107 bytes, so a session whose socket path
would be too long gets one under a short private directory in /tmp instead.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from dbgcore.bounds import shortened
from dbgcore.errors import UsageError

# fullmatch, not match with $: "$" also matches before a trailing newline.
_SESSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: A child process's session: its parent's name, "/", its own (NAME-PID).
_CHILD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(/[A-Za-z0-9][A-Za-z0-9_.-]{0,63})+")
#: A child session's folder is a sibling of its parent's, "/" written as this.
CHILD_SEP_IN_DIR = "+"
#: How a session's daemon knows the sessions of its program's children: the
#: role of their daemons' pids (SessionContext.track_process), then the name.
CHILD_SESSION_ROLE = "child session "
_MAX_SOCKET_PATH = 100


def dbg_home() -> Path:
    env = os.environ.get("DBG_HOME")
    if env:
        return Path(env).expanduser().absolute()
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "dbg"


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) and make sure only the user can enter it."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        if path.stat().st_mode & 0o077:
            path.chmod(0o700)
    except OSError as exc:
        raise UsageError(f"cannot make the private folder {path}: {exc.strerror}",
                         "set DBG_HOME to a folder of yours that can be written "
                         "(see dbg doctor)") from None
    return path


def check_session_name(name: str) -> str:
    if not _SESSION_RE.fullmatch(name) and not _CHILD_RE.fullmatch(name):
        raise UsageError(
            f"bad session name {shortened(name)!r}",
            "use up to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        )
    return name


def sessions_dir() -> Path:
    return private_dir(dbg_home() / "sessions")


def session_dir(name: str) -> Path:
    return sessions_dir() / check_session_name(name).replace("/", CHILD_SEP_IN_DIR)


def store_path() -> Path:
    return private_dir(dbg_home()) / "store.sqlite3"


def socket_path(name: str) -> Path:
    path = session_dir(name) / "daemon.sock"
    # The kernel limit is in bytes, and a non-ASCII home takes more than one each.
    if len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
        return path
    import hashlib

    digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:20]
    short = Path("/tmp") / f"dbg-{os.getuid()}"
    if not short.exists():
        private_dir(short)
    # /tmp is shared: someone else may have made this name first, to catch our socket.
    info = os.lstat(short)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise UsageError(f"{short} is not a private directory of yours; not using it",
                         "set DBG_HOME to a shorter path, or remove that directory")
    return short / f"{digest}.sock"


def user_config_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "dbg" / "backends.yaml"


def project_config_file(start: Path | None = None) -> Path | None:
    """The nearest ``.dbg/backends.yaml`` walking up from ``start`` (cwd)."""
    here = (start or Path.cwd()).absolute()
    for folder in (here, *here.parents):
        candidate = folder / ".dbg" / "backends.yaml"
        if candidate.is_file():
            return candidate
    return None
