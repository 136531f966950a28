"""`dbg scopes` and `dbg vars` on node: a layer over inspection
(:mod:`dbg_node.inspection`) that the backend (:mod:`dbg_node.backend`)
builds on. What the scopes are called and which `locals` reads:
:mod:`dbg_node.scopes`."""

from __future__ import annotations

import re
from typing import Any

from dbgcore.api import OpFailed, UsageError

import dbg_node.values as values
from dbg_node.inspection import NodeInspection
from dbg_node.messages import JsonObject
from dbg_node.scopes import title

#: Children one `dbg vars` shows when not told how many.
VARS_PAGE = 100
_NUMBER = re.compile(r"\d+")


class NodeScopes(NodeInspection):
    """The scope ops of the node backend."""

    def op_scopes(self, args: JsonObject, timeout: float) -> JsonObject:
        return _scopes(self, args, timeout)

    def op_vars(self, args: JsonObject, timeout: float) -> JsonObject:
        return _vars(self, args, timeout)


def _rows(b: NodeScopes, props: list[JsonObject], timeout: float) -> list[dict[str, Any]]:
    """Properties as `dbg vars` rows; an accessor's getter is not run
    (``[Getter]``: `dbg print` runs it)."""
    shown = iter(b._shown([p["value"] for p in props if "value" in p], timeout))
    rows = []
    for p in props:
        if "value" not in p:
            both = "/Setter" if (p.get("set") or {}).get("type") == "function" else ""
            rows.append({"name": p["name"], "value": f"[Getter{both}]", "type": None,
                         "reference": 0})
            continue
        value, kind = next(shown)
        deeper = values.expandable(p["value"]) or p["value"].get("subtype") == "array"
        rows.append({"name": p["name"], "value": value, "type": kind,
                     "reference": b.references.number(p["value"]) if deeper else 0})
    return rows


def _scopes(b: NodeScopes, args: JsonObject, timeout: float) -> JsonObject:
    """The selected frame's (or FRAME's) scopes, innermost first, each with
    its variables but the global scope's."""
    if args.get("frame") is not None:
        b.select_frame(int(args["frame"]), timeout)
    chain = list(b._frame().get("scopeChain", []))
    folded = [scope.get("type") == "global" for scope in chain]
    listed = b._properties_of([s["object"]["objectId"] for s, skip in zip(chain, folded,
                                                                         strict=True)
                               if not skip], timeout)
    out = []
    for scope, skip in zip(chain, folded, strict=True):
        row: dict[str, Any] = {"name": title(scope),
                               "reference": b.references.number(scope["object"]),
                               "expensive": skip, "hint": scope.get("type")}
        if not skip:
            row["variables"] = _rows(b, [p for p in listed.pop(0) if "value" in p], timeout)
        out.append(row)
    return {"scopes": out}


def _vars(b: NodeScopes, args: JsonObject, timeout: float) -> JsonObject:
    """The children of a reference from `dbg scopes`/`dbg vars`, or of an
    expression's value (``made.owner``), a page at a time."""
    target = str(args["ref"]).strip()
    b._frame()  # stopped in JavaScript, or said why not
    if _NUMBER.fullmatch(target):
        obj = b.references.object(int(target))
        if obj is None:
            raise UsageError(f"no reference {target} at this stop",
                             "`dbg scopes` and `dbg vars` give them; each stop gives new ones")
    else:
        obj = b._evaluate(target, timeout)
    if not obj.get("objectId"):
        raise OpFailed(f"{target} has no children: it is {values.show(obj)[0]}",
                       "`dbg print` shows it")
    props = [p for p in b._properties(str(obj["objectId"]), timeout)
             if "value" in p or "get" in p]
    start, asked = int(args.get("start") or 0), int(args.get("count") or 0)
    count = asked or VARS_PAGE
    page = props[start:start + count]
    return {"reference": b.references.number(obj), "variables": _rows(b, page, timeout),
            "start": start, "shown": len(page), "total": len(props),
            "more": start + count < len(props), "target": target}
