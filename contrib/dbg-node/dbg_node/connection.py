"""The node backend's connection to the program: the inspector's requests,
the pauses and the end it reports, where the program is paused, and which
throws pause it (`dbg catch`).

The layers of the backend, one module each: this one, then execution
(:mod:`dbg_node.execution`), inspection (:mod:`dbg_node.inspection`), the
scope ops (:mod:`dbg_node.scopeops`), and the backend itself
(:mod:`dbg_node.backend`: starting, ending, breakpoints).
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from urllib.parse import unquote

from dbgcore.api import (
    DEFAULT_TIMEOUT,
    Backend,
    BackendSpec,
    DbgError,
    Location,
    OpFailed,
    OutputPump,
    SessionContext,
    StopEvent,
    StopState,
    TargetExited,
    UsageError,
    procutil,
    signal_name,
    walk_sources,
)

from dbg_node.breaks import Breakpoints
from dbg_node.inspector import CLOSED, Inspector
from dbg_node.mapped import GENERATED, ScriptMaps
from dbg_node.messages import JsonObject
from dbg_node.scopes import References
from dbg_node.sourcemap import SourceMap

#: `dbg catch`'s filters, as V8's pause-on-exceptions states.
CATCH_FILTERS = {"uncaught": "uncaught", "all": "all", "raised": "all", "caught": "all"}
#: A class name `dbg catch` takes (TypeError, MyError, errors.ParseError's last part).
_CLASS_RE = re.compile(r"[A-Za-z_$][\w$]*")


class NodeConnection(Backend):
    """The session's state as the inspector reports it."""

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self.proc: subprocess.Popen[bytes] | None = None
        self.pump: OutputPump | None = None
        self.inspector: Inspector | None = None
        self._state: StopState = "running"
        self._url: str | None = None
        self._url_seen = threading.Event()
        self._frames: list[JsonObject] = []
        self._selected = 0
        self._locals: dict[str, JsonObject] = {}
        self.breaks = Breakpoints(self)
        self.root = os.getcwd()
        self.cwd = os.getcwd()
        self._attached = False
        #: A second client's `dbg pause` asked for the next pause.
        self._interrupted = False
        #: `dbg catch CLASS...`: the classes whose throws stop the program.
        self._catch_classes: list[str] = []
        self._catch_uncaught = True
        self._exit: StopEvent | None = None
        #: What was thrown, at a stop at an exception (V8's RemoteObject).
        self._thrown: JsonObject | None = None
        #: The pause's async stack (V8's StackTrace: callers across an
        #: ``await``, a ``.then``...), and the id of one kept elsewhere.
        self._async_trace: JsonObject | None = None
        self._async_id: JsonObject | None = None
        #: `dbg scopes`'s and `dbg vars`'s numbers for V8's objects, this pause.
        self.references = References()
        #: The source maps of the scripts that name one (TypeScript's).
        self.maps = ScriptMaps()

    def state(self) -> StopState:
        return self._state

    def poll(self, timeout: float) -> StopEvent | None:
        if self._state != "running":
            return None
        # poll(0) (a look whether the program paused meanwhile) waits for
        # nothing, but a pause it finds may still need the inspector's answers.
        event = self._wait_stop(timeout, timeout if timeout > 0 else DEFAULT_TIMEOUT,
                                "breakpoint")
        return None if event.state == "running" else event

    def call(self, method: str, params: JsonObject | None,
             timeout: float) -> JsonObject:
        if self.inspector is None:
            raise TargetExited("the program has ended")
        return self.inspector.call(method, params, timeout)

    def _wait_stop(self, wait: float, timeout: float, reason: str) -> StopEvent:
        """Wait up to ``wait`` for the program to pause or end; ``timeout``
        bounds each request made about the pause; ``reason`` is what a pause
        that says no more than "other" means for the op that moved it."""
        assert self.inspector is not None
        deadline = time.monotonic() + wait
        self._state = "running"
        while True:
            message = self.inspector.next_event(deadline - time.monotonic())
            if message is None:
                return StopEvent(state="running")
            method = message.get("method")
            params = message.get("params") or {}
            if method == "Debugger.paused":
                if self._unwanted_throw(params, timeout):
                    self.call("Debugger.resume", None, timeout)
                    continue
                return self._paused(params, reason, timeout)
            if method == "Debugger.breakpointResolved":
                self.breaks.resolved(params)
            elif method == CLOSED or (
                    method == "Runtime.executionContextDestroyed"
                    and params.get("executionContextId") in (None, self.inspector.main_context)):
                return self._ended()

    def _paused(self, params: JsonObject, reason: str, timeout: float) -> StopEvent:
        self._state = "stopped"
        interrupted, self._interrupted = self._interrupted, False
        self._frames = list(params.get("callFrames") or [])
        self._async_trace = params.get("asyncStackTrace")
        self._async_id = params.get("asyncStackTraceId")
        self.references.clear()
        self._selected = 0
        self._locals = {}
        if self.pump is not None:
            self.pump.drain()
        why = params.get("reason", "other")
        hit = self.breaks.hit(list(params.get("hitBreakpoints") or []), timeout)
        description = ""
        self._thrown = None
        if why in ("exception", "promiseRejection"):
            reason = "exception"
            data = params.get("data") or {}
            self._thrown = data
            description = str(data.get("description") or data.get("value") or "").split("\n")[0]
        elif why == "Break on start":
            reason = "entry"
        elif hit:
            reason = "breakpoint"
        elif why == "other" and interrupted:
            reason = "pause"
        elif why == "other" and reason == "breakpoint":
            # Not one of dbg's breakpoints: a `debugger;` statement.
            description = "debugger statement"
        return StopEvent(state="stopped", reason=reason, location=self._where(0), thread=1,
                         description=description, hit_breakpoints=list(hit))

    def ended_unseen(self, timeout: float) -> StopEvent | None:
        # Node killed while paused (SIGKILL from outside): its inspector's
        # connection closed with nothing waiting to read why; our child's
        # wait status says how it ended.
        if self._exit is not None:
            return self._exit
        if self._attached or self.proc is None or self.proc.poll() is None:
            return None
        return self._ended()

    def _ended(self) -> StopEvent:
        if self._exit is not None:
            return self._exit
        if self.inspector is not None:
            # With the inspector attached, node waits for it to go before exiting.
            self.inspector.close()
            self.inspector = None
        code: int | None = None
        signal: str | None = None
        if self.proc is not None:
            try:
                status = self.proc.wait(timeout=max(self.ctx.shutdown_grace * 5, 5))
            except subprocess.TimeoutExpired:
                procutil.terminate_groups([self.proc.pid], self.ctx.shutdown_grace,
                                          reap=[self.proc.pid])
                status = self.proc.wait(timeout=5)
            if status < 0:
                signal = signal_name(-status)
            else:
                code = status
        if self.pump is not None:
            self.pump.drain()  # node has exited: all it wrote is in the FIFOs
        self._state = "exited"
        self._frames = []
        self._async_trace = self._async_id = None
        self._exit = StopEvent(state="exited", reason="exited", exit_code=code, signal=signal)
        return self._exit


    def file_of(self, script_id: str) -> str | None:
        url = self.inspector.scripts.get(script_id, "") if self.inspector else ""
        if url.startswith("file://"):
            return unquote(url[len("file://"):])
        return url or None

    def map_of(self, script_id: str) -> SourceMap | None:
        """The source map of a script V8 has parsed, if it names one."""
        url = self.inspector.map_urls.get(script_id) if self.inspector else None
        file = self.file_of(script_id) if url else None
        if not url or not file or not os.path.isabs(file):
            return None
        return self.maps.of_file(file, url)

    def position(self, script_id: str, line: int, column: int = 0) -> tuple[str | None, int]:
        """Where a position of a script (V8's, zero-based) is shown: the
        (file, line) its source map says it came from (a TypeScript file's),
        else the script's own; the line one-based."""
        found = self.map_of(script_id)
        mapped = found.original(line, column) if found is not None else None
        if mapped is not None:
            return mapped[0], mapped[1] + 1
        return self.file_of(script_id), line + 1

    def generated_files(self, on_disk: bool) -> list[str]:
        """The files whose maps may name a source: the loaded scripts that
        name a map, and with ``on_disk`` the JavaScript under the program's
        folder (a module not loaded yet)."""
        urls = self.inspector.map_urls if self.inspector else {}
        files = [f for f in map(self.file_of, list(urls)) if f and os.path.isabs(f)]
        if on_disk:
            files += walk_sources(self.root, GENERATED)
        return files

    def map_sources(self) -> list[str]:
        """The original sources (TypeScript files) the program's maps name."""
        return self.maps.sources(self.generated_files(True))

    def _where(self, index: int) -> Location | None:
        if not self._frames:
            return None
        frame = self._frames[index]
        loc = frame["location"]
        file, line = self.position(loc["scriptId"], loc["lineNumber"],
                                   loc.get("columnNumber", 0))
        return Location(file, line, function_name(frame))

    def _frame(self) -> JsonObject:
        if not self._frames:
            raise OpFailed("the program is not stopped in JavaScript")
        return self._frames[self._selected]

    def loaded_files(self) -> list[str]:
        """The files of the scripts V8 has parsed."""
        scripts = self.inspector.scripts if self.inspector else {}
        return [f for f in map(self.file_of, list(scripts)) if f and os.path.isabs(f)]

    def selected_location(self) -> Location | None:
        return self._where(self._selected) if self._frames else None

    def _depth_key(self, index: int = 0) -> tuple[int, str, int, int]:
        """Which call a pause is in: the depth, and the function's script and start."""
        frame = self._frames[index]
        start = frame.get("functionLocation") or {}
        return (len(self._frames) - index, start.get("scriptId", ""),
                start.get("lineNumber", -1), start.get("columnNumber", -1))

    def catch(self, filters: list[str], timeout: float) -> list[str]:
        unknown = [f for f in filters if f not in CATCH_FILTERS and not _CLASS_RE.fullmatch(f)]
        if unknown:
            raise UsageError(f"node has no exception filter {', '.join(unknown)}",
                             "use uncaught, all (every throw, caught or not), or class "
                             "names (TypeError, MyError: a throw of that class or a subclass)")
        names = [f for f in filters if f not in CATCH_FILTERS]
        states = {CATCH_FILTERS[f] for f in filters if f in CATCH_FILTERS}
        # V8 pauses on every throw or only uncaught ones; dbg picks the classes.
        state = "all" if "all" in states or names else "uncaught" if states else "none"
        self.call("Debugger.setPauseOnExceptions", {"state": state}, timeout)
        self._catch_classes = names if "all" not in states else []
        # As on every backend, the filters named replace the session's, uncaught included.
        self._catch_uncaught = "uncaught" in states
        if state == "none":
            return []
        return [*names, *(s for s in ("uncaught", "all") if s in states)]

    def _unwanted_throw(self, params: JsonObject, timeout: float) -> bool:
        """A pause at a throw of no class `dbg catch` named (V8 pauses at
        every throw when some are wanted): resumed at once."""
        if not self._catch_classes or params.get("reason") not in ("exception",
                                                                   "promiseRejection"):
            return False
        data = params.get("data") or {}
        if data.get("uncaught") and self._catch_uncaught:
            return False
        if data.get("className") in self._catch_classes:
            return False
        if not data.get("objectId"):
            return True  # a thrown primitive (throw "x") is of no class
        # A subclass, or a class of the program's own: walk the prototypes.
        walk = ("function(names) { for (let p = Object.getPrototypeOf(this); p; "
                "p = Object.getPrototypeOf(p)) { if (p.constructor && "
                "names.includes(p.constructor.name)) return true; } return false; }")
        try:
            answer = self.call("Runtime.callFunctionOn", {
                "objectId": data["objectId"], "functionDeclaration": walk,
                "arguments": [{"value": self._catch_classes}], "returnByValue": True}, timeout)
        except DbgError:
            return False  # cannot tell: stop rather than miss it
        return not (answer.get("result") or {}).get("value")


def function_name(frame: JsonObject) -> str:
    """A call frame's function as dbg shows it (a module's top level, an
    anonymous function)."""
    name = str(frame.get("functionName") or "")
    if name:
        return name
    start = frame.get("functionLocation") or {}
    if start.get("lineNumber") == 0 and start.get("columnNumber") == 0:
        return "<module>"
    return "(anonymous)"


