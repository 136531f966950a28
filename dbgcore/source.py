"""Reading lines of source files for stop snapshots and `dbg list`."""

from __future__ import annotations

import linecache


def source_window(file: str, line: int, before: int, after: int) -> list[tuple[int, str]]:
    """Lines ``line-before .. line+after`` of ``file`` as (number, text), without
    line endings; empty when the file cannot be read."""
    linecache.checkcache(file)
    lines = linecache.getlines(file)
    if not lines or line < 1 or line > len(lines):
        return []
    first = max(1, line - before)
    last = min(len(lines), line + after)
    return [(n, lines[n - 1].rstrip("\r\n")) for n in range(first, last + 1)]
