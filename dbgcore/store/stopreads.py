"""The store's reads of recorded stops, for `dbg hits`, `history`, `report`
and the cross answers: chosen, counted and paged on the indexes of
``stops`` (its schema is the store's, in :mod:`dbgcore.store.db`), and
only the rows shown read whole, so that 100,000 stops answer as fast as 100.

A part of :class:`dbgcore.store.db.Store` (its base), kept apart so the
store's module stays one about opening, writing and damage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dbgcore.shared.jsontypes import JsonObject
from dbgcore.store.sql import SqlRow, json_column


@dataclass(frozen=True)
class StopPlace:
    """Where the stops `dbg hits LOCATION` shows were: in ``function`` (its
    whole name or the last part after a dot), or at ``line`` of a file
    ``file_matches`` takes (None: any file)."""

    function: str | None = None
    line: int | None = None
    file_matches: Callable[[str], bool] | None = None


def _by_id(at: StopPlace | None) -> str:
    """The id as a query of stops orders and bounds them by: at a place,
    ``+id``, which keeps SQLite from walking the session's index in id
    order and reading each row for its place; the place's own index holds
    all a query asks, so no row is read."""
    return "id" if at is None else "+id"


#: Ids one query names (SQLite takes at most 32,766 parameters, older ones 999).
_IDS_A_QUERY = 900


class StopReads:
    """The store's reads of stops; the store gives it its guarded queries
    (``_rows``)."""

    _rows: Callable[[str, SqlRow], tuple[list[SqlRow], list[str]]]

    def hits(self, session_id: int | None, name: str | None = None,
             limit: int = 200, run_id: int | None = None, *, latest: bool = False,
             before: int | None = None, after: int | None = None,
             at: StopPlace | None = None) -> list[JsonObject]:
        """Recorded stops, in the order they were recorded, whole (stack and
        locals): of one run, one session, the sessions named ``name``, or
        all; the first ``limit`` of them, or with ``latest`` the last; only
        those before stop #before, after stop #after, at the place ``at``.
        Only the rows shown are read whole (see :meth:`hit_ids`)."""
        return self.stops_by_id(self.hit_ids(session_id, name, limit, run_id, latest=latest,
                                             before=before, after=after, at=at))

    def stops_by_id(self, ids: list[int]) -> list[JsonObject]:
        """These recorded stops, whole, in the order they were recorded."""
        rows: list[SqlRow] = []
        ordered = sorted(ids)
        for at in range(0, len(ordered), _IDS_A_QUERY):
            some = ordered[at:at + _IDS_A_QUERY]
            rows += self._rows(
                "SELECT stops.id, stops.at, sessions.name, stops.state, stops.reason,"
                " stops.thread, stops.file, stops.line, stops.function, stops.exit_code,"
                " stops.stack, stops.locals, stops.signal, stops.return_value, stops.run_id"
                " FROM stops JOIN sessions ON sessions.id = stops.session_id"
                f" WHERE stops.id IN ({', '.join('?' * len(some))}) ORDER BY stops.id",
                tuple(some))[0]
        keys = ("id", "at", "session", "state", "reason", "thread", "file", "line", "function",
                "exit_code", "stack", "locals", "signal", "return_value", "run")
        out = []
        for row in rows:
            item: JsonObject = dict(zip(keys, row, strict=True))
            item["stack"] = json_column(item["stack"], "[]")
            item["locals"] = json_column(item["locals"], "[]")
            item["return_value"] = json_column(item["return_value"], "null")
            out.append(item)
        return out

    def hit_ids(self, session_id: int | None, name: str | None = None, limit: int = 200,
                run_id: int | None = None, *, latest: bool = False, before: int | None = None,
                after: int | None = None, at: StopPlace | None = None) -> list[int]:
        """The ids of the stops :meth:`hits` reads, oldest first, from the
        indexes alone (LIMIT in SQL: no row is read that is not shown)."""
        where, params = self._stop_where(session_id, name, run_id, before, after, at)
        if where is None:
            return []
        rows, _ = self._rows(
            f"SELECT id FROM stops WHERE {where} ORDER BY {_by_id(at)}"
            f" {'DESC' if latest else 'ASC'} LIMIT ?", (*params, limit))
        ids = [int(str(r[0])) for r in rows]
        return ids[::-1] if latest else ids

    def stop_places(self, session_id: int) -> list[tuple[int, str, str | None]]:
        """Each stop of a session, oldest first: its id, state and function,
        read from the place index alone (none of its rows)."""
        rows, _ = self._rows("SELECT id, state, function FROM stops"
                             " WHERE session_id = ? ORDER BY +id", (session_id,))
        return [(int(str(i)), str(state), None if f is None else str(f)) for i, state, f in rows]

    def hit_count(self, session_id: int | None, name: str | None = None,
                  run_id: int | None = None, *, before: int | None = None,
                  after: int | None = None, at: StopPlace | None = None) -> int:
        """How many stops :meth:`hits` would choose among, counted on the indexes."""
        where, params = self._stop_where(session_id, name, run_id, before, after, at)
        if where is None:
            return 0
        rows, _ = self._rows(f"SELECT COUNT(*) FROM stops WHERE {where}", params)
        return int(str(rows[0][0] or 0)) if rows else 0

    def stop_before(self, before: int, file: str | None, function: str | None, *,
                    session_id: int | None, name: str | None = None, run_id: int | None = None,
                    at: StopPlace | None = None) -> JsonObject | None:
        """The locals of the last stop (not an exit) in ``function`` of
        ``file`` before stop #before (`dbg hits --diff` compares a page's
        first stops with them); ``at``'s line: only a stop at that line, as
        the page has them."""
        where, params = self._stop_where(session_id, name, run_id, before, None, None)
        if where is None:
            return None
        if at is not None and at.line is not None:
            where, params = f"{where} AND line = ?", (*params, at.line)
        # Newest first down the function's own index: the first found is it.
        rows, _ = self._rows(
            f"SELECT id, locals FROM stops WHERE {where} AND function IS ? AND file IS ?"
            " AND state != 'exited' ORDER BY id DESC LIMIT 1", (*params, function, file))
        return {"id": rows[0][0], "locals": json_column(rows[0][1], "[]")} if rows else None

    def _stop_where(self, session_id: int | None, name: str | None, run_id: int | None,
                    before: int | None, after: int | None,
                    at: StopPlace | None) -> tuple[str | None, SqlRow]:
        """The WHERE clause (and its parameters) of the stops chosen; None
        when a place's file matches no recorded one."""
        parts: list[str] = []
        params: SqlRow = ()
        if run_id is not None:
            parts.append("run_id = ?")
            params = (run_id,)
        elif session_id is not None:
            parts.append("session_id = ?")
            params = (session_id,)
        elif name is not None:
            parts.append("session_id IN (SELECT id FROM sessions WHERE name = ?)")
            params = (name,)
        if before is not None:
            parts.append(f"{_by_id(at)} < ?")
            params = (*params, before)
        if after is not None:
            parts.append(f"{_by_id(at)} > ?")
            params = (*params, after)
        if at is not None and at.function is not None:
            # The name, or its last part after a dot (case counts: no LIKE).
            tail = "." + at.function
            parts.append("(function = ? OR substr(function, -?) = ?)")
            params = (*params, at.function, len(tail), tail)
        if at is not None and at.line is not None:
            parts.append("line = ?")
            params = (*params, at.line)
            if at.file_matches is not None:
                scope = " AND ".join(parts)
                files, _ = self._rows(f"SELECT DISTINCT file FROM stops WHERE {scope}", params)
                chosen = [str(f) for (f,) in files if f is not None and at.file_matches(str(f))]
                if not chosen:
                    return None, ()
                parts.append(f"file IN ({', '.join('?' * len(chosen))})")
                params = (*params, *chosen)
        return (" AND ".join(parts) or "1"), params

    def last_stop_id(self, session_id: int) -> int:
        """The id of the session's newest recorded stop (0: none yet)."""
        rows, _ = self._rows("SELECT MAX(id) FROM stops WHERE session_id = ?", (session_id,))
        return int(rows[0][0] or 0) if rows else 0

    def stop_row(self, stop_id: int) -> JsonObject | None:
        """One recorded stop: its state, reason, thread, place and exit code."""
        rows, names = self._rows(
            "SELECT id, state, reason, thread, file, line, function, exit_code, signal"
            " FROM stops WHERE id = ?", (stop_id,))
        return dict(zip(names, rows[0], strict=True)) if rows else None
