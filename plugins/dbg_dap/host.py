"""The seam between an adapter profile and the DAP backend.

A profile names one adapter's quirks; some of them need the debugger's word
(a stack, a console command, an evaluation). :class:`AdapterHost` is all a
profile may ask of the backend for that: the requests it sends and the few
facts it reads, each request with the calling op's timeout. The backend
satisfies it structurally; nothing here imports the backend, so profiles sit
below it (the layers: this module, then the profiles, then the backend's
parts, then the backend).
"""

from __future__ import annotations

import os
from typing import Any, Protocol

from dbgcore.api import (
    BreakLoc,
    BreakOptions,
    DapSession,
    Message,
    PathMap,
    SessionContext,
    StopEvent,
    StopState,
    Value,
    Variable,
)

#: Any JSON value, as an adapter sends or takes it (an object is a Message).
JsonValue = Any


def program_root(program: str | None) -> str | None:
    """The folder of ``program`` (a package's own folder, for Go sources)."""
    if not program:
        return None
    return program if os.path.isdir(program) else os.path.dirname(program)


class AdapterHost(Protocol):
    """What a profile may ask of the backend that drives its adapter."""

    # -- facts ------------------------------------------------------------------

    @property
    def ctx(self) -> SessionContext:
        """The session's run folder, output and log."""

    @property
    def tool_name(self) -> str: ...

    @property
    def program(self) -> str | None:
        """The program as `dbg start` / `dbg attach` named it (None: a module)."""

    @property
    def cwd(self) -> str | None: ...

    @property
    def paths(self) -> PathMap:
        """Where the program's files are here (an attach's path map): the
        Source paths of DAP messages are converted by the channel, a path a
        profile reads from the program itself (an evaluation) is not."""

    @property
    def dap(self) -> DapSession | None:
        """The adapter session, once started."""

    @property
    def thread_id(self) -> int | None:
        """The thread the last stop is in."""

    @property
    def frame_index(self) -> int:
        """The selected frame."""

    @property
    def last_reason(self) -> str:
        """Why the program last stopped ("exception", "signal"...)."""

    @property
    def catch_uncaught(self) -> bool:
        """Stop where an exception would end the program (not: `--no-catch`)."""

    #: The exception filters in force (a profile that sets its own says which).
    exception_filters: list[str]
    #: The core file `dbg start --core` opened (None: a live program).
    core: str | None

    def state(self) -> StopState: ...

    def debuggee_pids(self) -> list[int]:
        """The processes dbg started or was told of for the program."""

    # -- requests (each with the calling op's timeout) ---------------------------

    def dap_session(self) -> DapSession: ...

    def stopped_session(self, what: str) -> DapSession:
        """The session, when the program is stopped (else NotStopped for ``what``)."""

    def stack_frames(self, timeout: float, levels: int | None = None) -> list[Message]: ...

    def current_frame_id(self, timeout: float) -> int | None: ...

    def scopes(self, timeout: float, frame_id: int | None = None) -> list[Message]: ...

    def variables(self, reference: int, timeout: float, start: int = 0,
                  count: int = 0) -> list[Message]: ...

    def shown_value(self, var: Message, timeout: float) -> str:
        """A variable's value as `dbg print` shows it."""

    def return_rows(self, timeout: float) -> list[Message]:
        """The top frame's rows that hold a return value (debugpy's "(return) ...")."""

    def scope_arguments(self, frame: Message, timeout: float) -> list[Variable] | None: ...

    def evaluate_in(self, frame: Message, expression: str, timeout: float,
                    context: str = "watch") -> str: ...

    def evaluate_with(self, expression: str, context: str | None, timeout: float) -> Value: ...

    def console(self, command: str, timeout: float) -> str:
        """A native console command's answer."""

    def resume(self, command: str, timeout: float, extra: Message | None = None) -> StopEvent:
        """Send a resuming request (continue, next, stepIn...) and wait for its stop."""

    def pause(self, timeout: float) -> StopEvent:
        """Interrupt the running program and wait for its stop."""

    def place_internal_break(self, loc: BreakLoc, options: BreakOptions, timeout: float) -> int:
        """One of dbg's own breakpoints (users never see it); its id."""

    def discard_internal_break(self, bp_id: int, timeout: float) -> None: ...
