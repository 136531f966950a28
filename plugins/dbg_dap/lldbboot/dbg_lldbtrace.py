"""`dbg trace` inside lldb (lldb-dap): imported by dbg through the console
(``script import dbg_lldbtrace``) the first time a session traces; dbg then
calls :func:`start` and :func:`stop` by ``script``.

Each traced function gets a breakpoint whose Python callback writes the call
to the trace file (dbgcore/vocab/traces.py describes it) and answers False, so
the program does not stop there. Its return is seen by a breakpoint on the
return address (one per address, whatever the call), whose callback matches
the call by the stack pointer (after a return it is the call's CFA) and reads
the return value from the ABI's return register with the function's return
type: integers, pointers, enums, bools and chars, float and double, on
x86-64 and AArch64. Anything else (a struct, a long double) is recorded with
no value: lldb offers a return value only after its own step out, which a
callback may not run. With ``--lines``, a breakpoint on each line of a
traced function writes the locals changed since the call's previous line.

On x86-64 without ``--lines``, when every way out of each traced function is
a plain ``ret``, the returns are seen there instead: the callback records the
return, then does the ``ret`` itself (the pc from the stack, the stack
pointer 8 up), so lldb goes on from an address with no breakpoint and skips
its step over one (a single step and three more requests to lldb-server:
about half of what a stop costs). Where the ``ret`` or the address it goes
to is another breakpoint's place, lldb's own step runs it, or that
breakpoint would be stepped over unseen.

For the same reason, in that case, the instruction at each traced function's
entry breakpoint is copied into a page of the program's (followed by a jump
back) when it can run anywhere (no branch, nothing relative to the pc, memory
only through the frame or stack pointer): the callback sends the program on
from the copy, as gdb's displaced stepping does, and a ``ret`` goes on from a
copy of ``ret`` (one register written instead of two).

lldb-dap announces only the breakpoints it made (those with its label), so
these stay out of the client's sight. A C++ catch (``__cxa_begin_catch``)
and a glibc longjmp on x86-64 say which open calls they leave, since the
catch or the setjmp may go on where one of them would have returned.

Runs inside lldb's Python: no syntax past Python 3.8.
"""

from __future__ import annotations

import json
import re
import sys
import time
from types import FrameType
from typing import Any, TextIO

import lldb  # type: ignore[import-untyped,import-not-found,unused-ignore]

_LONGJMP = "left without returning (longjmp)"
_CAUGHT = "left by a C++ exception"
_BEGIN_CATCH = "__cxa_begin_catch"
_LONGJMPS = ("longjmp", "_longjmp", "siglongjmp", "__longjmp_chk")
#: How many children of a value without a value of its own are shown.
_CHILDREN = 40


class _Call:
    __slots__ = ("cfa", "ended", "last_locals", "return_pc", "return_type", "seq", "skip_pc",
                 "started", "thread")

    def __init__(self, seq: int, cfa: int, thread: int, return_type: Any) -> None:
        self.seq = seq
        #: The call's CFA: the stack pointer its return leaves (x86-64,
        #: AArch64), and what tells a live caller (above) from a callee.
        self.cfa = cfa
        self.thread = thread
        self.return_type = return_type
        self.ended = False
        #: perf_counter_ns() when it was recorded: its duration is wall time
        #: to its end, lldb's own work at the stops inside it included.
        self.started = time.perf_counter_ns()
        self.last_locals: dict[str, str] = {}
        self.skip_pc: int | None = None
        #: Where it returns to: a line breakpoint of its caller there may be
        #: hit before the return's breakpoint.
        self.return_pc: int | None = None


