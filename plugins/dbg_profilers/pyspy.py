"""py-spy as a profiler: it samples a Python program's stacks from outside
(``py-spy record --format raw``, collapsed stacks ``a;b;c N``), in every
thread and every subprocess, with native frames on request, and attaches to
a running one by its pid. Sampling costs the program little and sees where
the wall time goes, library code included.

A program is run under ``sh -c '"$@"; echo $? > FILE'``, py-spy following
subprocesses: py-spy itself answers 0 whatever the program did, and the
shell's ``$?`` is the program's exit code, kept for the answer (a crash keeps
what was sampled, and says how the program ended).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from dbg_profilers import common
from dbgcore.api import (
    OpFailed,
    Profile,
    ProfileFrame,
    Profiler,
    Readiness,
    RecordRequest,
    Sample,
    UsageError,
    pyspy,
)

#: A frame of py-spy's raw format: ``name (file:line)``; a native one may
#: have no line.
_FRAME_RE = re.compile(r"^(?P<name>.*) \((?P<file>.*?)(?::(?P<line>\d+))?\)$")
#: The frames py-spy adds above the program's: a process (``--subprocesses``)
#: and a thread (``--threads``: ``thread (TID): NAME`` or ``thread (TID)``).
_PROCESS_RE = re.compile(r'^process (\d+):')
_THREAD_RE = re.compile(r"(?:^|;)thread \((\w+)\)(?::\s*([^;]*))?(?:;|$)")
#: Samples a second when --rate is not given (py-spy's own default).
DEFAULT_RATE = 100
#: Seconds a running process is sampled when --duration is not given.
PID_DURATION = 5.0


class PySpyProfiler(Profiler):
    id = "py-spy"
    tool_name = "py-spy"
    languages = ("python",)
    extensions = (".py",)
    attaches = True
    native_frames = True
    # Without --idle py-spy leaves out the samples of a thread it sees
    # waiting (a sleep, a lock, a read): time on CPU, by default.
    clocks = ("cpu", "wall")
    install = pyspy.INSTALL
    summary = ("samples a Python program's stacks from outside (every thread; threads "
               "running, --clock wall: waiting ones too)")

    @classmethod
    def readiness(cls) -> Readiness:
        path = pyspy.find()
        if path is None:
            return Readiness(False, "py-spy is not installed")
        return Readiness(True, path, pyspy.version(path))

    @classmethod
    def fits_pid(cls, pid: int) -> bool:
        return pyspy.is_python(pid)

    def record(self, request: RecordRequest) -> Profile:
        path = pyspy.find()
        if path is None:
            raise OpFailed("py-spy is not installed", pyspy.INSTALL)
        raw = request.workdir / "py-spy.txt"
        output = request.workdir / "output.txt"
        code_file = request.workdir / "exit-code"
        rate = request.rate or DEFAULT_RATE
        argv = [path, "record", "--format", "raw", "--full-filenames", "--threads",
                "--output", str(raw), "--rate", str(rate)]
        if request.native:
            argv.append("--native")
        if request.clock == "wall":
            argv.append("--idle")
        duration = request.duration
        if request.pid is not None:
            why = pyspy.refusal(request.pid)
            if why:
                raise UsageError(why, "give the pid of a running Python program "
                                 "(`pgrep -a python`)")
            duration = duration or PID_DURATION
            argv += ["--pid", str(request.pid)]
        else:
            argv += ["--subprocesses", "--", "sh", "-c", f'"$@"; echo $? > {code_file}', "sh",
                     common.interpreter(request), *request.argv]
        began = time.monotonic()
        status, cut = common.run_bounded(argv, request, output, duration)
        # The wall time recorded: samples over the rate would count each
        # thread's samples again.
        elapsed = time.monotonic() - began
        samples = parse_raw(raw.read_text(errors="replace") if raw.exists() else "")
        # A program debugpy debugs (a live session's) runs debugpy's own
        # threads, which wait on its socket: not the program's time. (Its
        # tracer's frames atop the program's own are kept, folded into them.)
        kept = [s for s in samples if any(f.library is None for f in s.frames)
                or not any(f.library == "debugpy" for f in s.frames)]
        debugger = len(samples) - len(kept)
        samples = kept
        if not samples and status:
            raise OpFailed(f"py-spy recorded nothing: {_error_line(output)}",
                           "a program that ends within a moment is over before py-spy "
                           "samples it, and py-spy reads only CPython: `dbg profile --tool "
                           "cprofile` counts every call instead")
        exit_code = _exit_code(code_file)
        profile = Profile(self.id, "stacks", "samples", samples, rate=float(rate),
                          duration=elapsed, pid=request.pid,
                          exit_code=exit_code)
        if cut and request.pid is None:
            profile.note = "the program was stopped (SIGINT) when the recording ended"
        if debugger:
            profile.note = "; ".join(n for n in (
                profile.note, "debugpy's own threads left out") if n)
        if exit_code:
            profile.output = common.tail(output, "py-spy> ")
        return profile


def parse_raw(text: str) -> list[Sample]:
    """py-spy's collapsed stacks, one ``frame;frame;... COUNT`` a line, as
    samples: the process and thread frames taken off (the thread is the
    sample's), each frame marked as the program's or a library's."""
    parsed: list[tuple[str | None, list[tuple[str, str | None, int | None]], int]] = []
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        thread = None
        # A process frame is its command line, which may hold ";": the
        # program's frames begin after the first thread frame.
        found = _THREAD_RE.search(stack)
        if found is not None:
            thread = found.group(2) or found.group(1)
            stack = stack[found.end():]
        elif _PROCESS_RE.match(stack):
            continue
        frames: list[tuple[str, str | None, int | None]] = []
        for part in stack.split(";") if stack else ():
            frame = _FRAME_RE.match(part)
            if frame is None:
                frames.append((part, None, None))
            else:
                line_no = frame.group("line")
                frames.append((frame.group("name"), frame.group("file"),
                               int(line_no) if line_no else None))
        if frames:
            parsed.append((thread, frames, int(count)))
    stdlib = common.stdlib_of([f[1] for _, frames, _ in parsed for f in frames if f[1]])
    return [Sample(tuple(ProfileFrame(name, file, line, common.library(file, stdlib))
                         for name, file, line in frames), float(count), thread)
            for thread, frames, count in parsed]


def _error_line(output: Path) -> str:
    """py-spy's reason, without its backtrace: its ``Error:`` line."""
    try:
        lines = output.read_text(errors="replace").splitlines()
    except OSError:
        return "no reason given"
    found = [line[len("Error:"):].strip() for line in lines if line.startswith("Error:")]
    return found[-1] if found else (common.tail(output).splitlines() or ["no reason given"])[-1]


def _exit_code(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
