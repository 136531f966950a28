"""A client of the V8 inspector protocol, as Node.js serves it over a WebSocket.

Requests are JSON objects with an ``id``; answers carry the same ``id``;
everything else is an event. One reader thread takes every message off the
socket: answers go to the request waiting for them, the events the backend
acts on (pauses, the end of the program) to a queue, and the script list is
kept here, so the backend asks for a script's URL without a round trip.
"""

from __future__ import annotations

import json
import queue
import socket
import sys
import threading
import time
from typing import TYPE_CHECKING

from dbgcore.api import DebuggerTimeout, OpFailed, TargetExited, TransLog

from dbg_node.messages import JsonObject

if TYPE_CHECKING:
    from websockets.sync.client import ClientConnection

#: Events handed to the backend; the rest are logged and dropped.
WANTED = frozenset({"Debugger.paused", "Debugger.resumed", "Runtime.executionContextDestroyed",
                    "Debugger.breakpointResolved"})
#: A pseudo-event queued when the socket closes.
CLOSED = "dbg.closed"


class Inspector:
    def __init__(self, url: str, log: TransLog, timeout: float) -> None:
        # Imported here, not with the module: every `dbg start`, of any
        # backend, loads this plugin's backend class, and websockets (with
        # http.client and email) is a fifth of what a start imports.
        from websockets.exceptions import WebSocketException
        from websockets.sync.client import connect

        self.log = log
        try:
            # No keepalive pings: node's inspector does not answer them, and the
            # library would drop the connection 20 s into a long `continue`.
            self.ws: ClientConnection = connect(url, max_size=None, open_timeout=timeout,
                                                compression=None, proxy=None,
                                                ping_interval=None,
                                                sock=quickack_socket(url, timeout))
        except (OSError, WebSocketException, TimeoutError) as exc:
            raise OpFailed(f"cannot reach Node.js's inspector at {url}: {exc}") from exc
        self.events: queue.Queue[JsonObject] = queue.Queue()
        #: scriptId -> URL of every script V8 has parsed.
        self.scripts: dict[str, str] = {}
        #: scriptId -> the sourceMapURL of a script that names its map.
        self.map_urls: dict[str, str] = {}
        #: The default execution context: when it goes, the program has ended.
        self.main_context: int | None = None
        self.closed = threading.Event()
        self._ids = 0
        self._lock = threading.Lock()
        self._waiting: dict[int, queue.Queue[JsonObject]] = {}
        self._reader = threading.Thread(target=self._read, name="node-inspector", daemon=True)
        self._reader.start()

    # -- requests --------------------------------------------------------------------

    def call(self, method: str, params: JsonObject | None,
             timeout: float) -> JsonObject:
        """Send a request and return its result; an error answer is an OpFailed
        with the inspector's message."""
        return self.call_all([(method, params)], timeout)[0]

    def call_all(self, requests: list[tuple[str, JsonObject | None]],
                 timeout: float) -> list[JsonObject]:
        """Send the requests (method, params), all before the first answer is
        awaited (node takes them in order: one round trip, not one each), and
        return their results in that order; the first error answer is an
        OpFailed with the inspector's message."""
        deadline = time.monotonic() + timeout
        boxes: list[tuple[int, queue.Queue[JsonObject]]] = []
        with self._lock:
            for _ in requests:
                self._ids += 1
                boxes.append((self._ids, queue.Queue(maxsize=1)))
                self._waiting[self._ids] = boxes[-1][1]
        answers = []
        try:
            if self.closed.is_set():
                raise TargetExited("the program has ended")
            for (ident, _), (method, params) in zip(boxes, requests, strict=True):
                text = json.dumps({"id": ident, "method": method, "params": params or {}})
                self.log.sent(text)
                self.ws.send(text)
            for (_, box), (method, _) in zip(boxes, requests, strict=True):
                try:
                    answers.append(box.get(timeout=max(0.0, deadline - time.monotonic())))
                except queue.Empty:
                    raise DebuggerTimeout(
                        f"Node.js did not answer {method} within {timeout:g}s") from None
        except (_closed(), OSError) as exc:
            raise TargetExited("the program has ended") from exc
        finally:
            with self._lock:
                for ident, _ in boxes:
                    self._waiting.pop(ident, None)
        results = []
        for answer in answers:
            if answer.get("method") == CLOSED:
                raise TargetExited("the program has ended")
            if "error" in answer:
                error = answer["error"]
                raise OpFailed(str(error.get("message") or error), _hint(error))
            results.append(answer.get("result") or {})
        return results

    def next_event(self, timeout: float) -> JsonObject | None:
        try:
            return self.events.get(timeout=max(timeout, 0))
        except queue.Empty:
            return None

    def close(self) -> None:
        self.ws.close()
        self._reader.join(timeout=2)

    # -- the reader thread -------------------------------------------------------------

    def _read(self) -> None:
        try:
            for text in self.ws:
                self._take(json.loads(text))
        except (_closed(), OSError, ValueError):
            pass
        finally:
            self.closed.set()
            end = {"method": CLOSED, "params": {}}
            with self._lock:
                for box in self._waiting.values():
                    box.put(end)
            self.events.put(end)

    def _take(self, message: JsonObject) -> None:
        method = message.get("method")
        params = message.get("params") or {}
        if method == "Debugger.scriptParsed":
            self.scripts[params["scriptId"]] = params.get("url", "")
            if params.get("sourceMapURL"):
                self.map_urls[params["scriptId"]] = str(params["sourceMapURL"])
            if str(params.get("url", "")).startswith("node:"):
                return  # Node's own ~100 scripts would drown the log
        elif method == "Runtime.executionContextCreated":
            context = params.get("context") or {}
            if (context.get("auxData") or {}).get("isDefault") and self.main_context is None:
                self.main_context = context.get("id")
        self.log.received(json.dumps(message)[:4000])
        if "id" in message:
            with self._lock:
                box = self._waiting.get(message["id"])
            if box is not None:
                box.put(message)
        elif method in WANTED:
            self.events.put(message)


