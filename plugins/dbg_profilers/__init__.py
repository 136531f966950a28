"""Built-in plugin: the profilers of Python programs, py-spy (sampling) and
cProfile (deterministic counts), for `dbg profile`.

They register through the same hook a third-party profiler uses
(``dbg_register_profilers``); py-spy first, so a Python program is sampled
unless ``--tool cprofile`` asks for exact counts.
"""

from __future__ import annotations

from collections.abc import Callable

from dbgcore.api import Profiler, hookimpl


@hookimpl
def dbg_register_profilers(register: Callable[[type[Profiler]], None]) -> None:
    from dbg_profilers.cprofile import CProfileProfiler
    from dbg_profilers.pyspy import PySpyProfiler

    register(PySpyProfiler)
    register(CProfileProfiler)
