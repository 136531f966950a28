"""The node backend: JavaScript under Node.js, through its inspector.

``node --inspect-brk=127.0.0.1:0 PROGRAM`` runs the program with V8's
inspector listening on a loopback port of the kernel's choosing, paused
before the first line; the URL it prints on stderr is read through the
output pump (which keeps the inspector's notices out of the program's
output). That URL's random id is the only guard of a port every local user
can reach: ``--inspect-publish-uid=stderr`` keeps node from serving it at
``/json/list`` too. Everything else is the inspector protocol: breakpoints by URL,
stepping, pauses, scopes and evaluation on a call frame.

Where V8's meaning differs from dbg's, dbg's wins, as on every backend:
``next`` and ``step`` go by lines (V8 steps by statement and expression, so
it stops at ``i++`` and ``i < n`` of one ``for`` line); ``finish`` stops at
the function's return with its value, then steps out; ``break FUNCTION``
stops at the body's first statement.

The backend is five layers, one module each, each adding what it does:
the connection to the program (:mod:`dbg_node.connection`), execution
(:mod:`dbg_node.execution`), inspection (:mod:`dbg_node.inspection`), the
scope ops (:mod:`dbg_node.scopeops`: `dbg scopes`, `dbg vars`), and
here availability, starting and ending, and the breakpoint ops (kept by
:class:`dbg_node.breaks.Breakpoints`).

TypeScript is built by :mod:`dbg_node.typescript` (tsc --sourceMap, before
the launch) and shown through the scripts' source maps
(:mod:`dbg_node.mapped`, decoded by :mod:`dbg_node.sourcemap`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import ClassVar

from dbgcore.api import (
    AttachRequest,
    BackendSpec,
    BreakLoc,
    BreakOptions,
    Breakpoint,
    LaunchRequest,
    OpFailed,
    OutputPump,
    Readiness,
    StopEvent,
    Support,
    UsageError,
    procutil,
)

from dbg_node.breaks import entry_point
from dbg_node.inspector import Inspector, inspector_url
from dbg_node.messages import JsonObject
from dbg_node.scopeops import NodeScopes

LISTENING = re.compile(r"Debugger listening on (ws://\S+)")
#: What the inspector itself writes on the program's stderr.
NOTICES = re.compile(
    r"^(?:Debugger listening on ws://\S+|For help, see: https://nodejs\.org/\S*|"
    r"Debugger attached\.|Debugger ending on ws://\S+|"
    r"Waiting for the debugger to disconnect\.\.\.)\n", re.M)
#: The least time node has to start (or its inspector to take an attach)
#: and stop the program, whatever --timeout: node's start under load is slow.
START_FLOOR = 10.0
#: How many frames of async callers V8 keeps for each pause (DevTools: 32),
#: unless backends.yaml's ``options.async_depth`` says (0: none). Keeping
#: them costs the program: a loop of 200,000 awaits ran 4 to 6 times as long
#: with them (node 20); a start costs the same either way.
ASYNC_DEPTH = 32
#: The most async_depth may be.
ASYNC_DEPTH_MOST = 1000
#: How long each of the requests that let an attached program go on may
#: take at the session's end (the program may be gone already).
DETACH_TIMEOUT = 2.0


class NodeBackend(NodeScopes):
    id = "node"
    tool = "node"
    reads_stdin = True
    features: ClassVar[dict[str, Support]] = {
        "break-if": "native", "return-value": "native", "pending": "native"}
    unsupported_hints: ClassVar[dict[str, str]] = {
        "watch": "V8 has no watchpoints; `dbg break FILE:LINE --if 'x !== OLD'` stops where "
                 "a value changes, `dbg display EXPR` shows it at every stop",
    }


    # -- availability ------------------------------------------------------------------

    @classmethod
    def check(cls, spec: BackendSpec) -> Readiness:
        node = _node(spec)
        if not node:
            return Readiness(False, f"{spec.command[0] if spec.command else 'node'} not found")
        # A start asks twice (is node ready, then its version for the
        # answer): each `node --version` forked from the daemon cost 10-25
        # ms of the start. The answer is kept in DBG_HOME for that very file.
        from dbgcore.api import file_key, recall, remember

        key = file_key(node)
        out = recall(_version_cache(), key) if key else ""
        if not out:
            try:
                out = subprocess.run([node, "--version"], capture_output=True, text=True,
                                     timeout=10).stdout.strip()
            except (OSError, subprocess.SubprocessError) as exc:
                return Readiness(False, f"{node} does not run: {exc}")
            if key and re.fullmatch(r"v\d+\.\d+\.\d+\S*", out):
                remember(_version_cache(), key, out)
        version = out.lstrip("v")
        major = int(version.split(".")[0]) if version.split(".")[0].isdigit() else 0
        if major < 16:
            return Readiness(False, f"{node} is Node.js {out or '?'}; dbg needs 16 or newer")
        return Readiness(True, f"{node} (Node.js {version})", version)

    @classmethod
    def check_program(cls, spec: BackendSpec, program: Path) -> None:
        entry_point(program)

    @classmethod
    def build_command(cls, spec: BackendSpec, program: Path,
                      out: Path) -> tuple[list[str], Path] | None:
        from dbg_node.typescript import build_command

        return build_command(spec, program, out)

    # -- lifecycle ----------------------------------------------------------------------

    def launch(self, request: LaunchRequest, timeout: float) -> StopEvent:
        if request.module:
            raise UsageError("node runs a file or a folder with a package.json, not -m MODULE")
        program = entry_point(Path(request.program))
        _async_depth(self.spec)  # a wrong setting is said before node starts
        self.cwd = request.cwd or os.getcwd()
        self.root = str(_program_root(program, self.ctx.run_dir))
        self.pump = OutputPump(self.ctx.run_dir, "node", self.ctx.output, self._notices)
        # The inspector's port is open to every local user for the whole
        # session; its only guard is the random id in its WebSocket URL, which
        # node also serves to anyone at /json/list unless told to print it on
        # stderr alone (our pump's file, in the private run folder).
        argv = [_node(self.spec) or "node", "--inspect-brk=127.0.0.1:0",
                "--inspect-publish-uid=stderr",
                *self.spec.options.get("node_args", []), str(program), *request.args]
        env = {**os.environ, **request.env}
        # The program's stdin: dbg's FIFO (it opens at once, dbg holds the
        # write end) or the user's file.
        with open(self.pump.paths["stdout"], "wb") as out, \
                open(self.pump.paths["stderr"], "wb") as err, \
                open(request.stdin or os.devnull, "rb") as stdin:
            command, preexec = procutil.bound_to_parent(argv, env, self.cwd)
            self.proc = subprocess.Popen(
                command, cwd=self.cwd, env=env, stdin=stdin, stdout=out, stderr=err,
                start_new_session=True, preexec_fn=preexec)
        self.ctx.track_process(self.proc.pid, "node")
        self.ctx.log.note(f"started {' '.join(argv)} (pid {self.proc.pid})")
        # websockets (with http.client and email) takes 40 ms or more to
        # import in a daemon; node takes ~85 ms to open its inspector: the
        # import happens meanwhile, on a thread of its own.
        threading.Thread(target=_import_websockets, name="node-import", daemon=True).start()
        deadline = time.monotonic() + max(timeout, START_FLOOR)
        while not self._url_seen.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.pump.drain()
                said = self.ctx.output.read(0, {"stderr"})
                raise OpFailed(f"node did not start {program}: "
                               f"{_said(said) or f'exit code {self.proc.poll()}'}")
        assert self._url is not None
        self._connect(self._url, request.stop_on_uncaught, timeout)
        self.call("Runtime.runIfWaitingForDebugger", None, timeout)
        event = self._wait_stop(max(timeout, START_FLOOR), timeout, "entry")
        if event.state == "running":
            raise OpFailed("node did not stop at the program's first line")
        if request.before_run is not None and event.state == "stopped" \
                and event.reason == "entry":
            # `start --run`: the breakpoints go in at --inspect-brk's stop,
            # and the program runs on at once, with no snapshot of a stop
            # nobody sees (its locals: a request, a source read, a row).
            request.before_run()
            event = self.cont(timeout)
        return event

    def attach(self, request: AttachRequest, timeout: float) -> StopEvent:
        if request.port is None:
            raise UsageError(
                "node attaches to an inspector port, not a pid",
                "start the program with `node --inspect=127.0.0.1:PORT` (or send it SIGUSR1, "
                "which opens 127.0.0.1:9229) and run `dbg attach --backend node --port PORT`")
        host = request.host or "127.0.0.1"
        url = inspector_url(host, request.port, timeout)
        self._attached = True
        self._connect(url, True, timeout)
        self.call("Runtime.runIfWaitingForDebugger", None, timeout)
        self.call("Debugger.pause", None, timeout)
        return self._wait_stop(max(timeout, START_FLOOR), timeout, "attach")

    def _connect(self, url: str, stop_on_uncaught: bool, timeout: float) -> None:
        self.inspector = Inspector(url, self.ctx.log, max(timeout, START_FLOOR))
        # Sent together: node takes them in order, one round trip for all.
        self.inspector.call_all([
            ("Runtime.enable", None),
            ("Debugger.enable", {"maxScriptsCacheSize": 10_000_000}),
            # Each pause then carries its async callers (what awaits this
            # call, where a .then was set): V8 keeps that many frames of
            # them for every promise and timer while the program runs.
            ("Debugger.setAsyncCallStackDepth", {"maxDepth": _async_depth(self.spec)}),
            # Stepping never goes into Node's own JavaScript (console.log...).
            ("Debugger.setBlackboxPatterns", {"patterns": ["^node:"]}),
            ("Debugger.setPauseOnExceptions",
             {"state": "uncaught" if stop_on_uncaught else "none"}),
        ], timeout)

    def _notices(self, category: str, text: str) -> str:
        """The program's stderr without the inspector's own notices; the
        first of them says where the inspector listens."""
        if category != "stderr":
            return text
        if not self._url_seen.is_set():
            found = LISTENING.search(text)
            if found:
                self._url = found.group(1)
                self._url_seen.set()
        return NOTICES.sub("", text)

    def terminate(self) -> None:
        inspector, self.inspector = self.inspector, None
        if inspector is not None:
            if self._attached and not inspector.closed.is_set():
                for method in ("Debugger.disable", "Runtime.runIfWaitingForDebugger"):
                    try:
                        inspector.call(method, None, DETACH_TIMEOUT)
                    except Exception:  # the program may be gone; it must not stop the end
                        pass
            try:
                inspector.close()
            except Exception:
                pass
        if self.proc is not None:
            procutil.terminate_groups([self.proc.pid], self.ctx.shutdown_grace,
                                      reap=[self.proc.pid])
        if self.pump is not None:
            self.pump.close()
        self._state = "exited"

    # -- breakpoints ---------------------------------------------------------------------------

    def set_breakpoint(self, loc: BreakLoc, options: BreakOptions,
                       timeout: float) -> Breakpoint:
        return self.breaks.add(loc, options, timeout)

    def remove_breakpoint(self, bp_id: int | str, timeout: float) -> None:
        self.breaks.remove(bp_id, timeout)

    def list_breakpoints(self, timeout: float) -> list[Breakpoint]:
        return self.breaks.listing()


# -- helpers --------------------------------------------------------------------------------------


def _node(spec: BackendSpec) -> str | None:
    """Where the entry's command (default ``node``) is on PATH."""
    return shutil.which(spec.command[0] if spec.command else "node")


