"""What a paused JavaScript program shows through the inspector: its
stack and a frame's arguments, locals and fields, values (and setting
them), its one thread, the exception it stopped at, and `dbg raw`
(an inspector request as it is)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

from dbgcore.api import (
    Frame,
    OpFailed,
    StopEvent,
    TargetExited,
    Thread,
    UsageError,
    Value,
    Variable,
)

import dbg_node.scopes as scopes
import dbg_node.values as values
from dbg_node.connection import function_name
from dbg_node.execution import NodeExecution
from dbg_node.functions import parameter_names
from dbg_node.messages import JsonObject

#: Names Node's CommonJS wrapper puts in every module's scope.
WRAPPER = frozenset({"exports", "require", "module", "__filename", "__dirname"})
#: The most async callers `dbg stack` shows (V8 keeps ASYNC_DEPTH of them
#: a run, a run after each boundary).
ASYNC_FRAMES = 64
#: The most async stack traces asked for by id at one pause.
ASYNC_LOOKUPS = 4


class NodeInspection(NodeExecution):
    """The inspection ops of the node backend."""

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

    def async_callers(self, timeout: float) -> list[Frame]:
        """The pause's async stack trace, V8's chain of callers across each
        ``await``, ``.then`` or timer (``parent``; one kept apart from the
        pause, ``parentId``, asked for), as frames after the live ones."""
        frames: list[Frame] = []
        trace, asked = self._async_trace, 0
        if trace is None and self._async_id is not None:
            trace, asked = self._stack_trace(self._async_id, timeout), 1
        while trace is not None and len(frames) < ASYNC_FRAMES:
            boundary: str | None = str(trace.get("description") or "async")
            calls = list(trace.get("callFrames") or [])
            for call, outer in zip(calls, [*calls[1:], {}], strict=True):
                file = self._url_file(str(call.get("url") or "")) \
                    or self.file_of(str(call.get("scriptId", ""))) or ""
                line = int(call.get("lineNumber", 0)) + 1
                if call.get("scriptId"):
                    file, line = self._mapped(str(call["scriptId"]), file, call)
                owner = _library(file)
                frames.append(Frame(
                    len(self._frames) + len(frames), _async_function(call, outer),
                    file or None, line,
                    internal=file.startswith("node:"), library=owner is not None,
                    library_name=owner, asynchronous=True, async_boundary=boundary))
                boundary = None
            parent = trace.get("parent")
            if parent is None and trace.get("parentId") and asked < ASYNC_LOOKUPS:
                parent, asked = self._stack_trace(trace["parentId"], timeout), asked + 1
            trace = parent
        return frames[:ASYNC_FRAMES]

    def _stack_trace(self, trace_id: JsonObject, timeout: float) -> JsonObject | None:
        """An async stack trace V8 keeps apart from the pause, by its id."""
        try:
            found = self.call("Debugger.getStackTrace", {"stackTraceId": trace_id}, timeout)
        except OpFailed:
            return None  # its debugger (another context's) has let it go
        trace: JsonObject | None = found.get("stackTrace")
        return trace

    def _mapped(self, script_id: str, file: str, call: JsonObject) -> tuple[str, int]:
        """A call frame's file and line as shown (its source map's)."""
        mapped, line = self.position(script_id, int(call.get("lineNumber", 0)),
                                     int(call.get("columnNumber", 0)))
        return mapped or file, line

    def _shown_position(self, path: str, line: int, column: int) -> tuple[str, int]:
        """A position of an error's stack (one-based, a generated file's) as
        its source map shows it."""
        found = self.maps.of_file(path) if os.path.isabs(path) else None
        mapped = found.original(line - 1, max(column - 1, 0)) if found is not None else None
        return (mapped[0], mapped[1] + 1) if mapped is not None else (path, line)

    @staticmethod
    def _url_file(url: str) -> str:
        return unquote(url[len("file://"):]) if url.startswith("file://") else url

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
            known = [n for n in names if n in found]
            shown = self._shown([found[n] for n in known], timeout)
            frame.args = [Variable(n, *s) for n, s in zip(known, shown, strict=True)]

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
        if index >= len(self._frames) and (self._async_trace or self._async_id):
            callers = {f.index: f for f in self.async_callers(timeout)}
            if index in callers:
                raise OpFailed(
                    f"frame {index} ({callers[index].function}) is an async caller: it waits "
                    f"for the calls above it, so it has no live frame to select",
                    f"{_live(len(self._frames))}; `dbg break {callers[index].file}:"
                    f"{callers[index].line}` stops in it when it runs")
        if not 0 <= index < len(self._frames):
            raise OpFailed(f"no frame {index}; the stack has {len(self._frames)} frames "
                           f"(0 to {len(self._frames) - 1})", "`dbg stack` lists them")
        self._selected = index
        self._locals = {}
        return self.stack(None, timeout)[index]

    def locals(self, timeout: float) -> list[Variable]:
        """The frame's own variables (its blocks', its function's), then
        those its closures captured, each marked with its closure; a name
        an inner scope shadows is the inner one's, as in the program."""
        chosen = scopes.locals_scopes(self._frame())
        found: dict[str, JsonObject] = {}
        marks: dict[str, str | None] = {}
        # The scopes' requests go out together: one round trip for a frame's
        # blocks, its function scope and its closures, not one each.
        listed = self._properties_of([s["object"]["objectId"] for s, _ in chosen], timeout)
        for (_, mark), props in zip(chosen, listed, strict=True):
            for prop in props:
                if "value" in prop and prop["name"] not in found:
                    found[prop["name"]] = prop["value"]
                    marks[prop["name"]] = mark
        if set(found) >= WRAPPER:
            for name in WRAPPER:  # CommonJS's wrapper, not the program's
                found.pop(name)
        self._locals = found
        shown = self._shown(list(found.values()), timeout)
        return [Variable(name, *s, scope=marks[name])
                for name, s in zip(found, shown, strict=True)]

    def fields(self, variable: Variable, timeout: float) -> list[Variable] | None:
        obj = self._locals.get(variable.name)
        if obj is None or not values.expandable(obj):
            return None
        rows = [p for p in self._properties(obj["objectId"], timeout)
                if "value" in p and p.get("enumerable", True)]
        shown = self._shown([p["value"] for p in rows], timeout)
        return [Variable(p["name"], *s) for p, s in zip(rows, shown, strict=True)]

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
        return Value(*self._shown([self._evaluate(expression, timeout)], timeout)[0])

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
                    "stack": _call_order_of(self._frames, self.position), "chain": []}
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
            lines += [*_js_frames(cause_stack, self._shown_position),
                      f"{cause_name}: {cause_message}", "",
                      "The above exception was the direct cause of the following exception:", ""]
        lines += _js_frames(stack, self._shown_position) \
            or _call_order_of(self._frames, self.position).splitlines()
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



