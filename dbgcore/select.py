"""Choosing a backend for a program when ``--backend`` is not given.

Candidates come from backends.yaml in file order: first the backends whose
``extensions`` match the program, then those whose ``root_markers`` sit in the
program's folder or a parent. The first candidate whose debugger is installed
wins; if none is, the error carries the first candidate's install hint.
"""

from __future__ import annotations

from pathlib import Path

from dbgcore.backend import Backend, BackendSpec
from dbgcore.errors import BackendMissing, UsageError


def candidates(program: Path, specs: dict[str, BackendSpec]) -> list[BackendSpec]:
    suffix = program.suffix.lower()
    found = [s for s in specs.values() if suffix and suffix in s.extensions]
    if found:
        return found
    start = program if program.is_dir() else program.parent
    for folder in (start, *start.parents):
        marked = [s for s in specs.values()
                  if any((folder / marker).exists() for marker in s.root_markers)]
        if marked:
            return marked
    return []


def select_backend(program: Path, specs: dict[str, BackendSpec],
                   classes: dict[str, type[Backend]]) -> BackendSpec:
    options = candidates(program, specs)
    if not options:
        raise UsageError(
            f"cannot tell which debugger fits {program}",
            f"pass --backend NAME (one of: {', '.join(specs)})",
        )
    for spec in options:
        cls = classes.get(spec.plugin)
        if cls is not None and cls.check(spec).ready:
            return spec
    first = options[0]
    cls = classes.get(first.plugin)
    detail = cls.check(first).detail if cls else f"plugin {first.plugin!r} is not loaded"
    raise BackendMissing(f"no debugger for {program.name} is ready ({first.name}: {detail})",
                         first.install)
