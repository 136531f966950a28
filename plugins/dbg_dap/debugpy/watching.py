"""dbg's own helpers in a debugpy program: watches and `dbg trace`.

pydevd has no data breakpoints: dbgcore/inprogram/pywatch.py, loaded into
the program, checks a watch from hidden conditional breakpoints. `dbg
trace` runs dbgcore/inprogram/pytrace.py, a profile hook started and
stopped by evaluates in the stopped thread. Stateless: what the helpers
keep, they keep in the program."""

from __future__ import annotations

import os
import tempfile
from functools import partial
from pathlib import Path

from dbg_dap.debugpy.answers import PYDEVD_MODULES, json_answer, pywatch_expression
from dbg_dap.debugpy.sources import check_function
from dbg_dap.host import AdapterHost, JsonValue
from dbg_dap.profile_base import LineWatch
from dbgcore.api import (
    BreakLoc,
    CallSink,
    DbgError,
    Message,
    OpFailed,
    TraceOutcome,
    follow_trace_file,
    traced_run,
)


def line_watch(backend: AdapterHost, watch_id: int, expression: str,
               timeout: float) -> LineWatch:
    """Watch ``expression`` in the selected frame (AdapterProfile.line_watch)."""
    from dbgcore.api import pywatch

    frames = backend.stack_frames(timeout)
    if not frames:
        raise OpFailed(f"cannot watch {expression}: no frame to watch it in")
    chosen = frames[min(backend.frame_index, len(frames) - 1)]
    path = str((chosen.get("source") or {}).get("path") or "")
    line = int(chosen.get("line") or 0)
    # pydevd evaluates in the stopped thread, below all its frames: the
    # helper finds the selected one up its caller chain by its place
    # (the nth of those at that place, for a recursive function).
    nth = sum(1 for f in frames[:backend.frame_index + 1]
              if (f.get("source") or {}).get("path") == path and f.get("line") == line)
    call = (f"{pywatch_expression()}.add_answer({watch_id!r}, {expression!r}, "
            f"where=({path!r}, {line!r}, {nth!r}), skip={PYDEVD_MODULES!r})")
    answer = json_answer(backend.dap_session().request("evaluate", {
        "expression": call, "context": "watch", "frameId": int(frames[0]["id"])}, timeout))
    if not isinstance(answer, dict) or "error" in answer:
        why = answer.get("error") if isinstance(answer, dict) else answer
        raise OpFailed(f"cannot watch {expression}: {why}",
                       "a watch is set in the selected frame, where the expression must "
                       "evaluate now (`dbg frame N` selects another)")
    condition = pywatch.CONDITION_NAME + "()"
    return LineWatch(str(answer["file"]), [int(n) for n in answer["lines"]], condition,
                     pywatch.note(str(answer["function"]), str(answer["file"]),
                                  int(answer["line"])))


def line_unwatch(backend: AdapterHost, watch_id: int, timeout: float) -> None:
    """Forget a watch in the program (it lets its frame go)."""
    _pywatch_call(backend, f"remove({watch_id!r})", timeout)


def line_watch_stop(backend: AdapterHost, watch_ids: list[int],
                    timeout: float) -> tuple[list[int], list[int]]:
    """The watches whose frame is gone, and those whose change made this stop."""
    answer = _pywatch_call(backend, f"at_stop({watch_ids!r})", timeout)
    if not isinstance(answer, dict):
        return [], []
    return ([int(n) for n in answer.get("gone") or []],
            [int(n) for n in answer.get("changed") or []])


def _pywatch_call(backend: AdapterHost, call: str, timeout: float) -> JsonValue:
    """The JSON of a call of the helper's, evaluated at this stop (None:
    not stopped, or it failed: a watch's bookkeeping must not fail an op)."""
    if backend.state() != "stopped":
        return None
    try:
        frames = backend.stack_frames(timeout)
        if not frames:
            return None
        return json_answer(backend.dap_session().request("evaluate", {
            "expression": f"__import__('json').dumps({pywatch_expression()}.{call})",
            "context": "watch", "frameId": int(frames[0]["id"])}, timeout))
    except (DbgError, ValueError) as exc:
        backend.ctx.log.note(f"watch helper: {call}: {exc}")
        return None


def trace(backend: AdapterHost, functions: list[str], lines: bool, max_calls: int,
          timeout: float, sink: CallSink) -> TraceOutcome | None:
    """`dbg trace` by a profile hook in the program (dbgcore/inprogram/pytrace.py),
    started and stopped by evaluates in the stopped thread: pydevd
    evaluates there, and the hook is that thread's (and the threads it
    starts). pydevd's own tracing is left as it is, so its breakpoints
    stop the run as they would."""
    from dbgcore.api import VALUE_CHARS, pytrace

    backend.stopped_session("trace")
    for function in functions:
        # As `dbg break` would: a mistyped name is refused before the run.
        loc = BreakLoc.parse(function)
        check_function(backend, loc.module, loc.function or function, timeout)
    frames = backend.stack_frames(timeout)
    if not frames:
        raise OpFailed("trace: the stopped thread has no frame to start the tracer in",
                       "`dbg threads` and `dbg thread N` choose another")
    fd, name = tempfile.mkstemp(prefix="trace-", suffix=".jsonl", dir=backend.ctx.run_dir)
    os.close(fd)
    path = Path(name)
    try:
        started = _tracer_call(backend, frames[0], (
            f"install({name!r}, {list(functions)!r}, {bool(lines)!r}, {int(max_calls)!r}, "
            f"{VALUE_CHARS!r})"), timeout)
        if not isinstance(started, dict) or not started.get("installed"):
            raise OpFailed(f"debugpy could not start the tracer: {started}")
        with follow_trace_file(path, sink) as trace_file:
            event, timed_out = traced_run(partial(backend.resume, "continue"),
                                          backend.pause, timeout)
            if backend.state() == "stopped":
                where = backend.stack_frames(timeout)
                if where:
                    _tracer_call(backend, where[0], "uninstall()", timeout)
        calls, dropped = trace_file.calls(), trace_file.dropped
    finally:
        path.unlink(missing_ok=True)
    return TraceOutcome(calls=calls, event=event, dropped=dropped,
                        means="a profile hook in the program",
                        note=pytrace.install_note(started), timed_out=timed_out)


def _tracer_call(backend: AdapterHost, frame: Message, call: str, timeout: float) -> JsonValue:
    """``call`` on dbg's tracer in the program (loaded there first if it is
    not yet), evaluated in ``frame``; its JSON answer."""
    from dbgcore.api import pytrace

    try:
        body = backend.dap_session().request("evaluate", {
            "expression": pytrace.call_expression(pytrace.__file__, call),
            "context": "watch", "frameId": int(frame["id"])}, timeout)
        return json_answer(body)
    except ValueError as exc:
        raise OpFailed(f"debugpy's answer to the tracer was not what it gives: {exc}") from exc
