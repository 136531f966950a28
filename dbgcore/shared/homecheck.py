"""What dbg trusts in its home: only what it made itself.

The home (``$DBG_HOME``) and every folder in it must be the user's own and
writable by no one else (as OpenSSH treats ``~/.ssh``): a folder someone
else made, or can write in, may hold a status file naming their processes,
a planted socket, or links to files dbg would then write. Nothing in the
home is reached through a symbolic link (the kernel's ``O_NOFOLLOW``; this
must hold where ``fs.protected_symlinks`` is 0).

Folders are made and then verified by the file descriptor opened on them
(``O_NOFOLLOW | O_DIRECTORY``, then ``fstat``), one below the other, never
checked by name and then used: between a check and its use, a name can be
swapped. Once a folder is verified, its own entries are safe to use by
name: no one else can add, rename or remove them.

Imports ``os``, ``stat`` (both loaded at Python's start) and the built-in
``errno`` only, not even ``contextlib`` (milliseconds, with collections and functools): the fast
path's client (:mod:`dbgcore.entry`) makes a new session's folders and log
with it before it forks the daemon. (Before it connects to a daemon it
checks the folders with a stricter copy of :func:`folders_problem` of its
own, ``entry._private``: one module less to import on every call.)
"""

from __future__ import annotations

import errno
import os
import stat

#: What to do about a home that is not to be trusted.
FIX = "remove it, or set DBG_HOME to a folder of yours"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Untrusted(OSError):
    """A path in dbg's home that dbg did not make or that others can change;
    its text says which path and why (an OSError: a cache that meets one is
    only not used)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem

    def __str__(self) -> str:
        return self.problem


def owner_name(uid: int) -> str:
    """``nobody (uid 65534)``; only the uid when it has no name."""
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def why_untrusted(info: os.stat_result, folder: bool = True) -> str | None:
    """Why a folder (``folder``) or a file of dbg's home with these facts
    (from ``lstat`` or ``fstat``) is not to be trusted; None when it is."""
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if folder and not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    if not folder and not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_uid != os.geteuid():
        return f"belongs to {owner_name(info.st_uid)}, not to you"
    if info.st_mode & 0o022:
        return f"can be written by others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def _names(home: str, path: str) -> list[str]:
    """The names from ``home`` down to ``path`` (``home`` itself first)."""
    rest = os.path.relpath(path, home)
    below = [] if rest == "." else rest.split(os.sep)
    if ".." in below:
        raise ValueError(f"{path} is not in {home}")
    return [home, *below]


def folders_problem(home: str, path: str | None = None) -> str | None:
    """What is wrong with the first of the home and the folders down to
    ``path`` (in the home) that is not to be trusted; None when all that
    exist are trusted (those not made yet are not a problem). One ``lstat``
    a folder: the home's entries cannot change under this check once the
    home is found trusted (see the module's docstring)."""
    here = ""
    for name in _names(home, path or home):
        here = os.path.join(here, name) if here else name
        try:
            info = os.lstat(here)
        except (FileNotFoundError, NotADirectoryError):
            return None  # not there: making it says what is wrong, if anything
        except OSError as exc:
            return f"{here} cannot be read: {exc.strerror}"
        why = why_untrusted(info)
        if why is not None:
            return f"{here} {why}"
    return None


def files_problem(folder: str, names: tuple[str, ...]) -> str | None:
    """What is wrong with the first of the files ``names`` in ``folder`` (a
    verified folder of the home) that exists and is not to be trusted; None
    when none is. For a look before a process is started that would meet
    it later, where its refusal would not reach the user (it opens them
    with :func:`open_file` too)."""
    for name in names:
        path = os.path.join(folder, name)
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        why = why_untrusted(info, folder=False)
        if why is not None:
            return f"{path} {why}"
    return None


def make_folders(home: str, path: str | None = None, tighten: bool = True) -> None:
    """Make the home and the folders down to ``path`` (in the home) where
    they are missing, 0700, and verify each by its file descriptor: the
    user's own folder, no link, writable by no one else (a folder of the
    user's that others can only read is made 0700 through that descriptor).
    The folders above the home are the user's choice and are only made.
    Without ``tighten``, a folder others can read is left so (a cache
    written beside what `dbg doctor` is to find as it was). Raises
    :class:`Untrusted`, or OSError when a folder cannot be made."""
    names = _names(home, path or home)
    top = os.path.dirname(home) or "/"
    os.makedirs(top, exist_ok=True)
    here = top
    at = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for step, name in enumerate(names):
            if step == 0:
                name = os.path.basename(home)
            here = os.path.join(here, name)
            try:
                os.mkdir(name, 0o700, dir_fd=at)
            except FileExistsError:
                pass
            try:
                inner = os.open(name, _DIR_FLAGS, dir_fd=at)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                try:
                    found = why_untrusted(os.lstat(name, dir_fd=at))
                except FileNotFoundError:
                    raise  # gone meanwhile (the link removed): as if never there
                except OSError:
                    found = None
                raise Untrusted(f"{here} {found or 'is not a folder'}") from None
            os.close(at)
            at = inner
            info = os.fstat(at)
            problem = why_untrusted(info)
            if problem is not None:
                raise Untrusted(f"{here} {problem}")
            if tighten and info.st_mode & 0o077:
                os.fchmod(at, 0o700)
    finally:
        os.close(at)


def open_file(path: str, flags: int, mode: int = 0o600) -> int:
    """``os.open`` of a file in a verified folder of the home, never through
    a link, and verified by its descriptor: a regular file of the user's
    that no one else can write. Raises :class:`Untrusted` (or the open's
    OSError)."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Untrusted(f"{path} is a symbolic link") from None
        raise
    try:
        why = why_untrusted(os.fstat(fd), folder=False)
    except OSError:
        os.close(fd)
        raise
    if why is not None:
        os.close(fd)
        raise Untrusted(f"{path} {why}")
    return fd


def open_log(path: str) -> int:
    """A log of the home opened to append to, made 0600 if new."""
    return open_file(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)


def read_file(path: str) -> bytes:
    """The bytes of a file of the home (see :func:`open_file`)."""
    fd = open_file(path, os.O_RDONLY)
    with open(fd, "rb") as fh:
        return fh.read()


def write_file(path: str, data: bytes, temporary: str | None = None) -> None:
    """Replace the file at ``path`` with ``data`` at once (0600), written
    first to ``temporary`` (beside it): whatever is at that name is removed
    first and the file is made new (``O_EXCL``), so a link left there is
    never written through."""
    temporary = temporary or f"{path}.{os.getpid()}.tmp"
    for _ in range(3):
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o600)
            break
        except FileExistsError:
            continue  # another writer's, made between the unlink and here
    else:
        raise FileExistsError(errno.EEXIST, "made again by another writer", temporary)
    try:
        with open(fd, "wb") as fh:
            fh.write(data)
        os.replace(temporary, path)
    except OSError:
        # A full disk refuses the data: the empty file goes too, not one
        # more left for each call.
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
