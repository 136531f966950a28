"""`dbg stacks` on a running Java program: the JDK's ``jstack`` reads every
thread's stack from the JVM without stopping it (jdb reads stacks only of a
suspended VM), with what each waits for.

jstack's thread dump gives, per Java thread, a header line (``"name" #12
... waiting for monitor entry``), its state (``java.lang.Thread.State:
BLOCKED (on object monitor)``), its frames innermost first (``at
Deadlock.forward(Deadlock.java:11)``) and, under a frame, the monitors it
holds or waits for (``- waiting to lock <0x...> (a java.lang.Object)``,
``- locked <0x...>``). A monitor one thread waits to lock and another holds
names the holder: a deadlock reads as two threads each waiting for a lock
the other holds. The JVM's own threads without Java frames (the compiler,
the GC) are left out.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from dbg_jdb.parse import java_library
from dbgcore.api import Frame, OpFailed, ThreadStack

_THREAD_RE = re.compile(r'^"(?P<name>.*)" #(?P<number>\d+)')
_STATE_RE = re.compile(r"^\s+java\.lang\.Thread\.State: (?P<state>\w+)")
_FRAME_RE = re.compile(r"^\s+at (?P<function>[^(\s]+)\((?P<where>[^)]*)\)")
_MONITOR_RE = re.compile(r"^\s+- (?P<what>waiting to lock|waiting on|parking to wait for|locked)"
                         r" <(?P<address>0x[0-9a-f]+)> \(a (?P<type>[^)]+)\)")
#: Where the list of threads ends: the counts of JNI references, and the
#: deadlock report, whose threads are listed again.
_END = ("JNI global refs", "Found one Java-level deadlock", "Found a total of")
#: Java's thread states in dbg's words (:class:`dbgcore.api.ThreadStack`).
_STATES = {"RUNNABLE": "running", "BLOCKED": "blocked", "WAITING": "waiting",
           "TIMED_WAITING": "waiting"}


def find() -> str | None:
    """jstack beside the `java` on PATH (the JDK's bin folder), else on PATH."""
    java = shutil.which("java")
    if java is not None:
        beside = Path(java).resolve().parent / "jstack"
        if beside.is_file():
            return str(beside)
    return shutil.which("jstack")


def dump(pid: int, timeout: float) -> str:
    """jstack's thread dump of the JVM ``pid``."""
    jstack = find()
    if jstack is None:
        raise OpFailed("jstack not found: it comes with the JDK (apt install "
                       "openjdk-17-jdk-headless)", "or `dbg pause`, then `dbg stacks`")
    try:
        done = subprocess.run([jstack, str(pid)], capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise OpFailed(f"jstack did not answer within {timeout:g}s",
                       "`dbg pause`, then `dbg stacks`") from exc
    if done.returncode != 0 or '"' not in done.stdout:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise OpFailed(f"jstack could not read process {pid}: "
                       f"{said[-1] if said else 'exit ' + str(done.returncode)}",
                       "`dbg pause`, then `dbg stacks`")
    return done.stdout


class _Reading:
    """One thread as its lines are read."""

    def __init__(self, number: str, name: str) -> None:
        self.number = number
        self.name = name
        self.state: str | None = None
        self.frames: list[Frame] = []
        #: (what, address, type) of the monitors it waits for.
        self.waits: list[tuple[str, str, str]] = []
        self.holds: set[str] = set()


def parse(text: str, file_of: Callable[[str], str | None]) -> list[ThreadStack]:
    """The Java threads of a jstack dump, each with its frames (files found
    by ``file_of(class name)``, as jdb's `where` finds them) and what it
    waits for, naming the thread that holds it."""
    threads: list[_Reading] = []
    thread: _Reading | None = None
    for line in text.splitlines():
        if line.startswith(_END):
            break  # the summaries after the threads list them again
        if line.startswith('"'):
            head = _THREAD_RE.match(line)
            # A thread of the JVM's own has no number: nothing of it is kept.
            thread = _Reading(head["number"], head["name"]) if head is not None else None
            if thread is not None:
                threads.append(thread)
            continue
        if thread is None:
            continue
        if (state := _STATE_RE.match(line)) is not None:
            thread.state = _STATES.get(state["state"], state["state"].lower())
        elif (frame := _FRAME_RE.match(line)) is not None:
            thread.frames.append(_frame(len(thread.frames), frame["function"], frame["where"],
                                        file_of))
        elif (monitor := _MONITOR_RE.match(line)) is not None:
            if monitor["what"] == "locked":
                thread.holds.add(monitor["address"])
            else:
                thread.waits.append((monitor["what"], monitor["address"], monitor["type"]))
    holders = {address: t.name for t in threads for address in t.holds}
    out = []
    for t in threads:
        if not t.frames:
            continue  # the JVM's own (signal dispatcher, compiler): no Java code
        waits = []
        for what, address, kind in t.waits:
            holder = holders.get(address)
            waits.append(f"{what} a {kind}" + (f" held by {holder!r}" if holder and holder !=
                                                t.name else ""))
        out.append(ThreadStack(int(t.number), t.name, t.frames, state=t.state,
                               waits="; ".join(waits) or None))
    return out


def _frame(index: int, function: str, where: str,
           file_of: Callable[[str], str | None]) -> Frame:
    """A frame of ``at CLASS.METHOD(WHERE)``: WHERE is ``File.java:LINE``
    (a module's ``java.base@17/Thread.java:840``), ``Native Method`` or
    ``Unknown Source``."""
    file_name, _, line = where.rpartition(":")
    # A lambda's generated class (Deadlock$$Lambda$1/0x...): the JDK's machinery.
    package = "java.lang.invoke" if "$$Lambda" in function else java_library(function)
    file = None
    if file_name.endswith(".java") and package is None:
        file = file_of(function.rsplit(".", 1)[0])
    return Frame(index, function, file, int(line) if line.isdigit() else None,
                 library=package is not None, library_name=package or None)
