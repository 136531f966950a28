"""What a daemon is given by whoever made it: its start-up collaborator.

A daemon is made in one of several ways (forked by the CLI before it imports,
a session's spare taken, forked by `dbg mcp`'s fork helper, a new
interpreter: dbgcore.start says how each is done), and each leaves the daemon
something to look after that this package never imports: the debugger spawned
early for its start (:class:`dbgcore.transport.early.EarlyProcesses`, handed on
to the backends' transports), and the spare daemon forked for the session's
next start. :class:`StartUp` is the whole of what the daemon asks of them;
:class:`NewInterpreter` is what a daemon started as a new interpreter (``python
-m dbgcore.daemon.server``) has: no spare, and no debugger spawned before it.
"""

from __future__ import annotations

from typing import Protocol

from dbgcore.transport.early import THIS_PROCESS, EarlyProcesses


class StartUp(Protocol):
    """The daemon's start-up collaborator."""

    @property
    def early(self) -> EarlyProcesses:
        """The debugger spawned before the backend asked for it, the one
        spawned ahead of a restart, and the record of how each backend
        spawns (handed to each backend's transport)."""
        ...

    def spare_ready(self) -> None:
        """The session's program has ended: the spare for the next start of
        this session may get ready (once; nothing when there is none)."""
        ...

    def end_spare(self, wait: float) -> None:
        """The daemon ends: its spare ends too, unless a start took it;
        wait up to ``wait`` seconds for it and its early debugger to be gone."""
        ...


class NewInterpreter:
    """The start-up of a daemon started as a new interpreter: nothing was
    spawned before it (it still spawns ahead of a restart, and keeps the
    record of how its backend spawned), and it has no spare."""

    @property
    def early(self) -> EarlyProcesses:
        return THIS_PROCESS

    def spare_ready(self) -> None:
        pass

    def end_spare(self, wait: float) -> None:
        pass
