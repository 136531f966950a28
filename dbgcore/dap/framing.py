"""DAP framing: ``Content-Length: N\\r\\n\\r\\n`` + N bytes of JSON.

:class:`FrameDecoder` is fed raw bytes in whatever pieces they arrive and
hands back whole messages. It never stalls on garbage: bytes before a header
(a stray print from an adapter, say) are skipped up to the next
``Content-Length``, and reported, so one bad write cannot wedge a session. A
body larger than ``max_body`` is a :class:`FramingError`: an adapter that says
it is about to send 2 GB is broken, and waiting for it would hang.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

HEADER_END = b"\r\n\r\n"
LENGTH = b"content-length:"
DEFAULT_MAX_BODY = 64 << 20
#: Longest header block we wait for before deciding it is garbage.
MAX_HEADER = 4096


class FramingError(Exception):
    """The byte stream cannot be read as DAP messages any more."""


def encode(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@dataclass
class FrameDecoder:
    max_body: int = DEFAULT_MAX_BODY
    buffer: bytearray = field(default_factory=bytearray)
    #: Garbage skipped so far, kept short, for the session log.
    skipped: list[bytes] = field(default_factory=list)

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add bytes; return every message now complete (maybe none)."""
        self.buffer += data
        messages: list[dict[str, Any]] = []
        while True:
            message = self._next()
            if message is None:
                return messages
            messages.append(message)

    def _skip(self, count: int) -> None:
        if count > 0:
            self._note_skipped(bytes(self.buffer[: min(count, 200)]))
            del self.buffer[:count]

    def _note_skipped(self, data: bytes) -> None:
        self.skipped.append(data)
        del self.skipped[:-20]

    def _resync(self) -> bool:
        """Drop bytes up to the next header start; False if none is there yet."""
        start = self.buffer.lower().find(LENGTH, 1)
        if start < 0:
            # Keep a tail that might be the start of a header split across reads.
            keep = len(LENGTH) - 1
            self._skip(len(self.buffer) - keep)
            return False
        self._skip(start)
        return True

    def _next(self) -> dict[str, Any] | None:
        while self.buffer:
            head = bytes(self.buffer[: len(LENGTH)]).lower()
            if not LENGTH.startswith(head):
                if not self._resync():
                    return None
                continue
            end = self.buffer.find(HEADER_END)
            if end < 0:
                if len(self.buffer) > MAX_HEADER:  # a header that never ends is garbage
                    if not self._resync():
                        return None
                    continue
                return None
            length = _content_length(bytes(self.buffer[:end]))
            if length is None:
                if not self._resync():
                    return None
                continue
            if length > self.max_body:
                raise FramingError(
                    f"the adapter sent a {length}-byte message; the limit is {self.max_body} bytes")
            start = end + len(HEADER_END)
            if len(self.buffer) < start + length:
                return None
            body = bytes(self.buffer[start : start + length])
            del self.buffer[: start + length]
            try:
                message = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                self._note_skipped(body[:200])
                continue
            if isinstance(message, dict):
                return message
            self._note_skipped(body[:200])
        return None


def _content_length(header: bytes) -> int | None:
    length = None
    for line in header.split(b"\r\n"):
        name, sep, value = line.partition(b":")
        if not sep:
            return None
        if name.strip().lower() == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                return None
            if length < 0:
                return None
    return length
