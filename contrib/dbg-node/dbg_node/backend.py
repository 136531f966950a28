"""The node backend: JavaScript under Node.js, through its inspector.

``node --inspect-brk=127.0.0.1:0 PROGRAM`` runs the program with V8's
inspector listening on a loopback port of the kernel's choosing, paused
before the first line; the URL it prints on stderr is read through the
output pump (which keeps the inspector's notices out of the program's
output). That URL's random id is the only guard of a port every local user
can reach: ``--inspect-publish-uid=stderr`` keeps node from serving it at
``/json/list`` too. Everything else is the inspector protocol: breakpoints by URL,
stepping, pauses, scopes and evaluation on a call frame.

Where V8's meaning differs from dbg's, dbg's wins, as on every backend:
``next`` and ``step`` go by lines (V8 steps by statement and expression, so
it stops at ``i++`` and ``i < n`` of one ``for`` line); ``finish`` stops at
the function's return with its value, then steps out; ``break FUNCTION``
stops at the body's first statement.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote

from dbgcore.api import (
    DEFAULT_TIMEOUT,
    AttachRequest,
    Backend,
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    DbgError,
    Frame,
    LaunchRequest,
    Location,
    OpFailed,
    OutputPump,
    Readiness,
    ReturnValue,
    SessionContext,
    StopEvent,
    StopState,
    Support,
    TargetExited,
    Thread,
    UsageError,
    Value,
    Variable,
    procutil,
    signal_name,
)

import dbg_node.values as values
from dbg_node.breaks import Breakpoints, entry_point
from dbg_node.functions import parameter_names
from dbg_node.inspector import CLOSED, Inspector, inspector_url
from dbg_node.messages import JsonObject

LISTENING = re.compile(r"Debugger listening on (ws://\S+)")
#: What the inspector itself writes on the program's stderr.
NOTICES = re.compile(
    r"^(?:Debugger listening on ws://\S+|For help, see: https://nodejs\.org/\S*|"
    r"Debugger attached\.|Debugger ending on ws://\S+|"
    r"Waiting for the debugger to disconnect\.\.\.)\n", re.M)
#: Names Node's CommonJS wrapper puts in every module's scope.
WRAPPER = frozenset({"exports", "require", "module", "__filename", "__dirname"})
#: Scopes whose variables are the frame's own ("locals").
OWN_SCOPES = frozenset({"local", "block", "catch", "with", "module", "eval"})
#: The least time node has to start (or its inspector to take an attach)
#: and stop the program, whatever --timeout: node's start under load is slow.
START_FLOOR = 10.0
#: How long each of the requests that let an attached program go on may
#: take at the session's end (the program may be gone already).
DETACH_TIMEOUT = 2.0
#: How many V8 steps one line step may take (one line can hold a whole loop).
STEP_LIMIT = 10000
CATCH_FILTERS = {"uncaught": "uncaught", "all": "all", "raised": "all", "caught": "all"}
#: A class name `dbg catch` takes (TypeError, MyError, errors.ParseError's last part).
_CLASS_RE = re.compile(r"[A-Za-z_$][\w$]*")


class NodeBackend(Backend):
    id = "node"
    tool = "node"
    reads_stdin = True
    features: ClassVar[dict[str, Support]] = {
        "break-if": "native", "return-value": "native", "pending": "native"}
    unsupported_hints: ClassVar[dict[str, str]] = {
        "watch": "V8 has no watchpoints; `dbg break FILE:LINE --if 'x !== OLD'` stops where "
                 "a value changes, `dbg display EXPR` shows it at every stop",
    }

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

    # -- availability ------------------------------------------------------------------

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        node = _node(spec)
        if not node:
            return Readiness(False, f"{spec.command[0] if spec.command else 'node'} not found")
        # A start asks twice (is node ready, then its version for the
        # answer): each `node --version` forked from the daemon cost 10-25
        # ms of the start. The answer is kept in DBG_HOME for that very file.
        from dbgcore.api import file_key, recall, remember

        key = file_key(node)
        out = recall(_version_cache(), key) if key else ""
        if not out:
            try:
                out = subprocess.run([node, "--version"], capture_output=True, text=True,
                                     timeout=10).stdout.strip()
            except (OSError, subprocess.SubprocessError) as exc:
                return Readiness(False, f"{node} does not run: {exc}")
            if key and re.fullmatch(r"v\d+\.\d+\.\d+\S*", out):
                remember(_version_cache(), key, out)
        version = out.lstrip("v")
        major = int(version.split(".")[0]) if version.split(".")[0].isdigit() else 0
        if major < 16:
            return Readiness(False, f"{node} is Node.js {out or '?'}; dbg needs 16 or newer")
        return Readiness(True, f"{node} (Node.js {version})", version)

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        entry_point(program)

    # -- lifecycle ----------------------------------------------------------------------

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        if request.module:
            raise UsageError("node runs a file or a folder with a package.json, not -m MODULE")
        program = entry_point(Path(request.program))
        self.cwd = request.cwd or os.getcwd()
        self.root = str(program.parent)
        self.pump = OutputPump(self.ctx.run_dir, "node", self.ctx.output, self._notices)
        # The inspector's port is open to every local user for the whole
        # session; its only guard is the random id in its WebSocket URL, which
        # node also serves to anyone at /json/list unless told to print it on
        # stderr alone (our pump's file, in the private run folder).
        argv = [_node(self.spec) or "node", "--inspect-brk=127.0.0.1:0",
                "--inspect-publish-uid=stderr",
                *self.spec.options.get("node_args", []), str(program), *request.args]
        env = {**os.environ, **request.env}
        # The program's stdin: dbg's FIFO (it opens at once, dbg holds the
        # write end) or the user's file.
        with open(self.pump.paths["stdout"], "wb") as out, \
                open(self.pump.paths["stderr"], "wb") as err, \
                open(request.stdin or os.devnull, "rb") as stdin:
            command, preexec = procutil.bound_to_parent(argv, env, self.cwd)
            self.proc = subprocess.Popen(
                command, cwd=self.cwd, env=env, stdin=stdin, stdout=out, stderr=err,
                start_new_session=True, preexec_fn=preexec)
        self.ctx.track_process(self.proc.pid, "node")
        self.ctx.log.note(f"started {' '.join(argv)} (pid {self.proc.pid})")
        # websockets (with http.client and email) takes 40 ms or more to
        # import in a daemon; node takes ~85 ms to open its inspector: the
        # import happens meanwhile, on a thread of its own.
        threading.Thread(target=_import_websockets, name="node-import", daemon=True).start()
        deadline = time.monotonic() + max(timeout, START_FLOOR)
        while not self._url_seen.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.pump.drain()
                said = self.ctx.output.read(0, {"stderr"})
                raise OpFailed(f"node did not start {program}: "
                               f"{_said(said) or f'exit code {self.proc.poll()}'}")
        assert self._url is not None
        self._connect(self._url, request.stop_on_uncaught, timeout)
        self.call("Runtime.runIfWaitingForDebugger", None, timeout)
        event = self._wait_stop(max(timeout, START_FLOOR), timeout, "entry")
        if event.state == "running":
            raise OpFailed("node did not stop at the program's first line")
        if request.before_run is not None and event.state == "stopped" \
                and event.reason == "entry":
            # `start --run`: the breakpoints go in at --inspect-brk's stop,
            # and the program runs on at once, with no snapshot of a stop
            # nobody sees (its locals: a request, a source read, a row).
            request.before_run()
            event = self.cont(timeout)
        return event

    def attach(self, request: AttachRequest, timeout: float) -> StopEvent:
        if request.port is None:
            raise UsageError(
                "node attaches to an inspector port, not a pid",
                "start the program with `node --inspect=127.0.0.1:PORT` (or send it SIGUSR1, "
                "which opens 127.0.0.1:9229) and run `dbg attach --backend node --port PORT`")
        host = request.host or "127.0.0.1"
        url = inspector_url(host, request.port, timeout)
        self._attached = True
        self._connect(url, True, timeout)
        self.call("Runtime.runIfWaitingForDebugger", None, timeout)
        self.call("Debugger.pause", None, timeout)
        return self._wait_stop(max(timeout, START_FLOOR), timeout, "attach")

    def _connect(self, url: str, stop_on_uncaught: bool, timeout: float) -> None:
        self.inspector = Inspector(url, self.ctx.log, max(timeout, START_FLOOR))
        # Sent together: node takes them in order, one round trip for all.
        self.inspector.call_all([
            ("Runtime.enable", None),
            ("Debugger.enable", {"maxScriptsCacheSize": 10_000_000}),
            # Stepping never goes into Node's own JavaScript (console.log...).
            ("Debugger.setBlackboxPatterns", {"patterns": ["^node:"]}),
            ("Debugger.setPauseOnExceptions",
             {"state": "uncaught" if stop_on_uncaught else "none"}),
        ], timeout)

    def _notices(self, category: str, text: str) -> str:
        """The program's stderr without the inspector's own notices; the
        first of them says where the inspector listens."""
        if category != "stderr":
            return text
        if not self._url_seen.is_set():
            found = LISTENING.search(text)
            if found:
                self._url = found.group(1)
                self._url_seen.set()
        return NOTICES.sub("", text)

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

    def terminate(self) -> None:
        inspector, self.inspector = self.inspector, None
        if inspector is not None:
            if self._attached and not inspector.closed.is_set():
                for method in ("Debugger.disable", "Runtime.runIfWaitingForDebugger"):
                    try:
                        inspector.call(method, None, DETACH_TIMEOUT)
                    except Exception:  # the program may be gone; it must not stop the end
                        pass
            try:
                inspector.close()
            except Exception:
                pass
        if self.proc is not None:
            procutil.terminate_groups([self.proc.pid], self.ctx.shutdown_grace,
                                      reap=[self.proc.pid])
        if self.pump is not None:
            self.pump.close()
        self._state = "exited"

    # -- talking to the inspector --------------------------------------------------

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
        self._exit = StopEvent(state="exited", reason="exited", exit_code=code, signal=signal)
        return self._exit

    # -- where the program is -------------------------------------------------------------

    def file_of(self, script_id: str) -> str | None:
        url = self.inspector.scripts.get(script_id, "") if self.inspector else ""
        if url.startswith("file://"):
            return unquote(url[len("file://"):])
        return url or None

    def _where(self, index: int) -> Location | None:
        if not self._frames:
            return None
        frame = self._frames[index]
        loc = frame["location"]
        return Location(self.file_of(loc["scriptId"]), loc["lineNumber"] + 1, _name(frame))

    def _frame(self) -> JsonObject:
        if not self._frames:
            raise OpFailed("the program is not stopped in JavaScript")
        return self._frames[self._selected]

    def _depth_key(self, index: int = 0) -> tuple[int, str, int, int]:
        """Which call a pause is in: the depth, and the function's script and start."""
        frame = self._frames[index]
        start = frame.get("functionLocation") or {}
        return (len(self._frames) - index, start.get("scriptId", ""),
                start.get("lineNumber", -1), start.get("columnNumber", -1))

    # -- execution ----------------------------------------------------------------------------

    def _resume(self, method: str, timeout: float, params: JsonObject | None = None) -> None:
        self._state = "running"
        self._locals = {}
        self.call(method, params, timeout)

    def cont(self, timeout: float) -> StopEvent:
        self._resume("Debugger.resume", timeout)
        return self._wait_stop(timeout, timeout, "breakpoint")

    def next(self, timeout: float) -> StopEvent:
        return self._line_step("Debugger.stepOver", timeout)

    def step(self, timeout: float) -> StopEvent:
        return self._line_step("Debugger.stepInto", timeout)

    def _line_step(self, method: str, timeout: float) -> StopEvent:
        """V8 steps by statement; dbg by line: step again while still on the
        same line of the same call."""
        deadline = time.monotonic() + timeout
        start_key, start_line = self._depth_key(), self._frames[0]["location"]["lineNumber"]
        for _ in range(STEP_LIMIT):
            self._resume(method, timeout)
            event = self._wait_stop(deadline - time.monotonic(), timeout, "step")
            if event.state != "stopped" or event.reason != "step":
                return event
            if self._depth_key() != start_key \
                    or self._frames[0]["location"]["lineNumber"] != start_line:
                return event
        return event

    def finish(self, timeout: float) -> StopEvent:
        """Run to the selected frame's return (a breakpoint at each of its
        return positions), read the value, then step out to the caller."""
        deadline = time.monotonic() + timeout
        index = self._selected
        target = self._depth_key(index)
        returns = [p for p in self._positions(index, timeout) if p.get("type") == "return"]
        event = self._run_to(returns, target, deadline, "return", timeout)
        if event.state != "stopped" or event.reason != "return":
            return event
        returned = self._frames[0].get("returnValue")
        self._resume("Debugger.stepOut", timeout)
        event = self._wait_stop(deadline - time.monotonic(), timeout, "return")
        if event.state == "stopped" and event.reason == "return" and returned is not None:
            value, kind = values.show(returned)
            event.return_value = ReturnValue(value, kind)
        return event

    def until(self, loc: BreakLoc | None, timeout: float) -> StopEvent:
        deadline = time.monotonic() + timeout
        if loc is not None:
            script_id, line, column = self.breaks.script_position(loc, timeout)
            self._resume("Debugger.continueToLocation", timeout, {
                "location": {"scriptId": script_id, "lineNumber": line - 1,
                             **({"columnNumber": column} if column is not None else {})},
                "targetCallFrames": "any"})
            return self._wait_stop(timeout, timeout, "until")
        # The next line past this one in this call, or the caller when it returns.
        target = self._depth_key(self._selected)
        here = self._frames[self._selected]["location"]["lineNumber"]
        later = [p for p in self._positions(self._selected, timeout)
                 if p["lineNumber"] > here or p.get("type") == "return"]
        event = self._run_to(later, target, deadline, "until", timeout)
        if event.state == "stopped" and event.reason == "until" \
                and self._frames[0]["location"]["lineNumber"] <= here:
            # It reached a return of the function on this line: go on to the caller.
            self._resume("Debugger.stepOut", timeout)
            return self._wait_stop(deadline - time.monotonic(), timeout, "until")
        return event

    def _positions(self, index: int, timeout: float) -> list[JsonObject]:
        """Every place the frame's function can pause (V8's break locations)."""
        scope = next((s for s in self._frames[index].get("scopeChain", [])
                      if s.get("type") == "local" and s.get("startLocation")), None)
        if scope is None:
            return []
        found = self.call("Debugger.getPossibleBreakpoints", {
            "start": scope["startLocation"], "end": scope["endLocation"],
            "restrictToFunction": True}, timeout)
        return list(found.get("locations") or [])

    def _run_to(self, positions: list[JsonObject], target: tuple[int, str, int, int],
                deadline: float, reason: str, timeout: float) -> StopEvent:
        """Continue until one of ``positions`` pauses in the call ``target``
        (a deeper, recursive call of the same function passes); a stop of any
        other kind ends the run there."""
        if not positions:
            self._resume("Debugger.stepOut", timeout)
            return self._wait_stop(deadline - time.monotonic(), timeout, reason)
        placed = []
        try:
            for position in positions:
                try:
                    placed.append(self.call("Debugger.setBreakpoint", {"location": {
                        k: position[k] for k in ("scriptId", "lineNumber", "columnNumber")
                        if k in position}}, timeout)["breakpointId"])
                except OpFailed:
                    continue  # a user's breakpoint is there already; it stops there too
            while True:
                self._resume("Debugger.resume", timeout)
                event = self._wait_stop(deadline - time.monotonic(), timeout, reason)
                if event.state != "stopped":
                    return event
                if event.reason == reason and self._at_position(positions) \
                        and len(self._frames) > target[0]:
                    continue  # a deeper, recursive call of the same function
                if event.reason == "breakpoint" and self._depth_key() == target \
                        and self._at_position(positions):
                    event.reason = reason  # a user's breakpoint on a return: both
                return event
        finally:
            for bp in placed:
                try:
                    self.call("Debugger.removeBreakpoint", {"breakpointId": bp}, timeout)
                except (OpFailed, TargetExited):
                    break

    def _at_position(self, positions: list[JsonObject]) -> bool:
        here = self._frames[0]["location"]
        return any(p["scriptId"] == here["scriptId"] and p["lineNumber"] == here["lineNumber"]
                   and p.get("columnNumber") == here.get("columnNumber") for p in positions)

    def pause(self, timeout: float) -> StopEvent:
        if self._state != "running":
            return StopEvent(state=self._state, location=self._where(0) if self._frames else None)
        self.call("Debugger.pause", None, timeout)
        return self._wait_stop(timeout, timeout, "pause")

    def interrupt(self) -> None:
        # A second client's `dbg pause` while an op waits in _wait_stop: that
        # op reads the pause, which V8 reports as reason "other".
        if self._state == "running" and self.inspector is not None:
            self._interrupted = True
            # Called with no op's timeout; V8 answers a pause request at once.
            self.call("Debugger.pause", None, DEFAULT_TIMEOUT)

    # -- breakpoints ---------------------------------------------------------------------------

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

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        return self.breaks.add(loc, options, timeout)

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        self.breaks.remove(bp_id, timeout)

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        return self.breaks.listing()

    def loaded_files(self) -> list[str]:
        """The files of the scripts V8 has parsed."""
        scripts = self.inspector.scripts if self.inspector else {}
        return [f for f in map(self.file_of, list(scripts)) if f and os.path.isabs(f)]

    def selected_location(self) -> Location | None:
        return self._where(self._selected) if self._frames else None

    # -- inspection -------------------------------------------------------------------------------

    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        frames = []
        for index in range(len(self._frames[:levels] if levels else self._frames)):
            where = self._where(index)
            assert where is not None
            owner = _library(where.file or "")
            frames.append(Frame(index, where.function, where.file, where.line,
                                current=index == self._selected,
                                internal=(where.file or "").startswith("node:"),
                                library=owner is not None, library_name=owner))
        return frames

    def frame_args(self, frames: list[Frame], timeout: float) -> None:
        # V8 lists a function's arguments among its locals: the names come
        # from the source at the function's start, the values from its local
        # scope (one request a frame).
        for frame in frames:
            if frame.args is not None or frame.index >= len(self._frames):
                continue
            call = self._frames[frame.index]
            names = self._parameters(call) if frame.function != "<module>" else []
            if not names:
                frame.args = None if names is None else []
                continue
            scope = next((s for s in call.get("scopeChain", []) if s.get("type") == "local"),
                         None)
            if scope is None:
                continue
            found = {p["name"]: p["value"]
                     for p in self._properties(scope["object"]["objectId"], timeout)
                     if "value" in p}
            frame.args = [Variable(n, *values.show(found[n])) for n in names if n in found]

    def _parameters(self, call: JsonObject) -> list[str] | None:
        start = call.get("functionLocation") or {}
        file = self.file_of(str(start.get("scriptId", "")))
        if not file or not os.path.isabs(file):
            return None
        try:
            lines = Path(file).read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            return None
        row, column = int(start.get("lineNumber", 0)), int(start.get("columnNumber", 0))
        return parameter_names("\n".join(lines[row:row + 20])[column:])

    def select_frame(self, index: int, timeout: float) -> Frame:
        if not 0 <= index < len(self._frames):
            raise OpFailed(f"no frame {index}; the stack has {len(self._frames)} frames "
                           f"(0 to {len(self._frames) - 1})", "`dbg stack` lists them")
        self._selected = index
        self._locals = {}
        return self.stack(None, timeout)[index]

    def locals(self, timeout: float) -> list[Variable]:
        frame = self._frame()
        found: dict[str, JsonObject] = {}
        scopes = []
        for scope in frame.get("scopeChain", []):
            if scope.get("type") not in OWN_SCOPES:
                break
            scopes.append(scope["object"]["objectId"])
        # The scopes' requests go out together: one round trip for a frame's
        # blocks and its function scope, not one each.
        for listed in self._properties_of(scopes, timeout):
            for prop in listed:
                if "value" in prop:
                    found.setdefault(prop["name"], prop["value"])
        if set(found) >= WRAPPER:
            for name in WRAPPER:  # CommonJS's wrapper, not the program's
                found.pop(name)
        self._locals = found
        return [Variable(name, *values.show(obj)) for name, obj in found.items()]

    def fields(self, variable: Variable, timeout: float) -> list[Variable] | None:
        obj = self._locals.get(variable.name)
        if obj is None or not values.expandable(obj):
            return None
        return [Variable(p["name"], *values.show(p["value"]))
                for p in self._properties(obj["objectId"], timeout)
                if "value" in p and p.get("enumerable", True)]

    def _properties(self, object_id: str, timeout: float) -> list[JsonObject]:
        return self._properties_of([object_id], timeout)[0]

    def _properties_of(self, object_ids: list[str], timeout: float) -> list[list[JsonObject]]:
        """The own properties of each object, asked all at once."""
        if not object_ids:
            return []
        if self.inspector is None:
            raise TargetExited("the program has ended")
        answers = self.inspector.call_all([
            ("Runtime.getProperties",
             {"objectId": object_id, "ownProperties": True, "generatePreview": True})
            for object_id in object_ids], timeout)
        return [list(found.get("result") or []) for found in answers]

    def evaluate(self, expression: str, timeout: float) -> Value:
        return Value(*values.show(self._evaluate(expression, timeout)))

    def op_exception(self, args: JsonObject, timeout: float) -> JsonObject:
        """What was thrown: its class, its message, where it was made (its
        own stack, in call order), and its causes (ES2022's ``cause``)."""
        thrown = self._thrown
        if self._state != "stopped" or thrown is None:
            raise OpFailed("the program did not stop at an exception",
                           "an uncaught exception stops it, and so does `dbg catch`; "
                           "`dbg stack` shows where it is")
        if not thrown.get("objectId"):
            # A value thrown that is no object (`throw "bad"`): no stack of its own.
            return {"exception": str(thrown.get("type", "undefined")),
                    "description": str(thrown.get("value", thrown.get("description", ""))),
                    "stack": _call_order_of(self._frames, self.file_of), "chain": []}
        answer = self.call("Runtime.callFunctionOn", {
            "objectId": thrown["objectId"], "functionDeclaration": _THROWN_FUNCTION,
            "returnByValue": True}, timeout)
        try:
            found = json.loads(str((answer.get("result") or {}).get("value")))
            chain = [(str(n), str(m), str(s)) for n, m, s in found]
        except (ValueError, TypeError):
            chain = []
        if not chain:
            text = str(thrown.get("description") or "")
            name, _, message = text.split("\n")[0].partition(": ")
            chain = [(name or str(thrown.get("className", "")), message, text)]
        (name, message, stack), causes = chain[0], chain[1:]
        lines: list[str] = []
        for cause_name, cause_message, cause_stack in reversed(causes):
            lines += [*_js_frames(cause_stack), f"{cause_name}: {cause_message}", "",
                      "The above exception was the direct cause of the following exception:", ""]
        lines += _js_frames(stack) or _call_order_of(self._frames, self.file_of).splitlines()
        return {"exception": name, "description": message, "stack": "\n".join(lines),
                "chain": [{"exception": n, "description": m, "relation": "cause"}
                          for n, m, _ in reversed(causes)]}

    def _evaluate(self, expression: str, timeout: float) -> JsonObject:
        answer = self.call("Debugger.evaluateOnCallFrame", {
            "callFrameId": self._frame()["callFrameId"], "expression": expression,
            "generatePreview": True, "objectGroup": "dbg"}, timeout)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            thrown = (details.get("exception") or {}).get("description") or details.get("text")
            raise OpFailed(str(thrown).split("\n")[0])
        result: JsonObject = answer["result"]
        return result

    def set_variable(self, lhs: str, value: str, timeout: float) -> Value:
        """A variable is written in the scope that holds it (a `let` of the
        frame, a closure's); anything else (``obj.field``) by assignment.
        ``value`` is evaluated once either way."""
        try:
            return self._assign(lhs, value, timeout)
        except OpFailed as exc:
            raise OpFailed(f"cannot set {lhs}: {exc.message}", "nothing was changed") from exc

    def _assign(self, lhs: str, value: str, timeout: float) -> Value:
        frame = self._frame()
        self._locals = {}
        if re.fullmatch(r"[A-Za-z_$][\w$]*", lhs):
            for number, scope in enumerate(frame.get("scopeChain", [])):
                if scope.get("type") == "global":
                    break
                names = {p["name"] for p in self._properties(scope["object"]["objectId"],
                                                             timeout)}
                if lhs in names:
                    self.call("Debugger.setVariableValue", {
                        "scopeNumber": number, "variableName": lhs,
                        "newValue": values.call_argument(self._evaluate(value, timeout)),
                        "callFrameId": frame["callFrameId"]}, timeout)
                    return self.evaluate(lhs, timeout)
        self._evaluate(f"{lhs} = ({value})", timeout)
        return self.evaluate(lhs, timeout)

    def threads(self, timeout: float) -> list[Thread]:
        return [Thread(1, "main", current=True)]

    def select_thread(self, thread_id: int | str, timeout: float) -> Thread:
        if str(thread_id) not in ("1", "main"):
            raise OpFailed(f"no thread {thread_id}; node runs the program on one: 1 (main)")
        return Thread(1, "main", current=True)

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        """An inspector request: ``Domain.method`` and, optionally, its
        params as a JSON object (``Runtime.evaluate {"expression": "1+1"}``)."""
        method, _, rest = text.strip().partition(" ")
        if not re.fullmatch(r"[A-Z]\w*\.\w+", method):
            raise UsageError(f"not an inspector request: {text!r}",
                             'give Domain.method and JSON params, e.g. '
                             '`dbg raw Runtime.evaluate \'{"expression": "1+1"}\'`')
        try:
            params = json.loads(rest) if rest.strip() else {}
        except ValueError as exc:
            raise UsageError(f"the params of {method} are not JSON: {exc}") from exc
        if not isinstance(params, dict):
            raise UsageError(f"the params of {method} must be a JSON object")
        moves = method in ("Debugger.resume", "Debugger.stepOver", "Debugger.stepInto",
                           "Debugger.stepOut", "Debugger.continueToLocation")
        if moves:
            self._resume(method, timeout, params)
            return "", self._wait_stop(timeout, timeout, "step")
        answer = self.call(method, params, timeout)
        if method == "Debugger.pause":
            return "", self._wait_stop(timeout, timeout, "pause")
        return json.dumps(answer, indent=1), None