class _Tracer:
    def __init__(self, target: Any, path: str, lines: bool, max_calls: int, chars: int) -> None:
        self.target = target
        self.out: TextIO = open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed by stop)
        self.lines = lines
        self.max_calls = max_calls
        self.chars = chars
        self.seq = 0
        #: The last event's number (``n``): their order across calls, for a replay.
        self.order = 0
        self.dropped = 0
        #: Returns whose value one register does not hold (not read).
        self.unread = 0
        #: When (time.monotonic) the next hit stops the program instead.
        self.deadline = float("inf")
        self.stopped_at_deadline = False
        self.open: dict[int, list[_Call]] = {}
        #: Breakpoint id -> what it is: ("entry", name), ("line", ""), ...
        self.kinds: dict[int, tuple[str, str]] = {}
        #: Return addresses with a breakpoint of ours.
        self.returns: set[int] = set()
        #: A traced function's breakpoint address -> its (file, first line).
        self.where: dict[int, tuple[str | None, int | None]] = {}
        #: Returns are seen at the traced functions' ``ret`` instructions
        #: (no breakpoints on return addresses).
        self.rets_done = False
        #: Where the other breakpoints were once the entries' were made: a
        #: ``ret`` the tracer does must not go on from one of them.
        self.sites: set[int] = set()
        self.process = target.GetProcess()
        #: An entry's or a ``ret``'s address -> where its copy is.
        self.copies: dict[int, int] = {}
        #: The page holding the copies (0: none).
        self.page = 0
        #: What is looked up once: a call site's [file, line, function] by
        #: its pc, a traced function's return type by its entry's.
        self.callers: dict[int, list[Any]] = {}
        self.return_types: dict[int, Any] = {}

    # -- writing --------------------------------------------------------------

    def write(self, event: dict[str, Any]) -> None:
        if event.get("e") != "dropped":
            self.order += 1
            event["n"] = self.order
        self.out.write(json.dumps(event) + "\n")

    def text(self, value: Any, depth: int = 0) -> str:
        shown = _shown(value, depth)
        return shown if len(shown) <= self.chars else shown[: self.chars - 1] + "\u2026"

    def values(self, frame: Any, arguments_only: bool) -> list[tuple[str, str]]:
        found = []
        listed = frame.GetVariables(True, not arguments_only, False, True)
        seen = set()
        for index in range(listed.GetSize()):
            value = listed.GetValueAtIndex(index)
            name = value.GetName()
            if name and name not in seen:
                seen.add(name)
                found.append((name, self.text(value)))
        return found

    # -- breakpoints ----------------------------------------------------------

    def breakpoint(self, bp: Any, kind: str, name: str = "") -> None:
        self.kinds[bp.GetID()] = (kind, name)
        bp.SetScriptCallbackFunction("dbg_lldbtrace._hit")

    def return_break(self, address: int) -> None:
        if self.rets_done:
            return
        if address and address not in self.returns:
            self.returns.add(address)
            self.breakpoint(self.target.BreakpointCreateByAddress(address), "return")

    # -- events ---------------------------------------------------------------

    def enter(self, frame: Any, function: str) -> None:
        if self.seq >= self.max_calls:
            self.dropped += 1
            return
        thread = frame.GetThread()
        tid = thread.GetThreadID()
        cfa = frame.GetCFA()
        stack = self.open.setdefault(tid, [])
        while stack and stack[-1].cfa <= cfa:
            self.left(stack.pop(), _LONGJMP)
        caller = thread.GetFrameAtIndex(frame.GetFrameID() + 1)
        where = None
        if caller.IsValid():
            caller_pc = caller.GetPC()
            where = self.callers.get(caller_pc)
            if where is None:
                entry = caller.GetLineEntry()
                spec = entry.GetFileSpec()
                where = self.callers[caller_pc] = [
                    spec.fullpath if spec.IsValid() and spec.fullpath else None,
                    entry.GetLine() or None, caller.GetFunctionName()]
            self.return_break(caller_pc)
        self.seq += 1
        pc = frame.GetPC()
        if pc not in self.return_types:
            function_type = frame.GetFunction().GetType()
            self.return_types[pc] = (function_type.GetFunctionReturnType()
                                     if function_type.IsValid() else None)
        call = _Call(self.seq, cfa, tid, self.return_types[pc])
        file, line = self.where.get(pc, (None, None))
        self.write({"e": "call", "seq": call.seq, "fn": function,
                    "args": self.values(frame, True), "file": file, "line": line,
                    "caller": where, "thread": tid, "depth": len(stack),
                    "parent": stack[-1].seq if stack else None})
        call.return_pc = caller.GetPC() if caller.IsValid() else None
        stack.append(call)
        if self.lines:
            self.line_reached(call, frame)
            call.skip_pc = frame.GetPC()

    def line_reached(self, call: _Call, frame: Any) -> None:
        now = dict(self.values(frame, False))
        changed = [[n, v] for n, v in now.items() if call.last_locals.get(n) != v]
        call.last_locals = now
        self.write({"e": "line", "seq": call.seq, "line": frame.GetLineEntry().GetLine(),
                    "changed": changed})

    def find(self, frame: Any, cfa: int, returning_to: int | None = None) -> _Call | None:
        """The open call of this thread whose CFA is ``cfa``; the calls
        above it are gone (a longjmp), but for one returning to
        ``returning_to``, whose breakpoint there is yet to be hit."""
        stack = self.open.get(frame.GetThread().GetThreadID()) or []
        for index in range(len(stack) - 1, -1, -1):
            if stack[index].cfa == cfa:
                returning = [c for c in stack[index + 1:]
                             if returning_to is not None and c.return_pc == returning_to]
                for gone in stack[index + 1:]:
                    if gone not in returning:
                        self.left(gone, _LONGJMP)
                stack[index + 1:] = returning
                return stack[index]
        return None

    def line(self, frame: Any) -> None:
        call = self.find(frame, frame.GetCFA(), frame.GetPC())
        if call is None:
            return  # a call past --max, or one entered before the trace
        if call.skip_pc is not None and call.skip_pc == frame.GetPC():
            call.skip_pc = None
            return
        call.skip_pc = None
        self.line_reached(call, frame)

    def returned(self, frame: Any) -> None:
        # Just returned: the stack pointer is the call's CFA.
        call = self.find(frame, frame.GetSP())
        if call is None:
            return  # another call returning here: not traced, or past --max
        self.open[call.thread].pop()
        call.ended = True
        self.write({"e": "return", "seq": call.seq,
                    "value": _return_value(self, frame, call.return_type),
                    "ns": time.perf_counter_ns() - call.started})

    def ret(self, frame: Any) -> None:
        """At a ``ret`` of a traced function: the call whose CFA is just
        above the return address returns; then the ``ret`` is done here."""
        sp = frame.GetSP()
        call = self.find(frame, sp + 8)
        if call is not None:
            self.open[call.thread].pop()
            call.ended = True
            self.write({"e": "return", "seq": call.seq,
                        "value": _return_value(self, frame, call.return_type),
                        "ns": time.perf_counter_ns() - call.started})
        error = lldb.SBError()
        back = self.process.ReadPointerFromMemory(sp, error)
        pc = frame.GetPC()
        if error.Fail() or back in self.sites or pc in self.sites:
            return  # lldb steps over the ret: the breakpoint there is seen
        copy = self.copies.get(pc)
        if copy is not None:
            frame.SetPC(copy)
        elif frame.FindRegister("rsp").SetValueFromCString(str(sp + 8)):
            frame.SetPC(back)

    def go_on_from_copy(self, frame: Any) -> None:
        """At an entry: on from the copy of its instruction, if it has one."""
        copy = self.copies.get(frame.GetPC())
        if copy is not None:
            frame.SetPC(copy)

    def left(self, call: _Call, why: str) -> None:
        if not call.ended:
            call.ended = True
            self.write({"e": "raise", "seq": call.seq, "value": why,
                        "ns": time.perf_counter_ns() - call.started})

    def gone_below(self, frame: Any, sp: int, why: str) -> None:
        stack = self.open.get(frame.GetThread().GetThreadID()) or []
        while stack and stack[-1].cfa <= sp:
            self.left(stack.pop(), why)

    def caught(self, frame: Any) -> None:
        catcher = frame.GetThread().GetFrameAtIndex(frame.GetFrameID() + 1)
        if catcher.IsValid():
            self.gone_below(frame, catcher.GetSP(), _CAUGHT)

    def jumping(self, frame: Any) -> None:
        target = _longjmp_target(self.target, frame)
        if target is not None:
            self.gone_below(frame, target, _LONGJMP)

    # -- the end --------------------------------------------------------------

    def stop(self) -> None:
        for bp_id in self.kinds:
            self.target.BreakpointDelete(bp_id)
        if self.page and self.process.GetState() == lldb.eStateStopped and not any(
                self.page <= thread.GetFrameAtIndex(0).GetPC() < self.page + _PAGE
                for thread in self.process):
            # (A thread paused in a copy keeps the page.)
            self.process.DeallocateMemory(self.page)
        self.page = 0
        self.kinds.clear()
        self.returns.clear()
        if self.dropped:
            self.write({"e": "dropped", "count": self.dropped})
        self.out.close()


