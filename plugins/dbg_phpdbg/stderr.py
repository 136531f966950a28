"""phpdbg's stderr, where phpdbg writes the answers of its `print`
commands (`print opline`), and where anything else written on fd 2 goes.

phpdbg's fd 2 is a FIFO read here on a thread of its own; what comes is
handed to ``dbg output`` as the program's stderr, except while the backend
asks phpdbg a `print` question at a stop: the program does not run then, so
what comes meanwhile is phpdbg's answer.
"""

from __future__ import annotations

import codecs
import os
import select
import threading
import time
from pathlib import Path

from dbgcore.api import OutputBuffer


class SharedStderr:
    def __init__(self, run_dir: Path, output: OutputBuffer) -> None:
        self.path = Path(run_dir) / "phpdbg-stderr"
        if self.path.exists():
            self.path.unlink()
        os.mkfifo(self.path, 0o600)
        # Opened before phpdbg, so that its open for writing does not block.
        self._fd: int | None = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        self._output = output
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._lock = threading.Lock()
        self._held: list[str] | None = None
        self._quiet = threading.Event()
        self._thread = threading.Thread(target=self._run, name="phpdbg-stderr", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while self._fd is not None:
            fd = self._fd
            try:
                ready, _, _ = select.select([fd], [], [], 0.2)
                data = os.read(fd, 65536) if ready else b""
            except OSError:
                return
            if not data:
                self._quiet.set()
                if ready:  # every writer is gone: wait for the next one
                    time.sleep(0.05)
                continue
            self._take(self._decoder.decode(data))

    def _take(self, text: str) -> None:
        with self._lock:
            if self._held is not None:
                self._held.append(text)
                return
        self._output.append("stderr", text)

    def hold(self) -> None:
        """From now on keep what comes: phpdbg's answer to a question."""
        with self._lock:
            self._held = []

    def release(self, wanted: str, wait: float = 0.5) -> str:
        """What came since :meth:`hold`, once it holds ``wanted`` (or after
        ``wait`` seconds); the program gets its stderr back."""
        deadline = time.monotonic() + wait
        seen = ""
        while time.monotonic() < deadline:
            with self._lock:
                now = "".join(self._held or [])
            # phpdbg writes an answer in parts: done once it holds ``wanted``,
            # ends a line, and nothing more came for a moment.
            if now == seen and wanted in now and now.endswith("\n"):
                break
            seen = now
            time.sleep(0.01)
        with self._lock:
            held, self._held = self._held or [], None
        return "".join(held)

    def drain(self, wait: float = 1.0) -> None:
        """Wait until what was written has been read (phpdbg has ended)."""
        self._quiet.clear()
        self._quiet.wait(wait)

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            self._thread.join(timeout=1.0)
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.path.unlink()
        except OSError:
            pass
