"""Built-in plugin: the jdb backend (Java's own debugger, over a PTY), and
the jfr profiler (JDK Flight Recorder, for `dbg profile`)."""

from __future__ import annotations

from collections.abc import Callable

from dbgcore.api import Backend, Profiler, hookimpl

#: The backend ids registered below: a session of another backend does not
#: call the hook, which imports this plugin's backend.
DBG_BACKEND_IDS = ("jdb",)


@hookimpl
def dbg_register_backends(register: Callable[[type[Backend]], None]) -> None:
    from dbg_jdb.backend import JdbBackend

    register(JdbBackend)


@hookimpl
def dbg_register_profilers(register: Callable[[type[Profiler]], None]) -> None:
    from dbg_jdb.jfr import JfrProfiler

    register(JfrProfiler)
