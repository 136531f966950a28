"""Steps through exceptions on debugpy: a step (next, step, finish) that an
exception takes out of a function goes on to the line that handles it, as
pdb does, and its stop says which exception came through.

pydevd stops a step in the caller of a function an exception leaves as if
that function returned (None); on Python 3.12 and newer (sys.monitoring) a
finish out of such a frame does not stop at all, so internal breakpoints go
where the callers handle exceptions. The step under way is shared with the
catch (:class:`StepUnderWay`): an exception a catch saw go through the step
is named by the step's stop."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

from dbg_dap.debugpy.answers import json_answer, stop_facts
from dbg_dap.debugpy.launching import DebugpyLaunch
from dbg_dap.debugpy.values import split_exception_note
from dbg_dap.host import AdapterHost
from dbgcore.api import DbgError, OpFailed, ReturnValue, StopEvent, real_path


@dataclass
class StepUnderWay:
    """The step under way (next, step, finish; "": none), while it runs, and
    the exception a catch saw it go through (its stop's description)."""

    op: str = ""
    note: str = ""


class ExceptionSteps:
    """The steps a profile follows through exceptions, and what such a step
    makes of the function's return value."""

    def __init__(self, launch: DebugpyLaunch, step: StepUnderWay) -> None:
        self._launch = launch
        self.step = step
        #: The exception the thread was handling when a step began.
        self._handling_before_step = ""
        #: The last step followed an exception out of a function (so what
        #: pydevd shows as its return value is none), and is doing so now.
        self._unwound = False
        self._stepping = False
        #: Python 3.12 and newer: dbg's breakpoints where the callers of a
        #: frame being finished handle exceptions, as (id, file, line).
        self._handler_breaks: list[tuple[int, str, int]] = []

    def resume_after_skip(self) -> str:
        # An exception a step goes through stops a catch again in each frame
        # it passes (pydevd): from there the step goes on, not a continue.
        return {"next": "next", "step": "stepIn", "finish": "stepIn"}.get(self.step.op,
                                                                          "continue")

    def before_step(self, backend: AdapterHost, op: str, timeout: float) -> None:
        if self._stepping:
            return
        if backend.last_reason == "exception" and backend.dap is not None and \
                split_exception_note(backend.dap.stop.text)[1]:
            raise OpFailed(f"cannot {op} here: the program stopped post mortem, after the "
                           "exception ended these frames",
                           "`dbg continue` goes on, to the next failing test or the end; "
                           "`dbg print`, `dbg frame` and `dbg exception` look around")
        self.step.op = op
        self._handling_before_step = self._handling(backend, timeout)
        self.step.note = ""
        if op == "finish":
            setup = self._launch.python_setup()
            if not setup.error and setup.version >= (3, 12):
                self._handler_breaks = _place_handler_breaks(backend, timeout)

    def after_step(self, backend: AdapterHost, op: str, event: StopEvent,
                   timeout: float) -> StopEvent:
        # A step into or out of a function an exception leaves stops in its
        # caller as if it returned (None): go on to the line that handles it,
        # as pdb does and as `next` does here.
        if self._stepping:
            return event  # one of the steps below
        self.step.op = ""
        self._unwound = False
        handlers, self._handler_breaks = self._handler_breaks, []
        if handlers:
            where = (event.location.file, event.location.line) if event.location else None
            for bp_id, _, _ in handlers:
                backend.discard_internal_break(bp_id, timeout)
            if event.reason == "until" and where in {(f, n) for _, f, n in handlers}:
                event.reason, self._unwound = "step", True
        if event.state != "stopped":
            return event  # still running (its --timeout passed) or ended
        for _ in range(_MAX_UNWIND_STEPS):
            if event.state != "stopped" or event.reason != "step" or \
                    not self._unwinding(backend, timeout):
                break
            self._unwound = True
            self._stepping = True
            try:
                event = backend.resume("stepIn", timeout)
            finally:
                self._stepping = False
        if event.state != "stopped" or event.reason != "step" or event.description:
            return event
        # pydevd stops at that line saying nothing of the exception: what
        # the thread handles now, if it did not before, came through this step.
        now = self._handling(backend, timeout)
        note, self.step.note = self.step.note, ""
        if now and now != self._handling_before_step:
            try:
                text, where = json.loads(now)[1:]
            except (ValueError, TypeError):
                return event
            event.description = f"{text} (raised in {where})" if where else text
        elif note:
            event.description = note  # handled and gone (a with's __exit__)
        return event

    def _unwinding(self, backend: AdapterHost, timeout: float) -> bool:
        """At a step's stop in a caller: whether the function it called is
        leaving by an exception rather than returning (pydevd stops on its
        return event either way; the callee is still on the thread's stack,
        stopped at the instruction that raised)."""
        facts = stop_facts(backend)
        if facts is not None:
            return facts.get("unwinding") is True
        frames = backend.stack_frames(timeout)
        if not frames:
            return False
        stop = frames[0]
        where = [(stop.get("source") or {}).get("path"), stop.get("name"), stop.get("line")]
        try:
            body = backend.dap_session().request("evaluate", {
                "expression": _UNWINDING_EXPRESSION.replace("STOP", repr(where)),
                "context": "watch", "frameId": int(stop["id"])}, timeout)
            return json_answer(body) is True
        except (DbgError, ValueError, TypeError):
            return False

    def _handling(self, backend: AdapterHost, timeout: float) -> str:
        """The exception the stopped thread is handling (JSON: its id, its
        line, where it was raised), or ""."""
        facts = stop_facts(backend)
        if facts is not None:
            handling = facts.get("handling")
            return handling if isinstance(handling, str) and handling != "null" else ""
        frames = backend.stack_frames(timeout)
        if not frames:
            return ""
        try:
            body = backend.dap_session().request("evaluate", {
                "expression": _HANDLING_EXPRESSION, "context": "watch",
                "frameId": int(frames[0]["id"])}, timeout)
            answer = ast.literal_eval(str(body.get("result", "")))
        except (DbgError, ValueError, SyntaxError):
            return ""
        return answer if isinstance(answer, str) and answer != "null" else ""

    def return_value(self, backend: AdapterHost, timeout: float) -> ReturnValue | None:
        if self._unwound:
            return None  # an exception took the function out: it returned nothing
        # showReturnValue puts "(return) NAME" among the caller's locals.
        for var in backend.return_rows(timeout):
            return ReturnValue(str(var.get("value", "")), var.get("type"))
        return None


def _place_handler_breaks(backend: AdapterHost, timeout: float) -> list[tuple[int, str, int]]:
    """pydevd on Python 3.12 and newer (sys.monitoring) does not stop a step
    out of a frame an exception leaves: it runs on. So a finish places
    internal breakpoints where the callers handle exceptions (the first line
    of each `except` and `finally` around the line each is at)."""
    from dbgcore.api import BreakLoc, BreakOptions

    placed = []
    for frame in backend.stack_frames(timeout)[1:]:
        path = str((frame.get("source") or {}).get("path") or "")
        for line in _handler_lines(path, int(frame.get("line") or 0)):
            try:
                bp_id = backend.place_internal_break(BreakLoc(file=path, line=line),
                                                     BreakOptions(temporary=True), timeout)
            except DbgError:
                continue
            placed.append((bp_id, real_path(path), line))
    return placed


def _handler_lines(path: str, line: int) -> list[int]:
    """The first lines of the `except` and `finally` bodies of the `try`
    statements around ``line`` in its function."""
    if not path.endswith(".py") or not line:
        return []
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"), path)
    except (OSError, SyntaxError, ValueError):
        return []
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    found: list[int] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, scopes) and not (
                    child.lineno <= line <= (child.end_lineno or child.lineno)):
                continue  # another function's: its handlers are not this frame's
            if isinstance(child, ast.Try) or type(child).__name__ == "TryStar":
                body = child.body  # type: ignore[attr-defined]
                if body and body[0].lineno <= line <= (body[-1].end_lineno or line):
                    found.extend(h.body[0].lineno for h in child.handlers  # type: ignore[attr-defined]
                                 if h.body)
                    final = child.finalbody  # type: ignore[attr-defined]
                    if final:
                        found.append(final[0].lineno)
            visit(child)

    visit(tree)
    return sorted(set(found))


