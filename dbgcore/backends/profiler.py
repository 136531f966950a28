"""The profiler contract: the second kind of backend.

A debugger backend (:class:`~dbgcore.backends.contract.Backend`) stops a
program to show it; a :class:`Profiler` lets it run and answers where its
time went, as a :class:`~dbgcore.vocab.profiles.Profile`. Profilers come from
plugins through the same host as debuggers (the ``dbg_register_profilers``
hook), and one is chosen for a program the way a backend is: by the
program's kind (:meth:`Profiler.fits`), first registered first, unless
``--tool`` names one. A profiler that is not installed is refused with its
own install hint (:meth:`Profiler.readiness`), never guessed around.

A profiler measures one thing (:attr:`Profiler.measures`): time (`dbg
profile`), the heap (`dbg heap`: bytes by allocation site over the run) or
leaks (`dbg leaks`: what was never freed at exit). Each op chooses among the
profilers that measure what it asks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from dbgcore.backends.contract import Readiness
from dbgcore.shared.errors import BackendMissing, UsageError
from dbgcore.vocab.profiles import Profile


@dataclass
class RecordRequest:
    """What to profile: a program to run (``argv``: the program and its
    arguments, as the user gave them), a running process (``pid``) or the
    profile a running program serves (``url``), for
    ``duration`` seconds (None: until the program ends, or the profiler's
    own default for a process), sampled ``rate`` times a second (None: the
    profiler's default). ``clock``: "cpu" (where the program computes) or
    "wall" (its waits too), of a profiler that tells them apart (None: its
    default). ``python``: the interpreter to run a Python
    program with (None: ``python3`` from PATH). ``workdir``: a private
    folder the profiler may write its files in."""

    workdir: Path
    argv: Sequence[str] = ()
    pid: int | None = None
    #: A running program's own profile to read over HTTP (``--url``: Go's
    #: net/http/pprof), for a profiler that :attr:`Profiler.reads_url`.
    url: str | None = None
    duration: float | None = None
    rate: int | None = None
    native: bool = False
    clock: str | None = None
    python: str | None = None
    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    #: A heap profiler's most bytes of snapshot files: past it the
    #: profiler keeps what it has and says so (the profile's note).
    file_limit: int = 64 << 20
    #: Seconds between a heap profiler's snapshots, where it takes them
    #: itself (None: its own default).
    interval: float | None = None


#: What a profiler may measure (:attr:`Profiler.measures`); the op that asks
#: for each is named after it, but time's, which is `dbg profile`.
MEASURES = ("time", "heap", "leaks")


class Profiler:
    """Base class of every profiler. A subclass names itself and what it
    profiles, and records (:meth:`record`)."""

    #: The name ``--tool`` picks it by, and the native tool's own name.
    id: ClassVar[str] = ""
    tool_name: ClassVar[str] = ""
    #: The languages it profiles ("python"), and the file extensions of
    #: programs it runs (".py").
    languages: ClassVar[tuple[str, ...]] = ()
    extensions: ClassVar[tuple[str, ...]] = ()
    #: Samples (an estimate of time, cheap) or counts every call (exact, slower).
    deterministic: ClassVar[bool] = False
    #: Whether it can attach to a running process (``--pid``).
    attaches: ClassVar[bool] = False
    #: Whether it reads the profile a running program serves over HTTP (``--url``).
    reads_url: ClassVar[bool] = False
    #: Whether it reads native frames (C extensions) on request (``--native``).
    native_frames: ClassVar[bool] = False
    #: The clocks it can tell apart, its default first ("cpu": samples of
    #: threads running; "wall": of waiting ones too); empty: it measures
    #: one kind of time, which its summary says.
    clocks: ClassVar[tuple[str, ...]] = ()
    #: How to install the tool when it is missing.
    install: ClassVar[str] = ""
    #: One line for `dbg profile --help` and the refusals.
    summary: ClassVar[str] = ""
    #: What it measures, one of :data:`MEASURES`: "time" (`dbg profile`),
    #: "heap" (`dbg heap`, a profile in bytes) or "leaks" (`dbg leaks`).
    measures: ClassVar[str] = "time"

    @classmethod
    def readiness(cls) -> Readiness:
        """Whether the tool is installed, and its version."""
        return Readiness(True)

    @classmethod
    def fits(cls, program: Path) -> bool:
        """Whether it profiles ``program`` (by its extension, or a
        ``#!`` line naming one of its languages)."""
        if program.suffix.lower() in cls.extensions:
            return True
        try:
            with program.open("rb") as f:
                head = f.readline(200)
        except OSError:
            return False
        return head.startswith(b"#!") and any(
            lang.encode() in head for lang in cls.languages)

    @classmethod
    def fits_pid(cls, pid: int) -> bool:
        """Whether it can profile the running process ``pid``."""
        return False

    def record(self, request: RecordRequest) -> Profile:
        """Run or attach, record, and answer the profile. A program that
        fails or crashes still answers what was recorded, with its exit
        code; a failure of the profiler itself raises a
        :class:`~dbgcore.shared.errors.DbgError`."""
        raise NotImplementedError


def choose(profilers: Mapping[str, type[Profiler]], tool: str | None,
           program: Path | None, pid: int | None, measures: str = "time") -> type[Profiler]:
    """The profiler for a program (or a process): ``tool`` when given;
    else the first registered that fits it and is installed. Only those
    that measure ``measures`` are considered. Refused with one clear line:
    an unknown tool, one that measures something else (naming its op), none
    that fits, or one that is missing (with how to install it)."""
    every = profilers
    profilers = {name: cls for name, cls in every.items() if cls.measures == measures}
    if tool:
        cls = profilers.get(tool)
        if cls is None:
            other = every.get(tool)
            if other is not None:
                op = "profile" if other.measures == "time" else other.measures
                raise UsageError(f"{tool} measures {other.measures}, not {measures}",
                                 f"dbg {op} --tool {tool} PROGRAM")
            raise UsageError(f"unknown profiler {tool!r}",
                             f"known profilers: {', '.join(profilers) or 'none'}")
        _ready(cls)
        if pid is not None and not cls.attaches:
            raise UsageError(f"{cls.id} cannot attach to a running process (--pid)",
                             "run the program under it instead: dbg profile --tool "
                             f"{cls.id} PROGRAM")
        return cls
    fitting: Callable[[type[Profiler]], bool] = (
        (lambda c: c.attaches and c.fits_pid(pid)) if pid is not None else
        (lambda c: program is not None and c.fits(program)))
    options = [c for c in profilers.values() if fitting(c)]
    if not options:
        what = f"process {pid}" if pid is not None else str(program)
        raise UsageError(f"no profiler fits {what}",
                         f"pass --tool NAME (one of: {', '.join(profilers) or 'none'})")
    for cls in options:
        if cls.readiness().ready:
            return cls
    _ready(options[0])
    return options[0]


def _ready(cls: type[Profiler]) -> None:
    readiness = cls.readiness()
    if not readiness.ready:
        raise BackendMissing(f"profiler {cls.id} is not ready: {readiness.detail}",
                             cls.install)


#: How long a profiler has to write its file after it was told to stop.
WRAP_UP = 10.0
#: How long the rest of a profiler's process group has to end by itself.
SETTLE = 2.0


def run_bounded(argv: Sequence[str], request: RecordRequest, output: Path,
                stop_after: float | None) -> tuple[int | None, bool]:
    """Run ``argv`` (a profiler over the program, or a program that
    profiles itself, as a JVM with JFR does) in a process group of its own,
    its output into ``output``. At ``stop_after`` seconds it is sent SIGINT,
    as Ctrl-C would (py-spy, cProfile and the JVM then write what they
    have); past the request's timeout the group is killed. Answers its exit
    code and whether it was cut short; nothing of the group outlives this."""
    # A Python program's last lines reach the output file even when it is killed.
    env = {**os.environ, **request.env, "PYTHONUNBUFFERED": "1"}
    with output.open("wb") as out:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=request.cwd, env=env,
                                start_new_session=True)
    began = time.monotonic()
    limit = max(request.timeout, (stop_after or 0) + WRAP_UP)
    interrupted = False
    try:
        while True:
            try:
                return proc.wait(0.05), interrupted
            except subprocess.TimeoutExpired:
                pass
            spent = time.monotonic() - began
            if stop_after is not None and spent >= stop_after and not interrupted:
                interrupted = True
                _signal_group(proc.pid, signal.SIGINT)
                limit = spent + WRAP_UP
            elif spent >= limit:
                interrupted = True
                _signal_group(proc.pid, signal.SIGKILL)
                return proc.wait(), interrupted
    finally:
        if proc.poll() is None:
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
        # The rest of the group may still be finishing (py-spy ends when the
        # program does, before the shell around it writes the exit code):
        # a moment for that, then nothing of it outlives the recording.
        _settle(proc.pid, SETTLE)
        _signal_group(proc.pid, signal.SIGKILL)


def _settle(pgid: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.01)


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass
