"""Java objects shown with their fields, read from the JVM over JDWP.

jdb shows an object as ``instance of shop.Order(id=622)`` (`locals`, a
field in `dump`) or as its toString() (`print`): neither says what it
holds, and each jdb command costs tens of milliseconds. The ``id`` jdb
shows is the object's JDWP id, so dbg reads the object itself on the JDWP
connection it relays (:mod:`dbg_jdb.jdwp`): its class, its instance fields
(statics and synthetic ones left out), their values, without running any of
the program's code. Shown the way delve shows a Go struct::

    Order {id: 622, customer: "ada", items: ArrayList(size=2) ["kiwi", "plum"],
           discount: 15, previous: Order {...}, +3 more}

Strings as strings, boxed numbers as numbers, arrays, ``ArrayList``,
``HashMap`` and ``HashSet`` with their size and first elements, an enum
constant by its name; nested objects to a bounded depth, and every cut
said: ``+N more`` for fields and elements left out, ``{...}`` for an object
below the depth.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass

from dbg_jdb.jdwp import JdwpRelay

#: (command set, command) of the JDWP questions asked.
_OBJECT_TYPE = (9, 1)
_OBJECT_VALUES = (9, 2)
_SIGNATURE = (2, 1)
_FIELDS = (2, 4)
_SUPERCLASS = (3, 1)
_STRING_VALUE = (10, 1)
_ARRAY_LENGTH = (13, 1)
_ARRAY_VALUES = (13, 2)

_STATIC = 0x0008
_SYNTHETIC = 0xF0000000

#: Fields of one object shown, elements of an array or a collection shown,
#: characters of a string shown.
MAX_FIELDS = 10
MAX_ELEMENTS = 5
MAX_STRING = 200
#: JDWP questions one value may cost (each ~1 ms): a value that needs more
#: is shown as far as it was read, the rest as ``{...}``.
QUESTIONS = 400

_PRIMITIVE_SIZES = {"B": 1, "Z": 1, "C": 2, "S": 2, "I": 4, "F": 4, "J": 8, "D": 8, "V": 0}
_BOXES = frozenset(f"Ljava/lang/{name};" for name in (
    "Integer", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Character"))
_LISTS = frozenset({"Ljava/util/ArrayList;", "Ljava/util/Vector;"})
_MAPS = frozenset({"Ljava/util/HashMap;", "Ljava/util/LinkedHashMap;"})
_SETS = frozenset({"Ljava/util/HashSet;", "Ljava/util/LinkedHashSet;"})


@dataclass(frozen=True)
class _Field:
    ident: bytes
    name: str
    signature: str


@dataclass
class _Primitive:
    """A primitive value, as Java source would write it."""
    text: str


#: A value read: a primitive, an object's id (0: null).
_Read = _Primitive | int


class ObjectView:
    """Reads objects of one stopped JVM; what it learned of classes is kept
    for the session (classes do not change), what it read of objects only
    for one value."""

    def __init__(self, jdwp: JdwpRelay) -> None:
        self.jdwp = jdwp
        self._signatures: dict[bytes, str] = {}
        self._fields: dict[bytes, list[_Field]] = {}
        self._enums: dict[bytes, bool] = {}
        self._left = QUESTIONS
        self._timeout = 5.0

    # -- what the backend asks -----------------------------------------------------

    def describe(self, object_id: int, depth: int, timeout: float) -> str:
        """The object ``object_id`` as one line, nested objects ``depth``
        levels down (0: ``Order {...}``)."""
        self._start(timeout)
        return self._describe(object_id, depth)

    def fields(self, object_id: int, depth: int,
               timeout: float) -> list[tuple[str, str]] | None:
        """An object's instance fields, each value as :meth:`describe` shows
        it ``depth`` levels down; None for a value that shows its contents
        whole (a string, a boxed number, an array, a collection, an enum)."""
        self._start(timeout)
        kind = self._type_of(object_id)
        signature = self._signature(kind)
        if signature.startswith("[") or signature == "Ljava/lang/String;" \
                or signature in _BOXES | _LISTS | _MAPS | _SETS or self._is_enum(kind):
            return None
        values = self._values(object_id, self._instance_fields(kind))
        return [(f.name, self._text(v, depth)) for f, v in values]

    def unless_string(self, array_id: int, depth: int, timeout: float) -> str | None:
        """The one element of the array ``array_id`` (an expression's value
        wrapped so that jdb shows its id) as :meth:`describe` shows it;
        None when it is a string, which jdb's own answer shows as well."""
        self._start(timeout)
        elements = self._ask(_ARRAY_VALUES, self._id(array_id) + struct.pack(">II", 0, 1))
        element, _ = self._tagged(elements, 5)
        if not isinstance(element, int) or element == 0:
            return None
        if self._signature(self._type_of(element)) == "Ljava/lang/String;":
            return None
        return self._describe(element, depth)

    def _start(self, timeout: float) -> None:
        self._left = QUESTIONS
        self._timeout = timeout

    # -- the values ----------------------------------------------------------------

    def _describe(self, object_id: int, depth: int) -> str:
        if object_id == 0:
            return "null"
        kind = self._type_of(object_id)
        signature = self._signature(kind)
        if signature == "Ljava/lang/String;":
            return self._string(object_id)
        if signature.startswith("["):
            return self._array(object_id, signature, depth)
        fields = self._instance_fields(kind)
        name = _simple(signature)
        if signature in _BOXES:
            value = self._by_name(object_id, fields).get("value")
            return value.text if isinstance(value, _Primitive) else f"{name} {{...}}"
        if self._is_enum(kind):
            constant = self._by_name(object_id, fields).get("name")
            label = self._string(constant) if isinstance(constant, int) else "?"
            return f"{name}.{label.strip(chr(34))}"
        if signature in _LISTS:
            return self._list(object_id, fields, name, depth)
        if signature in _MAPS:
            return self._map(object_id, fields, name, depth, keys_only=False)
        if signature in _SETS:
            inner = self._by_name(object_id, fields).get("map")
            if isinstance(inner, int) and inner:
                map_fields = self._instance_fields(self._type_of(inner))
                return self._map(inner, map_fields, name, depth, keys_only=True)
        if depth <= 0 or self._left <= 0:
            return f"{name} {{...}}"
        values = self._values(object_id, fields)
        shown = [f"{f.name}: {self._text(v, depth - 1)}" for f, v in values[:MAX_FIELDS]]
        if len(values) > MAX_FIELDS:
            shown.append(f"+{len(values) - MAX_FIELDS} more")
        return f"{name} {{{', '.join(shown)}}}"

    def _text(self, value: _Read, depth: int) -> str:
        if isinstance(value, _Primitive):
            return value.text
        if self._left <= 0 and value:
            return "{...}"
        return self._describe(value, depth)

    def _string(self, object_id: int) -> str:
        data = self._ask(_STRING_VALUE, self._id(object_id))
        length = struct.unpack_from(">I", data)[0]
        text = data[4:4 + length].decode("utf-8", "replace")
        quoted = json.dumps(text[:MAX_STRING], ensure_ascii=False)
        return quoted if len(text) <= MAX_STRING else \
            f"{quoted}... (+{len(text) - MAX_STRING} chars)"

    def _array(self, object_id: int, signature: str, depth: int) -> str:
        length = struct.unpack(">I", self._ask(_ARRAY_LENGTH, self._id(object_id)))[0]
        shown = self._elements(object_id, min(length, MAX_ELEMENTS), depth)
        more = [f"+{length - MAX_ELEMENTS} more"] if length > MAX_ELEMENTS else []
        element = _java_type(signature[1:])
        return f"{element}[{length}] [{', '.join(shown + more)}]"

    def _elements(self, array_id: int, count: int, depth: int) -> list[str]:
        if count == 0:
            return []
        data = self._ask(_ARRAY_VALUES, self._id(array_id) + struct.pack(">II", 0, count))
        tag = chr(data[0])
        at = 5
        out = []
        for _ in range(struct.unpack_from(">I", data, 1)[0]):
            value: _Read
            if tag in _PRIMITIVE_SIZES:
                value, at = _primitive(tag, data, at)
            else:
                value, at = self._tagged(data, at)
            out.append(self._text(value, depth - 1))
        return out

    def _list(self, object_id: int, fields: list[_Field], name: str, depth: int) -> str:
        values = self._by_name(object_id, fields)
        size = _number(values.get("size", values.get("elementCount")))
        data = values.get("elementData")
        shown = self._elements(data, min(size, MAX_ELEMENTS), depth) \
            if isinstance(data, int) and data else []
        more = [f"+{size - MAX_ELEMENTS} more"] if size > MAX_ELEMENTS else []
        return f"{name}(size={size}) [{', '.join(shown + more)}]"

    def _map(self, object_id: int, fields: list[_Field], name: str, depth: int,
             keys_only: bool) -> str:
        values = self._by_name(object_id, fields)
        size = _number(values.get("size"))
        table = values.get("table")
        entries: list[str] = []
        if isinstance(table, int) and table and size:
            buckets = struct.unpack(">I", self._ask(_ARRAY_LENGTH, self._id(table)))[0]
            data = self._ask(_ARRAY_VALUES, self._id(table) + struct.pack(">II", 0, buckets))
            at = 5
            nodes = []
            for _ in range(struct.unpack_from(">I", data, 1)[0]):
                node, at = self._tagged(data, at)
                if isinstance(node, int) and node:
                    nodes.append(node)
            while nodes and len(entries) < min(size, MAX_ELEMENTS) and self._left > 0:
                node = nodes.pop(0)
                node_fields = self._instance_fields(self._type_of(node))
                read = self._by_name(node, node_fields)
                key = self._text(read.get("key", 0), depth - 1)
                if not keys_only:
                    value = read.get("value", 0)
                    key = f"{key}: {self._text(value, depth - 1)}"
                entries.append(key)
                chained = read.get("next")
                if isinstance(chained, int) and chained:
                    nodes.insert(0, chained)
        more = [f"+{size - len(entries)} more"] if size > len(entries) else []
        open_, close = ("[", "]") if keys_only else ("{", "}")
        return f"{name}(size={size}) {open_}{', '.join(entries + more)}{close}"

    # -- JDWP ------------------------------------------------------------------------

    def _ask(self, command: tuple[int, int], data: bytes) -> bytes:
        self._left -= 1
        return self.jdwp.ask(command, data, self._timeout)

    def _id(self, object_id: int) -> bytes:
        return object_id.to_bytes(self.jdwp.sizes.object, "big")

    def _type_of(self, object_id: int) -> bytes:
        return self._ask(_OBJECT_TYPE, self._id(object_id))[1:]

    def _signature(self, kind: bytes) -> str:
        if kind not in self._signatures:
            data = self._ask(_SIGNATURE, kind)
            self._signatures[kind] = _string_at(data, 0)[0]
        return self._signatures[kind]

    def _superclass(self, kind: bytes) -> bytes | None:
        parent = self._ask(_SUPERCLASS, kind)
        return parent if parent.strip(b"\0") else None

    def _is_enum(self, kind: bytes) -> bool:
        if kind not in self._enums:
            parent = self._superclass(kind)
            self._enums[kind] = parent is not None and \
                self._signature(parent) == "Ljava/lang/Enum;"
        return self._enums[kind]

    def _instance_fields(self, kind: bytes) -> list[_Field]:
        """A class's instance fields, its superclasses' first (as a Java IDE
        lists them), java.lang.Object's none."""
        if kind in self._fields:
            return self._fields[kind]
        chain: list[bytes] = []
        at: bytes | None = kind
        while at is not None and self._signature(at) != "Ljava/lang/Object;":
            chain.append(at)
            at = self._superclass(at)
        found: list[_Field] = []
        sizes = self.jdwp.sizes
        for owner in reversed(chain):
            data = self._ask(_FIELDS, owner)
            pos = 4
            for _ in range(struct.unpack_from(">I", data)[0]):
                ident = data[pos:pos + sizes.field]
                name, pos = _string_at(data, pos + sizes.field)
                signature, pos = _string_at(data, pos)
                modifiers = struct.unpack_from(">I", data, pos)[0]
                pos += 4
                if not modifiers & (_STATIC | _SYNTHETIC):
                    found.append(_Field(ident, name, signature))
        self._fields[kind] = found
        return found

    def _values(self, object_id: int, fields: list[_Field]) -> list[tuple[_Field, _Read]]:
        if not fields:
            return []
        data = self._ask(_OBJECT_VALUES, self._id(object_id) + struct.pack(">I", len(fields))
                         + b"".join(f.ident for f in fields))
        at = 4
        out = []
        for item in fields:
            value, at = self._tagged(data, at)
            out.append((item, value))
        return out

    def _by_name(self, object_id: int, fields: list[_Field]) -> dict[str, _Read]:
        """The values of an object's fields by name (a subclass's field
        hides its superclass's of the same name: it comes later)."""
        return {f.name: v for f, v in self._values(object_id, fields)}

    def _tagged(self, data: bytes, at: int) -> tuple[_Read, int]:
        tag = chr(data[at])
        if tag in _PRIMITIVE_SIZES:
            return _primitive(tag, data, at + 1)
        size = self.jdwp.sizes.object
        return int.from_bytes(data[at + 1:at + 1 + size], "big"), at + 1 + size


def _primitive(tag: str, data: bytes, at: int) -> tuple[_Primitive, int]:
    size = _PRIMITIVE_SIZES[tag]
    raw = data[at:at + size]
    if tag == "Z":
        text = "true" if raw[0] else "false"
    elif tag == "C":
        text = json.dumps(chr(int.from_bytes(raw, "big")), ensure_ascii=False)
        text = "'" + text[1:-1].replace("'", "\\'") + "'"
    elif tag == "F":
        text = _java_float(struct.unpack(">f", raw)[0], single=True)
    elif tag == "D":
        text = _java_float(struct.unpack(">d", raw)[0])
    elif tag == "V":
        text = "void"
    else:
        text = str(int.from_bytes(raw, "big", signed=True))
    return _Primitive(text), at + size


def _java_float(value: float, single: bool = False) -> str:
    """As Java prints a double (2.5, 1.0E20, NaN, Infinity)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    text = f"{value:.8g}" if single else repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        return f"{mantissa}E{int(exponent)}"
    return text if "." in text or "n" in text else text + ".0"


def _number(value: _Read | None) -> int:
    if isinstance(value, _Primitive):
        try:
            return int(value.text)
        except ValueError:
            return 0
    return 0


def _string_at(data: bytes, at: int) -> tuple[str, int]:
    length = struct.unpack_from(">I", data, at)[0]
    return data[at + 4:at + 4 + length].decode("utf-8", "replace"), at + 4 + length


def _simple(signature: str) -> str:
    """``Order`` for ``Lshop/Order;``."""
    return signature[1:-1].rsplit("/", 1)[-1] if signature.startswith("L") else signature


_PRIMITIVE_NAMES = {"B": "byte", "Z": "boolean", "C": "char", "S": "short", "I": "int",
                    "F": "float", "J": "long", "D": "double"}


def _java_type(signature: str) -> str:
    """``int`` for ``I``, ``String[]`` for ``[Ljava/lang/String;``."""
    if signature.startswith("["):
        return _java_type(signature[1:]) + "[]"
    return _PRIMITIVE_NAMES.get(signature) or _simple(signature)

