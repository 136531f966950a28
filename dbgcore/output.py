"""The debuggee's output, kept by stream, bounded in memory, paged by cursor."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

from dbgcore.jsontypes import JsonObject


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
            data = text.encode("utf-8")
        with self._lock:
            self._seq += 1
            self._chunks.append(OutputChunk(self._seq, category, text, len(data)))
            self._size += len(data)
            while self._size > self.max_bytes and self._chunks:
                old = self._chunks.popleft()
                self._size -= old.size
                self._dropped_upto = old.seq

    @property
    def cursor(self) -> int:
        with self._lock:
            return self._seq

    def read(
        self, since: int = 0, categories: set[str] | None = None, limit: int = 1000
    ) -> JsonObject:
        limit = max(1, limit)  # a page of nothing would never move the cursor
        with self._lock:
            chunks = [
                c
                for c in self._chunks
                if c.seq > since and (categories is None or c.category in categories)
            ]
            missed = self._dropped_upto > since
            more = len(chunks) > limit
            chunks = chunks[:limit]
            cursor = chunks[-1].seq if more else self._seq
            return {
                "chunks": [{"seq": c.seq, "category": c.category, "text": c.text} for c in chunks],
                "cursor": cursor,
                "more": more,
                "dropped": missed,
            }
