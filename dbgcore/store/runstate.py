"""How a recorded run stands: ended, in progress, or cut short.

A run's row is written when it begins and its end when it ends (the program
exits); a run whose end was never written is in progress only while the
daemon that records it lives. Told apart when the store is read, by the
session's daemon pid and when the session began (a pid given again to a
later process started after the daemon died).
"""

from __future__ import annotations

import os


def run_state(ended: bool, latest: bool, session_ended: bool, daemon_pid: int,
              session_began: float) -> tuple[str, str | None]:
    """A recorded run's state, ``ended``, ``in progress`` or ``cut short``,
    and for the last why: a run whose end was never written ended with its
    session, gave way to a later run, or lost its daemon."""
    if ended:
        return "ended", None
    if not latest:
        return "cut short", "a later run of its session began before it ended"
    if session_ended:
        return "cut short", "its session ended before the program did"
    if _daemon_alive(daemon_pid, session_began):
        return "in progress", None
    return "cut short", f"its daemon (pid {daemon_pid}) died before the run's end was written"


def _daemon_alive(pid: int, session_began: float) -> bool:
    """Whether ``pid`` is still the daemon that began the session at
    ``session_began``: running, and started before (a pid given again to a
    later process started after the daemon died)."""
    from dbgcore.shared import procutil

    if pid <= 0 or not procutil.alive(pid):
        return False
    began = _started_at(pid)
    return began is None or began <= session_began + 1.0


def _started_at(pid: int) -> float | None:
    """When ``pid`` started, in seconds since the epoch (from /proc)."""
    from dbgcore.shared import procutil

    ticks = procutil.start_time(pid)
    if ticks is None:
        return None
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            boot = next(int(line.split()[1]) for line in fh if line.startswith("btime "))
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    return boot + ticks / os.sysconf("SC_CLK_TCK")
