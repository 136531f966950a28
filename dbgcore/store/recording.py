"""What an op records while the program runs, kept in the store as it comes.

`dbg trace` and `dbg history --at` run the program on for seconds or
minutes, recording as they go. Kept in memory until the op ends, all of it
would be lost with a daemon killed meanwhile; so each record is handed to a
:class:`Batches`, whose writer thread writes what has come in one
transaction every :data:`FLUSH_SECONDS` (sooner once :data:`FLUSH_RECORDS`
wait): a SIGKILL loses at most the last fraction of a second, and a trace of
thousands of calls a second still costs the store a few writes a second.

Two kinds of record use it now, each a small class that turns its records
into the store's rows: :class:`StoredCalls` (a trace's calls, a
:class:`dbgcore.vocab.traces.CallSink`) and :class:`StoredSamples` (values an op
samples, by kind: `history --at`'s now; a profiler's samples would be one
more kind of the same). The run they belong to was written when it began,
and its end is written when it ends, so a run whose end was never written
reads as cut short (:func:`dbgcore.store.runstate.run_state`), not as one that
ended.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from dbgcore.shared.jsontypes import JsonObject

if TYPE_CHECKING:
    from types import TracebackType

    from dbgcore.store.db import Store
    from dbgcore.vocab.traces import CallRecord

#: The longest a record waits to be written, in seconds.
FLUSH_SECONDS = 0.2
#: Records that are written at once, without waiting for the time.
FLUSH_RECORDS = 2000

_Item = TypeVar("_Item")


class Batches(Generic[_Item]):
    """Records put by the thread that records, written by a writer thread
    in batches (``write`` is given each batch, oldest first). A record put
    again under the same key before it was written replaces the unwritten
    one (a call that has ended since: one row, not two). :meth:`close`
    writes what is left and ends the thread."""

    def __init__(self, write: Callable[[list[_Item]], None], name: str,
                 every: float = FLUSH_SECONDS, most: int = FLUSH_RECORDS) -> None:
        self._write = write
        self._every = every
        self._most = most
        self._pending: dict[Hashable, _Item] = {}
        #: When the oldest pending record came.
        self._since = 0.0
        self._closed = False
        self._failure: BaseException | None = None
        self._wake = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=f"dbg-{name}-writer",
                                        daemon=True)
        self._thread.start()

    def put(self, key: Hashable, item: _Item) -> None:
        with self._wake:
            first = not self._pending
            if first:
                self._since = time.monotonic()
            self._pending[key] = item
            if first or len(self._pending) >= self._most:
                self._wake.notify()  # to wait for its time, or to write now

    def close(self) -> None:
        """Write what is left; a write that failed in the writer (not a
        store's error: those are the store's notes) is raised here."""
        with self._wake:
            self._closed = True
            self._wake.notify()
        self._thread.join()
        if self._failure is not None:
            raise self._failure

    def __enter__(self) -> Batches[_Item]:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _take(self) -> tuple[list[_Item], bool]:
        """Wait for a batch that is due; it, and whether it is the last."""
        with self._wake:
            while not self._closed:
                if self._pending:
                    due = self._since + self._every - time.monotonic()
                    if due <= 0 or len(self._pending) >= self._most:
                        break
                    self._wake.wait(due)
                else:
                    self._wake.wait()
            batch = list(self._pending.values())
            self._pending.clear()
            return batch, self._closed

    def _run(self) -> None:
        while True:
            batch, last = self._take()
            if batch and self._failure is None:
                try:
                    self._write(batch)
                except BaseException as exc:  # raised in close(), in the op's thread
                    self._failure = exc
            if last:
                return


class _Stored(Generic[_Item]):
    """What each kind of record shares: the batches that write its records,
    written out and ended by :meth:`close` (or at the end of a ``with``)."""

    _batches: Batches[_Item]

    def close(self) -> None:
        self._batches.close()

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


_Self = TypeVar("_Self", bound=_Stored[Any])


class StoredCalls(_Stored["CallRecord"]):
    """A trace's calls, kept in the store as they are recorded and as they
    end, numbered after the calls the run had before (:attr:`base`)."""

    def __init__(self, store: Store, run_id: int) -> None:
        self.store = store
        self.run_id = run_id
        #: The calls the run had before this trace.
        self.base = store.last_call_seq(run_id) if run_id else 0
        #: The calls written already (their next write replaces the row).
        self._written: set[int] = set()
        #: The calls given so far.
        self._given: set[int] = set()
        self._batches: Batches[CallRecord] = Batches(self._write, "trace")

    def record(self, call: CallRecord) -> None:
        self._given.add(call.seq)
        self._batches.put(call.seq, call)

    def settle(self, calls: list[CallRecord]) -> None:
        """The trace's calls as its outcome has them: any the tracer did not
        give as it went (a backend of another's that records only at the
        end) are kept now."""
        for call in calls:
            if call.seq not in self._given:
                self.record(call)

    def _write(self, calls: list[CallRecord]) -> None:
        from dbgcore.store.db import shifted_call

        new: list[JsonObject] = []
        changed: list[JsonObject] = []
        for call in calls:
            # As the call is now: it may have ended since it was put.
            (changed if call.seq in self._written else new).append(
                shifted_call(call.to_dict(), self.base))
            self._written.add(call.seq)
        self.store.write_calls(self.run_id, new, changed)


class StoredSamples(_Stored[tuple[float, JsonObject]]):
    """Values an op samples in a run, of one ``kind`` (the op: ``history``)
    and ``key`` (what is sampled: history's expression), kept in the store
    as they come. A later kind (a profiler's samples) is another
    StoredSamples, read back with :meth:`dbgcore.store.db.Store.samples`."""

    def __init__(self, store: Store, run_id: int, kind: str, key: str | None) -> None:
        self.store = store
        self.run_id = run_id
        self.kind = kind
        self.key = key
        self._count = 0
        self._batches: Batches[tuple[float, JsonObject]] = Batches(self._write, kind)

    def add(self, sample: JsonObject) -> None:
        self._count += 1
        self._batches.put(self._count, (time.time(), dict(sample)))

    def _write(self, samples: list[tuple[float, JsonObject]]) -> None:
        self.store.record_samples(self.run_id, self.kind, self.key, samples)