#: Steps followed out of functions an exception leaves, at most.
_MAX_UNWIND_STEPS = 50
#: At a step's stop (file, function, line = STOP): JSON true when the first
#: frame of the thread below the debugger's is one that STOP called and that
#: is leaving by an exception (not at a return or a yield instruction).
_UNWINDING_EXPRESSION = (
    "(lambda fs: __import__('json').dumps(bool(fs) and fs[0].f_back is not None and "
    "[fs[0].f_back.f_code.co_filename, fs[0].f_back.f_code.co_name, fs[0].f_back.f_lineno] "
    "== STOP and not __import__('dis').opname[fs[0].f_code.co_code[fs[0].f_lasti]]"
    ".startswith(('RETURN', 'YIELD', 'INSTRUMENTED_RETURN', 'INSTRUMENTED_YIELD'))))"
    "([f for f, _ in __import__('traceback').walk_stack(__import__('sys')._getframe()) "
    "if f.f_code.co_filename != '<string>' and '/debugpy/' not in f.f_code.co_filename "
    "and 'pydevd' not in f.f_code.co_filename.rsplit('/', 1)[-1]])")
#: The exception the thread is handling, as JSON [its id, its line, where
#: it was raised], or null.
_HANDLING_EXPRESSION = (
    "(lambda e: __import__('json').dumps(None if e is None else (lambda w, m: [id(e), "
    "type(e).__name__ + (': ' + m[0] if m else ''), "
    "'%s at %s:%d' % (w[-1][0].f_code.co_name, w[-1][0].f_code.co_filename, w[-1][1]) "
    "if w else ''])(list(__import__('traceback').walk_tb(e.__traceback__)), "
    "str(e).strip().splitlines())))"
    "(__import__('sys').exc_info()[1])")
