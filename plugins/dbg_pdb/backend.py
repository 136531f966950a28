"""The pdb backend: Python's own debugger, driven through a PTY.

Ops that change the target use pdb's own commands (``break``, ``tbreak``,
``ignore``, ``clear``, ``continue``, ``step``, ``next``, ``return``, ``until``,
``up``, ``down``); ops that read state use the launcher's ``_dbg_*`` commands,
which answer in JSON so nothing has to be scraped from pdb's prose.

:class:`PdbBackend` is the top of three layers, one module each, low level
under high level: :mod:`dbg_pdb.console` (queries and commands to the
launcher, and their answers), :mod:`dbg_pdb.breakpoints` (breakpoints and
watches) beside :mod:`dbg_pdb.threadlist` (the program's threads), and
this one: the interpreter and the launch, stops and stepping, `dbg trace`,
inspection, exceptions and `dbg raw`. The code that
runs in the program is in inprogram/.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import ClassVar

from dbg_pdb.breakpoints import PdbBreakpoints
from dbg_pdb.console import EXIT_RE, FRAME_RE, HELLO_RE, INTERACTIVE, JsonObject, _frames
from dbg_pdb.threadlist import PdbThreads
from dbgcore.api import (
    STDLIB_EXPRESSION,
    BackendSpec,
    BreakLoc,
    BreakOptions,
    CallSink,
    DbgError,
    FieldList,
    Frame,
    LaunchRequest,
    Location,
    NotAProgram,
    OpFailed,
    PtyEOF,
    PtyTimeout,
    PythonLibraries,
    PythonSetup,
    Readiness,
    ReturnValue,
    SessionContext,
    StopEvent,
    Support,
    TraceOutcome,
    UsageError,
    Value,
    Variable,
    follow_trace_file,
    probe_python,
    python_object_repr,
    python_program_problem,
    real_python,
    traced_run,
)

#: The launcher (inprogram/), through launch.py, which loads it from its bytecode.
LAUNCHER = str(Path(__file__).with_name("launch.py"))


def _version_cache() -> Path:
    from dbgcore.api import dbg_home

    return dbg_home() / "pdb-python-versions.json"


def _known_version(python: str) -> str:
    """The version ``python`` said it was, kept in DBG_HOME: asking costs a
    Python start on every `dbg start`, and a version manager's shim (pyenv's
    is a shell script) makes that 0.3-0.4 s. A shim whose choice changes
    without a new file (`pyenv global`) is seen by the launcher, whose hello
    gives the program's own version."""
    from dbgcore.api import file_key, recall

    key = file_key(python)
    return recall(_version_cache(), key) if key else ""


def _remember_version(python: str, version: str) -> None:
    from dbgcore.api import file_key, remember

    key = file_key(python)
    if key and re.fullmatch(r"\d+\.\d+\.\d+", version):
        remember(_version_cache(), key, version)