# -- helpers --------------------------------------------------------------------------------------


def _node(spec: BackendSpec) -> str | None:
    """Where the entry's command (default ``node``) is on PATH."""
    return shutil.which(spec.command[0] if spec.command else "node")


def _version_cache() -> Path:
    from dbgcore.api import dbg_home

    return dbg_home() / "node-versions.json"


def _library(file: str) -> str | None:
    """Whose code a frame is when not the program's: node's own (``node:``
    modules) or a package from node_modules (``express``, ``@scope/name``)."""
    if file.startswith("node:"):
        return "node"
    if "/node_modules/" not in file:
        return None
    parts = file.rsplit("/node_modules/", 1)[1].split("/")
    return "/".join(parts[:2]) if parts[0].startswith("@") else parts[0]


#: Run on what was thrown (V8's callFunctionOn): JSON of it and its causes,
#: each [name, message, stack].
_THROWN_FUNCTION = """function () {
  const one = (e) => (e !== null && typeof e === "object" && "stack" in e)
    ? [String(e.name || (e.constructor && e.constructor.name) || "Error"),
       String(e.message === undefined ? "" : e.message), String(e.stack || "")]
    : [typeof e, String(e), ""];
  const out = [one(this)];
  const seen = new Set([this]);
  let e = this.cause;
  while (e !== undefined && e !== null && !seen.has(e)) {
    seen.add(e);
    out.push(one(e));
    e = typeof e === "object" ? e.cause : undefined;
  }
  return JSON.stringify(out);
}"""

