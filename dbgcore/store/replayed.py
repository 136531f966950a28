"""A recorded run, read back whole for a replay (`dbg replay RUN`): which
run ``last`` means, and the run's row, the folder it ran in and the calls
`dbg trace --lines` recorded in it (each with its lines).

The replay backend reads it here, through :mod:`dbgcore.api`, in the
session's daemon; the front end reads it first to refuse, in one line, a run
that has nothing to replay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.shared.errors import OpFailed

if TYPE_CHECKING:
    from dbgcore.shared.jsontypes import JsonObject
    from dbgcore.store.db import Store

#: Runs looked at for ``last``, newest first.
_LOOKED_AT = 200


def _has_lines(calls: list[JsonObject]) -> bool:
    return any(call.get("lines") for call in calls)


def recorded_run(run: str | int, session: str | None = None,
                 store: Store | None = None) -> JsonObject:
    """The run ``run`` (an id, or ``"last"``: the newest run with recorded
    lines, of the session ``session`` first, else of any) as a replay reads
    it: ``run`` (its row of `dbg runs`), ``cwd`` and ``calls`` (CallRecord
    dicts, in the order they were entered). A run without recorded lines is
    refused (OpFailed), saying how to record one."""
    from dbgcore.store.db import Store

    own = store is None
    opened = store or Store(by="dbg replay")
    try:
        if str(run) == "last":
            found = _last(opened, session)
        else:
            rows = opened.runs(None, run_id=int(run))
            if not rows:
                raise OpFailed(f"no recorded run {run}", "list them with `dbg runs --all`")
            found = rows[-1]
        run_id = int(found["id"])
        calls = opened.calls(run_id)
        if not _has_lines(calls):
            raise OpFailed(f"run {run_id} has no recorded lines to replay",
                           "record one: `dbg start PROGRAM`, then `dbg trace FUNCTION... "
                           "--lines`")
        return {"run": found, "cwd": opened.run_cwd(run_id), "calls": calls}
    finally:
        if own:
            opened.close()


def _last(store: Store, session: str | None) -> JsonObject:
    """The newest run whose trace recorded lines: of ``session``, else of any."""
    for name in ([session] if session else []) + [None]:
        for row in reversed(store.runs(name, limit=_LOOKED_AT, debugged=True)):
            if int(row.get("calls") or 0) and _has_lines(store.calls(int(row["id"]))):
                return row
    raise OpFailed("no recorded run has lines to replay",
                   "record one: `dbg start PROGRAM`, then `dbg trace FUNCTION... --lines`")
