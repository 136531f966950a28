"""The state every part of the DAP backend shares, and the few helpers they
all use: the adapter session, the stopped thread's frames, the current frame.
:mod:`dbg_dap.events` (stops and adapter events), :mod:`dbg_dap.inspection`
(stack, variables, evaluation) and :mod:`dbg_dap.backend` (starting, running,
breakpoints) build on it."""

from __future__ import annotations

from dbg_dap.breakpoints import BreakpointTable
from dbg_dap.host import AdapterHost
from dbg_dap.memcheck import MemcheckRun
from dbg_dap.profile_base import AdapterProfile
from dbg_dap.profiles import profile_for
from dbgcore.api import (
    AdapterProcess,
    Backend,
    BackendSpec,
    BreakLoc,
    BreakOptions,
    DapChannel,
    DapRequestError,
    DapSession,
    Location,
    Message,
    NotStopped,
    OutputPump,
    SessionContext,
    TargetExited,
)

#: How long an attach waits for the debugger to report a stop before pausing.
ATTACH_STOP_WAIT = 0.3

#: Children beyond which a local is not expanded one level in a snapshot.
MAX_FIELDS = 1000

#: DAP stop reasons -> dbg's.
REASONS = {"function breakpoint": "breakpoint", "instruction breakpoint": "breakpoint",
           "data breakpoint": "watchpoint", "goto": "step"}

#: Stop reasons whose adapter description says nothing more than the reason.
QUIET_REASONS = frozenset({"breakpoint", "step", "entry", "until", "watchpoint", "goto"})


