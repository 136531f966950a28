"""Reading source files for stop snapshots, `dbg list` and the source rules
of :mod:`dbgcore.lang.rules`, with a bound on what one read may cost.

A path a user or a debugger names as a source is untrusted: ``/dev/zero``
never ends, a FIFO blocks its reader until a writer comes, a sparse file
of a gigabyte reads as a gigabyte of NULs. So a source is read only when it
is a regular file no larger than :data:`MAX_SOURCE_BYTES`; anything else is
refused with the reason (:func:`source_problem`), never read "until EOF".
The FIFO is opened with ``O_NONBLOCK`` so that even the open cannot wait.
"""

from __future__ import annotations

import functools
import os
import stat

#: A source file larger than this is not read (a few MB is more than any
#: hand-written source; a bigger one is generated, or not a source at all).
MAX_SOURCE_BYTES = 8 * 1024 * 1024


class SourceUnreadable(Exception):
    """The file cannot serve as a source; ``str(exc)`` says why, in one line."""


def read_source_bytes(path: str, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, refused (SourceUnreadable) when
    it is not a regular file, is larger than ``limit``, or cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SourceUnreadable(f"cannot read {path}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceUnreadable(f"{path} is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise SourceUnreadable(f"{path} is {_size(info.st_size)}, larger than the "
                                   f"{_size(limit)} dbg reads as a source")
        chunks: list[bytes] = []
        total = 0
        # Read no more than the bound even if the file grows while being read.
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise SourceUnreadable(f"{path} grew past the {_size(limit)} dbg reads as a source")
        return b"".join(chunks)
    except OSError as exc:
        raise SourceUnreadable(f"cannot read {path}: {exc.strerror}") from None
    finally:
        os.close(fd)


def read_source(path: str, limit: int = MAX_SOURCE_BYTES) -> str:
    """The text of ``path`` (UTF-8, undecodable bytes replaced), bounded as
    :func:`read_source_bytes`."""
    return read_source_bytes(path, limit).decode("utf-8", errors="replace")


def source_problem(path: str) -> str:
    """Why ``path`` cannot be read as a source ("" when it can)."""
    try:
        _lines(path, *_stamp(path))
    except SourceUnreadable as exc:
        return str(exc)
    return ""


def source_lines(path: str) -> list[str]:
    """The lines of ``path`` without line endings; SourceUnreadable when it
    cannot serve as a source."""
    return list(_lines(path, *_stamp(path)))


def _stamp(path: str) -> tuple[int, int]:
    # lstat would miss a symlink to /dev/zero; stat never opens the file, so
    # it cannot block on a FIFO.
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SourceUnreadable(f"cannot read {path}: {exc.strerror}") from None
    return info.st_mtime_ns, info.st_size


@functools.lru_cache(maxsize=32)
def _lines(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    # Cached on (path, mtime, size): a snapshot at every stop rereads nothing.
    # Errors are not cached (lru_cache does not keep exceptions).
    return tuple(line.rstrip("\r") for line in read_source(path).split("\n"))


def source_window(file: str, line: int, before: int, after: int) -> list[tuple[int, str]]:
    """Lines ``line-before .. line+after`` of ``file`` as (number, text), without
    line endings; empty when the file cannot be read (or is not a source:
    see :func:`source_problem`) or has no line ``line``."""
    try:
        lines = source_lines(file)
    except SourceUnreadable:
        return []
    if lines and lines[-1] == "":
        lines.pop()  # the text after the last newline is not a line
    if line < 1 or line > len(lines):
        return []
    first = max(1, line - before)
    last = min(len(lines), line + after)
    return [(n, lines[n - 1]) for n in range(first, last + 1)]


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _size(n: int) -> str:
    if n >= 1 << 30:
        return f"{n / (1 << 30):.1f} GB"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f} KB"
    return f"{n} bytes"