def _shown(value: Any, depth: int) -> str:
    """A value as lldb shows it: its value and summary, or its children."""
    if not value.IsValid():
        return "<unavailable>"
    own = [part for part in (value.GetValue(), value.GetSummary()) if part]
    if own:
        return " ".join(own)
    count = value.GetNumChildren()
    if not count:
        error = value.GetError()
        return f"<{error.GetCString()}>" if error.Fail() else "{}"
    if depth >= 3:
        return "{...}"
    parts = []
    for index in range(min(count, _CHILDREN)):
        child = value.GetChildAtIndex(index)
        name = child.GetName() or ""
        text = _shown(child, depth + 1)
        parts.append(f"{name} = {text}" if name and not name.startswith("[") else text)
    return "{" + ", ".join(parts) + (", ..." if count > _CHILDREN else "") + "}"


#: Return registers by architecture: (integer, double, float).
_RETURN_REGISTERS = {"x86_64": ("rax", "xmm0", "xmm0"), "aarch64": ("x0", "d0", "s0"),
                     "arm64": ("x0", "d0", "s0")}
_FLOATS = {lldb.eBasicTypeDouble: 1, lldb.eBasicTypeFloat: 2}
_NOT_IN_ONE_REGISTER = {lldb.eBasicTypeLongDouble, lldb.eBasicTypeInt128,
                        lldb.eBasicTypeUnsignedInt128, lldb.eBasicTypeFloatComplex,
                        lldb.eBasicTypeDoubleComplex, lldb.eBasicTypeLongDoubleComplex,
                        lldb.eBasicTypeHalf}


