"""Where a JavaScript function's body starts, found in its source.

V8 sets breakpoints by position only, so ``dbg break fee`` reads the
program's sources for fee's definition (``function fee(``, ``fee = (...) =>``,
``fee(...) {`` in a class or object, ``Account.deposit`` for a method of a
class) and breaks at its body's first statement, which is where a call enters
it. Reading the source, not the running program, also lets the breakpoint be
set before the file is loaded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "with", "return", "function",
                       "typeof", "new", "await", "yield", "else", "do"})
_PARAMS = r"\((?:[^()]|\([^()]*\))*\)"


@dataclass(frozen=True)
class BodyStart:
    line: int  # 1-based
    column: int | None  # 0-based, when the body starts on the header's line


def _headers(name: str) -> list[re.Pattern[str]]:
    n = re.escape(name)
    return [
        re.compile(rf"\bfunction\b\s*\*?\s*{n}\s*{_PARAMS}\s*\{{"),
        re.compile(rf"(?:^|[^\w$.]){n}\s*[:=]\s*(?:async\s+)?function\b[^(]*{_PARAMS}\s*\{{"),
        re.compile(rf"(?:^|[^\w$.]){n}\s*[:=]\s*(?:async\s+)?(?:{_PARAMS}|[\w$]+)\s*=>\s*\{{?"),
        re.compile(rf"^\s*(?:static\s+)?(?:async\s+)?\*?\s*{n}\s*{_PARAMS}\s*\{{"),
    ]


def _code_lines(text: str) -> list[str]:
    """The lines with comments blanked (strings are left alone)."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return [re.sub(r"(^|\s)//.*$", r"\1", line) for line in text.split("\n")]


def find_body(text: str, name: str) -> list[BodyStart]:
    """Every place ``name`` (``fee`` or ``Class.method``) is defined in ``text``."""
    owner, _, method = name.rpartition(".")
    lines = _code_lines(text)
    span = range(len(lines))
    if owner:
        span = _class_span(lines, owner)
    headers = _headers(method)
    if method in _KEYWORDS:
        headers = headers[:3]  # `if (x) {` is not a method called "if"
    found = []
    for index in span:
        match = next(filter(None, (p.search(lines[index]) for p in headers)), None)
        if match is not None:
            found.append(_body_start(lines, index, match.end()))
    return found


def _class_span(lines: list[str], owner: str) -> range:
    header = re.compile(rf"\bclass\s+{re.escape(owner)}\b")
    for index, line in enumerate(lines):
        if header.search(line):
            depth, seen = 0, False
            for end in range(index, len(lines)):
                depth += lines[end].count("{") - lines[end].count("}")
                seen = seen or "{" in lines[end]
                if seen and depth <= 0:
                    return range(index + 1, end + 1)
            return range(index + 1, len(lines))
    return range(0)


def _body_start(lines: list[str], index: int, end: int) -> BodyStart:
    header = lines[index]
    rest = header[end:]
    if not header[:end].rstrip().endswith("{"):
        # An arrow function with an expression body: it starts after `=>`.
        return BodyStart(index + 1, end + len(rest) - len(rest.lstrip()))
    if rest.strip():
        return BodyStart(index + 1, end + len(rest) - len(rest.lstrip()))
    for later in range(index + 1, len(lines)):
        if lines[later].strip():
            return BodyStart(later + 1, None)
    return BodyStart(index + 1, None)


def parameter_names(text: str) -> list[str] | None:
    """The parameters of the function whose parameter list ``text`` starts
    with (V8's functionLocation points there): ``(a, b = 1, ...rest)`` or an
    arrow's lone ``x =>``. A destructured one (``{a, b}``) has no name of its
    own and is left out; None when ``text`` is not a parameter list."""
    lone = re.match(r"(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>", text)
    if lone:
        return [lone.group(1)]
    match = re.match(_PARAMS, text)
    if match is None:
        return None
    names, depth, current = [], 0, ""
    for char in match.group(0)[1:-1] + ",":
        if char == "," and depth == 0:
            name = re.match(r"\s*(?:\.\.\.)?([A-Za-z_$][\w$]*)\s*(?:=|$)", current)
            if name:
                names.append(name.group(1))
            current = ""
            continue
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(char, 0)
        current += char
    return names
