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
import io
import logging
import os
import threading
import time
from pathlib import Path
from typing import TextIO

from dbgcore.homecheck import Untrusted, open_log
from dbgcore.paths import untrusted

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


class TransLog:
    def __init__(self, path: Path | None, max_bytes: int = DEBUGGER_LOG_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._fh: TextIO | None = None
        self._size = 0
        if path is not None:
            self._open()

    def _open(self) -> None:
        assert self.path is not None
        try:
            fd = open_log(str(self.path))
        except Untrusted as exc:
            raise untrusted(exc.problem) from None
        self._size = os.fstat(fd).st_size
        self._fh = os.fdopen(fd, "a", encoding="utf-8", errors="replace")

    def _rotate(self) -> None:
        assert self.path is not None and self._fh is not None
        self._fh.close()
        self._fh = None
        with contextlib.suppress(OSError):
            os.replace(self.path, rotated(self.path))
        self._open()

    def _write(self, arrow: str, text: str) -> None:
        if self._fh is None:
            return
        # One reading of the clock: two (the seconds, then the milliseconds)
        # wrote 08:21:58.002 for 08:21:59.002 across a second's turn.
        now = time.time()
        stamp = time.strftime("%H:%M:%S", time.localtime(now)) + f".{int(now * 1000) % 1000:03d}"
        lines = bounded(text).splitlines() or [""]
        block = "".join(f"{stamp} {arrow} {line}\n" for line in lines)
        with self._lock:
            if not self._is_open():
                return  # closed by another thread meanwhile
            if self._size and self._size + len(block) > self.max_bytes:
                self._rotate()
            assert self._fh is not None
            self._fh.write(block)
            self._fh.flush()
            # Characters, not bytes: close enough for a bound, and cheap.
            self._size += len(block)

    def _is_open(self) -> bool:
        return self._fh is not None

    def sent(self, text: str) -> None:
        self._write("-->", text)

    def received(self, text: str) -> None:
        self._write("<--", text)

    def note(self, text: str) -> None:
        self._write("---", text)

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None


class BoundedLogHandler(logging.FileHandler):
    """The daemon's log (``daemon.log``): rotates to ``NAME.1`` at ``max_bytes``, each record
    cut to MESSAGE_LIMIT. With ``owns_stderr`` (the daemon's fd 2 is this
    file, for what Python itself prints there), fd 2 follows each rotation
    into the fresh file, so it never writes on into a removed one.

    A FileHandler that rotates itself rather than logging.handlers'
    RotatingFileHandler: that module imports pickle, socket and queue, some
    2 ms of every daemon's start, for one rename."""

    def __init__(self, path: Path, max_bytes: int = DAEMON_LOG_BYTES,
                 owns_stderr: bool = False) -> None:
        self.max_bytes = max_bytes
        self.owns_stderr = owns_stderr
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
