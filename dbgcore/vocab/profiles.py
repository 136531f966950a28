"""The words of a profile: where a program's time went, as a profiler saw it.

A profiler answers in one of two shapes, and a :class:`Profile` holds either:

- **stacks** (a sampler: py-spy, perf): each :class:`Sample` is one stack,
  outermost frame first, with its weight (how many times it was seen);
- **edges** (a deterministic profiler: cProfile): each sample is one call
  edge, ``(caller, callee)`` (or ``(callee,)`` for a root), whose weight is
  the callee's own time under that caller, ``total`` its time with what it
  called, and ``calls`` how often it was called from there.

The questions asked of a profile (`dbg hot`, `callers`, `callees`) are
answered here, by the same rules for both shapes, so the store, the ops and
a plugin's profiler share one reading of the numbers. Library frames (the
standard library's, an installed package's: :attr:`ProfileFrame.library`)
are folded into the program's frame that called them unless asked, since
an agent fixes the program's code, not ``re._compile``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from dbgcore.shared.jsontypes import JsonObject

#: The two shapes of a profile (see the module's docstring).
STACKS = "stacks"
EDGES = "edges"
#: What `dbg hot` may rank by.
BY = ("function", "line", "file")


@dataclass(frozen=True)
class ProfileFrame:
    """One frame as a profiler names it. ``line``: in a sampled stack, the
    line the frame was at (a call site, for all but the innermost); in an
    edge, the function's first line. ``library``: the library's name
    (``re``, ``requests``), None for the program's own code."""

    function: str
    file: str | None = None
    line: int | None = None
    library: str | None = None

    def to_dict(self) -> JsonObject:
        return {"function": self.function, "file": self.file, "line": self.line,
                "library": self.library}

    @classmethod
    def from_dict(cls, raw: JsonObject) -> ProfileFrame:
        line = raw.get("line")
        return cls(str(raw.get("function") or "??"), raw.get("file") or None,
                   int(line) if isinstance(line, int) else None, raw.get("library") or None)


@dataclass
class Sample:
    """A stack seen ``weight`` times, or one call edge (see the module's
    docstring): frames outermost first."""

    frames: tuple[ProfileFrame, ...]
    weight: float
    thread: str | None = None
    total: float | None = None
    calls: int | None = None


#: A leak checker's kinds of loss, the surest first (valgrind's words).
LOSS_KINDS = ("definitely", "indirectly", "possibly")


@dataclass
class HeapPoint:
    """The heap at one moment: ``time`` in seconds from the start of the
    recording, ``heap`` the bytes the program had asked for and not freed,
    and, for a detailed snapshot, the stacks holding them (``stacks``:
    samples outermost frame first, weights in bytes; None when the
    snapshot has only the total)."""

    time: float
    heap: float
    stacks: list[Sample] | None = None


@dataclass
class Leak:
    """One loss record: ``bytes`` in ``blocks`` never freed, of a
    :data:`LOSS_KINDS` kind, allocated by ``frames`` (innermost first, as a
    leak checker tells it: the allocator, then its callers)."""

    kind: str
    bytes: int
    blocks: int
    frames: tuple[ProfileFrame, ...] = ()


@dataclass
class Profile:
    """What one profiler recorded of one run. ``unit``: what a weight
    counts ("samples", "seconds", or "bytes" for a heap profiler's);
    ``rate``: samples a second, for a sampler (a sample's weight over it is seconds)."""

    tool: str
    shape: str
    unit: str
    samples: list[Sample] = field(default_factory=list)
    rate: float | None = None
    duration: float = 0.0
    exit_code: int | None = None
    pid: int | None = None
    note: str = ""
    #: The last lines the program wrote, when it failed.
    output: str = ""
    #: A heap profiler's snapshots over the run (unit "bytes"; see
    #: :mod:`dbgcore.vocab.heaps`): answered, not kept in the store.
    timeline: list[HeapPoint] = field(default_factory=list)
    #: A leak checker's loss records (answered, not kept in the store).
    leaks: list[Leak] = field(default_factory=list)

    @property
    def total_weight(self) -> float:
        """Everything the profile counts: every sample, or every function's
        own time."""
        return sum(s.weight for s in self.samples)


