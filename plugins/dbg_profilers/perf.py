"""Linux perf as a profiler of native programs (C, C++, Rust, Go: any ELF
executable): ``perf record`` samples the program's stacks, ``perf script``
reads them back with their functions and source lines.

Stacks are unwound from DWARF (``--call-graph dwarf``): a copy of the
stack's top is taken at each sample and unwound afterwards with the
program's debug info. Frame pointers (``-g``) would be cheaper, but gcc and
rustc leave them out at -O1 and above, and a leaf function without one
gives its caller away: on an -O2 C program every sample's stack ended
``find`` <- ``[unknown]``. DWARF gives whole stacks on C, C++, Rust and Go
alike, inlined functions named as frames of their own, except Go's: perf
cannot unwind a goroutine's stack from DWARF (every sample ended at the leaf,
its callers lost), but Go keeps frame pointers in every build, so a Go
executable is unwound by them.

The event is ``cycles`` where the machine has hardware counters and
``cpu-clock`` (a timer, the same rate) where it has none, as in most virtual
machines; the answer says so. A program that crashes keeps what was
sampled: perf writes its file when the program ends, however it ends, and
ends with the program's status.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from dbg_profilers import common, nativeframes
from dbgcore.api import (
    OpFailed,
    Profile,
    ProfileFrame,
    Profiler,
    Readiness,
    RecordRequest,
    Sample,
    UsageError,
    binary_kind,
    pyspy,
)

INSTALL = "apt-get install linux-perf (Debian; linux-tools-$(uname -r) on Ubuntu)"
#: Samples a second when --rate is not given: fine enough for a program of
#: a second, cheap enough for the issue's 5% (an odd rate does not beat in
#: step with the kernel's timer).
DEFAULT_RATE = 999
#: Seconds a running process is sampled when --duration is not given.
PID_DURATION = 5.0
#: The largest perf.data kept (each sample holds 8 KB of stack): about a
#: minute at the default rate. perf stops writing there; the answer says so.
MAX_SIZE_MB = 512
PARANOID = Path("/proc/sys/kernel/perf_event_paranoid")

#: ``perf script`` output: a sample's head (``comm tid period``), a frame
#: (``<tab>  ip symbol+off (dso)``, no dso for an inlined frame) and the
#: frame's source line (``  file:line``, ``(inlined)`` after it).
_HEAD_RE = re.compile(r"^(?P<comm>\S.*?)\s+(?P<tid>\d+)\s+(?P<period>\d+)\s*$")
_FRAME_RE = re.compile(r"^\t\s*(?P<ip>[0-9a-f]+) (?P<sym>.*?)(?: \((?P<dso>[/\[][^()]*)\))?$")
_SRC_RE = re.compile(r"^ {2}(?P<file>.+?):(?P<line>\d+)(?: \(inlined\))?$")
_OFFSET_RE = re.compile(r"\+0x[0-9a-f]+$")


class PerfProfiler(Profiler):
    id = "perf"
    tool_name = "perf"
    languages = ("c", "c++", "rust", "go")
    attaches = True
    install = INSTALL
    summary = "samples a native program's stacks (Linux perf: C, C++, Rust, Go executables)"

    @classmethod
    def readiness(cls) -> Readiness:
        path = shutil.which("perf")
        if path is None:
            return Readiness(False, "perf is not installed")
        version = common.tool_version([path, "--version"], r"perf version (\S+)")
        if not version:
            # Debian's /usr/bin/perf is a wrapper that finds no perf for
            # the running kernel: it says so instead of a version.
            return Readiness(False, f"{path} finds no perf for this kernel")
        # Said where the machine's numbers are asked for (`dbg doctor`): the
        # event perf samples by, when the CPU has no counters for it.
        _event, counted = sampling_event(path)
        detail = path if counted else (f"{path}; no hardware counters (perf stat -e cycles: "
                                       "<not supported>): samples by cpu-clock")
        refusal = paranoid_refusal(False)
        if refusal:
            return Readiness(False, f"{refusal[0]} (fix: {refusal[1]})", version)
        return Readiness(True, detail, version)

    @classmethod
    def fits(cls, program: Path) -> bool:
        return binary_kind(program) is not None

    @classmethod
    def fits_pid(cls, pid: int) -> bool:
        # py-spy reads a Python program's own frames: perf would see the
        # interpreter's C only.
        exe = Path(f"/proc/{pid}/exe")
        return binary_kind(exe) is not None and not pyspy.is_python(pid)

    def record(self, request: RecordRequest) -> Profile:
        perf = shutil.which("perf")
        if perf is None:
            raise OpFailed("perf is not installed", INSTALL)
        if request.pid is None and not self.fits(Path(request.argv[0])):
            # Under perf a script's interpreter is what runs: its C, not the
            # script's own functions.
            raise UsageError(f"perf profiles native executables (ELF): "
                             f"{request.argv[0]} is not one",
                             "a script: dbg profile without --tool picks its profiler; the "
                             "interpreter's C: dbg profile --tool perf /usr/bin/python3 "
                             "SCRIPT")
        refusal = paranoid_refusal(request.pid is not None)
        if refusal:
            raise OpFailed(*refusal)
        data = request.workdir / "perf.data"
        output = request.workdir / "output.txt"
        rate = request.rate or DEFAULT_RATE
        event, counted = sampling_event(perf)
        exe = Path(request.argv[0]) if request.pid is None else Path(f"/proc/{request.pid}/exe")
        unwinding = "fp" if binary_kind(exe) == "go" else "dwarf"
        argv = [perf, "record", "-q", "-e", event, "-F", str(rate), "--call-graph", unwinding,
                "--max-size", f"{MAX_SIZE_MB}M", "-o", str(data)]
        duration = request.duration
        if request.pid is not None:
            if not common.alive(request.pid):
                raise UsageError(f"no process {request.pid}",
                                 "give the pid of a running program (`pgrep -a NAME`)")
            # Timed by perf itself, from when it samples (its start takes a
            # moment): with -p, the command it runs is only a clock.
            argv += ["-p", str(request.pid), "--", "sleep", f"{duration or PID_DURATION:g}"]
            duration = None
        else:
            # As the user named it: `scan` (a path dbg was given) is run from
            # its folder, not looked up on PATH.
            argv += ["--", _runnable(request.argv[0]), *request.argv[1:]]
        began = time.monotonic()
        status, cut = common.run_bounded(argv, request, output, duration)
        elapsed = time.monotonic() - began
        if not data.exists() or data.stat().st_size == 0:
            raise OpFailed(f"perf recorded nothing: {_reason(output)}",
                           f"does `perf record -e {event} -- {' '.join(request.argv)}` run?")
        program = (str(Path(request.argv[0]).resolve()) if request.argv
                   else _exe(request.pid))
        try:
            samples = parse_script(_script(perf, data, request.timeout), program)
        except OpFailed:
            if status:  # perf could not start the program: its own words say why
                raise OpFailed(f"perf recorded nothing: {_reason(output)}",
                               f"does `{' '.join(request.argv)}` run by itself?") from None
            raise
        exit_code = None if request.pid is not None else nativeframes.shell_status(status)
        profile = Profile(self.id, "stacks", "samples", samples, rate=float(rate),
                          duration=elapsed, pid=request.pid, exit_code=exit_code)
        notes = []
        if not counted:
            notes.append("no hardware counters on this machine (perf stat -e cycles: "
                         "<not supported>, as in most VMs): sampled by cpu-clock, a timer")
        if cut and request.pid is None:
            notes.append("the program was stopped (SIGINT) when the recording ended")
        if data.stat().st_size >= MAX_SIZE_MB * 1024 * 1024 * 0.98:
            notes.append(f"perf.data reached its limit ({MAX_SIZE_MB} MB): the samples "
                         "after it are missing (--rate lower, or --duration)")
        profile.note = "; ".join(notes)
        if exit_code:
            profile.output = common.tail(output)
        return profile


@functools.cache
def sampling_event(perf: str) -> tuple[str, bool]:
    """The event to sample by, and whether it counts the CPU's own cycles:
    ``cycles`` when the machine has hardware counters, else ``cpu-clock``
    (``perf stat -e cycles`` answers ``<not supported>`` without them)."""
    try:
        done = subprocess.run([perf, "stat", "-x,", "-e", "cycles", "true"],
                              capture_output=True, text=True, timeout=10, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return "cpu-clock", False
    said = done.stdout + done.stderr
    if done.returncode != 0 or "<not supported>" in said or "<not counted>" in said:
        return "cpu-clock", False
    return "cycles", True


def paranoid_refusal(attach: bool) -> tuple[str, str] | None:
    """Why the kernel would refuse perf to this user, with the fix, or None.
    Root may always; a user needs perf_event_paranoid 2 or less to sample its
    own programs (above 2 is Debian's own "no perf for users"), and 1 or less
    to attach to a running one."""
    if os.geteuid() == 0:
        return None
    try:
        level = int(PARANOID.read_text().strip())
    except (OSError, ValueError):
        return None
    limit = 1 if attach else 2
    if level <= limit:
        return None
    return (f"the kernel refuses perf to users: perf_event_paranoid is {level}"
            f" ({'attaching' if attach else 'sampling'} needs {limit} or less)",
            f"sudo sysctl kernel.perf_event_paranoid={limit}")


def _script(perf: str, data: Path, timeout: float) -> str:
    argv = [perf, "script", "-i", str(data), "--full-source-path",
            "-F", "comm,tid,period,ip,sym,dso,symoff,srcline"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                              timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise OpFailed(f"perf script could not read the recording: {exc}") from exc
    if done.returncode != 0 and not done.stdout:
        raise OpFailed(f"perf script could not read the recording: {_last(done.stderr)}")
    return done.stdout


def parse_script(text: str, program: str | None) -> list[Sample]:
    """``perf script``'s samples as stacks, outermost frame first, each frame
    with its source line where the debug info gives one and the library it
    belongs to (see :func:`dbg_profilers.nativeframes.library`); equal stacks of a
    thread are one sample, weighed by their count."""
    counts: Counter[tuple[str, tuple[ProfileFrame, ...]]] = Counter()
    thread = ""
    entries: list[_Entry] = []

    def close_sample() -> None:
        if entries:
            counts[(thread, tuple(reversed(_frames(entries, program))))] += 1
        entries.clear()

    for line in text.splitlines():
        if not line.strip():
            close_sample()
            continue
        source = _SRC_RE.match(line)
        if source is not None and entries and entries[-1].file is None:
            file, number = source.group("file"), int(source.group("line"))
            if file != "??":
                entries[-1].file, entries[-1].line = file, number or None
            continue
        frame = _FRAME_RE.match(line)
        if frame is not None:
            name = _OFFSET_RE.sub("", frame.group("sym"))
            if not name or name == "[unknown]":
                name = f"0x{frame.group('ip')}"
            entries.append(_Entry(frame.group("ip"), name, frame.group("dso")))
            continue
        head = _HEAD_RE.match(line)
        if head is not None:
            close_sample()
            thread = head.group("comm")
    close_sample()
    return [Sample(stack, float(count), thread or None)
            for (thread, stack), count in counts.items()]


@dataclass
class _Entry:
    """One frame as ``perf script`` printed it, innermost first."""

    ip: str
    name: str
    dso: str | None
    file: str | None = None
    line: int | None = None


def _frames(entries: list[_Entry], program: str | None) -> list[ProfileFrame]:
    """The entries as frames. An inlined frame names no object of its own:
    it is in the object of the frame it was inlined into (the one perf
    prints for the same address), else of its callee's, else the program's."""
    out = []
    for index, entry in enumerate(entries):
        dso = entry.dso
        if dso is None:
            same = [e.dso for e in entries if e.ip == entry.ip and e.dso]
            # (Not the kernel's: a sample taken in an interrupt has the
            # kernel's frames below the program's.)
            before = [e.dso for e in entries[:index] if e.dso and nativeframes.library(
                e.name, None, e.dso, program) != "kernel"]
            dso = same[0] if same else before[-1] if before else program
        out.append(ProfileFrame(entry.name, entry.file, entry.line,
                                nativeframes.library(entry.name, entry.file, dso, program)))
    return out


def _runnable(program: str) -> str:
    return program if "/" in program else f"./{program}"


def _exe(pid: int | None) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/exe") if pid is not None else None
    except OSError:
        return None


def _reason(output: Path) -> str:
    return _last(output.read_text(errors="replace") if output.exists() else "")


def _last(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no reason given"