#: How long pdb has to start the program and stop at its first line, whatever
#: the op's --timeout: an interpreter's start under load is slow.
START_WAIT = 30.0
#: `dbg catch`'s word for "in the standard library's and installed packages'
#: code too" (`dbg catch raised --all-code`).
ALL_CODE = "all-code"
#: An exception class as `dbg catch` takes it: a name, with its module or not.
EXCEPTION_CLASS_RE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class PdbBackend(PdbBreakpoints, PdbThreads):
    id = "pdb"
    tool = "pdb"
    unsupported_hints: ClassVar[dict[str, str]] = {
        "attach": "pdb can only start a program; use the debugpy backend to attach",
    }

    #: pdb runs in the program's process (the launcher runs the program).
    runs_in_program = True
    #: The launcher opens the program's fd 0 on LaunchRequest.stdin.
    reads_stdin = True
    features: ClassVar[dict[str, Support]] = {"break-if": "native", "break-hit": "native",
                                               "return-value": "native"}
    # pdb has no watchpoints: the launcher checks a watch at each line of its
    # frame (dbgcore/inprogram/pywatch.py). Its program's stacks are read by py-spy.
    op_support: ClassVar[Mapping[str, Support]] = {"watch": "fallback", "stacks": "fallback"}

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self._python = ""
        self._cwd = os.getcwd()
        #: The launch being run, and what its interpreter says of itself.
        self._request: LaunchRequest | None = None
        self._setup: PythonSetup | None = None
        #: Tells the standard library's and installed packages' frames.
        self._libraries: PythonLibraries | None = None

    # -- availability --------------------------------------------------------

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        python = spec.command[0] if spec.command else "python3"
        found = shutil.which(python)
        if not found:
            return Readiness(False, f"{python} not found on PATH")
        out = _known_version(found)
        if not out:
            import subprocess

            try:
                out = subprocess.run(
                    [found, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                    capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL,
                ).stdout.strip()
            except (OSError, subprocess.SubprocessError) as exc:
                return Readiness(False, f"{python} does not run: {exc}")
            _remember_version(found, out)
        parts = tuple(int(p) for p in out.split(".")[:2] if p.isdigit())
        if parts < (3, 8):
            return Readiness(False, f"{found} is Python {out or '?'}; pdb here needs 3.8+")
        return Readiness(True, f"{found} (Python {out})", out)

    def version(self) -> str:
        return self._python

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        problem = python_program_problem(program)
        if problem:
            raise NotAProgram(problem, "give a Python script, or -m MODULE")

    # -- lifecycle -------------------------------------------------------------

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        self._cwd = request.cwd or os.getcwd()
        program = Path(request.program)
        self._root = self._cwd if request.module else str(
            program if program.is_dir() else program.resolve().parent)
        pump = self.output_pump("pdb")
        # A prompt the program cannot print by chance; not a secret, so no
        # `secrets` (which loads hashlib and OpenSSL, ~3 ms of each start).
        prompt = f"(Pdb-{os.urandom(4).hex()}) "
        target = ["-m", request.program] if request.module else [request.program]
        self._request = request
        # The launcher starts waiting for its run (launch.py), so that a
        # daemon forked for this start may have spawned it while it imported.
        driver = self.start_console([*self._interpreter(request), LAUNCHER, "--wait"], prompt,
                                    env=request.env, cwd=self._cwd, early=True)
        run = {"argv": [prompt, str(pump.paths["stdout"]), str(pump.paths["stderr"]),
                        request.stdin or os.devnull,
                        "catch" if request.stop_on_uncaught else "nocatch", *target,
                        *request.args],
               "env": self._launcher_env(request)}
        handoff = self.ctx.run_dir / f"pdb-{os.getpid()}-{driver.pid}-run.json"
        try:
            # Made new, never written through a link left at that name.
            fd = os.open(handoff, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with open(fd, "w", encoding="utf-8") as fh:
                json.dump(run, fh)  # a full disk refuses it: removed all the same
            driver.send_line(str(handoff))
            hello = driver.expect([HELLO_RE], timeout=START_WAIT)
        except PtyEOF as exc:
            raise OpFailed(f"pdb could not start {request.program}: {exc.output.strip()}") from exc
        finally:
            handoff.unlink(missing_ok=True)  # the launcher's to remove, if it lived to read it
        if hello.index == 1:
            said = json.loads(hello.groups[0])
            self._python = said.get("python", "")
            stdlib = said.get("stdlib")
            if isinstance(stdlib, list):
                self._libraries = PythonLibraries([str(p) for p in stdlib if isinstance(p, str)],
                                                  self._root)
        event = self._wait_stop(START_WAIT, timeout, allow_running=False)
        if request.before_run is not None and event.state == "stopped" and not request.test:
            # `start --run`: the breakpoints at the entry stop, and on, with
            # no look at a stop the user never sees (its stack, locals and
            # library folders: four exchanges). Not a test run: its restart
            # sets the session's catch after the launch, which must be
            # before the run goes on.
            request.before_run()
            event = self.cont(timeout)
        return event

    def _interpreter(self, request: LaunchRequest) -> list[str]:
        """The program's Python: `--python PATH`, else the configured command
        (``python3`` from the user's PATH)."""
        chosen = str(request.options.get("python") or "")
        if not chosen:
            command = list(self.spec.command or ["python3"])
            env = {**os.environ, **request.env}
            return [real_python(command[0], env, self._cwd), *command[1:]]
        # An interpreter checked before (the same file) is not asked again:
        # the probe is a Python start before pdb's own (50-250 ms a start).
        known = _known_version(chosen)
        if tuple(int(p) for p in known.split(".")[:2] if p.isdigit()) >= (3, 8):
            self._python = known
            return [chosen]
        setup = self._python_setup()
        if setup.error:
            raise OpFailed(f"--python {chosen}: {setup.error}",
                           "give the path of a Python executable (e.g. .venv/bin/python)")
        if setup.version < (3, 8):
            shown = ".".join(map(str, setup.version)) or "?"
            raise OpFailed(f"--python {chosen} is Python {shown}; pdb here needs 3.8 or newer")
        self._python = ".".join(map(str, setup.version))
        _remember_version(chosen, self._python)
        return [chosen]

    def _launcher_env(self, request: LaunchRequest) -> dict[str, str]:
        """What the launcher reads (and takes out of the program's
        environment): a test run, and the terminal size the user's
        environment gives the program (not the debugger's 4,000 columns)."""
        from dbgcore.api import pyrepr

        env = {f"DBG_PDB_{name}": request.env.get(name) or os.environ.get(name, "")
               for name in ("COLUMNS", "LINES")}
        env["DBG_PDB_PYREPR"] = pyrepr.__file__
        if request.test:
            env["DBG_PDB_TEST"] = "1"
        return env

    def _python_setup(self) -> PythonSetup:
        """The program's interpreter's own word on its search path (asked
        once a session, with the program's environment and folder)."""
        if self._setup is None:
            request = self._request
            chosen = str(request.options.get("python") or "") if request else ""
            python = chosen or (self.spec.command or ["python3"])[0]
            program_dir = None if request is None or request.module else self._root
            self._setup = probe_python(python, request.env if request else {}, self._cwd,
                                       program_dir)
        return self._setup

    # -- reading pdb's answers ---------------------------------------------------

    def wait_stop(self, wait: float, timeout: float) -> StopEvent:
        return self._wait_stop(wait, timeout)

    def _wait_stop(self, wait: float, timeout: float, allow_running: bool = True) -> StopEvent:
        """Read until pdb stops (its prompt) or the program ends, for up to
        ``wait``; ``timeout`` bounds what is asked of pdb about the stop."""
        driver = self.drv()
        try:
            match = driver.expect([EXIT_RE], wait)
        except PtyTimeout:
            if not allow_running:
                raise
            self.set_state("running")
            return StopEvent(state="running")
        except PtyEOF as exc:
            return self._ended(None, exc.output)
        if match.index == 1:
            return self._ended(json.loads(match.groups[0]).get("code"), match.before)
        return self._stopped(match.before, timeout)

    def _stopped(self, text: str, timeout: float) -> StopEvent:
        self.set_state("stopped")
        if self.pump is not None:
            self.pump.drain()
        stops = _frames(text, "stop")
        if not stops:
            # A command that did not move the target; the stop stands.
            return StopEvent(state="stopped", reason="", location=self._last_location)
        report = stops[-1]
        self._at_stop = {"state": report} if "error" not in report else {}
        for kind in ("locals", "breaks"):
            if kind in report:
                self._at_stop[kind] = report[kind]
        frames = report.get("frames") or []
        current = next((f for f in frames if f.get("current")), frames[0] if frames else None)
        location = Location(current["file"], current["line"], current["function"]) if current \
            else None
        self._last_location = location
        bp = report.get("breakpoint")
        reason = report.get("reason", "step")
        self._post_mortem = bool(report.get("post_mortem", reason == "exception"))
        if bp is not None and bp == self._until_bp:
            # `until`'s own temporary breakpoint is not one the user set.
            bp, reason = None, "until"
        self._forget_until_bp(timeout)
        if self._requested:
            self.list_breakpoints(timeout)  # keeps hit counts current for after the exit
        for number in report.get("watches") or []:
            watch = self._watches.get(f"w{number}")
            if watch is not None:
                self._watches[str(watch.id)] = replace(watch, hits=watch.hits + 1)
        returned = report.get("return_value")
        thread = report.get("thread") or {}
        return StopEvent(state="stopped", reason=reason, location=location,
                         thread=thread.get("id"), thread_name=thread.get("name"),
                         description=report.get("description", ""),
                         hit_breakpoints=[f"w{n}" for n in report.get("watches") or []]
                         + ([bp] if bp else []),
                         return_value=ReturnValue(returned["value"], returned.get("type"),
                                                  returned.get("kind", "returned"))
                         if returned else None)

    # -- execution ---------------------------------------------------------------

    def _resume(self, command: str, timeout: float) -> StopEvent:
        self.require_stopped(command, timeout)
        driver = self.drv()
        if driver.child is None or not driver.child.isalive():
            raise self._debugger_lost("")
        self._at_stop = {}
        # Running from here on: a second client's `dbg pause` interrupts it.
        self.set_state("running")
        driver.send_line(command)
        return self._wait_stop(timeout, timeout)

    def cont(self, timeout: float) -> StopEvent:
        return self._resume("continue", timeout)

    def step(self, timeout: float) -> StopEvent:
        self._not_post_mortem("step")
        return self._resume("step", timeout)

    def next(self, timeout: float) -> StopEvent:
        self._not_post_mortem("next")
        return self._resume("next", timeout)

    def finish(self, timeout: float) -> StopEvent:
        # Not pdb's `return`, which stops still inside the function (and not
        # at all at a generator's yield): the launcher's finish stops in the
        # caller and says what the function returned or yielded.
        self._not_post_mortem("finish")
        return self._resume("_dbg_finish", timeout)

    def until(self, loc: BreakLoc | None, timeout: float) -> StopEvent:
        if loc is None:
            self._not_post_mortem("until")
            return self._resume("until", timeout)
        bp = self._place(loc, BreakOptions(temporary=True), timeout, strict=True)
        self._until_bp = int(bp.id)
        return self._resume("continue", timeout)

    def _forget_until_bp(self, timeout: float) -> None:
        # A stop elsewhere must not leave `until`'s temporary breakpoint behind.
        if self._until_bp is None or self.driver is None:
            return
        bp_id, self._until_bp = self._until_bp, None
        self._requested.pop(bp_id, None)
        live = {b["id"] for b in self._query("_dbg_breaks", "breaks", timeout)["breakpoints"]}
        if bp_id in live:
            self._native(f"clear {bp_id}", timeout)

    def pause(self, timeout: float) -> StopEvent:
        if self.state() != "running":
            return StopEvent(state=self.state(), location=self._last_location)
        return self.interrupt_and_wait(timeout)

    def trace(self, functions: list[str], lines: bool, max_calls: int,
              timeout: float, sink: CallSink) -> TraceOutcome:
        """`dbg trace` by a profile hook in the program (dbgcore/inprogram/pytrace.py),
        started and stopped by the launcher's _dbg_trace: pdb itself takes
        no part, so the program runs at its own speed but for the calls
        recorded, and pdb's breakpoints stop it as they would."""
        from dbgcore.api import VALUE_CHARS, pytrace

        for function in functions:
            self._check_traced(BreakLoc.parse(function), timeout)
        import tempfile

        fd, name = tempfile.mkstemp(prefix="trace-", suffix=".jsonl", dir=self.ctx.run_dir)
        os.close(fd)
        path = Path(name)
        try:
            request = ("on", pytrace.__file__, name, list(functions), bool(lines),
                       int(max_calls), VALUE_CHARS)
            kept = self._at_stop  # starting the tracer moves nothing
            started = self._query(f"_dbg_trace {request!r}", "trace", timeout)
            self._at_stop = kept
            if "error" in started:
                raise OpFailed(f"pdb could not start the tracer: {started['error']}")
            with follow_trace_file(path, sink) as trace_file:
                event, timed_out = traced_run(partial(self._resume, "continue"), self.pause,
                                              timeout)
                if self.state() == "stopped":
                    kept = self._at_stop
                    self._query("_dbg_trace ('off',)", "trace", timeout)
                    self._at_stop = kept
            calls, dropped = trace_file.calls(), trace_file.dropped
        finally:
            path.unlink(missing_ok=True)
        return TraceOutcome(calls=calls, event=event, dropped=dropped,
                            means="a profile hook in the program",
                            note=pytrace.install_note(started), timed_out=timed_out)

    def _check_traced(self, loc: BreakLoc, timeout: float) -> None:
        """Refuse, before the program runs on, a name `dbg break` would refuse:
        a bare name that is neither in the program's sources nor a function in
        scope where it is stopped (a mistyped one would cost the run)."""
        name = loc.function or ""
        if loc.module or "." in name or not name.isidentifier():
            return  # MODULE!FUNCTION, Class.method, module.func: found as they load
        if self.function_places(loc, timeout):
            return
        try:
            kind = self.evaluate(f"type({name}).__name__", timeout).value.strip("'\"")
        except DbgError:
            kind = ""
        if kind not in ("function", "method", "builtin_function_or_method"):
            raise OpFailed(f"no function {name} in the program's sources, nor in scope where "
                           "the program is stopped", "nothing was run; check the name "
                           "(`dbg break FUNCTION` finds the same ones), or give MODULE!FUNCTION")

    # -- inspection --------------------------------------------------------------------

    def _frame_list(self, timeout: float) -> list[Frame]:
        frames = self._query("_dbg_state", "state", timeout)["frames"]
        libraries = self._python_libraries(timeout)
        out = []
        for f in frames:
            owner = libraries.library_of(f["file"])
            out.append(Frame(f["index"], f["function"], f["file"], f["line"], f["current"],
                             library=owner is not None, library_name=owner))
        return out

    def _python_libraries(self, timeout: float) -> PythonLibraries:
        """Which files are the standard library's, as the program's own
        Python says (asked once a session)."""
        if self._libraries is None:
            try:
                answer = self.evaluate(STDLIB_EXPRESSION, timeout).value
            except DbgError:
                answer = "[]"
            self._libraries = PythonLibraries(PythonLibraries.stdlib_from(answer), self._root)
        return self._libraries

    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        frames = self._frame_list(timeout)
        return frames[:levels] if levels else frames

    def frame_args(self, frames: list[Frame], timeout: float) -> None:
        wanted = [f.index for f in frames if f.args is None]
        if not wanted:
            return
        # Reading arguments moves nothing: the stop report pdb sent stays good.
        kept = self._at_stop
        answer = self._query(f"_dbg_args {wanted!r}", "args", timeout)["args"]
        self._at_stop = kept
        for frame in frames:
            rows = answer.get(str(frame.index))
            if rows is not None:
                frame.args = [Variable(r["name"], r["value"], r.get("type")) for r in rows]

    def select_frame(self, index: int, timeout: float) -> Frame:
        frames = self._frame_list(timeout)
        if index >= len(frames):
            raise OpFailed(f"no frame {index}: the stack has {len(frames)} frames",
                           "see `dbg stack`")
        current = next((f.index for f in frames if f.current), 0)
        if index > current:
            self._native(f"up {index - current}", timeout)
        elif index < current:
            self._native(f"down {current - index}", timeout)
        chosen = frames[index]
        chosen.current = True
        return chosen

    def locals(self, timeout: float) -> list[Variable]:
        data = self._query("_dbg_locals", "locals", timeout)
        return [Variable(v["name"], v["value"], v.get("type")) for v in data["variables"]]

    def fields(self, variable: Variable, timeout: float) -> list[Variable] | None:
        """An object's attributes (its ``vars()``), one level."""
        if not variable.name.isidentifier() or not python_object_repr(variable.value):
            return None
        # Each repr cut at 120 characters (twenty fit one bounded answer),
        # with its full length, so a field cut here says how long it was.
        # The count of them all too, for the snapshot's "+N more".
        probe = (f"(lambda d: (len(d), [(k, r[:120], type(v).__name__, len(r)) for k, v in "
                 f"list(d.items())[:20] for r in (repr(v),)]))({{k: v for k, v in "
                 f"vars({variable.name}).items() if not k.startswith('__')}})")
        try:
            total, rows = ast.literal_eval(self.evaluate(probe, timeout).value)
        except (DbgError, ValueError, SyntaxError, TypeError):
            return None
        return FieldList([Variable(str(k), str(v), str(t), cut=n if n > len(str(v)) else None)
                          for k, v, t, n in rows], int(total))

    def evaluate(self, expression: str, timeout: float) -> Value:
        answer = self._query(f"_dbg_eval {expression!r}", "value", timeout)
        if "error" in answer:
            raise OpFailed(answer["error"])
        return Value(answer["value"], answer.get("type"))

    def value_tree(self, expression: str, depth: int, timeout: float) -> JsonObject:
        from dbgcore.api import pytree

        answer = self._query(f"_dbg_tree {(pytree.__file__, expression, depth)!r}", "value",
                             timeout)
        if "error" in answer:
            raise OpFailed(answer["error"])
        return answer

    def set_variable(self, lhs: str, value: str, timeout: float) -> Value:
        answer = self._query(f"_dbg_set {(lhs, value)!r}", "value", timeout)
        if "error" in answer:
            raise OpFailed(f"cannot set {lhs}: {answer['error']}", "nothing was changed")
        return Value(answer["value"], answer.get("type"))

    def op_exception(self, args: JsonObject, timeout: float) -> JsonObject:
        """The exception the program stopped at (post mortem, a failed test,
        a catch): its type, message, and its traceback as Python prints it,
        outermost first, causes before it (``chain``: what they were)."""
        answer = self._query("_dbg_exception", "exception", timeout)
        if not answer.get("exception"):
            raise OpFailed("the program did not stop at an exception, nor inside an except "
                           "block", "an uncaught exception or a failing test stops it, and so "
                           "does `dbg catch`; `dbg stack` shows where it is")
        said = {"exception": answer["exception"], "description": answer["description"],
                "stack": answer["stack"], "chain": answer.get("chain") or []}
        if answer.get("handled"):
            said["handled"] = True  # the one an except block is handling (sys.exc_info())
        return said

    def op_tasks(self, args: JsonObject, timeout: float) -> JsonObject:
        """The asyncio tasks, as dbgcore/inprogram/pytasks.py reads them in
        the program."""
        from dbgcore.api import pytasks

        request = (pytasks.__file__, int(args.get("limit") or 50))
        answer = self._query(f"_dbg_tasks {request!r}", "tasks", timeout)
        if "error" in answer:
            raise OpFailed(f"cannot list the asyncio tasks: {answer['error']}")
        return answer

    def catch(self, filters: list[str], timeout: float) -> list[str]:
        """`raised` (every exception), exception classes by name, `uncaught`
        (stop post mortem where one ends the program), `all-code`: all
        done by the launcher (pdb has no exception breakpoints)."""
        chosen = list(dict.fromkeys(filters))
        if "userUnhandled" in chosen:
            raise UsageError("pdb has no userUnhandled filter",
                             "`dbg test` stops where a test fails; `dbg catch TYPE` or "
                             "`dbg catch raised` stops where one is raised")
        words = {"raised", "uncaught", ALL_CODE}
        names = [f for f in chosen if f not in words]
        bad = [n for n in names if not EXCEPTION_CLASS_RE.fullmatch(n)]
        if bad:
            raise UsageError(f"{bad[0]!r} is neither an exception class nor a filter",
                             "give class names (ValueError, mypkg.errors.ParseError) or "
                             "raised, uncaught, all-code")
        if ALL_CODE in chosen and not names and "raised" not in chosen:
            raise UsageError("all-code goes with raised or an exception class",
                             "e.g. dbg catch raised --all-code")
        settings = (names, "raised" in chosen, "uncaught" in chosen, ALL_CODE in chosen)
        unknown = self._query(f"_dbg_catch {settings!r}", "catch", timeout).get("unknown")
        if unknown:
            raise UsageError(f"no exception class {unknown[0]} is loaded in the program yet",
                             f"give its module too (mypkg.errors.{unknown[0]}, or "
                             f"__main__.{unknown[0]} for a script's own), or a filter: "
                             "raised, uncaught")
        return chosen

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        word = text.split()[0]
        if word in INTERACTIVE:
            raise UsageError(f"pdb's {word!r} waits for more input lines, which dbg raw "
                             "cannot send", "use the single-line commands instead")
        self.require_stopped(word, timeout)
        driver = self.drv()
        self._at_stop = {}
        driver.send_line(self._short(text))
        try:
            match = driver.expect([EXIT_RE], timeout)
        except PtyTimeout as exc:
            self.set_state("running")
            return FRAME_RE.sub("", exc.output), StopEvent(state="running")
        except PtyEOF as exc:
            return FRAME_RE.sub("", exc.output), self._ended(None, exc.output)
        output = FRAME_RE.sub("", match.before)
        if match.index == 1:
            return output, self._ended(json.loads(match.groups[0]).get("code"), match.before)
        if _frames(match.before, "stop"):
            return output, self._stopped(match.before, timeout)
        return output, None

