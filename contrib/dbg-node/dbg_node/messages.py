"""What the inspector sends and takes: JSON.

V8's messages (call frames, remote objects, scopes, property lists) are
read where they are used, by key, as the protocol describes them; their
type here says only that they are decoded JSON.
"""

from __future__ import annotations

from typing import Any

#: A value decoded from JSON (or to be encoded as JSON): truly any of them.
Json = Any
#: A JSON object: a request's params, an answer's result, an event's params.
JsonObject = dict[str, Json]
