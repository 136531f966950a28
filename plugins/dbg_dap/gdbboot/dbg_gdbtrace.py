"""`dbg trace` inside gdb: imported by dbg (``python import dbg_gdbtrace``
through the console) the first time a session traces; adds the commands
``dbg-trace-start JSON`` and ``dbg-trace-stop``.

Each traced function gets an internal breakpoint whose ``stop()`` writes the
call to the trace file (dbgcore/vocab/traces.py describes it) and answers False,
so the program never stops there; each recorded call gets an internal
``gdb.FinishBreakpoint`` that writes its return value the same way. With
``--lines``, an internal breakpoint on each line of a traced function writes
the locals that changed since that call's previous line. A breakpoint hit
costs gdb a few tens of microseconds and no DAP message: that is what makes
it fast, where stopping for every call over DAP costs hundreds of ms.

gdb's DAP server reports every breakpoint created, changed (each hit counts)
and deleted, internal ones too, as a `breakpoint` event: a client would list
ours as the user's and get one event per traced call. Its handlers are
swapped here for ones that pass on only breakpoints with positive numbers
(the user's: internal ones are numbered below zero). Each resume after a
breakpoint that did not stop is a `continued` event too: while tracing, we
note that the program runs, as the server does, without saying it each time.

Runs inside gdb's own Python, which may be older than dbg's: no syntax past
Python 3.8.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

import gdb  # type: ignore[import-untyped,import-not-found,unused-ignore]

# gdb's DAP server's modules, when it runs (importing them otherwise would
# start their event handlers with no server behind them).
_dap_bp: Any = sys.modules.get("gdb.dap.breakpoint")
_dap_events: Any = sys.modules.get("gdb.dap.events")

#: How deep `print` goes into a value we record (its text is cut after).
_PRINT_LIMITS: dict[str, Any] = {"max_elements": 40, "max_depth": 3, "repeat_threshold": 10}
#: What a call left without returning says: C has no exceptions, and a C++
#: exception is seen where it is caught (see _Catch).
_LONGJMP = "left without returning (longjmp)"
_CAUGHT = "left by a C++ exception"
#: Where the C++ runtime begins a catch (the Itanium ABI's, gcc's and clang's).
_BEGIN_CATCH = "__cxa_begin_catch"
#: glibc's longjmps (aliases share an address; each address gets one breakpoint).
_LONGJMPS = ("longjmp", "_longjmp", "siglongjmp", "__longjmp_chk")


class _Call:
    """A recorded call still open: its frame, for its lines and its return."""

    __slots__ = ("cfa", "ended", "finish", "frame", "last_locals", "return_pc", "seq", "skip_pc",
                 "started", "thread")

    def __init__(self, seq: int, frame: Any, cfa: int, thread: int) -> None:
        self.seq = seq
        self.frame = frame
        #: Where its frame begins (the caller's stack pointer). A live caller's
        #: is above a callee's (the stack grows down); a later call whose own
        #: is at or above this one's means this call is gone (longjmp).
        self.cfa = cfa
        self.thread = thread
        self.ended = False
        #: perf_counter_ns() when it was recorded: its duration is wall time
        #: to its end, gdb's own work at the stops inside it included.
        self.started = time.perf_counter_ns()
        self.last_locals: dict[str, str] = {}
        #: Its first line is written with the call; the line breakpoint there
        #: skips it once.
        self.skip_pc: int | None = None
        self.finish: Any | None = None
        #: Where it returns to: a line breakpoint of its caller there may be
        #: hit before its finish breakpoint.
        self.return_pc: int | None = None


class _Tracer:
    def __init__(self, path: str, lines: bool, max_calls: int, chars: int) -> None:
        self.out: TextIO = open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed by stop)
        self.lines = lines
        self.max_calls = max_calls
        self.chars = chars
        self.seq = 0
        #: The last event's number (``n``): their order across calls, for a replay.
        self.order = 0
        self.dropped = 0
        #: Open calls per thread (global number), innermost last.
        self.open: dict[int, list[_Call]] = {}
        self.breakpoints: list[Any] = []
        #: Finish breakpoints done with, to delete (see _Return.stop).
        self.spent: list[Any] = []
        #: Per traced function's breakpoint address: its (file, first line).
        self.where: dict[int, tuple[str | None, int | None]] = {}

    # -- writing --------------------------------------------------------------

    def write(self, event: dict[str, Any]) -> None:
        if event.get("e") != "dropped":
            self.order += 1
            event["n"] = self.order
        self.out.write(json.dumps(event) + "\n")

    def text(self, value: Any) -> str:
        try:
            shown = str(value.format_string(**_PRINT_LIMITS))
        except gdb.error as exc:
            shown = f"<error: {exc}>"
        return shown if len(shown) <= self.chars else shown[: self.chars - 1] + "\u2026"

    def frame_values(self, frame: Any, arguments_only: bool) -> list[tuple[str, str]]:
        """The frame's arguments (and locals), innermost block first; a name
        an inner block shadows is read once."""
        found: list[tuple[str, str]] = []
        seen = set()
        try:
            block = frame.block()
        except RuntimeError:
            return found
        while block is not None:
            for symbol in block:
                if symbol.name in seen:
                    continue
                if not (symbol.is_argument or (not arguments_only and symbol.is_variable)):
                    continue
                seen.add(symbol.name)
                try:
                    found.append((symbol.name, self.text(frame.read_var(symbol, block))))
                except (gdb.error, ValueError) as exc:
                    found.append((symbol.name, f"<error: {exc}>"))
            if block.function is not None:
                break
            block = block.superblock
        return found

    # -- events ---------------------------------------------------------------

    def enter(self, function: str) -> None:
        if self.spent:
            self.discard_spent()
        if self.seq >= self.max_calls:
            self.dropped += 1
            return
        frame = gdb.newest_frame()
        thread = gdb.selected_thread().global_num
        older = frame.older()
        caller = None
        if older is not None:
            cfa = int(older.read_register("sp"))
            sal = older.find_sal()
            caller = [sal.symtab.fullname() if sal.symtab else None,
                      sal.line or None, older.name()]
        else:
            cfa = int(frame.read_register("sp"))
        stack = self.open.setdefault(thread, [])
        while stack and stack[-1].cfa <= cfa:
            self.left(stack.pop(), _LONGJMP)
        self.seq += 1
        call = _Call(self.seq, frame, cfa, thread)
        call.return_pc = older.pc() if older is not None else None
        parent = stack[-1].seq if stack else None
        file, line = self.where.get(frame.pc(), (None, None))
        self.write({"e": "call", "seq": call.seq, "fn": function,
                    "args": self.frame_values(frame, True), "file": file, "line": line,
                    "caller": caller, "thread": thread, "depth": len(stack),
                    "parent": parent})
        stack.append(call)
        if self.lines:
            self.line_reached(call, frame)
            call.skip_pc = frame.pc()
        try:
            call.finish = _Return(self, call, frame)
        except (ValueError, gdb.error):
            pass  # the outermost frame: nothing to return to

    def line_reached(self, call: _Call, frame: Any) -> None:
        now = dict(self.frame_values(frame, False))
        changed = [[n, v] for n, v in now.items() if call.last_locals.get(n) != v]
        call.last_locals = now
        self.write({"e": "line", "seq": call.seq, "line": frame.find_sal().line,
                    "changed": changed})

    def line(self) -> None:
        frame = gdb.newest_frame()
        stack = self.open.get(gdb.selected_thread().global_num) or []
        for index in range(len(stack) - 1, -1, -1):
            call = stack[index]
            if call.frame != frame:
                continue
            # The calls above it in the stack are gone (longjmp), but for one
            # returning here, whose finish breakpoint is hit after this one.
            pc = frame.pc()
            returning = [c for c in stack[index + 1:] if c.return_pc == pc]
            for gone in stack[index + 1:]:
                if gone not in returning:
                    self.left(gone, _LONGJMP)
            stack[index + 1:] = returning
            if call.skip_pc is not None and call.skip_pc == pc:
                call.skip_pc = None
                return
            call.skip_pc = None
            self.line_reached(call, frame)
            return
        # A call past --max, or one entered before the trace began: not ours.

    def caught(self) -> None:
        """A C++ catch begins in the frame that called us: the traced calls
        below that frame are gone. Said here, as the catch may go on at the
        address one of them would have returned to (the end of a try block
        is often the next call's place): their finish breakpoints would
        take that for a return."""
        catcher = gdb.newest_frame().older()
        if catcher is None:
            return
        sp = int(catcher.read_register("sp"))
        stack = self.open.get(gdb.selected_thread().global_num) or []
        while stack and stack[-1].cfa <= sp:
            self.left(stack.pop(), _CAUGHT)

    def jumping(self) -> None:
        """A longjmp begins: the traced calls below the frame it goes back
        to are gone. Said here for the same reason as caught()'s: setjmp's
        second return may go on where one of them would have returned."""
        target = _longjmp_target()
        if target is None:
            return
        stack = self.open.get(gdb.selected_thread().global_num) or []
        while stack and stack[-1].cfa <= target:
            self.left(stack.pop(), _LONGJMP)

    def returned(self, call: _Call, value: Any | None) -> None:
        stack = self.open.get(call.thread) or []
        if call in stack:
            index = stack.index(call)
            for gone in stack[index + 1:]:
                self.left(gone, _LONGJMP)
            del stack[index:]
        if call.ended:
            return
        call.ended = True
        self.write({"e": "return", "seq": call.seq,
                    "value": None if value is None else self.text(value),
                    "ns": time.perf_counter_ns() - call.started})

    def left(self, call: _Call, why: str) -> None:
        if call.finish is not None:
            self.spend(call.finish)
            call.finish = None
        if call.ended:
            return
        call.ended = True
        self.write({"e": "raise", "seq": call.seq, "value": why,
                    "ns": time.perf_counter_ns() - call.started})

    def spend(self, finish: Any) -> None:
        self.spent.append(finish)

    def discard_spent(self) -> None:
        """Delete the finish breakpoints that have done their work. gdb keeps
        one whose stop() said no, disabled, until the program's next real
        stop: thousands of them make each new breakpoint slower. It may not
        be deleted in its own stop(), nor while the program runs (gdb then
        prints "Selected thread is running."): the next traced call's stop()
        does it, as they are disabled and no part of that stop."""
        spent, self.spent = self.spent, []
        for bp in spent:
            if bp.is_valid():
                bp.delete()

    # -- the end --------------------------------------------------------------

    def stop(self) -> None:
        if _alive():
            # Calls whose frames are gone, found at this stop (a longjmp out of
            # them and no traced event since). gdb looks for a frame in the
            # selected thread's stack: the other threads' calls stay open.
            for call in self.open.get(gdb.selected_thread().global_num) or []:
                if not call.ended and not call.frame.is_valid():
                    self.left(call, _LONGJMP)
        finishes = [c.finish for stack in self.open.values() for c in stack if c.finish]
        for bp in self.breakpoints + finishes + self.spent:
            try:
                if bp.is_valid():
                    bp.delete()
            except (RuntimeError, gdb.error):
                pass
        self.breakpoints.clear()
        self.spent.clear()
        self.open.clear()
        if self.dropped:
            self.write({"e": "dropped", "count": self.dropped})
        self.out.close()


class _Entry(gdb.Breakpoint):  # type: ignore[misc,unused-ignore]
    def __init__(self, tracer: _Tracer, spec: str) -> None:
        super().__init__(spec, internal=True)
        self.tracer = tracer
        self.function = spec

    def stop(self) -> bool:
        try:
            self.tracer.enter(self.function)
        except Exception as exc:
            _fault(exc)
        return False


class _Line(gdb.Breakpoint):  # type: ignore[misc,unused-ignore]
    def __init__(self, tracer: _Tracer, pc: int) -> None:
        super().__init__(f"*{pc:#x}", internal=True)
        self.tracer = tracer

    def stop(self) -> bool:
        try:
            self.tracer.line()
        except Exception as exc:
            _fault(exc)
        return False


class _Catch(gdb.Breakpoint):  # type: ignore[misc,unused-ignore]
    def __init__(self, tracer: _Tracer) -> None:
        super().__init__(_BEGIN_CATCH, internal=True)
        self.tracer = tracer

    def stop(self) -> bool:
        try:
            self.tracer.caught()
        except Exception as exc:
            _fault(exc)
        return False


class _Longjmp(gdb.Breakpoint):  # type: ignore[misc,unused-ignore]
    def __init__(self, tracer: _Tracer, pc: int) -> None:
        super().__init__(f"*{pc:#x}", internal=True)
        self.tracer = tracer

    def stop(self) -> bool:
        try:
            self.tracer.jumping()
        except Exception as exc:
            _fault(exc)
        return False


def _longjmp_target() -> int | None:
    """The stack pointer a glibc longjmp on x86-64, at its first
    instruction, goes back to: its jmp_buf's (first argument) saved rsp,
    which glibc mangles with the thread's pointer guard (xor, then rotated
    left 17 bits). None elsewhere, or when it does not look like a place
    above this one on the stack."""
    frame = gdb.newest_frame()
    if frame.architecture().name() != "i386:x86-64":
        return None
    sp = int(frame.read_register("rsp"))
    memory = gdb.selected_inferior()
    guard = int.from_bytes(memory.read_memory(int(frame.read_register("fs_base")) + 0x30, 8),
                           "little")
    saved = int.from_bytes(memory.read_memory(int(frame.read_register("rdi")) + 6 * 8, 8),
                           "little")
    target = (((saved >> 17) | (saved << 47)) & 0xFFFFFFFFFFFFFFFF) ^ guard
    return target if sp < target < sp + (1 << 26) else None


class _Return(gdb.FinishBreakpoint):  # type: ignore[misc,unused-ignore]
    def __init__(self, tracer: _Tracer, call: _Call, frame: Any) -> None:
        super().__init__(frame, internal=True)
        self.tracer = tracer
        self.call = call

    def stop(self) -> bool:
        try:
            self.tracer.returned(self.call, self.return_value)
        except Exception as exc:
            _fault(exc)
        self.tracer.spend(self)
        return False

    def out_of_scope(self) -> None:
        # gdb calls this at a stop where the frame is gone, and at the
        # program's exit: a call still running when the program ended is
        # "unfinished", not left.
        if not _alive() or gdb.selected_thread().global_num != self.call.thread:
            # gdb looked for the frame in the stack of the thread that
            # stopped: a call of another thread's is no business of it.
            return
        try:
            self.tracer.left(self.call, _LONGJMP)
        except Exception as exc:
            _fault(exc)


#: The trace in progress (one at a time: a session has one program).
_tracer: _Tracer | None = None
#: The first fault inside a stop(), reported by dbg-trace-stop.
_faults: list[str] = []


def _alive() -> bool:
    """The program still runs (at its exit gdb keeps its pid a moment, but
    none of its threads)."""
    inferior = gdb.selected_inferior()
    return inferior.pid != 0 and bool(inferior.threads())


def _fault(exc: BaseException) -> None:
    if not _faults:
        _faults.append(f"{type(exc).__name__}: {exc}")


def _has_function(name: str) -> bool:
    try:
        gdb.decode_line(name)
    except gdb.error:
        return False
    return True


def _longjmp_addresses() -> list[int]:
    found = set()
    for name in _LONGJMPS:
        try:
            _, places = gdb.decode_line(name)
        except gdb.error:
            continue
        for sal in places or ():
            if sal.pc:
                found.add(sal.pc)
    return sorted(found)


def _function_block(pc: int) -> Any:
    """The block of the function holding ``pc`` (None: no debug info)."""
    try:
        block = gdb.block_for_pc(pc)
    except RuntimeError:
        return None
    while block is not None and block.function is None:
        block = block.superblock
    return block


def _line_starts(block: Any, entry: int) -> list[int]:
    """The first address of each run of one line in the function (a loop's
    condition is a run of its own), from its first line on."""
    starts = []
    previous = None
    for item in sorted((e for e in block.function.symtab.linetable()
                        if block.start <= e.pc < block.end and e.line),
                       key=lambda e: e.pc):
        if item.line != previous and item.pc >= entry:
            starts.append(item.pc)
        previous = item.line
    return starts


class TraceStart(gdb.Command):  # type: ignore[misc,unused-ignore]
    """dbg-trace-start JSON: trace the functions {"file", "functions",
    "lines", "max", "chars"} until dbg-trace-stop. Prints "tracing"."""

    def __init__(self) -> None:
        super().__init__("dbg-trace-start", gdb.COMMAND_RUNNING)

    def invoke(self, argument: str, from_tty: bool) -> None:
        global _tracer
        if _tracer is not None:
            _end()
        options = json.loads(argument)
        tracer = _Tracer(options["file"], bool(options["lines"]), int(options["max"]),
                         int(options["chars"]))
        _faults.clear()
        _tracer = tracer
        try:
            for name in options["functions"]:
                if not _has_function(name):
                    # Asked first: a breakpoint on it would print gdb's
                    # complaint and stay pending (a library not loaded yet);
                    # a trace that records nothing for a typo helps nobody.
                    raise gdb.GdbError(f"no function {name} in the program")
                entry = _Entry(tracer, name)
                tracer.breakpoints.append(entry)
                addresses = [loc.address for loc in entry.locations if loc.address]
                if entry.pending or not addresses:
                    raise gdb.GdbError(f"no function {name} in the program")
                for pc in addresses:
                    block = _function_block(pc)
                    symbol = block.function if block is not None else None
                    symtab = symbol.symtab if symbol is not None else None
                    tracer.where[pc] = (symtab.fullname() if symtab else None,
                                        symbol.line if symbol is not None else None)
                    if tracer.lines and symtab is not None:
                        for start in _line_starts(block, pc):
                            tracer.breakpoints.append(_Line(tracer, start))
            if _has_function(_BEGIN_CATCH):
                tracer.breakpoints.append(_Catch(tracer))
            for pc in _longjmp_addresses():
                tracer.breakpoints.append(_Longjmp(tracer, pc))
        except BaseException:
            _end()
            raise
        _quiet(True)
        print(f"tracing {len(tracer.breakpoints)} breakpoints")


class TraceStop(gdb.Command):  # type: ignore[misc,unused-ignore]
    """dbg-trace-stop: delete the trace's breakpoints and close its file.
    Prints "stopped", and the first fault of the tracer if there was one."""

    def __init__(self) -> None:
        super().__init__("dbg-trace-stop", gdb.COMMAND_RUNNING)

    def invoke(self, argument: str, from_tty: bool) -> None:
        _end()
        print("stopped")
        if _faults:
            print("fault: " + _faults[0])


def _end() -> None:
    global _tracer
    _quiet(False)
    if _tracer is not None:
        tracer, _tracer = _tracer, None
        tracer.stop()


# -- what gdb's DAP server hears of it ----------------------------------------

_quiet_cont = False


def _quiet(on: bool) -> None:
    global _quiet_cont
    _quiet_cont = on


def _passing_user_breakpoints(handler: Callable[[Any], None]) -> Callable[[Any], None]:
    def only_users(bp: Any) -> None:
        if bp.number > 0:
            handler(bp)
    return only_users


def _cont(event: Any) -> None:
    events = _dap_events
    if not _quiet_cont or events is None:
        _server_cont(event)
        return
    # As the server's handler does, less the event: the program runs, and a
    # resume it asked for itself is not announced twice.
    events.inferior_running = True
    events._suppress_cont = False


def _no_server(event: Any) -> None:
    pass


#: The DAP server's own handler of gdb.events.cont.
_server_cont: Callable[[Any], None] = _no_server


def _install() -> None:
    global _server_cont
    if _dap_bp is not None:
        for registry, name in ((gdb.events.breakpoint_created, "_bp_created"),
                               (gdb.events.breakpoint_modified, "_bp_modified"),
                               (gdb.events.breakpoint_deleted, "_bp_deleted")):
            handler = getattr(_dap_bp, name, None)
            if handler is not None:
                registry.disconnect(handler)
                registry.connect(_passing_user_breakpoints(handler))
    if _dap_events is not None and all(hasattr(_dap_events, n) for n in (
            "_cont", "inferior_running", "_suppress_cont")):
        _server_cont = _dap_events._cont
        gdb.events.cont.disconnect(_server_cont)
        gdb.events.cont.connect(_cont)


_install()
TraceStart()
TraceStop()
