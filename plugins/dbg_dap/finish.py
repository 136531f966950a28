"""`finish` where the adapter's own stepOut falls short.

A Python generator on debugpy, which has no way to step out of one:

debugpy's stepOut from a generator frame runs on to the program's end (it
ignores the frame's return event when the generator yields), and so does a
step over the ``yield``. So dbg does what `finish` means by other means:
internal breakpoints on every line of the caller's function stop the
program where the caller goes on, and a profile function set in the paused
thread (``sys.setprofile``, which pydevd leaves alone) notes what the frame
yielded or returned as it leaves. Both are removed afterwards.

A Go function on delve, whose DAP server shows no return value after a
step out: dbg stops the function at its own RET instructions first
(instruction breakpoints found by disassembling it), where delve still
shows the results as the locals ``~r0``, ``~r1``..., then steps out.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable

from dbg_dap.inspection import DapInspection
from dbgcore.api import DbgError, ReturnValue, StopEvent, function_span, python_code_lines

#: The backend's resuming request and wait for its stop ("continue",
#: "stepOut"...), given the op's timeout.
Resume = Callable[[str, float], StopEvent]

#: Set in the paused thread: on the frame's first return event (a yield is
#: one too), keep what it gave, and say whether it yielded or returned.
_PROBE = """\
import sys as _s, dis as _d
def _dbg_probe(f, e, a):
    if e == 'return' and f.f_code.co_name == {name!r} and f.f_code.co_filename == {file!r}:
        op = _d.opname[f.f_code.co_code[f.f_lasti]] if f.f_lasti >= 0 else ''
        _s._dbg_left = (repr(a)[:4000], type(a).__name__,
                        'returned' if op.startswith('RETURN') else 'yielded')
        _s.setprofile(None)
