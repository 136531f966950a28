"""JDK Flight Recorder as a dbg profiler: where a Java program's time goes.

The JVM samples its own threads (``jdk.ExecutionSample``: a thread running
Java code, every period; with ``--clock wall`` also ``jdk.NativeMethodSample``:
one in a native method, a read from a pipe or a socket, a native library's
work). A thread parked on a lock, or sleeping, is in neither: `dbg stacks`
shows those. The JVM writes a
recording when it ends, SIGINT included (its shutdown runs on a thread of
its own, whatever the program's threads are doing). ``jfr print --json``
reads the recording back: each sample a thread's stack, innermost first,
each frame with its line. A running JVM is recorded between ``jcmd PID JFR.start`` and
``JFR.stop``, which writes the file before it answers.

The settings are a small ``.jfc`` file of dbg's own, with just these
events at the asked rate: JFR's ``profile`` settings record ~100 events
besides, which cost the program time and the file size.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dbgcore.api import (
    OpFailed,
    Profile,
    ProfileFrame,
    Profiler,
    Readiness,
    RecordRequest,
    Sample,
    UsageError,
    run_bounded,
)

#: Samples a second when --rate is not given (JFR's own ``profile`` period, 10 ms).
DEFAULT_RATE = 100
#: Seconds a running JVM is recorded when --duration is not given.
PID_DURATION = 5.0
#: The deepest stack JFR records and `jfr print` prints (their own defaults
#: are 64 and 5: a Spring stack is deeper).
STACK_DEPTH = 256
#: Lines of the program's output an answer carries when it failed.
OUTPUT_LINES = 8

_SETTINGS = """<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="dbg" description="dbg profile: stack samples only">
  <event name="jdk.ExecutionSample">
    <setting name="enabled">true</setting>
    <setting name="period">{period} ms</setting>
  </event>
  <event name="jdk.NativeMethodSample">
    <setting name="enabled">{native}</setting>
    <setting name="period">{period} ms</setting>
  </event>
