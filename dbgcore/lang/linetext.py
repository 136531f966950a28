"""A source line found by its text, for breakpoints that follow their line
when the file is edited (`dbg break 'cart.py:"total += price"'`).

The rule, the same for every backend (it runs before a backend sees a
``FILE:LINE``):

- A line *holds* a text when the line contains it, whitespace ignored on
  both sides (``total+=price`` holds ``total += price``).
- Only lines of code count: a blank line, or one that is only a comment
  (or inside a block comment), is never a candidate; a text found only on
  such lines is refused as such.
- Among the lines that hold the text, those that are the whole text (again
  whitespace ignored) are preferred: ``x = 1`` picks ``x = 1`` over
  ``x = 10``.
- Several candidates left: the one nearest ``near`` (the earlier of two
  equally near), or without ``near`` an error listing them.

Every source breakpoint keeps the text of its line (:class:`LineAnchor`);
:func:`follow` finds where that text is after an edit.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from dbgcore.lang.sourcetext import SourceUnreadable, source_lines
from dbgcore.shared.errors import OpFailed, UsageError

#: How much of a line an answer shows beside its number.
SHOWN_CHARS = 60
#: How many candidates an ambiguous text lists.
SHOWN_CANDIDATES = 8


@dataclass(frozen=True)
class _Syntax:
    """What makes a line comment-only in a language: its line comments,
    its block comments and its strings (a comment marker inside a string is
    not one). Only multi-character quotes (``\"\"\"``) carry a string over a
    line's end."""

    line: tuple[str, ...] = ()
    blocks: tuple[tuple[str, str], ...] = ()
    quotes: tuple[str, ...] = ('"', "'")


_HASH = _Syntax(line=("#",))
_PYTHON = _Syntax(line=("#",), quotes=('"""', "'''", '"', "'"))
_C = _Syntax(line=("//",), blocks=(("/*", "*/"),), quotes=('"', "'", "`"))
_SYNTAX_BY_SUFFIX = {
    **dict.fromkeys((".py", ".pyw", ".pyi"), _PYTHON),
    **dict.fromkeys((".rb", ".sh", ".bash", ".pl", ".pm", ".r", ".jl", ".nim", ".ex", ".exs",
                     ".cr", ".tcl"), _HASH),
    **dict.fromkeys((".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".go", ".java", ".rs",
                     ".js", ".mjs", ".cjs", ".ts", ".kt", ".kts", ".scala", ".cs", ".swift",
                     ".d", ".zig", ".dart", ".groovy", ".m", ".mm"), _C),
    ".php": _Syntax(line=("//", "#"), blocks=(("/*", "*/"),)),
    **dict.fromkeys((".hs", ".lhs", ".elm"), _Syntax(line=("--",), blocks=(("{-", "-}"),),
                                                   quotes=('"',))),
    ".lua": _Syntax(line=("--",), blocks=(("--[[", "]]"),)),
    **dict.fromkeys((".ml", ".mli"), _Syntax(blocks=(("(*", "*)"),), quotes=('"',))),
    **dict.fromkeys((".lisp", ".el", ".clj", ".scm", ".s", ".asm"), _Syntax(line=(";",),
                                                                      quotes=('"',))),
    ".erl": _Syntax(line=("%",), quotes=('"',)),
}
#: A language dbg does not know: the common markers.
_ANY = _Syntax(line=("#", "//"), blocks=(("/*", "*/"),))


@dataclass(frozen=True)
class LineAnchor:
    """The text a breakpoint's line held when it was set (or last moved):
    ``path`` (absolute), ``line``, and the line's text, stripped."""

    path: str
    line: int
    text: str


def normalized(text: str) -> str:
    """``text`` without any whitespace: what matching compares."""
    return "".join(text.split())


def clipped(text: str, limit: int = SHOWN_CHARS) -> str:
    """A line's text as an answer shows it: stripped, cut to ``limit``."""
    text = text.strip()
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def code_lines(path: str) -> tuple[str | None, ...]:
    """The lines of ``path``, each None where it holds no code (blank, or
    only a comment); SourceUnreadable when it cannot be read."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SourceUnreadable(f"cannot read {path}: {exc.strerror}") from None
    return _code_lines(path, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=32)
def _code_lines(path: str, mtime_ns: int, size: int) -> tuple[str | None, ...]:
    # Cached on (path, mtime, size), as the source's lines are: every
    # listing of the breakpoints shows their lines' text.
    lines = source_lines(path)
    if lines and lines[-1] == "":
        lines = lines[:-1]  # the text after the last newline is not a line
    no_code = _comment_only(lines, _SYNTAX_BY_SUFFIX.get(os.path.splitext(path)[1].lower(), _ANY))
    return tuple(None if n in no_code else text for n, text in enumerate(lines, 1))


def code_line_text(path: str, line: int) -> str | None:
    """The stripped text of ``path``'s line ``line`` when it holds code;
    None when it does not, or the file cannot be read."""
    try:
        lines = code_lines(path)
    except SourceUnreadable:
        return None
    text = lines[line - 1] if 1 <= line <= len(lines) else None
    return text.strip() if text is not None else None


def find_line(path: str, needle: str, near: int | None, shown: str) -> int:
    """The line of ``path`` that holds ``needle`` (the rule of this module);
    ``shown`` is the location as the user typed it, for the errors: none
    holds it (OpFailed, with the closest lines), only comment lines do, or
    several do and ``near`` is None (UsageError, listing them)."""
    try:
        lines = code_lines(path)
    except SourceUnreadable as exc:
        raise OpFailed(f"{shown}: {exc}") from None
    found = candidates(lines, needle)
    if not found:
        raise _none_holds(path, lines, needle, shown)
    if len(found) == 1:
        return found[0]
    if near is not None:
        return nearest(found, near)
    listed = "; ".join(f"{os.path.basename(path)}:{n} {clipped(lines[n - 1] or '')}"
                       for n in found[:SHOWN_CANDIDATES])
    more = f"; and {len(found) - SHOWN_CANDIDATES} more" if len(found) > SHOWN_CANDIDATES else ""
    raise UsageError(f"{shown} is on {len(found)} lines: {listed}{more}",
                     "give more of its text, or --near LINE (break, start)")


def candidates(lines: Sequence[str | None], needle: str, prefer_whole: bool = True) -> list[int]:
    """The numbers of the code lines (see :func:`code_lines`) that hold
    ``needle``: those that are the whole of it when there are any (unless
    not ``prefer_whole``)."""
    wanted = normalized(needle)
    held = [n for n, text in enumerate(lines, 1)
            if text is not None and wanted in normalized(text)]
    whole = [n for n in held if normalized(lines[n - 1] or "") == wanted] if prefer_whole else []
    return whole or held


def nearest(found: Sequence[int], line: int) -> int:
    return min(found, key=lambda n: (abs(n - line), n))


def _none_holds(path: str, lines: Sequence[str | None], needle: str, shown: str) -> Exception:
    wanted = normalized(needle)
    try:
        every = source_lines(path)
    except SourceUnreadable:
        every = []
    comments = [n for n, text in enumerate(every[:len(lines)], 1)
                if lines[n - 1] is None and wanted in normalized(text)]
    if comments:
        at = ", ".join(str(n) for n in comments[:SHOWN_CANDIDATES])
        return UsageError(f"{shown} is only on comment lines ({os.path.basename(path)} line "
                          f"{at}): a breakpoint needs a line of code",
                          "give the text of a line of code")
    code = {text.strip(): n for n, text in enumerate(lines, 1) if text is not None}
    close = difflib.get_close_matches(needle.strip(), list(code), n=3, cutoff=0.6)
    hint = ("closest: " + "; ".join(f"{code[text]} {clipped(text)}" for text in close)
            if close else "`dbg list FILE` shows its lines")
    return OpFailed(f"no line of code in {path} holds {needle.strip()!r}", hint)


def anchor(path: str, line: int) -> LineAnchor | None:
    """What a breakpoint at ``path:line`` keeps of its line (None: no code
    there, or the file cannot be read)."""
    text = code_line_text(path, line)
    return LineAnchor(path, line, text) if text else None


def follow(kept: LineAnchor, match: str | None) -> tuple[str, int | None]:
    """Where the line of ``kept`` is now: ("same", line) when its line holds
    its text still, ("moved", line) when the text is elsewhere (the line
    nearest its old one that holds ``match``, the text the user gave, or
    without one that is the whole of the kept text), ("gone", None) when no
    line has it, ("unreadable", None) when the file cannot be read."""
    try:
        lines = code_lines(kept.path)
    except SourceUnreadable:
        return "unreadable", None
    wanted = normalized(kept.text)
    here = lines[kept.line - 1] if kept.line <= len(lines) else None
    if here is not None and normalized(here) == wanted:
        return "same", kept.line
    if match is not None:
        # Nearest first, whole or not: the line the user meant was edited
        # around the text, not replaced by a copy of it elsewhere.
        found = candidates(lines, match, prefer_whole=False)
    else:
        found = [n for n, text in enumerate(lines, 1)
                 if text is not None and normalized(text) == wanted]
    if not found:
        return "gone", None
    line = nearest(found, kept.line)
    return ("same" if line == kept.line else "moved"), line


def _comment_only(lines: Sequence[str], syntax: _Syntax) -> set[int]:
    """The numbers of the lines that hold nothing but whitespace and comments."""
    token = _token_re(syntax)
    blocks = dict(syntax.blocks)
    quiet: set[int] = set()
    closer, in_string = "", False  # a block comment's or a long string's end, carried over
    for number, text in enumerate(lines, 1):
        code, i = in_string, 0
        while i <= len(text):
            if closer:
                end = text.find(closer, i)
                if end < 0:
                    break  # the rest of the line is inside it
                i, closer, in_string = end + len(closer), "", False
                continue
            found = token.search(text, i)
            if text[i:found.start() if found else len(text)].strip():
                code = True
            if found is None:
                break
            marker = found.group()
            if marker in syntax.line:
                break
            if marker in blocks:
                closer, i = blocks[marker], found.end()
                continue
            code = True  # a string
            if len(marker) > 1:
                closer, in_string, i = marker, True, found.end()
            else:
                i = _string_end(text, found.end(), marker)
        if not code:
            quiet.add(number)
    return quiet


@functools.cache
def _token_re(syntax: _Syntax) -> re.Pattern[str]:
    """What can begin a comment or a string, longest first (Lua's ``--[[``
    before its ``--``, Python's triple quote before its quote)."""
    markers = {*syntax.line, *(opener for opener, _ in syntax.blocks), *syntax.quotes}
    return re.compile("|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True)))


def _string_end(text: str, i: int, quote: str) -> int:
    """Past the end of a one-line string whose text begins at ``i``."""
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == quote:
            return i + 1
        else:
            i += 1
    return i