_s.setprofile(_dbg_probe)
"""
_READ = "getattr(__import__('sys'), '_dbg_left', None)"
_FORGET = "__import__('sys').__dict__.pop('_dbg_left', None)"


def finish_generator(backend: DapInspection, resume: Resume, index: int,
                     timeout: float) -> StopEvent:
    frames = backend.stack_frames(timeout)
    callee = frames[index]
    caller = frames[index + 1] if index + 1 < len(frames) else None
    caller_file = str(((caller or {}).get("source") or {}).get("path") or "")
    lines = _caller_lines(caller_file, int((caller or {}).get("line") or 0))
    name = str(callee.get("name") or "")
    file = str((callee.get("source") or {}).get("path") or "")
    dap = backend.dap_session()
    probe = {"expression": f"exec({_PROBE.format(name=name, file=file)!r}, {{}})",
             "context": "repl", "frameId": int(callee["id"])}
    dap.request("evaluate", probe, timeout)
    ids = backend.breaks.add_lines(caller_file, lines, timeout) if lines else []
    try:
        event = resume("continue", timeout)
    finally:
        for bp_id in ids:
            backend.breaks.discard_internal(bp_id, timeout)
    if event.state != "stopped":
        return event
    if event.reason == "until":
        event.reason = "step"  # our breakpoints stand for the step out
    if event.location is not None and event.location.function == (caller or {}).get("name"):
        event.return_value = _read(backend, timeout)
    return event


def _caller_lines(file: str, line: int) -> list[int]:
    """Every line of the caller's function that holds code: the caller goes
    on at one of them once the generator gives control back."""
    if not file.endswith(".py") or not os.path.isfile(file):
        return []
    code = python_code_lines(file) or frozenset()
    span = function_span(file, line)
    if span is not None:
        return sorted(n for n in code if span[0] <= n <= span[1])
    # Module-level code: its lines outside any function, from the call on.
    return sorted(n for n in code if n >= line and function_span(file, n) is None)[:200]


def _read(backend: DapInspection, timeout: float) -> ReturnValue | None:
    dap = backend.dap_session()
    frame_id = backend.current_frame_id(timeout)
    arguments = {"expression": _READ, "context": "repl",
                 **({"frameId": frame_id} if frame_id is not None else {})}
    try:
        answer = str(dap.request("evaluate", arguments, timeout).get("result", ""))
        dap.request("evaluate", {**arguments, "expression": _FORGET}, timeout)
        found = ast.literal_eval(answer)
    except (DbgError, ValueError, SyntaxError):
        return None
    if not isinstance(found, tuple) or len(found) != 3:
        return None
    value, kind, how = found
    return ReturnValue(str(value), str(kind), "yielded" if how == "yielded" else "returned")


#: Go pads between functions with INT3: the end of the function's code.
_PADDING = "INT $0x3"
#: How many instructions around the current one are searched for RETs.
_WINDOW = 1500


def finish_by_returns(backend: DapInspection, resume: Resume, index: int,
                      timeout: float) -> StopEvent:
    event = StopEvent(state="running")
    for _ in range(index):  # frames above the selected one: plain step outs
        event = resume("stepOut", timeout)
        if event.state != "stopped" or event.reason != "step":
            return event
    frames = backend.stack_frames(timeout)
    ip = str(frames[0].get("instructionPointerReference") or "") if frames else ""
    returns = _return_addresses(backend, ip, timeout) if ip else []
    if not returns:
        return resume("stepOut", timeout)
    depth = len(frames)
    # Only this goroutine's returns: another one running the same function
    # reaches the same RETs with its own results, and a hit of ours that
    # comes at once with another's may go unreported (delve 1.20), so that
    # the next return seen in this goroutine would be its next call's.
    thread, condition = backend.thread_id, backend.profile.thread_condition
    ids = backend.breaks.add_instructions(
        returns, timeout,
        condition.format(thread=thread) if condition and thread is not None else None)
    try:
        while True:
            event = resume("continue", timeout)
            if event.state != "stopped" or event.reason != "until":
                return event  # stopped by something else first (or ended)
            if len(backend.stack_frames(timeout)) <= depth:
                break  # a deeper call of the same function returns: go on
    finally:
        for bp_id in ids:
            backend.breaks.discard_internal(bp_id, timeout)
    value = results_at_ret(backend, timeout)
    event = resume("stepOut", timeout)
    if event.state == "stopped" and value is not None:
        event.return_value = value
    return event


def results_at_ret(backend: DapInspection, timeout: float) -> ReturnValue | None:
    """At a Go function's RET: its results, which delve shows as the locals
    ``~r0``, ``~r1``... (None: it has none)."""
    results = [v for v in backend.locals(timeout) if v.name.startswith("~r")]
    if not results:
        return None
    value = results[0].value if len(results) == 1 else \
        "(" + ", ".join(v.value for v in results) + ")"
    return ReturnValue(value, results[0].type if len(results) == 1 else None)


def return_instructions(backend: DapInspection, timeout: float) -> list[str]:
    """The RET instructions of the function the top frame is in ([]: not
    found)."""
    frames = backend.stack_frames(timeout)
    ip = str(frames[0].get("instructionPointerReference") or "") if frames else ""
    return _return_addresses(backend, ip, timeout) if ip else []


def _return_addresses(backend: DapInspection, ip: str, timeout: float) -> list[str]:
    """The RET instructions of the function holding ``ip``: the run of code
    around it between two stretches of padding."""
    body = backend.dap_session().request("disassemble", {
        "memoryReference": ip, "instructionOffset": -_WINDOW,
        "instructionCount": 2 * _WINDOW, "resolveSymbols": False}, timeout)
    rows = list(body.get("instructions") or [])
    here = next((i for i, row in enumerate(rows)
                 if int(str(row.get("address")), 16) == int(ip, 16)), None)
    if here is None:
        return []
    start = here
    while start > 0 and rows[start - 1].get("instruction") != _PADDING:
        start -= 1
    end = here
    while end < len(rows) and rows[end].get("instruction") != _PADDING:
        end += 1
    if start == 0 or end == len(rows):
        return []  # the function did not fit in the window: no value then
    return [str(row["address"]) for row in rows[start:end]
            if str(row.get("instruction", "")).split(" ")[0] == "RET"]
