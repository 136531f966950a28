"""The debuggee's output, kept by stream, bounded in memory, paged by cursor."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

from dbgcore.shared.jsontypes import JsonObject

#: The most characters one chunk holds (a longer write is kept as several).
CHUNK_CHARS = 16_384


@dataclass
class OutputChunk:
    seq: int
    category: str
    text: str
    size: int  # UTF-8 bytes: what the bound counts


class OutputBuffer:
    """Chunks of program output in arrival order.

    Every chunk gets a sequence number; ``read(since=N)`` returns the chunks
    after cursor N and the cursor to pass next time. When more than
    ``max_bytes`` (of UTF-8) are held, the oldest chunks are dropped and the
    reader is told it missed some.
    """

    def __init__(self, max_bytes: int = 1 << 20) -> None:
        self.max_bytes = max_bytes
        self._chunks: deque[OutputChunk] = deque()
        self._size = 0
        self._seq = 0
        self._dropped_upto = 0
        self._lock = threading.Lock()

    def append(self, category: str, text: str) -> None:
        if not text:
            return
        data = text.encode("utf-8", "replace")
        if len(data) > self.max_bytes:
            # Keep the tail; a character cut in two at the front is dropped.
            data = data[-self.max_bytes :]
            text = data.decode("utf-8", "ignore")
        # Chunks of at most CHUNK_CHARS: a read's budget is counted in whole
        # chunks, and the cursor never points inside one.
        pieces = [text[i:i + CHUNK_CHARS] for i in range(0, len(text), CHUNK_CHARS)]
        with self._lock:
            for piece in pieces:
                size = len(piece.encode("utf-8", "replace"))
                self._seq += 1
                self._chunks.append(OutputChunk(self._seq, category, piece, size))
                self._size += size
            while self._size > self.max_bytes and self._chunks:
                old = self._chunks.popleft()
                self._size -= old.size
                self._dropped_upto = old.seq

    @property
    def cursor(self) -> int:
        with self._lock:
            return self._seq

    def text(self, since: int = 0, categories: set[str] | None = None,
             limit: int = 1000) -> str:
        """What :meth:`read` gives, as one text."""
        return "".join(str(c["text"]) for c in self.read(since, categories, limit)["chunks"])

    def read(
        self, since: int = 0, categories: set[str] | None = None, limit: int = 1000,
        max_chars: int | None = None,
    ) -> JsonObject:
        """Chunks after cursor ``since``: at most ``limit`` of them and at most
        ``max_chars`` characters (whole chunks, at least one), with the cursor
        to read on from."""
        limit = max(1, limit)  # a page of nothing would never move the cursor
        with self._lock:
            chunks = [
                c
                for c in self._chunks
                if c.seq > since and (categories is None or c.category in categories)
            ]
            missed = self._dropped_upto > since
            if max_chars is not None:
                size, fits = 0, 0
                for chunk in chunks[:limit]:
                    size += len(chunk.text)
                    if fits and size > max_chars:
                        break
                    fits += 1
                limit = min(limit, max(fits, 1))
            more = len(chunks) > limit
            chunks = chunks[:limit]
            cursor = chunks[-1].seq if more else self._seq
            return {
                "chunks": [{"seq": c.seq, "category": c.category, "text": c.text}
                           for c in chunks],
                "cursor": cursor,
                "more": more,
                "dropped": missed,
            }