@dataclass
class Share:
    """One row of an answer: a function (or a line, a file, a call site)
    with its own and its total weight, and how often it was called (a
    deterministic profile only)."""

    key: tuple[str, str | None, int | None]
    self_weight: float = 0.0
    total_weight: float = 0.0
    calls: int | None = None
    library: str | None = None

    def to_dict(self, whole: float) -> JsonObject:
        name, file, line = self.key
        row: JsonObject = {"function": name, "file": file, "line": line, "library": self.library,
                           "self": round(self.self_weight, 6),
                           "total": round(self.total_weight, 6),
                           "self_share": share(self.self_weight, whole),
                           "total_share": share(self.total_weight, whole)}
        if self.calls is not None:
            row["calls"] = self.calls
        return row


def share(part: float, whole: float) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def _key(frame: ProfileFrame, by: str) -> tuple[str, str | None, int | None]:
    if by == "line":
        return (frame.function, frame.file, frame.line)
    if by == "file":
        return (frame.file or "?", frame.file, None)
    return (frame.function, frame.file, None)


def matches(frame: ProfileFrame, name: str) -> bool:
    """Whether ``frame`` is the function ``name`` names: its name, its last
    dotted part (``get`` for ``Tokenizer.get``, ``find`` for Go's
    ``example.com/pkg.find``), its last part after ``::`` (``find`` for
    Rust's ``scan::find``, C++'s ``ns::find``), or ``FILE:FUNCTION``."""
    if ":" in name and not name.startswith("<") and "::" not in name:
        file, _, function = name.rpartition(":")
        return bool(frame.file) and str(frame.file).endswith(file) and matches(frame, function)
    return (frame.function == name or frame.function.endswith("." + name)
            or frame.function.endswith("::" + name))


# -- `dbg hot` --------------------------------------------------------------------------


@dataclass
class HotAnswer:
    rows: list[Share]
    whole: float
    #: Library functions folded into their program callers, and their weight.
    folded: int = 0
    folded_weight: float = 0.0


def hot(profile: Profile, by: str = "function", fold: bool = True) -> HotAnswer:
    """Each function's (line's, file's) own and total weight, heaviest own
    first. Folded (``fold``): a library frame's weight goes to the program
    frame that called into the library, and the library functions so folded
    are counted."""
    if profile.shape == EDGES:
        return _hot_edges(profile, by, fold)
    rows: dict[tuple[str, str | None, int | None], Share] = {}
    folded: set[tuple[str, str | None]] = set()
    folded_weight = 0.0
    for sample in profile.samples:
        frames = sample.frames
        if fold:
            kept = [f for f in frames if f.library is None]
            gone = [f for f in frames if f.library is not None]
            if kept and frames and frames[-1].library is not None:
                folded_weight += sample.weight
            folded |= {(f.function, f.file) for f in gone}
            # A stack of library code only (the interpreter's start, an
            # import) is told by its outermost frame, the rest folded in.
            frames = tuple(kept) if kept else frames[:1]
        if not frames:
            continue
        leaf = _key(frames[-1], by)
        rows.setdefault(leaf, Share(leaf, library=frames[-1].library)).self_weight += \
            sample.weight
        for key, frame in {_key(f, by): f for f in frames}.items():
            rows.setdefault(key, Share(key, library=frame.library)).total_weight += \
                sample.weight
    ranked = sorted(rows.values(), key=lambda r: (-r.self_weight, -r.total_weight, r.key[0]))
    return HotAnswer(ranked, profile.total_weight, len(folded), folded_weight)


def _hot_edges(profile: Profile, by: str, fold: bool) -> HotAnswer:
    own: dict[ProfileFrame, float] = defaultdict(float)
    total: dict[ProfileFrame, float] = defaultdict(float)
    calls: dict[ProfileFrame, int] = defaultdict(int)
    for sample in profile.samples:
        callee = sample.frames[-1]
        own[callee] += sample.weight
        total[callee] += sample.total if sample.total is not None else sample.weight
        calls[callee] += sample.calls or 0
    folded = 0
    folded_weight = 0.0
    if fold:
        shares = _program_shares(profile)
        for frame in [f for f in own if f.library is not None]:
            weight = own.pop(frame)
            total.pop(frame, None)
            calls.pop(frame, None)
            folded += 1
            folded_weight += weight
            for owner, part in shares(frame).items():
                own[owner] += weight * part
    rows: dict[tuple[str, str | None, int | None], Share] = {}
    for frame in set(own) | set(total):
        key = _key(frame, by)
        row = rows.setdefault(key, Share(key, calls=0, library=frame.library))
        row.self_weight += own.get(frame, 0.0)
        row.total_weight += total.get(frame, 0.0)
        row.calls = (row.calls or 0) + calls.get(frame, 0)
    ranked = sorted(rows.values(), key=lambda r: (-r.self_weight, -r.total_weight, r.key[0]))
    return HotAnswer(ranked, profile.total_weight, folded, folded_weight)


