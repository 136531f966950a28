"""The bounds of what dbg takes at its edge: whole numbers, the size of an
argument, the nesting of an expression.

Checked once, where a value enters (:func:`dbgcore.vocab.values.check_values`,
which the click CLI, its fast path and MCP all go through, and the parsers
it calls: :mod:`dbgcore.vocab.location`, :mod:`dbgcore.store.recorded`), so that a
number of 5000 digits, a 100 KB path or an expression nested 10,000 deep is
a one-line usage error, not Python's integer-digit limit, an ``OSError``
from the kernel or a ``RecursionError`` deep in a parser. A value shown
back in such an error is shortened (:func:`shortened`): the error is one
line, whatever was given.
"""

from __future__ import annotations

import re

from dbgcore.shared.errors import UsageError

#: Ids, counts, indexes: what the debuggers and the store hold as a 32-bit int.
MAX_WHOLE = 2**31 - 1
#: A line number: no source file has a billion lines.
MAX_LINE = 10**9
#: A program's path, in bytes: the kernel's PATH_MAX (longer is ENAMETOOLONG).
MAX_PATH = 4096
#: One argument, in bytes: the kernel's MAX_ARG_STRLEN, the longest word a
#: program can be given on its command line.
MAX_ARGUMENT = 128 * 1024
#: How deep an expression may nest: one dbg reads itself (`dbg calls
#: --where`, `dbg history` over recorded stops), whose evaluator recurses
#: once a level, and one dbg hands a debugger, whose parser does too
#: (lldb-dap dies of SIGSEGV on `!!!...1`, 10,000 deep; clang stops at
#: 256 brackets, gdb runs out of its parser's stack).
MAX_NESTING = 100
#: How long such an expression may be, in characters.
MAX_EXPRESSION = 10_000
#: More characters than any number within the bounds above has (Python's
#: int() reads ``1_000`` and surrounding blanks too); past it a word is not
#: read as a number at all (Python refuses past 4300 digits, with a
#: ValueError that names its own limit).
_MAX_NUMBER_CHARS = 40


def shortened(text: str, keep: int = 12) -> str:
    """``text`` as it can be shown in a one-line error: as it is when short,
    else its head and its last character with its length
    (``111111111111...1 (5000 digits)``)."""
    if len(text) <= 2 * keep:
        return text
    what = "digits" if text.isascii() and text.isdigit() else "characters"
    return f"{text[:keep]}...{text[-1]} ({len(text)} {what})"


def whole_number(text: str, what: str, maximum: int = MAX_WHOLE, noun: str = "a number") -> int:
    """``text`` (as ``int()`` reads it) as a whole number of at most
    ``maximum``; a UsageError naming ``what`` when it is not one, or too
    large (``noun``: what to give instead, e.g. "a line number")."""
    word = text.strip()
    digits = word.lstrip("+-").replace("_", "")
    if len(word) > _MAX_NUMBER_CHARS:
        if digits.isdecimal():
            if word.startswith("-"):
                raise UsageError(f"{what} {shortened(word)} is out of range",
                                 f"give {noun} up to {maximum}")
            raise too_large(what, word, maximum, noun)
        raise UsageError(f"{what}: {shortened(word)!r} is not a whole number")
    try:
        number = int(word)
    except ValueError:
        raise UsageError(f"{what}: {shortened(word)!r} is not a whole number") from None
    if number > maximum:
        raise too_large(what, word, maximum, noun)
    return number


def shown_number(number: float) -> str:
    """``number`` as a one-line error shows it: its digits, shortened when
    there are many (``111111111111...1 (5000 digits)``), or their count past
    what Python writes in decimal (4300 digits)."""
    if isinstance(number, int) and number.bit_length() > 4000:
        return f"a number of about {int(number.bit_length() * 0.30103) + 1} digits"
    return shortened(str(number))


def too_large(what: str, given: str | float, maximum: float,
              noun: str = "a number") -> UsageError:
    """``given``: the word as it was written, or the number it was read as."""
    shown = shortened(given) if isinstance(given, str) else shown_number(given)
    return UsageError(f"{what} {shown} is too large", f"give {noun} up to {maximum:.0f}")


def number_or_name(text: str, what: str) -> int | str:
    """An id that is a number when it is written in digits (a thread's, a
    variable reference's, a breakpoint's), else the name it is; a number of
    more than :data:`MAX_WHOLE` is a UsageError."""
    word = text.strip()
    if word.isascii() and word.isdigit():
        return whole_number(word, what, noun="an id")
    return text


def check_size(value: str, what: str, path: bool = False) -> None:
    """A UsageError when ``value`` takes more bytes in UTF-8 than dbg takes:
    :data:`MAX_PATH` for a ``path``, else :data:`MAX_ARGUMENT`."""
    limit = MAX_PATH if path else MAX_ARGUMENT
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > limit:
        if path:
            raise UsageError(f"{what} is {size:,} bytes long: a path has at most {limit:,} "
                             "(the kernel's PATH_MAX)", "give a shorter path")
        raise UsageError(f"{what} is {size:,} bytes long: one argument has at most {limit:,} "
                         "(the kernel's limit for a program's argument)",
                         "give a shorter one, or put it in a file the program reads")


#: An expression's tokens, as far as nesting goes: a quoted literal (whose
#: text does not nest), a bracket, a prefix operator (`!`, `-`, `*`, Python's
#: `not`), anything else.
_TOKENS = re.compile(r"""'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`[^`]*`|\bnot\b|[!~+\-*&]|"""
                     r"""[(\[{]|[)\]}]|[^\s'"`!~+\-*&()\[\]{}]+|\S""")


def nesting(expression: str) -> int:
    """How deep ``expression`` nests in any of the debuggers' languages, as
    their parsers recurse on it: brackets within brackets, with the prefix
    operators in a row before each (`!!!!x`, `- - x`, `not not x`, `***p`)."""
    deepest = depth = 0
    runs: list[int] = []  # the prefix operators before each open bracket
    run = 0
    for match in _TOKENS.finditer(expression):
        token = match.group()
        if token in ("(", "[", "{"):
            runs.append(run)
            depth += run + 1
            run = 0
        elif token in (")", "]", "}"):
            depth = max(0, depth - 1 - (runs.pop() if runs else 0))
            run = 0
        elif token in ("!", "~", "+", "-", "*", "&", "not"):
            run += 1
        else:
            run = 0
        deepest = max(deepest, depth + run)
    return deepest


def check_nesting(expression: str, what: str) -> None:
    """A UsageError when ``expression`` nests deeper than :data:`MAX_NESTING`."""
    deep = nesting(expression)
    if deep > MAX_NESTING:
        raise UsageError(f"{what} nests {deep:,} levels deep, more than the {MAX_NESTING} "
                         "dbg takes",
                         "write it in steps: a debugger's parser can crash on deeper ones, "
                         "as lldb-dap does")
