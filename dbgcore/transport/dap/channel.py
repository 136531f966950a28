"""The DAP channel: requests and their responses, events, reverse requests.

One reader thread turns the transport's bytes into messages and dispatches
them: a response completes the pending request with the same ``request_seq``;
an event goes to the handlers registered for its name (and ``"*"``); a
reverse request (``runInTerminal``, ``startDebugging``...) runs its handler on
a thread of its own and is answered. Our sequence numbers are our own; the
adapter's are never relied on (delve sends 0 for all of them).

When the adapter goes away (EOF, a framing error), every pending request and
every later one fails at once with a ``backend`` error that says how it ended
and quotes its last stderr lines.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections.abc import Callable

from dbgcore.shared import procutil
from dbgcore.shared.errors import BackendError, DebuggerStopped, DebuggerTimeout, OpFailed
from dbgcore.shared.pathmap import PathMap
from dbgcore.transport.dap.adapter import AdapterProcess, Transport
from dbgcore.transport.dap.framing import DEFAULT_MAX_BODY, FrameDecoder, FramingError, encode
from dbgcore.transport.dap.framing import Message as Message  # the plugin API names it here
from dbgcore.transport.dap.sourcepaths import convert_sources
from dbgcore.transport.translog import TransLog

log = logging.getLogger(__name__)

EventHandler = Callable[[Message], None]
ReverseHandler = Callable[[Message], Message]

#: Log lines longer than this are cut (a stack of a deep recursion, a big variable).
LOG_LIMIT = 4000


class DapRequestError(OpFailed):
    """The adapter answered a request with ``success: false``."""

    def __init__(self, command: str, message: str, body: Message) -> None:
        super().__init__(message)
        self.command = command
        self.body = body


class PendingRequest:
    def __init__(self, seq: int, command: str, adapter: str = "the adapter",
                 pid: int = 0) -> None:
        self.seq = seq
        self.command = command
        #: The adapter asked, and its process (0: not known), whose state
        #: every wait for the answer watches.
        self.adapter = adapter
        self.pid = pid
        self._done = threading.Event()
        self._response: Message | None = None
        self._error: Exception | None = None

    def resolve(self, response: Message) -> None:
        self._response = response
        self._done.set()

    def fail(self, error: Exception) -> None:
        self._error = error
        self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float, adapter: str | None = None) -> Message:
        """The response body; raises DapRequestError, DebuggerTimeout,
        BackendError (DebuggerStopped when the adapter's process is stopped
        by a signal from outside for a while). ``adapter`` names it in
        errors, if not as the channel does."""
        adapter = adapter or self.adapter
        if not self._wait(timeout, adapter):
            raise DebuggerTimeout(f"{adapter} did not answer {self.command} within "
                                  f"{round(timeout, 2):g}s",
                                  "raise --timeout, or `dbg kill` if it is stuck")
        if self._error is not None:
            raise self._error
        assert self._response is not None
        response = self._response
        if not response.get("success", False):
            raise DapRequestError(self.command, _error_text(self.command, response),
                                  response.get("body") or {})
        body: Message = response.get("body") or {}
        return body

    def _wait(self, timeout: float, adapter: str) -> bool:
        """Whether the answer came within ``timeout``, looked for in slices
        between which the adapter's process state is read (a stopped
        adapter would hold the op for its whole timeout)."""
        deadline = time.monotonic() + timeout
        watch = procutil.StoppedWatch(self.pid)
        while True:
            left = deadline - time.monotonic()
            if self._done.wait(max(0.0, min(left, procutil.STOP_CHECK))):
                return True
            if left <= procutil.STOP_CHECK:
                return False
            if watch.stopped_long():
                raise DebuggerStopped(adapter, self.pid)


def _error_text(command: str, response: Message) -> str:
    body = response.get("body") or {}
    error = body.get("error") if isinstance(body, dict) else None
    text = ""
    if isinstance(error, dict) and error.get("format"):
        text = str(error["format"])
        for key, value in (error.get("variables") or {}).items():
            text = text.replace("{" + key + "}", str(value))
    text = text or str(response.get("message") or "") or "request failed"
    if "Traceback (most recent call last):" in text:
        # debugpy answers a failed `repl` evaluate with the whole traceback:
        # what went wrong is its last line.
        text = [line for line in text.splitlines() if line.strip()][-1]
    return f"{command} failed: {' '.join(text.split())}"


class DapChannel:
    def __init__(self, transport: Transport, log_to: TransLog, name: str = "adapter",
                 process: AdapterProcess | None = None, max_body: int = DEFAULT_MAX_BODY,
                 paths: PathMap | None = None) -> None:
        self.transport = transport
        #: Where the program's files are here (a container's, a remote
        #: server's): Source paths are converted both ways; the log keeps
        #: what was on the wire.
        self.paths = paths if paths else None
        self.translog = log_to
        self.name = name
        self.process = process
        self._decoder = FrameDecoder(max_body=max_body)
        self._seq = itertools.count(1)
        self._lock = threading.Lock()
        self._pending: dict[int, PendingRequest] = {}
        self._events: dict[str, list[EventHandler]] = {}
        self._reverse: dict[str, ReverseHandler] = {}
        self._closed: BackendError | None = None
        self._closed_once = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, name=f"{name}-dap", daemon=True)

    def start(self) -> None:
        self._reader.start()

    @property
    def closed(self) -> BackendError | None:
        return self._closed

    def wait_closed(self, timeout: float) -> bool:
        """Wait until the connection is closed (by either side), at most
        ``timeout`` seconds; whether it is. Every message the adapter sent
        before it closed has been read (and its handlers run) by then."""
        return self._closed_once.wait(timeout)

    # -- registration --------------------------------------------------------

    def on_event(self, name: str, handler: EventHandler) -> None:
        """Call ``handler(event)`` for each event ``name`` (``"*"``: every event).
        Handlers run on the reader thread: they must be quick and must not
        wait for a response."""
        self._events.setdefault(name, []).append(handler)

    def on_reverse_request(self, command: str, handler: ReverseHandler) -> None:
        """Answer reverse request ``command`` with ``handler(request)``'s body;
        an exception becomes an error response."""
        self._reverse[command] = handler

    # -- sending -------------------------------------------------------------

    def _send(self, message: Message) -> None:
        if self.paths is not None:
            message = convert_sources(message, self.paths.to_remote)
        text = json.dumps(message, ensure_ascii=False)
        self.translog.sent(text[:LOG_LIMIT])
        try:
            self.transport.write(encode(message))
        except OSError as exc:
            self._close(self._gone(f"cannot write to {self.name}: {exc}"))
            raise self._closed or BackendError(str(exc)) from exc

    def send_request(self, command: str, arguments: Message | None = None) -> PendingRequest:
        """Send without waiting; ``.wait(timeout)`` on the result for the body."""
        with self._lock:
            seq = next(self._seq)
            pending = PendingRequest(seq, command, self.name,
                                     self.process.pid if self.process is not None else 0)
            if self._closed is not None:
                pending.fail(self._closed)
                return pending
            self._pending[seq] = pending
        message: Message = {"seq": seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        try:
            self._send(message)
        except BackendError as exc:
            pending.fail(exc)
        return pending

    def request(self, command: str, arguments: Message | None, timeout: float) -> Message:
        return self.send_request(command, arguments).wait(timeout)

    # -- receiving -------------------------------------------------------------

    def _read_loop(self) -> None:
        while True:
            data = self.transport.read()
            if not data:
                self._close(self._gone())
                return
            try:
                messages = self._decoder.feed(data)
            except FramingError as exc:
                self._close(BackendError(f"{self.name} broke the protocol: {exc}",
                                         "the adapter is misbehaving; `dbg kill` and start again"))
                return
            for garbage in self._decoder.skipped:
                self.translog.note(f"skipped non-DAP bytes: {garbage!r}")
            self._decoder.skipped.clear()
            for message in messages:
                self.translog.received(json.dumps(message, ensure_ascii=False)[:LOG_LIMIT])
                if self.paths is not None:
                    message = convert_sources(message, self.paths.to_local)
                try:
                    self._dispatch(message)
                except Exception:
                    log.exception("error while handling %s", message.get("type"))

    def _dispatch(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "response":
            with self._lock:
                pending = self._pending.pop(int(message.get("request_seq", -1)), None)
            if pending is not None:
                pending.resolve(message)
        elif kind == "event":
            name = str(message.get("event"))
            for handler in [*self._events.get(name, []), *self._events.get("*", [])]:
                handler(message)
        elif kind == "request":
            threading.Thread(target=self._answer_reverse, args=(message,), daemon=True,
                             name=f"{self.name}-reverse").start()

    def _answer_reverse(self, request: Message) -> None:
        command = str(request.get("command"))
        handler = self._reverse.get(command)
        response: Message = {"type": "response", "request_seq": request.get("seq"),
                             "command": command, "success": True}
        if handler is None:
            response.update(success=False, message=f"dbg does not handle {command}")
        else:
            try:
                response["body"] = handler(request)
            except Exception as exc:
                response.update(success=False, message=str(exc))
        with self._lock:
            response["seq"] = next(self._seq)
        try:
            self._send(response)
        except BackendError:
            pass

    # -- ending -------------------------------------------------------------------

    def _gone(self, default: str = "") -> BackendError:
        """The error for the adapter's end: how its process ended when it is
        ours, else that the connection closed."""
        if self.process is not None:
            return self.process.lost()
        return BackendError(default or f"{self.name} closed the connection",
                            "`dbg kill` cleans up; `dbg restart` starts again")

    def _close(self, error: BackendError) -> None:
        with self._lock:
            if self._closed is None:
                self._closed = error
            pending, self._pending = self._pending, {}
        for item in pending.values():
            item.fail(self._closed)
        for handler in self._events.get("_closed", []):
            handler({"event": "_closed", "body": {"message": error.message}})
        self._closed_once.set()

    def close(self) -> None:
        self._close(BackendError(f"the connection to {self.name} was closed"))
        self.transport.close()
