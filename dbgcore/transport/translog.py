"""A per-session transcript of every exchange with the debugger, and the
bounds of a session's log files.

Lines sent to the debugger are written as ``--> ...``, its answers as
``<-- ...``, and notes as ``--- ...``, each with a timestamp. The log is for
people diagnosing a backend; it is never parsed.

Every log of a session is bounded, however long it runs or however much
its program prints:

- one message is logged as at most :data:`MESSAGE_LIMIT` characters (its
  head, then ``... [cut: N chars in all]``);
- a log file rotates when it passes its bound: ``NAME`` is renamed
  ``NAME.1`` (replacing the previous ``NAME.1``) and a fresh ``NAME`` is
  begun. So a session folder holds at most ``debugger.log`` and
  ``debugger.log.1`` (:data:`DEBUGGER_LOG_BYTES` each), and ``daemon.log``
  and ``daemon.log.1`` (:data:`DAEMON_LOG_BYTES` each); the newest lines
  are at the end of ``NAME``, the ones before them at the end of
  ``NAME.1``.
"""

from __future__ import annotations

import contextlib
import errno
import io
import logging
import os
import sys
import threading
import time
from pathlib import Path

from dbgcore.shared.diskspace import describe, disk_errno
from dbgcore.shared.homecheck import Untrusted, open_log
from dbgcore.shared.paths import untrusted

#: The most of one message a log keeps.
MESSAGE_LIMIT = 16 * 1024
#: Where debugger.log rotates to debugger.log.1.
DEBUGGER_LOG_BYTES = 8 * 1024 * 1024
#: Where daemon.log rotates to daemon.log.1.
DAEMON_LOG_BYTES = 4 * 1024 * 1024


