"""Telling a disk that refuses dbg's own files from dbg's bugs.

A write under DBG_HOME that fails for want of space (``ENOSPC``), of quota
(``EDQUOT``), on a read-only disk (``EROFS``), on a failing one (``EIO``) or
past the file size limit (``EFBIG``) is neither a bug in dbg nor the op's
fault: it is said in one line that names the disk and what to do, and what
was recorded before stays. Logs that cannot be written do not fail an op at
all (:class:`dbgcore.transport.translog.LogHealth`).

Light to import (``os``, the built-in ``errno`` and :mod:`dbgcore.shared.errors`):
the fast-path client (:mod:`dbgcore.entry`) asks :func:`home_errno` when
a daemon it forked died at start.

Two questions, each answered by an errno (or None): :func:`disk_errno` of an
error a write raised, :func:`home_errno` of a folder tried. And one way to
tell it: :func:`refusal` (the one-line error; :func:`refused` for an error
raised), or :func:`describe` and :func:`hint` where the words go elsewhere
(a log note, a doctor check).
"""

from __future__ import annotations

import errno
import os

from dbgcore.shared.errors import DiskFull

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

#: What a write's errno says about the disk it went to.
DISK_ERRNOS: dict[int, str] = {
    errno.ENOSPC: "is full",
    errno.EDQUOT: "is over your disk quota",
    errno.EROFS: "is read-only",
    errno.EIO: "gives I/O errors",
    errno.EFBIG: "refuses files that large (the file size limit, ulimit -f)",
}

#: What to do about each.
_HINTS: dict[int, str] = {
    errno.ENOSPC: "free some space there",
    errno.EDQUOT: "free some of your files there",
    errno.EROFS: "mount it read-write",
    errno.EIO: "check the disk (dmesg tells its errors)",
    errno.EFBIG: "raise the file size limit (ulimit -f)",
}


def hint(err: int) -> str:
    """What to do about a disk that refused a write with ``err``."""
    return (f"{_HINTS.get(err, 'make it writable')}, or set DBG_HOME to a folder on another "
            "disk; what was recorded before is kept")

#: The size of the probe :func:`write_problem` writes: one page, the least a
#: file with data takes on tmpfs and most disks.
PROBE_BYTES = 4096


def disk_errno(exc: BaseException) -> int | None:
    """The errno of ``exc`` when it is a disk refusing a write, else None."""
    if isinstance(exc, OSError) and exc.errno in DISK_ERRNOS:
        return exc.errno
    return None


def describe(err: int, folder: Path | str, label: str = "DBG_HOME") -> str:
    """``the disk holding DBG_HOME (/path) is full``, for a disk errno."""
    return f"the disk holding {label} ({folder}) {DISK_ERRNOS.get(err, 'refuses writes')}"


def refusal(err: int, folder: Path | str, what: str, label: str = "DBG_HOME") -> DiskFull:
    """The one-line error a user gets for a disk errno: ``WHAT: the disk
    holding DBG_HOME (...) is full``, and what to do."""
    return DiskFull(f"{what}: {describe(err, folder, label)}", hint(err))


def refused(exc: BaseException, folder: Path | str, what: str,
            label: str = "DBG_HOME") -> DiskFull | None:
    """``exc`` as :func:`refusal` when it is a disk refusing a write; else None."""
    err = disk_errno(exc)
    return None if err is None else refusal(err, folder, what, label)


def write_problem(folder: Path | str) -> int | None:
    """The disk errno a small write into ``folder`` fails with; None when it
    is written (or fails for another reason, which is not the disk's).
    Tried, not asked of statvfs: a quota, root's reserved blocks and a
    file size limit are all the write's to tell."""
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return errno.EROFS
    except OSError:
        return None
    path = os.path.join(folder, f".dbg-space-probe-{os.getpid()}")
    try:
        # O_EXCL and O_NOFOLLOW: a name someone put here is not written through.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        return disk_errno(exc)
    try:
        written = os.write(fd, b"\0" * PROBE_BYTES)
        # A short write is the disk's last bytes.
        return None if written == PROBE_BYTES else errno.ENOSPC
    except OSError as exc:
        return disk_errno(exc)
    finally:
        os.close(fd)
        try:
            os.unlink(path)
        except OSError:
            pass


def home_errno(home: Path | str, write: bool = True) -> int | None:
    """The disk errno that keeps dbg from writing in ``home``, or None when
    a write there works. ``write=False``: only what statvfs tells (read-only,
    no block free), for a folder dbg must not write in."""
    if not os.path.isdir(home):
        return None
    if write:
        return write_problem(home)
    try:
        info = os.statvfs(home)
    except OSError:
        return None
    return errno.EROFS if info.f_flag & os.ST_RDONLY else \
        errno.ENOSPC if info.f_bavail == 0 else None


def free_bytes(folder: Path | str) -> int | None:
    """Bytes an unprivileged write may still take on ``folder``'s disk."""
    try:
        info = os.statvfs(folder)
    except OSError:
        return None
    return info.f_bavail * info.f_frsize
