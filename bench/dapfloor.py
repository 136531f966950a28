"""The benchmarks' floor: a minimal in-process DAP client that sends just the
requests a stop snapshot needs, with no daemon and no process per op."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from dbgcore.transport.dap.adapter import AdapterProcess, Transport
from dbgcore.transport.dap.channel import DapChannel
from dbgcore.transport.translog import TransLog


class FloorClient:
    def __init__(self, process: AdapterProcess, transport: Transport, name: str) -> None:
        self.process = process
        self.channel = DapChannel(transport, TransLog(None), name, process)
        self.stopped = threading.Event()
        self.ended = threading.Event()
        self.initialized = threading.Event()
        self.thread_id = 1
        self.frame_id = 0
        self.channel.on_event("stopped", self._on_stop)
        self.channel.on_event("terminated", lambda e: self.ended.set())
        self.channel.on_event("exited", lambda e: self.ended.set())
        self.channel.on_event("initialized", lambda e: self.initialized.set())
        self.channel.start()

    def request(self, command: str, arguments: dict[str, Any] | None = None,
                timeout: float = 30.0) -> dict[str, Any]:
        return self.channel.request(command, arguments, timeout)

    def _on_stop(self, event: dict[str, Any]) -> None:
        self.thread_id = event["body"].get("threadId", 1)
        self.stopped.set()

    def snapshot(self) -> None:
        """What a stop snapshot asks: the stack, the scopes, the locals."""
        frames = self.request("stackTrace", {"threadId": self.thread_id})["stackFrames"]
        self.frame_id = frames[0]["id"]
        scopes = self.request("scopes", {"frameId": self.frame_id})["scopes"]
        for scope in scopes:
            if "local" in scope["name"].lower():
                self.request("variables",
                                     {"variablesReference": scope["variablesReference"]})

    def resume(self, command: str) -> None:
        self.stopped.clear()
        self.request(command, {"threadId": self.thread_id})
        while not (self.stopped.wait(0.005) or self.ended.is_set()):
            pass

    def close(self, grace: float = 1.0) -> None:
        try:
            self.request("disconnect", {"terminateDebuggee": True}, timeout=2)
        except Exception:
            pass
        self.channel.close()
        self.process.terminate(grace)


def marks(path: Path) -> dict[str, int]:
    """Line numbers of `# @name` / `// @name` markers in a target program."""
    out = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        for name in re.findall(r"(?:#|//)\s*@([\w-]+)", line):
            out[name] = number
    return out

