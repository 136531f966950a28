"""How a debugpy session starts: the adapter's command line and
environment, the launch and attach arguments, and the Python the program
runs under (its interpreter, its search path, its standard library).

The adapter runs under the Python that has debugpy installed (dbg's own by
default); the program under the `python` of the launch. What that
interpreter says of itself is asked once a session (:meth:`python_setup`),
and the other collaborators read it from here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from dbgcore.api import (
    AttachRequest,
    BackendSpec,
    LaunchRequest,
    Location,
    Message,
    PythonSetup,
    Readiness,
    UsageError,
    adapter_secret,
    peers,
)

#: The plugin's folder, where the folders loaded by path are.
_PLUGIN = Path(__file__).parents[1]
PYBOOT = str(_PLUGIN / "pyboot")
#: debugpy's adapter with a guard on each port it listens on (see its docstring).
DEBUGPY_ADAPTER = str(_PLUGIN / "adapterboot" / "dbg_debugpy_adapter.py")
#: The file in DBG_HOME where debugpy's launcher keeps how the last launch
#: started its program (adapterboot/dbg_warm_launcher.py).
DEBUGGEE_RECORD = "debuggee.json"
#: Set: no program's interpreter is started ahead of its launch.
NO_WARM_DEBUGGEE = "DBG_NO_WARM_DEBUGGEE"


class DebugpyLaunch:
    """The start of a session: the adapter, the launch or attach, and the
    program's interpreter."""

    def __init__(self, spec: BackendSpec) -> None:
        self.spec = spec
        #: The launch, its interpreter, and what that says of itself.
        self._request: LaunchRequest | None = None
        self._interpreter = ""
        self._setup: PythonSetup | None = None
        #: A `-m MODULE` launch's entry stop (see _module_entry).
        self.entry: Location | None = None
        #: The adapter's access token: what a pydevd (a debuggee's, a child
        #: process's: `debugpy --connect HOST:PORT --adapter-access-token
        #: TOKEN`) must present on the adapter's server port. dbg chooses it
        #: (debugpy would draw its own) so that dbg can start such a process
        #: itself. Not the guard: debugpy's launcher puts it on the debuggee's
        #: command line, which any local user reads; the adapter's ports take
        #: only connections from the session's own processes (see
        #: adapterboot/dbg_debugpy_adapter.py). The early adapter's, when
        #: one was spawned for this start (dbgcore.start.prespawn).
        self.adapter_access_token = adapter_secret("DBG_ADAPTER_TOKEN")
        #: `dbg attach --pid`: that process connects to the adapter too.
        self._attach_pid: int | None = None

    @property
    def follow_children(self) -> bool:
        """Each child process a session of its own (backends.yaml option
        follow_children, default true); false: children run undebugged, at
        their normal speed (a session per child costs a daemon and a
        connection to the adapter, ~1 s)."""
        return bool(self.spec.options.get("follow_children", True))

    def argv(self) -> list[str]:
        # The adapter runs under the Python that has debugpy installed; the
        # debuggee under `python` from the launch arguments. Not `-m
        # debugpy.adapter` itself: its ports would be open to every local user.
        return [self.python(), DEBUGPY_ADAPTER]

    def adapter_env(self) -> dict[str, str] | None:
        # In the environment, not argv: any user reads a command line in /proc.
        env = {**os.environ, "DBG_PEERS": peers.__file__,
               "DBG_SESSION_PID": str(os.getpid()),
               "DBG_ADAPTER_TOKEN": self.adapter_access_token}
        if self._attach_pid is not None:
            # debugpy injects pydevd into that process, which then connects
            # to the adapter's server port from outside dbg's processes.
            env["DBG_ATTACH_PID"] = str(self._attach_pid)
            # It injects with the `gdb` on PATH. Debian's gdb 13.1 killed the
            # process it injected into on a 6.18 kernel (its interrupted
            # sleep failed with errno 514); the gdb beside dbg's Python
            # (gdb-for-pwndbg, which the gdb backend prefers too) goes first.
            beside = Path(sys.executable).parent
            if os.access(beside / "gdb", os.X_OK):
                env["PATH"] = os.pathsep.join(filter(None, [str(beside), env.get("PATH")]))
        root = self.debugpy_root()
        if root:
            # The adapter's launcher runs on the program's Python too: on
            # another version than dbg's, it compiled its modules at every
            # start (about 90 ms on 3.12). It gets our sitecustomize with
            # only its bytecode loader on (see launch_arguments), through
            # the adapter, which passes this on to it alone
            # (adapterboot/dbg_debugpy_adapter.py).
            from dbgcore.api import dbg_home, private_dir

            previous = os.environ.get("PYTHONPATH", "")
            env["DBG_LAUNCHER_PYTHONPATH"] = PYBOOT + (os.pathsep + previous if previous else "")
            # Code is loaded from there: a folder of the user's own, verified.
            env["DBG_PYC_DIR"] = str(private_dir(dbg_home() / "pyc"))
            env["DBG_DEBUGPY_ROOT"] = root
            if self._attach_pid is None:
                # A launcher waits, started with the adapter, for the launch
                # (adapterboot/dbg_warm_launcher.py); an attach has none.
                env["DBG_WARM_LAUNCHER"] = "1"
                if not os.environ.get(NO_WARM_DEBUGGEE):
                    # It starts the program's interpreter ahead too, as the
                    # last launch started it (adapterboot/dbg_warm_launcher.py).
                    env["DBG_DEBUGGEE_RECORD"] = str(dbg_home() / DEBUGGEE_RECORD)
        return env

    def python(self) -> str:
        configured = self.spec.options.get("adapter_python")
        return str(configured) if configured else sys.executable

    def check(self) -> Readiness:
        if self.python() == sys.executable:
            # Our own interpreter: no need to start another one to ask.
            version = self.version()
            if not version:
                return Readiness(False, f"debugpy is not importable by {sys.executable}")
            return Readiness(True, f"debugpy {version} ({sys.executable})", version)
        try:
            out = subprocess.run(
                [self.python(), "-c", "import debugpy; print(debugpy.__version__)"],
                capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError) as exc:
            return Readiness(False, f"cannot run {self.python()}: {exc}")
        if out.returncode != 0:
            return Readiness(False, f"debugpy is not importable by {self.python()}")
        version = out.stdout.strip()
        return Readiness(True, f"debugpy {version} ({self.python()})", version)

    def debugpy_root(self) -> str:
        """The folder of the debugpy that runs in the program (the adapter's
        launcher gives it the adapter's), or "" when another Python runs it."""
        if self.python() != sys.executable:
            return ""
        import importlib.util

        try:
            spec = importlib.util.find_spec("debugpy")
        except (ImportError, ValueError):
            return ""
        origin = spec.origin if spec is not None else None
        return os.path.dirname(os.path.realpath(origin)) if origin else ""

    def version(self) -> str:
        try:
            import debugpy
        except ImportError:
            return ""
        return str(debugpy.__version__)

    def launch_arguments(self, request: LaunchRequest) -> Message:
        self._request = request
        self._interpreter = _real_python(str(request.options.get("python")
                                             or self.spec.options.get("python")
                                             or _default_python()),
                                         {**os.environ, **request.env}, request.cwd)
        env = dict(request.env)
        # Our sitecustomize on the debuggee's path marks a normal end (see
        # exit_signal) and, unless the tcp_nodelay option is false, sets
        # TCP_NODELAY on the debuggee->adapter socket, which debugpy leaves
        # out: every answer would wait ~40 ms (Nagle + delayed ACK).
        previous = env.get("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
        env["PYTHONPATH"] = PYBOOT + (os.pathsep + previous if previous else "")
        if self.spec.options.get("tcp_nodelay", True):
            env["DBG_TCP_NODELAY"] = "1"
        # pydevd's threads no longer wait 0.5 s for each other as the program
        # ends (pyboot/dbg_boot.py's _wait_for_pydevd_threads).
        env["DBG_PYDEVD_END"] = "1"
        # Nor does the program begin 0.1 s after the handshake is done
        # (pyboot/dbg_boot.py's _NetworkStartTime).
        env["DBG_PYDEVD_START"] = "1"
        # Each stop's facts that a step needs come in its `stopped` event
        # (pyboot/dbg_boot.py's _stop_facts), not by evaluates.
        env["DBG_STOP_FACTS"] = "1"
        # pydevd's side builds no startup report no log keeps (40-65 ms, twice:
        # pyboot/dbg_debugpy_quiet.py).
        env["DBG_DEBUGPY_QUIET"] = "1"
        root = self.debugpy_root()
        if root:
            # debugpy's modules from dbg's bytecode for the program's Python
            # (pyboot/dbg_boot.py's _DebugpyLoader).
            from dbgcore.api import dbg_home, private_dir

            env["DBG_PYC_DIR"] = str(private_dir(dbg_home() / "pyc"))
            env["DBG_DEBUGPY_ROOT"] = root
        if request.test:
            # A test run: the test hook (pyboot/dbg_testhook.py) is given the
            # path of dbg's one rule for a library's file, which it tells the
            # program's code by (dbgcore/inprogram/libfiles.py, beside pyrepr).
            from dbgcore.api import pyrepr

            env["DBG_TEST_RUN"] = os.path.join(os.path.dirname(pyrepr.__file__), "libfiles.py")
            if self.spec.options.get("lazy_tracing", True):
                # Untraced while nothing needs pydevd's tracing (pyboot/dbg_lazytrace.py).
                env["DBG_LAZY_TRACE"] = "1"
        if request.stdin:
            env["DBG_STDIN"] = request.stdin
        if not self.follow_children:
            env["DBG_CHILDREN_UNDEBUGGED"] = "1"
        # `start --run` (and `dbg test`) has no entry stop: no need to ask the
        # interpreter where the module starts (60-250 ms before the launch).
        self.entry = None if request.before_run is not None else self._module_entry(request)
        args: Message = {
            "console": "internalConsole",
            "stopOnEntry": self.entry is None,
            "justMyCode": False,
            # Children (multiprocessing, subprocess of Python, os.fork) are
            # followed: each one's pydevd connects to the adapter, which asks
            # dbg to attach to it (startDebugging), and the child waits until
            # a client does. Off (option follow_children: false), our
            # sitecustomize stops pydevd's tracing in a forked child.
            "subProcess": self.follow_children,
            "redirectOutput": True,
            "showReturnValue": True,
            # dbg's own code in the debuggee (sitecustomize, the test hook) is
            # never stepped into, nor stopped in.
            "rules": [{"path": PYBOOT, "include": False}],
            "env": env,
            "args": request.args,
            "python": [self._interpreter],
        }
        if request.module:
            args["module"] = request.program
        else:
            args["program"] = request.program
        if request.cwd:
            args["cwd"] = request.cwd
        return {**self.spec.launch, **args}

    def attach_server(self, request: AttachRequest) -> tuple[str, int] | None:
        # debugpy.listen() starts debugpy's adapter on that port; the
        # debuggee is connected to that adapter, not to one we would start.
        if request.port is not None:
            return (request.host or "127.0.0.1", request.port)
        return None

    def attach_arguments(self, request: AttachRequest) -> Message:
        # redirectOutput: pydevd copies what the program writes to sys.stdout
        # and sys.stderr into output events (it still writes it where it went).
        common = {"justMyCode": False, "subProcess": self.follow_children, "redirectOutput": True,
                  "showReturnValue": True}
        if request.port is not None:
            return {"connect": {"host": request.host or "127.0.0.1", "port": request.port},
                    **common}
        if request.pid is not None:
            from dbg_dap.debugpy.pidcheck import check_attachable
            from dbg_dap.profile_base import ptrace_diagnosis

            # Refused now, in milliseconds, rather than by the attach's timeout.
            check_attachable(request.pid, ptrace_diagnosis(request.pid))
            _check_same_pid_namespace(request.pid)
            self._attach_pid = request.pid
            return {"processId": request.pid, **common}
        raise UsageError("debugpy attaches with --port or --pid")

    def _module_entry(self, request: LaunchRequest) -> Location | None:
        """For `-m MODULE`: its first line, where pdb stops at entry too.
        debugpy's own stop on entry is at the first line of code it deems
        the user's that runs, which may be a plugin's, dbg's own included."""
        if not request.module:
            return None
        from dbgcore.api import next_python_code_line

        path = self.python_setup().module_file
        line = next_python_code_line(path, 1) if path.endswith(".py") else None
        return Location(os.path.realpath(path), line, "<module>") if line else None

    def python_setup(self) -> PythonSetup:
        """The program's interpreter's own word on its search path and its
        standard library: asked once a session, with the program's
        environment and folder (before it runs, too)."""
        if self._setup is None:
            from dbgcore.api import probe_python

            request = self._request
            if request is None:
                self._setup = PythonSetup(error="attached: dbg did not start its interpreter")
            else:
                program_dir = None if request.module else os.path.dirname(
                    os.path.abspath(os.path.join(request.cwd or "", request.program)))
                self._setup = probe_python(self._interpreter, request.env, request.cwd,
                                           program_dir, request.program if request.module
                                           else None)
        return self._setup


def _default_python() -> str:
    return shutil.which("python3") or sys.executable


def _real_python(python: str, env: Mapping[str, str], cwd: str | None) -> str:
    """The interpreter behind ``python``. Version-manager shims (pyenv's are
    shell scripts) cost about half a second per start, and debugpy starts the
    interpreter twice (its launcher, then the program); what a shim chose is
    kept between sessions (dbgcore.lang.pyprobe.real_python). An executable that
    is not a script is no shim: used as it is, without asking it."""
    from dbgcore.api import real_python

    chosen = real_python(python, env, cwd)
    if chosen != python:
        return chosen
    try:
        with open(python, "rb") as exe:
            if exe.read(4) == b"\x7fELF":
                return python
    except OSError:
        return python
    try:
        out = subprocess.run([python, "-c", "import sys; print(sys.executable)"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return python
    real = out.stdout.strip()
    return real if out.returncode == 0 and real and os.path.exists(real) else python



def _check_same_pid_namespace(pid: int) -> None:
    """Refuse a program in another PID namespace (a container): debugpy's
    adapter waits for the injected pydevd to report the pid it was given,
    and pydevd reports the pid the program sees in its own namespace, so the
    attach would wait out its whole timeout and fail."""
    from dbgcore.api import UnsupportedOp, procutil

    pids = procutil.namespace_pids(pid)
    if len(pids) > 1:
        raise UnsupportedOp(
            "attach --pid to a program in another PID namespace", "debugpy",
            f"it is pid {pids[-1]} in its own namespace, and debugpy matches the pid pydevd "
            "reports: start it with `python -m debugpy --listen 0.0.0.0:5678 ...` (or "
            "debugpy.listen) and `dbg attach --backend debugpy --remote HOST:5678 "
            "--map /app=./src`; docs/remote.md")