def _async_function(call: JsonObject, outer: JsonObject) -> str:
    """An async caller's function as the live stack names it: V8 gives no
    function's start there, so a module's top level is the nameless one
    that node's module loader called."""
    name = str(call.get("functionName") or "")
    if name:
        return name
    return "<module>" if outer.get("functionName") == "Module._compile" else "(anonymous)"


def _live(count: int) -> str:
    return "frame 0 is live" if count == 1 else f"frames 0 to {count - 1} are live"


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
_JS_FRAME_RE = re.compile(r"^\s+at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$")


def _js_frames(stack: str, shown: Callable[[str, int, int], tuple[str, int]]) -> list[str]:
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
        path, row = shown(unquote(path.removeprefix("file://")), int(number),
                          int(found.group(4)))
        frames.append(f'  File "{path}", line {row}, in {function}')
    return list(reversed(frames))


def _call_order_of(frames: list[JsonObject],
                   position: Callable[[str, int, int], tuple[str | None, int]]) -> str:
    """The paused stack as a traceback: in call order, node's own left out."""
    lines = []
    for frame in reversed(frames):
        where = frame.get("location") or {}
        path, line = position(str(where.get("scriptId", "")), int(where.get("lineNumber", 0)),
                              int(where.get("columnNumber", 0)))
        if path and not path.startswith("node:"):
            lines.append(f'  File "{path}", line {line}, in {function_name(frame)}')
    return "\n".join(lines)


