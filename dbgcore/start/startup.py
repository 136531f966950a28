"""The start-up collaborator a daemon made here is given
(:class:`dbgcore.daemon.startup.StartUp`): a daemon forked for a start (by
the CLI, by `dbg mcp`'s fork helper) or a spare taken by one. Its early
debugger is this process's (dbgcore.start.prespawn spawned it, before the
daemon's imports); its spare, if the CLI's fork made one, is
dbgcore.start.successor's. Imports nothing at its top but what those two
import: it is made in the forked child before the daemon is imported.
"""

from __future__ import annotations

from dbgcore.start import successor
from dbgcore.transport.early import THIS_PROCESS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dbgcore.transport.early import EarlyProcesses


class Forked:
    """A daemon forked for a start: this process's early debugger, and the
    spare :func:`dbgcore.start.successor.fork` forked for it, if any."""

    def __init__(self, spare: successor.Spare | None = None) -> None:
        self.spare = spare

    @property
    def early(self) -> EarlyProcesses:
        return THIS_PROCESS

    def spare_ready(self) -> None:
        if self.spare is not None:
            self.spare.ready()

    def end_spare(self, wait: float) -> None:
        if self.spare is not None:
            self.spare.end(wait)