def _return_value(tracer: _Tracer, frame: Any, return_type: Any) -> str | None:
    """What the call just returned, read from the ABI's return register;
    None for void and for what one register does not hold."""
    if return_type is None or not return_type.IsValid():
        return None
    kind = return_type.GetCanonicalType()
    basic = kind.GetBasicType()
    if basic == lldb.eBasicTypeVoid:
        return None
    registers = _RETURN_REGISTERS.get(tracer.target.GetTriple().split("-")[0])
    type_class = kind.GetTypeClass()
    if registers is None or basic in _NOT_IN_ONE_REGISTER or kind.GetByteSize() > 8:
        register = None
    elif basic in _FLOATS:
        register = registers[_FLOATS[basic]]
    elif type_class in (lldb.eTypeClassBuiltin, lldb.eTypeClassPointer,
                        lldb.eTypeClassEnumeration, lldb.eTypeClassReference):
        register = registers[0]
    else:
        register = None  # a struct or union: in registers or memory by the ABI's rules
    if register is None:
        tracer.unread += 1
        return None
    data = frame.FindRegister(register).GetData()
    value = tracer.target.CreateValueFromData("ret", data, return_type)
    return tracer.text(value)


def _longjmp_target(target: Any, frame: Any) -> int | None:
    """Where a glibc longjmp on x86-64, at its first instruction, takes the
    stack pointer: its jmp_buf's (first argument) saved rsp, which glibc
    mangles with the thread's pointer guard (xor, then rotated left 17
    bits). None elsewhere, or when it does not look like a place above."""
    if not target.GetTriple().startswith("x86_64"):
        return None
    process = target.GetProcess()
    error = lldb.SBError()
    sp = frame.GetSP()
    guard = process.ReadUnsignedFromMemory(
        frame.FindRegister("fs_base").GetValueAsUnsigned() + 0x30, 8, error)
    saved = process.ReadUnsignedFromMemory(
        frame.FindRegister("rdi").GetValueAsUnsigned() + 6 * 8, 8, error)
    if error.Fail():
        return None
    result = (((saved >> 17) | (saved << 47)) & 0xFFFFFFFFFFFFFFFF) ^ guard
    return result if sp < result < sp + (1 << 26) else None


#: The trace in progress, and the first fault inside a callback.
_tracer: _Tracer | None = None
_faults: list[str] = []


