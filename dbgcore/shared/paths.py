"""Where dbg keeps its files.

Everything dbg writes lives under one home directory: ``$DBG_HOME`` when set
(tests use it), else ``$XDG_STATE_HOME/dbg`` (``~/.local/state/dbg``). The home
and every session directory are private to the user (0700); sockets are 0600.
dbg trusts no folder in the home it did not make (:mod:`dbgcore.shared.homecheck`):
one that is another user's, that others can write in, or that is a link is
refused with a :class:`~dbgcore.shared.errors.UsageError` saying whose it is.
Unix socket paths are limited to ~107 bytes, so a session whose socket path
would be too long gets one under a short private directory in /tmp instead.
"""

from __future__ import annotations

import os
from pathlib import Path

from dbgcore.shared import homecheck
from dbgcore.shared.bounds import shortened
from dbgcore.shared.errors import UsageError
from dbgcore.shared.sessionsocket import (
    CHILD_SEP_IN_DIR,
    MAX_SOCKET_PATH,
    SESSIONS,
    SOCKET_NAME,
    well_formed,
)

#: How a session's daemon knows the sessions of its program's children: the
#: role of their daemons' pids (SessionContext.track_process), then the name.
CHILD_SESSION_ROLE = "child session "
_MAX_SOCKET_PATH = MAX_SOCKET_PATH


def dbg_home() -> Path:
    env = os.environ.get("DBG_HOME")
    if env:
        return Path(env).expanduser().absolute()
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "dbg"


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) and make sure only the user can enter
    it; a folder in the home is made and verified from the home down
    (:func:`dbgcore.shared.homecheck.make_folders`), one elsewhere (a build folder
    a plugin keeps) by itself. Raises UsageError for a folder that cannot
    be made or is not to be trusted."""
    home = dbg_home()
    inside = path == home or home in path.parents
    try:
        if inside:
            homecheck.make_folders(str(home), str(path))
        else:
            homecheck.make_folders(str(path))
    except homecheck.Untrusted as exc:
        raise untrusted(exc.problem) from None
    except OSError as exc:
        raise UsageError(f"cannot make the private folder {path}: {exc.strerror}",
                         "set DBG_HOME to a folder of yours that can be written "
                         "(see dbg doctor)") from None
    return path


def untrusted(problem: str) -> UsageError:
    """The refusal of a path in the home dbg does not trust (``problem``
    says which and why)."""
    return UsageError(f"not using dbg's home: {problem}", homecheck.FIX)


def check_home(path: Path | None = None) -> None:
    """Refuse a home whose folders down to ``path`` (those that exist) are
    not to be trusted; what every command does before it reads anything
    there (the folders it makes are verified as they are made)."""
    problem = homecheck.folders_problem(str(dbg_home()), None if path is None else str(path))
    if problem is not None:
        raise untrusted(problem)


def check_session_name(name: str) -> str:
    if not well_formed(name):
        raise UsageError(
            f"bad session name {shortened(name)!r}",
            "use up to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        )
    return name


def sessions_dir() -> Path:
    return private_dir(dbg_home() / SESSIONS)


def session_dir(name: str) -> Path:
    """The session's folder (verified if it exists, not made: see
    :func:`private_dir`)."""
    folder = sessions_dir() / check_session_name(name).replace("/", CHILD_SEP_IN_DIR)
    check_home(folder)
    return folder


def store_path() -> Path:
    return private_dir(dbg_home()) / "store.sqlite3"


#: Where the socket of a session whose own path is too long goes: a folder
#: named for the user in this shared, sticky folder.
SHORT_SOCKET_BASE = "/tmp"


def short_socket_dir() -> Path:
    """``/tmp/dbg-UID``, made private or found so, without a race: made and
    verified by its descriptor (:func:`dbgcore.shared.homecheck.make_folders`);
    /tmp's sticky bit keeps a folder of ours ours once it is. One made by
    someone else first is refused, saying whose it is."""
    short = os.path.join(SHORT_SOCKET_BASE, f"dbg-{os.geteuid()}")
    for _ in range(20):
        try:
            homecheck.make_folders(short)
            return Path(short)
        except FileNotFoundError:
            continue  # removed between its making and its opening (by whoever made it): again
        except homecheck.Untrusted as exc:
            why = exc.problem.removeprefix(f"{short} ")
        except OSError as exc:
            why = f"cannot be made: {exc.strerror}"
        break
    else:
        why = "kept changing while dbg made it"
    raise UsageError(f"the folder for sockets of long DBG_HOMEs, {short}, {why}; not using it",
                     "remove it, or set DBG_HOME to a shorter path")


def socket_path(name: str) -> Path:
    path = session_dir(name) / SOCKET_NAME
    # The kernel limit is in bytes, and a non-ASCII home takes more than one each.
    if len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
        return path
    import hashlib

    digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:20]
    return short_socket_dir() / f"{digest}.sock"


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
