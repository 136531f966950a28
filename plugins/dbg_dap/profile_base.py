"""The adapter profile every DAP adapter's starts from: the small, named
differences between debug adapters, with the generic answers.

The DAP backend is generic. What differs per adapter — its command line, how
its launch/attach arguments are spelled, which evaluate context is the native
console, how to stop at entry, how it words a stop — lives in a profile chosen
by ``options.profile`` in backends.yaml (:mod:`dbg_dap.profiles` has them all).
A profile builds arguments and names quirks; where a quirk needs the
debugger's word, it asks the backend through :class:`dbg_dap.host.AdapterHost`.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from dbg_dap.host import AdapterHost, JsonValue
from dbgcore.api import (
    AttachRequest,
    BackendSpec,
    BreakLoc,
    CallSink,
    LaunchRequest,
    Location,
    Message,
    Readiness,
    ReturnValue,
    StopEvent,
    Support,
    TraceOutcome,
    UsageError,
    Variable,
)


@dataclass
class LineWatch:
    """A watch set in the debuggee (AdapterProfile.line_watch): hidden
    breakpoints on ``lines`` of ``file``, each with ``condition``, stop where
    its value changed; ``note`` says where it was set, for `dbg breaks`."""

    file: str
    lines: list[int]
    condition: str
    note: str


@dataclass
class RecordState:
    """Where a debugger's record of the run stands (AdapterProfile.record_state)."""

    #: It is recording (or replaying what it recorded).
    active: bool = False
    #: The program is in the record's past, not live: a forward motion replays.
    replaying: bool = False
    #: Instructions recorded (0: nothing yet to go back through).
    logged: int = 0


