"""A per-session transcript of every exchange with the debugger.

Lines sent to the debugger are written as ``--> ...``, its answers as
``<-- ...``, and notes as ``--- ...``, each with a timestamp. The log is for
people diagnosing a backend; it is never parsed.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TextIO


class TransLog:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._fh: TextIO | None = None
        if path is not None:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            self._fh = os.fdopen(fd, "a", encoding="utf-8", errors="replace")

    def _write(self, arrow: str, text: str) -> None:
        if self._fh is None:
            return
        stamp = time.strftime("%H:%M:%S") + f".{int(time.time() * 1000) % 1000:03d}"
        lines = text.splitlines() or [""]
        with self._lock:
            for line in lines:
                self._fh.write(f"{stamp} {arrow} {line}\n")
            self._fh.flush()

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
