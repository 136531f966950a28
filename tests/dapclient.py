"""A small DAP client for the tests of `dbg dap` (the server side): it
speaks the base protocol over a process's stdio or a socket, sends requests
and waits for their responses and for events, each with a deadline."""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import threading
from typing import IO, Any


class DapClient:
    def __init__(self, reader: IO[bytes], writer: IO[bytes]) -> None:
        self.reader = reader
        self.writer = writer
        self.seq = 0
        self.responses: dict[int, dict[str, Any]] = {}
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen_events: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    @classmethod
    def over_process(cls, proc: subprocess.Popen[bytes]) -> DapClient:
        assert proc.stdout is not None and proc.stdin is not None
        return cls(proc.stdout, proc.stdin)

    @classmethod
    def over_socket(cls, port: int) -> DapClient:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.settimeout(None)
        return cls(sock.makefile("rb"), sock.makefile("wb"))

    def _read(self) -> None:
        while True:
            length = None
            while True:
                line = self.reader.readline()
                if not line:
                    with self._cond:
                        self.closed = True
                        self._cond.notify_all()
                    return
                if line.strip() == b"":
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert length is not None
            message = json.loads(self.reader.read(length))
            if message["type"] == "response":
                with self._cond:
                    self.responses[message["request_seq"]] = message
                    self._cond.notify_all()
            elif message["type"] == "event":
                self.events.put(message)

    def send(self, command: str, arguments: dict[str, Any] | None = None) -> int:
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command,
                           "arguments": arguments or {}}).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.writer.flush()
        return self.seq

    def response(self, seq: int, timeout: float = 60) -> dict[str, Any]:
        with self._cond:
            if not self._cond.wait_for(lambda: seq in self.responses or self.closed, timeout):
                raise AssertionError(f"no response to request {seq} in {timeout} s")
            if seq not in self.responses:
                raise AssertionError(f"the server closed before answering request {seq}")
            return self.responses.pop(seq)

    def request(self, command: str, arguments: dict[str, Any] | None = None,
                timeout: float = 60) -> dict[str, Any]:
        return self.response(self.send(command, arguments), timeout)

    def event(self, name: str, timeout: float = 60) -> dict[str, Any]:
        """The next event ``name`` (the others before it are kept in seen_events)."""
        while True:
            try:
                message = self.events.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no {name} event in {timeout} s; saw "
                                     f"{[e['event'] for e in self.seen_events]}") from None
            self.seen_events.append(message)
            if message["event"] == name:
                return message

    def no_event(self, name: str, wait: float) -> None:
        """No ``name`` event comes within ``wait`` seconds."""
        try:
            while True:
                message = self.events.get(timeout=wait)
                self.seen_events.append(message)
                assert message["event"] != name, message
        except queue.Empty:
            return
