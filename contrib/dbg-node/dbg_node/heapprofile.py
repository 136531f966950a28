"""V8's sampling heap profiler as a dbg memory profiler: where a Node.js
program's memory goes (`dbg heap app.js`).

The program runs under the inspector as for its CPU profile
(:class:`dbg_node.cpuprofile.InspectedRun`); ``HeapProfiler.startSampling``
samples an allocation every few kilobytes with its stack, and
``getSamplingProfile`` answers, at any moment, the sampled allocations that
are still alive, as a tree of call frames with the bytes each holds itself.
Asked every ``--interval`` seconds (and once more at a --duration's cut),
that is the heap over time: the peak is the snapshot that held the most,
and a site that holds more in each snapshot is one that grows. The bytes
are V8's estimate from its samples (its ``samplingInterval``), of the
JavaScript heap: a Buffer's memory outside it is not counted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from dbgcore.api import (
    DbgError,
    HeapPoint,
    Profile,
    ProfileFrame,
    Profiler,
    Readiness,
    RecordRequest,
    Sample,
)

from dbg_node.cpuprofile import InspectedRun, call_frame
from dbg_node.mapped import ScriptMaps

#: Seconds between two snapshots when --interval is not given.
DEFAULT_INTERVAL = 0.25
#: Bytes between two sampled allocations (V8's default is 32 KB: a smaller
#: program's growth would be a handful of samples).
SAMPLING_BYTES = 8192


class NodeHeapProfiler(Profiler):
    id = "node-heap"
    tool_name = "node"
    languages = ("node",)
    extensions = (".js", ".cjs", ".mjs")
    measures = "heap"
    install = "install Node.js 16 or newer (apt install nodejs), so that `node` is on PATH"
    summary = ("V8's sampling heap profiler: a Node.js program's live JavaScript heap by "
               "allocation stack, over its run")

    @classmethod
    def readiness(cls) -> Readiness:
        from dbg_node.cpuprofile import NodeCpuProfiler

        return NodeCpuProfiler.readiness()

    def record(self, request: RecordRequest) -> Profile:
        interval = request.interval or DEFAULT_INTERVAL
        timeline: list[HeapPoint] = []
        # Inlined, a function's allocations are its caller's in V8's samples.
        with InspectedRun(request, self.install, ("--no-turbo-inlining",)) as run:
            inspector = run.inspector

            def snapshot(spent: float) -> None:
                try:
                    raw = inspector.call("HeapProfiler.getSamplingProfile", None,
                                         request.timeout).get("profile") or {}
                except DbgError:
                    return  # the program ended meanwhile: the last snapshot is kept
                stacks = list(heap_samples(raw, ScriptMaps()))
                timeline.append(HeapPoint(round(spent, 3), sum(s.weight for s in stacks),
                                          stacks))

            inspector.call_all([("HeapProfiler.enable", None),
                                ("HeapProfiler.startSampling",
                                 {"samplingInterval": SAMPLING_BYTES})], request.timeout)
            spent = run.run(request.duration, snapshot, interval)
            if not run.ended:
                # Cut at --duration: the heap as it is now. (A program that
                # ended has freed its heap: its last snapshot is the one before.)
                snapshot(spent)
        peak = max(timeline, key=lambda p: p.heap, default=None)
        profile = Profile(self.id, "stacks", "bytes", list(peak.stacks or []) if peak else [],
                          exit_code=run.exit_code, timeline=timeline, duration=spent)
        run.tell(profile)
        return profile


def heap_samples(raw: Mapping[str, Any], maps: ScriptMaps | None = None) -> Iterator[Sample]:
    """The sampling profile's tree as stacks, outermost first, each with
    the bytes its innermost frame holds itself (with ``maps``, at the
    places source maps give)."""
    head = raw.get("head")
    if not isinstance(head, dict):
        return
    todo: list[tuple[Mapping[str, Any], tuple[ProfileFrame, ...]]] = [(head, ())]
    while todo:
        node, outer = todo.pop()
        call = node.get("callFrame") or {}
        here = outer if call.get("functionName") == "(root)" else (*outer, call_frame(call, maps))
        size = float(node.get("selfSize") or 0)
        if size and here:
            yield Sample(here, size, "main")
        todo.extend((child, here) for child in node.get("children") or ())
