"""A paused frame's scopes as V8 keeps them (its scope chain: Local,
Block, Catch, Closure, Script, Global): their names, which of them `locals`
reads, and the numbers `dbg scopes` and `dbg vars` give V8's objects (the
ops themselves: :mod:`dbg_node.scopeops`).

`dbg scopes` lists each scope with a reference for `dbg vars REF`, and the
variables of each but the global one (a whole browser's or node's worth of
names, as VS Code leaves it folded: `dbg vars REF` lists it). References are
numbers given at this pause, each standing for a V8 object (a scope's, a
value's); a move of the program forgets them, as V8 lets go of the objects.
"""

from __future__ import annotations

from dbg_node.messages import JsonObject

#: Scopes whose variables are the frame's own ("locals").
OWN_SCOPES = frozenset({"local", "block", "catch", "with", "module", "eval"})
#: How V8's scope types are named, as DevTools and VS Code name them.
TITLES = {"local": "Local", "block": "Block", "catch": "Catch", "with": "With",
          "closure": "Closure", "script": "Script", "global": "Global", "module": "Module",
          "eval": "Eval", "wasm-expression-stack": "Wasm Stack"}


def title(scope: JsonObject) -> str:
    """A scope as DevTools titles it: ``Closure (makeCounter)``, ``Local``."""
    kind = str(scope.get("type", ""))
    name = str(scope.get("name") or "")
    base = TITLES.get(kind, kind.title())
    return f"{base} ({name})" if name and kind == "closure" else base


def captured(scope: JsonObject) -> bool:
    """A closure scope of a function of the program's (not the module's
    own top level, whose every function and import a closure sees)."""
    start = scope.get("startLocation") or {}
    if start and start.get("lineNumber") == 0 and start.get("columnNumber") == 0:
        return False  # CommonJS's wrapper: the module's top level
    return scope.get("type") == "closure" and bool(scope.get("name"))


def locals_scopes(frame: JsonObject) -> list[tuple[JsonObject, str | None]]:
    """The scopes `locals` reads, innermost first, each with the mark its
    variables carry: the frame's own (None), then its closures' ("closure
    makeCounter"), up to the module's or the script's."""
    chosen: list[tuple[JsonObject, str | None]] = []
    own = True
    for scope in frame.get("scopeChain", []):
        kind = scope.get("type")
        if own and kind in OWN_SCOPES:
            chosen.append((scope, None))
            continue
        own = False
        if kind != "closure" or not captured(scope):
            break
        chosen.append((scope, f"closure {scope.get('name')}"))
    return chosen


class References:
    """The numbers `dbg scopes` and `dbg vars` give V8's objects at one pause."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._objects: list[JsonObject] = []

    def clear(self) -> None:
        self._ids.clear()
        self._objects.clear()

    def number(self, obj: JsonObject) -> int:
        object_id = str(obj.get("objectId") or "")
        if not object_id:
            return 0
        if object_id not in self._ids:
            self._objects.append(obj)
            self._ids[object_id] = len(self._objects)
        return self._ids[object_id]

    def object(self, number: int) -> JsonObject | None:
        return self._objects[number - 1] if 0 < number <= len(self._objects) else None
