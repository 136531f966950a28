"""Names for JSON values: what crosses the daemon's socket, the MCP wire, a
debugger's JSON answers and the session store's columns.

``Any`` is right for these, and only for these: a JSON value's shape is the
message's, not a Python type's. Imports nothing of dbg's.
"""

from __future__ import annotations

from typing import Any

#: Any JSON value (null, bool, number, string, array, object), as ``json``
#: reads it.
Json = Any
#: A JSON object: a request, an answer, a payload, a row.
JsonObject = dict[str, Json]

__all__ = ["Json", "JsonObject"]
