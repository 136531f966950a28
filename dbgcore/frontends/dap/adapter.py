"""One DAP client's conversation with dbg: each request mapped onto dbg's
own ops (:func:`dbgcore.ops.call.call_op`, the path the CLI and MCP take),
never a second way of debugging.

The policy (docs/dap.md): a session the client launched is its own, and it
drives it; a session it joined (``attach`` with ``{"session": NAME}``) is the
agent's, and the client only looks (threads, stack, scopes, variables,
evaluate) unless the server was started with ``--drive``. A request the
policy refuses, or one dbg does not answer, gets an error response saying
why and what to do; the server goes on.

Stops reach the client from the store (:mod:`.follow`), whoever caused them;
the ops this client sends are recorded as the agent's are, marked with
``by`` (``dap client NAME (pid N)``).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbgcore.frontends.dap.follow import StopFollower
from dbgcore.ops.call import Answer, call_op
from dbgcore.shared import attached
from dbgcore.shared.errors import DbgError
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.paths import check_session_name
from dbgcore.shared.timeouts import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front
    from dbgcore.frontends.dap.framing import Framing

#: How long an op that runs the program may wait for its stop; past it the
#: program still runs, and its stop still comes through the store.
RUN_TIMEOUT = 3600.0
#: dbg's stop reasons in DAP's words (the rest are said as they are).
REASONS = {"watchpoint": "data breakpoint", "signal": "exception",
           "condition_error": "breakpoint", None: "step", "": "step"}
#: The ops behind DAP's stepping requests.
STEPS = {"continue": "continue", "next": "next", "stepIn": "step", "stepOut": "finish"}
#: How deep a frame's locals are read at once: each level is a
#: variablesReference the client can open without another round trip.
LOCALS_DEPTH = 2

CAPABILITIES = {
    "supportsConfigurationDoneRequest": True,
    "supportsConditionalBreakpoints": True,
    "supportsHitConditionalBreakpoints": True,
    "supportsLogPoints": True,
    "supportsFunctionBreakpoints": True,
    "supportsTerminateRequest": True,
    "supportsEvaluateForHovers": True,
    "exceptionBreakpointFilters": [],
}


class Refused(Exception):
    """A request answered with an error response (its message)."""


class Adapter:
    """The requests of one client, on the thread that reads them; the ops
    that run the program on a thread of their own, so that ``pause`` and
    the other requests are read meanwhile."""

    def __init__(self, out: Framing, front: Front, may_drive_joined: bool,
                 session: str | None = None, token: str | None = None) -> None:
        self.out = out
        self.front = front
        self.may_drive_joined = may_drive_joined
        #: The session named on the command line (`--session`), if any.
        self.default_session = session
        self.token = token
        self.authorized = token is None
        self.session: str | None = None
        self.launched = False
        self.driving = False
        self.client_name = "?"
        self.stop_on_entry = False
        self.configured = False
        self.follower: StopFollower | None = None
        self.announced: Path | None = None
        self.done = threading.Event()
        #: Variable references of the current stop: what each one opens.
        self._refs: dict[int, tuple[str, Any]] = {}
        self._refs_lock = threading.Lock()
        #: The breakpoint ids this client set, by source path (or "<functions>").
        self._breaks: dict[str, list[str]] = {}
        self._stop_thread = 1
        #: How far the program's output has been sent as output events.
        self._output_cursor = 0
        self._output_lock = threading.Lock()

    # -- plumbing --------------------------------------------------------------

    @property
    def by(self) -> str:
        return f"dap client {self.client_name} (pid {os.getpid()})"

    def op(self, name: str, values: JsonObject, timeout: float = DEFAULT_TIMEOUT) -> Answer:
        """Run dbg's op ``name`` on the session, as the CLI would."""
        assert self.session is not None
        spec = self.front.table.find(name)
        if spec is None:
            raise Refused(f"dbg has no op {name!r}")
        from dbgcore.shared import client

        session = self.session

        def send(op: str, args: JsonObject, wait: float) -> JsonObject:
            return client.call(session, op, args, wait, by=self.by)

        return call_op(spec, values, session, timeout, self.front, os.getcwd(), send=send,
                       start=self.front.start)

    def payload(self, name: str, values: JsonObject,
                timeout: float = DEFAULT_TIMEOUT) -> JsonObject:
        """The op's answer, or :class:`Refused` with its error line."""
        answer = self.op(name, values, timeout)
        if not answer.ok:
            assert answer.error is not None
            raise Refused(_error_text(answer.error))
        return answer.payload

    def handle(self, request: JsonObject) -> None:
        """Answer one request (never raises: a failure is an error response)."""
        command = str(request.get("command", ""))
        arguments = request.get("arguments") or {}
        if request.get("type") != "request":
            return  # a response to a reverse request we never send, or junk
        handler = getattr(self, "req_" + command, None) if command.isidentifier() else None
        if handler is None:
            self.out.respond(request, error=(
                f"dbg dap does not support the DAP request {command!r}; what it answers is "
                "listed in docs/dap.md, and the CLI has the rest (`dbg --help`, "
                "`dbg raw COMMAND` for the debugger's own)"))
            return
        if not self.authorized and command != "initialize" and not self._token_ok(arguments):
            self.out.respond(request, error="a wrong or missing token: pass the token "
                             "of `dbg dap --listen` (in its file) as `token` in the "
                             "initialize, launch or attach arguments")
            if command in ("launch", "attach"):
                self.done.set()
            return
        try:
            if not isinstance(arguments, dict):
                raise Refused(f"{command}'s arguments must be an object")
            body = handler(arguments, request)
        except Refused as exc:
            self.out.respond(request, error=str(exc))
            return
        except DbgError as exc:
            self.out.respond(request, error=_error_text(exc))
            return
        except (ValueError, TypeError, AttributeError) as exc:
            # A number that is not one (`"frameId": "x"`), a list for an object.
            self.out.respond(request, error=f"bad arguments for {command}: {exc} (see the "
                             "DAP specification of the request)")
            return
        except Exception as exc:  # a bug of dbg's: one error response, the server goes on
            self.out.respond(request, error=f"internal error in dbg dap while answering "
                             f"{command}: {type(exc).__name__}: {exc} (this is a bug in dbg)")
            return
        if body is not False:  # False: the handler responded itself
            self.out.respond(request, body)

    def _token_ok(self, arguments: Any) -> bool:
        import hmac

        given = arguments.get("token") if isinstance(arguments, dict) else None
        if isinstance(given, str) and self.token is not None \
                and hmac.compare_digest(given.encode(), self.token.encode()):
            self.authorized = True
        return self.authorized

    def need_session(self) -> str:
        if self.session is None:
            raise Refused("no session yet: send launch (a program) or attach "
                          '({"session": NAME}) first')
        return self.session

    def need_drive(self, what: str) -> None:
        self.need_session()
        if not self.driving:
            raise Refused(f"{what} is refused: session {self.session!r} is the agent's, joined "
                          "read-only; start the server with `dbg dap --drive` to drive a "
                          "joined session, or drive it from the CLI (`dbg -s "
                          f"{self.session} continue`)")

    def close(self) -> None:
        """The client has gone: stop following, say so in the session folder,
        and end a launched session unless the client asked to keep it."""
        if self.follower is not None:
            self.follower.stop()
        attached.withdraw(self.announced)
        self.announced = None

    # -- session ---------------------------------------------------------------

    def req_initialize(self, args: JsonObject, request: JsonObject) -> JsonObject:
        name = args.get("clientID") or args.get("clientName") or "?"
        self.client_name = "".join(c for c in str(name) if c.isalnum() or c in "-_.")[:40] or "?"
        if not self.authorized:
            self._token_ok(args)
        return CAPABILITIES

    def _begin(self, name: str, launched: bool) -> None:
        self.session = name
        self.launched = launched
        self.driving = launched or self.may_drive_joined
        self.announced = attached.announce(name, self.client_name, self.driving)
        self.follower = StopFollower(name, self.on_stop)
        if not launched:
            # A joiner sees the output from now on (`dbg output` has the past).
            status = self.op("status", {})
            self._output_cursor = int(status.payload.get("output_cursor") or 0) \
                if status.ok else 0

    def req_launch(self, args: JsonObject, request: JsonObject) -> bool:
        if self.session is not None:
            raise Refused(f"this connection already debugs session {self.session!r}")
        program = args.get("program")
        if not isinstance(program, str) or not program:
            raise Refused('launch needs "program": the file (or module, with "module": true) '
                          "to debug")
        name = args.get("session") or self.default_session or f"dap-{os.getpid()}"
        if not isinstance(name, str):
            raise Refused('"session" must be a name')
        check_session_name(name)
        values: JsonObject = {"program": program, "args": [str(a) for a in args.get("args") or []]}
        for key in ("backend", "cwd", "python", "classpath", "stdin"):
            if args.get(key) is not None:
                values[key] = str(args[key])
        if args.get("module"):
            values["module"] = True
        env = args.get("env") or {}
        if not isinstance(env, dict):
            raise Refused('"env" must be an object of names and values')
        if env:
            values["env"] = [f"{k}={v}" for k, v in env.items()]
        self.session = name
        answer = self.op("start", values, float(args.get("timeout") or 60.0))
        if not answer.ok:
            self.session = None
            assert answer.error is not None
            raise Refused(_error_text(answer.error))
        self._begin(name, launched=True)
        self.stop_on_entry = bool(args.get("stopOnEntry"))
        self.out.respond(request)
        self.out.event("initialized")
        return False

    def req_attach(self, args: JsonObject, request: JsonObject) -> bool:
        if self.session is not None:
            raise Refused(f"this connection already debugs session {self.session!r}")
        name = args.get("session") or self.default_session
        if not isinstance(name, str) or not name:
            raise Refused('attach needs "session": the name of a live dbg session (see '
                          "`dbg sessions`); to start a program, send launch")
        check_session_name(name)
        from dbgcore.shared import client

        client.require_live(name)
        self._begin(name, launched=False)
        self.out.respond(request)
        self.out.event("initialized")
        return False

    def req_configurationDone(self, args: JsonObject, request: JsonObject) -> bool:
        self.need_session()
        assert self.follower is not None
        self.out.respond(request)
        if self.configured:
            return False
        self.configured = True
        current = self.follower.latest()
        if self.launched and not self.stop_on_entry:
            self.follower.start()
            self._run("continue")
            return False
        if current is not None:
            self.on_stop(current)  # a late joiner sees where the program is at once
        self.follower.start()
        return False

    def req_disconnect(self, args: JsonObject, request: JsonObject) -> JsonObject:
        keep = args.get("terminateDebuggee") is False
        if self.session is not None and self.launched and not keep:
            self._kill()
        self.done.set()
        return {}

    def req_terminate(self, args: JsonObject, request: JsonObject) -> JsonObject:
        self.need_drive("terminate")
        self._kill()
        self.out.event("terminated")
        return {}

    def _kill(self) -> None:
        if self.follower is not None:
            self.follower.stop()
        answer = self.op("kill", {}, 30.0)
        if not answer.ok and answer.error is not None and answer.error.kind != "no_session":
            self.out.event("output", {"category": "stderr",
                                      "output": _error_text(answer.error) + "\n"})

    # -- stops -----------------------------------------------------------------

    def send_output(self) -> None:
        """What the program printed since the last time, as output events
        (at each stop and at the end: the client sees it before the stop)."""
        with self._output_lock:
            for _ in range(100):  # pages of 1,000 chunks; a flood is cut here
                answer = self.op("output", {"since": self._output_cursor}, 10.0)
                if not answer.ok:
                    return
                for chunk in answer.payload.get("chunks") or []:
                    category = "stderr" if chunk.get("category") == "stderr" else "stdout"
                    self.out.event("output", {"category": category,
                                              "output": str(chunk.get("text", ""))})
                self._output_cursor = int(answer.payload.get("cursor") or self._output_cursor)
                if not answer.payload.get("more"):
                    return

    def on_stop(self, row: JsonObject) -> None:
        """A stop recorded in the store: the client is told."""
        self._forget()
        self.send_output()
        state = row.get("state")
        if state == "exited":
            self.out.event("exited", {"exitCode": int(row.get("exit_code") or 0)})
            self.out.event("terminated")
            return
        if state != "stopped":
            return
        thread = str(row.get("thread") or "")
        self._stop_thread = int(thread) if thread.isdigit() else 1
        reason = row.get("reason")
        body: JsonObject = {"reason": REASONS.get(reason, reason), "threadId": self._stop_thread,
                            "allThreadsStopped": True}
        where = f"{Path(str(row.get('file') or '?')).name}:{row.get('line')}"
        body["description"] = f"{reason or 'stopped'} at {where}"
        if reason == "exception":
            body["text"] = body["description"]
        self.out.event("stopped", body)

    def _run(self, op: str) -> None:
        """Run ``op`` (it runs the program) on a thread of its own: its stop
        comes through the store; a failure is said as output, with the stop
        the program is still at, so the client does not wait for one."""
        self._forget()

        def run() -> None:
            answer = self.op(op, {}, RUN_TIMEOUT)
            if answer.ok or self.done.is_set():
                return
            assert answer.error is not None
            self.out.event("output", {"category": "stderr",
                                      "output": f"dbg {op}: {_error_text(answer.error)}\n"})
            if self.follower is not None:
                current = self.follower.latest()
                if current is not None:
                    self.on_stop(current)

        threading.Thread(target=run, daemon=True, name=f"dbg-dap-{op}").start()

    def _step(self, request_name: str) -> JsonObject:
        self.need_drive(request_name)
        self._run(STEPS[request_name])
        return {"allThreadsContinued": True} if request_name == "continue" else {}

    def req_continue(self, args: JsonObject, request: JsonObject) -> JsonObject:
        return self._step("continue")

    def req_next(self, args: JsonObject, request: JsonObject) -> JsonObject:
        return self._step("next")

    def req_stepIn(self, args: JsonObject, request: JsonObject) -> JsonObject:
        return self._step("stepIn")

    def req_stepOut(self, args: JsonObject, request: JsonObject) -> JsonObject:
        return self._step("stepOut")

    def req_pause(self, args: JsonObject, request: JsonObject) -> JsonObject:
        self.need_drive("pause")
        answer = self.op("pause", {}, DEFAULT_TIMEOUT)
        if not answer.ok:
            assert answer.error is not None
            raise Refused(_error_text(answer.error))
        return {}

    # -- what the program is at -----------------------------------------------

    def req_threads(self, args: JsonObject, request: JsonObject) -> JsonObject:
        self.need_session()
        try:
            rows = self.payload("threads", {}).get("threads") or []
        except Refused:
            rows = []
        threads = []
        for row in rows:
            ident = str(row.get("id", ""))
            if ident.isdigit():
                threads.append({"id": int(ident), "name": str(row.get("name") or ident)})
        if not any(t["id"] == self._stop_thread for t in threads):
            # The debugger did not say which thread stopped (a console one):
            # the stop's thread is the one dbg selected.
            current = next((r for r in rows if r.get("current")), None)
            name = str(current.get("name")) if current else "main"
            threads = [t for t in threads if not current or t["id"] != current.get("id")]
            threads.insert(0, {"id": self._stop_thread, "name": name})
        return {"threads": threads}

    def req_stackTrace(self, args: JsonObject, request: JsonObject) -> JsonObject:
        self.need_session()
        frames = self.payload("stack", {}).get("frames") or []
        start = int(args.get("startFrame") or 0)
        levels = int(args.get("levels") or 0)
        chosen = frames[start:start + levels] if levels else frames[start:]
        out = []
        for frame in chosen:
            item: JsonObject = {"id": int(frame.get("index", 0)) + 1,
                                "name": str(frame.get("function") or "?"),
                                "line": int(frame.get("line") or 0), "column": 1}
            if frame.get("file"):
                item["source"] = {"name": Path(str(frame["file"])).name,
                                  "path": str(frame["file"])}
            if frame.get("library") or frame.get("internal"):
                item["presentationHint"] = "subtle"
            out.append(item)
        return {"stackFrames": out, "totalFrames": len(frames)}

    def req_scopes(self, args: JsonObject, request: JsonObject) -> JsonObject:
        self.need_session()
        index = int(args.get("frameId") or 1) - 1
        ref = self._ref("locals", index)
        return {"scopes": [{"name": "Locals", "presentationHint": "locals",
                            "variablesReference": ref, "expensive": False}]}

    def req_variables(self, args: JsonObject, request: JsonObject) -> JsonObject:
        self.need_session()
        with self._refs_lock:
            what = self._refs.get(int(args.get("variablesReference") or 0))
        if what is None:
            raise Refused("that variablesReference is of an earlier stop (or none of dbg's): "
                          "ask for the scopes again")
        kind, value = what
        rows = self._frame_locals(value) if kind == "locals" else value
        return {"variables": [self._variable(row) for row in rows]}

    def req_evaluate(self, args: JsonObject, request: JsonObject) -> JsonObject:
        self.need_session()
        expression = args.get("expression")
        if not isinstance(expression, str) or not expression.strip():
            raise Refused("evaluate needs an expression")
        index = int(args["frameId"]) - 1 if args.get("frameId") else None
        answer = self._in_frame(index, lambda: self._deep("print", {"expression": expression}))
        result = self._variable({**answer, "name": expression})
        return {"result": result["value"], "type": result.get("type"),
                "variablesReference": result["variablesReference"]}

    def _deep(self, op: str, values: JsonObject) -> JsonObject:
        """``op`` with its values' children (``--depth``), or without them
        from a backend that reads none."""
        try:
            return self.payload(op, {**values, "depth": LOCALS_DEPTH})
        except Refused:
            return self.payload(op, values)

    def _frame_locals(self, index: int) -> list[JsonObject]:
        variables = self._in_frame(index, lambda: self._deep("locals", {}))
        return list(variables.get("variables") or [])

    def _in_frame(self, index: int | None, read: Any) -> Any:
        """``read()`` with frame ``index`` selected, and the frame selected
        before selected again: the agent's `dbg print` is not moved."""
        if index is None:
            return read()
        frames = self.payload("stack", {}).get("frames") or []
        selected = next((int(f.get("index", 0)) for f in frames if f.get("current")), 0)
        if index == selected:
            return read()
        self.payload("frame", {"index": index})
        try:
            return read()
        finally:
            self.op("frame", {"index": selected})

    def _variable(self, row: JsonObject) -> JsonObject:
        children = row.get("children") or row.get("fields")
        ref = self._ref("rows", list(children)) if children else 0
        item: JsonObject = {"name": str(row.get("name", "")), "value": str(row.get("value", "")),
                            "variablesReference": ref}
        if row.get("type"):
            item["type"] = str(row["type"])
        return item

    def _ref(self, kind: str, value: Any) -> int:
        with self._refs_lock:
            ref = len(self._refs) + 1
            self._refs[ref] = (kind, value)
            return ref

    def _forget(self) -> None:
        with self._refs_lock:
            self._refs.clear()

    # -- breakpoints -------------------------------------------------------------

    def req_setBreakpoints(self, args: JsonObject, request: JsonObject) -> JsonObject:
        source = args.get("source") or {}
        path = source.get("path") if isinstance(source, dict) else None
        if not isinstance(path, str) or not path:
            raise Refused("setBreakpoints needs source.path (dbg sets breakpoints by file)")
        wanted = args.get("breakpoints")
        if wanted is None:
            wanted = [{"line": line} for line in args.get("lines") or []]
        self.need_drive("setBreakpoints")
        places = [(f"{path}:{int(b.get('line') or 0)}", b) for b in wanted]
        return {"breakpoints": self._replace(path, places)}

    def req_setFunctionBreakpoints(self, args: JsonObject, request: JsonObject) -> JsonObject:
        self.need_drive("setFunctionBreakpoints")
        places = [(str(b.get("name") or ""), b) for b in args.get("breakpoints") or []]
        return {"breakpoints": self._replace("<functions>", places)}

    def req_setExceptionBreakpoints(self, args: JsonObject, request: JsonObject) -> JsonObject:
        # dbg stops where an uncaught exception would end the program, as
        # it does for the CLI (`dbg catch` chooses more); no filters to set.
        return {"breakpoints": []}

    def _replace(self, key: str, places: list[tuple[str, JsonObject]]) -> list[JsonObject]:
        """This client's breakpoints of ``key`` (a file, or the functions)
        become ``places``; the agent's own breakpoints are left alone."""
        for old in self._breaks.pop(key, []):
            self.op("unbreak", {"target": old})
        ids: list[str] = []
        out: list[JsonObject] = []
        for location, wanted in places:
            values: JsonObject = {"location": location}
            if wanted.get("condition"):
                values["condition"] = str(wanted["condition"])
            hit = str(wanted.get("hitCondition") or "").strip().lstrip(">=").strip()
            if hit.isdigit():
                values["hit"] = int(hit)
            if wanted.get("logMessage"):
                values["log"] = str(wanted["logMessage"])
            answer = self.op("break", values)
            if not answer.ok:
                assert answer.error is not None
                out.append({"verified": False, "message": _error_text(answer.error)})
                continue
            found = answer.payload.get("breakpoint") or answer.payload
            ident = found.get("id")
            if ident is not None:
                ids.append(str(ident))
            item: JsonObject = {"verified": bool(found.get("verified", True))}
            if ident is not None and str(ident).isdigit():
                item["id"] = int(ident)
            if found.get("line"):
                item["line"] = int(found["line"])
            if found.get("message"):
                item["message"] = str(found["message"])
            out.append(item)
        self._breaks[key] = ids
        return out


def _error_text(error: DbgError) -> str:
    text = error.message
    if error.hint and f"({error.hint})" not in text:
        text += f" ({error.hint})"
    return text
