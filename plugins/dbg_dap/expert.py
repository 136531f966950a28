"""DAP-level ops for experts: scopes, variables by reference or by path,
disassembly, memory, instruction breakpoints, modules, sources, exception
info, and any raw DAP request. Each is refused on our side when the adapter
did not announce the capability it needs.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import re
from collections.abc import Iterator

from dbg_dap.inspection import DapInspection, pointee_row
from dbg_dap.ops import MAX_CHILDREN, VARS_PAGE
from dbg_dap.profile_base import AdapterProfile
from dbgcore.api import BreakOptions, Message, OpFailed, Support, UsageError, number_or_name

#: An op's arguments or answer: a JSON object.
Payload = Message

#: Requests that need a capability (the spec's pairing), for `dbg dap`.
REQUEST_CAPABILITY = {
    "configurationDone": "supportsConfigurationDoneRequest",
    "setFunctionBreakpoints": "supportsFunctionBreakpoints",
    "setExpression": "supportsSetExpression",
    "setVariable": "supportsSetVariable",
    "dataBreakpointInfo": "supportsDataBreakpoints",
    "setDataBreakpoints": "supportsDataBreakpoints",
    "setInstructionBreakpoints": "supportsInstructionBreakpoints",
    "disassemble": "supportsDisassembleRequest",
    "readMemory": "supportsReadMemoryRequest",
    "writeMemory": "supportsWriteMemoryRequest",
    "loadedSources": "supportsLoadedSourcesRequest",
    "modules": "supportsModulesRequest",
    "exceptionInfo": "supportsExceptionInfoRequest",
    "gotoTargets": "supportsGotoTargetsRequest",
    "goto": "supportsGotoTargetsRequest",
    "stepInTargets": "supportsStepInTargetsRequest",
    "stepBack": "supportsStepBack",
    "reverseContinue": "supportsStepBack",
    "restartFrame": "supportsRestartFrame",
    "completions": "supportsCompletionsRequest",
    "terminate": "supportsTerminateRequest",
    "restart": "supportsRestartRequest",
    "cancel": "supportsCancelRequest",
    "terminateThreads": "supportsTerminateThreadsRequest",
    "breakpointLocations": "supportsBreakpointLocationsRequest",
    "setExceptionBreakpoints": "",
}
KNOWN_REQUESTS = set(REQUEST_CAPABILITY) | {
    "initialize", "launch", "attach", "disconnect", "setBreakpoints", "continue", "next",
    "stepIn", "stepOut", "pause", "stackTrace", "scopes", "variables", "source", "threads",
    "evaluate", "locations",
}

#: The requests that begin and end the debug session, which dbg sends
#: itself, and the command that does it. Sent raw, each leaves the session
#: other than dbg holds it: a second initialize or launch confuses the
#: adapter, and debugpy answers a disconnect that leaves a running program
#: behind only once the program ends (`dbg dap` waited out its timeout).
SESSION_REQUESTS = {"initialize": "dbg start", "launch": "dbg start or dbg restart",
                    "attach": "dbg attach", "disconnect": "dbg kill"}

#: Expert op -> the capability it needs and what it is called in an error
#: (ops not listed work with every adapter). The ops check it before they
#: send anything, and `dbg caps` reads it: one table for both.
OP_CAPABILITY = {
    "disasm": ("supportsDisassembleRequest", "disassembly"),
    "memory-read": ("supportsReadMemoryRequest", "memory reads"),
    "memory-write": ("supportsWriteMemoryRequest", "memory writes"),
    "break-instruction": ("supportsInstructionBreakpoints", "instruction breakpoints"),
    "modules": ("supportsModulesRequest", "module listing"),
    "sources": ("supportsLoadedSourcesRequest", "loaded sources"),
    "exception": ("supportsExceptionInfoRequest", "exception info"),
}


def require_op(b: DapInspection, op: str) -> None:
    """Refuse ``op`` on our side unless the adapter announced what it needs."""
    capability, title = OP_CAPABILITY[op]
    b.dap_session().require(capability, title, b.tool_name, b.profile.hints.get(op, ""))


#: Each child's value `dbg vars` shows is cut at this length (`cut`: its own).
VARS_VALUE_CHARS = 400

_PATH_RE = re.compile(r"\.?([A-Za-z_$][\w$]*)|\[\s*([^\]]+?)\s*\]")


def op_scopes(b: DapInspection, args: Payload, timeout: float) -> Payload:
    if args.get("frame") is not None:
        b.select_frame(int(args["frame"]), timeout)
    return {"scopes": [{"name": s.get("name"), "reference": s.get("variablesReference"),
                        "expensive": bool(s.get("expensive")),
                        "hint": s.get("presentationHint")} for s in b.scopes(timeout)]}


def _variable_rows(rows: list[Payload]) -> list[Payload]:
    out = []
    for v in rows:
        row = {"name": v.get("name"), "value": v.get("value"), "type": v.get("type"),
               "reference": v.get("variablesReference", 0)}
        value = str(v.get("value") or "")
        if len(value) > VARS_VALUE_CHARS:
            # A page of 100 stays some KB (debugpy answers 64 KB of a string).
            row.update(value=value[:VARS_VALUE_CHARS - 3] + "...", cut=len(value))
        out.append(row)
    return out


def _resolve_path(b: DapInspection, path: str, timeout: float) -> tuple[int, Payload]:
    """A value path like ``cart.items[2]`` -> its variablesReference at this
    stop, and its row (the adapter's answer for it)."""
    parts = [m.group(1) or m.group(2).strip("'\"") for m in _PATH_RE.finditer(path)]
    if not parts or "".join(_PATH_RE.sub("", path).split()):
        raise UsageError(f"bad value path {path!r}", "use NAME, NAME.FIELD or NAME[INDEX]")
    candidates: list[Payload] = []
    for scope in b.scopes(timeout):
        if not scope.get("expensive"):
            candidates += b.variables(int(scope["variablesReference"]), timeout)
    walked: list[str] = []
    for index, part in enumerate(parts):
        match = next((v for v in _unfolded(b, candidates, timeout) if _names(v, part)), None)
        pointee = pointee_row(candidates) if match is None and walked else None
        if pointee is not None:
            # A pointer or reference's one child is what it points to (gdb
            # names it "value", lldb "*name"): `stock.names` of a `&mut Stock`
            # goes through it, as the language's own `.` does.
            candidates = b.variables(int(pointee["variablesReference"]), timeout)
            match = next((v for v in _unfolded(b, candidates, timeout) if _names(v, part)), None)
        if match is None:
            where = ".".join(walked) or "the selected frame"
            raise OpFailed(f"no {part!r} in {where}", "see `dbg locals` or `dbg vars`")
        walked.append(part)
        reference = int(match.get("variablesReference") or 0)
        smart = b.smart_pointee(match, timeout)
        if smart is not None:
            # A C++ smart pointer: a path goes on through what it points to,
            # as `p->owner` does (not through its raw pointer's own row).
            if not smart[1] and smart[0] == "nullptr":
                raise OpFailed(f"{'.'.join(walked)} is nullptr: it points to nothing")
            reference = smart[1]
        if index == len(parts) - 1:
            # A value without children (an int) answers as its own one row.
            return reference, match
        if not reference:
            raise OpFailed(f"{'.'.join(walked)} has no children")
        candidates = _children_named(b, reference, match, parts[index + 1], timeout)
    raise OpFailed(f"cannot resolve {path}")


def _children_named(b: DapInspection, reference: int, row: Payload, part: str,
                    timeout: float) -> list[Payload]:
    """The children of ``reference`` (``row``'s) among which ``part`` is
    looked for: an index's own page where they page (element 9,999,999 of an
    array is asked for alone), else the children the adapter gives."""
    if part.isdigit() and b.pages_children_of(row):
        page = b.variables(reference, timeout, int(part), 1, indexed=True)
        if any(_names(child, part) for child in page):
            return page
    return b.variables(reference, timeout)


def _names(row: Payload, part: str) -> bool:
    name = str(row.get("name"))
    if name in (part, f"[{part}]", f"'{part}'", f'"{part}"'):
        return True
    # Adapters pad indices to a common width (debugpy: "0042" of 10000 items).
    return name.isdigit() and part.isdigit() and name.lstrip("0") == part.lstrip("0")


def _unfolded(b: DapInspection, rows: list[Payload], timeout: float,
              skip: int = 0) -> Iterator[Payload]:
    """A value's own children in order, after the first ``skip`` of them: the
    adapter's synthetic groups left out, and the folds it puts long
    containers in opened as they are reached (debugpy lists 100 items, then
    "more" holding buckets "[100:1100]"...). A fold of known size that lies
    wholly within the skipped children is jumped without being fetched."""
    pending = list(reversed(rows))
    while pending:
        row = pending.pop()
        kind = b.profile.child_kind(row)
        if kind == "group":
            continue
        if kind == "fold":
            size = b.profile.fold_size(row)
            if size is not None and size <= skip:
                skip -= size
            else:
                pending.extend(reversed(b.variables(int(row["variablesReference"]), timeout)))
            continue
        if skip:
            skip -= 1
            continue
        yield row


def op_vars(b: DapInspection, args: Payload, timeout: float) -> Payload:
    target = number_or_name(str(args["ref"]), "vars REF")
    b.stack_frames(timeout)  # a resume since: the references' rows are forgotten
    if isinstance(target, int):
        reference, row = target, b.parent_rows.get(target, {})
    else:
        reference, row = _resolve_path(b, target, timeout)
        if not reference:
            return {"reference": 0, "variables": _variable_rows([row]), "target": target}
    total = b.profile.children_counted(row)
    start, asked = int(args.get("start") or 0), int(args.get("count") or 0)
    count = asked or VARS_PAGE
    if b.pages_children_of(row):
        # One more than shown, to know whether there is more when the
        # adapter did not count the children.
        rows = b.variables(reference, timeout, start, min(count + 1, MAX_CHILDREN),
                           indexed=True)
        more = bool(rows) and (start + count < total if total else len(rows) > count)
        rows = rows[:count]
    elif start or asked:
        # The adapter cannot page, so dbg cuts the page out of the children.
        rows = list(itertools.islice(_unfolded(b, b.variables(reference, timeout), timeout,
                                               start), count + 1))
        more = len(rows) > count
        rows = rows[:count]
    else:
        # The adapter's own first answer, which it bounds (debugpy: 100
        # items, then the folds holding the rest).
        return {"reference": reference, "variables": _variable_rows(
            b.variables(reference, timeout))}
    answer: Payload = {"reference": reference, "variables": _variable_rows(rows),
                       "start": start, "shown": len(rows), "total": total or None,
                       "more": more, "target": str(args["ref"])}
    if total and b.profile.children_listed_only(row):
        answer["listed_only"] = True  # more than `total`, which the debugger did not list
    return answer


def _current_ip(b: DapInspection, timeout: float) -> str:
    frames = b.stack_frames(timeout)
    index = min(b.frame_index, len(frames) - 1) if frames else -1
    ip = frames[index].get("instructionPointerReference") if index >= 0 else None
    if not ip:
        raise UsageError("no address given and the stop has no instruction pointer",
                         "give one: dbg disasm ADDRESS")
    return str(ip)


def op_disasm(b: DapInspection, args: Payload, timeout: float) -> Payload:
    dap = b.stopped_session("disasm")
    require_op(b, "disasm")
    count = int(args.get("count") or 10)
    if args.get("address"):
        address = _address(b, str(args["address"]), timeout)
        before = int(args.get("before") or 0)
    else:
        address = _current_ip(b, timeout)
        before = int(args.get("before", count // 3))
        start = b.profile.disasm_start(b.host, address, timeout) if before else None
        if start is not None:
            address, before = start, 0
    body = dap.request("disassemble", {"memoryReference": address, "instructionOffset": -before,
                                       "instructionCount": count, "resolveSymbols": True},
                       timeout)
    rows = [{"address": i.get("address"), "bytes": i.get("instructionBytes"),
             "instruction": i.get("instruction"), "symbol": i.get("symbol"),
             "line": i.get("line")} for i in body.get("instructions") or []]
    return {"address": address, "instructions": rows}


_ADDRESS_RE = re.compile(r"(?:0x[0-9a-fA-F]+|\d+)")
_HEX_RE = re.compile(r"0x[0-9a-fA-F]+")


def _address(b: DapInspection, text: str, timeout: float) -> str:
    """An address as given (0x..., decimal), or the address of a value: `&x`,
    a pointer expression, or a variable name (its storage is read)."""
    if _ADDRESS_RE.fullmatch(text.strip()):
        return text.strip()
    expression = text if text.lstrip().startswith("&") else f"&({text})"
    try:
        value = b.evaluate(expression, timeout).value
    except OpFailed as exc:
        raise OpFailed(f"cannot take the address of {text}: {exc.message}",
                       "give an address (0x...) or an lvalue such as a variable") from exc
    found = _HEX_RE.search(value)
    if not found:
        raise OpFailed(f"{expression} = {value} is not an address",
                       "give an address (0x...) or an lvalue such as a variable")
    return found.group(0)


def op_memory_read(b: DapInspection, args: Payload, timeout: float) -> Payload:
    dap = b.stopped_session("memory read")
    require_op(b, "memory-read")
    count = int(args["count"])
    if count < 1 or count > 1 << 20:
        raise UsageError("COUNT must be between 1 and 1048576 bytes")
    address = _address(b, str(args["address"]), timeout)
    body = dap.request("readMemory", {"memoryReference": address, "count": count}, timeout)
    data = base64.b64decode(body.get("data") or "")
    return {"address": body.get("address"), "hex": data.hex(),
            "unreadable": body.get("unreadableBytes", 0)}


def op_memory_write(b: DapInspection, args: Payload, timeout: float) -> Payload:
    dap = b.stopped_session("memory write")
    require_op(b, "memory-write")
    try:
        data = binascii.unhexlify(str(args["hex"]).replace(" ", ""))
    except (binascii.Error, ValueError) as exc:
        raise UsageError(f"bad hex bytes: {exc}", "e.g. dbg memory write 0x1000 deadbeef") from exc
    body = dap.request("writeMemory", {"memoryReference": _address(b, str(args["address"]),
                                                                   timeout),
                                       "data": base64.b64encode(data).decode()}, timeout)
    return {"address": args["address"], "written": body.get("bytesWritten", len(data))}


def op_break_instruction(b: DapInspection, args: Payload, timeout: float) -> Payload:
    require_op(b, "break-instruction")
    options = BreakOptions(condition=args.get("condition"), hit_count=args.get("hit"))
    return {"breakpoint": b.breaks.add_instruction(str(args["address"]), options,
                                                   timeout).to_dict()}


def op_modules(b: DapInspection, args: Payload, timeout: float) -> Payload:
    dap = b.dap_session()
    require_op(b, "modules")
    body = dap.request("modules", {"startModule": 0, "moduleCount": 0}, timeout)
    return {"modules": [{"id": m.get("id"), "name": m.get("name"), "path": m.get("path"),
                         "symbols": m.get("symbolStatus")} for m in body.get("modules") or []]}


def op_sources(b: DapInspection, args: Payload, timeout: float) -> Payload:
    dap = b.dap_session()
    require_op(b, "sources")
    body = dap.request("loadedSources", {}, timeout)
    return {"sources": [{"name": s.get("name"), "path": s.get("path")}
                        for s in body.get("sources") or []]}


def op_exception(b: DapInspection, args: Payload, timeout: float) -> Payload:
    dap = b.stopped_session("exception")
    if b.thrown is not None:
        # An uncaught C++ exception, ended by abort() (what libstdc++ printed
        # of it, when the program ran here): the stack down to the throw.
        kind, _, what = b.thrown[1].partition(": ")
        return {"exception": kind, "description": what,
                "stack": _call_order(b, timeout, b.thrown[0]), "chain": []}
    if b.last_reason == "core":
        # How the process died is the stop's description (its signal, and
        # what the debugger adds: a Go panic's message); the stack, where.
        return {"exception": b.core_signal or "core", "description": b.last_description,
                "stack": _call_order(b, timeout, b.stop_frame), "chain": []}
    if b.last_reason not in ("exception", "signal"):
        handled = b.profile.handled_exception(b.host, timeout)
        if handled is not None:
            return handled
        raise OpFailed("the program did not stop at an exception or a signal, nor inside an "
                       "except block", "`dbg stack` shows where it is")
    if b.test_failed:
        # A failed test (delve: a stop in testing's Fail) is no exception of
        # the debugger's: the stop says which test and why; the stack ends at
        # the test's failing line.
        return {"exception": "FAIL", "description": b.last_description,
                "stack": _call_order(b, timeout, b.stop_frame)}
    if not dap.supports("supportsExceptionInfoRequest"):
        # The stop says what; the stack says where, outermost first.
        return {"exception": b.last_reason, "description": b.last_description,
                "stack": _call_order(b, timeout)}
    body = dap.request("exceptionInfo", {"threadId": b.thread_id or 0}, timeout)
    details = body.get("details") or {}
    # An adapter's note on where it paused (debugpy: "execution is paused
    # at: _run_module_as_main") is not said: the stop is where dbg says.
    name = b.profile.split_exception_note(str(body.get("exceptionId") or ""))[0]
    full_type = details.get("fullTypeName") or details.get("typeName")
    stack, chain = b.profile.exception_stack(b.host, str(details.get("stackTrace") or ""),
                                             timeout)
    payload = {"exception": name, "description": body.get("description"),
               "break_mode": body.get("breakMode"),
               "type": b.profile.split_exception_note(full_type)[0] if full_type else name,
               "stack": stack or _call_order(b, timeout), "chain": chain}
    return payload


def _call_order(b: DapInspection, timeout: float, innermost: int = 0) -> str:
    """The stack as a traceback: outermost first, the runner's frames left
    out (and the frames above ``innermost``)."""
    frames = b.stack(None, timeout)[innermost:]
    while len(frames) > 1 and frames[-1].internal:
        frames.pop()
    return "\n".join(f'  File "{f.file or "?"}", line {f.line or "?"}, in {f.function or "?"}'
                     for f in reversed(frames))


def op_dap(b: DapInspection, args: Payload, timeout: float) -> Payload:
    dap = b.dap_session()
    command = str(args["command"])
    try:
        arguments = json.loads(args["arguments"]) if args.get("arguments") else None
    except json.JSONDecodeError as exc:
        raise UsageError(f"arguments are not JSON: {exc}", "quote them: '{\"threadId\": 1}'") \
            from exc
    if arguments is not None and not isinstance(arguments, dict):
        raise UsageError("arguments must be a JSON object")
    if command in SESSION_REQUESTS:
        raise UsageError(f"dbg sends {command} itself: it begins or ends the session, which "
                         f"`dbg dap` must not", f"use `{SESSION_REQUESTS[command]}`")
    needed = REQUEST_CAPABILITY.get(command)
    if needed:
        dap.require(needed, f"the {command} request", b.tool_name)
    if command not in KNOWN_REQUESTS and not b.profile.safe_unknown_requests:
        raise UsageError(f"{command!r} is not a DAP request {b.tool_name} is known to answer",
                         f"{b.tool_name} can crash on requests it does not implement")
    return {"command": command, "body": dap.request(command, arguments, timeout)}


def op_support(canonical: dict[str, Support], extra: list[str], caps: Payload,
               profile: AdapterProfile) -> dict[str, Support]:
    """Every op's support, from the capabilities an adapter announced and
    what dbg does on top of them (the same checks the ops make)."""
    out = dict(canonical)
    if caps.get("supportsDataBreakpoints"):
        out["watch"] = "native"
    else:
        out["watch"] = "fallback" if profile.console_watch or profile.line_watches else "none"
    out["catch"] = "native" if caps.get("exceptionBreakpointFilters") else "none"
    # An evaluator that assigns (assignment_expression) sets without setVariable.
    assigns = type(profile).assignment_expression is not AdapterProfile.assignment_expression
    out["set"] = ("native" if caps.get("supportsSetExpression") or caps.get("supportsSetVariable")
                  or assigns else "none")
    if profile.features.get("attach") == "none":
        out["attach"] = "none"  # the adapter runs its program itself (rdbg)
    for op in extra:
        needed = OP_CAPABILITY.get(op)
        out[op] = "native" if needed is None or caps.get(needed[0]) else "none"
    if out.get("exception") == "none":
        out["exception"] = "fallback"  # the stop's description and the stack
    return out
