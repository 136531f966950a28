"""The files named in DAP messages, seen through a :class:`PathMap`: an
adapter names a program's files as the program sees them (in a container,
on a remote machine), dbg as they are here.

A DAP ``Source`` is the one object that carries a file's path (a frame's
``source``, a breakpoint's, ``loadedSources``' ``sources``, an output
event's); every one found in a message is converted, wherever it is
nested. The message is copied where it changes, never changed in place:
the caller may keep what it sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The keys whose value is a Source object or a list of them.
_SOURCE_KEYS = ("source", "sources")


def _source(value: Any, convert: Callable[[str], str]) -> Any:
    if isinstance(value, list):
        return [_source(item, convert) for item in value]
    if not isinstance(value, dict):
        return value
    out = convert_sources(value, convert)
    path = out.get("path")
    if isinstance(path, str) and path.startswith("/"):
        changed = convert(path)
        if changed != path:
            out = {**out, "path": changed}
    return out


def convert_sources(message: Any, convert: Callable[[str], str]) -> Any:
    """``message`` with the path of every Source object in it converted."""
    if isinstance(message, list):
        items = [convert_sources(item, convert) for item in message]
        return items if any(a is not b for a, b in zip(items, message, strict=True)) else message
    if not isinstance(message, dict):
        return message
    changed: dict[str, Any] = {}
    for key, value in message.items():
        new = _source(value, convert) if key in _SOURCE_KEYS else convert_sources(value, convert)
        if new is not value:
            changed[key] = new
    return {**message, **changed} if changed else message