</configuration>
"""


class JfrProfiler(Profiler):
    id = "jfr"
    tool_name = "JDK Flight Recorder"
    languages = ("java",)
    extensions = (".java", ".class", ".jar")
    attaches = True
    clocks = ("cpu", "wall")
    install = "install a JDK 11 or newer (apt install openjdk-17-jdk-headless)"
    summary = ("samples a Java program's threads from inside the JVM (Java code running; "
               "--clock wall: threads in native methods, I/O waits, too)")

    @classmethod
    def readiness(cls) -> Readiness:
        java, jfr = shutil.which("java"), shutil.which("jfr")
        if java is None or jfr is None:
            return Readiness(False, f"{'java' if java is None else 'jfr'} is not on PATH")
        try:
            said = subprocess.run([java, "-version"], capture_output=True, text=True,
                                  timeout=20, check=False).stderr
        except (OSError, subprocess.SubprocessError) as exc:
            return Readiness(False, f"{java} does not run: {exc}")
        first = said.splitlines()[0] if said else ""
        version = first.split('"')[1] if first.count('"') >= 2 else ""
        return Readiness(True, java, version)

    @classmethod
    def fits_pid(cls, pid: int) -> bool:
        try:
            return Path(os.readlink(f"/proc/{pid}/exe")).name == "java"
        except OSError:
            return False

    def record(self, request: RecordRequest) -> Profile:
        rate = request.rate or DEFAULT_RATE
        settings = request.workdir / "dbg.jfc"
        settings.write_text(_SETTINGS.format(period=max(1, round(1000 / rate)),
                                             native=str(request.clock == "wall").lower()))
        recording = request.workdir / "recording.jfr"
        if request.pid is not None:
            return self._attach(request, settings, recording, rate)
        from dbg_jdb.program import prepare

        program = prepare(str(request.argv[0]), None, request.workdir / "classes",
                          request.timeout)
        output = request.workdir / "output.txt"
        argv = [shutil.which("java") or "java",
                f"-XX:StartFlightRecording=filename={recording},settings={settings}",
                # The repository (JFR's chunks in the making) in our own
                # folder, not a dated folder in /tmp that outlives the run.
                f"-XX:FlightRecorderOptions=stackdepth={STACK_DEPTH},"
                f"repository={request.workdir / 'repository'}",
                "-cp", os.pathsep.join(program.classpath), program.main_class,
                *request.argv[1:]]
        began = time.monotonic()
        exit_code, cut = run_bounded(argv, request, output, request.duration)
        elapsed = time.monotonic() - began
        if not recording.exists():
            raise OpFailed("the JVM wrote no recording: "
                           f"{_tail(output) or 'it gave no reason'}",
                           "does the program run with `java -cp ... MainClass`?")
        profile = Profile(self.id, "stacks", "samples",
                          read(recording, program.source_roots, request.timeout),
                          rate=float(rate), duration=elapsed,
                          exit_code=None if cut else exit_code)
        if cut:
            profile.note = "the program was stopped (SIGINT) when the recording ended"
        elif exit_code:
            profile.output = _tail(output)
        return profile

    def _attach(self, request: RecordRequest, settings: Path, recording: Path,
                rate: int) -> Profile:
        assert request.pid is not None
        jcmd = shutil.which("jcmd")
        if jcmd is None:
            raise OpFailed("jcmd is not on PATH: it starts a recording in a running JVM",
                           self.install)
        if not self.fits_pid(request.pid):
            raise UsageError(f"process {request.pid} is not a running JVM",
                             "give the pid of a java process (`jcmd -l` lists them)")
        duration = request.duration or PID_DURATION
        self._jcmd(jcmd, request, "JFR.start", "name=dbg-profile", f"settings={settings}")
        time.sleep(duration)
        # JFR.stop writes the file before jcmd answers.
        self._jcmd(jcmd, request, "JFR.stop", "name=dbg-profile", f"filename={recording}")
        if not recording.exists():
            raise OpFailed(f"process {request.pid} wrote no recording",
                           "did the JVM end meanwhile?")
        return Profile(self.id, "stacks", "samples",
                       read(recording, [], request.timeout), rate=float(rate),
                       duration=duration, pid=request.pid)


    @staticmethod
    def _jcmd(jcmd: str, request: RecordRequest, *words: str) -> None:
        try:
            done = subprocess.run([jcmd, str(request.pid), *words], capture_output=True,
                                  text=True, timeout=request.timeout, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            raise OpFailed(f"jcmd {words[0]} failed: {exc}") from exc
        said = (done.stdout + done.stderr).strip().splitlines()
        if done.returncode != 0 or any("Could not" in line or "Exception" in line
                                       for line in said):
            raise OpFailed(f"jcmd {words[0]} failed in process {request.pid}: "
                           f"{said[-1] if said else f'exit code {done.returncode}'}",
                           "is it a JVM of this user, started with no -XX:+DisableAttachMechanism?")


def read(recording: Path, source_roots: Sequence[str], timeout: float) -> list[Sample]:
    """The recording's stack samples, one per distinct thread and stack."""
    jfr = shutil.which("jfr") or "jfr"
    try:
        done = subprocess.run(
            [jfr, "print", "--json", "--stack-depth", str(STACK_DEPTH), "--events",
             "jdk.ExecutionSample,jdk.NativeMethodSample", str(recording)],
            capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise OpFailed(f"could not read the recording with {jfr}: {exc}") from exc
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise OpFailed(f"jfr could not read the recording: {said[-1] if said else '?'}")
    try:
        events = json.loads(done.stdout)["recording"]["events"]
    except (ValueError, KeyError, TypeError) as exc:
        raise OpFailed("jfr print answered no recording") from exc
    return samples_of(events, source_roots)


def samples_of(events: Iterable[Mapping[str, Any]],
               source_roots: Sequence[str]) -> list[Sample]:
    files: dict[str, str | None] = {}
    seen: Counter[tuple[str | None, tuple[ProfileFrame, ...]]] = Counter()
    for event in events:
        values = event.get("values") or {}
        frames = ((values.get("stackTrace") or {}).get("frames")) or []
        if not frames:
            continue
        thread = (values.get("sampledThread") or {}).get("javaName")
        stack = tuple(_frame(f, source_roots, files) for f in reversed(frames))
        seen[thread, stack] += 1
    return [Sample(stack, float(count), thread) for (thread, stack), count in seen.items()]


def _frame(raw: Mapping[str, Any], source_roots: Sequence[str],
           files: dict[str, str | None]) -> ProfileFrame:
    method = raw.get("method") or {}
    kind = method.get("type") or {}
    internal = str(kind.get("name") or "?")  # java/util/ArrayList, app/Main$Inner
    name = f"{internal.replace('/', '.')}.{method.get('name') or '?'}"
    module = ((kind.get("package") or {}).get("module") or {}).get("name")
    line = raw.get("lineNumber")
    line = int(line) if isinstance(line, int) and line > 0 else None
    if module:  # a named module: the JDK's own (java.base), not the program's classpath
        return ProfileFrame(name, None, line, str(module))
    if internal not in files:
        files[internal] = _source(internal, source_roots)
    file = files[internal]
    if kind.get("hidden") or (file is None and internal.startswith(("jdk/", "sun/"))):
        return ProfileFrame(name, file, line, "java")
    return ProfileFrame(name, file, line, None)


def _source(internal: str, source_roots: Sequence[str]) -> str | None:
    """The source file of a class (its outermost class's ``.java`` under a
    source root), where there is one."""
    relative = internal.split("$")[0] + ".java"
    for root in source_roots:
        path = Path(root) / relative
        if path.is_file():
            return str(path)
    return None


def _tail(output: Path) -> str:
    try:
        lines = output.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    kept = [line for line in lines if line.strip() and "[jfr," not in line]
    return "\n".join(kept[-OUTPUT_LINES:])