def _program_shares(profile: Profile) -> _Shares:
    """For a library function of an edge profile, which program functions
    its time belongs to, and in what part: its callers' by the time each
    call edge took, followed up through library callers to the first
    program ones (a cycle among libraries is cut)."""
    callers: dict[ProfileFrame, list[tuple[ProfileFrame, float]]] = defaultdict(list)
    for sample in profile.samples:
        if len(sample.frames) == 2:
            weight = sample.total if sample.total is not None else sample.weight
            callers[sample.frames[1]].append((sample.frames[0], weight))
    return _Shares(callers)


class _Shares:
    def __init__(self, callers: dict[ProfileFrame, list[tuple[ProfileFrame, float]]]) -> None:
        self.callers = callers
        self.known: dict[ProfileFrame, dict[ProfileFrame, float]] = {}

    def __call__(self, frame: ProfileFrame, seen: frozenset[ProfileFrame] = frozenset()
                 ) -> dict[ProfileFrame, float]:
        if frame in self.known:
            return self.known[frame]
        edges = [(c, w) for c, w in self.callers.get(frame, []) if c not in seen]
        whole = sum(w for _, w in edges)
        out: dict[ProfileFrame, float] = defaultdict(float)
        for caller, weight in edges:
            part = weight / whole if whole else 1.0 / len(edges)
            if caller.library is None:
                out[caller] += part
            else:
                for owner, more in self(caller, seen | {frame}).items():
                    out[owner] += part * more
        self.known[frame] = dict(out)
        return self.known[frame]


# -- `dbg callers`, `dbg callees` -------------------------------------------------------


@dataclass
class CallSites:
    """The call sites of a function (or what it calls), each with the cost
    of the calls through it."""

    function: str
    found: list[ProfileFrame]
    rows: list[Share]
    whole: float
    #: The function's own weight and its total (for `callees`: its own is a row too).
    self_weight: float = 0.0
    total_weight: float = 0.0


def callers(profile: Profile, name: str) -> CallSites:
    """Who calls ``name``, and what each call site cost: in a sampled
    profile each caller's frame at its line (the line of the call), in a
    deterministic one each calling function. A recursive function's
    stack counts each site once."""
    rows: dict[tuple[str, str | None, int | None], Share] = {}
    found: dict[ProfileFrame, None] = {}
    whole_total = 0.0
    own = 0.0
    for sample, index in _occurrences(profile, name):
        frame = sample.frames[index]
        found[_named(frame)] = None
        cost = _cost(sample)
        # Its own time as `dbg hot` counts it: with the library code it
        # called folded in, when it is the program's.
        if profile.shape == EDGES or index == len(sample.frames) - 1 or (
                frame.library is None and all(f.library for f in sample.frames[index + 1:])):
            own += sample.weight
        if index == 0:
            key: tuple[str, str | None, int | None] = ("(the program's entry)", None, None)
        else:
            caller = sample.frames[index - 1]
            key = _key(caller, "line" if profile.shape == STACKS else "function")
        row = rows.setdefault(key, Share(key, calls=0 if sample.calls is not None else None,
                                         library=None if index == 0 else
                                         sample.frames[index - 1].library))
        row.total_weight += cost
        if sample.calls is not None:
            row.calls = (row.calls or 0) + sample.calls
        whole_total += cost
    return CallSites(name, list(found), _ranked(rows), profile.total_weight, own, whole_total)


