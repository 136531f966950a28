"""DAP framing: ``Content-Length: N\\r\\n\\r\\n`` + N bytes of JSON.

:class:`FrameDecoder` is fed raw bytes in whatever pieces they arrive and
hands back whole messages. It never stalls on garbage: bytes before a header
(a stray print from an adapter, say) are skipped up to the next
``Content-Length``, and reported, so one bad write cannot wedge a session; a
header whose body is not a JSON object is skipped alone, so a stray header
cannot swallow the real frame after it. A
body larger than ``max_body`` is a :class:`FramingError`: an adapter that says
it is about to send 2 GB is broken, and waiting for it would hang.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

#: A DAP message, or any JSON object: its values are any JSON.
Message = dict[str, Any]

HEADER_END = b"\r\n\r\n"
LENGTH = b"content-length:"
DEFAULT_MAX_BODY = 64 << 20
#: Longest header block we wait for before deciding it is garbage.
MAX_HEADER = 4096


class FramingError(Exception):
    """The byte stream cannot be read as DAP messages any more."""


def encode(message: Message) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@dataclass
class FrameDecoder:
    max_body: int = DEFAULT_MAX_BODY
    buffer: bytearray = field(default_factory=bytearray)
    #: Garbage skipped so far, kept short, for the session log.
    skipped: list[bytes] = field(default_factory=list)

    def feed(self, data: bytes) -> list[Message]:
        """Add bytes; return every message now complete (maybe none)."""
        self.buffer += data
        messages: list[Message] = []
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
        lowered = self.buffer.lower()
        start = lowered.find(LENGTH, 1)
        if start < 0:
            # Keep only a tail that may be the start of a header split across
            # reads, so that a stray line is skipped (and logged) whole.
            keep = next((n for n in range(min(len(LENGTH) - 1, len(lowered) - 1), 0, -1)
                         if lowered.endswith(LENGTH[:n])), 0)
            self._skip(len(self.buffer) - keep)
            return False
        self._skip(start)
        return True

    def _next(self) -> Message | None:
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
            if not _may_start_object(self.buffer[start : start + 16]):
                # A header that lies (a stray copy of one, say) must not swallow
                # the frame after it, nor wait for bytes that never come: drop
                # only the header and look again right after it.
                self._skip(start)
                continue
            if len(self.buffer) < start + length:
                return None
            message = _parse_object(bytes(self.buffer[start : start + length]))
            if message is None:
                self._skip(start)
                continue
            del self.buffer[: start + length]
            return message
        return None


def _may_start_object(head: bytearray) -> bool:
    """Can a body beginning with ``head`` (maybe not all arrived) be a JSON object?"""
    stripped = bytes(head).lstrip(b" \t\r\n")
    return not stripped or stripped.startswith(b"{")


def _parse_object(body: bytes) -> Message | None:
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return message if isinstance(message, dict) else None


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
