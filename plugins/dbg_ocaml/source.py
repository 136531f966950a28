"""What dbg reads from an OCaml source file itself, because ocamldebug does
not say it: which top-level definition holds a line (ocamldebug's stops and
`backtrace` name a module, never a function), the line a function's
definition starts on (ocamldebug breaks on a function only once its value
has been computed), and the names a line may see (ocamldebug has no "all
locals" command: dbg asks `print` for each of these, and keeps those it
knows).

The reading is by lines and columns, as code formatted by ocamlformat or by
hand in the usual way is laid out: a top-level definition starts at column
0 with ``let`` or ``and``; anything indented belongs to the one above.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: A top-level definition: ``let [rec] NAME``, ``and NAME``, ``let () =``.
TOP_RE = re.compile(r"^(?:let(?:\s+rec)?|and)\s+(?P<name>[a-z_][\w']*|\(\)|_)")
#: Names a binding introduces inside a definition: ``let x``, ``fun a b ->``,
#: ``| Some v ->`` (the identifiers of the pattern are taken).
LET_RE = re.compile(r"\blet(?:\s+rec)?\s+(?P<pattern>[^=]*?)(?:=|$)")
FUN_RE = re.compile(r"\bfun\s+(?P<pattern>.*?)->")
CASE_RE = re.compile(r"(?:^|\bwith|\bfunction)?\s*\|\s*(?P<pattern>[^|]*?)->")
IDENT_RE = re.compile(r"(?<![\w'.~?])([a-z_][\w']*)(?![\w'])(?!\s*\.)")
COMMENT_RE = re.compile(r"\(\*.*?\*\)", re.S)
STRING_RE = re.compile(r'"(?:\\.|[^"\\])*"')
KEYWORDS = frozenset(("and", "as", "assert", "begin", "class", "constraint", "do", "done",
    "downto", "else", "end", "exception", "external", "false", "for", "fun", "function",
    "functor", "if", "in", "include", "inherit", "initializer", "lazy", "let", "match", "method",
    "module", "mutable", "new", "nonrec", "object", "of", "open", "or", "private", "rec", "sig",
    "struct", "then", "to", "true", "try", "type", "val", "virtual", "when", "while", "with",
    "not", "ref"))


@dataclass(frozen=True)
class Definition:
    name: str  # "apply_discount"; "()" or "_" for a top-level effect
    line: int  # where ``let``/``and`` is
    end: int  # its last line


def module_name(path: str | Path) -> str:
    """The module a compilation unit's file defines: cart.ml is Cart."""
    stem = Path(path).stem
    return stem[:1].upper() + stem[1:]


def read_lines(path: str | Path) -> list[str]:
    """The file's lines, with comments and strings blanked (their line
    breaks kept), so that neither is read as code."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []

    def blank(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    return STRING_RE.sub(blank, COMMENT_RE.sub(blank, text)).splitlines()


def definitions(lines: list[str]) -> list[Definition]:
    """The top-level definitions, in order, each to the line before the next."""
    starts: list[tuple[str, int]] = []
    for number, text in enumerate(lines, 1):
        match = TOP_RE.match(text)
        if match:
            starts.append((match["name"], number))
        elif text[:1].isalpha() and not text.startswith(("let", "and")):
            starts.append(("", number))  # type, open, module...: ends the one above
    found = []
    for (name, start), (_, after) in zip(starts, [*starts[1:], ("", len(lines) + 1)],
                                         strict=True):
        if name:
            found.append(Definition(name, start, after - 1))
    return found


def enclosing(lines: list[str], line: int) -> Definition | None:
    return next((d for d in definitions(lines) if d.line <= line <= d.end), None)


def function_name(lines: list[str], module: str, line: int) -> str:
    """``Cart.apply_discount`` for a line of that function, ``Cart`` for a
    line of the module's own initialisation (OCaml's backtraces name it so)."""
    found = enclosing(lines, line)
    if found is None or found.name in ("()", "_"):
        return module
    return f"{module}.{found.name}"


def definition_line(lines: list[str], name: str) -> int | None:
    """Where the top-level function ``name`` is defined."""
    return next((d.line for d in definitions(lines) if d.name == name), None)


def parameters(lines: list[str], line: int) -> list[str]:
    """The names the enclosing top-level function's header binds (its
    parameters, with the names of any types written there: ocamldebug
    knows no value by those)."""
    found = enclosing(lines, line)
    header = TOP_RE.match(lines[found.line - 1]) if found else None
    if found is None or header is None:
        return []
    text = lines[found.line - 1][header.end():].split("=", 1)[0]
    names: list[str] = []
    for name in IDENT_RE.findall(text):
        if name not in KEYWORDS and not name.startswith("_") and name not in names:
            names.append(name)
    return names


def names_in_scope(lines: list[str], line: int) -> list[str]:
    """Every name the enclosing definition binds up to ``line``: its
    parameters and the names of its ``let``, ``fun`` and match cases, in
    order, once each. Some are out of scope at the line (a ``let`` of
    another branch): ocamldebug says which."""
    found = enclosing(lines, line)
    if found is None:
        return []
    text = "\n".join(lines[found.line - 1:line])
    names: list[str] = []
    header = TOP_RE.match(lines[found.line - 1])
    patterns = []
    if header:
        params = lines[found.line - 1][header.end():].split("=", 1)[0]
        patterns.append(params)
    for regex in (LET_RE, FUN_RE, CASE_RE):
        patterns += [m["pattern"] for m in regex.finditer(text)
                     if m.start() > (header.end() if header else 0)]
    for pattern in patterns:
        for name in IDENT_RE.findall(pattern):
            if name not in KEYWORDS and name != "_" and not name.startswith("_") \
                    and name != found.name and name not in names:
                names.append(name)
    return names