def _program_root(program: Path, run_dir: Path) -> Path:
    """Where the program's own JavaScript is: its folder, or for one dbg
    built into the session's folder (TypeScript) the whole build, whose
    modules may sit beside or above the entry's folder (a project's
    src/index.js and lib/)."""
    try:
        inside = program.relative_to(run_dir.resolve())
    except ValueError:
        return program.parent
    return run_dir.resolve() / inside.parts[0] if len(inside.parts) > 1 else program.parent


def _async_depth(spec: BackendSpec) -> int:
    """backends.yaml's ``options.async_depth``, or ASYNC_DEPTH."""
    depth = spec.options.get("async_depth", ASYNC_DEPTH)
    if isinstance(depth, bool) or not isinstance(depth, int) \
            or not 0 <= depth <= ASYNC_DEPTH_MOST:
        raise UsageError(f"node's options.async_depth in backends.yaml is {depth!r}",
                         f"give a whole number of async caller frames, 0 (none) to "
                         f"{ASYNC_DEPTH_MOST}; {ASYNC_DEPTH} when not given")
    return depth


def _version_cache() -> Path:
    from dbgcore.api import dbg_home

    return dbg_home() / "node-versions.json"


def _import_websockets() -> None:
    try:
        import websockets.exceptions
        import websockets.sync.client  # noqa: F401
    except ImportError:
        pass  # said where Inspector imports it


def _said(page: JsonObject) -> str:
    """The last line of a page of ``OutputBuffer.read``."""
    said = "".join(chunk["text"] for chunk in page["chunks"]).strip()
    return said.splitlines()[-1] if said else ""
