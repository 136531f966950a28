"""Source maps (revision 3): which line of the original source (a
TypeScript file, say) a position of the generated JavaScript came from, and
back.

A map's ``mappings`` is one group per generated line, separated by ``;``;
each group holds segments, separated by ``,``; each segment is one to five
numbers written as base64 VLQ: the generated column, then the source's
index, the original line and column (and a name's index, not needed here).
Every number but the first column of a line is relative to the same field
of the segment before it (the column to the one before it on its line), and
the first bit of each number's first digit is its sign. Zero-based lines and
columns throughout, as V8's are.
"""

from __future__ import annotations

import base64
import bisect
import json
import os
from dataclasses import dataclass, field
from urllib.parse import unquote

_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_VALUE = {c: i for i, c in enumerate(_DIGITS)}
#: A base64 VLQ digit: 5 bits of the number, then whether more digits follow.
_MORE = 32
#: How far a line with no code of its own looks on for the next that has some.
LINES_AHEAD = 50


class SourceMapError(ValueError):
    """A map that cannot be read (not JSON, not revision 3, a bad digit)."""


def decode_vlq(text: str) -> list[int]:
    """The numbers one segment's base64 VLQ digits hold."""
    numbers: list[int] = []
    value = shift = 0
    for char in text:
        digit = _VALUE.get(char)
        if digit is None:
            raise SourceMapError(f"{char!r} is no base64 VLQ digit")
        value |= (digit & (_MORE - 1)) << shift
        if digit & _MORE:
            shift += 5
            continue
        # The lowest bit of the whole number is its sign.
        numbers.append(-(value >> 1) if value & 1 else value >> 1)
        value = shift = 0
    if shift:
        raise SourceMapError(f"{text!r} ends in the middle of a number")
    return numbers


#: One mapped position: (generated column, source index, original line,
#: original column).
Segment = tuple[int, int, int, int]


def decode_mappings(mappings: str) -> list[list[Segment]]:
    """Each generated line's segments that name an original position, in
    the order of their columns (segments of one number, code that came from
    nowhere, are left out)."""
    lines: list[list[Segment]] = []
    source = line = column = 0
    for group in mappings.split(";"):
        row: list[Segment] = []
        generated = 0
        for text in group.split(","):
            if not text:
                continue
            numbers = decode_vlq(text)
            generated += numbers[0]
            if len(numbers) >= 4:
                source += numbers[1]
                line += numbers[2]
                column += numbers[3]
                row.append((generated, source, line, column))
        row.sort()
        lines.append(row)
    return lines


@dataclass
class SourceMap:
    """One generated file's map: its sources as absolute paths (or as the
    map gives them, when they are URLs of no file) and its segments."""

    sources: list[str]
    lines: list[list[Segment]]
    #: (source index, original line) -> the generated positions it maps to.
    _back: dict[tuple[int, int], list[tuple[int, int]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for generated_line, row in enumerate(self.lines):
            for column, source, line, _ in row:
                self._back.setdefault((source, line), []).append((generated_line, column))

    def original(self, line: int, column: int) -> tuple[str, int, int] | None:
        """The original (source, line, column) of a generated position: the
        segment at or before the column on its line; a position before any
        (the indentation, code tsc added such as ``"use strict"``) takes
        the next segment, on its line or the lines after."""
        if not 0 <= line < len(self.lines):
            return None
        row = self.lines[line]
        at = bisect.bisect_right(row, (column, 1 << 62)) - 1
        if at >= 0:
            segment = row[at]
        else:
            later = next((r for r in self.lines[line:line + LINES_AHEAD] if r), None)
            if later is None:
                return None
            segment = later[0]
        _, source, original_line, original_column = segment
        if not 0 <= source < len(self.sources):
            return None
        return self.sources[source], original_line, original_column

    def generated(self, source: str, line: int) -> tuple[int, list[tuple[int, int]]]:
        """Where the original ``line`` of ``source`` runs: the line itself, or
        the next one with code when it has none, and the generated
        (line, column) where each generated line of it starts. A statement
        generated on a run of lines is one place (its first line's); a line
        of no code up to LINES_AHEAD lines on gives ``(line, [])``."""
        if source not in self.sources:
            return line, []
        index = self.sources.index(source)
        for wanted in range(line, line + LINES_AHEAD):
            places = self._back.get((index, wanted))
            if not places:
                continue
            # The generated lines whose first code is this line's: a line
            # that only continues (the `}` of a block) is no start of it.
            starts = sorted({(g, c) for g, c in places
                             if self.lines[g] and self.lines[g][0][1:3] == (index, wanted)})
            chosen: list[tuple[int, int]] = []
            previous = -2
            for g, c in starts or [min(places)]:
                if g not in (previous, previous + 1):
                    chosen.append((g, c))
                previous = g
            return wanted, chosen
        return line, []


def parse(text: str, folder: str) -> SourceMap:
    """A map from its JSON text; its sources are taken relative to
    ``folder`` (where the map is) and its ``sourceRoot``."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SourceMapError(f"not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("version") != 3:
        raise SourceMapError("not a source map of revision 3")
    if "sections" in data:
        raise SourceMapError("an index map (sections) is not read")
    root = str(data.get("sourceRoot") or "")
    sources = [_source_path(str(s or ""), root, folder) for s in data.get("sources") or []]
    return SourceMap(sources, decode_mappings(str(data.get("mappings") or "")))


def _source_path(source: str, root: str, folder: str) -> str:
    """A map's source as an absolute, real path (a file:// URL, or a path
    relative to the sourceRoot and the map's folder)."""
    if root and not source.startswith(("/", "file://")):
        source = root.rstrip("/") + "/" + source
    if source.startswith("file://"):
        source = unquote(source[len("file://"):])
    elif "://" in source or source.startswith("webpack:"):
        return source  # no file of ours (webpack://, http://)
    return os.path.realpath(os.path.join(folder, source))


def read_url(url: str, script: str) -> tuple[str, str] | None:
    """The text of the map at ``url`` (a script's sourceMappingURL: a data:
    URL, a file:// URL, or a path relative to the script's file) and the
    folder its sources are relative to; None when it is not on this
    machine's disk."""
    folder = os.path.dirname(script)
    if url.startswith("data:"):
        meta, _, payload = url[len("data:"):].partition(",")
        if meta.endswith(";base64"):
            try:
                return base64.b64decode(payload).decode("utf-8", "replace"), folder
            except ValueError:
                return None
        return unquote(payload), folder
    if url.startswith("file://"):
        path = unquote(url[len("file://"):])
    elif "://" in url:
        return None
    else:
        path = os.path.join(folder, unquote(url))
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(), os.path.dirname(path)
    except OSError:
        return None


def comment_url(path: str) -> str | None:
    """The ``//# sourceMappingURL=`` a generated file ends with, if any (only
    its last lines are read)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 4096))
            tail = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        line = line.strip()
        for mark in ("//# sourceMappingURL=", "//@ sourceMappingURL="):
            if line.startswith(mark):
                return line[len(mark):].strip() or None
        if line and not line.startswith("//"):
            return None
    return None
