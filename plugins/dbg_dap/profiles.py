"""Adapter profiles: the small, named differences between debug adapters.

The DAP backend is generic. What differs per adapter — its command line, how
its launch/attach arguments are spelled, which evaluate context is the native
console, how to stop at entry — lives in a profile chosen by
``options.profile`` in backends.yaml. A profile only builds arguments and
names quirks; it never sends requests itself.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

from dbgcore.api import (
    AttachRequest,
    BackendSpec,
    LaunchRequest,
    Location,
    NotAProgram,
    PythonLibraries,
    Readiness,
    ReturnValue,
    Support,
    UsageError,
    Variable,
)

PYBOOT = str(Path(__file__).with_name("pyboot"))


class AdapterProfile:
    name: ClassVar[str] = "generic"
    #: Evaluate context for `dbg print` (expression only) and for `dbg raw`.
    print_context: ClassVar[str] = "watch"
    raw_context: ClassVar[str] = "repl"

    def hides_fields(self, value: str) -> bool:
        """Whether a local's value names a struct or object without showing its
        fields, so a snapshot lists them: dbg shows a value with children and no
        text of its own as ``{...}``."""
        return value == "{...}"
    #: Client capabilities we announce in initialize.
    client_caps: ClassVar[dict[str, Any]] = {
        "supportsVariableType": True,
        "supportsRunInTerminalRequest": True,
        "supportsStartDebuggingRequest": True,
        "supportsProgressReporting": False,
        "supportsMemoryReferences": True,
        "supportsInvalidatedEvent": False,
    }

    #: Stop at entry with a function breakpoint on this function, for
    #: adapters whose own stopOnEntry stops somewhere useless (the loader).
    entry_function: ClassVar[str | None] = None
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

    #: Hints for expert ops the adapter cannot do (op name -> hint).
    hints: ClassVar[dict[str, str]] = {}

    def disasm_start(self, backend: Any, ip: str) -> str | None:
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
        #: Python profiles: which frames are the standard library's or an
        #: installed package's (made at the first stack).
        self._libraries: PythonLibraries | None = None

    def check_program(self, program: Path) -> None:
        """Refuse, before anything starts, a program this adapter cannot run
        (a C source file, say), with what to do instead."""

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

    def signal_description(self, backend: Any) -> str:
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

    def check(self) -> Readiness:
        exe = shutil.which(self.spec.command[0]) if self.spec.command else None
        if not exe:
            return Readiness(False, f"{self.spec.command[0] if self.spec.command else '?'} "
                                    "not found")
        return Readiness(True, exe)

    def version(self) -> str:
        return ""

    #: What the launch arguments say about stopping at entry.
    entry_arguments: ClassVar[dict[str, Any]] = {"stopOnEntry": True}

    def env_argument(self, request: LaunchRequest) -> Any:
        """The launch's `env` as the adapter wants it (None: leave it out)."""
        return request.env or None

    def launch_arguments(self, request: LaunchRequest) -> dict[str, Any]:
        args: dict[str, Any] = {"program": request.program, "args": request.args,
                                **self.entry_arguments}
        if request.cwd:
            args["cwd"] = request.cwd
        env = self.env_argument(request)
        if env:
            args["env"] = env
        return {**self.spec.launch, **args}

    def attach_arguments(self, request: AttachRequest) -> dict[str, Any]:
        if request.pid is not None:
            return {"processId": request.pid}
        raise UsageError(f"{self.name} attaches by --pid only")

    def attach_server(self, request: AttachRequest) -> tuple[str, int] | None:
        """Where an adapter already listens for us (instead of starting ours)."""
        return None

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

    def child_kind(self, row: dict[str, Any]) -> str:
        """What a row of a ``variables`` answer is, for paging done by dbg:
        "item" (a child), "group" (a synthetic row the adapter adds, not a
        child), or "fold" (a row holding the next children, opened in place)."""
        return "item"

    def fold_size(self, row: dict[str, Any]) -> int | None:
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

    def source_files(self, backend: Any, name: str) -> list[str]:
        """Absolute paths of the program's source files named ``name``, as
        the debugger knows them."""
        return []

    def code_line(self, path: str, line: int) -> int | None:
        """For adapters that do not move a breakpoint off a line without code
        themselves: the line it binds to (None: no code there or after it in
        the function). The default leaves it to the debugger."""
        return line

    def condition_error(self, backend: Any, condition: str) -> str:
        """Why ``condition`` cannot compile in the target's language, for
        adapters that would accept it and then stop always or never ("" if
        it compiles, or if that cannot be known before it is evaluated)."""
        return ""

    def return_value(self, backend: Any) -> ReturnValue | None:
        """After a step out: what the function returned, if the debugger says."""
        return None

    def configuration_requests(self) -> list[tuple[str, dict[str, Any]]]:
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

    def internal_frame(self, frame: dict[str, Any]) -> bool:
        """Whether a stack frame is the runner's or the runtime's own."""
        return False

    def internal_frames(self, frames: list[dict[str, Any]]) -> list[bool]:
        """:meth:`internal_frame` for each frame of a stack, innermost first
        (a profile may judge a frame by the ones around it)."""
        return [self.internal_frame(f) for f in frames]

    def library_frames(self, backend: Any, frames: list[dict[str, Any]]) -> list[str | None]:
        """For each frame of a stack, innermost first: the library or test
        runner whose code it is (its package: "_pytest", "testing"; "" when
        it has no name), or None for the program's own code. Every stop
        asks: no request per frame."""
        return [None] * len(frames)

    def frame_name(self, frame: dict[str, Any]) -> str | None:
        """The frame's function as dbg shows it."""
        name = frame.get("name")
        return str(name) if name is not None else None

    def frames_args(self, backend: Any,
                    frames: list[dict[str, Any]]) -> list[list[Variable] | None]:
        """Each frame's arguments, in order (None: the adapter cannot tell);
        by default its arguments scope, for adapters that show one (gdb)."""
        return [backend.scope_arguments(f) for f in frames]

    def abandon_call(self, backend: Any) -> bool:
        """After a function an expression called stopped inside (a
        breakpoint there): drop the call, so the program is back where it
        was; False if the debugger cannot (see dbg_dap.calls)."""
        return False

    #: The debugger finishes such a call when the program runs on, and
    #: stops where it was (delve).
    call_ends_on_continue: ClassVar[bool] = False

    #: Functions a test run breaks in, where a test fails (go test: testing's
    #: Fail); :meth:`test_failure` then says where the test's code is.
    test_failure_functions: ClassVar[tuple[str, ...]] = ()

    def test_failure(self, backend: Any, frames: list[dict[str, Any]]) -> tuple[int, str] | None:
        """At a stop in one of :attr:`test_failure_functions`: the index of
        the test's own frame that failed and a description naming the test
        and its message; None when this call is not a test's failure (dbg
        resumes)."""
        return None

    #: The adapter shows no return value after a step out, but shows the
    #: results as locals at the function's RET (delve): finish stops there.
    return_values_at_ret: ClassVar[bool] = False
    #: The adapter's function breakpoints stop at the declaration's line
    #: (delve): dbg moves them to the first statement.
    function_stops_at_declaration: ClassVar[bool] = False

    def function_line(self, backend: Any, module: str | None,
                      function: str) -> tuple[str, int] | None:
        """For adapters whose function breakpoints stop somewhere else than
        the other debuggers' (or never): the file and line to break at
        instead (None: use the adapter's function breakpoint)."""
        return None

    def traceback(self, text: str) -> str:
        """An exception's stack as `dbg exception` shows it: in call order,
        outermost first, without the runner's frames."""
        return text

    def generator_frame(self, frame: dict[str, Any]) -> bool:
        """Whether `finish` from this frame must be done without stepOut
        (debugpy does not step out of a generator: it runs on)."""
        return False

    def exit_signal(self, backend: Any, code: int | None) -> str | None:
        """The signal that killed the program, when the adapter reports the
        end with an exit code only (None: it exited with ``code``)."""
        return None

    def default_exception_filters(self, request: LaunchRequest) -> list[str]:
        """Exception filters set at launch: stop where an exception would
        end the program, unless `dbg start --no-catch`."""
        return []

    def skip_stop(self, backend: Any, reason: str, text: str, description: str) -> bool:
        """A stop dbg resumes from at once (debugpy: SystemExit, which ends a
        program the way exit() does)."""
        return False

    def launch_env(self, backend: Any) -> dict[str, str]:
        """Variables added to the program's environment at launch."""
        return {}