class AdapterProfile:
    name: ClassVar[str] = "generic"
    #: A debugger that records the run and runs it backwards (dbg_dap.reverse):
    #: its console commands "start", "stop" and "info" (the record's state,
    #: read by :meth:`record_state`), and one per motion of `--back`
    #: ("continue", "step", "next", "finish"); optionally "no-calls" and
    #: "calls", run as the record starts and ends (expressions may not call
    #: the program's functions meanwhile). Empty: it cannot.
    record_commands: ClassVar[dict[str, str]] = {}

    def record_state(self, answer: str) -> RecordState:
        """The record's state from the answer to ``record_commands["info"]``."""
        return RecordState()

    def exits_under_record(self, output: str) -> bool:
        """Whether what the debugger said at a stop while recording (its
        console text since the motion began) says it stopped the program
        just before it exits (gdb asks, and stops it at exit_group)."""
        return False
    #: Evaluate context for `dbg print` (expression only) and for `dbg raw`.
    print_context: ClassVar[str] = "watch"
    raw_context: ClassVar[str] = "repl"

    def hides_fields(self, value: str) -> bool:
        """Whether a local's value names a struct or object without showing its
        fields, so a snapshot lists them: dbg shows a value with children and no
        text of its own as ``{...}``."""
        return value == "{...}"

    def bare_value(self, value: str) -> bool:
        """Whether the value of something with children shows nothing of
        them (a struct's, often): dbg shows its fields instead."""
        return not value.strip()

    def noise_variable(self, var: Message) -> bool:
        """Whether a row of a scope is the adapter's own (a synthetic group),
        not a variable of the program's."""
        return False

    #: Rows among the top frame's locals that hold what a function just
    #: returned start with this ("": the adapter shows no such rows);
    #: `dbg locals` leaves them out.
    return_row_prefix: ClassVar[str] = ""

    def stop_reason(self, reason: str, description: str, with_ids: bool,
                    pause_asked: bool) -> str:
        """A stop's reason in dbg's words, from the adapter's (already mapped
        by dbg_dap.core.REASONS), for an adapter that words some stops its
        own way: the stop's ``description``, whether it named the
        breakpoints it hit (``with_ids``), and whether `dbg pause` asked for it."""
        return reason

    #: The adapter answers `variables` one page at a time (DAP's start and
    #: count): dbg then never asks it for more than a page of children.
    pages_variables: ClassVar[bool] = False
    #: The adapter pages only a value's indexed children, asked for with
    #: filter "indexed" (delve: it reloads that slice of the value).
    pages_indexed: ClassVar[bool] = False

    #: Client capabilities we announce in initialize.
    client_caps: ClassVar[Message] = {
        "supportsVariableType": True,
        "supportsRunInTerminalRequest": True,
        "supportsStartDebuggingRequest": True,
        "supportsProgressReporting": False,
        "supportsMemoryReferences": True,
        "supportsInvalidatedEvent": False,
    }

    #: Stop at entry with a function breakpoint on this function, for
    #: adapters whose own stopOnEntry stops somewhere useless (the loader).
    entry_function: str | None = None

    def entry_line(self) -> Location | None:
        """Where a launch stops at entry, for a profile that places that stop
        by a line breakpoint (set after ``launch_arguments``); None: as the
        adapter does, or by :attr:`entry_function`."""
        return None
    #: The adapter takes breakpoints before the program runs and resolves
    #: them as it would at the entry stop: `start --run` launches straight
    #: to the first stop.
    breaks_before_run: ClassVar[bool] = False
    #: The adapter's output categories filed otherwise (an adapter that
    #: sends its own text as "stdout", say).
    output_categories: ClassVar[dict[str, str]] = {}
    #: The program writes to FIFOs of dbg's (``streams``, set before
    #: ``launch_arguments``), not through the adapter's output events.
    own_streams: ClassVar[bool] = False
    #: The program reads ``stdin`` (LaunchRequest.stdin, set before the
    #: adapter starts) as its standard input; see Backend.reads_stdin.
    reads_stdin: ClassVar[bool] = False
    #: The program inherits the adapter's own stdin (a TCP adapter's stdin
    #: is free): the adapter is started with ``stdin`` as its stdin.
    stdin_through_adapter: ClassVar[bool] = False
    #: The adapter is the program's own process (rdbg): its end, which
    #: closes the connection with no `exited` event, is the program's.
    adapter_is_program: ClassVar[bool] = False
    #: With ``adapter_is_program``: how the adapter's own stderr lines begin;
    #: its other stderr lines are the program's (empty: all the adapter's).
    own_stderr_prefix: ClassVar[str] = ""
    #: The adapter says the exit status (in text) only on `disconnect`.
    exit_status_on_disconnect: ClassVar[bool] = False
    #: How long the adapter gets to exit at the end (None: the session's grace).
    shutdown_grace: ClassVar[float | None] = None

    #: A native console command that sets a watchpoint on {expr}, for
    #: adapters without data breakpoints (empty: none).
    console_watch: ClassVar[str] = ""
    console_delete: ClassVar[str] = ""

    def console_watch_number(self, answer: str) -> int | None:
        """The debugger's number for the watchpoint ``console_watch`` made."""
        return None

    def data_watch_expression(self, expression: str) -> str:
        """dataBreakpointInfo's `name` for an expression that is not a plain
        variable of the frame."""
        return expression

    #: A watch the debuggee checks itself at each line of its frame, for
    #: adapters without data breakpoints (see dbg_dap.breakpoints, `LineWatch`).
    line_watches: ClassVar[bool] = False

    def line_watch(self, backend: AdapterHost, watch_id: int, expression: str,
                   timeout: float) -> LineWatch:
        """Set watch ``watch_id`` of ``expression`` in the selected frame, in
        the debuggee; where its hidden breakpoints go and their condition
        (OpFailed: it cannot be watched there)."""
        raise NotImplementedError

    def line_unwatch(self, backend: AdapterHost, watch_id: int, timeout: float) -> None:
        """Forget watch ``watch_id`` in the debuggee (it lets its frame go)."""

    def line_watch_stop(self, backend: AdapterHost, watch_ids: list[int],
                        timeout: float) -> tuple[list[int], list[int]]:
        """At each stop: those of ``watch_ids`` whose frame is not running
        any more, and the watches whose change made this stop (empty: none,
        or it cannot tell). The debuggee takes the values of the watches of
        the frame stopped in as seen."""
        return [], []

    #: Hints for expert ops the adapter cannot do (op name -> hint).
    hints: ClassVar[dict[str, str]] = {}

    def disasm_start(self, backend: AdapterHost, ip: str, timeout: float) -> str | None:
        """For adapters that cannot disassemble backwards from an address:
        an earlier instruction boundary to start from (None: go backwards)."""
        return None

    def __init__(self, spec: BackendSpec) -> None:
        self.spec = spec
        #: With ``own_streams``: the FIFO of "stdout" and of "stderr".
        self.streams: dict[str, str] = {}
        #: With ``reads_stdin``: the file the program reads as its stdin.
        self.stdin: str | None = None
        #: A private folder of the session's, for build outputs.
        self.build_dir: str | None = None

    def check_program(self, program: Path) -> None:
        """Refuse, before anything starts, a program this adapter cannot run
        (a C source file, say), with what to do instead."""

    def build_command(self, program: Path, out: Path) -> tuple[list[str], Path] | None:
        """The command that builds source file ``program`` into the
        debuggable binary ``out`` (see Backend.build_command); None: no build."""
        return None

    def adapter_cwd(self, request: LaunchRequest) -> str | None:
        """The adapter's own working folder for a launch."""
        return request.cwd

    def raw_expression(self, text: str) -> str:
        """`dbg raw TEXT` as the expression for the native console context."""
        return text

    def stop_description(self, text: str, description: str) -> str:
        """One line for a stop from its DAP `text` (an exception's name) and
        `description` (its message)."""
        return f"{text}: {description}" if text and description else text or description

    def signal_description(self, backend: AdapterHost, timeout: float) -> str:
        """For a signal or exception stop the adapter did not describe: what
        it was, asked of the debugger (empty: unknown)."""
        return ""

    def raw_answer(self, text: str) -> str:
        """The console's answer to `dbg raw`, without what the adapter adds."""
        return text

    def exit_code_from_output(self, text: str) -> int | None:
        """The program's exit status, for adapters that say it only in text."""
        return None

    def attach_failure_hint(self, message: str, pid: int | None) -> str:
        found = ptrace_diagnosis(pid) if pid is not None else ""
        if found:
            return found
        if "ptrace" in message.lower() or "not permitted" in message.lower():
            return ("the kernel refused ptrace; in a container that takes CAP_SYS_PTRACE "
                    "(`docker run --cap-add=SYS_PTRACE`)")
        return ""

    def argv(self) -> list[str]:
        return list(self.spec.command)

    def adapter_env(self) -> dict[str, str] | None:
        """The adapter's whole environment, for one that needs more than
        dbg's own; None: dbg's."""
        return None

    def check(self) -> Readiness:
        exe = shutil.which(self.spec.command[0]) if self.spec.command else None
        if not exe:
            return Readiness(False, f"{self.spec.command[0] if self.spec.command else '?'} "
                                    "not found")
        return Readiness(True, exe)

    def version(self) -> str:
        return ""

    #: What the launch arguments say about stopping at entry.
    entry_arguments: ClassVar[Message] = {"stopOnEntry": True}

    def env_argument(self, request: LaunchRequest) -> JsonValue:
        """The launch's `env` as the adapter wants it (None: leave it out)."""
        return request.env or None

    def launch_arguments(self, request: LaunchRequest) -> Message:
        args: Message = {"program": request.program, "args": request.args,
                                **self.entry_arguments}
        if request.cwd:
            args["cwd"] = request.cwd
        env = self.env_argument(request)
        if env:
            args["env"] = env
        return {**self.spec.launch, **args}

    def terminal_argv(self, argv: list[str]) -> list[str]:
        """What dbg runs for the adapter's runInTerminal request ``argv``
        (an adapter's launcher may have a cheaper equivalent)."""
        return argv

    def attach_arguments(self, request: AttachRequest) -> Message:
        if request.pid is not None:
            return {"processId": request.pid}
        raise UsageError(f"{self.name} attaches by --pid only")

    def attach_program(self, request: AttachRequest) -> str | None:
        """The program an attach names to the debugger (``--program``, or
        one the profile finds)."""
        return request.program

    def attach_server(self, request: AttachRequest) -> tuple[str, int] | None:
        """Where an adapter already listens for us (instead of starting ours)."""
        return None

    def body_below(self, file: str, line: int) -> bool:
        """For an adapter whose function breakpoints stop at the declaration
        (:attr:`function_stops_at_declaration`): the function declared at
        FILE:LINE has its first statement on a later line."""
        return True

    def at_declaration(self, location: Location | None) -> bool:
        """Whether a step into a call stopped on the function's declaration
        (delve stops at `func f(...) {`) rather than its first line."""
        return False

    def no_stack_yet(self, message: str) -> bool:
        """Whether a failed stackTrace means the program has no frame yet
        (stopped before its runtime started), rather than an error."""
        return False

    def function_name(self, module: str | None, function: str) -> str:
        return f"{module}!{function}" if module else function

    def hit_condition(self, count: int) -> str:
        """DAP leaves hitCondition's syntax to the adapter; most take a number."""
        return str(count)

    def watch_hint(self) -> str:
        return "the adapter has no data breakpoints; try its own watch command via `dbg raw`"

    def child_kind(self, row: Message) -> str:
        """What a row of a ``variables`` answer is, for paging done by dbg:
        "item" (a child), "group" (a synthetic row the adapter adds, not a
        child), or "fold" (a row holding the next children, opened in place)."""
        return "item"

    def children_counted(self, row: Message) -> int:
        """How many children a variable or an evaluate's answer has, as the
        adapter counted them (0: it did not say); of one with both, its
        indexed children, the ones a page holds (delve counts a map's "len()"
        as a named one)."""
        return int(row.get("indexedVariables") or 0) or int(row.get("namedVariables") or 0)

    def children_listed_only(self, row: Message) -> bool:
        """Whether the debugger listed only the first :meth:`children_counted`
        of the value's children (it has more, which it does not show)."""
        return False

    def fold_size(self, row: Message) -> int | None:
        """How many children a "fold" row holds, if its name or value says."""
        return None

    def split_exception_note(self, text: str) -> tuple[str, str]:
        """An exception's type name, and a note the adapter appended to it."""
        return text, ""

    #: Whether an unknown request name gets an error response (True) or can
    #: crash or hang the adapter (False: `dbg dap` refuses unknown names).
    safe_unknown_requests: ClassVar[bool] = True

    # -- one meaning per op (docs/semantics.md) -------------------------------------

    #: Source files with these endings are looked for in the program's folder
    #: when a breakpoint names a file (besides what the debugger lists).
    walk_suffixes: ClassVar[tuple[str, ...]] = ()
    #: A file no source matches may be in code loaded later (a library): the
    #: breakpoint is then pending, not refused.
    pending_unknown_files: ClassVar[bool] = False
    #: What `dbg caps` says beyond the adapter's own capabilities.
    features: ClassVar[dict[str, Support]] = {}
    #: An expression (``{timeout}`` in it) that makes the adapter interrupt
    #: an evaluation itself after that many seconds, for one whose requests
    #: cannot be cancelled; None: none.
    evaluation_timeout_setting: ClassVar[str | None] = None

    def feature(self, name: str) -> Support:
        """One of :attr:`features` for the debugger installed (a profile
        whose support depends on its version asks it)."""
        return self.features.get(name, "none")

    #: The debugger attaches to valgrind's gdb server (`dbg memcheck`).
    runs_memcheck: ClassVar[bool] = False

    def memcheck_arguments(self, program: str, target: str) -> Message:
        """The attach arguments that reach valgrind's gdb server through
        ``target`` ("| vgdb --pid=PID"); asked only when :attr:`runs_memcheck`."""
        raise UsageError(f"{self.name} cannot attach to valgrind's gdb server")

    def core_arguments(self, request: LaunchRequest) -> tuple[str, Message]:
        """The request ("launch" or "attach") and its arguments that open
        ``request.core``, a core dump of ``request.program``; asked only of
        a profile whose :meth:`feature` "core" is not "none"."""
        raise UsageError(f"{self.name} cannot open a core file")

    def core_cause(self, backend: AdapterHost, frames: list[Message], timeout: float) -> str:
        """What the debugger tells of a core's death beyond the signal its
        notes record (a Go panic's message), from the stopped thread's
        frames; "" when nothing."""
        return ""

    def source_files(self, backend: AdapterHost, name: str, timeout: float) -> list[str]:
        """Absolute paths of the program's source files named ``name``, as
        the debugger knows them."""
        return []

    def search_path_files(self, backend: AdapterHost, requested: str, timeout: float) -> list[str]:
        """Where the program's own module search path (Python's sys.path)
        has the file ``requested`` (``pkg/mod.py``): the first match, as an
        import would find it, or none. Asked before the program runs too."""
        return []

    def catch(self, backend: AdapterHost, filters: list[str], timeout: float) -> list[str] | None:
        """`dbg catch FILTERS` done by the profile (exception classes by
        name, say), returning the filters set; None: the adapter's own
        exception filters, as it announced them."""
        return None

    def before_set_breakpoints(self, backend: AdapterHost, path: str | None,
                               timeout: float) -> None:
        """Just before setBreakpoints for ``path``, for an adapter that adds
        the lines sent to the file's old ones instead of replacing them
        (rdbg): take the old ones away."""

    def before_step(self, backend: AdapterHost, op: str, timeout: float) -> None:
        """Refuse a step (next, step, finish) from this stop, with an
        OpFailed that says why (a post-mortem stop has no frame to step)."""

    def after_step(self, backend: AdapterHost, op: str, event: StopEvent,
                   timeout: float) -> StopEvent:
        """A step (next, step, finish) stopped: the stop it makes, told what
        happened on the way (an exception raised and handled)."""
        return event

    def after_entry(self, backend: AdapterHost, event: StopEvent,
                    timeout: float) -> StopEvent:
        """A launch stopped at entry: the stop it makes (a profile may move
        it on to where the program's first line really is)."""
        return event

    def code_line(self, path: str, line: int) -> int | None:
        """For adapters that do not move a breakpoint off a line without code
        themselves: the line it binds to (None: no code there or after it in
        the function). The default leaves it to the debugger."""
        return line

    def condition_error(self, backend: AdapterHost, condition: str, timeout: float) -> str:
        """Why ``condition`` cannot compile in the target's language, for
        adapters that would accept it and then stop always or never ("" if
        it compiles, or if that cannot be known before it is evaluated)."""
        return ""

    def return_value(self, backend: AdapterHost, timeout: float) -> ReturnValue | None:
        """After a step out: what the function returned, if the debugger says."""
        return None

    def trace(self, backend: AdapterHost, functions: list[str], lines: bool, max_calls: int,
              timeout: float, sink: CallSink) -> TraceOutcome | None:
        """`dbg trace` by the debugger's own means (see
        :meth:`dbgcore.backends.contract.Backend.trace`); None: dbg's fallback
        (breakpoints and step out, :mod:`dbgcore.backends.stoptracer`)."""
        return None

    def value_tree(self, backend: AdapterHost, expression: str, depth: int,
                   timeout: float) -> Message | None:
        """`dbg print --depth` (see :meth:`dbgcore.backends.contract.Backend.value_tree`);
        None: not this adapter's."""
        return None

    def tasks(self, backend: AdapterHost, limit: int, timeout: float) -> Message | None:
        """`dbg tasks` (see :meth:`dbgcore.backends.contract.Backend.op_tasks`);
        None: the debugger's language has no tasks dbg can read."""
        return None

    def configuration_requests(self) -> list[tuple[str, Message]]:
        """Requests of the adapter's own sent while configuring (before
        configurationDone), as (command, arguments)."""
        return []

    # -- `dbg set` (see dbg_dap.assign) -------------------------------------------

    def assignment_problem(self, lhs: str, value: str) -> str:
        """Why ``lhs = value`` cannot be an assignment in the program's
        language, known before asking the debugger ("" if it may be)."""
        return ""

    def assignment_expression(self, lhs: str, value: str) -> str | None:
        """For adapters without setExpression whose evaluator assigns: the
        expression that does (None: assign through setVariable)."""
        return None

    def error_line(self, message: str) -> str:
        """The debugger's error message as one line."""
        return " ".join(message.split())

    def vague_assignment_error(self, message: str) -> bool:
        """Whether a failed assignment's message leaves out why (then dbg
        evaluates each side to find out)."""
        return False

    #: The debugger says a condition failed only after its stop event.
    condition_errors_after_stop: ClassVar[bool] = False

    def condition_failure(self, output: str, conditions: dict[int, str], reason: str,
                          description: str, text: str) -> str | None:
        """At a stop at breakpoints with conditions (the adapter's breakpoint
        id -> condition): the debugger's message if it stopped because a
        condition could not be evaluated, read from the stop (``reason``,
        ``description``, ``text``) or from what it printed around it
        (``output``); None if it did not say so."""
        return None

    def internal_frame(self, frame: Message) -> bool:
        """Whether a stack frame is the runner's or the runtime's own."""
        return False

    def program_frame(self, backend: AdapterHost, frames: list[Message],
                      timeout: float) -> int:
        """The index of a stack's frame of the program's own code: the one an
        exception's stop selects (where the program raised it, not inside
        the runtime's machinery for it) and a thread's place in `dbg
        threads`. Here the first frame that is not :meth:`internal_frame`
        (0 if none)."""
        internal = self.internal_frames(frames)
        return next((i for i, inside in enumerate(internal) if not inside), 0)

    def own_code_frame(self, backend: AdapterHost, frames: list[Message],
                       timeout: float) -> int:
        """The index of the first frame of the program's own code, neither
        :meth:`internal_frame` nor a library's (:meth:`library_frames`);
        :meth:`program_frame`'s first choice here where there is none."""
        libraries = self.library_frames(backend, frames, timeout)
        internal = self.internal_frames(frames)
        return next((i for i in range(len(frames)) if not internal[i] and libraries[i] is None),
                    AdapterProfile.program_frame(self, backend, frames, timeout))

    def unreadable(self, backend: AdapterHost, expression: str, timeout: float) -> str | None:
        """Why `dbg print EXPRESSION` cannot be answered, for an adapter
        whose evaluation would answer a value it made up where memory cannot
        be read (lldb in a core file); None when nothing says so."""
        return None

    def uncaught_exception(self, backend: AdapterHost, frames: list[Message],
                           timeout: float) -> tuple[int, str, int] | None:
        """At a signal's stop: when the signal is how an uncaught exception
        ended the program (C++'s std::terminate aborts), the program's frame
        that threw it, what it was ("std::out_of_range: map::at"), and the
        innermost frame its traceback shows (the one that threw, in the
        library's code too); None for any other stop."""
        return None

    def pseudo_frame(self, frame: Message) -> bool:
        """Whether a frame of the adapter's stack is no call of the program's
        (left out of every stack dbg shows and numbers)."""
        return False

    def internal_frames(self, frames: list[Message]) -> list[bool]:
        """:meth:`internal_frame` for each frame of a stack, innermost first
        (a profile may judge a frame by the ones around it)."""
        return [self.internal_frame(f) for f in frames]

    def library_frames(self, backend: AdapterHost, frames: list[Message],
                       timeout: float) -> list[str | None]:
        """For each frame of a stack, innermost first: the library or test
        runner whose code it is (its package: "_pytest", "testing"; "" when
        it has no name), or None for the program's own code. Every stop
        asks: no request per frame."""
        return [None] * len(frames)

    def frame_name(self, frame: Message) -> str | None:
        """The frame's function as dbg shows it."""
        name = frame.get("name")
        return str(name) if name is not None else None

    def frames_args(self, backend: AdapterHost, frames: list[Message],
                    timeout: float) -> list[list[Variable] | None]:
        """Each frame's arguments, in order (None: the adapter cannot tell);
        by default its arguments scope, for adapters that show one (gdb)."""
        return [backend.scope_arguments(f, timeout) for f in frames]

    def abandon_call(self, backend: AdapterHost, timeout: float) -> bool:
        """After a function an expression called stopped inside (a
        breakpoint there): drop the call, so the program is back where it
        was; False if the debugger cannot (see dbg_dap.calls)."""
        return False

    #: The debugger finishes such a call when the program runs on, and
    #: stops where it was (delve).
    call_ends_on_continue: ClassVar[bool] = False

    #: The function every panic of a Rust program goes through after its
    #: hook printed the message (dbg_dap.rust), as this debugger names it
    #: in a function breakpoint; None: the adapter debugs no Rust.
    panic_function: ClassVar[str | None] = None

    def rust_printer_commands(self) -> list[str]:
        """The console commands that load the Rust toolchain's pretty
        printers (dbg_dap.rust.printer_files); [] where it has none for
        this debugger."""
        return []

    def language_printer_commands(self) -> list[str]:
        """The console commands that load dbg's own printers for the
        program's language (dbg_dap.natlang: D, Nim); [] for the rest."""
        return []

    #: Functions a test run breaks in, where a test fails (go test: testing's
    #: Fail); :meth:`test_failure` then says where the test's code is.
    test_failure_functions: ClassVar[tuple[str, ...]] = ()

    def test_failure(self, backend: AdapterHost, frames: list[Message],
                     timeout: float) -> tuple[int, str] | None:
        """At a stop in one of :attr:`test_failure_functions`: the index of
        the test's own frame that failed and a description naming the test
        and its message; None when this call is not a test's failure (dbg
        resumes)."""
        return None

    #: The adapter shows no return value after a step out, but shows the
    #: results as locals at the function's RET (delve): finish stops there.
    return_values_at_ret: ClassVar[bool] = False
    #: A breakpoint condition, in the debugger's words, true only in the
    #: thread (goroutine) ``{thread}``: dbg's stops at a function's RETs for
    #: `finish` stop no other goroutine running the same function.
    thread_condition: ClassVar[str | None] = None
    #: The adapter's function breakpoints stop at the declaration's line
    #: (delve): dbg moves them to the first statement.
    function_stops_at_declaration: ClassVar[bool] = False
    #: An unverified function breakpoint means there is no such function: all
    #: the code the program can run is loaded and was searched (a Go binary),
    #: so dbg refuses it rather than list it pending forever.
    function_search_is_final: ClassVar[bool] = False

    def function_line(self, backend: AdapterHost, module: str | None, function: str,
                      timeout: float) -> tuple[str, int] | None:
        """For adapters whose function breakpoints stop somewhere else than
        the other debuggers' (or never): the file and line to break at
        instead (None: use the adapter's function breakpoint)."""
        return None

    def function_places(self, backend: AdapterHost, loc: BreakLoc,
                        timeout: float) -> list[Location] | None:
        """Every function of the program's own sources ``loc`` names (see
        Backend.function_places; None: the adapter binds the name itself)."""
        return None

    def functions_elsewhere(self, backend: AdapterHost, loc: BreakLoc,
                            timeout: float) -> list[Location]:
        """The functions of that name outside the program's own code (see
        Backend.functions_elsewhere)."""
        return []

    def check_function(self, backend: AdapterHost, module: str | None, function: str,
                       timeout: float) -> None:
        """Raise OpFailed for a function breakpoint the adapter would accept
        (verified) although it can bind nothing: for adapters that take any
        name and match it at each call (pydevd)."""

    def traceback(self, text: str) -> str:
        """An exception's stack as `dbg exception` shows it: in call order,
        outermost first, without the runner's frames."""
        return text

    def exception_stack(self, backend: AdapterHost, text: str,
                        timeout: float) -> tuple[str, list[dict[str, str]]]:
        """`dbg exception`'s stack and chain at an exception stop (the
        exceptions before this one, cause first, each {"exception",
        "description", "relation"}), from the adapter's stack text
        (:meth:`traceback`; no chain); a profile may ask the program for
        what that text leaves out."""
        return self.traceback(text), []

    def handled_exception(self, backend: AdapterHost, timeout: float) -> dict[str, object] | None:
        """At a stop that is no exception stop: the exception the stopped
        thread is handling (inside an ``except`` block), as `dbg exception`
        answers it with ``"handled": True``; None where there is none, or
        the adapter cannot tell."""
        return None

    def generator_frame(self, frame: Message) -> bool:
        """Whether `finish` from this frame must be done without stepOut
        (debugpy does not step out of a generator: it runs on)."""
        return False

    def exit_signal(self, backend: AdapterHost, code: int | None, timeout: float) -> str | None:
        """The signal that killed the program, when the adapter reports the
        end with an exit code only (None: it exited with ``code``)."""
        return None

    def default_exception_filters(self, request: LaunchRequest) -> list[str]:
        """Exception filters set at launch: stop where an exception would
        end the program, unless `dbg start --no-catch`."""
        return []

    def skip_stop(self, backend: AdapterHost, reason: str, text: str, description: str,
                  timeout: float) -> bool:
        """A stop dbg resumes from at once (debugpy: SystemExit, which ends a
        program the way exit() does)."""
        return False

    def resume_after_skip(self) -> str:
        """The request that resumes from a stop :meth:`skip_stop` skips: a
        step that was under way goes on as a step."""
        return "continue"

    def thread_wait(self, backend: AdapterHost, timeout: float) -> tuple[str, str] | None:
        """See :meth:`dbgcore.backends.contract.Backend.thread_wait`."""
        return None

    #: `dbg threads` reads each thread's stack for its place and wait (at
    #: most :data:`dbg_dap.inspection.THREAD_PLACES` of them): the adapter's
    #: thread names do not say where (delve's name only the function).
    threads_with_places: ClassVar[bool] = False

    def frame_wait(self, backend: AdapterHost, frame: Message,
                   timeout: float) -> tuple[str, str] | None:
        """Like :meth:`thread_wait`, for the thread whose innermost frame is
        ``frame`` (any thread, not only the selected one)."""
        return None

    def launch_env(self, backend: AdapterHost) -> dict[str, str]:
        """Variables added to the program's environment at launch."""
        return {}


def ptrace_diagnosis(pid: int) -> str:
    """Why the kernel may refuse to let a debugger attach to ``pid``, read
    from /proc (the debuggers' own messages rarely say)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return f"no process {pid} (see `ps -p {pid}`)"
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    tracer = int(fields.get("TracerPid", "0").strip() or 0)
    if tracer:
        try:
            name = Path(f"/proc/{tracer}/comm").read_text().strip()
        except OSError:
            name = "?"
        return (f"process {pid} is already traced by process {tracer} ({name}); "
                "only one debugger can attach: detach that one first")
    uid = int(fields.get("Uid", "-1").split()[0])
    if uid != os.geteuid() and os.geteuid() != 0:
        return f"process {pid} belongs to another user (uid {uid}); attach as that user"
    try:
        scope = Path("/proc/sys/kernel/yama/ptrace_scope").read_text().strip()
    except OSError:
        scope = ""
    if scope and scope != "0" and os.geteuid() != 0:
        return (f"kernel.yama.ptrace_scope is {scope}, which lets a debugger attach only to "
                "its own children: `sudo sysctl kernel.yama.ptrace_scope=0`, or run as root")
    return ""