class DapCore(Backend):
    def __init__(self, spec: BackendSpec, ctx: SessionContext) -> None:
        super().__init__(spec, ctx)
        self.profile: AdapterProfile = profile_for(spec)
        self.reads_stdin = self.profile.reads_stdin
        self.process: AdapterProcess | None = None
        #: The program's own stdout and stderr, for adapters that mix them with their text.
        self.pump: OutputPump | None = None
        self.channel: DapChannel | None = None
        self.dap: DapSession | None = None
        self.thread_id: int | None = None
        self.frame_index = 0
        self._frames: list[Message] | None = None
        #: Each of the last locals() that has children: its variablesReference
        #: and how many children the adapter counted (for fields()).
        self.local_refs: dict[str, tuple[int, int]] = {}
        #: The row of each reference with children the adapter gave at this
        #: stop (`dbg vars REF` says "N of M" from the count in it).
        self.parent_rows: dict[int, Message] = {}
        #: The backend as its profile sees it (the whole DapBackend: set
        #: there, where it is one), for the parts below it to hand the profile.
        self.host: AdapterHost
        #: Made by DapBackend, which the table drives.
        self.breaks: BreakpointTable
        self.exception_filters: list[str] = []
        #: The program's processes: those the adapter reported and those dbg
        #: started for it (runInTerminal).
        self.debuggees: list[int] = []
        #: This session is a child process's (see DapBackend._attach_child).
        self.is_child = False
        #: Attached to a process dbg did not start: `dbg kill` detaches from it.
        self.attached = False
        #: While the target runs unwatched (an op timed out): the stop counter
        #: it was resumed at, so `poll` sees a stop that has arrived since.
        self.running_since: int | None = None
        self.cwd: str | None = None
        self.profile.build_dir = str(ctx.run_dir)
        #: The internal breakpoint that stands for "stop at entry", if any.
        self.entry_bp: int | None = None
        #: The program, as `dbg start` / `dbg attach` named it (None: a module).
        self.program: str | None = None
        #: Stop where an exception would end the program (`--no-catch`: not).
        self.catch_uncaught = True
        #: A test run (`dbg test`): stop where a test fails.
        self.test_run = False
        #: dbg's own breakpoints where a test fails (the profile's test_failure_functions).
        self.failure_bps: set[int] = set()
        #: dbg's own breakpoint where a Rust program panics (profile.panic_function).
        self.panic_bps: set[int] = set()
        #: A pause was asked for: the next stop is its (lldb says SIGSTOP).
        self.pause_asked = False
        #: DapSession.resumes when the cached frames were asked for.
        self._frames_resumes = 0
        #: The last stop was a test's failure (see test_run).
        self.test_failed = False
        #: At an uncaught C++ exception's stop (AdapterProfile.uncaught_exception):
        #: the innermost frame of its traceback, and what it was; else None.
        self.thrown: tuple[int, str] | None = None
        #: The signal a core's process died by (`dbg start --core`; None: none
        #: recorded, or no core).
        self.core_signal: str | None = None
        #: The frame the last stop showed (`dbg frame` selects another, and
        #: moves frame_index, not this).
        self.stop_frame = 0
        #: Why the program last stopped ("exception", "signal"...).
        self.last_reason = ""
        self.last_description = ""
        #: `dbg memcheck`'s valgrind run (None: a program not under memcheck).
        self.memcheck: MemcheckRun | None = None
        #: The debugger records the run (`dbg record`; dbg_dap.reverse).
        self.recording = False
        #: A reverse motion is under way: the breakpoints it stops at are
        #: not counted as hits (hit counts count forward runs only).
        self.backwards = False
        #: The record stopped the program just before its exit.
        self.exit_ahead = False

    def debuggee_pids(self) -> list[int]:
        return list(self.debuggees)

    def first_thread(self, timeout: float) -> int | None:
        threads = self.dap_session().request("threads", None, timeout).get("threads") or []
        return int(threads[0]["id"]) if threads else None

    def stack_frames(self, timeout: float, levels: int | None = None) -> list[Message]:
        if self.dap is not None and self.dap.resumes != self._frames_resumes:
            # The program ran since (a call `dbg raw` made, say): gdb has
            # numbered its frames anew.
            self._frames_resumes = self.dap.resumes
            self.forget_frames()
        if self._frames is not None and levels is None:
            return self._frames
        if self.thread_id is None:
            return []
        arguments: Message = {"threadId": self.thread_id, "startFrame": 0}
        if levels:
            arguments["levels"] = levels
        try:
            answer = self.dap_session().request("stackTrace", arguments, timeout)
            frames = [f for f in answer.get("stackFrames") or []
                      if not self.profile.pseudo_frame(f)]
        except DapRequestError as exc:
            if not self.profile.no_stack_yet(exc.message):
                raise
            frames = []  # stopped before the program's first frame exists
        if levels is None:
            self._frames = frames
        return frames

    def forget_frames(self) -> None:
        """Ask the adapter for frames (and variables) again: the program ran,
        and an adapter may have renumbered them (gdb does after any run)."""
        self._frames = None
        self.local_refs = {}
        self.parent_rows = {}

    def drop_frames(self) -> None:
        """Ask the adapter for the stack again (a resume, another thread),
        keeping the locals' references until locals() is asked again."""
        self._frames = None

    def dap_session(self) -> DapSession:
        if self.dap is None:
            raise TargetExited("the debugger is not running")
        return self.dap

    def stopped_session(self, what: str) -> DapSession:
        dap = self.dap_session()
        if dap.state == "running":
            raise NotStopped(f"{what} needs a stopped target, and it is running",
                             "`dbg pause` interrupts it; `dbg wait` waits for the next stop")
        if dap.state == "exited":
            raise TargetExited("the program has exited", "run it again with `dbg restart`")
        return dap

    def place_internal_break(self, loc: BreakLoc, options: BreakOptions, timeout: float) -> int:
        return int(self.breaks.add(loc, options, timeout, internal=True).id)

    def discard_internal_break(self, bp_id: int, timeout: float) -> None:
        self.breaks.discard_internal(bp_id, timeout)

    def current_frame_id(self, timeout: float) -> int | None:
        frames = self.stack_frames(timeout)
        if not frames:
            return None
        return int(frames[min(self.frame_index, len(frames) - 1)]["id"])


def frame_location(frame: Message) -> Location:
    source = frame.get("source") or {}
    file = source.get("path") or source.get("name")
    return Location(file, frame.get("line"), frame.get("name"))

