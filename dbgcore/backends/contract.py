"""The canonical vocabulary: one base class every backend implements.

A backend subclasses :class:`Backend` and overrides the ops its debugger can do.
Every op it leaves alone raises :class:`UnsupportedOp` naming the tool and the
``dbg raw`` escape hatch; there are no silent no-ops. The op table
(:mod:`dbgcore.ops.table`) names, in each op's declaration, the method here that
answers it; what a backend supports is derived from the table and the methods
it overrides (:meth:`Backend.capabilities`, corrected by the data in
:attr:`Backend.op_support`), so the core never guesses from a backend's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

from dbgcore.shared.errors import DebuggerLost, UnsupportedOp
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.shared.pathmap import PathMap
from dbgcore.transport.early import EarlyProcesses

if TYPE_CHECKING:
    # Only named in signatures: the op table, which every front end imports,
    # refers to this class's methods, so it stays light.
    from pathlib import Path

    from dbgcore.transport.outputbuffer import OutputBuffer
    from dbgcore.transport.translog import TransLog
    from dbgcore.vocab.model import (
        BreakLoc,
        BreakOptions,
        Breakpoint,
        Frame,
        Location,
        ReturnValue,
        StopEvent,
        StopState,
        Thread,
        ThreadStack,
        Value,
        Variable,
    )
    from dbgcore.vocab.opspec import Op
    from dbgcore.vocab.traces import CallSink, TraceOutcome

Support = Literal["native", "fallback", "none"]


#: The methods a backend must have for dbg's fallback of a method it does not
#: override (`dbg caps`: "fallback" then).
_FALLBACK_NEEDS: dict[str, tuple[str, ...]] = {
    "trace": ("set_breakpoint", "remove_breakpoint", "cont", "finish", "stack", "locals"),
    "thread_stacks": ("threads", "select_thread", "stack"),
}


def answered_ops(ops: Iterable[Op]) -> list[Op]:
    """Of ``ops`` (an op table), those a backend supports by overriding a
    :class:`Backend` method (not its ``op_<name>`` ops, which are listed with
    the backends' own), in the order `dbg caps` lists them: the table's, the
    session ops (attach) last."""
    found = [op for op in ops if op.method_name is not None
             and not op.method_name.startswith("op_")
             and getattr(Backend, op.method_name, None) is op.method]
    return sorted(found, key=lambda op: op.group == "sessions")


#: Parts of ops a backend may lack, shown by `dbg caps` as rows of their
#: own: name -> what it is. A backend declares the ones it has in
#: :attr:`Backend.features` (or computes them in :meth:`Backend.support`).
FEATURES: dict[str, str] = {
    "break-if": "conditional breakpoints (`dbg break LOC --if COND`)",
    "break-hit": "hit counts (`dbg break LOC --hit N`)",
    "break-log": "logpoints (`dbg break LOC --log MSG`)",
    "return-value": "the return value after `dbg finish`",
    "pending": "breakpoints in code not loaded yet, bound when it loads",
    "stdin": "the program's standard input (`dbg start --stdin FILE`, `dbg input`)",
    "core": "post-mortem of a core dump (`dbg start --core CORE PROGRAM`)",
    "children": "child processes followed as sessions of their own (PARENT/NAME-PID)",
    "reverse": "running backwards (`dbg continue/step/next/finish --back`)",
}

#: The motions :meth:`Backend.reverse` is asked for: the ops with ``--back``.
REVERSE_MOTIONS = ("continue", "step", "next", "finish")


@dataclass
class LaunchRequest:
    program: str
    args: list[str] = field(default_factory=list)
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    module: bool = False
    stop_on_entry: bool = True
    #: Stop where an exception (a panic, an uncaught throw) would end the
    #: program; `dbg start --no-catch` turns it off.
    stop_on_uncaught: bool = True
    options: JsonObject = field(default_factory=dict)
    #: The path the program reads as its standard input (fd 0): a file the
    #: user gave (`dbg start --stdin FILE`) or a FIFO whose write end the core
    #: holds open for `dbg input` (so opening it to read never blocks). A
    #: backend that sets :attr:`Backend.reads_stdin` must give the program
    #: this path as its stdin; None: the program reads nothing (/dev/null).
    stdin: str | None = None
    #: The program is a test run (`dbg test`): stop where a test fails (the
    #: frame that raised the assertion or error), even though the runner
    #: catches it; passing tests do not stop.
    test: bool = False
    #: `dbg start --core CORE`: open this core dump of ``program`` instead of
    #: running it (only a backend with :attr:`Backend.opens_cores` gets one).
    #: The program is then a snapshot: the stop is reason "core" in the frame
    #: where the process died, its ``signal`` the one that killed it and its
    #: description :func:`dbgcore.backends.corefile.post_mortem_description`'s; the
    #: core refuses every op that would run or change the program. A launch,
    #: not an attach: there is no live process to detach from, and the session
    #: is dbg's own from start to end.
    core: str | None = None
    #: `dbg memcheck`: run the program under valgrind's memcheck and debug it
    #: through valgrind's gdb server (only a backend with
    #: :attr:`Backend.runs_memcheck` gets one). Each error memcheck reports
    #: is a stop, reason "memcheck", whose description starts "memcheck: "
    #: and the error's kind; the end's description holds valgrind's summaries.
    memcheck: bool = False
    #: `dbg replay RUN`: the recorded run this session replays (its id in
    #: the store), read by the replay backend; the session's own run is
    #: written as a replay of it, whose records `dbg history` then reads.
    replays: int | None = None
    #: `dbg start --run`: places the session's breakpoints. A backend that
    #: can take them before the program runs calls it then, and launches
    #: straight to the first stop instead of stopping at entry; one that
    #: cannot ignores it, and the session places them at the entry stop and
    #: continues.
    before_run: Callable[[], object] | None = field(default=None, compare=False, repr=False)
    #: The source file dbg built ``program`` from (:meth:`Backend.build_command`),
    #: for a backend whose binary does not say where its source is (a jar);
    #: None when the program was given as it is.
    built_from: str | None = None


@dataclass
class AttachRequest:
    pid: int | None = None
    host: str | None = None
    port: int | None = None
    program: str | None = None
    options: JsonObject = field(default_factory=dict)
    #: Where the program's files are here (``--map``, or a process in another
    #: mount namespace read through /proc/PID/root): a backend that says
    #: :attr:`Backend.maps_paths` converts every file the debugger names.
    paths: PathMap = field(default_factory=PathMap)
    #: A child process's session (options["child"]): places the session's
    #: breakpoints before the child runs on, like LaunchRequest.before_run.
    before_run: Callable[[], None] | None = None


@dataclass
class BackendSpec:
    """One entry of backends.yaml, after merging."""

    name: str
    plugin: str
    command: list[str] = field(default_factory=list)
    extensions: list[str] = field(default_factory=list)
    root_markers: list[str] = field(default_factory=list)
    #: Kinds of executable this backend is chosen for: "go" (a Go binary),
    #: "elf" (any other ELF executable). See :mod:`dbgcore.backends.choice`.
    binaries: list[str] = field(default_factory=list)
    launch: JsonObject = field(default_factory=dict)
    install: str = ""
    description: str = ""
    options: JsonObject = field(default_factory=dict)


@dataclass
class Readiness:
    ready: bool
    detail: str = ""
    version: str = ""


@dataclass
class SessionContext:
    """What the core lends a backend for the life of a session."""

    name: str
    run_dir: Path
    output: OutputBuffer
    log: TransLog
    #: Called with (pid, role) for every process the backend starts, so the
    #: core can clean up after a daemon that died without doing so itself.
    track_process: Callable[[int, str], None] = lambda pid, role: None
    shutdown_grace: float = 1.0
    #: Each op's words in a refusal ("step into"), from the op table
    #: (:attr:`dbgcore.vocab.opspec.Op.title`), for :meth:`Backend.unsupported`.
    op_titles: Mapping[str, str] = field(default_factory=dict)
    #: Where the backend's transport takes a debugger spawned before it was
    #: asked for (a daemon forked for a start spawns it while it imports):
    #: handed to :class:`~dbgcore.transport.dap.adapter.AdapterProcess` and
    #: :meth:`~dbgcore.transport.ptydriver.PtyDriver.spawn`.
    early: EarlyProcesses = field(default_factory=EarlyProcesses)


class Backend:
    """Base class of all backends. Subclasses override the ops they support."""

    #: The name backends.yaml uses in ``plugin:`` to pick this class.
    id: ClassVar[str] = ""
    #: The debugger's own name, as shown in ``[via <tool> <version>]``.
    tool: ClassVar[str] = "debugger"
    #: Per-op hints shown when an op is unsupported (op name -> hint).
    unsupported_hints: ClassVar[Mapping[str, str]] = {}
    #: Which of :data:`FEATURES` the backend has (missing: "none").
    features: ClassVar[Mapping[str, Support]] = {}
    #: What the overridden methods alone do not tell (op -> support), laid
    #: over them by :meth:`capabilities`: "fallback" for an op dbg builds out
    #: of other requests, "native" for one a live debugger decides.
    op_support: ClassVar[Mapping[str, Support]] = {}
    #: What :meth:`thread_stacks` reads stacks with, when not the debugger
    #: itself (jdb's are read by the JDK's jstack): `dbg stacks` names it.
    stacks_tool: ClassVar[str] = ""
    #: Whether :meth:`attach` honours :attr:`AttachRequest.paths` (`attach
    #: --map`); a backend that does not is refused one, never silently.
    maps_paths: ClassVar[bool] = False

    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        self.spec = spec
        self.ctx = ctx
        #: Set when the debugger died under the session; every op then fails
        #: with it, and the session's state is "debugger_lost".
        self.lost: DebuggerLost | None = None
        self._checked_version: str | None = None

    # -- availability ------------------------------------------------------

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        """Is the debugger installed? The default looks up the first word of
        the command line on PATH."""
        if not spec.command:
            return Readiness(False, "no command configured")
        exe = spec.command[0]
        import shutil  # (the CLI loads this module for the op table; few commands check)

        found = shutil.which(exe)
        if not found:
            return Readiness(False, f"{exe} not found")
        return Readiness(True, found)

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        """Refuse, before a session starts, a program this backend cannot run,
        with a UsageError that says what to do (e.g. compile it first)."""

    @classmethod
    def build_command(cls, spec: BackendSpec, program: Path,
                      out: Path) -> tuple[list[str], Path] | None:
        """The command that builds the source file (or project folder)
        ``program`` with debug information and no optimisation, and the
        binary it makes: ``out`` for a compiler told where, or a path under
        ``out``'s folder for a project's own tool; for `dbg start` to run
        before the debugger launches (so a user need not know each
        language's flags). None when ``program`` needs no build (the
        default). Raise BackendMissing when the compiler is not installed."""
        return None

    @classmethod
    def capabilities(cls, ops: Iterable[Op]) -> dict[str, Support]:
        """Which of ``ops`` (the op table) that a :class:`Backend` method
        answers this backend supports: every op whose method the subclass
        overrides, corrected by :attr:`op_support`."""
        caps: dict[str, Support] = {}

        for op in answered_ops(ops):
            assert op.method_name is not None
            name = op.method_name
            caps[op.name] = "native" if getattr(cls, name) is not getattr(Backend, name) \
                else "fallback" if cls.has_fallback(name) else "none"
        caps.update(cls.op_support)
        return caps

    @classmethod
    def extension_ops(cls) -> list[str]:
        """Names of the backend-specific ops it offers (``op_<name>`` methods,
        but not this class's own refusals, :meth:`op_exception`)."""
        return [name[3:].replace("_", "-") for name in dir(cls)
                if name.startswith("op_") and callable(getattr(cls, name))
                and getattr(cls, name) is not getattr(Backend, name, None)]

    @classmethod
    def support(cls, spec: BackendSpec, ops: Iterable[Op]) -> dict[str, Support]:
        """What `dbg caps` shows for a backends.yaml entry: every op of
        ``ops`` (the op table) a backend method answers, and every extension
        op, "native", "fallback" (done by dbg out of other requests or the
        debugger's console) or "none". Backends whose support depends on the
        debugger installed ask it here."""
        return cls.declared_support(ops)

    @classmethod
    def declared_support(cls, ops: Iterable[Op]) -> dict[str, Support]:
        """What the code declares, without asking any debugger (what
        :meth:`support` answers unless a backend asks the installed one)."""
        return {**cls.capabilities(ops), **{op: "native" for op in cls.extension_ops()},
                **{name: cls.features.get(name, "none") for name in FEATURES},
                "stdin": "native" if cls.reads_stdin else "none",
                "reverse": "native" if cls.reverse is not Backend.reverse else "none",
                "core": "native" if cls.opens_cores else "none"}

    @classmethod
    def tool_for(cls, spec: BackendSpec) -> str:
        """The tool's name for a backends.yaml entry (one class may drive many)."""
        return cls.tool

    @property
    def tool_name(self) -> str:
        return self.tool_for(self.spec)

    @classmethod
    def unsupported_for(cls, spec: BackendSpec, op: str, hint: str | None = None,
                        title: str | None = None) -> UnsupportedOp:
        """The refusal of ``op``, in the words ``title`` (the op table's
        :attr:`~dbgcore.vocab.opspec.Op.title`; default the op's name)."""
        return UnsupportedOp(title or op, cls.tool_for(spec),
                             hint or cls.unsupported_hints.get(op, ""))

    def unsupported(self, op: str, hint: str | None = None) -> UnsupportedOp:
        return self.unsupported_for(self.spec, op, hint, self.ctx.op_titles.get(op))

    def refuse_break_options(self, options: BreakOptions, hint: str) -> None:
        """For a debugger whose breakpoints are plain places: refuse a
        condition, hit count, logpoint or temporary breakpoint (exit 3, with
        ``hint``, the debugger's own command)."""
        for asked, what in ((options.condition, "conditional breakpoints (--if)"),
                            (options.hit_count, "hit counts (--hit)"),
                            (options.log_message, "logpoints (--log)"),
                            (options.temporary, "temporary breakpoints (--temp)")):
            if asked:
                raise self.unsupported(what, hint)

    def extension_op(self, op: str) -> Callable[[JsonObject, float], JsonObject] | None:
        """A backend-specific op (``dbg disasm``, ``dbg scopes``...) by name:
        a method ``op_<name>(args, timeout) -> payload``, or None."""
        method = getattr(self, f"op_{op.replace('-', '_')}", None)
        return method if callable(method) else None

    # -- lifecycle -----------------------------------------------------------

    def version(self) -> str:
        """The debugger's version, for ``[via TOOL VERSION]``: by default the
        one :meth:`check` found, asked once per session."""
        if self._checked_version is None:
            self._checked_version = self.check(self.spec).version
        return self._checked_version

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        raise NotImplementedError

    def attach(self, request: AttachRequest, timeout: float) -> StopEvent:
        raise self.unsupported("attach")

    def state(self) -> StopState:
        raise NotImplementedError

    def poll(self, timeout: float) -> StopEvent | None:
        """While the target runs: wait up to ``timeout`` for it to stop or exit
        and return what happened, or None if it still runs."""
        raise NotImplementedError

    def terminate(self) -> None:
        """End the debuggee and the debugger; must not raise."""
        raise NotImplementedError

    def program_pids(self) -> list[int]:
        """The program's own processes, as far as the backend knows them (the
        debugger's too where the debugger runs inside the program, as pdb
        does); [] when it does not know them. See :meth:`ended_unseen`."""
        return []

    def ended_unseen(self, timeout: float) -> StopEvent | None:
        """The program's end while it was stopped and no op waited for it (a
        SIGKILL from outside), which the debugger may never report (gdb and
        delve wait for the next resume, and a resume then hangs or fails);
        None while it lives. Asked by the core before each op on a stopped
        program, and when the backend's state is "exited" with the end not
        told yet. The default looks at :meth:`program_pids`: all gone means
        the program ended, how as its zombie's wait status says (unknown
        once the debugger reaped it). A backend whose debugger has reported
        the end overrides this to say what it reported."""
        from dbgcore.shared import procutil
        from dbgcore.vocab.model import StopEvent, ended

        pids = [pid for pid in self.program_pids() if pid > 0]
        if not pids or any(procutil.alive(pid) for pid in pids):
            return None
        statuses = [procutil.exit_status(pid) for pid in pids]
        status = next((s for s in statuses if s is not None), None)
        return ended(status) if status is not None else \
            StopEvent(state="exited", reason="exited")

    # -- breakpoints ---------------------------------------------------------

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        raise self.unsupported("break")

    def set_breakpoints(self, locs: list[BreakLoc], timeout: float,
                        options: list[BreakOptions] | None = None
                        ) -> list[Breakpoint | Exception]:
        """Many breakpoints at once (``options``: each one's, default none),
        as `dbg start --break` and `dbg restart` set them: for each, the
        breakpoint or the error that refused it. A debugger that takes a
        file's list in one request (DAP) or many commands in one exchange
        (pdb) answers in one; this default sets them one by one."""
        from dbgcore.shared.errors import DbgError
        from dbgcore.vocab.model import BreakOptions

        out: list[Breakpoint | Exception] = []
        for loc, opts in zip(locs, options or [BreakOptions()] * len(locs), strict=True):
            try:
                out.append(self.set_breakpoint(loc, opts, timeout))
            except DbgError as exc:
                out.append(exc)
        return out

    def function_places(self, loc: BreakLoc, timeout: float) -> list[Location] | None:
        """Every place of the program's own code the function ``loc`` names
        (file, the line a breakpoint there stops at, qualified name), found
        in its sources; [] when it has none; None when this backend does not
        tell (its debugger binds the name itself). `dbg break` binds each
        one (a library's function of the same name is left out), `dbg list`
        shows them, `dbg trace` says which it traces."""
        return None

    def functions_elsewhere(self, loc: BreakLoc, timeout: float) -> list[Location]:
        """The functions of the name ``loc`` names that are not the
        program's own, as far as the debugger can tell now (a library's
        loaded code): what a breakpoint bound by :meth:`function_places`
        left out, for its answer to say. [] when it cannot tell."""
        return []

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        raise self.unsupported("unbreak")

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        raise self.unsupported("breaks")

    def watch(self, expression: str, timeout: float) -> Breakpoint:
        raise self.unsupported("watch")

    def catch(self, filters: list[str], timeout: float) -> list[str]:
        raise self.unsupported("catch")

    # -- execution (each returns what stopped it, or state "running") --------

    def cont(self, timeout: float) -> StopEvent:
        raise self.unsupported("continue")

    def step(self, timeout: float) -> StopEvent:
        raise self.unsupported("step")

    def next(self, timeout: float) -> StopEvent:
        raise self.unsupported("next")

    def finish(self, timeout: float) -> StopEvent:
        """Run until the selected frame returns; stop in its caller, with
        ``return_value`` when the debugger can know it. The core has already
        refused `finish` in the outermost frame."""
        raise self.unsupported("finish")

    def return_stops(self, timeout: float) -> list[int | str] | None:
        """At a stop at the entry of a function `dbg trace` traces: dbg's own
        breakpoints on each of the function's returns, where
        :meth:`returned_value` reads the value, so that the tracer runs on
        with `continue` only and never steps out (delve refuses a step while
        another goroutine's breakpoint has interrupted one, and a `continue`
        then finishes that old step). None: the backend has no such means
        (the tracer finishes each call)."""
        return None

    def returned_value(self, timeout: float) -> ReturnValue | None:
        """At a stop at one of :meth:`return_stops`' breakpoints: the value
        the call returns (None: it has none, or it cannot be read)."""
        return None

    def discard_return_stops(self, stops: list[int | str], timeout: float) -> None:
        """Remove the breakpoints :meth:`return_stops` set."""

    def reverse(self, motion: str, timeout: float) -> StopEvent:
        """Run backwards (`dbg continue --back`...): ``motion`` is one of
        :data:`REVERSE_MOTIONS`. Back to the previous breakpoint
        (``continue``), line (``step`` enters calls, ``next`` steps over
        them) or the current function's call (``finish``); the stop shows
        the program as it was then. The default refuses every motion."""
        raise self.unsupported(f"{motion} --back", self.unsupported_hints.get("reverse") or
                               f"{self.tool_name} does not run the program backwards here; "
                               "gdb does after `dbg record`, and OCaml's ocamldebug does")

    def record(self, stop: bool, timeout: float) -> JsonObject:
        """`dbg record`: start recording the run at the current stop, so
        that :meth:`reverse` can go back through it (``stop``: end the
        record, and replay with it). Answers ``recording`` (a bool) and
        ``said``, what the debugger did, in words. A backend that records
        every run by itself says so; the default refuses."""
        raise self.unsupported("record", self.unsupported_hints.get("record") or
                               f"{self.tool_name} does not record the run; gdb does "
                               "(`dbg record`), and OCaml's ocamldebug always does")

    def until(self, loc: BreakLoc | None, timeout: float) -> StopEvent:
        """Run to ``loc`` (None: the next line, not going back in a loop). A
        location where no code is is refused (OpFailed) before anything runs;
        one behind the current line in the same function the core refuses."""
        raise self.unsupported("until")

    def pause(self, timeout: float) -> StopEvent:
        raise self.unsupported("pause")

    # -- inspection ----------------------------------------------------------

    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        """Frames of the current thread, innermost first; the debugger's and
        the runtime's own frames marked ``internal`` (the core hides the
        outermost run of them), libraries' and test runners' ``library``
        (`dbg stack` hides them unless `--all`). Cheap: every stop asks."""
        raise self.unsupported("stack")

    def frame_args(self, frames: list[Frame], timeout: float) -> None:
        """Set each frame's ``args`` to its arguments where the debugger can
        tell (the default leaves them None). The core asks only for the
        frames it shows, since some debuggers answer a request per frame."""

    def async_callers(self, timeout: float) -> list[Frame]:
        """The calls waiting on the stack's outermost live frame, where the
        runtime keeps them (an ``await`` of it, a ``.then`` on its promise):
        frames marked ``asynchronous``, numbered on from the last of
        :meth:`stack`, the first of each run with its ``async_boundary``.
        `dbg stack` shows them after the live frames; nothing else counts them
        (not `up`, `finish` or a frame's depth). Default: none."""
        return []

    def select_frame(self, index: int, timeout: float) -> Frame:
        raise self.unsupported("frame")

    def locals(self, timeout: float) -> list[Variable]:
        raise self.unsupported("locals")

    #: Whether the backend gives the program :attr:`LaunchRequest.stdin` as
    #: its standard input (`dbg start --stdin`, `dbg input`). A class whose
    #: answer depends on its configuration (one class, many debuggers) may
    #: set it per instance, and say so in :meth:`support`.
    reads_stdin: bool = False

    #: Whether the backend opens a core dump (:attr:`LaunchRequest.core`).
    #: Like :attr:`reads_stdin`, a class may set it per instance.
    opens_cores: bool = False
    #: Whether the backend runs a program under valgrind's memcheck
    #: (:attr:`LaunchRequest.memcheck`); a class may set it per instance,
    #: and then says so for an entry in :meth:`memchecks`.
    runs_memcheck: bool = False

    @classmethod
    def memchecks(cls, spec: BackendSpec) -> bool:
        """Whether the backends.yaml entry ``spec`` runs programs under
        memcheck: `dbg memcheck` takes the first entry that does."""
        return cls.runs_memcheck

    def interrupt(self) -> None:
        """Ask the running program to stop, and return at once. Called from
        another thread than the one blocked in an execution op (`continue`,
        `step`...), which then returns the stop this causes: `dbg pause` from
        a second client. Must be safe to call while that op waits (a signal
        to the debugger, a request on a thread-safe channel), and do nothing
        when the program is not running."""
        raise self.unsupported("pause", "this backend cannot be interrupted while another "
                                        "command waits for the program")

    def fields(self, variable: Variable, timeout: float) -> list[Variable] | None:
        """The fields of a struct or object among the last ``locals()`` whose
        value does not show them (``{...}``, ``<Cart object at 0x...>``), one
        level, for a stop snapshot; None for a value that shows its contents,
        or when the backend cannot tell. Asked only for what the snapshot shows.
        A backend that reads only the first fields returns them as a
        :class:`dbgcore.vocab.model.FieldList` with the count of them all."""
        return None

    def evaluate(self, expression: str, timeout: float) -> Value:
        raise self.unsupported("print")

    def value_tree(self, expression: str, depth: int, timeout: float) -> JsonObject:
        """`dbg print EXPR --depth N`: the value (``value``, ``type``) and its
        children ``depth`` levels deep (``children``: rows of ``name``,
        ``value``, ``type`` and their own ``children``; ``more``: children
        not shown), as :func:`dbgcore.inprogram.pytree.tree_of` answers."""
        raise self.unsupported("print --depth", "`dbg print EXPR` shows the value without "
                                                "its children")

    def set_variable(self, lhs: str, value: str, timeout: float) -> Value:
        raise self.unsupported("set")

    def threads(self, timeout: float) -> list[Thread]:
        raise self.unsupported("threads")

    def select_thread(self, thread_id: int | str, timeout: float) -> Thread:
        raise self.unsupported("thread")

    def thread_stacks(self, with_locals: bool, timeout: float) -> list[ThreadStack]:
        """`dbg stacks`: every thread's whole stack, by the debugger's own
        means, while the program runs where the debugger can (delve's
        goroutines, jstack). A Python program's are read by py-spy before
        this is asked (:mod:`dbgcore.ops.stacks`); for a backend that does
        not override this, dbg walks :meth:`threads` with
        :meth:`select_thread` and :meth:`stack` at a stop."""
        raise self.unsupported("stacks")

    def thread_wait(self, timeout: float) -> tuple[str, str] | None:
        """Whether the selected thread waits, and for what, where the
        debugger can tell at a stop: ("blocked", "sync mutex lock") for a
        lock another holds, ("waiting", "chan receive") for anything else
        (delve reads a goroutine's wait reason); None: it does not, or the
        debugger cannot tell. Asked by `dbg stacks`' walk of each thread."""
        return None

    def raw(self, text: str, timeout: float) -> tuple[str, StopEvent | None]:
        """Send native text; return its answer, and a stop event if the command
        moved the target (e.g. ``dbg raw next``)."""
        raise self.unsupported("raw")

    # -- history -------------------------------------------------------------

    def trace(self, functions: list[str], lines: bool, max_calls: int,
              timeout: float, sink: CallSink) -> TraceOutcome:
        """`dbg trace`: run the program from here without stopping, recording
        each call of ``functions`` (args at entry, the return value or the
        exception at exit, the caller, the thread; with ``lines`` each line
        reached and the locals changed there), at most ``max_calls`` of them,
        until it stops (a breakpoint, an exception, the end). When ``timeout``
        runs out, pause it and return what was recorded (``timed_out``).
        Each call is given to ``sink`` as it is recorded and again as it
        ends, so that a daemon killed meanwhile keeps it (a tracer that
        writes a trace file: :func:`dbgcore.vocab.traces.follow_trace_file`).

        A backend whose debugger can trace by itself overrides this; for one
        that does not, the core uses dbg's fallback (:mod:`dbgcore.backends.stoptracer`:
        internal breakpoints and `finish`, out of the backend's own op
        methods) when it has what that needs (:meth:`has_fallback`)."""
        raise self.unsupported("trace")

    @classmethod
    def has_fallback(cls, method: str) -> bool:
        """Whether dbg's fallback can do ``method`` (a :class:`Backend`
        method name) on this backend: it overrides every method the fallback
        uses (:data:`_FALLBACK_NEEDS`)."""
        needs = _FALLBACK_NEEDS.get(method)
        return bool(needs) and all(getattr(cls, n) is not getattr(Backend, n)
                                   for n in needs or ())

    def op_exception(self, args: JsonObject, timeout: float) -> JsonObject:
        """`dbg exception`: the exception the program stopped on (``type``,
        ``message``, ``traceback`` in call order), by the debugger's own means.
        Like a backend-specific op, `dbg caps` lists it among those (native
        where a class overrides this)."""
        raise self.unsupported("exception")

    def op_tasks(self, args: JsonObject, timeout: float) -> JsonObject:
        """`dbg tasks`: the program's asyncio tasks (or its language's like),
        as :func:`dbgcore.inprogram.pytasks.listing` answers: ``tasks`` (at
        most ``args["limit"]``), ``more``, ``none_why``. Listed among the
        backend's own ops by `dbg caps`, native where a class overrides it."""
        raise self.unsupported("tasks")
