"""debugpy's adapter as dbg runs it: ``python dbg_debugpy_adapter.py`` in
place of ``python -m debugpy.adapter``, with no door for other local users.

debugpy's adapter listens on loopback TCP for the whole session: for DAP
clients (a second client attaches a subprocess there), for pydevd in the
debuggee and its subprocesses (the "server" port), and, until it connects,
for its launcher. Any local user can connect to a loopback port. debugpy's
own guard is a token pydevd must present, but the launcher hands it to the
debuggee on its command line (``--adapter-access-token``), where every user
reads it in /proc/PID/cmdline; the launcher's port and the clients' port
take no token at all (a client's ``attach`` with ``listen`` even clears it).

So every listener debugpy opens (``debugpy.common.sockets.serve``) gets a
guard before its handler: a connection is taken only if its other end is
held by the dbg session's daemon (``$DBG_SESSION_PID``) or a process it
started (the adapter, launcher, debuggee and its children), or by the
process ``dbg attach --pid`` names (``$DBG_ATTACH_PID``); any other is
closed before a byte is read or written, and the wait goes on. The check is
dbgcore/transport/peers.py, loaded by path (``$DBG_PEERS``): this interpreter is the
one with debugpy, not necessarily dbg's.

dbg also chooses the adapter's access token (``$DBG_ADAPTER_TOKEN``) instead
of debugpy's random one, so that dbg can start a process that connects to the
server port itself (``DebugpyLaunch.adapter_access_token`` in
dbg_dap/debugpy/launching.py). Both variables are removed from the
environment before anything is started.

Python 3.8 syntax and the standard library only.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import runpy
import socket
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

_PEERS_PATH = os.environ.pop("DBG_PEERS", "")
_SESSION_PID = os.environ.pop("DBG_SESSION_PID", "")
_TOKEN = os.environ.pop("DBG_ADAPTER_TOKEN", "")
_ATTACH_PID = os.environ.pop("DBG_ATTACH_PID", "")
# The launcher's PYTHONPATH (dbg's sitecustomize: debugpy's modules from
# dbg's bytecode on another Python version), not the adapter's own.
_LAUNCHER_PYTHONPATH = os.environ.pop("DBG_LAUNCHER_PYTHONPATH", "")
if _LAUNCHER_PYTHONPATH:
    os.environ["PYTHONPATH"] = _LAUNCHER_PYTHONPATH
    # The launcher skips debugpy's startup report there too (its
    # sitecustomize takes this out of what the program inherits).
    os.environ["DBG_LAUNCHER_QUIET"] = "1"
#: A launcher started with the adapter (adapterboot/dbg_warm_launcher.py).
_WARM_LAUNCHER = os.environ.pop("DBG_WARM_LAUNCHER", "") == "1"
#: Where that launcher keeps how the last launch started its program, to
#: start the next one's ahead (dbg_warm_launcher.py); unset: it does not.
_DEBUGGEE_RECORD = os.environ.pop("DBG_DEBUGGEE_RECORD", "")
_WARM_LAUNCHER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "dbg_warm_launcher.py")
#: pyboot/dbg_debugpy_quiet.py: debugpy's startup report only into a log.
_QUIET_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "pyboot", "dbg_debugpy_quiet.py")


def _load(name: str, path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path!r}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _say(line: str) -> None:
    # The adapter points sys.stderr at /dev/null when it talks DAP on stdio;
    # fd 2 is still dbg's pipe, kept in the adapter's diagnostics.
    try:
        os.write(2, ("dbg-adapter-guard: " + line + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


def _guard(peers: ModuleType, roots: list[int], name: str,
           handler: Callable[[socket.socket], object]) -> Callable[[socket.socket], object]:
    def accept(sock: socket.socket) -> object:
        why = peers.check_accepted(sock, roots)
        if why is None:
            return handler(sock)
        _say(f"refused a {name} connection from {why}")
        try:
            sock.close()
        except OSError:
            pass
        return None

    return accept


class _WarmLauncher:
    """debugpy's launcher started before the launch that needs one: the
    adapter's spawn of a launcher (``subprocess.Popen`` in debugpy's
    ``adapter.launchers``) hands it its command instead, when that command
    is a plain launcher's (no sudo, no log of debugpy's to start: those
    spawn as before). One launch takes it; any later one spawns as before.

    It runs on this interpreter, so only where debugpy's launcher would
    decide the program's command line as on the program's: from Python
    3.11 on (``-X frozen_modules=off``, which older ones ignore)."""

    def __init__(self, subprocess: ModuleType, launcher_dir: str) -> None:
        self._subprocess = subprocess
        self.launcher_dir = launcher_dir
        read_end, self._pipe = os.pipe()
        try:
            devnull = subprocess.DEVNULL
            # As debugpy spawns its launcher when it talks DAP on stdio.
            self._proc: Any = subprocess.Popen(
                [sys.executable, _WARM_LAUNCHER_PATH, str(read_end),
                 *([_DEBUGGEE_RECORD] if _DEBUGGEE_RECORD else [])], stdin=devnull,
                stdout=devnull, stderr=devnull, pass_fds=(read_end,))
        except BaseException:
            os.close(self._pipe)
            raise
        finally:
            os.close(read_end)

    def drop(self) -> None:
        """Close the pipe unused: the launcher ends at once."""
        if self._pipe >= 0:
            os.close(self._pipe)
            self._pipe = -1
        self._proc = None

    def __getattr__(self, name: str) -> Any:
        # debugpy's launchers module uses this in subprocess's place.
        return getattr(self._subprocess, name)

    def Popen(self, args: Any, *rest: Any, **kwargs: Any) -> Any:
        taken, self._proc = self._proc, None
        pipe, self._pipe = self._pipe, -1
        if taken is not None and self._plain(args, rest, kwargs):
            order = {"argv": [str(a) for a in args[1:]], "cwd": kwargs.get("cwd"),
                     "env": kwargs["env"]}
            try:
                with os.fdopen(pipe, "wb") as out:
                    out.write((json.dumps(order) + "\n").encode("utf-8", "surrogateescape"))
                return taken
            except OSError:
                pass  # it is gone: a launcher of its own, as ever
        elif pipe >= 0:
            os.close(pipe)  # unused, it ends
        return self._subprocess.Popen(args, *rest, **kwargs)

    def _plain(self, args: Any, rest: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        """Whether this is the spawn of a launcher as debugpy makes it with
        no log of its own to start (which takes the environment at the
        launcher's start): a list whose second word is the launcher."""
        env = kwargs.get("env")
        return not rest and set(kwargs) <= {"cwd", "env", "stdin", "stdout", "stderr"} \
            and isinstance(args, list) and len(args) > 3 and args[1] == self.launcher_dir \
            and isinstance(env, dict) and "DEBUGPY_LOG_DIR" not in env \
            and "DEBUGPY_LOG_STDERR" not in env


def main() -> None:
    if not _PEERS_PATH or not _SESSION_PID.isdigit():
        sys.exit("dbg_debugpy_adapter: run by dbg only ($DBG_PEERS, $DBG_SESSION_PID)")
    peers = _load("dbg_peers", _PEERS_PATH)
    try:
        quiet: ModuleType | None = _load("dbg_debugpy_quiet", _QUIET_PATH)
    except (ImportError, OSError):
        quiet = None  # debugpy's startup report as it is
    if quiet is not None:
        quiet.lazy_metadata()
    # `dbg attach --pid`: debugpy injects pydevd into that process, which
    # connects from there.
    roots = [int(pid) for pid in (_SESSION_PID, _ATTACH_PID) if pid.isdigit()]

    # The launcher first, before debugpy's adapter is imported (60-120 ms):
    # it starts the program's interpreter ahead as it starts, and a new
    # session's launch comes about 150 ms after this process's spawn.
    warm: _WarmLauncher | None = None
    if _WARM_LAUNCHER and sys.version_info >= (3, 11):
        import subprocess

        found = importlib.util.find_spec("debugpy")
        if found is not None and found.origin:
            with contextlib.suppress(OSError):
                warm = _WarmLauncher(subprocess, os.path.join(
                    os.path.dirname(os.path.abspath(found.origin)), "launcher"))

    from debugpy import adapter
    from debugpy.adapter import clients
    from debugpy.common import log, sockets

    if quiet is not None:
        quiet.quiet_describe(log)

    serve = sockets.serve

    # The rest of serve's arguments are passed on as they come (Any): the
    # debugpy installed is the user's, whose serve may take other ones.
    def guarded_serve(name: str, handler: Callable[[socket.socket], object],
                      *args: Any, **kwargs: Any) -> object:
        return serve(name, _guard(peers, roots, name, handler), *args, **kwargs)

    sockets.serve = guarded_serve

    if _TOKEN:
        serve_clients: Callable[..., object] = clients.serve

        def serve_clients_with_our_token(*args: object, **kwargs: object) -> object:
            # The adapter's main() draws its random token just before it
            # opens the clients' listener: ours replaces it there, before any
            # launcher or pydevd is told it.
            setattr(adapter, "access_token", _TOKEN)  # noqa: B010 (typed None upstream)
            return serve_clients(*args, **kwargs)

        clients.serve = serve_clients_with_our_token

    if warm is not None:
        from debugpy import launcher
        from debugpy.adapter import launchers

        if os.path.dirname(os.path.abspath(launcher.__file__)) == warm.launcher_dir:
            setattr(launchers, "subprocess", warm)  # noqa: B010 (a module of debugpy's)
        else:
            warm.drop()  # not the launcher debugpy spawns: it ends, unused

    sys.argv = ["debugpy.adapter", *sys.argv[1:]]
    runpy.run_module("debugpy.adapter", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
