"""Breakpoint locations as users type them, parsed once where they enter.

A front end (the CLI, or any later one) parses the text with
:meth:`BreakLoc.parse`, anchors a relative file to the folder the user is
in (:meth:`BreakLoc.anchored`), and sends the typed value with
:meth:`BreakLoc.to_wire`. The daemon rebuilds it with
:meth:`BreakLoc.from_wire`, which checks types and never parses text again.

Kept apart from :mod:`dbgcore.vocab.model` so that the CLI can check a location
before anything else is imported: every dbg command pays for its imports.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace

from dbgcore.shared.bounds import MAX_LINE, shortened, whole_number
from dbgcore.shared.errors import UsageError
from dbgcore.shared.jsontypes import Json, JsonObject
from dbgcore.vocab.opspec import breaks_line

_FUNCTION_RE = re.compile(r"^[^\s:!]+(?:::[^\s:!]+)*$")
# FILE:"TEXT": the file is everything before the first `:"`, the text all
# between that quote and the last (it may hold quotes of its own).
_TEXT_RE = re.compile(r'^(?P<file>[^"]*?):"(?P<match>.*)"$')
# ASCII only: str.isdigit() accepts '²', which int() then refuses.
_LINE_RE = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class BreakLoc:
    """Where to stop: ``file:line``, a bare ``line`` (current file), a
    ``function`` name, ``module!function``, or ``file:"text"``: the line of
    ``file`` that holds ``match`` (found by the daemon before a backend sees
    it: :mod:`dbgcore.lang.linetext`; once found, ``line`` is set and
    ``match`` kept, so a restart can find the text again). ``near`` picks
    among several lines that hold it. ``text`` is what the user typed; it is
    shown back, and is not part of the location's identity."""

    file: str | None = None
    line: int | None = None
    function: str | None = None
    module: str | None = None
    text: str = field(default="", compare=False)
    match: str | None = None
    near: int | None = field(default=None, compare=False)

    @classmethod
    def parse(cls, spec: str) -> BreakLoc:
        """Parse a location the user typed; raise UsageError when it is malformed."""
        text = spec.strip()
        # Checked before stripping: a location is one line, wherever the break is.
        if not text or breaks_line(spec):
            raise UsageError(f"bad location {shortened(spec)!r}", _LOC_HINT)
        if '"' in text:
            return cls._by_text(text, spec)
        if "!" in text:
            module, _, function = text.partition("!")
            if not module or not function or "!" in function:
                raise UsageError(f"bad location {shortened(spec)!r}: module!function needs both",
                                 _LOC_HINT)
            return cls(module=module, function=function, text=text)
        if _LINE_RE.fullmatch(text):
            return cls(line=_line_number(text, spec), text=text)
        if ":" in text and "::" not in text:
            file, _, line = text.rpartition(":")
            if not file:
                raise UsageError(f"bad location {shortened(spec)!r}: the file is missing",
                                 _LOC_HINT)
            return cls(file=file, line=_line_number(line, spec), text=text)
        if not _FUNCTION_RE.match(text):
            raise UsageError(f"bad location {shortened(spec)!r}", _LOC_HINT)
        return cls(function=text, text=text)

    @classmethod
    def _by_text(cls, text: str, spec: str) -> BreakLoc:
        found = _TEXT_RE.match(text)
        if found is None:
            raise UsageError(f"bad location {shortened(spec)!r}: a line's text goes in double "
                             'quotes after its file, FILE:"TEXT"', _LOC_HINT)
        file, match = found.group("file"), found.group("match")
        if not file:
            raise UsageError(f"bad location {shortened(spec)!r}: the file is missing "
                             '(FILE:"TEXT")', _LOC_HINT)
        if not match.strip():
            raise UsageError(f"bad location {shortened(spec)!r}: the line's text is empty",
                             _LOC_HINT)
        return cls(file=file, match=match, text=text)

    def anchored(self, cwd: str) -> BreakLoc:
        """The location with a relative file made absolute when it names a
        file in ``cwd`` (the folder the user typed it in); otherwise left as
        typed, for the backend to find among the program's sources."""
        if self.file is None or os.path.isabs(self.file):
            return self
        candidate = os.path.join(cwd, self.file)
        if os.path.isfile(candidate):
            return replace(self, file=os.path.abspath(candidate))
        return self

    # -- on the wire ---------------------------------------------------------------

    def to_wire(self) -> JsonObject:
        wire: JsonObject = {"file": self.file, "line": self.line, "function": self.function,
                            "module": self.module, "text": self.text or self.key()}
        # Only when given: a location by number keeps the shape it always had.
        if self.match is not None:
            wire["match"] = self.match
        if self.near is not None:
            wire["near"] = self.near
        return wire

    @classmethod
    def from_wire(cls, data: Json) -> BreakLoc:
        """Rebuild a location sent by a front end; a wrong shape is a usage
        error (a front end must parse text with :meth:`parse` first)."""
        if not isinstance(data, dict):
            raise UsageError(f"bad location {data!r}: expected a parsed location",
                             "front ends send BreakLoc.parse(text).to_wire()")
        unknown = set(data) - {"file", "line", "function", "module", "text", "match", "near"}
        if unknown:
            raise UsageError(f"bad location: unknown fields {', '.join(sorted(unknown))}")
        for name in ("file", "function", "module", "text", "match"):
            value = data.get(name)
            if value is not None and (not isinstance(value, str) or not value
                                      or breaks_line(value)):
                raise UsageError(f"bad location: {name} must be a non-empty line of text")
        line = data.get("line")
        if line is not None and (isinstance(line, bool) or not isinstance(line, int) or line < 1):
            raise UsageError("bad location: line must be a positive number")
        if line is not None and line > MAX_LINE:
            raise UsageError(f"bad location: line must be at most {MAX_LINE}")
        near = data.get("near")
        if near is not None and (isinstance(near, bool) or not isinstance(near, int)
                                 or not 1 <= near <= MAX_LINE):
            raise UsageError(f"bad location: near must be a line number (1 to {MAX_LINE})")
        loc = cls(file=data.get("file"), line=line, function=data.get("function"),
                  module=data.get("module"), text=data.get("text") or "",
                  match=data.get("match"), near=near)
        if loc.match is not None and (loc.file is None or loc.function is not None
                                      or not loc.match.strip()):
            raise UsageError("bad location: a line's text needs its file and nothing else",
                             'FILE:"TEXT"')
        if loc.near is not None and loc.match is None:
            raise UsageError("bad location: near picks among the lines a text is on",
                             'FILE:"TEXT" with --near LINE')
        if loc.function is None and loc.line is None and loc.match is None:
            raise UsageError("bad location: it needs a line, a line's text or a function",
                             _LOC_HINT)
        if loc.function is not None and (loc.line is not None or loc.file is not None):
            raise UsageError("bad location: a function takes no file or line", _LOC_HINT)
        if loc.module is not None and loc.function is None:
            raise UsageError("bad location: MODULE!FUNCTION needs the function", _LOC_HINT)
        return loc

    def key(self) -> str:
        """The location in the form it is typed (``app.py:12``, ``main``)."""
        if self.module:
            return f"{self.module}!{self.function}"
        if self.function:
            return self.function
        if self.file and self.line is None and self.match is not None:
            return f'{self.file}:"{self.match}"'
        if self.file:
            return f"{self.file}:{self.line}"
        return str(self.line)

    def __str__(self) -> str:
        return self.text or self.key()


_LOC_HINT = ('use FILE:LINE (e.g. app.py:12), FILE:"TEXT" (the line holding TEXT), LINE, '
             "FUNCTION, or MODULE!FUNCTION")


def _line_number(text: str, spec: str) -> int:
    if not _LINE_RE.fullmatch(text) or not text.strip("0"):
        raise UsageError(f"bad location {shortened(spec)!r}: line must be a positive number",
                         _LOC_HINT)
    return whole_number(text, "bad location: line", MAX_LINE, "a line number")


def location_arg(spec: str | None, cwd: str | None = None) -> JsonObject | None:
    """What a front end sends for a location argument: parsed, anchored to
    ``cwd`` (default: the current folder), as a wire dict."""
    if spec is None:
        return None
    return BreakLoc.parse(spec).anchored(cwd or os.getcwd()).to_wire()
