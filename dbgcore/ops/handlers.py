"""The daemon's side of each op: a function ``(session, args, timeout) ->
payload`` that the op table (:mod:`dbgcore.ops.table`) names as the op's
``handler``. Each reads the session's state and calls its backend through
:class:`dbgcore.daemon.session.Session`'s public methods; the rules every op shares
(state checks, `--show`, notes) are :meth:`Session.handle`'s.

Kept light: the op table, which every front end imports, holds these
functions, so what only an op's body needs is imported in that body.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from dbgcore.lang.sourcefind import suffix_matches
from dbgcore.ops import stacks
from dbgcore.shared.bounds import number_or_name
from dbgcore.shared.errors import (
    DbgError,
    NotStopped,
    OpFailed,
    TargetExited,
    UnsupportedOp,
    UsageError,
)
from dbgcore.shared.jsontypes import Json

if TYPE_CHECKING:
    from dbgcore.backends.contract import AttachRequest, Backend, LaunchRequest
    from dbgcore.daemon.session import Session
    from dbgcore.vocab.model import BreakLoc, Breakpoint, Frame, StopEvent
    from dbgcore.vocab.opspec import Payload

#: Why a backend cannot open a core file (its own hint first).
_NO_CORE = ("a core file is the memory of a crashed compiled program (C, C++, Rust, Go); "
            "`dbg caps` lists the backends that open one (row core)")

#: Why a backend cannot give the program its standard input (its own hint first).
_NO_STDIN = ("this debugger gives the program no stdin of dbg's; have the program read "
             "a file, or start it yourself with its input and `dbg attach` to it")


# -- sessions ----------------------------------------------------------------------------------


def start(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.backends.contract import LaunchRequest

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
    backend = session.new_backend(args["backend"], request.cwd)
    if request.core and not backend.opens_cores:
        raise UnsupportedOp("core files", backend.tool_name,
                            backend.unsupported_hints.get("core") or _NO_CORE)
    session.stdin_file = args.get("stdin") or None
    if session.stdin_file and not backend.reads_stdin:
        raise backend.unsupported("stdin", backend.unsupported_hints.get("stdin")
                                  or _NO_STDIN)
    session.launch_request = request
    request = _with_stdin(session, request, backend)
    early: list[Breakpoint] | None = None

    def place_breaks() -> None:
        nonlocal early
        early = _apply_breaks(session, args.get("breaks", []), timeout)

    run = bool(args.get("run"))
    session.new_run()
    event = backend.launch(replace(request, before_run=place_breaks) if run else request,
                           timeout)
    session.version = backend.version()
    session.session_id = session.store.open_session(
        session.name, session.spec.name if session.spec else "", backend.tool_name, session.version,
        request.program, request.args, request.cwd or os.getcwd(),
    )
    if early is not None:
        # Placed before the program ran: this is already the first stop.
        # Where each one bound is told as it is now (a debugger may bind
        # a breakpoint only once the program is loaded), counted as placed.
        snapshot = session.snapshot(event, timeout)
        now = {b.id: b for b in session.breaks.listing(backend, timeout)} if early else {}
        breakpoints = [replace(now[b.id], hits=b.hits) if b.id in now else b for b in early]
    else:
        breakpoints = _apply_breaks(session, args.get("breaks", []), timeout)
        snapshot = session.snapshot(event, timeout)
        if run and snapshot.state == "stopped":
            # The entry stop is not one the user saw: nothing changed since it.
            session.frame_values.clear()
            snapshot = session.snapshot(backend.cont(timeout), timeout)
    payload = {**snapshot.to_dict(), "breakpoints": [b.to_dict() for b in breakpoints],
               "run": session.current_run()}
    if args.get("note"):
        payload["note"] = args["note"]  # the front end's word on how it chose
    return payload


def _apply_breaks(session: Session, specs: list[Json], timeout: float) -> list[Breakpoint]:
    from dbgcore.vocab.model import BreakLoc, BreakOptions

    assert session.backend is not None
    placed = []
    for spec in specs:
        loc = BreakLoc.from_wire(spec)
        try:
            placed.append(session.breaks.add(session.backend, loc, BreakOptions(), timeout))
        except DbgError as exc:
            raise type(exc)(f"--break {loc}: {exc.message}", exc.hint) from exc
    return placed


def _with_stdin(session: Session, request: LaunchRequest, backend: Backend) -> LaunchRequest:
    """The request with the program's standard input: the user's file, or
    a new FIFO `dbg input` writes to (each run reads its own)."""
    from dbgcore.transport.streams import StdinFeed

    if session.stdin is not None:
        session.stdin.remove()
        session.stdin = None
    if not backend.reads_stdin or request.core:
        return request
    if session.stdin_file:
        return replace(request, stdin=session.stdin_file)
    session.stdin = StdinFeed(session.run_dir)
    return replace(request, stdin=str(session.stdin.path))


def attach(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.backends.contract import AttachRequest

    request = AttachRequest(pid=args.get("pid"), host=args.get("host"), port=args.get("port"),
                            program=args.get("program"))
    backend = session.new_backend(args["backend"], args.get("cwd"))
    session.attach_request = request
    early: list[Breakpoint] | None = None
    if args.get("child"):
        request, early = _child_request(session, request, args, timeout)
    event = backend.attach(request, timeout)
    session.version = backend.version()
    session.session_id = session.store.open_session(
        session.name, session.spec.name if session.spec else "", backend.tool_name, session.version,
        request.program or "", [], os.getcwd(),
    )
    breakpoints = (_apply_breaks(session, args.get("breaks", []), timeout) if early is None
                   else early)
    return {**session.snapshot(event, timeout).to_dict(),
            "breakpoints": [b.to_dict() for b in breakpoints], "run": session.current_run()}


def _child_request(session: Session, request: AttachRequest, args: Payload,
                   timeout: float) -> tuple[AttachRequest, list[Breakpoint]]:
    """A child process's session (its parent's backend started it with
    ``child``, what the debugger says of the child): the parent's
    breakpoints are placed before the child runs on, as `start --run` does."""
    early: list[Breakpoint] = []

    def place_breaks() -> None:
        early.extend(_apply_child_breaks(session, args.get("breaks", []), timeout))

    # A child of a program dbg attached to is not dbg's to end either.
    options = {"child": args["child"], "attached": bool(args.get("attached"))}
    request = replace(request, pid=args.get("pid"), options=options,
                      before_run=place_breaks)
    session.attach_request = request
    return request, early


def _apply_child_breaks(session: Session, specs: list[Json], timeout: float) -> list[Breakpoint]:
    """The parent's breakpoints, each ``{"loc", "condition", "hit_count",
    "log_message"}``, placed as the parent has them."""
    from dbgcore.vocab.model import BreakLoc, BreakOptions

    assert session.backend is not None
    placed = []
    for spec in specs:
        if not isinstance(spec, dict):
            raise UsageError(f"bad child breakpoint {spec!r}")
        loc = BreakLoc.from_wire(spec.get("loc"))
        options = BreakOptions(condition=spec.get("condition") or None,
                               hit_count=spec.get("hit_count") or None,
                               log_message=spec.get("log_message") or None)
        placed.append(session.breaks.add(session.backend, loc, options, timeout))
    return placed


def restart(session: Session, args: Payload, timeout: float) -> Payload:
    if session.launch_request is None or session.spec is None:
        raise UsageError("restart needs a session started with `dbg start`",
                         "an attached session cannot be restarted; attach again")
    old = session.backend
    assert old is not None
    try:
        session.breaks.listing(old, timeout)  # forgets temporary breakpoints that fired
    except DbgError:
        pass
    old.terminate()
    backend = session.new_backend(session.spec.name, session.launch_request.cwd)
    session.new_run()
    request = _with_stdin(session, session.launch_request, backend)
    # A test run goes again to its first failure, as `dbg test` did; the
    # breakpoints are set again before it runs where the backend can.
    run = request.test
    replayed: tuple[list[Breakpoint], list[Payload]] | None = None

    def replay() -> None:
        nonlocal replayed
        replayed = session.breaks.replay(backend, timeout)
        # The catch with them: a test run's replay comes before the program
        # runs on, and after that it could raise what is caught unseen.
        if session.catch_filters:
            try:
                backend.catch(session.catch_filters, timeout)
            except DbgError as exc:
                replayed[1].append({"location": "catch " + " ".join(session.catch_filters),
                                    "error": exc.message})

    try:
        event = backend.launch(replace(request, before_run=replay) if run else request, timeout)
    except BaseException:
        # Half launched (a full disk refused a file of its start): nothing
        # of it runs on, and the session says its program has ended, where
        # another `dbg restart` tries again.
        backend.terminate()
        raise
    early = replayed is not None
    if replayed is None:
        replay()
    assert replayed is not None
    placed, failed = replayed
    snapshot = session.snapshot(event, timeout)
    if run and not early and snapshot.state == "stopped":
        session.frame_values.clear()
        snapshot = session.snapshot(backend.cont(timeout), timeout)
    return {**snapshot.to_dict(), "breakpoints": [b.to_dict() for b in placed],
            "failed_breakpoints": failed, "run": session.current_run()}


def status(session: Session, args: Payload, timeout: float) -> Payload:
    problem = ""
    try:
        session.refresh(timeout)
    except DbgError as exc:
        # Status must still answer when the debugger is gone; say why instead.
        problem = exc.message
    info = session.describe()
    if problem:
        info["problem"] = problem
    info["breakpoints"] = len(session.breaks.entries)
    info["output_cursor"] = session.output.cursor
    return info


def tool(session: Session, args: Payload, timeout: float) -> Payload:
    return {"backend": session.spec.name if session.spec else None, **session.via()}


# -- breakpoints -------------------------------------------------------------------------------


def break_(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.vocab.model import BreakLoc, BreakOptions

    assert session.backend is not None
    loc = BreakLoc.from_wire(args["location"])
    hit = args.get("hit")
    if hit is not None and (not isinstance(hit, int) or hit < 1):
        raise UsageError("--hit must be 1 or more")
    options = BreakOptions(condition=_optional_line(args.get("condition"), "--if"),
                           hit_count=hit,
                           log_message=_optional_line(args.get("log"), "--log"),
                           temporary=bool(args.get("temp")))
    return {"breakpoint": session.breaks.add(session.backend, loc, options, timeout).to_dict()}


def unbreak(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.vocab.model import BreakLoc

    assert session.backend is not None
    if args.get("id") is not None:
        wanted = args["id"]
        if isinstance(wanted, bool) or not isinstance(wanted, int):
            raise UsageError("unbreak takes a breakpoint id or a location")
        session.breaks.listing(session.backend, timeout)
        session.breaks.require([wanted])
        ids = [wanted]
    else:
        loc = BreakLoc.from_wire(args.get("location"))
        ids = session.breaks.matching(session.backend, loc, timeout)
        if not ids:
            raise OpFailed(f"no breakpoint matches {loc}", "list them with `dbg breaks`")
    return {"removed": [b.to_dict() for b in session.breaks.remove(session.backend, ids, timeout)]}


def breaks(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    return {"breakpoints": [b.to_dict() for b in session.breaks.listing(session.backend, timeout)]}


def watch(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.ops.inspecting import one_line

    assert session.backend is not None
    expression = one_line(args["expression"])
    bp = session.breaks.watch(session.backend, expression, timeout)
    entry = session.breaks.entries.get(int(bp.id)) if isinstance(bp.id, int) else None
    if entry is not None:
        entry.scope = session.frame_key(timeout)
        try:
            entry.value = session.backend.evaluate(expression, timeout).value
        except DbgError:
            entry.value = None
    return {"breakpoint": bp.to_dict()}


def catch(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    filters = list(args.get("filters", []))
    if args.get("all_code"):
        filters.append("all-code")  # a filter of the backend's, kept for restart too
    session.catch_filters = session.backend.catch(filters, timeout)
    return {"filters": session.catch_filters}


# -- execution ---------------------------------------------------------------------------------


def _run(session: Session, event: StopEvent, timeout: float) -> Payload:
    return session.snapshot(event, timeout).to_dict()


def continue_(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    return _run(session, session.backend.cont(timeout), timeout)


def step(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    return _run(session, session.backend.step(timeout), timeout)


def next_(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    return _run(session, session.backend.next(timeout), timeout)


def finish(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.ops.inspecting import program_frames

    assert session.backend is not None
    frames = program_frames(session.backend.stack(None, timeout))
    selected = next((f for f in frames if f.current), frames[0] if frames else None)
    if selected is not None and selected.index >= len(frames) - 1:
        raise OpFailed(f"finish: frame #{selected.index} ({selected.function or '?'}) is the "
                       "outermost frame; it has no caller to return to",
                       "`dbg continue` runs to the end; `dbg next` steps on")
    return _run(session, session.backend.finish(timeout), timeout)


def until(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.vocab.model import BreakLoc

    assert session.backend is not None
    loc = BreakLoc.from_wire(args["location"]) if args.get("location") else None
    if loc is not None and loc.line is not None:
        _refuse_behind(session, loc, timeout)
    return _run(session, session.backend.until(loc, timeout), timeout)


# -- history -----------------------------------------------------------------------------------

#: Calls a trace answer shows (the newest), and lines of one call; the store keeps them all.
TRACE_SHOWN = 40
TRACE_LINES_SHOWN = 30


def trace(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.backends import stoptracer
    from dbgcore.ops.inspecting import one_line
    from dbgcore.store.db import shifted_call
    from dbgcore.store.recording import StoredCalls
    from dbgcore.vocab.traces import DEFAULT_MAX_CALLS

    assert session.backend is not None
    functions = [one_line(str(f)).strip() for f in args.get("functions") or []]
    if not functions or not all(functions):
        raise UsageError("trace needs the functions to trace", "dbg trace FUNCTION...")
    # Each call is in the store as it is recorded: a daemon killed meanwhile keeps them.
    with StoredCalls(session.store, session.current_run()) as kept:
        outcome = stoptracer.trace(session.backend, functions, bool(args.get("lines")),
                                  int(args.get("max") or DEFAULT_MAX_CALLS), timeout, kept)
        kept.settle(outcome.calls)
    snapshot = session.snapshot(outcome.event, timeout)
    # Numbered as the store numbers them, after the run's earlier traces.
    calls = [shifted_call(c.to_dict(), kept.base) for c in outcome.calls]
    limit = int(args.get("limit") or TRACE_SHOWN)
    shown = calls[-limit:]
    for call in shown:
        lines = call.get("lines") or []
        if len(lines) > TRACE_LINES_SHOWN:
            call["lines"] = lines[:TRACE_LINES_SHOWN]
            call["lines_omitted"] = len(lines) - TRACE_LINES_SHOWN
    notes = [outcome.note] if outcome.note else []
    if not calls:
        notes.append(f"no call of {', '.join(functions)} was made before the program "
                     "stopped (check the names with `dbg break FUNCTION`)")
    if outcome.timed_out:
        notes.append("the op's time ran out: the program was paused there (--timeout "
                     "gives it longer)")
    return {**snapshot.to_dict(), "trace": {
        "functions": functions, "calls": shown, "total": len(calls),
        "omitted": len(calls) - len(shown), "dropped": outcome.dropped,
        "max": int(args.get("max") or DEFAULT_MAX_CALLS), "means": outcome.means,
        "timed_out": outcome.timed_out, "run": session.run_id, "note": "; ".join(notes)}}


#: Hits `dbg history --at` evaluates unless --max says otherwise.
HISTORY_MAX = 1000


def history(session: Session, args: Payload, timeout: float) -> Payload:
    """`dbg history EXPR --at LOC`: run on, evaluating EXPR at each hit of
    LOC without stopping there, until the program stops by itself (or --max
    hits, or the op's time, which pauses it)."""
    import time

    from dbgcore.ops.inspecting import one_line
    from dbgcore.store.recording import StoredSamples
    from dbgcore.vocab.model import BreakLoc, BreakOptions

    backend = session.backend
    assert backend is not None
    if session.state() == "running":
        raise NotStopped("history --at runs the program from a stop, and it is running",
                         "stop it with `dbg pause`, or wait for the next stop with `dbg wait`")
    expression = one_line(str(args["expression"]))
    loc = BreakLoc.from_wire(args["at"])
    most = int(args.get("max") or HISTORY_MAX)
    deadline = time.monotonic() + max(timeout - 2.0, timeout / 2)

    def left() -> float:
        return max(deadline - time.monotonic(), 0.1)

    bp = backend.set_breakpoint(loc, BreakOptions(), timeout)
    rows: list[Payload] = []
    timed_out = False
    last: object = object()
    # Each value is in the store as it is taken: a daemon killed meanwhile keeps them.
    kept = StoredSamples(session.store, session.current_run(), "history", expression.strip())
    try:
        event = backend.cont(left())
        while event.state == "stopped" and bp.id in event.hit_breakpoints:
            try:
                value = backend.evaluate(expression, left()).value
            except DbgError as exc:
                value = None
                error = exc.message
            where = event.location
            row: Payload = {"value": value, "file": where.file if where else None,
                            "line": where.line if where else None,
                            "function": where.function if where else None,
                            "hit": len(rows) + 1, "changed": value != last}
            if value is None:
                row["error"] = error
            rows.append(row)
            kept.add({**row, "location": loc.text or loc.key()})
            last = value
            if len(rows) >= most or len(event.hit_breakpoints) > 1 \
                    or time.monotonic() >= deadline:
                break  # --max, a breakpoint of the user's here too, or the time
            event = backend.cont(left())
        if event.state == "running":
            timed_out = True
            event = backend.pause(2.0)
    finally:
        kept.close()
        if backend.state() not in ("exited", "debugger_lost"):
            backend.remove_breakpoint(bp.id, 2.0)
    snapshot = session.snapshot(event, timeout)
    limit = int(args.get("limit") or TRACE_SHOWN)
    notes = []
    if timed_out:
        notes.append("the op's time ran out: the program was paused there")
    elif len(rows) >= most:
        notes.append(f"stopped at hit {most} (--max)")
    if not rows:
        notes.append(f"{loc.text or loc.key()} was not reached before the program stopped")
    return {**snapshot.to_dict(), "history": {
        "expression": expression, "at": loc.text or loc.key(), "values": rows[-limit:],
        "total": len(rows), "omitted": max(len(rows) - limit, 0),
        "changes": sum(1 for r in rows if r["changed"]), "run": session.current_run(),
        "source": "hits of " + (loc.text or loc.key()), "note": "; ".join(notes)}}


def _refuse_behind(session: Session, loc: BreakLoc, timeout: float) -> None:
    """`until` runs forward: a line at or behind the current one, in the
    same function, is refused before anything runs."""
    from dbgcore.lang.rules import function_span

    assert session.backend is not None and loc.line is not None
    frames = session.backend.stack(None, timeout)
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


def pause(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    state = session.backend.state()
    if state == "stopped" and session.last is not None:
        return {**session.last.to_dict(), "note": "the target was already stopped"}
    if state == "exited":
        raise TargetExited("the program has exited", "run it again with `dbg restart`")
    paused = stacks.pause(session, timeout)  # a Python program blocked in C: its stacks
    return paused if isinstance(paused, dict) else _run(session, paused, timeout)


def wait(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.vocab.model import StopSnapshot

    assert session.backend is not None
    if session.backend.state() != "running" and (session.last is None
                                               or session.last.state != "running"):
        assert session.last is not None
        return session.last.to_dict()
    event = session.backend.poll(timeout)
    if event is None:
        return StopSnapshot(state="running").to_dict()
    return _run(session, event, timeout)


def input_(session: Session, args: Payload, timeout: float) -> Payload:
    """Send a line (and/or the end of file) to the program's stdin. On a
    running program, then wait for its next stop like `dbg wait`."""
    from dbgcore.vocab.model import StopSnapshot

    assert session.backend is not None
    payload = send_input(session, args)
    if session.backend.state() == "running" or (session.last is not None
                                             and session.last.state == "running"):
        event = session.backend.poll(timeout)
        stop = (StopSnapshot(state="running") if event is None
                else session.snapshot(event, timeout))
        return {**stop.to_dict(), "input": payload}
    return payload


def send_input(session: Session, args: Payload) -> Payload:
    """Write ``text`` (a line) and/or close the program's stdin; safe to
    call while another op waits for the program (`dbg input` from a
    second client)."""
    assert session.backend is not None
    text, eof = args.get("text"), bool(args.get("eof"))
    if text is None and not eof:
        raise UsageError("input needs TEXT, or --eof to close the program's stdin")
    if session.stdin is None:
        if session.stdin_file:
            raise OpFailed(f"the program reads its stdin from {session.stdin_file} "
                           "(`dbg start --stdin`)", "start without --stdin to send lines")
        raise session.backend.unsupported("input", session.backend.unsupported_hints.get("stdin")
                                       or _NO_STDIN)
    if session.backend.state() == "exited":
        raise TargetExited("the program has exited", "run it again with `dbg restart`")
    sent = 0
    if text is not None:
        if any(c in text for c in "\r\n\0"):
            raise UsageError("input takes one line", "send one `dbg input` per line")
        try:
            sent = session.stdin.write((text + "\n").encode("utf-8"))
        except BlockingIOError:
            raise OpFailed("the program's stdin is full: it has not read the 64 KiB "
                           "already sent", "let it run (`dbg continue`) first") from None
        except ValueError:
            raise OpFailed("the program's stdin is closed (`dbg input --eof`)",
                           "`dbg restart` runs it again with a new one") from None
    if eof:
        session.stdin.close()
    return {"sent": sent, "closed": session.stdin.closed, "unread": session.stdin.pending()}


# -- inspection --------------------------------------------------------------------------------


#: Frames `dbg stack` shows without --levels (a deep recursion has thousands).
STACK_SHOWN = 100
#: Threads `dbg threads` lists.
THREADS_SHOWN = 200
#: Characters of output one `dbg output` answer carries (the cursor pages on).
OUTPUT_CHARS = 64_000
#: Traceback lines `dbg exception` shows: the first and the last, the middle cut.
TRACEBACK_HEAD, TRACEBACK_TAIL = 20, 40


def stack(session: Session, args: Payload, timeout: float) -> Payload:
    """The frames, each with its arguments; without `--all`, library and
    internal frames (other than frame 0 and the selected one) are left
    out and counted, by the runs they form."""
    from dbgcore.ops.inspecting import program_frames, shown_frames

    assert session.backend is not None
    frames = session.backend.stack(None, timeout)
    hidden: list[Payload] = []
    if args.get("all"):
        shown = frames
    else:
        shown, hidden = shown_frames(program_frames(frames))
    levels = int(args.get("levels") or STACK_SHOWN)
    cut = max(len(shown) - levels, 0)
    if cut:
        shown = shown[:levels]
        # Runs past the last frame shown were cut by the budget, not hidden.
        hidden = [run for run in hidden if shown and run["first"] < shown[-1].index]
    _fill_args(session, shown, timeout)
    answer: Payload = {"frames": [f.to_dict() for f in shown], "hidden": hidden,
                       "hidden_frames": sum(run["count"] for run in hidden)}
    if cut and not args.get("levels"):
        answer["cut"] = cut  # (asked with --levels, the rest was not wanted)
    return answer


def _fill_args(session: Session, frames: list[Frame], timeout: float) -> None:
    """Each frame's arguments, values cut short; a debugger that fails to
    say leaves them unknown rather than failing the op."""
    from dbgcore.ops.inspecting import ARG_VALUE_CHARS, cut_value

    assert session.backend is not None
    try:
        session.backend.frame_args(frames, timeout)
    except DbgError:
        return
    for frame in frames:
        if frame.args is not None:
            frame.args = [cut_value(v, ARG_VALUE_CHARS) for v in frame.args]


def frame(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    return _frame_payload(session, session.backend.select_frame(int(args["index"]), timeout),
                               timeout)


def _move_frame(session: Session, delta: int, timeout: float) -> Payload:
    """`up` and `down` move among the frames `dbg stack` shows (numbered
    as in `dbg stack --all`); `dbg frame N` selects a hidden one."""
    from dbgcore.ops.inspecting import program_frames, shown_frames

    assert session.backend is not None
    everything = session.backend.stack(None, timeout)
    # The selected frame may be one `program_frames` leaves out (`frame N`).
    current = next((f.index for f in everything if f.current), 0)
    frames = program_frames(everything)
    shown, _ = shown_frames(frames)
    indexes = sorted({f.index for f in shown} | {current})
    target = indexes.index(current) + delta
    if target < 0:
        raise OpFailed(f"already at the innermost frame ({indexes[0]})",
                       "use `dbg up` to go to callers")
    if target >= len(indexes):
        hint = "use `dbg down` to go back toward the stop"
        if len(shown) < len(frames):
            hint += "; `dbg stack --all` lists the hidden frames, `dbg frame N` selects one"
        raise OpFailed(f"already at the outermost frame shown ({current})", hint)
    return _frame_payload(session, session.backend.select_frame(indexes[target], timeout), timeout)


def up(session: Session, args: Payload, timeout: float) -> Payload:
    return _move_frame(session, int(args.get("count", 1)), timeout)


def down(session: Session, args: Payload, timeout: float) -> Payload:
    return _move_frame(session, -int(args.get("count", 1)), timeout)


def _frame_payload(session: Session, frame: Frame, timeout: float) -> Payload:
    from dbgcore.lang.sourcetext import source_window

    _fill_args(session, [frame], timeout)
    payload: Payload = {"frame": frame.to_dict()}
    if frame.file and frame.line:
        payload["source"] = [
            {"line": n, "text": t, "current": n == frame.line}
            for n, t in source_window(frame.file, frame.line, 2, 2)
        ]
    return payload


def locals_(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.ops.inspecting import LOCALS_VALUE_CHARS, cap_variables

    assert session.backend is not None
    variables, cut = cap_variables(session.backend.locals(timeout), None, LOCALS_VALUE_CHARS)
    return {"variables": [v.to_dict() for v in variables], "truncated": cut}


def print_(session: Session, args: Payload, timeout: float) -> Payload:
    """One expression: its value, or a failed op. Several (split at
    ``;``): each with its value or its own error, in one answer."""
    from dbgcore.lang.rules import split_expressions
    from dbgcore.ops.inspecting import one_line

    assert session.backend is not None
    text = one_line(args["expression"])
    expressions = split_expressions(text)
    if len(expressions) <= 1:
        value = session.backend.evaluate(text, timeout)
        return {"expression": text, **value.to_dict()}
    return {"values": session.evaluate_each(expressions, timeout)}


def display(session: Session, args: Payload, timeout: float) -> Payload:
    """Add an expression shown at every later stop; none: list them."""
    from dbgcore.lang.rules import split_expressions
    from dbgcore.ops.inspecting import one_line

    text = args.get("expression")
    if text:
        for expression in split_expressions(one_line(text)):
            session.displays.append((session.display_ids, expression))
            session.display_ids += 1
    return {"display": [{"number": n, "expression": e} for n, e in session.displays]}


def undisplay(session: Session, args: Payload, timeout: float) -> Payload:
    number = args.get("number")
    if number is None:
        session.displays.clear()
    elif not any(n == number for n, _ in session.displays):
        raise OpFailed(f"no display expression {number}", "list them with `dbg display`")
    else:
        session.displays[:] = [(n, e) for n, e in session.displays if n != number]
    return {"display": [{"number": n, "expression": e} for n, e in session.displays]}


def set_(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.ops.inspecting import one_line

    assert session.backend is not None
    lhs, value = one_line(args["lhs"]), one_line(args["value"])
    result = session.backend.set_variable(lhs, value, timeout)
    return {"lhs": lhs, **result.to_dict()}


def threads(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    threads = session.backend.threads(timeout)
    answer: Payload = {"threads": [t.to_dict() for t in threads[:THREADS_SHOWN]]}
    if len(threads) > THREADS_SHOWN:
        answer["cut"] = len(threads) - THREADS_SHOWN
    return answer


def exception(session: Session, args: Payload, timeout: float) -> Payload:
    """The backend's answer, its traceback cut in the middle past a budget
    (a RecursionError's has a thousand frames)."""
    assert session.backend is not None
    answer = session.backend.op_exception(args, timeout)
    text = answer.get("stack")
    if isinstance(text, str):
        lines = text.splitlines()
        if len(lines) > TRACEBACK_HEAD + TRACEBACK_TAIL:
            cut = len(lines) - TRACEBACK_HEAD - TRACEBACK_TAIL
            answer["stack"] = "\n".join([*lines[:TRACEBACK_HEAD],
                                          f"... {cut} lines cut ...",
                                          *lines[-TRACEBACK_TAIL:]])
            answer["stack_cut"] = cut
    return answer


def thread(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    ident = number_or_name(str(args["id"]), "thread ID")
    return {"thread": session.backend.select_thread(ident, timeout).to_dict()}


def list_(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.lang.sourcetext import source_problem, source_window
    from dbgcore.ops.inspecting import resolve_file
    from dbgcore.vocab.model import BreakLoc, Location

    spec = args.get("location")
    context = int(args.get("context", 5))
    current = session.last.location if session.last is not None else None
    if session.backend is not None and session.backend.state() == "stopped":
        # The selected frame (after `dbg up` / `dbg frame N`), not just the stop.
        try:
            selected = next((f for f in session.backend.stack(None, timeout) if f.current),
                            None)
        except DbgError:
            selected = None
        if selected is not None and selected.file and selected.line:
            current = Location(selected.file, selected.line, selected.function)
    if spec:
        loc = BreakLoc.from_wire(spec)
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
    resolved = resolve_file(file, session.launch_request)
    lines = source_window(resolved, line, context, context)
    if not lines:
        problem = source_problem(resolved)
        raise OpFailed(problem or f"cannot read line {line} of {resolved}")
    here = current.line if current is not None and current.file == resolved else None
    return {"file": resolved,
            "lines": [{"line": n, "text": t, "current": n == here} for n, t in lines]}


def output(session: Session, args: Payload, timeout: float) -> Payload:
    cats = args.get("categories") or [
        c for c in ("stdout", "stderr") if args.get(c)]
    return session.output.read(int(args.get("since", 0)), set(cats) if cats else None,
                               int(args.get("limit", 1000)), OUTPUT_CHARS)


def raw(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.ops.inspecting import one_line

    assert session.backend is not None
    text = one_line(args["text"])
    if session.backend.state() == "exited":
        raise TargetExited("the program has exited", "run it again with `dbg restart`")
    output, event = session.backend.raw(text, timeout)
    payload: Payload = {"output": output}
    if event is not None:
        payload["stop"] = session.snapshot(event, timeout).to_dict()
    return payload


def _optional_line(text: Json, option: str) -> str | None:
    if text is None:
        return None
    if not isinstance(text, str) or not text.strip() or any(c in text for c in "\r\n\0"):
        raise UsageError(f"{option} takes one non-empty line")
    return text


# -- beside an op that waits for the program ------------------------------------------------
# (Session.handle is not called: these must not wait for the program, and
# touch nothing the waiting op uses.)


def status_beside(session: Session, args: Payload, timeout: float,
                  busy: str) -> tuple[Payload | None, Payload]:
    return {**session.describe(), "busy": busy, "breakpoints": len(session.breaks.entries),
            "output_cursor": session.output.cursor}, {}


def output_beside(session: Session, args: Payload, timeout: float,
                  busy: str) -> tuple[Payload | None, Payload]:
    return output(session, args, timeout), {}


def tool_beside(session: Session, args: Payload, timeout: float,
                busy: str) -> tuple[Payload | None, Payload]:
    return tool(session, args, timeout), {}


def pause_beside(session: Session, args: Payload, timeout: float,
                 busy: str) -> tuple[Payload | None, Payload]:
    """Interrupts the program; the waiting op gets the stop, and so does this."""
    if session.backend is not None and session.backend.state() == "running":
        session.backend.interrupt()
    return None, {}


def wait_beside(session: Session, args: Payload, timeout: float,
                busy: str) -> tuple[Payload | None, Payload]:
    return None, {}


def input_beside(session: Session, args: Payload, timeout: float,
                 busy: str) -> tuple[Payload | None, Payload]:
    """Sends the line, then answers with the stop the waiting op gets."""
    return None, {"input": send_input(session, args)}
