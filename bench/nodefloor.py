"""The benchmarks' floor for Node.js: a minimal in-process client of node's
inspector (the V8 inspector protocol over a WebSocket), with nothing of dbg
between it and node, asking just what a stop snapshot needs."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import threading
from pathlib import Path
from typing import Any

LISTENING = re.compile(rb"Debugger listening on (ws://\S+)")
#: The scopes whose variables are a frame's own (what `locals` lists).
OWN_SCOPES = frozenset({"local", "block", "catch", "with", "module", "eval"})
#: A pseudo-event queued when the socket closes.
CLOSED = "floor.closed"


class NodeFloor:
    def __init__(self, source: Path, line: int, expression: str,
                 timeout: float = 30.0) -> None:
        # The socket option dbg-node sets (its inspector module): node writes
        # an answer as two small segments without TCP_NODELAY, and the second
        # would wait for Linux's 40 ms delayed ACK. The floor gets it too, so
        # it is no slower than dbg for a reason that is not dbg's.
        from dbg_node.inspector import quickack_socket
        from websockets.sync.client import connect

        self.source = source
        self.line = line
        self.expression = expression
        self.timeout = timeout
        # --inspect-brk: node 20 has no way to wait for a client without
        # also pausing at the first line (--inspect-wait is node 22).
        self.proc = subprocess.Popen(
            ["node", "--inspect-brk=127.0.0.1:0", source.name], cwd=source.parent,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert self.proc.stderr is not None
        url = b""
        for said in self.proc.stderr:
            found = LISTENING.search(said)
            if found:
                url = found.group(1)
                break
        if not url:
            raise SystemExit(f"node floor: node did not say where its inspector listens"
                             f" (exit {self.proc.poll()})")
        # The rest of stderr (the inspector's notices) must not fill the pipe.
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()
        self.ws = connect(url.decode(), max_size=None, compression=None, proxy=None,
                          ping_interval=None, sock=quickack_socket(url.decode(), 30))
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.answers: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.lock = threading.Lock()
        self.ids = 0
        self.main_context: int | None = None
        self.frames: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for text in self.ws:
                message = json.loads(text)
                if "id" in message:
                    with self.lock:
                        box = self.answers.get(message["id"])
                    if box is not None:
                        box.put(message)
                    continue
                method = message.get("method")
                if method == "Runtime.executionContextCreated":
                    context = message["params"]["context"]
                    if (context.get("auxData") or {}).get("isDefault") \
                            and self.main_context is None:
                        self.main_context = context["id"]
                if method in ("Debugger.paused", "Runtime.executionContextDestroyed"):
                    self.events.put(message)
        except Exception:  # the socket closed: the program has ended
            pass
        finally:
            self.events.put({"method": CLOSED})

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        box: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=1)
        with self.lock:
            self.ids += 1
            ident = self.ids
            self.answers[ident] = box
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params or {}}))
        answer = box.get(timeout=self.timeout)
        with self.lock:
            del self.answers[ident]
        if "error" in answer:
            raise SystemExit(f"node floor: {method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result") or {}
        return result

    def wait_pause(self) -> None:
        """Until the program pauses; its frames come with the event."""
        while True:
            message = self.events.get(timeout=self.timeout)
            if message["method"] == "Debugger.paused":
                self.frames = message["params"]["callFrames"]
                return
            if message["method"] == CLOSED or message["params"].get(
                    "executionContextId") == self.main_context:
                raise SystemExit("node floor: the program ended instead of pausing")

    def start(self) -> None:
        self.request("Runtime.enable")
        self.request("Debugger.enable")
        self.request("Debugger.setBreakpointByUrl", {
            "url": self.source.resolve().as_uri(), "lineNumber": self.line - 1})
        self.request("Runtime.runIfWaitingForDebugger")
        self.wait_pause()  # --inspect-brk's pause at the first line
        self.request("Debugger.resume")
        self.wait_pause()
        self.snapshot()

    def snapshot(self) -> None:
        """What a stop snapshot asks: the stack came with the pause; the
        variables of the top frame's own scopes."""
        for scope in self.frames[0]["scopeChain"]:
            if scope["type"] not in OWN_SCOPES:
                break
            self.request("Runtime.getProperties", {"objectId": scope["object"]["objectId"],
                                                   "ownProperties": True,
                                                   "generatePreview": True})

    def evaluate(self) -> None:
        self.request("Debugger.evaluateOnCallFrame", {
            "callFrameId": self.frames[0]["callFrameId"], "expression": self.expression,
            "generatePreview": True})

    def next(self) -> None:
        """One line: V8 steps by statement, so step over again while still
        on the same line of the same call (as any line debugger must)."""
        depth, line = len(self.frames), self.frames[0]["location"]["lineNumber"]
        while True:
            self.request("Debugger.stepOver")
            self.wait_pause()
            if len(self.frames) != depth or self.frames[0]["location"]["lineNumber"] != line:
                break
        self.snapshot()

    def finish(self) -> None:
        self.request("Debugger.resume")
        while True:
            message = self.events.get(timeout=self.timeout)
            if message["method"] == CLOSED or message["params"].get(
                    "executionContextId") == self.main_context:
                break
            if message["method"] == "Debugger.paused":
                raise SystemExit("node floor: continue paused instead of reaching the end")
        # With a client attached, node waits for it to go before exiting.
        self.ws.close()
        if self.proc.wait(timeout=self.timeout) != 0:
            raise SystemExit(f"node floor: the program exited {self.proc.returncode}")

    def close(self) -> None:
        self.ws.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
