"""Built-in plugin: the profilers of native programs, Linux perf (sampling),
valgrind's callgrind (instruction counts) and Go's pprof (a Go package's
tests), for `dbg profile`.

A plugin of its own beside the Python profilers' (its own entry point), so
each set registers, and is listed by `dbg plugins`, on its own; a program's
kind picks among all of them, the Python profilers first.
"""

from __future__ import annotations

from collections.abc import Callable

from dbgcore.api import Profiler, hookimpl


@hookimpl
def dbg_register_profilers(register: Callable[[type[Profiler]], None]) -> None:
    from dbg_profilers.callgrind import CallgrindProfiler
    from dbg_profilers.perf import PerfProfiler
    from dbg_profilers.pprof import PprofProfiler

    register(PerfProfiler)
    register(CallgrindProfiler)
    register(PprofProfiler)
