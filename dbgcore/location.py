"""Breakpoint locations as users type them.

Kept apart from :mod:`dbgcore.model` so that the CLI can check a location
before anything else is imported: every dbg command pays for its imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dbgcore.errors import UsageError

_FUNCTION_RE = re.compile(r"^[^\s:!]+(?:::[^\s:!]+)*$")
# ASCII only: str.isdigit() accepts '²', which int() then refuses.
_LINE_RE = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class BreakLoc:
    """Where to stop: ``file:line``, a bare ``line`` (current file), a
    ``function`` name, or ``module!function``."""

    file: str | None = None
    line: int | None = None
    function: str | None = None
    module: str | None = None

    @classmethod
    def parse(cls, spec: str) -> BreakLoc:
        """Parse a location the user typed; raise UsageError when it is malformed."""
        text = spec.strip()
        # Checked before stripping: a location is one line, wherever the break is.
        if not text or any(c in spec for c in "\r\n\0"):
            raise UsageError(f"bad location {spec!r}", _LOC_HINT)
        if "!" in text:
            module, _, function = text.partition("!")
            if not module or not function or "!" in function:
                raise UsageError(f"bad location {spec!r}: module!function needs both", _LOC_HINT)
            return cls(module=module, function=function)
        if _LINE_RE.fullmatch(text):
            return cls(line=_line_number(text, spec))
        if ":" in text and "::" not in text:
            file, _, line = text.rpartition(":")
            if not file:
                raise UsageError(f"bad location {spec!r}: the file is missing", _LOC_HINT)
            return cls(file=file, line=_line_number(line, spec))
        if not _FUNCTION_RE.match(text):
            raise UsageError(f"bad location {spec!r}", _LOC_HINT)
        return cls(function=text)

    def key(self) -> str:
        """A stable text form, used to match ``dbg unbreak LOC`` and ``dbg hits LOC``."""
        if self.module:
            return f"{self.module}!{self.function}"
        if self.function:
            return self.function
        if self.file:
            return f"{self.file}:{self.line}"
        return str(self.line)

    def __str__(self) -> str:
        return self.key()


_LOC_HINT = "use FILE:LINE (e.g. app.py:12), LINE, FUNCTION, or MODULE!FUNCTION"


def _line_number(text: str, spec: str) -> int:
    if not _LINE_RE.fullmatch(text) or int(text) < 1:
        raise UsageError(f"bad location {spec!r}: line must be a positive number", _LOC_HINT)
    return int(text)
