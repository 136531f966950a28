"""`dbg set LHS VALUE` over DAP: any assignable expression a user could
`dbg print` (a variable, a field, an element, a pointer's target).

Each adapter offers a different part of it:

- ``setExpression`` takes any left-hand side (gdb, debugpy);
- lldb-dap 19 has only ``setVariable``, which refuses anything but a name a
  scope lists, while lldb's own expression evaluator assigns anything C can
  (``r->cap = 8``): the profile makes that expression;
- delve has only ``setVariable`` too, and it assigns a child of any value
  it has shown: the field ``cap`` of ``r`` is set as the child named
  ``cap`` of what evaluating ``r`` gave (a pointer's target on the way).

Afterwards the answer shows the value as `dbg print LHS` would. Whatever
fails is one line naming the left-hand side and the debugger's reason, and
the program stays where it was (see dbg_dap.calls: an assignment may call
functions).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from dbg_dap.calls import run_code
from dbgcore.api import DapRequestError, DbgError, Message, OpFailed, Value

if TYPE_CHECKING:
    from dbg_dap.inspection import DapInspection

#: An identifier: a field's name, a plain variable's.
_NAME_RE = re.compile(r"[A-Za-z_$][\w$]*")


def set_value(backend: DapInspection, lhs: str, value: str, timeout: float) -> Value:
    dap = backend.stopped_session("set")
    problem = backend.profile.assignment_problem(lhs, value)
    if problem:
        raise OpFailed(f"cannot set {lhs}: {problem}", "nothing was changed")
    try:
        if dap.supports("supportsSetExpression"):
            arguments: Message = {"expression": lhs, "value": value}
            frame_id = backend.current_frame_id(timeout)
            if frame_id is not None:
                arguments["frameId"] = frame_id
            body = run_code(backend, "setExpression", arguments, timeout)
            shown = str(body.get("value", ""))
            return Value(shown, body.get("type")) if shown else backend.evaluate(lhs, timeout)
        expression = backend.profile.assignment_expression(lhs, value)
        if expression is not None:
            backend.evaluate(expression, timeout)
            backend.forget_frames()
            return backend.evaluate(lhs, timeout)
        if not dap.supports("supportsSetVariable"):
            raise backend.unsupported("set", f"{backend.tool_name} cannot assign variables")
        reference, name = _locate(backend, lhs, timeout)
        run_code(backend, "setVariable", {"variablesReference": reference, "name": name,
                                          "value": value}, timeout)
        backend.forget_frames()
        return backend.evaluate(lhs, timeout)
    except DapRequestError as exc:
        message = exc.message.removeprefix(f"{exc.command} failed: ")
        raise OpFailed(f"cannot set {lhs}: {_why(backend, lhs, value, message, timeout)}",
                       "nothing was changed") from exc
    finally:
        backend.forget_frames()


def _why(backend: DapInspection, lhs: str, value: str, message: str, timeout: float) -> str:
    """Why an assignment failed, in one line: the debugger's reason, or, when
    it gives none worth reading, what evaluating either side says."""
    reason = backend.profile.error_line(message)
    if backend.profile.vague_assignment_error(reason):
        for side in (lhs, value):
            try:
                backend.evaluate(side, timeout)
            except DapRequestError as exc:
                return backend.profile.error_line(
                    exc.message.removeprefix(f"{exc.command} failed: "))
    return reason


def split_lhs(lhs: str) -> tuple[str, str] | None:
    """``(parent, accessor)`` of an assignable expression: ``r.cap`` ->
    ``("r", "cap")``, ``p->next`` -> ``("p", "next")``, ``a[i+1]`` ->
    ``("a", "[i+1]")``, ``*p`` -> ``("p", "*")``; None for a plain name or
    anything else."""
    text = lhs.strip()
    if text.endswith("]"):
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            depth += {"]": 1, "[": -1}.get(text[i], 0)
            if depth == 0:
                parent = text[:i].strip()
                return (parent, "[" + text[i + 1:-1].strip() + "]") if parent else None
        return None
    name = re.search(r"(\.|->)\s*([A-Za-z_$][\w$]*)$", text)
    if name is not None and text[:name.start()].strip():
        return text[:name.start()].strip(), name.group(2)
    if text.startswith("*") and text[1:].strip():
        return text[1:].strip(), "*"
    return None


def _locate(backend: DapInspection, lhs: str, timeout: float) -> tuple[int, str]:
    """The variablesReference and name setVariable takes for ``lhs``: a
    plain name in one of the frame's scopes, or a child of its parent's
    value (a field, an element, a pointer's target)."""
    text = lhs.strip()
    if _NAME_RE.fullmatch(text):
        for scope in backend.scopes(timeout):
            reference = int(scope["variablesReference"])
            if any(v.get("name") == text for v in backend.variables(reference, timeout)):
                return reference, text
        raise OpFailed(f"cannot set {lhs}: no variable {text} in the selected frame",
                       "`dbg locals` lists them")
    split = split_lhs(text)
    if split is None:
        raise OpFailed(f"cannot set {lhs}: it is not a variable, a field, an element or a "
                       "pointer's target", "give something `dbg print` shows, e.g. r.cap")
    parent, accessor = split
    arguments: Message = {"expression": parent, "context": backend.profile.print_context}
    frame_id = backend.current_frame_id(timeout)
    if frame_id is not None:
        arguments["frameId"] = frame_id
    try:
        body = run_code(backend, "evaluate", arguments, timeout)
    except DapRequestError as exc:
        message = exc.message.removeprefix(f"{exc.command} failed: ")
        raise OpFailed(f"cannot set {lhs}: {backend.profile.error_line(message)}",
                       "nothing was changed") from exc
    reference = int(body.get("variablesReference") or 0)
    wanted = _child_names(backend, accessor, timeout)
    for _ in range(3):  # through pointers to the value they point at
        if not reference:
            break
        children = backend.variables(reference, timeout)
        for child in children:
            if str(child.get("name", "")) in wanted or (accessor == "*" and len(children) == 1):
                return reference, str(child.get("name", ""))
        targets = [c for c in children if not str(c.get("name", "")).strip("*(). ")
                   or str(c.get("name", "")).startswith("*")]
        if len(children) != 1 or not targets:
            break
        reference = int(targets[0].get("variablesReference") or 0)
    raise OpFailed(f"cannot set {lhs}: {parent} has no field or element {accessor}",
                   f"`dbg print {parent}` shows what it has")


def _child_names(backend: DapInspection, accessor: str, timeout: float) -> set[str]:
    """The names an adapter may list the child ``accessor`` under: "cap",
    "[2]"; an index that is an expression is evaluated first."""
    if not accessor.startswith("["):
        return {accessor}
    index = accessor[1:-1].strip()
    names = {f"[{index}]", index}
    if not re.fullmatch(r"-?\d+", index):
        try:
            number = backend.evaluate(index, timeout).value.strip()
        except DbgError:
            return names
        names |= {f"[{number}]", number}
    return names
