"""One debugging session inside the daemon: the backend, its breakpoints, and
the rules every backend shares (stop snapshots, state checks, recording).

Ops arrive here as ``(op, args, timeout)`` from the daemon's worker thread, one
at a time, and return a JSON-ready payload or raise a DbgError.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbgcore.backend import (
    CANONICAL_OPS,
    AttachRequest,
    Backend,
    BackendSpec,
    LaunchRequest,
    SessionContext,
)
from dbgcore.config import load_config
from dbgcore.errors import (
    BackendMissing,
    DbgError,
    NotStopped,
    OpFailed,
    TargetExited,
    UsageError,
)
from dbgcore.model import (
    BreakLoc,
    BreakOptions,
    Breakpoint,
    Frame,
    Location,
    SourceLine,
    StopEvent,
    StopSnapshot,
    Variable,
)
from dbgcore.output import OutputBuffer
from dbgcore.plugins import PluginHost
from dbgcore.source import source_window
from dbgcore.store import Store
from dbgcore.translog import TransLog

#: A stop snapshot shows at most this many locals, each cut to this length.
SNAPSHOT_LOCALS = 12
SNAPSHOT_VALUE_CHARS = 120
#: ``dbg locals`` cuts single values at this length.
LOCALS_VALUE_CHARS = 4000


@dataclass
class UserBreak:
    """A breakpoint as the user asked for it, so restart can ask again."""

    loc: BreakLoc
    options: BreakOptions
    bp_id: int | str


class Session:
    def __init__(self, name: str, run_dir: Path, host: PluginHost, store: Store,
                 track_process: Callable[[int, str], None]) -> None:
        self.name = name
        self.run_dir = run_dir
        self.host = host
        self.store = store
        self.output = OutputBuffer()
        self.log = TransLog(run_dir / "debugger.log")
        self.track_process = track_process
        self.backend: Backend | None = None
        self.spec: BackendSpec | None = None
        self.launch_request: LaunchRequest | None = None
        self.attach_request: AttachRequest | None = None
        self.user_breaks: list[UserBreak] = []
        #: The last `dbg catch` filters, so restart can ask again.
        self.catch_filters: list[str] = []
        self.session_id: int | None = None
        self.last: StopSnapshot | None = None
        self._version = ""
        self.op_timeout = 30.0

    # -- identity ------------------------------------------------------------

    def via(self) -> dict[str, str]:
        if self.backend is None:
            return {"tool": "dbg", "version": ""}
        return {"tool": self.backend.tool_name, "version": self._version}

    def describe(self) -> dict[str, Any]:
        program = ""
        if self.launch_request is not None:
            program = self.launch_request.program
        elif self.attach_request is not None:
            attached = self.attach_request
            program = attached.program or (f"pid {attached.pid}" if attached.pid is not None
                                           else f"{attached.host or '127.0.0.1'}:{attached.port}")
        state = self.backend.state() if self.backend is not None else "starting"
        info: dict[str, Any] = {
            "name": self.name,
            "backend": self.spec.name if self.spec else None,
            "tool": self.via()["tool"],
            "version": self._version,
            "state": state,
            "program": program,
        }
        if self.last is not None and self.last.location is not None and state == "stopped":
            info["location"] = _loc_dict(self.last)
        if state == "exited" and self.last is not None:
            info["exit_code"] = self.last.exit_code
        return info

    # -- dispatch -------------------------------------------------------------

    def handle(self, op: str, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.op_timeout = timeout
        if self.backend is not None:
            self.backend.ctx.op_timeout = timeout
        handler = getattr(self, f"op_{op}", None)
        if op not in ("start", "attach") and self.backend is None:
            raise UsageError("the session has no program yet", "use dbg start PROGRAM")
        if handler is None:
            assert self.backend is not None
            extension = self.backend.extension_op(op)
            if extension is None:
                raise self.backend.unsupported(op)
            self._refresh()
            return extension(args, timeout)
        if op not in ("start", "attach", "restart", "status", "output", "tool"):
            self._refresh()
            self._check_state(op)
        payload: dict[str, Any] = handler(args, timeout)
        return payload

    def _check_state(self, op: str) -> None:
        info = CANONICAL_OPS.get(op)
        needs_stopped = info.needs_stopped if info else op in ("up", "down", "list", "wait")
        if not needs_stopped or self.backend is None or op in ("list", "wait"):
            return
        state = self.backend.state()
        if state == "running":
            raise NotStopped(
                f"{op} needs a stopped target, and it is running",
                "stop it with `dbg pause`, or wait for the next stop with `dbg wait`",
            )
        if state == "exited":
            code = self.last.exit_code if self.last else None
            raise TargetExited(
                f"{op} needs a live target, and the program has exited"
                + (f" with code {code}" if code is not None else ""),
                "run it again with `dbg restart`",
            )

    def _refresh(self) -> None:
        """A target left running by a timed-out op may have stopped since.
        Asked whenever the last answer said "running": a backend whose events
        arrive on their own (DAP) may already be stopped, with the stop unseen."""
        if self.backend is not None and (
                self.backend.state() == "running"
                or (self.last is not None and self.last.state == "running")):
            event = self.backend.poll(0)
            if event is not None:
                self._snapshot(event)

    # -- starting --------------------------------------------------------------

    def _new_backend(self, backend_name: str, cwd: str | None) -> Backend:
        config = load_config(Path(cwd) if cwd else None)
        spec = config.backends.get(backend_name)
        if spec is None:
            raise UsageError(f"unknown backend {backend_name!r}",
                             f"known backends: {', '.join(config.backends)}")
        classes = self.host.backend_classes()
        cls = classes.get(spec.plugin)
        if cls is None:
            raise BackendMissing(
                f"backend {backend_name!r} needs plugin {spec.plugin!r}, which is not loaded",
                "see `dbg plugins` for plugins that failed to load",
            )
        readiness = cls.check(spec)
        if not readiness.ready:
            raise BackendMissing(f"backend {backend_name!r} is not ready: {readiness.detail}",
                                 spec.install)
        ctx = SessionContext(
            name=self.name, run_dir=self.run_dir, output=self.output, log=self.log,
            track_process=self.track_process, op_timeout=self.op_timeout,
        )
        self.spec = spec
        backend = cls(spec, ctx)
        self.backend = backend
        return backend

    def op_start(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        request = LaunchRequest(
            program=args["program"],
            args=list(args.get("args", [])),
            cwd=args.get("cwd"),
            env=dict(args.get("env", {})),
            module=bool(args.get("module", False)),
            options=dict(args.get("options") or {}),
        )
        backend = self._new_backend(args["backend"], request.cwd)
        self.launch_request = request
        event = backend.launch(request)
        self._version = backend.version()
        self.session_id = self.store.open_session(
            self.name, self.spec.name if self.spec else "", backend.tool_name, self._version,
            request.program, request.args, request.cwd or os.getcwd(),
        )
        breakpoints = self._apply_breaks(args.get("breaks", []))
        snapshot = self._snapshot(event)
        if args.get("run") and snapshot.state == "stopped":
            snapshot = self._snapshot(backend.cont(timeout))
        return {**snapshot.to_dict(), "breakpoints": [b.to_dict() for b in breakpoints]}

    def op_attach(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        request = AttachRequest(pid=args.get("pid"), host=args.get("host"), port=args.get("port"),
                                program=args.get("program"))
        backend = self._new_backend(args["backend"], args.get("cwd"))
        self.attach_request = request
        event = backend.attach(request)
        self._version = backend.version()
        self.session_id = self.store.open_session(
            self.name, self.spec.name if self.spec else "", backend.tool_name, self._version,
            request.program or "", [], os.getcwd(),
        )
        breakpoints = self._apply_breaks(args.get("breaks", []))
        return {**self._snapshot(event).to_dict(),
                "breakpoints": [b.to_dict() for b in breakpoints]}

    def _apply_breaks(self, specs: list[str]) -> list[Breakpoint]:
        placed = []
        for spec in specs:
            loc = BreakLoc.parse(spec)
            try:
                placed.append(self._set_break(loc, BreakOptions()))
            except DbgError as exc:
                raise type(exc)(f"--break {spec}: {exc.message}", exc.hint) from exc
        return placed

    def op_restart(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.launch_request is None or self.spec is None:
            raise UsageError("restart needs a session started with `dbg start`",
                             "an attached session cannot be restarted; attach again")
        old = self.backend
        assert old is not None
        old.terminate()
        backend = self._new_backend(self.spec.name, self.launch_request.cwd)
        event = backend.launch(self.launch_request)
        wanted, self.user_breaks = self.user_breaks, []
        placed, failed = [], []
        for item in wanted:
            try:
                placed.append(self._set_break(item.loc, item.options))
            except DbgError as exc:
                failed.append({"location": item.loc.key(), "error": exc.message})
        if self.catch_filters:
            try:
                backend.catch(self.catch_filters)
            except DbgError as exc:
                failed.append({"location": "catch " + " ".join(self.catch_filters),
                               "error": exc.message})
        snapshot = self._snapshot(event)
        return {**snapshot.to_dict(), "breakpoints": [b.to_dict() for b in placed],
                "failed_breakpoints": failed}

    def shutdown(self) -> None:
        if self.backend is not None:
            self.backend.terminate()
        if self.session_id is not None:
            self.store.end_session(self.session_id)
        self.log.close()

    # -- snapshots --------------------------------------------------------------

    def _snapshot(self, event: StopEvent) -> StopSnapshot:
        snapshot = StopSnapshot.from_event(event)
        stack: list[Frame] = []
        if event.state == "stopped" and self.backend is not None:
            loc = event.location
            if loc is not None and loc.file and loc.line:
                snapshot.source = [SourceLine(n, text, n == loc.line)
                                   for n, text in source_window(loc.file, loc.line, 2, 2)]
            try:
                variables = self.backend.locals()
            except DbgError:
                variables = []
            snapshot.locals, snapshot.locals_truncated = _cap(
                variables, SNAPSHOT_LOCALS, SNAPSHOT_VALUE_CHARS)
            try:
                stack = self.backend.stack(None)
            except DbgError:
                stack = []
        self.last = snapshot
        if event.state != "running" and self.session_id is not None:
            data = snapshot.to_dict()
            self.store.record_stop(self.session_id, data, [f.to_dict() for f in stack])
            self.host.stop_recorded(self.name, data)
        return snapshot

    def record_command(self, op: str, args: dict[str, Any], ok: bool,
                       result: dict[str, Any]) -> None:
        if self.session_id is not None:
            self.store.record_command(self.session_id, op, args, ok, result)

    # -- breakpoints -------------------------------------------------------------

    def _set_break(self, loc: BreakLoc, options: BreakOptions) -> Breakpoint:
        assert self.backend is not None
        bp = self.backend.set_breakpoint(loc, options)
        bp.requested = bp.requested or loc.key()
        self.user_breaks.append(UserBreak(loc, options, bp.id))
        return bp

    def op_break(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        loc = BreakLoc.parse(args["location"])
        hit = args.get("hit")
        if hit is not None and int(hit) < 1:
            raise UsageError("--hit must be 1 or more")
        options = BreakOptions(condition=args.get("condition"), hit_count=hit,
                               log_message=args.get("log"), temporary=bool(args.get("temp")))
        return {"breakpoint": self._set_break(loc, options).to_dict()}

    def op_unbreak(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        target = str(args["target"]).strip()
        current = self.backend.list_breakpoints()
        if target.isdigit():
            matches = [b for b in current if str(b.id) == target]
        else:
            key = BreakLoc.parse(target).key()
            matches = [b for b in current if key in _break_keys(b)]
        if not matches:
            raise OpFailed(f"no breakpoint matches {target!r}", "list them with `dbg breaks`")
        for bp in matches:
            self.backend.remove_breakpoint(bp.id)
        removed = {str(b.id) for b in matches}
        self.user_breaks = [u for u in self.user_breaks if str(u.bp_id) not in removed]
        return {"removed": [b.to_dict() for b in matches]}

    def op_breaks(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return {"breakpoints": [b.to_dict() for b in self.backend.list_breakpoints()]}

    def op_watch(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return {"breakpoint": self.backend.watch(_one_line(args["expression"])).to_dict()}

    def op_catch(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        self.catch_filters = self.backend.catch(list(args.get("filters", [])))
        return {"filters": self.catch_filters}

    # -- execution ----------------------------------------------------------------

    def _run(self, event: StopEvent) -> dict[str, Any]:
        return self._snapshot(event).to_dict()

    def op_continue(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return self._run(self.backend.cont(timeout))

    def op_step(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return self._run(self.backend.step(timeout))

    def op_next(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return self._run(self.backend.next(timeout))

    def op_finish(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return self._run(self.backend.finish(timeout))

    def op_until(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        loc = BreakLoc.parse(args["location"]) if args.get("location") else None
        return self._run(self.backend.until(loc, timeout))

    def op_pause(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        state = self.backend.state()
        if state == "stopped" and self.last is not None:
            return {**self.last.to_dict(), "note": "the target was already stopped"}
        if state == "exited":
            raise TargetExited("the program has exited", "run it again with `dbg restart`")
        return self._run(self.backend.pause(timeout))

    def op_wait(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        if self.backend.state() != "running" and (self.last is None
                                                   or self.last.state != "running"):
            assert self.last is not None
            return self.last.to_dict()
        event = self.backend.poll(timeout)
        if event is None:
            return StopSnapshot(state="running").to_dict()
        return self._run(event)

    # -- inspection ------------------------------------------------------------------

    def op_stack(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        levels = args.get("levels")
        frames = self.backend.stack(int(levels) if levels else None)
        return {"frames": [f.to_dict() for f in frames]}

    def op_frame(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return self._frame_payload(self.backend.select_frame(int(args["index"])))

    def _move_frame(self, delta: int) -> dict[str, Any]:
        assert self.backend is not None
        frames = self.backend.stack(None)
        current = next((f.index for f in frames if f.current), 0)
        target = current + delta
        if target < 0:
            raise OpFailed("already at the innermost frame (0)", "use `dbg up` to go to callers")
        if target >= len(frames):
            raise OpFailed(f"already at the outermost frame ({current})",
                           "use `dbg down` to go back toward the stop")
        return self._frame_payload(self.backend.select_frame(target))

    def op_up(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        return self._move_frame(int(args.get("count", 1)))

    def op_down(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        return self._move_frame(-int(args.get("count", 1)))

    def _frame_payload(self, frame: Frame) -> dict[str, Any]:
        payload: dict[str, Any] = {"frame": frame.to_dict()}
        if frame.file and frame.line:
            payload["source"] = [
                {"line": n, "text": t, "current": n == frame.line}
                for n, t in source_window(frame.file, frame.line, 2, 2)
            ]
        return payload

    def op_locals(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        variables, cut = _cap(self.backend.locals(), None, LOCALS_VALUE_CHARS)
        return {"variables": [v.to_dict() for v in variables], "truncated": cut}

    def op_print(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        expression = _one_line(args["expression"])
        value = self.backend.evaluate(expression)
        return {"expression": expression, **value.to_dict()}

    def op_set(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        lhs, value = _one_line(args["lhs"]), _one_line(args["value"])
        result = self.backend.set_variable(lhs, value)
        return {"lhs": lhs, **result.to_dict()}

    def op_threads(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return {"threads": [t.to_dict() for t in self.backend.threads()]}

    def op_thread(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        ident = args["id"]
        return {"thread": self.backend.select_thread(int(ident) if str(ident).isdigit() else ident)
                .to_dict()}

    def op_list(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        spec = args.get("location")
        context = int(args.get("context", 5))
        current = self.last.location if self.last is not None else None
        if self.backend is not None and self.backend.state() == "stopped":
            # The selected frame (after `dbg up` / `dbg frame N`), not just the stop.
            try:
                selected = next((f for f in self.backend.stack(None) if f.current), None)
            except DbgError:
                selected = None
            if selected is not None and selected.file and selected.line:
                current = Location(selected.file, selected.line, selected.function)
        if spec:
            loc = BreakLoc.parse(spec)
            if loc.line is None:
                raise UsageError("list takes FILE:LINE or LINE", "e.g. dbg list app.py:20")
            file = loc.file or (current.file if current else None)
            line = loc.line
        elif current is not None and current.file and current.line:
            file, line = current.file, current.line
        else:
            raise OpFailed("no current location to list", "give one: dbg list FILE:LINE")
        if not file:
            raise OpFailed("no current file to list", "give one: dbg list FILE:LINE")
        resolved = _resolve_file(file, self.launch_request)
        lines = source_window(resolved, line, context, context)
        if not lines:
            raise OpFailed(f"cannot read line {line} of {resolved}")
        here = current.line if current is not None and current.file == resolved else None
        return {"file": resolved,
                "lines": [{"line": n, "text": t, "current": n == here} for n, t in lines]}

    def op_output(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        cats = args.get("categories")
        return self.output.read(int(args.get("since", 0)), set(cats) if cats else None,
                                int(args.get("limit", 1000)))

    def op_raw(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        text = _one_line(args["text"])
        if self.backend.state() == "exited":
            raise TargetExited("the program has exited", "run it again with `dbg restart`")
        output, event = self.backend.raw(text, timeout)
        payload: dict[str, Any] = {"output": output}
        if event is not None:
            payload["stop"] = self._snapshot(event).to_dict()
        return payload

    def op_status(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        problem = ""
        try:
            self._refresh()
        except DbgError as exc:
            # Status must still answer when the debugger is gone; say why instead.
            problem = exc.message
        info = self.describe()
        if problem:
            info["problem"] = problem
        info["breakpoints"] = len(self.user_breaks)
        info["output_cursor"] = self.output.cursor
        return info

    def op_tool(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        return {"backend": self.spec.name if self.spec else None, **self.via()}


def _one_line(text: str) -> str:
    # A newline would let a second command reach a line-oriented debugger.
    if any(c in text for c in "\r\n\0"):
        raise UsageError("the text must be a single line",
                         "remove the newline; send one command at a time")
    if not text.strip():
        raise UsageError("the text is empty")
    return text


def _cap(variables: list[Variable], count: int | None,
         chars: int) -> tuple[list[Variable], bool]:
    cut = count is not None and len(variables) > count
    kept = variables[:count] if count is not None else list(variables)
    out = []
    for v in kept:
        if len(v.value) > chars:
            cut = True
            out.append(Variable(v.name, v.value[: chars - 3] + "...", v.type))
        else:
            out.append(v)
    return out, cut


def _loc_dict(snapshot: StopSnapshot) -> dict[str, Any]:
    loc = snapshot.location
    assert loc is not None
    return {"file": loc.file, "line": loc.line, "function": loc.function}


def _break_keys(bp: Breakpoint) -> set[str]:
    keys = {bp.requested}
    if bp.file and bp.line:
        keys |= {f"{bp.file}:{bp.line}", f"{os.path.basename(bp.file)}:{bp.line}"}
        if bp.requested_line:
            keys |= {f"{bp.file}:{bp.requested_line}",
                     f"{os.path.basename(bp.file)}:{bp.requested_line}"}
    if bp.function:
        keys.add(bp.function)
    return keys


def _resolve_file(file: str, launch: LaunchRequest | None) -> str:
    if os.path.isabs(file) or launch is None:
        return file
    base = launch.cwd or os.getcwd()
    return os.path.join(base, file)
