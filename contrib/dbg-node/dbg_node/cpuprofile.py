"""V8's CPU profiler as a dbg profiler: where a Node.js program's time goes.

``node --cpu-prof`` writes its profile only when the program ends by
itself: a program cut at ``--duration`` (a server, an endless loop) would
leave nothing, since a signal's JavaScript handler never runs while the
program's own code holds the thread. So the program is run as the node
backend runs it, under its inspector (``--inspect-brk`` on loopback, the
WebSocket URL printed on stderr alone), and the inspector's ``Profiler``
domain does the sampling: it is started before the program's first line,
and stopped, with the profile in its answer, when the program's context is
gone or the duration is over. V8 answers the inspector between two
statements of any busy loop, so the profile comes back either way.

The profile is a tree of call frames with each node's sample count and,
for its own time, the lines it was seen at (``positionTicks``). V8 records
no call sites: a caller's frame is at its function's first line. Its
samples are of wall time: ``(idle)`` is the event loop waiting, ``(program)``
V8's and Node's own native work, ``(garbage collector)`` the collector.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlsplit

from dbgcore.api import (
    OpFailed,
    Profile,
    ProfileFrame,
    Profiler,
    Readiness,
    RecordRequest,
    Sample,
    TransLog,
)

from dbg_node.mapped import ScriptMaps

#: Samples a second when --rate is not given: V8's own default interval (1 ms).
DEFAULT_RATE = 1000
#: How long node has to open its inspector, and to end after the profile.
START_WAIT = 10.0
END_WAIT = 5.0
#: The inspector's own lines on the program's stderr.
_NOTICE = re.compile(r"^(Debugger listening on ws://\S+|Debugger attached\.|"
                     r"For help, see: https://nodejs\.org/\S*|"
                     r"Waiting for the debugger to disconnect\.\.\.)\s*$")
_LISTENING = re.compile(r"Debugger listening on (ws://\S+)")
#: Frames V8 names for what is not JavaScript.
_V8_OWN = frozenset({"(root)", "(program)", "(idle)", "(garbage collector)"})


class NodeCpuProfiler(Profiler):
    id = "node"
    tool_name = "node"
    languages = ("node",)
    extensions = (".js", ".cjs", ".mjs")
    # V8 samples the main thread whatever it does: "(idle)" is its wait for
    # the event loop, left out of a CPU profile.
    clocks = ("wall", "cpu")
    install = "install Node.js 16 or newer (apt install nodejs), so that `node` is on PATH"
    summary = ("samples a Node.js program with V8's CPU profiler (the main thread; wall "
               "time, --clock cpu: its waits left out)")

    @classmethod
    def readiness(cls) -> Readiness:
        node = shutil.which("node")
        if node is None:
            return Readiness(False, "node is not on PATH")
        try:
            out = subprocess.run([node, "--version"], capture_output=True, text=True,
                                 timeout=10, check=False).stdout.strip()
        except (OSError, subprocess.SubprocessError) as exc:
            return Readiness(False, f"{node} does not run: {exc}")
        return Readiness(True, node, out.lstrip("v"))

    def record(self, request: RecordRequest) -> Profile:
        rate = request.rate or DEFAULT_RATE
        with InspectedRun(request, self.install) as run:
            run.inspector.call_all([("Profiler.enable", None),
                                    ("Profiler.setSamplingInterval",
                                     {"interval": max(1, round(1_000_000 / rate))}),
                                    ("Profiler.start", None)], request.timeout)
            elapsed = run.run(request.duration)
            raw = run.inspector.call("Profiler.stop", None, request.timeout).get("profile") or {}
        samples = list(samples_of(raw, ScriptMaps()))
        if request.clock == "cpu":
            samples = [s for s in samples if s.frames[-1].function != "(idle)"]
        count = sum(s.weight for s in samples)
        span = (float(raw.get("endTime", 0)) - float(raw.get("startTime", 0))) / 1e6
        profile = Profile(self.id, "stacks", "samples", samples,
                          # A sample's weight over the rate is seconds: the rate V8
                          # kept, which is below the one asked on a loaded machine.
                          rate=round(count / span, 1) if span > 0 and count else float(rate),
                          duration=span if span > 0 else elapsed, exit_code=run.exit_code)
        run.tell(profile)
        return profile


class InspectedRun:
    """A program run under node's inspector for a profiler: started before
    its first line (the profiler's domain enabled meanwhile), run until it
    ends or for a duration, and nothing of it left after. Used as a context:
    the inspector is open inside it, the exit code known after it."""

    def __init__(self, request: RecordRequest, install: str,
                 node_args: Sequence[str] = ()) -> None:
        node = shutil.which("node", path=request.env.get("PATH") or os.environ.get("PATH"))
        if node is None:
            raise OpFailed("node is not on PATH", install)
        self.request = request
        self.output = request.workdir / "output.txt"
        self.ended = False
        self.exit_code: int | None = None
        argv = [node, "--inspect-brk=127.0.0.1:0", "--inspect-publish-uid=stderr",
                *node_args, *request.argv]
        with self.output.open("wb") as out:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.PIPE, cwd=request.cwd,
                                         env={**os.environ, **request.env},
                                         start_new_session=True)

    def __enter__(self) -> InspectedRun:
        try:
            self._connect()
        except BaseException:
            _end(self.proc)
            raise
        return self

    def _connect(self) -> None:
        from dbg_node.inspector import Inspector

        stderr = self.proc.stderr
        assert stderr is not None
        url = _listening(stderr, min(self.request.timeout, START_WAIT))
        if url is None:
            self.proc.kill()
            raise OpFailed(f"node did not start {self.request.argv[0]}: "
                           f"{_tail(self.output) or f'exit code {self.proc.wait()}'}")
        self.copier = threading.Thread(target=_copy_stderr, args=(stderr, self.output),
                                       name="node-stderr", daemon=True)
        self.copier.start()
        self.inspector = Inspector(url, TransLog(None), self.request.timeout)
        self.inspector.call("Runtime.enable", None, self.request.timeout)

    def run(self, duration: float | None, tick: Callable[[float], None] | None = None,
            every: float = 0.5) -> float:
        """Let the program run until it ends, or for ``duration`` seconds
        (None: the request's timeout), ``tick`` called with the seconds
        spent every ``every`` seconds; the seconds it ran."""
        from dbg_node.inspector import CLOSED

        inspector = self.inspector
        began = time.monotonic()
        inspector.call("Runtime.runIfWaitingForDebugger", None, self.request.timeout)
        limit = duration if duration is not None else self.request.timeout
        next_tick = every
        while not self.ended and (spent := time.monotonic() - began) < limit:
            if tick is not None and spent >= next_tick:
                tick(spent)
                next_tick = spent + every
            event = inspector.next_event(min(0.1, limit - spent))
            if event is not None:
                method = event.get("method")
                context = (event.get("params") or {}).get("executionContextId")
                self.ended = method == CLOSED or (
                    method == "Runtime.executionContextDestroyed"
                    and context == inspector.main_context)
        return time.monotonic() - began

    def tell(self, profile: Profile) -> None:
        """What the answer says of how the program ended."""
        if not self.ended:
            profile.note = "the program was stopped when the recording ended"
        if self.exit_code:
            profile.output = _tail(self.output)

    def __exit__(self, *exc: object) -> None:
        try:
            self.inspector.close()
            if self.ended:
                try:
                    self.exit_code = self.proc.wait(END_WAIT)
                except subprocess.TimeoutExpired:
                    pass
            self.copier.join(timeout=2)
        finally:
            _end(self.proc)


def samples_of(raw: Mapping[str, Any], maps: ScriptMaps | None = None) -> Iterator[Sample]:
    """The profile's tree as stacks, outermost first: each node's own
    samples, split by the line they were seen at where V8 says (its
    ``positionTicks``), the rest at the function's first line; with
    ``maps``, the places of JavaScript that has source maps are its
    sources' (TypeScript's)."""
    nodes = {node["id"]: node for node in raw.get("nodes") or ()}
    parent: dict[int, int] = {}
    for node in nodes.values():
        for child in node.get("children") or ():
            parent[child] = node["id"]
    for node in nodes.values():
        hits = int(node.get("hitCount") or 0)
        if not hits or node["callFrame"].get("functionName") == "(root)":
            continue
        chain = [node]
        while chain[-1]["id"] in parent:
            chain.append(nodes[parent[chain[-1]["id"]]])
        outer = tuple(call_frame(n["callFrame"], maps) for n in reversed(chain[1:])
                      if n["callFrame"].get("functionName") != "(root)")
        leaf = call_frame(node["callFrame"], maps)
        seen = 0
        for tick in node.get("positionTicks") or ():
            line, ticks = int(tick["line"]), int(tick["ticks"])
            seen += ticks
            file = leaf.file
            if maps is not None and leaf.library is None and file is not None:
                # V8's line is the JavaScript's (one-based, no column).
                file, line = _mapped(maps, _url_path(str(node["callFrame"].get("url") or "")),
                                     line - 1, 0)
            yield Sample((*outer, ProfileFrame(leaf.function, file, line, leaf.library)),
                         float(ticks), "main")
        if hits > seen:
            yield Sample((*outer, leaf), float(hits - seen), "main")


def call_frame(call: Mapping[str, Any], maps: ScriptMaps | None = None) -> ProfileFrame:
    """A frame of V8's profile as dbg names it; with ``maps``, the program's
    own at its source map's place."""
    name = str(call.get("functionName") or "")
    url = str(call.get("url") or "")
    line = int(call.get("lineNumber", -1))
    if name in _V8_OWN or not url:
        return ProfileFrame(name or "(anonymous)", None, None, "v8")
    if not name:
        # A module's own code is the function that starts at its first column.
        name = "<module>" if line == 0 and int(call.get("columnNumber", -1)) == 0 \
            else "(anonymous)"
    if url.startswith("node:"):
        return ProfileFrame(name, url, line + 1 if line >= 0 else None, "node")
    file = _url_path(url)
    library = _package(file)
    if maps is not None and library is None and line >= 0:
        mapped, shown = _mapped(maps, file, line, int(call.get("columnNumber", 0)))
        return ProfileFrame(name, mapped, shown, None)
    return ProfileFrame(name, file, line + 1 if line >= 0 else None, library)


def _url_path(url: str) -> str:
    return unquote(urlsplit(url).path) if url.startswith("file:") else url


def _mapped(maps: ScriptMaps, file: str, line: int, column: int) -> tuple[str, int]:
    """A zero-based place of ``file`` as its source map shows it (one-based)."""
    found = maps.of_file(file) if os.path.isabs(file) else None
    original = found.original(line, max(column, 0)) if found is not None else None
    return (original[0], original[1] + 1) if original is not None else (file, line + 1)


def _package(file: str) -> str | None:
    """The npm package a file is of (None: the program's own)."""
    parts = file.split("/node_modules/")
    if len(parts) < 2:
        return None
    names = parts[-1].split("/")
    return "/".join(names[:2]) if names[0].startswith("@") else names[0]


def _listening(stderr: IO[bytes], wait: float) -> str | None:
    """The inspector's WebSocket URL, from node's first lines on stderr."""
    found: list[str] = []

    def read() -> None:
        for raw in stderr:
            match = _LISTENING.search(raw.decode(errors="replace"))
            if match:
                found.append(match.group(1))
                return

    reader = threading.Thread(target=read, name="node-listening", daemon=True)
    reader.start()
    reader.join(wait)
    return found[0] if found else None


def _copy_stderr(stderr: IO[bytes], output: Path) -> None:
    """The program's stderr after the inspector's first line, into its
    output file, without the inspector's own notices."""
    with output.open("ab") as out:
        for raw in stderr:
            if not _NOTICE.match(raw.decode(errors="replace")):
                out.write(raw)


def _tail(output: Path, lines: int = 8) -> str:
    try:
        text = output.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join([line for line in text.splitlines() if line.strip()][-lines:])


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Nothing of the program outlives its recording: its process group
    is killed once the profile is in."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
