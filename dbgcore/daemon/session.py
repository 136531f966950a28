"""One debugging session inside the daemon: the backend, its breakpoints, and
the rules every backend shares (stop snapshots, state checks, recording).

Ops arrive here as ``(op, args, timeout)`` from the daemon's worker thread, one
at a time, and return a JSON-ready payload or raise a DbgError.
:meth:`Session.handle` applies the rules the op's declaration asks for
(:mod:`dbgcore.ops.table`) and calls its handler (in its op group, such as
:mod:`dbgcore.ops.breakpoints`), or the backend's method for an op a plugin's backend answers.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from dbgcore.backends.contract import (
    AttachRequest,
    Backend,
    BackendSpec,
    LaunchRequest,
    SessionContext,
)
from dbgcore.daemon.breaktable import BreakTable
from dbgcore.daemon.snapshot import arrange
from dbgcore.lang.rules import runner_temporary, split_expressions
from dbgcore.lang.sourcetext import source_window
from dbgcore.ops.inspecting import SHOWN_VALUE_CHARS, one_line, program_frames
from dbgcore.shared.errors import DbgError, NotStopped, OpFailed, TargetExited, UsageError
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.procutil import descendants
from dbgcore.store.db import Store
from dbgcore.transport.outputbuffer import OutputBuffer
from dbgcore.transport.streams import StdinFeed, waiting_for_stdin
from dbgcore.transport.translog import LogHealth, TransLog
from dbgcore.vocab.model import Frame, SourceLine, StopEvent, StopSnapshot

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front
    from dbgcore.transport.early import EarlyProcesses
    from dbgcore.vocab.opspec import Op, Payload


class Session:
    def __init__(self, name: str, run_dir: Path, front: Front, store: Store,
                 track_process: Callable[[int, str], None], early: EarlyProcesses,
                 log_health: LogHealth | None = None) -> None:
        """``early``: the debugger spawned before its backend asked for it
        (by the daemon's maker) or ahead of a restart, handed to each
        backend's transport."""
        self.name = name
        self.run_dir = run_dir
        #: The daemon's op table and backends (their plugin host is told of
        #: each recorded stop).
        self.front = front
        self.store = store
        self.output = OutputBuffer()
        #: Whether the session's logs can be written (a full disk).
        self.log_health = log_health or LogHealth()
        self.log = TransLog(run_dir / "debugger.log", health=self.log_health)
        self.track_process = track_process
        self.early = early
        self.backend: Backend | None = None
        self.spec: BackendSpec | None = None
        self.launch_request: LaunchRequest | None = None
        self.attach_request: AttachRequest | None = None
        self.breaks = BreakTable()
        #: The last `dbg catch` filters, so restart can ask again.
        self.catch_filters: list[str] = []
        self.session_id: int | None = None
        #: This run of the program in the store (start, restart...; 0: none
        #: recorded yet, opened with the run's first recorded stop).
        self.run_id = 0
        self.last: StopSnapshot | None = None
        #: The stop a restart's debugger was last spawned ahead for (restart_ahead).
        self._ahead_of: StopSnapshot | None = None
        #: The debugger's version, for ``[via TOOL VERSION]``.
        self.version = ""
        #: Expressions `--show` asks for at the stop the current op makes.
        self._show: list[str] = []
        self.displays: list[tuple[int, str]] = []
        #: The number the next `dbg display` expression gets.
        self.display_ids = 1
        #: Each frame's locals at its previous stop, to mark what changed.
        self.frame_values: dict[tuple[str | None, str | None, int], dict[str, str]] = {}
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
        #: The backend whose program ended without it saying so (killed
        #: while stopped, see Backend.ended_unseen): its state is "exited".
        self._ended_under: Backend | None = None

    # -- identity ------------------------------------------------------------

    def via(self) -> dict[str, str]:
        if self.backend is None:
            return {"tool": "dbg", "version": ""}
        return {"tool": self.backend.tool_name, "version": self.version}

    def describe(self) -> JsonObject:
        program = ""
        if self.launch_request is not None:
            program = self.launch_request.program
        elif self.attach_request is not None:
            attached = self.attach_request
            program = attached.program or (f"pid {attached.pid}" if attached.pid is not None
                                           else f"{attached.host or '127.0.0.1'}:{attached.port}")
        state = self.state() if self.backend is not None else "starting"
        info: JsonObject = {
            "name": self.name,
            "backend": self.spec.name if self.spec else None,
            "tool": self.via()["tool"],
            "version": self.version,
            "state": state,
            "program": program,
        }
        if self.last is not None and self.last.location is not None and state == "stopped":
            info["location"] = _loc_dict(self.last)
        if self.backend is not None and state in ("stopped", "running"):
            # The program's own processes: what `dbg profile` in a live
            # session, or the user's own tools, attach to.
            pids = [p for p in self.backend.program_pids() if p > 0]
            if not pids and self.attach_request is not None and self.attach_request.pid:
                pids = [self.attach_request.pid]
            if pids:
                info["pids"] = pids
        if self.launch_request is not None and self.launch_request.core:
            info["core"] = self.launch_request.core  # post mortem
        if state == "exited" and self.last is not None:
            info["exit_code"] = self.last.exit_code
            if self.last.signal:
                info["signal"] = self.last.signal
        if self.backend is not None and self.backend.lost is not None:
            info["problem"] = self.backend.lost.message
        logs = self.log_health.problem()
        if logs:
            info["logs"] = logs
        if state == "running" and self.waiting_for_input():
            info["waiting_for_input"] = True
            info["prompt"] = self.prompt()
        return info

    def state(self) -> str:
        """The program's state, or "debugger_lost" once the debugger died."""
        assert self.backend is not None
        if self.backend.lost is not None:
            return "debugger_lost"
        return "exited" if self.backend is self._ended_under else self.backend.state()

    # -- dispatch -------------------------------------------------------------

    def handle(self, op: str, args: Payload, timeout: float) -> Payload:
        spec = self.front.table.find(op)
        if spec is None or spec.name != op:
            raise UsageError(f"unknown op {op!r}", "see `dbg --help`")
        if spec.send != "start" and self.backend is None:
            raise UsageError("the session has no program yet", "use dbg start PROGRAM")
        if self.backend is not None and spec.send != "start" \
                and not spec.lost_ok and self.state() == "debugger_lost":
            assert self.backend.lost is not None
            raise self.backend.lost
        if not spec.core_ok and self.launch_request is not None \
                and self.launch_request.core:
            raise OpFailed(f"cannot {op}: the program is a core dump, a snapshot of its "
                           "memory when it died", "a core file is a snapshot: `dbg start "
                           "PROGRAM` runs it; stack, frame, locals, print look around")
        if spec.send != "start" and spec.checked:
            end = self.refresh(timeout)
            if end is not None and spec.group == "execution" and not spec.ended_ok:
                # The program died before this execution command could run
                # it: what it ran into is the end, said as any end is.
                return end.to_dict()
            if spec.needs == "stopped" or (not spec.ended_ok and self.state() == "exited"):
                self._check_state(spec)
        if spec.handler is None:
            return self._backend_op(spec, args, timeout)
        self._show = list(args.get("show") or []) if spec.stops else []
        try:
            payload = spec.handler(self, args, timeout)
        finally:
            self._show = []
        notes = [*self.store.take_notes(), *self.log_health.take_notes()]
        if notes:
            payload["note"] = "; ".join([payload["note"], *notes] if payload.get("note") else notes)
        return payload

    def _backend_op(self, spec: Op, args: Payload, timeout: float) -> Payload:
        """An op the backend answers itself: a plugin's, by the method its
        declaration names (refused by a backend without it), or else by the
        backend's ``op_<name>`` method."""
        assert self.backend is not None
        if spec.method_name is not None:
            if not hasattr(type(self.backend), spec.method_name):
                raise self.backend.unsupported(spec.name)
            answer: Payload = getattr(self.backend, spec.method_name)(args, timeout)
            return answer
        extension = self.backend.extension_op(spec.name)
        if extension is None:
            raise self.backend.unsupported(spec.name)
        return extension(args, timeout)

    def _check_state(self, spec: Op) -> None:
        op = spec.name
        if self.backend is None:
            return
        state = self.state()
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
            if spec.group == "breakpoints":
                hint += ", which sets the session's breakpoints again; then this one"
            raise TargetExited(f"{op} needs a live target, and the program {how}", hint)

    def refresh(self, timeout: float) -> StopSnapshot | None:
        """A target left running by a timed-out op may have stopped since.
        Asked whenever the last answer said "running": a backend whose events
        arrive on their own (DAP) may already be stopped, with the stop unseen.
        A stopped program may have been killed meanwhile (see
        :meth:`Backend.ended_unseen`). Returns the end found now, if any."""
        backend = self.backend
        if backend is None or backend.lost is not None or backend is self._ended_under:
            return None
        if backend.state() == "running" or (self.last is not None
                                            and self.last.state == "running"):
            event = backend.poll(0)
            if event is not None:
                self.snapshot(event, timeout)
        if backend.state() not in ("stopped", "exited") or self.last is None \
                or self.last.state == "exited":
            return None
        ended = backend.ended_unseen(timeout)
        if ended is None:
            return None
        self._ended_under = backend
        return self.snapshot(ended, timeout)

    # -- starting --------------------------------------------------------------

    def new_backend(self, backend_name: str, cwd: str | None) -> Backend:
        """A backend of ``backend_name`` for this session (replacing any before)."""
        spec, cls = self.front.backends.ready(backend_name, Path(cwd) if cwd else None)
        # A start that named no backend: which one was chosen, for the next
        # such start's early spawn of its debugger.
        self.early.chosen(spec.name)
        # The backend the first spare daemon of the next `dbg mcp` is for.
        self.early.started(spec.name)
        ctx = SessionContext(
            name=self.name, run_dir=self.run_dir, output=self.output, log=self.log,
            track_process=self.track_process,
            op_titles={op.name: op.title for op in self.front.table}, early=self.early,
        )
        self.spec = spec
        backend = cls(spec, ctx)
        self.backend = backend
        return backend

    def restart_ahead(self) -> None:
        """Where a rerun is likely, the program stopped at a failure (a
        failing test, an uncaught exception): the debugger a `dbg restart`
        spawns is spawned now, while the user looks (dbgcore.transport.early)."""
        last, request = self.last, self.launch_request
        if self.spec is None or request is None or last is None or last is self._ahead_of \
                or last.state != "stopped" or last.reason != "exception":
            return
        self._ahead_of = last  # once a stop: the ops that look at it ask no more
        self.early.spawn_ahead(self.spec.name, os.path.abspath(request.cwd or os.getcwd()))

    # -- child processes --------------------------------------------------------

    def shutdown(self) -> None:
        if self.backend is not None:
            self.backend.terminate()
        if self.stdin is not None:
            self.stdin.remove()
        if self.session_id is not None:
            self.store.end_session(self.session_id)
        self.log.close()

    # -- snapshots --------------------------------------------------------------

    def snapshot(self, event: StopEvent, timeout: float) -> StopSnapshot:
        snapshot = StopSnapshot.from_event(event)
        stack: list[Frame] = []
        if event.hit_breakpoints and self.backend is not None:
            snapshot.hit_breakpoints = self.breaks.user_ids(self.backend,
                                                            event.hit_breakpoints, timeout)
        if event.state == "stopped" and self.backend is not None:
            frames = self._fill(snapshot, timeout)
            try:
                # The stack _fill read for the frame's depth, not asked again
                # (a console debugger answers each ask with a round trip).
                stack = program_frames(frames if frames is not None
                                       else self.backend.stack(None, timeout))
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
            self.store.record_stop(self.session_id, data, [f.to_dict() for f in stack],
                                   self.current_run())
            if event.state == "exited":
                self.store.end_run(self.run_id, snapshot.exit_code, snapshot.signal)
            self.front.host.stop_recorded(self.name, data)
        return snapshot

    def current_run(self) -> int:
        """This run's id in the store, opened now if it has none yet."""
        if not self.run_id and self.session_id is not None:
            request = self.launch_request
            program = request.program if request is not None else \
                self.describe().get("program") or ""
            self.run_id = self.store.open_run(self.session_id, str(program),
                                              list(request.args) if request else [],
                                              replays=request.replays if request else None)
        return self.run_id

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
            text = self.output.text(self._run_cursor, {"stderr"}, 100_000)
            snapshot.stderr_tail = tail_lines(text, STDERR_TAIL_LINES, STDERR_TAIL_CHARS)

    def new_run(self) -> None:
        """A run of the program begins (start, restart): nothing hit yet."""
        self.run_id = 0
        self._hit_ids.clear()
        self._hit_places.clear()
        self._saw_exception = False
        self._run_cursor = self.output.cursor

    def _fill(self, snapshot: StopSnapshot, timeout: float) -> list[Frame] | None:
        """Source, locals (arranged for reading), watch changes and the
        expressions asked for, at a stop; the stack as it read it (None
        when the debugger did not give it)."""
        assert self.backend is not None
        backend = self.backend
        loc = snapshot.location
        line_text = ""
        if loc is not None and loc.file and loc.line:
            snapshot.source = [SourceLine(n, text, n == loc.line)
                               for n, text in source_window(loc.file, loc.line, 2, 2)]
            line_text = next((s.text for s in snapshot.source if s.current), "")
        frames: list[Frame] | None = None
        try:
            variables = [v for v in backend.locals(timeout) if not runner_temporary(v.name)]
            frames = backend.stack(None, timeout)
            depth = len(frames)
        except DbgError:
            variables, depth = [], 0
        key = (loc.file if loc else None, loc.function if loc else None, depth)
        previous = self.frame_values.pop(key, None)
        snapshot.locals, snapshot.locals_more = arrange(
            variables, line_text, previous, lambda v: backend.fields(v, timeout))
        snapshot.locals_truncated = snapshot.locals_more > 0 or any(
            v.cut is not None for v in snapshot.locals)
        self.frame_values[key] = {v.name: v.value for v in variables}
        while len(self.frame_values) > 64:
            self.frame_values.pop(next(iter(self.frame_values)))
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
        return frames

    def frame_key(self, timeout: float) -> tuple[str | None, str | None, int] | None:
        """The selected frame's (file, function, depth from the outermost
        frame), as a watch's scope is kept (None: the stack cannot be read)."""
        assert self.backend is not None
        try:
            frames = self.backend.stack(None, timeout)
        except DbgError:
            return None
        if not frames:
            return None
        frame = next((f for f in frames if f.current), frames[0])
        return frame.file, frame.function, len(frames) - frame.index

    def _watch_changes(self, at_watch: bool, timeout: float) -> list[JsonObject]:
        """Each watch's value now; at a watchpoint stop, those that changed.
        At another stop, a watch is read only in the frame it was set in:
        elsewhere its name may be another frame's variable, whose value
        would be shown as the old one at the watch's next stop."""
        assert self.backend is not None
        changes = []
        watches = [e for e in self.breaks.entries.values() if e.kind == "watch" and e.expression]
        here = None if at_watch or not any(e.scope for e in watches) else \
            self.frame_key(timeout)
        for entry in watches:
            assert entry.expression is not None
            if entry.scope is not None and here is not None and entry.scope != here:
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

    def evaluate_each(self, expressions: list[str], timeout: float) -> list[Payload]:
        """Each expression's value, or the reason it has none."""
        assert self.backend is not None
        out: list[Payload] = []
        for expression in expressions:
            try:
                value = self.backend.evaluate(expression, timeout)
            except DbgError as exc:
                out.append({"expression": expression, "error": exc.message})
                if exc.kind not in ("failed", "usage"):
                    break  # the debugger is gone or wedged: do not ask again
                continue
            row = {"expression": expression, **value.to_dict()}
            if len(row["value"]) > SHOWN_VALUE_CHARS:
                row["value"] = row["value"][: SHOWN_VALUE_CHARS - 3] + "..."
            out.append(row)
        return out

    def record_command(self, op: str, args: JsonObject, ok: bool,
                       result: JsonObject, by: str | None = None) -> None:
        if self.session_id is not None:
            self.store.record_command(self.session_id, op, args, ok, result, by)

    # -- breakpoints -------------------------------------------------------------

    # -- execution ----------------------------------------------------------------

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
        # A debugger that runs the program detached from itself (ocamldebug
        # forks twice) names its processes: they are not the daemon's.
        named = self.backend.program_pids() if self.backend is not None else []
        return waiting_for_stdin([*descendants(os.getpid()), *named], self.stdin.path)


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


def _loc_dict(snapshot: StopSnapshot) -> JsonObject:
    loc = snapshot.location
    assert loc is not None
    return {"file": loc.file, "line": loc.line, "function": loc.function}


if TYPE_CHECKING:
    from dbgcore.ops.opsession import OpSession

    #: The op handlers see a session as an OpSession: mypy holds the two together.
    _AS_OPS_SEE_IT: type[OpSession] = Session
