"""debugpy's profile as the DAP backend sees it: each of the profile's
callbacks handed to the collaborator that does that part.

The collaborators, one module each, by what they do:

- :class:`~dbg_dap.debugpy.launching.DebugpyLaunch`: the adapter, the launch
  or attach, and the Python the program runs under;
- :class:`~dbg_dap.debugpy.libraries.ProgramLibraries`: which files are the
  standard library's or an installed package's;
- :class:`~dbg_dap.debugpy.catching.ExceptionCatch`: `dbg catch` and the
  exception stops it keeps;
- :class:`~dbg_dap.debugpy.stepping.ExceptionSteps`: steps that an exception
  takes out of a function (they share the step under way with the catch);
- :class:`~dbg_dap.debugpy.tracebacks.ExceptionChain`: `dbg exception`;
- stateless: :mod:`~dbg_dap.debugpy.values` (rows and frames),
  :mod:`~dbg_dap.debugpy.sources` (where functions and files are),
  :mod:`~dbg_dap.debugpy.watching` (watches and `dbg trace`, in the program).

What is left here is a line or two each: the answers too small to be a part."""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

import dbg_dap.debugpy.sources as sources
import dbg_dap.debugpy.values as values
import dbg_dap.debugpy.watching as watching
from dbg_dap.debugpy.catching import ExceptionCatch
from dbg_dap.debugpy.launching import DebugpyLaunch
from dbg_dap.debugpy.libraries import ProgramLibraries
from dbg_dap.debugpy.stepping import ExceptionSteps, StepUnderWay
from dbg_dap.debugpy.tracebacks import ExceptionChain
from dbg_dap.host import AdapterHost
from dbg_dap.profile_base import AdapterProfile, LineWatch
from dbgcore.api import (
    AttachRequest,
    BackendSpec,
    BreakLoc,
    CallSink,
    LaunchRequest,
    Location,
    Message,
    NotAProgram,
    PythonSetup,
    Readiness,
    ReturnValue,
    StopEvent,
    Support,
    TraceOutcome,
    Variable,
)

#: pydevd's report of a condition that raised: the condition, then a
#: traceback whose last line is the exception.
_PYDEVD_CONDITION_ERROR_RE = re.compile(
    r"Error while evaluating expression in conditional breakpoint: (.*)\n"
    r"(?:Traceback \(most recent call last\):\n(?:[ \t].*\n)*)?(\S.*)")

#: Where the debuggee's sitecustomize marks that it ended normally.
EXIT_MARK_VAR = "DBG_EXIT_MARK"


