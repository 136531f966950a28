"""debugpy's profile: Python programs under debugpy's adapter and pydevd."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import ClassVar

from dbg_dap.host import AdapterHost, JsonValue, program_root
from dbg_dap.profile_base import AdapterProfile, LineWatch
from dbgcore.api import (
    AttachRequest,
    BackendSpec,
    BreakLoc,
    CallSink,
    DbgError,
    LaunchRequest,
    Location,
    Message,
    NotAProgram,
    OpFailed,
    PythonLibraries,
    PythonSetup,
    Readiness,
    ReturnValue,
    StopEvent,
    Support,
    TraceOutcome,
    UsageError,
    Variable,
    adapter_secret,
    follow_trace_file,
    peers,
    traced_run,
)

PYBOOT = str(Path(__file__).with_name("pyboot"))
#: debugpy's adapter with a guard on each port it listens on (see its docstring).
DEBUGPY_ADAPTER = str(Path(__file__).with_name("adapterboot") / "dbg_debugpy_adapter.py")
#: The file in DBG_HOME where debugpy's launcher keeps how the last launch
#: started its program (adapterboot/dbg_warm_launcher.py).
DEBUGGEE_RECORD = "debuggee.json"
#: Set: no program's interpreter is started ahead of its launch.
NO_WARM_DEBUGGEE = "DBG_NO_WARM_DEBUGGEE"


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

    def __init__(self, spec: BackendSpec) -> None:
        super().__init__(spec)
        #: The launch, its interpreter, and what that says of itself.
        self._request: LaunchRequest | None = None
        self._interpreter = ""
        self._setup: PythonSetup | None = None
        #: `dbg catch` of exceptions where raised (`raised`, classes), and
        #: whether in every code's frames (`all-code`); None: no such catch.
        self._raised_catch: bool | None = None
        #: The exception the thread was handling when a step began.
        self._handling_before_step = ""
        #: The last step followed an exception out of a function (so what
        #: pydevd shows as its return value is none), and is doing so now.
        self._unwound = False
        self._stepping = False
        #: The step under way (next, step, finish), while it runs, and the
        #: exception a catch saw it go through.
        self._step_op = ""
        self._step_note = ""
        #: Python 3.12 and newer: dbg's breakpoints where the callers of a
        #: frame being finished handle exceptions, as (id, file, line).
        self._handler_breaks: list[tuple[int, str, int]] = []
        #: A `-m MODULE` launch's entry stop (see _module_entry).
        self._entry: Location | None = None
        #: The adapter's access token: what a pydevd (a debuggee's, a child
        #: process's: `debugpy --connect HOST:PORT --adapter-access-token
        #: TOKEN`) must present on the adapter's server port. dbg chooses it
        #: (debugpy would draw its own) so that dbg can start such a process
        #: itself. Not the guard: debugpy's launcher puts it on the debuggee's
        #: command line, which any local user reads; the adapter's ports take
        #: only connections from the session's own processes (see
        #: adapterboot/dbg_debugpy_adapter.py). The early adapter's, when
        #: one was spawned for this start (dbgcore.start.prespawn).
        self.adapter_access_token = adapter_secret("DBG_ADAPTER_TOKEN")
        #: `dbg attach --pid`: that process connects to the adapter too.
        self._attach_pid: int | None = None
        #: Where the exception of this catch stop was raised, when that is
        #: in a library (the stop is where it reached the program's code).
        self._raised_note = ""

    @property
    def follow_children(self) -> bool:
        """Each child process a session of its own (backends.yaml option
        follow_children, default true); false: children run undebugged, at
        their normal speed (a session per child costs a daemon and a
        connection to the adapter, ~1 s)."""
        return bool(self.spec.options.get("follow_children", True))

    def feature(self, name: str) -> Support:
        if name == "children" and not self.follow_children:
            return "none"
        return super().feature(name)

    def hides_fields(self, value: str) -> bool:
        from dbgcore.api import python_object_repr

        return python_object_repr(value)

    def argv(self) -> list[str]:
        # The adapter runs under the Python that has debugpy installed; the
        # debuggee under `python` from the launch arguments. Not `-m
        # debugpy.adapter` itself: its ports would be open to every local user.
        return [self._python(), DEBUGPY_ADAPTER]

    def adapter_env(self) -> dict[str, str] | None:
        # In the environment, not argv: any user reads a command line in /proc.
        env = {**os.environ, "DBG_PEERS": peers.__file__,
               "DBG_SESSION_PID": str(os.getpid()),
               "DBG_ADAPTER_TOKEN": self.adapter_access_token}
        if self._attach_pid is not None:
            # debugpy injects pydevd into that process, which then connects
            # to the adapter's server port from outside dbg's processes.
            env["DBG_ATTACH_PID"] = str(self._attach_pid)
            # It injects with the `gdb` on PATH. Debian's gdb 13.1 killed the
            # process it injected into on a 6.18 kernel (its interrupted
            # sleep failed with errno 514); the gdb beside dbg's Python
            # (gdb-for-pwndbg, which the gdb backend prefers too) goes first.
            beside = Path(sys.executable).parent
            if os.access(beside / "gdb", os.X_OK):
                env["PATH"] = os.pathsep.join(filter(None, [str(beside), env.get("PATH")]))
        root = self._debugpy_root()
        if root:
            # The adapter's launcher runs on the program's Python too: on
            # another version than dbg's, it compiled its modules at every
            # start (about 90 ms on 3.12). It gets our sitecustomize with
            # only its bytecode loader on (see launch_arguments), through
            # the adapter, which passes this on to it alone
            # (adapterboot/dbg_debugpy_adapter.py).
            from dbgcore.api import dbg_home, private_dir

            previous = os.environ.get("PYTHONPATH", "")
            env["DBG_LAUNCHER_PYTHONPATH"] = PYBOOT + (os.pathsep + previous if previous else "")
            # Code is loaded from there: a folder of the user's own, verified.
            env["DBG_PYC_DIR"] = str(private_dir(dbg_home() / "pyc"))
            env["DBG_DEBUGPY_ROOT"] = root
            if self._attach_pid is None:
                # A launcher waits, started with the adapter, for the launch
                # (adapterboot/dbg_warm_launcher.py); an attach has none.
                env["DBG_WARM_LAUNCHER"] = "1"
                if not os.environ.get(NO_WARM_DEBUGGEE):
                    # It starts the program's interpreter ahead too, as the
                    # last launch started it (adapterboot/dbg_warm_launcher.py).
                    env["DBG_DEBUGGEE_RECORD"] = str(dbg_home() / DEBUGGEE_RECORD)
        return env

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

    def _debugpy_root(self) -> str:
        """The folder of the debugpy that runs in the program (the adapter's
        launcher gives it the adapter's), or "" when another Python runs it."""
        if self._python() != sys.executable:
            return ""
        import importlib.util

        try:
            spec = importlib.util.find_spec("debugpy")
        except (ImportError, ValueError):
            return ""
        origin = spec.origin if spec is not None else None
        return os.path.dirname(os.path.realpath(origin)) if origin else ""

    def version(self) -> str:
        try:
            import debugpy
        except ImportError:
            return ""
        return str(debugpy.__version__)

    def launch_arguments(self, request: LaunchRequest) -> Message:
        self._request = request
        self._interpreter = _real_python(str(request.options.get("python")
                                             or self.spec.options.get("python")
                                             or _default_python()),
                                         {**os.environ, **request.env}, request.cwd)
        env = dict(request.env)
        # Our sitecustomize on the debuggee's path marks a normal end (see
        # exit_signal) and, unless the tcp_nodelay option is false, sets
        # TCP_NODELAY on the debuggee->adapter socket, which debugpy leaves
        # out: every answer would wait ~40 ms (Nagle + delayed ACK).
        previous = env.get("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
        env["PYTHONPATH"] = PYBOOT + (os.pathsep + previous if previous else "")
        if self.spec.options.get("tcp_nodelay", True):
            env["DBG_TCP_NODELAY"] = "1"
        # pydevd's threads no longer wait 0.5 s for each other as the program
        # ends (pyboot/dbg_boot.py's _wait_for_pydevd_threads).
        env["DBG_PYDEVD_END"] = "1"
        # Nor does the program begin 0.1 s after the handshake is done
        # (pyboot/dbg_boot.py's _NetworkStartTime).
        env["DBG_PYDEVD_START"] = "1"
        # Each stop's facts that a step needs come in its `stopped` event
        # (pyboot/dbg_boot.py's _stop_facts), not by evaluates.
        env["DBG_STOP_FACTS"] = "1"
        # pydevd's side builds no startup report no log keeps (40-65 ms, twice:
        # pyboot/dbg_debugpy_quiet.py).
        env["DBG_DEBUGPY_QUIET"] = "1"
        root = self._debugpy_root()
        if root:
            # debugpy's modules from dbg's bytecode for the program's Python
            # (pyboot/dbg_boot.py's _DebugpyLoader).
            from dbgcore.api import dbg_home, private_dir

            env["DBG_PYC_DIR"] = str(private_dir(dbg_home() / "pyc"))
            env["DBG_DEBUGPY_ROOT"] = root
        if request.test:
            # A test run: the test hook (pyboot/dbg_testhook.py) is given the
            # path of dbg's one rule for a library's file, which it tells the
            # program's code by (dbgcore/inprogram/libfiles.py, beside pyrepr).
            from dbgcore.api import pyrepr

            env["DBG_TEST_RUN"] = os.path.join(os.path.dirname(pyrepr.__file__), "libfiles.py")
            if self.spec.options.get("lazy_tracing", True):
                # Untraced while nothing needs pydevd's tracing (pyboot/dbg_lazytrace.py).
                env["DBG_LAZY_TRACE"] = "1"
        if request.stdin:
            env["DBG_STDIN"] = request.stdin
        if not self.follow_children:
            env["DBG_CHILDREN_UNDEBUGGED"] = "1"
        # `start --run` (and `dbg test`) has no entry stop: no need to ask the
        # interpreter where the module starts (60-250 ms before the launch).
        self._entry = None if request.before_run is not None else self._module_entry(request)
        args: Message = {
            "console": "internalConsole",
            "stopOnEntry": self._entry is None,
            "justMyCode": False,
            # Children (multiprocessing, subprocess of Python, os.fork) are
            # followed: each one's pydevd connects to the adapter, which asks
            # dbg to attach to it (startDebugging), and the child waits until
            # a client does. Off (option follow_children: false), our
            # sitecustomize stops pydevd's tracing in a forked child.
            "subProcess": self.follow_children,
            "redirectOutput": True,
            "showReturnValue": True,
            # dbg's own code in the debuggee (sitecustomize, the test hook) is
            # never stepped into, nor stopped in.
            "rules": [{"path": PYBOOT, "include": False}],
            "env": env,
            "args": request.args,
            "python": [self._interpreter],
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

    def attach_arguments(self, request: AttachRequest) -> Message:
        # redirectOutput: pydevd copies what the program writes to sys.stdout
        # and sys.stderr into output events (it still writes it where it went).
        common = {"justMyCode": False, "subProcess": self.follow_children, "redirectOutput": True,
                  "showReturnValue": True}
        if request.port is not None:
            return {"connect": {"host": request.host or "127.0.0.1", "port": request.port},
                    **common}
        if request.pid is not None:
            self._attach_pid = request.pid
            return {"processId": request.pid, **common}
        raise UsageError("debugpy attaches with --port or --pid")

    def function_name(self, module: str | None, function: str) -> str:
        return f"{module}.{function}" if module else function

    def hit_condition(self, count: int) -> str:
        return f"== {count}"

    def watch_hint(self) -> str:
        return "debugpy has no data breakpoints; try `dbg break FILE:LINE --if EXPR`"

    # pydevd has no data breakpoints: dbgcore/inprogram/pywatch.py, loaded into the
    # program, checks a watch from hidden conditional breakpoints.
    line_watches = True

    def line_watch(self, backend: AdapterHost, watch_id: int, expression: str,
                   timeout: float) -> LineWatch:
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
        call = (f"{_pywatch()}.add_answer({watch_id!r}, {expression!r}, "
                f"where=({path!r}, {line!r}, {nth!r}), skip={_PYDEVD_MODULES!r})")
        answer = _json_answer(backend.dap_session().request("evaluate", {
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

    def line_unwatch(self, backend: AdapterHost, watch_id: int, timeout: float) -> None:
        self._pywatch_call(backend, f"remove({watch_id!r})", timeout)

    def line_watch_stop(self, backend: AdapterHost, watch_ids: list[int],
                        timeout: float) -> tuple[list[int], list[int]]:
        answer = self._pywatch_call(backend, f"at_stop({watch_ids!r})", timeout)
        if not isinstance(answer, dict):
            return [], []
        return ([int(n) for n in answer.get("gone") or []],
                [int(n) for n in answer.get("changed") or []])

    def _pywatch_call(self, backend: AdapterHost, call: str, timeout: float) -> JsonValue:
        """The JSON of a call of the helper's, evaluated at this stop (None:
        not stopped, or it failed: a watch's bookkeeping must not fail an op)."""
        if backend.state() != "stopped":
            return None
        try:
            frames = backend.stack_frames(timeout)
            if not frames:
                return None
            return _json_answer(backend.dap_session().request("evaluate", {
                "expression": f"__import__('json').dumps({_pywatch()}.{call})",
                "context": "watch", "frameId": int(frames[0]["id"])}, timeout))
        except (DbgError, ValueError) as exc:
            backend.ctx.log.note(f"watch helper: {call}: {exc}")
            return None

    # showReturnValue puts "(return) NAME" among the caller's locals.
    return_row_prefix = "(return) "

    def noise_variable(self, var: Message) -> bool:
        # pydevd groups "special variables" / "function variables" as
        # synthetic rows, and lists dunder names among a scope's variables.
        name = str(var.get("name", ""))
        return name in ("special variables", "function variables", "class variables") or (
            name.startswith("__") and name.endswith("__") and name != "__return__")

    def child_kind(self, row: Message) -> str:
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

    def fold_size(self, row: Message) -> int | None:
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

    def source_files(self, backend: AdapterHost, name: str, timeout: float) -> list[str]:
        # The files of the modules the program has loaded, named ``name``.
        expression = ("[f for m in list(__import__('sys').modules.values()) "
                      "for f in [getattr(m, '__file__', None)] "
                      f"if f and f.endswith({'/' + name!r})]")
        answer = backend.evaluate_with(expression, "repl", timeout).value
        try:
            files = ast.literal_eval(answer)
        except (ValueError, SyntaxError):
            return []
        return [str(f) for f in files if isinstance(f, str)]

    def entry_line(self) -> Location | None:
        return self._entry

    def _module_entry(self, request: LaunchRequest) -> Location | None:
        """For `-m MODULE`: its first line, where pdb stops at entry too.
        debugpy's own stop on entry is at the first line of code it deems
        the user's that runs, which may be a plugin's, dbg's own included."""
        if not request.module:
            return None
        from dbgcore.api import next_python_code_line

        path = self.python_setup().module_file
        line = next_python_code_line(path, 1) if path.endswith(".py") else None
        return Location(os.path.realpath(path), line, "<module>") if line else None

    def python_setup(self) -> PythonSetup:
        """The program's interpreter's own word on its search path and its
        standard library: asked once a session, with the program's
        environment and folder (before it runs, too)."""
        if self._setup is None:
            from dbgcore.api import probe_python

            request = self._request
            if request is None:
                self._setup = PythonSetup(error="attached: dbg did not start its interpreter")
            else:
                program_dir = None if request.module else os.path.dirname(
                    os.path.abspath(os.path.join(request.cwd or "", request.program)))
                self._setup = probe_python(self._interpreter, request.env, request.cwd,
                                           program_dir, request.program if request.module
                                           else None)
        return self._setup

    def search_path_files(self, backend: AdapterHost, requested: str, timeout: float) -> list[str]:
        return self.python_setup().first_on_path(requested)

    def _library_file(self, path: str) -> bool:
        """Whether ``path`` is the standard library's or an installed package's."""
        if self._libraries is None:
            self._libraries = PythonLibraries(self.python_setup().stdlib, None)
        return self._libraries.library_of(path) is not None

    # -- exceptions: dbg catch, steps they pass through --------------------------------

    def catch(self, backend: AdapterHost, filters: list[str], timeout: float) -> list[str] | None:
        # debugpy's filters stop on every exception (`raised`) in every
        # frame it passes through, the standard library's included. Classes
        # by name go to pydevd as exceptionOptions (it matches subclasses
        # of the classes it can import when they are set); dbg then keeps
        # the stops to the first frame of the program's own code each one
        # reaches (see skip_stop).
        chosen = list(dict.fromkeys(filters))
        names = [f for f in chosen if f not in _CATCH_WORDS]
        if not names and "raised" not in chosen:
            if ALL_CODE in chosen:
                raise UsageError("all-code goes with raised or an exception class",
                                 "e.g. dbg catch raised --all-code")
            self._raised_catch = None
            return None  # debugpy's own filters, as they are
        bad = [n for n in names if not _EXCEPTION_CLASS_RE.fullmatch(n)]
        if bad:
            raise UsageError(f"{bad[0]!r} is neither an exception class nor a filter",
                             "give class names (ValueError, mypkg.errors.ParseError) or "
                             "raised, uncaught, userUnhandled, all-code")
        classes = ["BaseException"] if "raised" in chosen else self._classes(backend, names,
                                                                                  timeout)
        python = {"names": ["Python Exceptions"]}
        options: list[Message] = [
            {"path": [python, {"names": classes}], "breakMode": "always"}]
        for word, mode in (("uncaught", "unhandled"), ("userUnhandled", "userUnhandled")):
            if word in chosen:
                options.append({"path": [python], "breakMode": mode})
        dap = backend.dap_session()
        dap.request("setExceptionBreakpoints", {"filters": [], "exceptionOptions": options},
                    timeout)
        all_code = ALL_CODE in chosen
        if not all_code:
            # pydevd leaves a library's exceptions out of these breakpoints
            # only when justMyCode is on, which would also keep steps out of
            # libraries: set it on the breakpoints themselves.
            try:
                dap.request("evaluate", {"context": "repl", "expression": _USER_CODE_ONLY},
                            timeout)
            except DbgError:
                backend.ctx.log.note("could not keep exception stops to the program's code")
        self._raised_catch = all_code
        backend.exception_filters = [f for f in chosen if f in _CATCH_WORDS and f != ALL_CODE]
        return chosen

    def _classes(self, backend: AdapterHost, names: list[str], timeout: float) -> list[str]:
        """The names pydevd is given: a qualified one as it is; a bare one is
        a builtin, or every class of that name the program has loaded."""
        bare = [n for n in names if "." not in n]
        found: dict[str, list[str]] = {}
        if bare:
            expression = _BARE_CLASSES_EXPRESSION.replace("NAMES", repr(bare))
            try:
                body = backend.dap_session().request(
                    "evaluate", {"context": "repl", "expression": expression}, timeout)
                found = _json_answer(body)
            except (DbgError, ValueError, TypeError):
                found = {}
        out: list[str] = []
        for name in names:
            if "." in name:
                out.append(name)
                continue
            classes = found.get(name) or []
            if not classes:
                raise UsageError(f"no exception class {name} is loaded in the program yet",
                                 unknown_class_hint(name, "raised, uncaught, userUnhandled"))
            out += classes
        return list(dict.fromkeys(out))

    def resume_after_skip(self) -> str:
        # An exception a step goes through stops a catch again in each frame
        # it passes (pydevd): from there the step goes on, not a continue.
        return {"next": "next", "step": "stepIn", "finish": "stepIn"}.get(self._step_op,
                                                                          "continue")

    def before_step(self, backend: AdapterHost, op: str, timeout: float) -> None:
        if self._stepping:
            return
        if backend.last_reason == "exception" and backend.dap is not None and \
                self.split_exception_note(backend.dap.stop.text)[1]:
            raise OpFailed(f"cannot {op} here: the program stopped post mortem, after the "
                           "exception ended these frames",
                           "`dbg continue` goes on, to the next failing test or the end; "
                           "`dbg print`, `dbg frame` and `dbg exception` look around")
        self._step_op = op
        self._handling_before_step = self._handling(backend, timeout)
        self._step_note = ""
        if op == "finish":
            setup = self.python_setup()
            if not setup.error and setup.version >= (3, 12):
                self._handler_breaks = _place_handler_breaks(backend, timeout)

    def after_step(self, backend: AdapterHost, op: str, event: StopEvent,
                   timeout: float) -> StopEvent:
        # A step into or out of a function an exception leaves stops in its
        # caller as if it returned (None): go on to the line that handles it,
        # as pdb does and as `next` does here.
        if self._stepping:
            return event  # one of the steps below
        self._step_op = ""
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
        note, self._step_note = self._step_note, ""
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
        facts = _stop_facts(backend)
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
            return _json_answer(body) is True
        except (DbgError, ValueError, TypeError):
            return False

    def _handling(self, backend: AdapterHost, timeout: float) -> str:
        """The exception the stopped thread is handling (JSON: its id, its
        line, where it was raised), or ""."""
        facts = _stop_facts(backend)
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

    def return_value(self, backend: AdapterHost, timeout: float) -> ReturnValue | None:
        if self._unwound:
            return None  # an exception took the function out: it returned nothing
        # showReturnValue puts "(return) NAME" among the caller's locals.
        for var in backend.return_rows(timeout):
            return ReturnValue(str(var.get("value", "")), var.get("type"))
        return None

    def internal_frame(self, frame: Message) -> bool:
        path = str((frame.get("source") or {}).get("path") or "")
        return path.endswith(os.sep + "runpy.py") or f"{os.sep}debugpy{os.sep}" in path

    def pseudo_frame(self, frame: Message) -> bool:
        # At an exception with a cause, pydevd lists the cause's traceback
        # after the stack, as frames named "[Chained Exc: MESSAGE] FUNCTION":
        # `dbg exception` shows the chain; the stack is the calls.
        return str(frame.get("name", "")).startswith("[Chained Exc: ")

    def library_frames(self, backend: AdapterHost, frames: list[Message],
                       timeout: float) -> list[str | None]:
        if self._libraries is None and frames:
            # The debuggee's interpreter names its standard library (asked
            # once a session: one evaluate).
            from dbgcore.api import STDLIB_EXPRESSION, DbgError, PythonLibraries

            try:
                answer = backend.evaluate_in(frames[0], STDLIB_EXPRESSION, timeout)
            except DbgError:
                answer = "[]"
            self._libraries = PythonLibraries(PythonLibraries.stdlib_from(answer),
                                              program_root(backend.program) or backend.cwd)
        if self._libraries is None:
            return [None] * len(frames)
        return [self._libraries.library_of((f.get("source") or {}).get("path")) for f in frames]

    def frame_name(self, frame: Message) -> str | None:
        # pydevd adds " (Current frame)" to the frame an exception stop is
        # reported in: not part of the function's name.
        name = super().frame_name(frame)
        return name.removesuffix(" (Current frame)") if name else name

    def frames_args(self, backend: AdapterHost, frames: list[Message],
                    timeout: float) -> list[list[Variable] | None]:
        return [self._frame_args(backend, f, timeout) for f in frames]

    def _frame_args(self, backend: AdapterHost, frame: Message,
                    timeout: float) -> list[Variable] | None:
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
                 f"for n in {names!r} if n in L]))[-1])(locals(), {_program_repr()})")
        try:
            rows = json.loads(ast.literal_eval(backend.evaluate_in(frame, probe, timeout)))
        except (DbgError, ValueError, SyntaxError, TypeError):
            return None
        return [Variable(str(n), str(v), str(t)) for n, v, t in rows]

    def _traceback(self, blocks: list[_TracebackBlock]) -> str:
        """The traceback Python prints, causes first, without the runner's
        frames, and without the last line (`dbg exception` says it first)."""
        lines: list[str] = []
        for index, block in enumerate(blocks):
            if block.frames:
                frames = self._program_frames(block.frames)
                lines += ["Traceback (most recent call last):",
                          *(line for frame in frames for line in frame)]
            if index < len(blocks) - 1:
                lines += [block.error, "", _CHAIN_WORDS[block.relation], ""]
        return "\n".join(lines) if any(b.frames for b in blocks) else ""

    def exception_stack(self, backend: AdapterHost, text: str,
                        timeout: float) -> tuple[str, list[dict[str, str]]]:
        # pydevd's text ends the chain at a cause that was never raised (it
        # has no traceback): multiprocessing's RemoteTraceback, which holds
        # the traceback of the worker where the exception was raised. And a
        # failing test stops in the test's own frame (pyboot/dbg_testhook.py),
        # where pydevd's frames end, though it was raised further in (a
        # library's code it called). The causes are asked of the program, as
        # Python prints them; the stop's own exception is pydevd's frames,
        # which lead to the stop, and its traceback's beyond it.
        blocks = _pydevd_blocks(text)
        asked = self._asked_exception(backend, timeout) if blocks else None
        if asked is not None:
            causes, inner = asked
            main = blocks[-1]
            if main.frames:
                stop = main.frames[-1][0]
                heads = [frame[0] for frame in inner]
                if stop in heads:
                    last = len(heads) - 1 - heads[::-1].index(stop)
                    main.frames += inner[last + 1:]
            blocks = [*causes, main]
        return self._traceback(blocks), _chain(blocks)

    def _asked_exception(self, backend: AdapterHost, timeout: float
                         ) -> tuple[list[_TracebackBlock], list[list[str]]] | None:
        """Of the exception the program stopped at, from the program: its
        causes, outermost first, and its own traceback's frames (None when
        it cannot say)."""
        frames = backend.stack_frames(timeout)
        if not frames:
            return None
        try:
            rows, own = json.loads(ast.literal_eval(
                backend.evaluate_in(frames[0], _exception_call("exception_rows"), timeout)))
            causes = []
            for name, description, relation, entries, only in rows:
                block = _TracebackBlock()
                block.frames = _traceback_frames(entries)
                block.error = str(only).rstrip("\n")
                block.name, block.description = str(name), str(description)
                block.relation = str(relation)
                causes.append(block)
            return causes, _traceback_frames(own)
        except (DbgError, ValueError, SyntaxError, TypeError):
            return None

    def _program_frames(self, frames: list[list[str]]) -> list[list[str]]:
        """Frames (outermost first) from the first of the program's own code:
        without the runner's (runpy, pytest, unittest) above it."""
        def path(frame: list[str]) -> str:
            found = _TB_FILE_RE.search(frame[0])
            return found.group(1) if found else ""

        mine = [f for f in frames if not self.internal_frame({"source": {"path": path(f)}})]
        for index, frame in enumerate(mine):
            if not self._library_file(path(frame)):
                return mine[index:]
        if len(mine) > LIBRARY_TRACEBACK_FRAMES:
            # None of the program's own (a runner's error about the program,
            # whose cause has the program's frames): where it was raised.
            left = len(mine) - LIBRARY_TRACEBACK_FRAMES
            return [[f"  ... {left} frames of the runner and libraries"],
                    *mine[-LIBRARY_TRACEBACK_FRAMES:]]
        return mine

    def _python_functions(self, backend: AdapterHost, module: str | None,
                          function: str) -> list[tuple[str, int]] | None:
        """Where ``function`` (in ``module``, a dotted name or its last
        parts) starts in the program's sources; None: no folder to search."""
        from dbgcore.api import python_function, walk_sources

        root = program_root(backend.program)
        if not root:
            return None
        found = []
        for path in walk_sources(root, (".py",)):
            if module:
                dotted = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                dotted = dotted.removesuffix(".__init__")
                if dotted != module and not dotted.endswith("." + module):
                    continue
            hit = python_function(path, function)
            if hit is not None:
                found.append((os.path.realpath(path), hit[0]))
        return found

    def function_line(self, backend: AdapterHost, module: str | None, function: str,
                      timeout: float) -> tuple[str, int] | None:
        # pydevd stops at a function's `def` line, and never in a generator;
        # gdb and pdb stop at its first statement. So a function found in the
        # program's sources gets a line breakpoint there.
        found = self._python_functions(backend, module, function)
        if found is None:
            return None
        if len(found) == 1:
            return found[0]
        if module or "." in function:
            # pydevd matches a function breakpoint against a code object's bare
            # name: sent as "mod.f" or "C.m" it would never stop.
            where = f" in module {module}" if module else ""
            if not found:
                bare = function.rsplit(".", 1)[-1]
                raise OpFailed(f"no function {function}{where} in the program's sources",
                               f"nothing was set; `dbg break {bare}` stops in any function "
                               f"named {bare} that runs")
            raise OpFailed(f"{function}{where} is in {len(found)} files: "
                           f"{', '.join(path for path, _ in found)}",
                           "nothing was set; give FILE:LINE")
        return None

    def check_function(self, backend: AdapterHost, module: str | None, function: str,
                       timeout: float) -> None:
        # pydevd verifies any name and stops in whatever function of that name
        # runs. As on pdb, a bare name binds when it is in the program's
        # sources (function_line placed it) or names a function in scope where
        # the program is stopped (a library's); anything else is refused.
        if module or "." in function or self._python_functions(backend, None, function) != []:
            return  # function_line placed it, refused it, or found it twice
        in_scope = ""
        if function.isidentifier():
            try:
                frames = backend.stack_frames(timeout)
                if frames:
                    frame = frames[min(backend.frame_index, len(frames) - 1)]
                    in_scope = backend.evaluate_in(frame, f"type({function}).__name__", timeout)
            except DbgError:
                in_scope = ""  # running, or not defined there
        if in_scope.strip("'\"") in ("function", "method"):
            return
        raise OpFailed(f"no function {function} in the program's sources, nor in scope "
                       "where the program is stopped",
                       "nothing was set; a library's function: stop where it is in scope, "
                       "or give MODULE!FUNCTION of the program, or FILE:LINE")

    def generator_frame(self, frame: Message) -> bool:
        from dbgcore.api import python_is_generator

        path = str((frame.get("source") or {}).get("path") or "")
        return path.endswith(".py") and python_is_generator(path, int(frame.get("line") or 0))

    def default_exception_filters(self, request: LaunchRequest) -> list[str]:
        return ["uncaught"] if request.stop_on_uncaught else []

    def configuration_requests(self) -> list[tuple[str, Message]]:
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

    def skip_stop(self, backend: AdapterHost, reason: str, text: str, description: str,
                  timeout: float) -> bool:
        # Ending with exit() is not a failure (pdb does not stop there either).
        if reason != "exception":
            return False
        name, note = self.split_exception_note(text)
        if name == "SystemExit":
            return True
        if self._raised_catch is not None and not note and "userUnhandled" not in \
                backend.exception_filters and self._caught_before(backend, timeout):
            return True
        self._worker_note(backend, timeout)
        return False

    def _worker_note(self, backend: AdapterHost, timeout: float) -> None:
        """At an exception stop in a library's code: where a worker process
        raised it, for the stop's description. multiprocessing (and
        concurrent.futures) re-raise a worker's exception in the parent, in
        their own code, with the worker's traceback as the text of a cause
        that was never raised (RemoteTraceback)."""
        frames = backend.stack_frames(timeout)
        if self._raised_note or not frames or not self._library_file(
                str((frames[0].get("source") or {}).get("path") or "")):
            return
        try:
            found = _json_answer(backend.dap_session().request("evaluate", {
                "expression": _exception_call("worker_place"), "context": "watch",
                "frameId": int(frames[0]["id"])}, timeout))
        except (DbgError, ValueError, TypeError):
            return
        if isinstance(found, str) and found:
            self._raised_note = f"{found}, in a worker process"

    def _caught_before(self, backend: AdapterHost, timeout: float) -> bool:
        """At an exception stop of `dbg catch raised` (or a class): whether
        the exception stopped already, in a frame it came out of. pydevd
        stops in every frame it passes through; dbg, in the first one."""
        frames = backend.stack_frames(timeout)
        if not frames:
            return False
        try:
            body = backend.dap_session().request("evaluate", {
                "expression": _TRACEBACK_FILES_EXPRESSION, "context": "watch",
                "frameId": int(frames[0]["id"])}, timeout)
            files = [f for f in _json_answer(body) if isinstance(f, list) and len(f) == 4]
        except (DbgError, ValueError, TypeError):
            return False
        if not files:
            return False
        inner = [str(f[0]) for f in files[1:]]
        path, line, function, said = files[-1]
        if inner and (self._raised_catch or any(not self._library_file(f) for f in inner)):
            if self._step_op:
                # A step goes on through it (resume_after_skip); its stop
                # names it even where nothing handles it in an except.
                self._step_note = f"{said} (raised in {function} at {path}:{line})"
            return True
        if inner:
            # Raised in a library's code, it stops where it reaches the program's.
            self._raised_note = f"{function} at {path}:{line}"
        return False

    def stop_description(self, text: str, description: str) -> str:
        # A message of several lines (a pytest assertion's) by its first.
        lines = description.strip().splitlines()
        said = super().stop_description(text, lines[0] if lines else "")
        note, self._raised_note = self._raised_note, ""
        return f"{said} (raised in {note})" if note and said else said

    def launch_env(self, backend: AdapterHost) -> dict[str, str]:
        # Our sitecustomize marks a normal end here (see exit_signal).
        return {EXIT_MARK_VAR: str(Path(backend.ctx.run_dir) / "ended")}

    def trace(self, backend: AdapterHost, functions: list[str], lines: bool, max_calls: int,
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
            self.check_function(backend, loc.module, loc.function or function, timeout)
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
                            note=pytrace.unseen_note(started), timed_out=timed_out)

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


class _TracebackBlock:
    """One exception of a chain: its frames (outermost first), its line as
    Python prints it, and how it leads to the next one ("cause" or
    "context"); its type's name and its text when known apart."""

    def __init__(self) -> None:
        self.frames: list[list[str]] = []
        self.error = ""
        self.relation = ""
        self.name: str | None = None
        self.description = ""


def _chain(blocks: list[_TracebackBlock]) -> list[dict[str, str]]:
    """`dbg exception`'s chain: the exceptions before the last, cause first."""
    chain = []
    for block in blocks[:-1]:
        if block.name is None:
            name, _, message = block.error.partition(": ")
        else:
            name, message = block.name, block.description
        chain.append({"exception": name, "description": message, "relation": block.relation})
    return chain


def _traceback_frames(entries: list[list[object]]) -> list[list[str]]:
    """Traceback entries [file, line, function, code] as frames of a block."""
    return [[f'  File "{path}", line {line}, in {function}', *([f"    {code}"] if code else [])]
            for path, line, function, code in entries]


#: Python's words between the exceptions of a chain, by relation.
_CHAIN_WORDS = {
    "cause": "The above exception was the direct cause of the following exception:",
    "context": "During handling of the above exception, another exception occurred:",
    "": "",
}
_CHAIN_RELATIONS = {words: relation for relation, words in _CHAIN_WORDS.items() if words}


def _pydevd_blocks(text: str) -> list[_TracebackBlock]:
    """pydevd's exceptionInfo stack text, exception by exception, causes
    first. pydevd lists a cause's frames as its traceback has them,
    outermost first, but the stop's own exception's from the stopped frame
    out, innermost first (the runner's and its own among them, one marked
    "(Current frame)"), code underlined with carets, each exception ended by
    its line."""
    blocks = [_TracebackBlock()]
    for line in text.splitlines():
        block = blocks[-1]
        head = _TB_FRAME_RE.match(line)
        stripped = line.strip()
        if head:
            block.frames.append([f"  {head.group(1)}"])
        elif stripped in _CHAIN_RELATIONS:
            block.relation = _CHAIN_RELATIONS[stripped]
            blocks.append(_TracebackBlock())
        elif not stripped or block.error:
            continue  # a blank line, or more of a message that has several
        elif line.startswith("    ") and block.frames:
            if stripped.strip("^~ ") and len(block.frames[-1]) == 1:
                block.frames[-1].append(line)  # the frame's line of code, not carets
        elif block.frames:
            block.error = stripped.removesuffix(":")
    blocks = [b for b in blocks if b.frames or b.error]
    if blocks:
        blocks[-1].frames.reverse()
    return blocks


#: A frame of pydevd's stack text, without its "(Current frame)" mark.
_TB_FRAME_RE = re.compile(r"^\s*(File \".*?\", line \d+, in .*?)(?: \(Current frame\))?\s*$")
_TB_FILE_RE = re.compile(r'File "(.*?)"')

#: pydevd's report of a condition that raised: the condition, then a
#: traceback whose last line is the exception.
_PYDEVD_CONDITION_ERROR_RE = re.compile(
    r"Error while evaluating expression in conditional breakpoint: (.*)\n"
    r"(?:Traceback \(most recent call last\):\n(?:[ \t].*\n)*)?(\S.*)")

#: The innermost frames a traceback part with none of the program's keeps.
LIBRARY_TRACEBACK_FRAMES = 3

#: Where the debuggee's sitecustomize marks that it ended normally.
EXIT_MARK_VAR = "DBG_EXIT_MARK"

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
            placed.append((bp_id, os.path.realpath(path), line))
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


def unknown_class_hint(name: str, filters: str) -> str:
    """What to do about `dbg catch NAME` when no class NAME is loaded."""
    return (f"give its module too (mypkg.errors.{name}, or __main__.{name} for a script's "
            f"own), or a filter: {filters}")


#: dbgcore/inprogram/pywatch.py as a module of the program's, and the prefixes of
#: pydevd's and debugpy's own modules (frames between a condition and the
#: frame it is evaluated for).
_PYWATCH_MODULE = "_dbg_pywatch"
_PYDEVD_MODULES = ("pydevd", "_pydevd", "_pydev", "debugpy")


def _pyrepr() -> str:
    """An expression for dbgcore/inprogram/pyrepr.py in the program (loaded once)."""
    from dbgcore.api import pyrepr, pywatch

    return pywatch.load_expression(pyrepr.__file__, pyrepr.MODULE_NAME)


def _program_repr() -> str:
    """An expression for a bounded repr in the values' own order."""
    return f"{_pyrepr()}.keep_order(__import__('reprlib').Repr())"


def _exception_call(function: str) -> str:
    """An expression for pyrepr's ``function`` of the exception at this stop
    (pydevd's ``__exception__`` in the stopped frame), as JSON."""
    return f"__import__('json').dumps({_pyrepr()}.{function}(__exception__[1]))"


def _pywatch() -> str:
    from dbgcore.api import pywatch

    return pywatch.load_expression(pywatch.__file__, _PYWATCH_MODULE)


def _json_answer(body: Message) -> JsonValue:
    """The JSON text an evaluate of pydevd's gave back: as the string's repr
    (in a frame) or as it is (without one)."""
    text = str(body.get("result", ""))
    try:
        inner = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        inner = text
    return json.loads(inner if isinstance(inner, str) else text)


#: `dbg catch`'s word for "in the standard library's and installed packages'
#: code too" (`dbg catch raised --all-code`), and debugpy's filters.
ALL_CODE = "all-code"
_CATCH_WORDS = frozenset({"raised", "uncaught", "userUnhandled", ALL_CODE})
#: An exception class as `dbg catch` takes it: a name, with its module or not.
_EXCEPTION_CLASS_RE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
#: Run in pydevd after exception breakpoints are set: they stop only where
#: an exception is in the program's own code (pydevd's "project scope").
_USER_CODE_ONLY = ("[setattr(b, 'ignore_libraries', True) for b in "
                   "__import__('pydevd').get_global_debugger()"
                   ".break_on_caught_exceptions.values()] and None")
#: For `dbg catch NAME` without a module: each NAME's classes (JSON).
_BARE_CLASSES_EXPRESSION = (
    "__import__('json').dumps({n: ([n] if isinstance(vars(__import__('builtins')).get(n), type) "
    "else sorted({c.__module__ + '.' + c.__qualname__ for m in list(__import__('sys')"
    ".modules.values()) for c in [getattr(m, '__dict__', {}).get(n)] if isinstance(c, type) "
    "and issubclass(c, BaseException)})) for n in NAMES})")
#: At an exception stop: its traceback so far, this frame first, as JSON
#: [file, line, function, the exception's class and message] rows.
_TRACEBACK_FILES_EXPRESSION = (
    "(lambda e, tb: __import__('json').dumps([[f.f_code.co_filename, n, f.f_code.co_name, "
    "type(e).__name__ + (': ' + str(e).strip().splitlines()[0] if str(e).strip() else '')] "
    "for f, n in __import__('traceback').walk_tb(tb)]))(__exception__[1], __exception__[2])")
#: Steps followed out of functions an exception leaves, at most.
_MAX_UNWIND_STEPS = 50
#: Where pyboot/dbg_boot.py puts a stop's facts in the `stopped` event.
STOP_FACTS_KEY = "dbgStopFacts"
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


#: Rows debugpy adds to a value's children that are not children of it.
DEBUGPY_GROUPS = frozenset({"special variables", "function variables", "class variables",
                            "protected variables", "len()"})
_BUCKET_RE = re.compile(r"\[(\d+):(\d+)\]")
_NOTE_RE = re.compile(r"\s+\(note: (.*)\)\s*$", re.S)


def _default_python() -> str:
    return shutil.which("python3") or sys.executable


def _real_python(python: str, env: Mapping[str, str], cwd: str | None) -> str:
    """The interpreter behind ``python``. Version-manager shims (pyenv's are
    shell scripts) cost about half a second per start, and debugpy starts the
    interpreter twice (its launcher, then the program); what a shim chose is
    kept between sessions (dbgcore.lang.pyprobe.real_python). An executable that
    is not a script is no shim: used as it is, without asking it."""
    from dbgcore.api import real_python

    chosen = real_python(python, env, cwd)
    if chosen != python:
        return chosen
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


def _stop_facts(backend: AdapterHost) -> Message | None:
    """The facts of the current stop that our sitecustomize put in pydevd's
    ``stopped`` event (pyboot/dbg_boot.py's _stop_facts), or None (a
    debuggee without it: ask with an evaluate)."""
    dap = backend.dap
    if dap is None or dap.state != "stopped":
        return None
    facts = dap.stop.body.get(STOP_FACTS_KEY)
    return facts if isinstance(facts, dict) else None


def _tracer_call(backend: AdapterHost, frame: Message, call: str, timeout: float) -> JsonValue:
    """``call`` on dbg's tracer in the program (loaded there first if it is
    not yet), evaluated in ``frame``; its JSON answer."""
    from dbgcore.api import pytrace

    try:
        body = backend.dap_session().request("evaluate", {
            "expression": pytrace.call_expression(pytrace.__file__, call),
            "context": "watch", "frameId": int(frame["id"])}, timeout)
        return _json_answer(body)
    except ValueError as exc:
        raise OpFailed(f"debugpy's answer to the tracer was not what it gives: {exc}") from exc
