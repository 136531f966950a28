"""One debugging session inside the daemon: the backend, its breakpoints, and
the rules every backend shares (stop snapshots, state checks, recording).

Ops arrive here as ``(op, args, timeout)`` from the daemon's worker thread, one
at a time, and return a JSON-ready payload or raise a DbgError.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from dbgcore.backend import (
    AttachRequest,
    Backend,
    BackendSpec,
    LaunchRequest,
    SessionContext,
)
from dbgcore.breaktable import BreakTable
from dbgcore.config import load_config
from dbgcore.errors import (
    BackendMissing,
    DbgError,
    NotStopped,
    OpFailed,
    TargetExited,
    UnsupportedOp,
    UsageError,
)
from dbgcore.inspect_ops import InspectOps, one_line, program_frames
from dbgcore.lang import function_span, split_expressions
from dbgcore.model import (
    BreakLoc,
    BreakOptions,
    Breakpoint,
    Frame,
    SourceLine,
    StopEvent,
    StopSnapshot,
)
from dbgcore.ops import OpTable
from dbgcore.output import OutputBuffer
from dbgcore.plugins import PluginHost
from dbgcore.procutil import descendants
from dbgcore.snapshot import arrange
from dbgcore.source import source_window
from dbgcore.sources import suffix_matches
from dbgcore.store import Store
from dbgcore.streams import StdinFeed, waiting_for_stdin
from dbgcore.translog import TransLog


class Session(InspectOps):
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
        self.breaks = BreakTable()
        #: The last `dbg catch` filters, so restart can ask again.
        self.catch_filters: list[str] = []
        self.session_id: int | None = None
        self.last: StopSnapshot | None = None
        self._version = ""
        #: Every op this session answers (dbg's and the plugins'), by name.
        self.ops = OpTable()
        host.add_ops(self.ops)
        #: Expressions `--show` asks for at the stop the current op makes.
        self._show: list[str] = []
        self.displays: list[tuple[int, str]] = []
        self._display_ids = 1
        #: Each frame's locals at its previous stop, to mark what changed.
        self._frame_values: dict[tuple[Any, ...], dict[str, str]] = {}
        #: This run's breakpoint stops: by the user's ids, and by place.
        self._hit_ids: set[str] = set()
        self._hit_places: set[tuple[str | None, int | None]] = set()
        #: The output cursor when this run began.
        self._run_cursor = 0
        #: This run stopped at an exception or a signal (its end need not say why).
        self._saw_exception = False
        #: The program's stdin: a FIFO `dbg input` writes to, or the user's file.
        self.stdin: StdinFeed | None = None
        self.stdin_file: str | None = None

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
        state = self._state() if self.backend is not None else "starting"
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
        if self.launch_request is not None and self.launch_request.core:
            info["core"] = self.launch_request.core  # post mortem
        if state == "exited" and self.last is not None:
            info["exit_code"] = self.last.exit_code
            if self.last.signal:
                info["signal"] = self.last.signal
        if self.backend is not None and self.backend.lost is not None:
            info["problem"] = self.backend.lost.message
        if state == "running" and self.waiting_for_input():
            info["waiting_for_input"] = True
            info["prompt"] = self.prompt()
        return info

    def _state(self) -> str:
        assert self.backend is not None
        return "debugger_lost" if self.backend.lost is not None else self.backend.state()

    # -- dispatch -------------------------------------------------------------

    def handle(self, op: str, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        spec = self.ops.find(op)
        if spec is None or spec.name != op:
            raise UsageError(f"unknown op {op!r}", "see `dbg --help`")
        if spec.send != "start" and self.backend is None:
            raise UsageError("the session has no program yet", "use dbg start PROGRAM")
        if self.backend is not None and spec.send != "start" and op != "restart" \
                and not spec.lost_ok and self._state() == "debugger_lost":
            assert self.backend.lost is not None
            raise self.backend.lost
        handler = getattr(self, f"op_{op.replace('-', '_')}", None)
        if op in POST_MORTEM_REFUSED and self.launch_request is not None \
                and self.launch_request.core:
            raise OpFailed(f"cannot {op}: the program is a core dump, a snapshot of its "
                           "memory when it died", "a core file is a snapshot: `dbg start "
                           "PROGRAM` runs it; stack, frame, locals, print look around")
        if spec.send != "start" and op not in ("restart", "status"):
            self._refresh(timeout)
            if spec.needs == "stopped" or (op not in AFTER_THE_END
                                           and self._state() == "exited"):
                self._check_state(op)
        if handler is None:
            assert self.backend is not None
            extension = self.backend.extension_op(op)
            if extension is None:
                raise self.backend.unsupported(op)
            return extension(args, timeout)
        self._show = list(args.get("show") or []) if spec.stops else []
        try:
            payload: dict[str, Any] = handler(args, timeout)
        finally:
            self._show = []
        notes = self.store.take_notes()
        if notes:
            payload["note"] = "; ".join([payload["note"], *notes] if payload.get("note") else notes)
        return payload

    def _check_state(self, op: str) -> None:
        if self.backend is None:
            return
        state = self._state()
        if state == "running":
            raise NotStopped(
                f"{op} needs a stopped target, and it is running",
                "stop it with `dbg pause`, or wait for the next stop with `dbg wait`",
            )
        if state == "exited":
            code = self.last.exit_code if self.last else None
            signal = self.last.signal if self.last else None
            how = (f"was killed by {signal}" if signal else "has exited"
                   + (f" with code {code}" if code is not None else ""))
            hint = "run it again with `dbg restart`"
            if op in ("break", "watch", "catch"):
                hint += ", which sets the session's breakpoints again; then this one"
            raise TargetExited(f"{op} needs a live target, and the program {how}", hint)

    def _refresh(self, timeout: float) -> None:
        """A target left running by a timed-out op may have stopped since.
        Asked whenever the last answer said "running": a backend whose events
        arrive on their own (DAP) may already be stopped, with the stop unseen."""
        if self.backend is not None and self.backend.lost is None and (
                self.backend.state() == "running"
                or (self.last is not None and self.last.state == "running")):
            event = self.backend.poll(0)
            if event is not None:
                self._snapshot(event, timeout)

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
            track_process=self.track_process,
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
            stop_on_uncaught=not args.get("no_catch"),
            options=dict(args.get("options") or {}),
            test=bool(args.get("test")),
            core=args.get("core") or None,
        )
        backend = self._new_backend(args["backend"], request.cwd)
        if request.core and not backend.opens_cores:
            raise UnsupportedOp("core files", backend.tool_name,
                                backend.unsupported_hints.get("core") or _NO_CORE)
        self.stdin_file = args.get("stdin") or None
        if self.stdin_file and not backend.reads_stdin:
            raise backend.unsupported("stdin", backend.unsupported_hints.get("stdin")
                                      or _NO_STDIN)
        self.launch_request = request
        request = self._with_stdin(request, backend)
        early: list[Breakpoint] | None = None

        def place_breaks() -> None:
            nonlocal early
            early = self._apply_breaks(args.get("breaks", []), timeout)

        run = bool(args.get("run"))
        self._new_run()
        event = backend.launch(replace(request, before_run=place_breaks) if run else request,
                               timeout)
        self._version = backend.version()
        self.session_id = self.store.open_session(
            self.name, self.spec.name if self.spec else "", backend.tool_name, self._version,
            request.program, request.args, request.cwd or os.getcwd(),
        )
        if early is not None:
            # Placed before the program ran: this is already the first stop.
            # Where each one bound is told as it is now (a debugger may bind
            # a breakpoint only once the program is loaded), counted as placed.
            snapshot = self._snapshot(event, timeout)
            now = {b.id: b for b in self.breaks.listing(backend, timeout)} if early else {}
            breakpoints = [replace(now[b.id], hits=b.hits) if b.id in now else b for b in early]
        else:
            breakpoints = self._apply_breaks(args.get("breaks", []), timeout)
            snapshot = self._snapshot(event, timeout)
            if run and snapshot.state == "stopped":
                # The entry stop is not one the user saw: nothing changed since it.
                self._frame_values.clear()
                snapshot = self._snapshot(backend.cont(timeout), timeout)
        payload = {**snapshot.to_dict(), "breakpoints": [b.to_dict() for b in breakpoints]}
        if args.get("note"):
            payload["note"] = args["note"]  # the front end's word on how it chose
        return payload

    def op_attach(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        request = AttachRequest(pid=args.get("pid"), host=args.get("host"), port=args.get("port"),
                                program=args.get("program"))
        backend = self._new_backend(args["backend"], args.get("cwd"))
        self.attach_request = request
        early: list[Breakpoint] | None = None
        if args.get("child"):
            request, early = self._child_request(request, args, timeout)
        event = backend.attach(request, timeout)
        self._version = backend.version()
        self.session_id = self.store.open_session(
            self.name, self.spec.name if self.spec else "", backend.tool_name, self._version,
            request.program or "", [], os.getcwd(),
        )
        breakpoints = (self._apply_breaks(args.get("breaks", []), timeout) if early is None
                       else early)
        return {**self._snapshot(event, timeout).to_dict(),
                "breakpoints": [b.to_dict() for b in breakpoints]}

    # -- child processes --------------------------------------------------------

    def _child_request(self, request: AttachRequest, args: dict[str, Any],
                       timeout: float) -> tuple[AttachRequest, list[Breakpoint]]:
        """A child process's session (its parent's backend started it with
        ``child``, what the debugger says of the child): the parent's
        breakpoints are placed before the child runs on, as `start --run` does."""
        early: list[Breakpoint] = []

        def place_breaks() -> None:
            early.extend(self._apply_child_breaks(args.get("breaks", []), timeout))

        # A child of a program dbg attached to is not dbg's to end either.
        options = {"child": args["child"], "attached": bool(args.get("attached"))}
        request = replace(request, pid=args.get("pid"), options=options,
                          before_run=place_breaks)
        self.attach_request = request
        return request, early

    def _apply_child_breaks(self, specs: list[Any], timeout: float) -> list[Breakpoint]:
        """The parent's breakpoints, each ``{"loc", "condition", "hit_count",
        "log_message"}``, placed as the parent has them."""
        assert self.backend is not None
        placed = []
        for spec in specs:
            if not isinstance(spec, dict):
                raise UsageError(f"bad child breakpoint {spec!r}")
            loc = BreakLoc.from_wire(spec.get("loc"))
            options = BreakOptions(condition=spec.get("condition") or None,
                                   hit_count=spec.get("hit_count") or None,
                                   log_message=spec.get("log_message") or None)
            placed.append(self.breaks.add(self.backend, loc, options, timeout))
        return placed

    def _apply_breaks(self, specs: list[Any], timeout: float) -> list[Breakpoint]:
        assert self.backend is not None
        placed = []
        for spec in specs:
            loc = BreakLoc.from_wire(spec)
            try:
                placed.append(self.breaks.add(self.backend, loc, BreakOptions(), timeout))
            except DbgError as exc:
                raise type(exc)(f"--break {loc}: {exc.message}", exc.hint) from exc
        return placed

    def op_restart(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.launch_request is None or self.spec is None:
            raise UsageError("restart needs a session started with `dbg start`",
                             "an attached session cannot be restarted; attach again")
        old = self.backend
        assert old is not None
        try:
            self.breaks.listing(old, timeout)  # forgets temporary breakpoints that fired
        except DbgError:
            pass
        old.terminate()
        backend = self._new_backend(self.spec.name, self.launch_request.cwd)
        self._new_run()
        request = self._with_stdin(self.launch_request, backend)
        # A test run goes again to its first failure, as `dbg test` did; the
        # breakpoints are set again before it runs where the backend can.
        run = request.test
        replayed: tuple[list[Breakpoint], list[dict[str, Any]]] | None = None

        def replay() -> None:
            nonlocal replayed
            replayed = self.breaks.replay(backend, timeout)

        event = backend.launch(replace(request, before_run=replay) if run else request, timeout)
        early = replayed is not None
        if replayed is None:
            replay()
        assert replayed is not None
        placed, failed = replayed
        if self.catch_filters:
            try:
                backend.catch(self.catch_filters, timeout)
            except DbgError as exc:
                failed.append({"location": "catch " + " ".join(self.catch_filters),
                               "error": exc.message})
        snapshot = self._snapshot(event, timeout)
        if run and not early and snapshot.state == "stopped":
            self._frame_values.clear()
            snapshot = self._snapshot(backend.cont(timeout), timeout)
        return {**snapshot.to_dict(), "breakpoints": [b.to_dict() for b in placed],
                "failed_breakpoints": failed}

    def _with_stdin(self, request: LaunchRequest, backend: Backend) -> LaunchRequest:
        """The request with the program's standard input: the user's file, or
        a new FIFO `dbg input` writes to (each run reads its own)."""
        if self.stdin is not None:
            self.stdin.remove()
            self.stdin = None
        if not backend.reads_stdin or request.core:
            return request
        if self.stdin_file:
            return replace(request, stdin=self.stdin_file)
        self.stdin = StdinFeed(self.run_dir)
        return replace(request, stdin=str(self.stdin.path))

    def shutdown(self) -> None:
        if self.backend is not None:
            self.backend.terminate()
        if self.stdin is not None:
            self.stdin.remove()
        if self.session_id is not None:
            self.store.end_session(self.session_id)
        self.log.close()

    # -- snapshots --------------------------------------------------------------

    def _snapshot(self, event: StopEvent, timeout: float) -> StopSnapshot:
        snapshot = StopSnapshot.from_event(event)
        stack: list[Frame] = []
        if event.hit_breakpoints and self.backend is not None:
            snapshot.hit_breakpoints = self.breaks.user_ids(self.backend,
                                                            event.hit_breakpoints, timeout)
        if event.state == "stopped" and self.backend is not None:
            self._fill(snapshot, timeout)
            try:
                stack = program_frames(self.backend.stack(None, timeout))
            except DbgError:
                stack = []
        if event.state == "stopped" and snapshot.reason in ("exception", "signal"):
            self._saw_exception = True
        if event.state == "stopped" and snapshot.reason in ("breakpoint", "condition_error"):
            self._hit_ids.update(str(i) for i in snapshot.hit_breakpoints)
            if snapshot.location is not None:
                self._hit_places.add((snapshot.location.file, snapshot.location.line))
        if event.state == "exited":
            self._tell_the_end(snapshot)
        self.last = snapshot
        if event.state != "running" and self.session_id is not None:
            data = snapshot.to_dict()
            self.store.record_stop(self.session_id, data, [f.to_dict() for f in stack])
            self.host.stop_recorded(self.name, data)
        return snapshot

    def _tell_the_end(self, snapshot: StopSnapshot) -> None:
        """What an end says besides the code: the breakpoints this run never
        stopped at, and after a failure the last lines of the program's stderr."""
        for entry in self.breaks.entries.values():
            last = entry.last
            if entry.kind != "break" or last is None or (
                    entry.options is not None and entry.options.log_message):
                continue
            if str(entry.id) in self._hit_ids or last.hits or \
                    (last.file, last.line) in self._hit_places:
                continue
            snapshot.never_hit.append(last.to_dict())
        if (snapshot.signal or snapshot.exit_code not in (0, None)) and not self._saw_exception:
            # (After an exception stop the user has seen why; the end need not say it again.)
            text = "".join(c["text"] for c in self.output.read(
                self._run_cursor, {"stderr"}, 100_000)["chunks"])
            snapshot.stderr_tail = tail_lines(text, STDERR_TAIL_LINES, STDERR_TAIL_CHARS)

    def _new_run(self) -> None:
        """A run of the program begins (start, restart): nothing hit yet."""
        self._hit_ids.clear()
        self._hit_places.clear()
        self._saw_exception = False
        self._run_cursor = self.output.cursor

    def _fill(self, snapshot: StopSnapshot, timeout: float) -> None:
        """Source, locals (arranged for reading), watch changes and the
        expressions asked for, at a stop."""
        assert self.backend is not None
        backend = self.backend
        loc = snapshot.location
        line_text = ""
        if loc is not None and loc.file and loc.line:
            snapshot.source = [SourceLine(n, text, n == loc.line)
                               for n, text in source_window(loc.file, loc.line, 2, 2)]
            line_text = next((s.text for s in snapshot.source if s.current), "")
        try:
            variables = backend.locals(timeout)
            depth = len(backend.stack(None, timeout))
        except DbgError:
            variables, depth = [], 0
        key = (loc.file if loc else None, loc.function if loc else None, depth)
        previous = self._frame_values.pop(key, None)
        snapshot.locals, snapshot.locals_more = arrange(
            variables, line_text, previous, lambda v: backend.fields(v, timeout))
        snapshot.locals_truncated = snapshot.locals_more > 0 or any(
            v.cut is not None for v in snapshot.locals)
        self._frame_values[key] = {v.name: v.value for v in variables}
        while len(self._frame_values) > 64:
            self._frame_values.pop(next(iter(self._frame_values)))
        snapshot.watch = self._watch_changes(snapshot.reason == "watchpoint", timeout)
        # `--show 'a; b'` is two expressions, as `dbg print 'a; b'` is.
        shown_here = [e for text in self._show if text.strip()
                      for e in split_expressions(one_line(text))]
        wanted = [e for _, e in self.displays] + shown_here
        if wanted:
            shown = self.evaluate_each(wanted, timeout)
            for row, (number, _) in zip(shown, self.displays, strict=False):
                row["display"] = number
            snapshot.shown = shown

    def _watch_changes(self, at_watch: bool, timeout: float) -> list[dict[str, Any]]:
        """Each watch's value now; at a watchpoint stop, those that changed."""
        assert self.backend is not None
        changes = []
        for entry in self.breaks.entries.values():
            if entry.kind != "watch" or not entry.expression:
                continue
            try:
                now: str | None = self.backend.evaluate(entry.expression, timeout).value
            except DbgError:
                now = None  # out of scope here: keep the last value seen
            if now is None:
                continue
            if at_watch and now != entry.value:
                changes.append({"id": entry.id, "expression": entry.expression,
                                "old": entry.value, "new": now})
            entry.value = now
        return changes

    def record_command(self, op: str, args: dict[str, Any], ok: bool,
                       result: dict[str, Any]) -> None:
        if self.session_id is not None:
            self.store.record_command(self.session_id, op, args, ok, result)

    # -- breakpoints -------------------------------------------------------------

    def op_break(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        loc = BreakLoc.from_wire(args["location"])
        hit = args.get("hit")
        if hit is not None and (not isinstance(hit, int) or hit < 1):
            raise UsageError("--hit must be 1 or more")
        options = BreakOptions(condition=_optional_line(args.get("condition"), "--if"),
                               hit_count=hit,
                               log_message=_optional_line(args.get("log"), "--log"),
                               temporary=bool(args.get("temp")))
        return {"breakpoint": self.breaks.add(self.backend, loc, options, timeout).to_dict()}

    def op_unbreak(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        if args.get("id") is not None:
            wanted = args["id"]
            if isinstance(wanted, bool) or not isinstance(wanted, int):
                raise UsageError("unbreak takes a breakpoint id or a location")
            self.breaks.listing(self.backend, timeout)
            self.breaks.require([wanted])
            ids = [wanted]
        else:
            loc = BreakLoc.from_wire(args.get("location"))
            ids = self.breaks.matching(self.backend, loc, timeout)
            if not ids:
                raise OpFailed(f"no breakpoint matches {loc}", "list them with `dbg breaks`")
        return {"removed": [b.to_dict() for b in self.breaks.remove(self.backend, ids, timeout)]}

    def op_breaks(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return {"breakpoints": [b.to_dict() for b in self.breaks.listing(self.backend, timeout)]}

    def op_watch(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        expression = one_line(args["expression"])
        bp = self.breaks.watch(self.backend, expression, timeout)
        entry = self.breaks.entries.get(int(bp.id)) if isinstance(bp.id, int) else None
        if entry is not None:
            try:
                entry.value = self.backend.evaluate(expression, timeout).value
            except DbgError:
                entry.value = None
        return {"breakpoint": bp.to_dict()}

    def op_catch(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        filters = list(args.get("filters", []))
        if args.get("all_code"):
            filters.append("all-code")  # a filter of the backend's, kept for restart too
        self.catch_filters = self.backend.catch(filters, timeout)
        return {"filters": self.catch_filters}

    # -- execution ----------------------------------------------------------------

    def _run(self, event: StopEvent, timeout: float) -> dict[str, Any]:
        return self._snapshot(event, timeout).to_dict()

    def op_continue(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return self._run(self.backend.cont(timeout), timeout)

    def op_step(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return self._run(self.backend.step(timeout), timeout)

    def op_next(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        return self._run(self.backend.next(timeout), timeout)

    def op_finish(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        frames = program_frames(self.backend.stack(None, timeout))
        selected = next((f for f in frames if f.current), frames[0] if frames else None)
        if selected is not None and selected.index >= len(frames) - 1:
            raise OpFailed(f"finish: frame #{selected.index} ({selected.function or '?'}) is the "
                           "outermost frame; it has no caller to return to",
                           "`dbg continue` runs to the end; `dbg next` steps on")
        return self._run(self.backend.finish(timeout), timeout)

    def op_until(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        loc = BreakLoc.from_wire(args["location"]) if args.get("location") else None
        if loc is not None and loc.line is not None:
            self._refuse_behind(loc, timeout)
        return self._run(self.backend.until(loc, timeout), timeout)

    def _refuse_behind(self, loc: BreakLoc, timeout: float) -> None:
        """`until` runs forward: a line at or behind the current one, in the
        same function, is refused before anything runs."""
        assert self.backend is not None and loc.line is not None
        frames = self.backend.stack(None, timeout)
        here = next((f for f in frames if f.current), frames[0] if frames else None)
        if here is None or not here.file or not here.line or loc.line > here.line:
            return
        if loc.file is not None and not suffix_matches(loc.file, [here.file]) and \
                os.path.realpath(loc.file) != os.path.realpath(here.file):
            return
        span = function_span(here.file, here.line)
        if span is None or not span[0] <= loc.line <= span[1]:
            return
        where = "the current line" if loc.line == here.line else f"behind line {here.line}"
        raise OpFailed(f"until runs forward: line {loc.line} is {where} in "
                       f"{here.function or 'this function'}",
                       f"to stop there on a later pass: `dbg break {loc}` then `dbg continue`")

    def op_pause(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        state = self.backend.state()
        if state == "stopped" and self.last is not None:
            return {**self.last.to_dict(), "note": "the target was already stopped"}
        if state == "exited":
            raise TargetExited("the program has exited", "run it again with `dbg restart`")
        return self._run(self.backend.pause(timeout), timeout)

    def op_wait(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.backend is not None
        if self.backend.state() != "running" and (self.last is None
                                                   or self.last.state != "running"):
            assert self.last is not None
            return self.last.to_dict()
        event = self.backend.poll(timeout)
        if event is None:
            return StopSnapshot(state="running").to_dict()
        return self._run(event, timeout)

    def op_status(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        problem = ""
        try:
            self._refresh(timeout)
        except DbgError as exc:
            # Status must still answer when the debugger is gone; say why instead.
            problem = exc.message
        info = self.describe()
        if problem:
            info["problem"] = problem
        info["breakpoints"] = len(self.breaks.entries)
        info["output_cursor"] = self.output.cursor
        return info

    def op_input(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send a line (and/or the end of file) to the program's stdin. On a
        running program, then wait for its next stop like `dbg wait`."""
        assert self.backend is not None
        payload = self.send_input(args)
        if self.backend.state() == "running" or (self.last is not None
                                                 and self.last.state == "running"):
            event = self.backend.poll(timeout)
            stop = (StopSnapshot(state="running") if event is None
                    else self._snapshot(event, timeout))
            return {**stop.to_dict(), "input": payload}
        return payload

    def send_input(self, args: dict[str, Any]) -> dict[str, Any]:
        """Write ``text`` (a line) and/or close the program's stdin; safe to
        call while another op waits for the program (`dbg input` from a
        second client)."""
        assert self.backend is not None
        text, eof = args.get("text"), bool(args.get("eof"))
        if text is None and not eof:
            raise UsageError("input needs TEXT, or --eof to close the program's stdin")
        if self.stdin is None:
            if self.stdin_file:
                raise OpFailed(f"the program reads its stdin from {self.stdin_file} "
                               "(`dbg start --stdin`)", "start without --stdin to send lines")
            raise self.backend.unsupported("input", self.backend.unsupported_hints.get("stdin")
                                           or _NO_STDIN)
        if self.backend.state() == "exited":
            raise TargetExited("the program has exited", "run it again with `dbg restart`")
        sent = 0
        if text is not None:
            if any(c in text for c in "\r\n\0"):
                raise UsageError("input takes one line", "send one `dbg input` per line")
            try:
                sent = self.stdin.write((text + "\n").encode("utf-8"))
            except BlockingIOError:
                raise OpFailed("the program's stdin is full: it has not read the 64 KiB "
                               "already sent", "let it run (`dbg continue`) first") from None
            except ValueError:
                raise OpFailed("the program's stdin is closed (`dbg input --eof`)",
                               "`dbg restart` runs it again with a new one") from None
        if eof:
            self.stdin.close()
        return {"sent": sent, "closed": self.stdin.closed, "unread": self.stdin.pending()}

    def prompt(self) -> str:
        """What the program printed last, as it waits for input (its prompt):
        the unfinished last line of its output, else its last line."""
        chunks = self.output.read(max(self._run_cursor, self.output.cursor - 20),
                                  {"stdout", "stderr"}, 20)["chunks"]
        text = "".join(c["text"] for c in chunks)[-PROMPT_CHARS:]
        head, _, last = text.rpartition("\n")
        return last or head.rpartition("\n")[2]

    def waiting_for_input(self) -> bool:
        """Whether the program is blocked reading the stdin dbg feeds it."""
        if self.stdin is None or self.stdin.closed or self.stdin.pending():
            return False
        return waiting_for_stdin(descendants(os.getpid()), self.stdin.path)

    def op_tool(self, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        return {"backend": self.spec.name if self.spec else None, **self.via()}


#: Ops that still mean something once the program has ended (they read
#: what the session kept, start it again, or, `wait`, answer with the end);
#: every other op is refused
#: then with `target_exited`, whatever the debugger would have said.
AFTER_THE_END = frozenset({"status", "output", "breaks", "unbreak", "display", "undisplay",
                           "list", "tool", "restart", "input", "wait"})

#: Ops a core dump refuses (`dbg start --core`): each would run or change a
#: program that no longer exists.
POST_MORTEM_REFUSED = frozenset({"continue", "step", "next", "finish", "until", "pause",
                                 "restart", "set", "input", "break", "watch", "catch"})

#: Why a backend cannot open a core file (its own hint first).
_NO_CORE = ("a core file is the memory of a crashed compiled program (C, C++, Rust, Go); "
            "`dbg caps` lists the backends that open one (row core)")

#: Why a backend cannot give the program its standard input (its own hint first).
_NO_STDIN = ("this debugger gives the program no stdin of dbg's; have the program read "
             "a file, or start it yourself with its input and `dbg attach` to it")


#: How much of the program's last output line shows as its prompt.
PROMPT_CHARS = 200

#: How much of the program's stderr an end after a failure shows.
STDERR_TAIL_LINES = 12
STDERR_TAIL_CHARS = 2000


def tail_lines(text: str, lines: int, chars: int) -> list[str]:
    """The last ``lines`` non-empty lines of ``text``, at most ``chars`` in all
    (a line longer than that keeps its end)."""
    kept: list[str] = []
    size = 0
    for line in reversed(text.splitlines()):
        if not line.strip():
            continue
        if size + len(line) > chars:
            if not kept:
                kept.append("..." + line[-(chars - 3):])
            break
        kept.append(line)
        size += len(line)
        if len(kept) == lines:
            break
    return kept[::-1]


def _optional_line(text: Any, option: str) -> str | None:
    if text is None:
        return None
    if not isinstance(text, str) or not text.strip() or any(c in text for c in "\r\n\0"):
        raise UsageError(f"{option} takes one non-empty line")
    return text


def _loc_dict(snapshot: StopSnapshot) -> dict[str, Any]:
    loc = snapshot.location
    assert loc is not None
    return {"file": loc.file, "line": loc.line, "function": loc.function}