class _QuickAckSocket(socket.socket):
    """A TCP socket that acknowledges every segment at once.

    Node's inspector writes an answer as two small segments without
    TCP_NODELAY, so Nagle holds the second until the first is acknowledged,
    and a client on Linux delays that acknowledgement by 40 ms: every request
    cost ~42 ms. TCP_QUICKACK ends the delay, but Linux clears it again as it
    processes traffic, so it is set anew after each read."""

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        data = super().recv(bufsize, flags)
        if data:
            try:
                self.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            except OSError:
                pass  # closed meanwhile by the other thread: the next recv says so
        return data


def quickack_socket(url: str, timeout: float) -> socket.socket | None:
    """A connected socket for a ws:// URL that acknowledges at once, or None
    where there is no TCP_QUICKACK (not Linux): websockets then connects
    itself."""
    if not sys.platform.startswith("linux") or not hasattr(socket, "TCP_QUICKACK"):
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    plain = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80),
                                     timeout=timeout)
    quick = _QuickAckSocket(plain.family, plain.type, plain.proto, fileno=plain.detach())
    # Blocking, as websockets leaves its own sockets: its reader thread waits
    # on this socket for as long as the program runs (the handshake has its own
    # deadline).
    quick.settimeout(None)
    quick.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
    return quick


def _closed() -> type[Exception]:
    from websockets.exceptions import ConnectionClosed

    return ConnectionClosed


def _hint(error: JsonObject) -> str:
    data = error.get("data")
    return str(data) if data else ""


def inspector_url(host: str, port: int, timeout: float) -> str:
    """The WebSocket URL of the program an inspector at host:port debugs
    (its HTTP endpoint lists them)."""
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://{host}:{port}/json/list",
                                    timeout=timeout) as answer:
            targets = json.loads(answer.read().decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise OpFailed(f"no Node.js inspector at {host}:{port}: {exc}",
                       "start the program with `node --inspect=127.0.0.1:PORT`") from exc
    for target in targets:
        if target.get("webSocketDebuggerUrl"):
            return str(target["webSocketDebuggerUrl"])
    raise OpFailed(f"the inspector at {host}:{port} has no program to debug")