#: A frame of a JavaScript stack: "    at FUNCTION (FILE:LINE:COLUMN)" or
#: "    at FILE:LINE:COLUMN".
_JS_FRAME_RE = re.compile(r"^\s+at (?:(.+?) \()?(.+?):(\d+):\d+\)?$")


def _js_frames(stack: str) -> list[str]:
    """A JavaScript error's stack (innermost first) as `dbg exception` shows
    a traceback: in call order, one line a frame, node's own left out."""
    frames = []
    for line in stack.splitlines():
        found = _JS_FRAME_RE.match(line)
        if found is None:
            continue
        function, path, number = found.group(1) or "<module>", found.group(2), found.group(3)
        if path.startswith("node:"):
            continue
        path = unquote(path.removeprefix("file://"))
        frames.append(f'  File "{path}", line {number}, in {function}')
    return list(reversed(frames))


def _call_order_of(frames: list[JsonObject], file_of: Callable[[str], str | None]) -> str:
    """The paused stack as a traceback: in call order, node's own left out."""
    lines = []
    for frame in reversed(frames):
        where = frame.get("location") or {}
        path = file_of(str(where.get("scriptId", ""))) or ""
        if path and not path.startswith("node:"):
            lines.append(f'  File "{path}", line {int(where.get("lineNumber", 0)) + 1}, '
                         f"in {_name(frame)}")
    return "\n".join(lines)


def _name(frame: JsonObject) -> str:
    name = str(frame.get("functionName") or "")
    if name:
        return name
    start = frame.get("functionLocation") or {}
    if start.get("lineNumber") == 0 and start.get("columnNumber") == 0:
        return "<module>"
    return "(anonymous)"


def _import_websockets() -> None:
    try:
        import websockets.exceptions
        import websockets.sync.client  # noqa: F401
    except ImportError:
        pass  # said where Inspector imports it


def _said(page: JsonObject) -> str:
    """The last line of a page of ``OutputBuffer.read``."""
    said = "".join(chunk["text"] for chunk in page["chunks"]).strip()
    return said.splitlines()[-1] if said else ""
