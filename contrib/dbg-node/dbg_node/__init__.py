"""dbg plugin: the ``node`` backend, JavaScript under Node.js, and the
``node`` and ``node-heap`` profilers (V8's CPU and sampling heap profilers,
for `dbg profile` and `dbg heap`).

Written against dbg's public plugin API (:mod:`dbgcore.api`) only. The
backend module is imported inside the hook, so dbg commands that never need
it do not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dbgcore.api import Backend, Profiler, hookimpl

#: The backend this plugin registers: a daemon of another backend passes
#: over this plugin's hook (docs/plugins.md).
DBG_BACKEND_IDS = ("node",)


@hookimpl
def dbg_register_backends(register: Callable[[type[Backend]], None]) -> None:
    from dbg_node.backend import NodeBackend

    register(NodeBackend)


@hookimpl
def dbg_register_profilers(register: Callable[[type[Profiler]], None]) -> None:
    from dbg_node.cpuprofile import NodeCpuProfiler
    from dbg_node.heapprofile import NodeHeapProfiler

    register(NodeCpuProfiler)
    register(NodeHeapProfiler)


@hookimpl
def dbg_backend_files(add: Callable[[Path], None]) -> None:
    add(Path(__file__).with_name("backends.yaml"))
