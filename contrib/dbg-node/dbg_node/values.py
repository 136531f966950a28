"""V8's RemoteObjects as dbg shows values: the way Node's own
``util.inspect`` writes them (``'text'``, ``[1, 2]``, ``{id: 1, note: 'x'}``,
``Account {id: 1}``, ``[Function: fee]``), one line."""

from __future__ import annotations

import re

from dbg_node.messages import JsonObject

_FUNCTION_NAME = re.compile(
    r"^(?:async\s+)?(?:function\s*\*?\s*([\w$]*)|class\s+([\w$]+)|\*?\s*([\w$]+)\s*\()")


def quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def show(obj: JsonObject) -> tuple[str, str]:
    """(value, type) of a RemoteObject."""
    kind = obj.get("type", "undefined")
    subtype = obj.get("subtype")
    if kind == "undefined":
        return "undefined", "undefined"
    if kind == "string":
        return quote(str(obj.get("value", ""))), "string"
    if kind in ("number", "boolean", "bigint", "symbol"):
        text = obj.get("description") or obj.get("unserializableValue") or str(obj.get("value"))
        if kind == "boolean":
            text = "true" if obj.get("value") else "false"
        return str(text), kind
    if kind == "function":
        return _function(obj), "function"
    if subtype == "null":
        return "null", "null"
    class_name = str(obj.get("className") or "Object")
    description = str(obj.get("description") or class_name).split("\n", 1)[0]
    if subtype in ("error", "regexp", "date", "promise", "proxy", "typedarray", "arraybuffer"):
        return description, class_name
    preview = obj.get("preview")
    if subtype == "array":
        return (_array(preview) if preview else description), class_name
    if subtype in ("map", "set"):
        return (_entries(description, preview) if preview else description), class_name
    if preview:
        body = _object(preview)
        return (body if class_name == "Object" else f"{class_name} {body}"), class_name
    return description, class_name


def _function(obj: JsonObject) -> str:
    match = _FUNCTION_NAME.match(str(obj.get("description", "")))
    if match and match.group(2):
        return f"[class {match.group(2)}]"
    name = (match.group(1) or match.group(3) or "") if match else ""
    return f"[Function: {name}]" if name else "[Function (anonymous)]"


def _preview_value(prop: JsonObject) -> str:
    kind = prop.get("type")
    value = str(prop.get("value", ""))
    if kind == "string":
        return quote(value)
    if kind == "function":
        return "[Function]"
    if kind == "object" and prop.get("subtype") not in ("null",):
        return value or "Object"
    return value


def _object(preview: JsonObject) -> str:
    parts = [f"{p['name']}: {_preview_value(p)}" for p in preview.get("properties", [])]
    if preview.get("overflow"):
        parts.append("…")
    return "{" + ", ".join(parts) + "}" if parts else "{}"


def _array(preview: JsonObject) -> str:
    parts = [_preview_value(p) for p in preview.get("properties", []) if p["name"].isdigit()]
    if preview.get("overflow"):
        parts.append("…")
    return "[" + ", ".join(parts) + "]"


def _entries(description: str, preview: JsonObject) -> str:
    parts = []
    for entry in preview.get("entries", []):
        value = _object_preview(entry.get("value") or {})
        key = entry.get("key")
        parts.append(f"{_object_preview(key)} => {value}" if key else value)
    if preview.get("overflow"):
        parts.append("…")
    return f"{description} {{{', '.join(parts)}}}"


def _object_preview(preview: JsonObject) -> str:
    kind = preview.get("type")
    if kind in ("string", "number", "boolean", "bigint", "symbol", "undefined") \
            or preview.get("subtype") == "null":
        if kind == "string":
            return quote(str(preview.get("description", "")))
        return str(preview.get("description", kind))
    return str(preview.get("description", "Object"))


def expandable(obj: JsonObject) -> bool:
    """An object whose fields a stop snapshot shows one level down."""
    if obj.get("type") != "object" or not obj.get("objectId"):
        return False
    if obj.get("subtype") == "array":  # its value lists the items, unless cut short
        return bool((obj.get("preview") or {}).get("overflow"))
    return obj.get("subtype") is None


def call_argument(obj: JsonObject) -> JsonObject:
    """A RemoteObject as the argument of another request."""
    if "objectId" in obj:
        return {"objectId": obj["objectId"]}
    if "unserializableValue" in obj:
        return {"unserializableValue": obj["unserializableValue"]}
    if obj.get("type") == "undefined":
        return {}
    return {"value": obj.get("value")}
