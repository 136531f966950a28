"""A section of README.md that a benchmark writes: the lines between its
begin and end comments, replaced by the benchmark's own run."""

from __future__ import annotations

from pathlib import Path


def rewrite(path: Path, begin: str, end: str, section: str, what: str) -> None:
    """Replace the lines from ``begin`` to ``end`` (both included) in the
    file at ``path`` with ``section``, which starts and ends with them;
    ``what`` names the section in the error when it is missing."""
    text = path.read_text()
    if begin not in text or end not in text:
        raise SystemExit(f"{path}: no {what} to rewrite (the lines {begin!r} and {end!r})")
    before, rest = text.split(begin, 1)
    after = rest.split(end, 1)[1]
    path.write_text(before + section + after)
