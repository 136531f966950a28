"""The words of memory: where a program's bytes went (`dbg heap`) and what
it never gave back (`dbg leaks`).

A heap profiler answers a :class:`~dbgcore.vocab.profiles.Profile` whose
unit is ``"bytes"``: its samples are the stacks that held the heap at its
peak, each weighted by the bytes they held (so `dbg hot` ranks allocation
sites by bytes, and `dbg profile diff` compares two runs), and its
:attr:`~dbgcore.vocab.profiles.Profile.timeline` is the heap over the run,
one :class:`HeapPoint` a snapshot. A leak checker answers
:attr:`~dbgcore.vocab.profiles.Profile.leaks`, one :class:`Leak` per loss
record. The questions (the peak, which sites grow, the leaks by site) are
answered here, so a plugin only parses its tool's files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from dbgcore.shared.jsontypes import JsonObject
from dbgcore.vocab.profiles import LOSS_KINDS, HeapPoint, Leak, ProfileFrame, Sample

__all__ = ["LOSS_KINDS", "HeapAnswer", "LeakSite", "SiteGrowth", "heap_answer", "leak_sites",
           "site_key", "site_of", "size"]

def site_of(frames: tuple[ProfileFrame, ...]) -> ProfileFrame:
    """Where an allocation was made, for an answer: the innermost of the
    program's own frames (a fix goes there, not into ``malloc`` or
    ``strdup``), else the innermost frame. ``frames`` outermost first."""
    for frame in reversed(frames):
        if frame.library is None:
            return frame
    return frames[-1] if frames else ProfileFrame("??")


def site_key(frame: ProfileFrame) -> tuple[str, str | None, int | None]:
    return (frame.function, frame.file, frame.line)


@dataclass
class SiteGrowth:
    """One allocation site over the run: its bytes at the peak, at the
    first and the last detailed snapshot, and whether it kept growing (it
    never shrank by more than a tenth between snapshots, and ended larger
    than it began)."""

    site: ProfileFrame
    peak: float
    first: float
    last: float
    points: int
    growing: bool

    def to_dict(self, whole: float) -> JsonObject:
        share = round(100.0 * self.peak / whole, 1) if whole else 0.0
        return {"function": self.site.function, "file": self.site.file,
                "line": self.site.line, "library": self.site.library,
                "bytes": int(self.peak), "share": share, "first": int(self.first),
                "last": int(self.last), "snapshots": self.points, "growing": self.growing}


@dataclass
class HeapAnswer:
    """What `dbg heap` says of a profile: the peak (its bytes and time),
    the heap at the end, and the allocation sites at the peak, the heaviest
    first, each with its growth."""

    peak: float
    peak_time: float
    end: float
    snapshots: int
    sites: list[SiteGrowth] = field(default_factory=list)
    #: The bytes at the peak, by site (sums to the peak but for rounding).
    whole: float = 0.0


def _by_site(stacks: list[Sample]) -> dict[tuple[str, str | None, int | None],
                                            tuple[ProfileFrame, float]]:
    out: dict[tuple[str, str | None, int | None], tuple[ProfileFrame, float]] = {}
    for sample in stacks:
        site = site_of(sample.frames)
        key = site_key(site)
        was = out.get(key)
        out[key] = (site, (was[1] if was else 0.0) + sample.weight)
    return out


def heap_answer(samples: list[Sample], timeline: list[HeapPoint]) -> HeapAnswer:
    """The peak and the sites at it (from ``samples``, the peak's stacks),
    each site's bytes followed over the timeline's detailed snapshots."""
    peak_point = max(timeline, key=lambda p: p.heap, default=None)
    at_peak = _by_site(samples)
    detailed = [p for p in timeline if p.stacks is not None]
    series: dict[tuple[str, str | None, int | None], list[float]] = {
        key: [] for key in at_peak}
    for point in detailed:
        seen = _by_site(point.stacks or [])
        for key, values in series.items():
            values.append(seen[key][1] if key in seen else 0.0)
    sites = []
    for key, (site, peak) in at_peak.items():
        values = series[key]
        # From the site's first appearance on: a site made late in the run
        # is not "shrinking" from the zeros before it.
        begun = next((i for i, v in enumerate(values) if v > 0), len(values))
        values = values[begun:]
        growing = len(values) >= 2 and values[-1] > values[0] and all(
            later >= 0.9 * earlier for earlier, later in pairwise(values))
        sites.append(SiteGrowth(site, peak, values[0] if values else peak,
                                values[-1] if values else peak, len(values), growing))
    sites.sort(key=lambda s: (-s.peak, s.site.function))
    end = timeline[-1].heap if timeline else 0.0
    whole = sum(s.weight for s in samples)
    return HeapAnswer(peak_point.heap if peak_point else whole,
                      peak_point.time if peak_point else 0.0, end, len(timeline), sites,
                      whole)


@dataclass
class LeakSite:
    """The loss records of one allocation site, one kind of loss: their
    bytes and blocks summed, with the stack of the largest."""

    kind: str
    site: ProfileFrame
    bytes: int
    blocks: int
    records: int
    frames: tuple[ProfileFrame, ...]

    def to_dict(self) -> JsonObject:
        return {"kind": self.kind, "function": self.site.function, "file": self.site.file,
                "line": self.site.line, "bytes": self.bytes, "blocks": self.blocks,
                "records": self.records, "stack": [f.to_dict() for f in self.frames]}


def leak_sites(leaks: list[Leak]) -> list[LeakSite]:
    """The loss records grouped by kind and allocation site (the innermost
    of the program's frames), the surest kind first, then the most bytes."""
    found: dict[tuple[str, tuple[str, str | None, int | None]], LeakSite] = {}
    # The largest record first: a group's stack is its largest record's.
    for leak in sorted(leaks, key=lambda r: -r.bytes):
        site = site_of(tuple(reversed(leak.frames)))
        key = (leak.kind, site_key(site))
        group = found.get(key)
        if group is None:
            found[key] = LeakSite(leak.kind, site, leak.bytes, leak.blocks, 1, leak.frames)
            continue
        group.bytes += leak.bytes
        group.blocks += leak.blocks
        group.records += 1
    rank = {kind: i for i, kind in enumerate(LOSS_KINDS)}
    return sorted(found.values(), key=lambda g: (rank.get(g.kind, len(rank)), -g.bytes,
                                                 g.site.function))


def size(amount: float) -> str:
    """Bytes as a person reads them: ``980 B``, ``3.9 KiB``, ``1.2 MiB``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(amount) >= scale:
            return f"{amount / scale:.1f} {unit}"
    return f"{int(amount)} B"
