"""Running a JavaScript program under the inspector: continue, steps by
lines, finish (to the function's return, with its value), until and pause.

V8 steps by statement and expression, so it stops at ``i++`` and ``i < n``
of one ``for`` line; dbg's ``next`` and ``step`` go by lines, stepping V8
until the line changes or the call does."""

from __future__ import annotations

import time

from dbgcore.api import (
    DEFAULT_TIMEOUT,
    BreakLoc,
    OpFailed,
    ReturnValue,
    StopEvent,
    TargetExited,
)

import dbg_node.values as values
from dbg_node.connection import NodeConnection
from dbg_node.messages import JsonObject

#: How many V8 steps one line step may take (one line can hold a whole loop).
STEP_LIMIT = 10000


class NodeExecution(NodeConnection):
    """The execution ops of the node backend."""

    def _resume(self, method: str, timeout: float, params: JsonObject | None = None) -> None:
        self._state = "running"
        self._locals = {}
        self.references.clear()  # V8 lets go of the pause's objects
        try:
            self.call(method, params, timeout)
        except TargetExited:
            if self.inspector is None:
                raise
            # A program that ends at once (it kills itself) may close the
            # inspector's socket before node's IO thread sends the answer:
            # the wait that follows hears the end, and how it ended.

    def _shown(self, objs: list[JsonObject], timeout: float) -> list[tuple[str, str]]:
        """Each RemoteObject as dbg shows it, (value, type): V8's preview, or
        where it falls short (an object in an object, a return value), the
        program's own reading of it (values.FORMAT), asked all at once."""
        wanted = [obj for obj in objs if values.deeper(obj)]
        texts: dict[str, str | None] = {}
        if wanted and self.inspector is not None:
            try:
                answers = self.inspector.call_all(
                    [values.format_request(obj) for obj in wanted], timeout)
            except OpFailed:
                answers = []  # V8's preview, then: less said, nothing lost
            for obj, answer in zip(wanted, answers, strict=False):
                texts[str(obj["objectId"])] = values.formatted(answer)
        return [values.show(obj, texts.get(str(obj.get("objectId")))) for obj in objs]

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
        # Lines as shown: a TypeScript line may be more than one of the
        # JavaScript's, or share one with the next.
        start_key, start_line = self._depth_key(), self._line_shown()
        for _ in range(STEP_LIMIT):
            self._resume(method, timeout)
            event = self._wait_stop(deadline - time.monotonic(), timeout, "step")
            if event.state != "stopped" or event.reason != "step":
                return event
            if self._depth_key() != start_key or self._line_shown() != start_line:
                return event
        return event

    def _line_shown(self) -> tuple[str | None, int | None]:
        """The file and line the pause is shown at (its source map's)."""
        where = self._where(0)
        return (where.file, where.line) if where is not None else (None, None)

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
        # Read now: V8 lets go of the pause's objects when the program moves on.
        shown = self._shown([returned], timeout)[0] if returned is not None else None
        self._resume("Debugger.stepOut", timeout)
        event = self._wait_stop(deadline - time.monotonic(), timeout, "return")
        if event.state == "stopped" and event.reason == "return" and shown is not None:
            event.return_value = ReturnValue(*shown)
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

