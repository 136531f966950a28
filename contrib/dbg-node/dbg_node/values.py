"""V8's RemoteObjects as dbg shows values: the way Node's own
``util.inspect`` writes them (``'text'``, ``[1, 2]``, ``{id: 1, note: 'x'}``,
``Account {id: 1}``, ``[Function: fee]``), one line.

V8's own preview of an object (``generatePreview``) goes one level down
only: an object inside it is ``Object``, an array ``Array(2)``, and a
finish's return value comes with no preview at all. An object whose preview
falls short is written by :data:`FORMAT`, run on it in the program
(``Runtime.callFunctionOn``), bounded in depth, items and length."""

from __future__ import annotations

import re

from dbg_node.messages import JsonObject

_FUNCTION_NAME = re.compile(
    r"^(?:async\s+)?(?:function\s*\*?\s*([\w$]*)|class\s+([\w$]+)|\*?\s*([\w$]+)\s*\()")


def quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def show(obj: JsonObject, text: str | None = None) -> tuple[str, str]:
    """(value, type) of a RemoteObject; ``text``: what :data:`FORMAT` wrote
    of it, when it ran (:func:`deeper`)."""
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
    if text:
        return text, class_name
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


#: Subtypes of object FORMAT writes (others are shown by V8's description).
_FORMATTED = (None, "array", "map", "set")
#: Names V8's preview gives an object nested in another ("Object",
#: "Array(2)", "Map(1)", "Account"): what needs FORMAT to be shown.
_NESTED_KINDS = ("object",)


def deeper(obj: JsonObject) -> bool:
    """Whether V8's preview of ``obj`` says less than its contents: none at
    all (a return value), an object inside it shown by its class name alone,
    items left out uncounted (V8 shows 5 of an object's properties), or more
    of them than dbg shows (V8 lists 100 of an array's)."""
    if obj.get("type") != "object" or not obj.get("objectId") \
            or obj.get("subtype") not in _FORMATTED:
        return False
    preview = obj.get("preview")
    if not preview:
        return True
    nested = [p for p in preview.get("properties", [])
              if p.get("type") in _NESTED_KINDS and p.get("subtype") != "null"]
    for entry in preview.get("entries", []):
        nested += [e for e in (entry.get("key"), entry.get("value"))
                   if e and e.get("type") in _NESTED_KINDS and e.get("subtype") != "null"]
    listed = max(len(preview.get("properties", [])), len(preview.get("entries", [])))
    return bool(nested) or bool(preview.get("overflow")) or listed > FORMAT_ITEMS


#: Items FORMAT writes of an object, an array, a Map or a Set ("+N more" the rest).
FORMAT_ITEMS = 20
#: How deep FORMAT goes into objects inside objects (deeper: ``{…}``).
FORMAT_DEPTH = 2
#: The most characters FORMAT writes of one value ("…" past them).
FORMAT_CHARS = 300

#: Run on an object in the program (``this``): it as one line of
#: util.inspect's kind, without calling getters (an accessor is
#: ``[Getter]``) or a class's own toString.
FORMAT = """function (items, depth, chars) {
  const seen = new Set();
  const quote = (s) => "'" + (s.length > 80 ? s.slice(0, 80) + "…" : s)
    .replace(/\\\\/g, "\\\\\\\\").replace(/'/g, "\\\\'").replace(/\\n/g, "\\\\n") + "'";
  const key = (k) => typeof k === "symbol" ? "[" + k.toString() + "]"
    : /^[A-Za-z_$][\\w$]*$/.test(k) ? k : quote(k);
  const className = (v) => {
    const proto = Object.getPrototypeOf(v);
    if (proto === null) return "[Object: null prototype]";
    const made = Object.getOwnPropertyDescriptor(proto, "constructor");
    return made && typeof made.value === "function" ? made.value.name : "";
  };
  const more = (parts, total) => {
    if (total > parts.length) parts.push("+" + (total - parts.length) + " more");
    return parts.join(", ");
  };
  const show = (v, level) => {
    const t = typeof v;
    if (v === null) return "null";
    if (t === "string") return quote(v);
    if (t === "bigint") return v + "n";
    if (t === "symbol") return v.toString();
    if (t === "function") {
      if (/^class\\b/.test(Function.prototype.toString.call(v))) return "[class " + v.name + "]";
      return v.name ? "[Function: " + v.name + "]" : "[Function (anonymous)]";
    }
    if (t !== "object") return String(v);
    if (v instanceof Date) return isNaN(v) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof Error) return v.name + ": " + v.message;
    if (v instanceof Promise) return "Promise {…}";
    if (seen.has(v)) return "[Circular]";
    const name = className(v);
    if (Array.isArray(v) || ArrayBuffer.isView(v)) {
      if (level > depth) return "[" + (name || "Array") + "(" + v.length + ")]";
      seen.add(v);
      const parts = [];
      for (let i = 0; i < Math.min(v.length, items); i++) parts.push(show(v[i], level + 1));
      seen.delete(v);
      const body = "[" + more(parts, v.length) + "]";
      return name === "Array" ? body : name + "(" + v.length + ") " + body;
    }
    if (v instanceof Map || v instanceof Set) {
      const kind = v instanceof Map ? "Map" : "Set";
      if (level > depth) return "[" + kind + "(" + v.size + ")]";
      seen.add(v);
      const parts = [];
      for (const entry of v.entries()) {
        if (parts.length >= items) break;
        parts.push(kind === "Map" ? show(entry[0], level + 1) + " => " + show(entry[1], level + 1)
          : show(entry[0], level + 1));
      }
      seen.delete(v);
      return kind + "(" + v.size + ") {" + more(parts, v.size) + "}";
    }
    const prefix = name && name !== "Object" ? name + " " : "";
    if (level > depth) return prefix ? "[" + name + "]" : "{…}";
    seen.add(v);
    const keys = Object.keys(v);
    const parts = [];
    for (const k of keys.slice(0, items)) {
      const own = Object.getOwnPropertyDescriptor(v, k);
      parts.push(key(k) + ": " + (own && "value" in own ? show(own.value, level + 1)
        : "[Getter" + (own && own.set ? "/Setter" : "") + "]"));
    }
    seen.delete(v);
    return prefix + (keys.length ? "{" + more(parts, keys.length) + "}" : "{}");
  };
  const text = show(this, 0);
  return text.length > chars ? text.slice(0, chars - 1) + "…" : text;
}"""


def format_request(obj: JsonObject) -> tuple[str, JsonObject]:
    """The request that runs FORMAT on ``obj`` (its answer: :func:`formatted`)."""
    return ("Runtime.callFunctionOn", {
        "objectId": obj["objectId"], "functionDeclaration": FORMAT, "returnByValue": True,
        "arguments": [{"value": FORMAT_ITEMS}, {"value": FORMAT_DEPTH},
                      {"value": FORMAT_CHARS}]})


def formatted(answer: JsonObject) -> str | None:
    """What FORMAT wrote, from its request's answer (None: it failed)."""
    result = answer.get("result") or {}
    if "exceptionDetails" in answer or result.get("type") != "string":
        return None
    return str(result.get("value"))


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