def callees(profile: Profile, name: str) -> CallSites:
    """What ``name`` calls, and what each call cost: in a sampled profile
    each callee with the line of ``name`` it was called from, in a
    deterministic one each function called. The function's own time is a
    row of its own (``(self)``)."""
    rows: dict[tuple[str, str | None, int | None], Share] = {}
    found: dict[ProfileFrame, None] = {}
    own = 0.0
    total = 0.0
    if profile.shape == EDGES:
        for sample, _ in _occurrences(profile, name):
            found[_named(sample.frames[-1])] = None
            own += sample.weight
            total += _cost(sample)
        for sample in profile.samples:
            if len(sample.frames) == 2 and matches(sample.frames[0], name) \
                    and not matches(sample.frames[1], name):
                key = _key(sample.frames[1], "function")
                row = rows.setdefault(key, Share(key, calls=0, library=sample.frames[1].library))
                row.total_weight += _cost(sample)
                row.calls = (row.calls or 0) + (sample.calls or 0)
    else:
        for sample, index in _occurrences(profile, name):
            frame = sample.frames[index]
            found[_named(frame)] = None
            total += sample.weight
            if index == len(sample.frames) - 1:
                own += sample.weight
                continue
            callee = sample.frames[index + 1]
            key = (callee.function, callee.file, frame.line)
            rows.setdefault(key, Share(key, library=callee.library)).total_weight += \
                sample.weight
    if own:
        rows[("(self)", None, None)] = Share(("(self)", None, None), own, own)
    return CallSites(name, list(found), _ranked(rows), profile.total_weight, own, total)


def _named(frame: ProfileFrame) -> ProfileFrame:
    """A function as found (its file), whatever line its frame was at."""
    return ProfileFrame(frame.function, frame.file, None, frame.library)


def _cost(sample: Sample) -> float:
    return sample.total if sample.total is not None else sample.weight


def _occurrences(profile: Profile, name: str) -> Iterable[tuple[Sample, int]]:
    """Each sample where ``name`` is, with the index of its frame: in a
    stack its outermost frame (a recursion counts once), in an edge the
    callee."""
    for sample in profile.samples:
        if profile.shape == EDGES:
            if matches(sample.frames[-1], name):
                yield sample, len(sample.frames) - 1
            continue
        index = next((i for i, f in enumerate(sample.frames) if matches(f, name)), None)
        if index is not None:
            yield sample, index


def _ranked(rows: dict[tuple[str, str | None, int | None], Share]) -> list[Share]:
    return sorted(rows.values(), key=lambda r: (-r.total_weight, r.key[0]))


def function_names(profile: Profile) -> list[str]:
    """The program's own functions in the profile, heaviest first (for a
    refusal's hint)."""
    return [row.key[0] for row in hot(profile).rows]


# -- `dbg profile diff` ------------------------------------------------------------------


@dataclass
class Change:
    """One function's own time in two runs, in seconds (a sampler's samples
    over its rate) and as a share of each run."""

    function: str
    file: str | None
    before: float
    after: float
    before_share: float
    after_share: float

    def to_dict(self) -> JsonObject:
        return {"function": self.function, "file": self.file,
                "before": round(self.before, 4), "after": round(self.after, 4),
                "change": round(self.after - self.before, 4),
                "before_share": self.before_share, "after_share": self.after_share}


def seconds(profile: Profile, weight: float) -> float:
    """A weight as seconds: a sampler's samples over its rate."""
    if profile.unit == "samples":
        return weight / profile.rate if profile.rate else 0.0
    return weight


def diff(before: Profile, after: Profile) -> list[Change]:
    """Each program function's own time (library frames folded) in both
    runs, the largest change first: what grew and what shrank."""
    def own(profile: Profile) -> tuple[dict[tuple[str, str | None], float], float]:
        found = hot(profile)
        return ({(r.key[0], r.key[1]): r.self_weight for r in found.rows}, found.whole)

    was, was_whole = own(before)
    now, now_whole = own(after)
    out = [Change(name, file, seconds(before, was.get((name, file), 0.0)),
                  seconds(after, now.get((name, file), 0.0)),
                  share(was.get((name, file), 0.0), was_whole),
                  share(now.get((name, file), 0.0), now_whole))
           for name, file in {*was, *now}]
    return sorted(out, key=lambda c: (-abs(c.after - c.before), c.function))