def _hit(frame: Any, location: Any, extra: Any = None, internal: Any = None) -> bool:
    tracer = _tracer
    if tracer is None:
        return False
    if time.monotonic() >= tracer.deadline:
        # The op's time is out: stop here. A pause sent now would race the
        # stops of these breakpoints (lldb-dap may then not answer it).
        tracer.stopped_at_deadline = True
        return True
    kind, name = tracer.kinds.get(location.GetBreakpoint().GetID(), ("", ""))
    try:
        if kind == "entry":
            tracer.enter(frame, name)
            tracer.go_on_from_copy(frame)
        elif kind == "return":
            tracer.returned(frame)
        elif kind == "ret":
            tracer.ret(frame)
        elif kind == "line":
            tracer.line(frame)
        elif kind == "catch":
            tracer.caught(frame)
        elif kind == "longjmp":
            tracer.jumping(frame)
    except Exception as exc:
        if not _faults:
            _faults.append(f"{type(exc).__name__}: {exc}")
    if kind == "entry" and isinstance(internal, dict):
        _share_new_callbacks(internal)
    return False


def _share_new_callbacks(internal: dict[str, Any]) -> None:
    """lldb calls a callback through a wrapper it generates, which copies its
    session's names into its globals, runs the callback, and copies each
    session name back from its globals. A breakpoint given a callback here
    (a return address seen for the first time) adds a wrapper's name to the
    session meanwhile, missing from those globals: a KeyError that stops the
    program. The wrapper is found up the stack by its generated name."""
    frame: FrameType | None = sys._getframe(1)
    for _ in range(6):
        frame = frame.f_back if frame is not None else None
        if frame is None:
            return
        if frame.f_code.co_name.startswith("lldb_autogen_"):
            for name, value in internal.items():
                frame.f_globals.setdefault(name, value)
            return


def _function_starts(target: Any, name: str) -> list[int]:
    found = set()
    for context in target.FindFunctions(name, lldb.eFunctionNameTypeFull):
        symbol = context.GetSymbol()
        if symbol.IsValid():
            found.add(symbol.GetStartAddress().GetLoadAddress(target))
    if not found:
        for symbol in target.FindSymbols(name):
            found.add(symbol.GetStartAddress().GetLoadAddress(target))
    return sorted(a for a in found if a != lldb.LLDB_INVALID_ADDRESS)


def _rows(target: Any, address: Any) -> list[tuple[int, int]]:
    """The line table of the function at ``address``: (address, line),
    in address order."""
    function = address.GetFunction()
    unit = address.GetCompileUnit()
    if not function.IsValid() or not unit.IsValid():
        return []
    low = function.GetStartAddress().GetLoadAddress(target)
    high = function.GetEndAddress().GetLoadAddress(target)
    rows = []
    for index in range(unit.GetNumLineEntries()):
        row = unit.GetLineEntryAtIndex(index)
        pc = row.GetStartAddress().GetLoadAddress(target)
        if low <= pc < high and row.GetLine():
            rows.append((pc, row.GetLine()))
    return sorted(rows)


def _past_prologue(target: Any, address: Any) -> int:
    """Where a call's arguments are in place: lldb's own choice for a
    function breakpoint, but for a function all on one line, where lldb
    (without gcc marking the prologue's end) stays at its first address,
    before the arguments are stored: there, its line table's second row,
    as gdb does."""
    pc = address.GetLoadAddress(target)
    function = address.GetFunction()
    if not function.IsValid() or pc != function.GetStartAddress().GetLoadAddress(target):
        return int(pc)
    return next((row for row, _ in _rows(target, address) if row > pc), int(pc))


def _line_starts(target: Any, address: Any) -> list[int]:
    """The first address of each run of one line of the function at
    ``address`` (a loop's condition is a run of its own), from it on."""
    entry = address.GetLoadAddress(target)
    starts, previous = [], None
    for pc, line in _rows(target, address):
        if line != previous and pc >= entry:
            starts.append(pc)
        previous = line
    return starts


