"""What a profiler recorded of a run (`dbg profile`), in the store's tables
``profiles`` and ``profile_samples`` (their schema is the store's, in
:mod:`dbgcore.store.db`): written once the profiler has answered, read by
`dbg hot`, `callers`, `callees` and `profile diff`.

A part of :class:`dbgcore.store.db.Store` (its base), kept apart so the
store's module stays one about sessions, stops and traces.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from dbgcore.store.sql import SqlRow, json_column
from dbgcore.vocab.profiles import Profile, ProfileFrame, Sample


class ProfileRecords:
    """The store's reads and writes of profiles; the store gives it its
    guarded queries (``_rows``) and its one-transaction writes (``_batch``)."""

    _rows: Callable[[str, SqlRow], tuple[list[SqlRow], list[str]]]
    _batch: Callable[[list[tuple[str, list[SqlRow]]], str], None]

    def record_profile(self, run_id: int, profile: Profile) -> None:
        """A profiler's record of a run: what recorded it, and every sample,
        in one transaction (an answer that is not kept says so)."""
        if not run_id:
            return
        header: list[SqlRow] = [(run_id, profile.tool, profile.shape, profile.unit,
                                 profile.rate, profile.duration, profile.pid, profile.note)]
        rows: list[SqlRow] = [
            (run_id, sample.thread, json.dumps([f.to_dict() for f in sample.frames]),
             sample.weight, sample.total, sample.calls) for sample in profile.samples]
        self._batch([("INSERT OR REPLACE INTO profiles (run_id, tool, shape, unit, rate,"
                      " duration, pid, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", header),
                     ("INSERT INTO profile_samples (run_id, thread, stack, weight, total,"
                      " calls) VALUES (?, ?, ?, ?, ?, ?)", rows)],
                    "the profile is answered but not kept for `dbg hot`")

    def latest_profile_run(self, name: str | None, of_time: bool = False) -> int | None:
        """The newest run a profiler recorded, of the sessions named
        ``name`` (None: of any); ``of_time``: a profile of time, not one of
        a heap's bytes."""
        query = "SELECT profiles.run_id FROM profiles"
        params: SqlRow = ()
        where = ["profiles.unit != 'bytes'"] if of_time else []
        if name is not None:
            query += (" JOIN runs ON runs.id = profiles.run_id"
                      " JOIN sessions ON sessions.id = runs.session_id")
            where.append("sessions.name = ?")
            params = (name,)
        if where:
            query += " WHERE " + " AND ".join(where)
        rows, _ = self._rows(query + " ORDER BY profiles.run_id DESC LIMIT 1", params)
        return int(rows[0][0] or 0) if rows else None

    def profile(self, run_id: int) -> Profile | None:
        """The profile recorded of a run, with its program's exit code
        (None: no profiler recorded that run)."""
        rows, _ = self._rows(
            "SELECT profiles.tool, profiles.shape, profiles.unit, profiles.rate,"
            " profiles.duration, profiles.pid, profiles.note, runs.exit_code"
            " FROM profiles JOIN runs ON runs.id = profiles.run_id WHERE profiles.run_id = ?",
            (run_id,))
        if not rows:
            return None
        tool, shape, unit, rate, duration, pid, note, exit_code = rows[0]
        found = Profile(str(tool), str(shape), str(unit),
                        rate=float(rate) if isinstance(rate, (int, float)) else None,
                        duration=float(duration) if isinstance(duration, (int, float)) else 0.0,
                        pid=int(pid) if isinstance(pid, int) else None, note=str(note or ""),
                        exit_code=int(exit_code) if isinstance(exit_code, int) else None)
        samples, _ = self._rows("SELECT thread, stack, weight, total, calls FROM profile_samples"
                                " WHERE run_id = ? ORDER BY id", (run_id,))
        for thread, stack, weight, total, calls in samples:
            frames = json_column(stack, "[]")
            found.samples.append(Sample(
                tuple(ProfileFrame.from_dict(f) for f in frames
                      if isinstance(f, dict)) if isinstance(frames, list) else (),
                float(weight or 0), None if thread is None else str(thread),
                float(total) if isinstance(total, (int, float)) else None,
                int(calls) if isinstance(calls, int) else None))
        return found