def bounded(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text``, or its head and its length when longer than ``limit``."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [cut: {len(text)} chars in all]"


def rotated(path: Path) -> Path:
    """The file ``path`` rotates into: ``NAME.1`` beside it."""
    return path.with_name(path.name + ".1")


class LogHealth:
    """Whether a session's logs (and its status file) can be written, for
    its answers and its status.

    A log write that fails (a full disk, above all) must not fail the op
    that logged it: the line is dropped, the failure is told once (the next
    answer's ``note``) and for as long as it lasts (``dbg status``), and the
    log goes on when writes work again, with a line saying how many it lost.
    Written to from any thread that logs (a DAP reader's among them).
    """

    def __init__(self, home: Path | None = None) -> None:
        #: DBG_HOME, to name the disk a failure is on.
        self.home = home
        self._lock = threading.Lock()
        #: Log file name -> why it cannot be written, while it cannot.
        self._failing: dict[str, str] = {}
        self._notes: list[str] = []

    def failed(self, path: Path, exc: OSError) -> None:
        err = disk_errno(exc)
        why = describe(err, self.home or path.parent) if err is not None \
            else exc.strerror or str(exc)
        with self._lock:
            if path.name in self._failing:
                return
            self._failing[path.name] = why
            self._notes.append(f"{path.name} cannot be written ({why}): the session goes on "
                               "without it until it can be (see dbg doctor)")

    def recovered(self, path: Path) -> None:
        with self._lock:
            self._failing.pop(path.name, None)

    def take_notes(self) -> list[str]:
        """What the user has not been told yet."""
        with self._lock:
            notes, self._notes = self._notes, []
        return notes

    def problem(self) -> str | None:
        """Which logs cannot be written now, and why; None when all can."""
        with self._lock:
            names_by_why: dict[str, list[str]] = {}
            for name, why in sorted(self._failing.items()):
                names_by_why.setdefault(why, []).append(name)
        if not names_by_why:
            return None
        return "; ".join(f"{_listed(names)} cannot be written ({why})"
                         for why, names in names_by_why.items())


def _listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


class TransLog:
    """``health``: told of each write that fails and of the first that
    works again; a write that fails drops its lines and never raises."""

    def __init__(self, path: Path | None, max_bytes: int = DEBUGGER_LOG_BYTES,
                 health: LogHealth | None = None) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.health = health
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._closed = path is None
        self._size = 0
        #: Lines dropped since the last write that worked, and whether that
        #: one was cut short (the disk filled in the middle of it).
        self._lost = 0
        self._torn = False
        if path is not None:
            self._reopen()

    def _open(self) -> None:
        assert self.path is not None
        try:
            fd = open_log(str(self.path))
        except Untrusted as exc:
            raise untrusted(exc.problem) from None
        self._size = os.fstat(fd).st_size
        self._fd = fd

    def _reopen(self) -> bool:
        """Open the file if it is not; False when it cannot be (told to health)."""
        if self._fd is not None:
            return True
        try:
            self._open()
        except OSError as exc:
            self._failed(exc)
            return False
        return True

    def _failed(self, exc: OSError) -> None:
        if self.health is not None and self.path is not None:
            self.health.failed(self.path, exc)

    def _rotate(self) -> None:
        assert self.path is not None and self._fd is not None
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = None
        with contextlib.suppress(OSError):
            os.replace(self.path, rotated(self.path))
        self._reopen()

    def _write(self, arrow: str, text: str) -> None:
        if self.path is None:
            return
        # One reading of the clock: two (the seconds, then the milliseconds)
        # wrote 08:21:58.002 for 08:21:59.002 across a second's turn.
        now = time.time()
        stamp = time.strftime("%H:%M:%S", time.localtime(now)) + f".{int(now * 1000) % 1000:03d}"
        lines = bounded(text).splitlines() or [""]
        block = "".join(f"{stamp} {arrow} {line}\n" for line in lines).encode("utf-8", "replace")
        with self._lock:
            if self._closed:
                return  # closed by another thread meanwhile
            if self._reopen() and self._size and self._size + len(block) > self.max_bytes:
                self._rotate()
            if self._fd is None:
                self._lost += len(lines)
                return
            if self._lost:
                block = (("\n" if self._torn else "")
                         + f"{stamp} --- {self._lost} lines were not logged here: the file "
                           "could not be written\n").encode() + block
            try:
                self._size += _write_all(self._fd, block)
            except _ShortWrite as short:
                self._size += short.written
                self._lost += len(lines)
                self._torn = bool(short.written)
                self._failed(short.error)
                return
            self._lost, self._torn = 0, False
            if self.health is not None and self.path is not None:
                self.health.recovered(self.path)

    def sent(self, text: str) -> None:
        self._write("-->", text)

    def received(self, text: str) -> None:
        self._write("<--", text)

    def note(self, text: str) -> None:
        self._write("---", text)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None


class _ShortWrite(Exception):
    def __init__(self, written: int, error: OSError) -> None:
        super().__init__(str(error))
        self.written = written
        self.error = error


def _write_all(fd: int, data: bytes) -> int:
    """Write all of ``data``; its length, or _ShortWrite with what was written."""
    view, written = memoryview(data), 0
    while written < len(data):
        try:
            n = os.write(fd, view[written:])
        except OSError as exc:
            raise _ShortWrite(written, exc) from exc
        if n == 0:
            raise _ShortWrite(written, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
        written += n
    return written


class BoundedLogHandler(logging.FileHandler):
    """The daemon's log (``daemon.log``): rotates to ``NAME.1`` at ``max_bytes``, each record
    cut to MESSAGE_LIMIT. With ``owns_stderr`` (the daemon's fd 2 is this
    file, for what Python itself prints there), fd 2 follows each rotation
    into the fresh file, so it never writes on into a removed one.

    A FileHandler that rotates itself rather than logging.handlers'
    RotatingFileHandler: that module imports pickle, socket and queue, some
    2 ms of every daemon's start, for one rename."""

    def __init__(self, path: Path, max_bytes: int = DAEMON_LOG_BYTES,
                 owns_stderr: bool = False, health: LogHealth | None = None) -> None:
        self.max_bytes = max_bytes
        self.owns_stderr = owns_stderr
        #: Told when a record cannot be written, and when one can again.
        self.health = health
        super().__init__(path, encoding="utf-8")

    def _open(self) -> io.TextIOWrapper:
        # Private like every file of a session, also after a rotation.
        fd = open_log(self.baseFilename)
        return open(fd, "a", encoding="utf-8", errors="replace")

    def format(self, record: logging.LogRecord) -> str:
        return bounded(super().format(record))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if self.stream is None:
                self.stream = self._open()
            # Characters are close enough to bytes for a bound; a file with
            # nothing in it yet takes the record whatever its size.
            size = self.stream.tell()
            if self.max_bytes and size and size + len(self.format(record)) + 1 >= self.max_bytes:
                self.rotate()
        except Exception:
            self.handleError(record)
            return
        super().emit(record)
        # A record that failed closed the stream (handleError): one that has
        # it still open was written.
        if self.stream is not None and self.health is not None:
            self.health.recovered(Path(self.baseFilename))

    def handleError(self, record: logging.LogRecord) -> None:
        """A record that cannot be written (a full disk) is dropped, and the
        session told once; logging's own report of it would go to stderr,
        which is this same file."""
        exc = sys.exc_info()[1]
        if not isinstance(exc, OSError):
            super().handleError(record)
            return
        if self.health is not None:
            self.health.failed(Path(self.baseFilename), exc)
        # Its buffer holds what could not be written; the next record opens
        # the file again rather than pile up behind it.
        if self.stream is not None:
            with contextlib.suppress(Exception):
                self.stream.close()
            self.stream = None

    def rotate(self) -> None:
        """``NAME`` becomes ``NAME.1`` (replacing the one before) and a
        fresh ``NAME`` is begun."""
        if self.stream is not None:
            self.stream.close()
        with contextlib.suppress(OSError):
            os.replace(self.baseFilename, rotated(Path(self.baseFilename)))
        self.stream = self._open()
        if self.owns_stderr:
            with contextlib.suppress(OSError, ValueError):
                os.dup2(self.stream.fileno(), 2)
