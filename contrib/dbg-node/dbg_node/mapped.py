"""The source maps of a program's scripts, read once each: for a script V8
has parsed, the ``sourceMapURL`` its ``Debugger.scriptParsed`` gave; for a
generated file not loaded yet, the ``//# sourceMappingURL=`` it ends with.
Through them a stop, a frame or a breakpoint in generated JavaScript is
shown where it came from (the TypeScript file and line), and a breakpoint
on an original line is set on the generated lines it became.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from dbg_node.sourcemap import SourceMap, SourceMapError, comment_url, parse, read_url

#: Generated JavaScript files: where maps are looked for on disk.
GENERATED = (".js", ".mjs", ".cjs")


class ScriptMaps:
    """The maps of generated files, by the file's real path (its modification
    time tells a rebuilt file's map from the old one's)."""

    def __init__(self) -> None:
        self._maps: dict[str, tuple[int, SourceMap | None]] = {}

    def of_file(self, path: str, url: str | None = None) -> SourceMap | None:
        """The map of the generated file ``path`` (``url``: the map's URL as
        V8 gave it; else the file's own comment), or None when it has none
        or it cannot be read (the file is then shown as it is)."""
        try:
            stamp = os.stat(path).st_mtime_ns
        except OSError:
            return None
        known = self._maps.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        found: SourceMap | None = None
        url = url or comment_url(path)
        text = read_url(url, path) if url else None
        if text is not None:
            try:
                found = parse(*text)
            except SourceMapError:
                found = None
        self._maps[path] = (stamp, found)
        return found

    def naming(self, source: str, files: Iterable[str]) -> list[tuple[str, SourceMap]]:
        """The generated ``files`` whose maps name ``source`` (a real path)."""
        out = []
        for path in dict.fromkeys(files):
            found = self.of_file(path)
            if found is not None and source in found.sources:
                out.append((path, found))
        return out

    def sources(self, files: Iterable[str]) -> list[str]:
        """The original sources the maps of ``files`` name, as files on disk."""
        out: dict[str, None] = {}
        for path in dict.fromkeys(files):
            found = self.of_file(path)
            if found is not None:
                out.update((s, None) for s in found.sources if os.path.isabs(s))
        return list(out)