def _rets(target: Any, address: Any) -> list[int] | None:
    """The addresses of the plain ``ret`` instructions (``c3``, ``f3 c3``) of the
    x86-64 function at ``address``; None where it may leave otherwise: a
    jump out of it (a tail call) or through a register, another kind of
    return, or no instructions to read."""
    function = address.GetFunction()
    if not target.GetTriple().startswith("x86_64") or not function.IsValid():
        return None
    low = function.GetStartAddress().GetLoadAddress(target)
    high = function.GetEndAddress().GetLoadAddress(target)
    instructions = function.GetInstructions(target)
    found = []
    error = lldb.SBError()
    for index in range(instructions.GetSize()):
        instruction = instructions.GetInstructionAtIndex(index)
        mnemonic = (instruction.GetMnemonic(target) or "").lower()
        pc = instruction.GetAddress().GetLoadAddress(target)
        if mnemonic.startswith("ret") or mnemonic in ("rep", "repz", "bnd"):
            size = instruction.GetByteSize()
            raw = instruction.GetData(target).ReadRawData(error, 0, size)
            if error.Fail() or raw not in (b"\xc3", b"\xf3\xc3"):
                return None
            found.append(pc)
        elif mnemonic.startswith("j"):
            operand = (instruction.GetOperands(target) or "").split(";")[0].strip()
            try:
                destination = int(operand, 16)
            except ValueError:
                return None  # through a register or memory
            if not low <= destination < high:
                return None
        elif mnemonic.startswith(("iret", "sysret", "lret")):
            return None
    return found if instructions.GetSize() else None


#: The size of the page of copies; each copy's room in it.
_PAGE = 4096
_SLOT = 32
#: An absolute jump through the 8 bytes after it (``jmp *0(%rip)``).
_JUMP = b"\xff\x25\x00\x00\x00\x00"
#: Instructions that may not run from a copy: they branch, use the pc, or
#: reach memory (or the kernel) in ways not checked here.
_NOT_COPIED = re.compile(r"(j|call|ret|loop|sys|int|ud|hlt|rep|xbegin|xabort|lock|bnd|notrack"
                         r"|[c-gs]s$)")
#: The string instructions, which reach memory through rsi and rdi, however
#: they are shown (movsd with xmm registers is another, a move of a double).
_STRING = re.compile(r"(movs|stos|cmps|scas|lods|ins|outs)[bwlqd]?$")
#: A memory operand through the frame or stack pointer only (AT&T, Intel).
_FRAME_MEMORY = re.compile(r"(-?0x[0-9a-f]+|\d+)?\(%r[bs]p\)|\[r[bs]p(\s*[-+]\s*0x[0-9a-f]+)?\]")


def _copyable(target: Any, pc: int) -> bytes | None:
    """The instruction at ``pc``'s bytes, when they do the same from
    anywhere: None for a branch, anything relative to the pc, or memory
    reached otherwise than through the frame or stack pointer."""
    found = target.ReadInstructions(target.ResolveLoadAddress(pc), 1)
    if found.GetSize() != 1:
        return None
    instruction = found.GetInstructionAtIndex(0)
    mnemonic = (instruction.GetMnemonic(target) or "").lower()
    operands = (instruction.GetOperands(target) or "").lower()
    if not mnemonic or _NOT_COPIED.match(mnemonic) or "rip" in operands or (
            _STRING.match(mnemonic) and "xmm" not in operands):
        return None
    if ("(" in operands or "[" in operands) and \
            _FRAME_MEMORY.sub("", operands).count("(") + _FRAME_MEMORY.sub("", operands).count("["):
        return None
    size = instruction.GetByteSize()
    error = lldb.SBError()
    raw = instruction.GetData(target).ReadRawData(error, 0, size)
    if error.Fail() or not raw or len(raw) != size or len(raw) + len(_JUMP) + 8 > _SLOT:
        return None
    return bytes(raw)


def _copy_out(tracer: _Tracer, entries: list[int], rets: list[int]) -> None:
    """Copies of the entries' instructions that can run anywhere, each
    followed by a jump back, and of ``ret``, in a page of the program's;
    none where lldb cannot give one."""
    process = tracer.process
    copied = {pc: raw for pc in entries if (raw := _copyable(tracer.target, pc)) is not None}
    if not copied and not rets:
        return
    error = lldb.SBError()
    page = process.AllocateMemory(_PAGE, lldb.ePermissionsReadable | lldb.ePermissionsWritable
                                  | lldb.ePermissionsExecutable, error)
    if error.Fail() or not page or page == lldb.LLDB_INVALID_ADDRESS:
        return
    tracer.page = page
    code = bytearray(b"\xc3".ljust(_SLOT, b"\xcc"))
    copies = {pc: page for pc in rets}
    for pc, raw in copied.items():
        if len(code) + _SLOT > _PAGE:
            break
        copies[pc] = page + len(code)
        slot = raw + _JUMP + (pc + len(raw)).to_bytes(8, "little")
        code += slot.ljust(_SLOT, b"\xcc")
    if process.WriteMemory(page, bytes(code), error) == len(code) and error.Success():
        tracer.copies = copies


