"""DAP's base protocol on a byte stream: ``Content-Length: N`` headers, a
blank line, N bytes of JSON. The server's own framing (the debugger side's is
:mod:`dbgcore.transport.dap`, below the front ends): it reads a client's
requests from stdin or a socket and writes responses and events from several
threads, one whole message at a time.
"""

from __future__ import annotations

import json
import threading
from typing import IO, Any

#: A request larger than this is refused (and the connection closed): no
#: client sends megabytes of arguments.
MAX_BODY = 16 << 20


class FramingError(Exception):
    """The client sent something that is not a DAP message."""


class Framing:
    """Reads messages from ``reader``, writes them to ``writer``."""

    def __init__(self, reader: IO[bytes], writer: IO[bytes]) -> None:
        self.reader = reader
        self.writer = writer
        self._write_lock = threading.Lock()
        self._seq = 0

    def read(self) -> dict[str, Any] | None:
        """The next message; None when the client closed the stream."""
        length = None
        while True:
            line = self.reader.readline(4096)
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if length is None:
                    continue  # a stray blank line between messages
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                try:
                    length = int(value.strip())
                except ValueError as exc:
                    raise FramingError(f"bad Content-Length: {value.strip()!r}") from exc
        if length < 0 or length > MAX_BODY:
            raise FramingError(f"a message of {length} bytes is refused")
        body = self.reader.read(length)
        if len(body) < length:
            return None
        try:
            message = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise FramingError(f"a message that is not JSON: {exc}") from exc
        if not isinstance(message, dict):
            raise FramingError("a message that is not a JSON object")
        return message

    def write(self, message: dict[str, Any]) -> None:
        """Send ``message`` with the next sequence number."""
        with self._write_lock:
            self._seq += 1
            body = json.dumps({"seq": self._seq, **message}, ensure_ascii=False,
                              default=str).encode("utf-8")
            try:
                self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.writer.flush()
            except (OSError, ValueError):
                pass  # the client went away: the reader sees it and ends

    def event(self, name: str, body: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"type": "event", "event": name}
        if body is not None:
            message["body"] = body
        self.write(message)

    def respond(self, request: dict[str, Any], body: dict[str, Any] | None = None,
                error: str | None = None) -> None:
        message: dict[str, Any] = {"type": "response", "request_seq": request.get("seq", 0),
                                   "command": request.get("command", ""),
                                   "success": error is None}
        if error is not None:
            message["message"] = error
        elif body is not None:
            message["body"] = body
        self.write(message)
