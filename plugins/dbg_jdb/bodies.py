"""Which class's body holds a line of a Java or Kotlin source file, as jdb
names the class for `stop at CLASS:LINE` (nested ones as Outer$Inner)."""

from __future__ import annotations

import functools
import re
from pathlib import Path


def source_text(source: Path) -> str | None:
    """A source file's text (None: unreadable), read again only once it
    changed (its size or modification time): a batch of breakpoints in one
    file reads it once."""
    try:
        stat = source.stat()
    except OSError:
        return None
    return _read(str(source), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _read(path: str, mtime_ns: int, size: int) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


@functools.lru_cache(maxsize=8)
def blanked(text: str, noise: re.Pattern[str]) -> str:
    """``text`` with what cannot hold code (comments, strings) blanked out,
    keeping its newlines so that lines still count."""
    return noise.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def enclosing_class(code: str, line: int, declaration: re.Pattern[str],
                    body_on_its_line: bool = False) -> str:
    """The class whose body holds ``line`` of ``code`` ("" for none): the
    braces are counted, and a declaration's body is the first brace after
    it. With ``body_on_its_line`` (Kotlin), a declaration with no brace by
    the end of its line, outside its constructor's parentheses and not
    continued (``:``), has no body (``data class Item(val name: String)``).
    The count is kept for the last few sources seen: a batch of
    breakpoints in one file counts its braces once, not once a line."""
    owners = _classes_by_line(code, declaration, body_on_its_line)
    return owners[line - 1] if 1 <= line <= len(owners) else ""


@functools.lru_cache(maxsize=8)
def _classes_by_line(code: str, declaration: re.Pattern[str],
                     body_on_its_line: bool) -> tuple[str, ...]:
    """For each line of ``code``, the class whose body holds its end."""
    owners: list[str] = []
    stack: list[tuple[str, int]] = []  # (class name, depth of its body)
    depth, parens, pending = 0, 0, None
    for row in code.splitlines():
        declared = {m.start(): m.group(1) for m in declaration.finditer(row)}
        for at, char in enumerate(row):
            if at in declared:
                pending = declared[at]
            if char == "(":
                parens += 1
            elif char == ")":
                parens = max(parens - 1, 0)
            elif char == "{":
                depth += 1
                if pending is not None:
                    outer = stack[-1][0] + "$" if stack else ""
                    stack.append((outer + pending, depth))
                    pending = None
            elif char == "}":
                if stack and stack[-1][1] == depth:
                    stack.pop()
                depth -= 1
        if body_on_its_line and parens == 0 and not row.rstrip().endswith(":"):
            pending = None
        owners.append(stack[-1][0] if stack else "")
    return tuple(owners)