class DebugpyProfile(AdapterProfile):
    name = "debugpy"
    # pydevd interrupts an evaluation itself after PYDEVD_INTERRUPT_THREAD_TIMEOUT
    # seconds (KeyboardInterrupt in the thread that evaluates: SIGINT for the
    # main thread, an async exception for another), around the expression
    # only, never inside its own code; it reads the setting at each evaluation.
    evaluation_timeout_setting = (
        "setattr(__import__('sys').modules['_pydevd_bundle.pydevd_constants'], "
        "'PYDEVD_INTERRUPT_THREAD_TIMEOUT', {timeout!r}) or True")
    walk_suffixes = (".py",)
    features: ClassVar[dict[str, Support]] = {"return-value": "native", "children": "native"}
    breaks_before_run = True
    # debugpy's launcher gives the debuggee its own stdin (/dev/null, the
    # adapter's); our sitecustomize reopens fd 0 on $DBG_STDIN in the debuggee.
    reads_stdin = True
    # pydevd has no data breakpoints: dbgcore/inprogram/pywatch.py, loaded into the
    # program, checks a watch from hidden conditional breakpoints.
    line_watches = True
    # showReturnValue puts "(return) NAME" among the caller's locals.
    return_row_prefix = "(return) "

    def __init__(self, spec: BackendSpec) -> None:
        super().__init__(spec)
        self.launch = DebugpyLaunch(spec)
        self.libraries = ProgramLibraries(self.launch.python_setup)
        step = StepUnderWay()
        self.steps = ExceptionSteps(self.launch, step)
        self.catches = ExceptionCatch(self.libraries, step)
        self.chain = ExceptionChain(self.libraries)

    # -- starting: DebugpyLaunch -----------------------------------------------------

    @property
    def follow_children(self) -> bool:
        return self.launch.follow_children

    def feature(self, name: str) -> Support:
        if name == "children" and not self.follow_children:
            return "none"
        return super().feature(name)

    def argv(self) -> list[str]:
        return self.launch.argv()

    def adapter_env(self) -> dict[str, str] | None:
        return self.launch.adapter_env()

    def check(self) -> Readiness:
        return self.launch.check()

    def version(self) -> str:
        return self.launch.version()

    def launch_arguments(self, request: LaunchRequest) -> Message:
        return self.launch.launch_arguments(request)

    def attach_server(self, request: AttachRequest) -> tuple[str, int] | None:
        return self.launch.attach_server(request)

    def attach_arguments(self, request: AttachRequest) -> Message:
        return self.launch.attach_arguments(request)

    def entry_line(self) -> Location | None:
        return self.launch.entry

    def python_setup(self) -> PythonSetup:
        return self.launch.python_setup()

    def check_program(self, program: Path) -> None:
        from dbgcore.api import python_program_problem

        problem = python_program_problem(program)
        if problem:
            raise NotAProgram(problem, "give a Python script, or -m MODULE")

    def launch_env(self, backend: AdapterHost) -> dict[str, str]:
        # Our sitecustomize marks a normal end here (see exit_signal).
        return {EXIT_MARK_VAR: str(Path(backend.ctx.run_dir) / "ended")}

    def configuration_requests(self) -> list[tuple[str, Message]]:
        # debugpy tells pydevd to go on, silently for a NameError, when a
        # condition raises: it would look like a condition that never held.
        # pydevd's own default is to print the error and stop.
        return [("setDebuggerProperty", {"skipSuspendOnBreakpointException": [],
                                         "skipPrintBreakpointException": []})]

    def default_exception_filters(self, request: LaunchRequest) -> list[str]:
        return ["uncaught"] if request.stop_on_uncaught else []

    def exit_signal(self, backend: AdapterHost, code: int | None, timeout: float) -> str | None:
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

    # -- breakpoints and sources: sources -----------------------------------------------

    def function_name(self, module: str | None, function: str) -> str:
        return f"{module}.{function}" if module else function

    def hit_condition(self, count: int) -> str:
        return f"== {count}"

    def code_line(self, path: str, line: int) -> int | None:
        # pydevd takes a breakpoint on a comment or a blank line and never
        # stops there: move it to the next line with code, as gdb does.
        from dbgcore.api import next_python_code_line

        return next_python_code_line(path, line) if path.endswith(".py") else line

    def condition_error(self, backend: AdapterHost, condition: str, timeout: float) -> str:
        # pydevd would take it, then never stop.
        try:
            compile(condition, "<condition>", "eval")
        except SyntaxError as exc:
            return f"{type(exc).__name__}: {exc.msg}"
        return ""

    def condition_failure(self, output: str, conditions: dict[int, str], reason: str,
                          description: str, text: str) -> str | None:
        # pydevd prints "Error while evaluating expression in conditional
        # breakpoint: CONDITION" and the traceback before it stops.
        for match in _PYDEVD_CONDITION_ERROR_RE.finditer(output):
            if match.group(1).strip() in conditions.values():
                return match.group(2).strip()
        return None

    def source_files(self, backend: AdapterHost, name: str, timeout: float) -> list[str]:
        return sources.source_files(backend, name, timeout)

    def search_path_files(self, backend: AdapterHost, requested: str, timeout: float) -> list[str]:
        return self.python_setup().first_on_path(requested)

    def function_line(self, backend: AdapterHost, module: str | None, function: str,
                      timeout: float) -> tuple[str, int] | None:
        return sources.function_line(backend, module, function, timeout)

    def function_places(self, backend: AdapterHost, loc: BreakLoc,
                        timeout: float) -> list[Location] | None:
        if not loc.function:
            return None
        places = sources.function_places(backend, loc.module, loc.function)
        return None if places is None else [Location(p.file, p.line, p.qualname)
                                             for p in places]

    def functions_elsewhere(self, backend: AdapterHost, loc: BreakLoc,
                            timeout: float) -> list[Location]:
        if not loc.function or loc.module or "." in loc.function:
            return []
        return [Location(p.file, p.line, p.qualname)
                for p in sources.functions_elsewhere(backend, loc.function, timeout)]

    def check_function(self, backend: AdapterHost, module: str | None, function: str,
                       timeout: float) -> None:
        sources.check_function(backend, module, function, timeout)

    # -- in the program: watching ---------------------------------------------------------

    def watch_hint(self) -> str:
        return "debugpy has no data breakpoints; try `dbg break FILE:LINE --if EXPR`"

    def line_watch(self, backend: AdapterHost, watch_id: int, expression: str,
                   timeout: float) -> LineWatch:
        return watching.line_watch(backend, watch_id, expression, timeout)

    def line_unwatch(self, backend: AdapterHost, watch_id: int, timeout: float) -> None:
        watching.line_unwatch(backend, watch_id, timeout)

    def line_watch_stop(self, backend: AdapterHost, watch_ids: list[int],
                        timeout: float) -> tuple[list[int], list[int]]:
        return watching.line_watch_stop(backend, watch_ids, timeout)

    def trace(self, backend: AdapterHost, functions: list[str], lines: bool, max_calls: int,
              timeout: float, sink: CallSink) -> TraceOutcome | None:
        return watching.trace(backend, functions, lines, max_calls, timeout, sink)

    def value_tree(self, backend: AdapterHost, expression: str, depth: int,
                   timeout: float) -> Message | None:
        from dbg_dap.debugpy.answers import value_tree

        return value_tree(backend, expression, depth, timeout)

    def tasks(self, backend: AdapterHost, limit: int, timeout: float) -> Message | None:
        from dbg_dap.debugpy.answers import asyncio_tasks

        return asyncio_tasks(backend, limit, timeout)

    # -- values and frames: values, ProgramLibraries --------------------------------------

    def hides_fields(self, value: str) -> bool:
        from dbgcore.api import python_object_repr

        return python_object_repr(value)

    def noise_variable(self, var: Message) -> bool:
        return values.noise_variable(var)

    def child_kind(self, row: Message) -> str:
        return values.child_kind(row)

    def fold_size(self, row: Message) -> int | None:
        return values.fold_size(row)

    def split_exception_note(self, text: str) -> tuple[str, str]:
        return values.split_exception_note(text)

    def assignment_problem(self, lhs: str, value: str) -> str:
        # pydevd answers a failed assignment with "Error executing: ..." only.
        try:
            compile(f"{lhs} = ({value})", "<set>", "exec")
        except SyntaxError as exc:
            return f"{type(exc).__name__}: {exc.msg}"
        return ""

    def vague_assignment_error(self, message: str) -> bool:
        return message.startswith("Error executing")

    def internal_frame(self, frame: Message) -> bool:
        return values.internal_frame(frame)

    def pseudo_frame(self, frame: Message) -> bool:
        return values.pseudo_frame(frame)

    def generator_frame(self, frame: Message) -> bool:
        return values.generator_frame(frame)

    def frame_name(self, frame: Message) -> str | None:
        return values.frame_name(super().frame_name(frame))

    def frames_args(self, backend: AdapterHost, frames: list[Message],
                    timeout: float) -> list[list[Variable] | None]:
        return [values.frame_args(backend, f, self.frame_name(f), timeout) for f in frames]

    def library_frames(self, backend: AdapterHost, frames: list[Message],
                       timeout: float) -> list[str | None]:
        return self.libraries.library_frames(backend, frames, timeout)

    # -- exceptions: ExceptionCatch, ExceptionSteps, ExceptionChain ------------------------

    def catch(self, backend: AdapterHost, filters: list[str], timeout: float) -> list[str] | None:
        return self.catches.catch(backend, filters, timeout)

    def skip_stop(self, backend: AdapterHost, reason: str, text: str, description: str,
                  timeout: float) -> bool:
        return self.catches.skip_stop(backend, reason, text, description, timeout)

    def stop_description(self, text: str, description: str) -> str:
        # A message of several lines (a pytest assertion's) by its first.
        lines = description.strip().splitlines()
        return self.catches.noted(super().stop_description(text, lines[0] if lines else ""))

    def resume_after_skip(self) -> str:
        return self.steps.resume_after_skip()

    def before_step(self, backend: AdapterHost, op: str, timeout: float) -> None:
        self.steps.before_step(backend, op, timeout)

    def after_step(self, backend: AdapterHost, op: str, event: StopEvent,
                   timeout: float) -> StopEvent:
        return self.steps.after_step(backend, op, event, timeout)

    def return_value(self, backend: AdapterHost, timeout: float) -> ReturnValue | None:
        return self.steps.return_value(backend, timeout)

    def handled_exception(self, backend: AdapterHost, timeout: float) -> dict[str, object] | None:
        return self.chain.handled(backend, timeout)

    def exception_stack(self, backend: AdapterHost, text: str,
                        timeout: float) -> tuple[str, list[dict[str, str]]]:
        return self.chain.exception_stack(backend, text, timeout)
