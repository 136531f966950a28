"""The session as the op handlers see it: what a handler reads and calls of
the daemon's :class:`dbgcore.daemon.session.Session`, as Protocols.

The op groups run their handlers in the daemon, yet must not import it (the
op vocabulary sits below the daemon, which dispatches to it): they name
:class:`OpSession` instead, and ``dbgcore.daemon.session`` holds its
``Session`` to it for mypy, so a handler that reaches for more than this is
a type error rather than an arrow against the import direction.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from dbgcore.backends.contract import AttachRequest, Backend, BackendSpec, LaunchRequest
    from dbgcore.shared.jsontypes import JsonObject
    from dbgcore.store.db import Store
    from dbgcore.transport.outputbuffer import OutputBuffer
    from dbgcore.transport.streams import StdinFeed
    from dbgcore.vocab.model import (
        BreakLoc,
        BreakOptions,
        Breakpoint,
        Location,
        StopEvent,
        StopSnapshot,
    )
    from dbgcore.vocab.opspec import Payload

#: Where a watch's value is read again: (file, function, depth from the outermost frame).
FrameKey = tuple[str | None, str | None, int]


class WatchEntry(Protocol):
    """A watch the breakpoint table keeps: its scope and last value."""

    scope: FrameKey | None
    value: str | None


class BreakBook(Protocol):
    """The session's breakpoints under dbg's own ids
    (:class:`dbgcore.daemon.breaktable.BreakTable`)."""

    @property
    def entries(self) -> Mapping[int, WatchEntry]: ...

    def add(self, backend: Backend, loc: BreakLoc, options: BreakOptions,
            timeout: float) -> Breakpoint: ...

    def add_all(self, backend: Backend, loc: BreakLoc, options: BreakOptions,
                timeout: float) -> tuple[list[Breakpoint], list[Location] | None]: ...

    def add_many(self, backend: Backend, locs: list[BreakLoc], timeout: float,
                 options: list[BreakOptions] | None = None,
                 functions: list[str | None] | None = None
                 ) -> list[Breakpoint | Exception]: ...

    def add_all_many(self, backend: Backend, locs: list[BreakLoc], timeout: float,
                     options: list[BreakOptions] | None = None
                     ) -> list[list[Breakpoint] | Exception]: ...

    def watch(self, backend: Backend, expression: str, timeout: float) -> Breakpoint: ...

    def remove(self, backend: Backend, ids: list[int], timeout: float) -> list[Breakpoint]: ...

    def listing(self, backend: Backend, timeout: float) -> list[Breakpoint]: ...

    def matching(self, backend: Backend, wanted: BreakLoc, timeout: float) -> list[int]: ...

    def follow_edits(self) -> list[JsonObject]: ...

    def replay(self, backend: Backend,
               timeout: float) -> tuple[list[Breakpoint], list[JsonObject]]: ...

    def require(self, ids: list[int]) -> None: ...


class OpSession(Protocol):
    """One session's state and the rules its ops share, for the handlers."""

    name: str
    run_dir: Path
    store: Store
    output: OutputBuffer
    backend: Backend | None
    spec: BackendSpec | None
    launch_request: LaunchRequest | None
    attach_request: AttachRequest | None
    catch_filters: list[str]
    session_id: int | None
    run_id: int
    last: StopSnapshot | None
    version: str
    displays: list[tuple[int, str]]
    display_ids: int
    frame_values: dict[FrameKey, dict[str, str]]
    stdin: StdinFeed | None
    stdin_file: str | None

    @property
    def breaks(self) -> BreakBook: ...

    def via(self) -> dict[str, str]: ...

    def describe(self) -> JsonObject: ...

    def state(self) -> str: ...

    def refresh(self, timeout: float) -> StopSnapshot | None: ...

    def new_backend(self, backend_name: str, cwd: str | None) -> Backend: ...

    def snapshot(self, event: StopEvent, timeout: float) -> StopSnapshot: ...

    def current_run(self) -> int: ...

    def new_run(self) -> None: ...

    def frame_key(self, timeout: float) -> FrameKey | None: ...

    def evaluate_each(self, expressions: list[str], timeout: float) -> list[Payload]: ...