class DebugpyProfile(AdapterProfile):
    name = "debugpy"
    walk_suffixes = (".py",)
    features: ClassVar[dict[str, Support]] = {"return-value": "native"}
    breaks_before_run = True
    # debugpy's launcher gives the debuggee its own stdin (/dev/null, the
    # adapter's); our sitecustomize reopens fd 0 on $DBG_STDIN in the debuggee.
    reads_stdin = True

    def hides_fields(self, value: str) -> bool:
        from dbgcore.api import python_object_repr

        return python_object_repr(value)

    def argv(self) -> list[str]:
        # The adapter runs under the Python that has debugpy installed; the
        # debuggee under `python` from the launch arguments.
        return [self._python(), "-m", "debugpy.adapter"]

    def _python(self) -> str:
        configured = self.spec.options.get("adapter_python")
        return str(configured) if configured else sys.executable

    def check(self) -> Readiness:
        if self._python() == sys.executable:
            # Our own interpreter: no need to start another one to ask.
            version = self.version()
            if not version:
                return Readiness(False, f"debugpy is not importable by {sys.executable}")
            return Readiness(True, f"debugpy {version} ({sys.executable})", version)
        try:
            out = subprocess.run(
                [self._python(), "-c", "import debugpy; print(debugpy.__version__)"],
                capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError) as exc:
            return Readiness(False, f"cannot run {self._python()}: {exc}")
        if out.returncode != 0:
            return Readiness(False, f"debugpy is not importable by {self._python()}")
        version = out.stdout.strip()
        return Readiness(True, f"debugpy {version} ({self._python()})", version)

    def version(self) -> str:
        try:
            import debugpy
        except ImportError:
            return ""
        return str(debugpy.__version__)

    def launch_arguments(self, request: LaunchRequest) -> dict[str, Any]:
        env = dict(request.env)
        # Our sitecustomize on the debuggee's path marks a normal end (see
        # exit_signal) and, unless the tcp_nodelay option is false, sets
        # TCP_NODELAY on the debuggee->adapter socket, which debugpy leaves
        # out: every answer would wait ~40 ms (Nagle + delayed ACK).
        previous = env.get("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
        env["PYTHONPATH"] = PYBOOT + (os.pathsep + previous if previous else "")
        if self.spec.options.get("tcp_nodelay", True):
            env["DBG_TCP_NODELAY"] = "1"
        if request.stdin:
            env["DBG_STDIN"] = request.stdin
        args: dict[str, Any] = {
            "console": "internalConsole",
            "stopOnEntry": True,
            "justMyCode": False,
            "subProcess": False,
            "redirectOutput": True,
            "showReturnValue": True,
            "env": env,
            "args": request.args,
            "python": [_real_python(str(request.options.get("python")
                                        or self.spec.options.get("python")
                                        or _default_python()))],
        }
        if request.module:
            args["module"] = request.program
        else:
            args["program"] = request.program
        if request.cwd:
            args["cwd"] = request.cwd
        return {**self.spec.launch, **args}

    def attach_server(self, request: AttachRequest) -> tuple[str, int] | None:
        # debugpy.listen() starts debugpy's adapter on that port; the
        # debuggee is connected to that adapter, not to one we would start.
        if request.port is not None:
            return (request.host or "127.0.0.1", request.port)
        return None

    def attach_arguments(self, request: AttachRequest) -> dict[str, Any]:
        # redirectOutput: pydevd copies what the program writes to sys.stdout
        # and sys.stderr into output events (it still writes it where it went).
        common = {"justMyCode": False, "subProcess": False, "redirectOutput": True,
                  "showReturnValue": True}
        if request.port is not None:
            return {"connect": {"host": request.host or "127.0.0.1", "port": request.port},
                    **common}
        if request.pid is not None:
            return {"processId": request.pid, **common}
        raise UsageError("debugpy attaches with --port or --pid")

    def function_name(self, module: str | None, function: str) -> str:
        return f"{module}.{function}" if module else function

    def hit_condition(self, count: int) -> str:
        return f"== {count}"

    def watch_hint(self) -> str:
        return "debugpy has no data breakpoints; try `dbg break FILE:LINE --if EXPR`"

    def child_kind(self, row: dict[str, Any]) -> str:
        name, value = str(row.get("name", "")), str(row.get("value", ""))
        if name in DEBUGPY_GROUPS:
            return "group"
        # pydevd shows the first 100 items of a long container, then a row
        # "more" (value "..." or "[100:150]") whose children are the rest, in
        # buckets of 1000 named "[100:1100]", "[1100:2100]"...
        if row.get("variablesReference") and (
                (name == "more" and (value == "..." or _BUCKET_RE.fullmatch(value)))
                or _BUCKET_RE.fullmatch(name)):
            return "fold"
        return "item"

    def fold_size(self, row: dict[str, Any]) -> int | None:
        for text in (str(row.get("name", "")), str(row.get("value", ""))):
            bucket = _BUCKET_RE.fullmatch(text)
            if bucket:
                return int(bucket.group(2)) - int(bucket.group(1))
        return None

    def split_exception_note(self, text: str) -> tuple[str, str]:
        # pydevd appends "       (note: full exception trace is shown but
        # execution is paused at: <frame>)" to an uncaught exception's type.
        note = _NOTE_RE.search(text)
        return (text[:note.start()], note.group(1)) if note else (text, "")

    def check_program(self, program: Path) -> None:
        from dbgcore.api import python_program_problem

        problem = python_program_problem(program)
        if problem:
            raise NotAProgram(problem, "give a Python script, or -m MODULE")

    def source_files(self, backend: Any, name: str) -> list[str]:
        from dbg_dap.locations import python_modules

        return python_modules(backend, name)

    def code_line(self, path: str, line: int) -> int | None:
        # pydevd takes a breakpoint on a comment or a blank line and never
        # stops there: move it to the next line with code, as gdb does.
        from dbgcore.api import next_python_code_line

        return next_python_code_line(path, line) if path.endswith(".py") else line

    def condition_error(self, backend: Any, condition: str) -> str:
        # pydevd would take it, then never stop.
        try:
            compile(condition, "<condition>", "eval")
        except SyntaxError as exc:
            return f"{type(exc).__name__}: {exc.msg}"
        return ""

    def return_value(self, backend: Any) -> ReturnValue | None:
        # showReturnValue puts "(return) NAME" among the caller's locals.
        for var in backend.return_rows():
            return ReturnValue(str(var.get("value", "")), var.get("type"))
        return None

    def internal_frame(self, frame: dict[str, Any]) -> bool:
        path = str((frame.get("source") or {}).get("path") or "")
        return path.endswith(os.sep + "runpy.py") or f"{os.sep}debugpy{os.sep}" in path

    def library_frames(self, backend: Any, frames: list[dict[str, Any]]) -> list[str | None]:
        if self._libraries is None and frames:
            # The debuggee's interpreter names its standard library (asked
            # once a session: one evaluate).
            from dbg_dap.locations import program_root
            from dbgcore.api import STDLIB_EXPRESSION, DbgError, PythonLibraries

            try:
                answer = backend.evaluate_in(frames[0], STDLIB_EXPRESSION)
            except DbgError:
                answer = "[]"
            self._libraries = PythonLibraries(PythonLibraries.stdlib_from(answer),
                                              program_root(backend) or backend.cwd)
        if self._libraries is None:
            return [None] * len(frames)
        return [self._libraries.library_of((f.get("source") or {}).get("path")) for f in frames]

    def frame_name(self, frame: dict[str, Any]) -> str | None:
        # pydevd adds " (Current frame)" to the frame an exception stop is
        # reported in: not part of the function's name.
        name = super().frame_name(frame)
        return name.removesuffix(" (Current frame)") if name else name

    def frames_args(self, backend: Any,
                    frames: list[dict[str, Any]]) -> list[list[Variable] | None]:
        return [self._frame_args(backend, f) for f in frames]

    def _frame_args(self, backend: Any, frame: dict[str, Any]) -> list[Variable] | None:
        # pydevd shows no arguments scope: the names come from the function's
        # `def` line, the values from one evaluate in the frame, cut short
        # there so a million-element list costs nothing.
        from dbgcore.api import DbgError, python_parameters

        names = python_parameters((frame.get("source") or {}).get("path"), frame.get("line"),
                                  self.frame_name(frame))
        if not names:
            return None if names is None else []
        probe = ("(lambda L, r: (setattr(r, 'maxstring', 60), setattr(r, 'maxother', 60), "
                 "__import__('json').dumps([[n, r.repr(L[n]), type(L[n]).__name__] "
                 f"for n in {names!r} if n in L]))[-1])(locals(), __import__('reprlib').Repr())")
        try:
            rows = json.loads(ast.literal_eval(backend.evaluate_in(frame, probe)))
        except (DbgError, ValueError, SyntaxError, TypeError):
            return None
        return [Variable(str(n), str(v), str(t)) for n, v, t in rows]

    def traceback(self, text: str) -> str:
        # pydevd lists the frames innermost first, runpy's and its own among
        # them, marks one "(Current frame)", underlines code with carets and
        # ends with the message, which `dbg exception` says apart: turn it
        # into the traceback Python prints.
        frames: list[list[str]] = []
        for line in text.splitlines():
            head = _TB_FRAME_RE.match(line)
            if head:
                frames.append([f"  {head.group(1)}"])
            elif frames and line.startswith("    ") and not line.strip(" ^~"):
                continue
            elif frames and line.startswith("    ") and len(frames[-1]) == 1:
                frames[-1].append(line)
        def path(frame: list[str]) -> str:
            found = _TB_FILE_RE.search(frame[0])
            return found.group(1) if found else ""

        kept = [f for f in frames if not self.internal_frame({"source": {"path": path(f)}})]
        if not kept:
            return ""
        return "\n".join(["Traceback (most recent call last):",
                          *(line for frame in reversed(kept) for line in frame)])

    def function_line(self, backend: Any, module: str | None,
                      function: str) -> tuple[str, int] | None:
        # pydevd stops at a function's `def` line, and never in a generator;
        # gdb and pdb stop at its first statement. So a function found in the
        # program's sources gets a line breakpoint there.
        from dbg_dap.locations import program_root
        from dbgcore.api import python_function, walk_sources

        root = program_root(backend)
        if module or not root:
            return None
        found = [(path, hit[0]) for path in walk_sources(root, (".py",))
                 if (hit := python_function(path, function)) is not None]
        return (os.path.realpath(found[0][0]), found[0][1]) if len(found) == 1 else None

    def generator_frame(self, frame: dict[str, Any]) -> bool:
        from dbgcore.api import python_is_generator

        path = str((frame.get("source") or {}).get("path") or "")
        return path.endswith(".py") and python_is_generator(path, int(frame.get("line") or 0))

    def default_exception_filters(self, request: LaunchRequest) -> list[str]:
        return ["uncaught"] if request.stop_on_uncaught else []

    def configuration_requests(self) -> list[tuple[str, dict[str, Any]]]:
        # debugpy tells pydevd to go on, silently for a NameError, when a
        # condition raises: it would look like a condition that never held.
        # pydevd's own default is to print the error and stop.
        return [("setDebuggerProperty", {"skipSuspendOnBreakpointException": [],
                                         "skipPrintBreakpointException": []})]

    def assignment_problem(self, lhs: str, value: str) -> str:
        # pydevd answers a failed assignment with "Error executing: ..." only.
        try:
            compile(f"{lhs} = ({value})", "<set>", "exec")
        except SyntaxError as exc:
            return f"{type(exc).__name__}: {exc.msg}"
        return ""

    def vague_assignment_error(self, message: str) -> bool:
        return message.startswith("Error executing")

    def condition_failure(self, output: str, conditions: dict[int, str], reason: str,
                          description: str, text: str) -> str | None:
        # pydevd prints "Error while evaluating expression in conditional
        # breakpoint: CONDITION" and the traceback before it stops.
        for match in _PYDEVD_CONDITION_ERROR_RE.finditer(output):
            if match.group(1).strip() in conditions.values():
                return match.group(2).strip()
        return None

    def skip_stop(self, backend: Any, reason: str, text: str, description: str) -> bool:
        # Ending with exit() is not a failure (pdb does not stop there either).
        return reason == "exception" and self.split_exception_note(text)[0] == "SystemExit"

    def launch_env(self, backend: Any) -> dict[str, str]:
        # Our sitecustomize marks a normal end here (see exit_signal).
        return {EXIT_MARK_VAR: str(Path(backend.ctx.run_dir) / "ended")}

    def exit_signal(self, backend: Any, code: int | None) -> str | None:
        # debugpy's launcher reports a death by signal N as the exit code
        # 256 - N. A program that ended normally ran its atexit hooks, which
        # leave a mark (ended-PID): without it, such a code is a signal.
        if code is None or not 128 < code < 256 or not backend.debuggee_pids():
            return None
        marks = [Path(backend.ctx.run_dir) / f"ended-{pid}" for pid in backend.debuggee_pids()]
        if any(mark.exists() for mark in marks):
            return None
        from dbgcore.api import signal_name

        return signal_name(256 - code)


#: A frame of pydevd's stack text, without its "(Current frame)" mark.
_TB_FRAME_RE = re.compile(r"^\s*(File \".*?\", line \d+, in .*?)(?: \(Current frame\))?\s*$")
_TB_FILE_RE = re.compile(r'File "(.*?)"')

#: pydevd's report of a condition that raised: the condition, then a
#: traceback whose last line is the exception.
_PYDEVD_CONDITION_ERROR_RE = re.compile(
    r"Error while evaluating expression in conditional breakpoint: (.*)\n"
    r"(?:Traceback \(most recent call last\):\n(?:[ \t].*\n)*)?(\S.*)")

#: Where the debuggee's sitecustomize marks that it ended normally.
EXIT_MARK_VAR = "DBG_EXIT_MARK"


#: Rows debugpy adds to a value's children that are not children of it.
DEBUGPY_GROUPS = frozenset({"special variables", "function variables", "class variables",
                            "protected variables", "len()"})
_BUCKET_RE = re.compile(r"\[(\d+):(\d+)\]")
_NOTE_RE = re.compile(r"\s+\(note: (.*)\)\s*$", re.S)


def _default_python() -> str:
    return shutil.which("python3") or sys.executable


def _real_python(python: str) -> str:
    """The interpreter behind ``python``. Version-manager shims (pyenv's are
    shell scripts) cost about half a second per start, and debugpy starts the
    interpreter twice (its launcher, then the program). An executable that
    is not a script is no shim: used as it is, without asking it."""
    try:
        with open(python, "rb") as exe:
            if exe.read(4) == b"\x7fELF":
                return python
    except OSError:
        return python
    try:
        out = subprocess.run([python, "-c", "import sys; print(sys.executable)"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return python
    real = out.stdout.strip()
    return real if out.returncode == 0 and real and os.path.exists(real) else python


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


def profiles() -> dict[str, type[AdapterProfile]]:
    """Every profile by name (the native ones live in :mod:`dbg_dap.native`)."""
    from dbg_dap.native import DelveProfile, GdbProfile, LldbProfile

    return {p.name: p for p in (AdapterProfile, DebugpyProfile, GdbProfile, LldbProfile,
                                DelveProfile)}


def profile_for(spec: BackendSpec) -> AdapterProfile:
    name = str(spec.options.get("profile", "generic"))
    known = profiles()
    cls = known.get(name)
    if cls is None:
        raise UsageError(f"backend {spec.name!r}: unknown DAP profile {name!r}",
                         f"known profiles: {', '.join(known)}")
    return cls(spec)