def _sites(target: Any) -> set[int]:
    """The addresses of every location of the target's breakpoints."""
    found = set()
    for index in range(target.GetNumBreakpoints()):
        bp = target.GetBreakpointAtIndex(index)
        for at in range(bp.GetNumLocations()):
            found.add(bp.GetLocationAtIndex(at).GetLoadAddress())
    return found


def start(debugger: Any, options_json: str) -> None:
    """Begin a trace ({"file", "functions", "lines", "max", "chars"});
    prints "tracing N breakpoints" or "dbg-trace error: WHY"."""
    global _tracer
    if _tracer is not None:
        stop()
    options = json.loads(options_json)
    target = debugger.GetSelectedTarget()
    tracer = _Tracer(target, options["file"], bool(options["lines"]), int(options["max"]),
                     int(options["chars"]))
    _faults.clear()
    _tracer = tracer
    rets: list[int] | None = [] if not tracer.lines else None
    users = _sites(target)
    all_entries: list[int] = []
    for name in options["functions"]:
        found = target.BreakpointCreateByName(name)
        entries = sorted({_past_prologue(target, found.GetLocationAtIndex(i).GetAddress())
                          for i in range(found.GetNumLocations())})
        target.BreakpointDelete(found.GetID())
        if not entries:
            stop()
            print(f"dbg-trace error: no function {name} in the program")
            return
        all_entries += entries
        for pc in entries:
            tracer.breakpoint(target.BreakpointCreateByAddress(pc), "entry", name)
            address = target.ResolveLoadAddress(pc)
            if rets is not None:
                own = _rets(target, address)
                rets = None if own is None else rets + own
            function = address.GetFunction()
            line = function.GetStartAddress().GetLineEntry() if function.IsValid() else None
            spec = line.GetFileSpec() if line is not None else None
            tracer.where[address.GetLoadAddress(target)] = (
                spec.fullpath if spec is not None and spec.IsValid() else None,
                line.GetLine() if line is not None else None)
            if tracer.lines:
                for pc in _line_starts(target, address):
                    tracer.breakpoint(target.BreakpointCreateByAddress(pc), "line")
    if rets is not None:
        # Every traced function leaves by its rets: no return-address breakpoints.
        tracer.rets_done = True
        # (The user's and the entries': all there are yet.)
        tracer.sites = _sites(target)
        for pc in sorted(set(rets)):
            tracer.breakpoint(target.BreakpointCreateByAddress(pc), "ret")
        # Where the user's breakpoint shares the entry's place, it stops there.
        _copy_out(tracer, [pc for pc in all_entries if pc not in users],
                  [pc for pc in set(rets) if pc not in users])
    for pc in _function_starts(target, _BEGIN_CATCH):
        tracer.breakpoint(target.BreakpointCreateByAddress(pc), "catch")
    for pc in sorted({pc for name in _LONGJMPS for pc in _function_starts(target, name)}):
        tracer.breakpoint(target.BreakpointCreateByAddress(pc), "longjmp")
    print(f"tracing {len(tracer.kinds)} breakpoints")


def deadline(seconds: float) -> None:
    """The first hit after ``seconds`` from now stops the program."""
    if _tracer is not None:
        _tracer.deadline = time.monotonic() + seconds


def stop() -> None:
    """End the trace: delete its breakpoints, close its file. Prints
    "stopped", and the first fault of a callback if there was one."""
    global _tracer
    unread, deadline = 0, False
    if _tracer is not None:
        tracer, _tracer = _tracer, None
        tracer.stop()
        unread, deadline = tracer.unread, tracer.stopped_at_deadline
    print("stopped")
    if deadline:
        print("time ran out")
    if unread:
        print(f"unread: {unread}")
    if _faults:
        print("fault: " + _faults[0])
