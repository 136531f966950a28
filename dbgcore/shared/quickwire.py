"""The wire (dbgcore.shared.wire) for a process that has imported nothing:
a request as one JSON line without the ``json`` module (2-3 ms to import),
and one request's whole answer over the built-in ``_socket``. For the fast
path's client (:mod:`dbgcore.entry`) and the ways of starting a daemon that
run before anything else is imported (:mod:`dbgcore.start.launch`).
"""

from __future__ import annotations

_JSON_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)} | {ord('"'): '\\"', ord("\\"): "\\\\"}


def json_text(value: object) -> str:
    """Enough JSON for a request: strings, lists of them, bools, numbers,
    objects of them."""
    if isinstance(value, str):
        return '"' + value.translate(_JSON_ESCAPES) + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ",".join(f"{json_text(k)}:{json_text(v)}" for k, v in value.items()) + "}"


def ask(path: str, request: bytes, timeout: float) -> bytes:
    """``request`` (one line) to whoever listens at ``path``, and all it answers."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(request)
        chunks: list[bytes] = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        sock.close()
