"""Built-in plugin: the memory profilers, valgrind's massif (`dbg heap` of a
native program), memcheck (`dbg leaks`) and tracemalloc (`dbg heap` of a
Python program).

A plugin of its own (entry point ``memory``), beside the time profilers of
:mod:`dbg_profilers`: what it registers measures memory, not time, and it
can be blocked (``DBG_BLOCK_PLUGINS``) without losing `dbg profile`.
"""

from __future__ import annotations

from collections.abc import Callable

from dbgcore.api import Profiler, hookimpl


@hookimpl
def dbg_register_profilers(register: Callable[[type[Profiler]], None]) -> None:
    from dbg_profilers.massif import MassifProfiler
    from dbg_profilers.memcheck import MemcheckLeaks
    from dbg_profilers.pyheap import TracemallocProfiler

    register(MassifProfiler)
    register(TracemallocProfiler)
    register(MemcheckLeaks)
