"""One debug session over a DAP channel: handshake, capabilities, stops, output.

The handshake follows what works with every adapter we know, whatever order
it answers in: subscribe to stop events first; send ``launch``/``attach``
without waiting; on ``initialized`` configure breakpoints and send
``configurationDone``; only then collect the launch response. Some adapters
send ``initialized`` before launch is even sent, some after, and the launch
response may come before or after ``configurationDone``.

Stops are tracked with a counter: a resuming op notes the counter, sends its
request, and waits until a newer ``stopped`` (or ``exited``/``terminated``)
arrives, so a stop that races the response is never lost or double counted.

A request that runs the program's code while it is stopped (an evaluate that
calls a function, an assignment) is sent inside :meth:`DapSession.running_code`:
adapters report such a call as a resume and a stop (gdb: ``continued``, then
``stopped`` with reason "function call", or no stop at all), which are no
resume and no stop of the user's. The response comes after every event the
call caused (one reader thread delivers both in order), so only events that
arrive while the request is outstanding are the call's: a resume after it
counts as always.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from dbgcore.shared.errors import BackendError, DbgError, DebuggerTimeout, UnsupportedOp
from dbgcore.transport.dap.channel import DapChannel, Message
from dbgcore.transport.outputbuffer import OutputBuffer
from dbgcore.vocab.model import StopState

#: Output event categories we keep, and the name dbg shows them under.
OUTPUT_CATEGORIES = {"stdout": "stdout", "stderr": "stderr", "console": "console",
                     "important": "console"}


@dataclass
class StopInfo:
    seq: int = 0
    reason: str = ""
    thread_id: int | None = None
    description: str = ""
    text: str = ""
    hit_breakpoint_ids: list[int] = field(default_factory=list)
    all_threads: bool = False
    #: The event's whole body: what an adapter adds beyond the protocol's
    #: fields (its profile reads it).
    body: Message = field(default_factory=dict)


@dataclass
class CodeRun:
    """What the program did while a request ran its code (see
    :meth:`DapSession.running_code`)."""

    #: The adapter said the program ran (a called function).
    resumed: bool = False
    #: Stops reported meanwhile: the call's end, or a stop inside the called
    #: code (a breakpoint there) that left the program somewhere else.
    stops: list[StopInfo] = field(default_factory=list)
    #: The request got no answer in time: the code may be running still.
    unanswered: bool = False


class DapSession:
    def __init__(self, channel: DapChannel, output: OutputBuffer, adapter_id: str = "dbg",
                 categories: dict[str, str] | None = None) -> None:
        self.channel = channel
        #: The adapter's output categories as dbg files them.
        self.categories = {**OUTPUT_CATEGORIES, **(categories or {})}
        self.output = output
        self.adapter_id = adapter_id
        self.caps: Message = {}
        self._cond = threading.Condition()
        self.state: StopState | str = "starting"
        self.stop = StopInfo()
        self.exit_code: int | None = None
        self.terminated = False
        #: The adapter went away without saying that the program ended.
        self.lost = False
        self.initialized = threading.Event()
        self.breakpoint_events: list[Message] = []
        #: While a request runs the program's code: what it did.
        self._code_run: CodeRun | None = None
        #: What the last request sent inside running_code() did.
        self.last_code_run = CodeRun()
        #: How many times the adapter said the program ran: frame and
        #: variable ids it gave before may be gone (gdb forgets them).
        self.resumes = 0
        self._on_breakpoint: Callable[[Message], None] | None = None
        for name, handler in (
            ("stopped", self._stopped), ("continued", self._continued),
            ("exited", self._exited), ("terminated", self._terminated),
            ("output", self._output), ("initialized", self._initialized),
            ("capabilities", self._capabilities), ("breakpoint", self._breakpoint),
            ("_closed", self._closed),
        ):
            channel.on_event(name, handler)

    # -- events (reader thread) ------------------------------------------------

    def _stopped(self, event: Message) -> None:
        body = event.get("body") or {}
        info = StopInfo(
            reason=str(body.get("reason", "")),
            thread_id=body.get("threadId"),
            description=str(body.get("description") or ""),
            text=str(body.get("text") or ""),
            hit_breakpoint_ids=list(body.get("hitBreakpointIds") or []),
            all_threads=bool(body.get("allThreadsStopped")),
            body=body,
        )
        with self._cond:
            if self._code_run is not None:
                self._code_run.stops.append(info)
                return
            self._new_stop(info)

    def _new_stop(self, info: StopInfo) -> None:
        info.seq = self.stop.seq + 1
        self.stop = info
        self.state = "stopped"
        self._cond.notify_all()

    def _continued(self, event: Message) -> None:
        with self._cond:
            self.resumes += 1
            if self._code_run is not None:
                self._code_run.resumed = True
                return
            if self.state == "stopped":
                self.state = "running"
            self._cond.notify_all()

    def _exited(self, event: Message) -> None:
        with self._cond:
            self.exit_code = (event.get("body") or {}).get("exitCode")
            self.state = "exited"
            self._cond.notify_all()

    def _terminated(self, event: Message) -> None:
        with self._cond:
            self.terminated = True
            self.state = "exited"
            self._cond.notify_all()

    def end(self, exit_code: int | None) -> None:
        """The program ended and the adapter said nothing (an adapter that
        is the program's own process ends with it): as an `exited` event."""
        self._exited({"body": {"exitCode": exit_code}})

    def _closed(self, event: Message) -> None:
        with self._cond:
            if self.state != "exited":
                self.state = "exited"
                self.lost = True
            self._cond.notify_all()
        self.initialized.set()

    def _output(self, event: Message) -> None:
        body = event.get("body") or {}
        category = self.categories.get(str(body.get("category") or "console"))
        if category is not None:
            self.output.append(category, str(body.get("output") or ""))

    def _initialized(self, event: Message) -> None:
        self.initialized.set()

    def _capabilities(self, event: Message) -> None:
        self.caps.update((event.get("body") or {}).get("capabilities") or {})

    def _breakpoint(self, event: Message) -> None:
        self.breakpoint_events.append(event.get("body") or {})
        if self._on_breakpoint is not None:
            self._on_breakpoint(event.get("body") or {})

    def on_breakpoint(self, handler: Callable[[Message], None]) -> None:
        self._on_breakpoint = handler

    # -- capabilities -------------------------------------------------------------

    def supports(self, capability: str, *aliases: str) -> bool:
        return any(bool(self.caps.get(name)) for name in (capability, *aliases))

    def require(self, capability: str, op: str, tool: str, hint: str = "") -> None:
        """Refuse, on our side, a request the adapter did not say it supports.
        Some adapters crash or hang forever on an unsupported request."""
        if not self.supports(capability):
            raise UnsupportedOp(op, tool, hint or f"the adapter does not advertise {capability}")

    # -- handshake ------------------------------------------------------------------

    def initialize(self, client: Message, timeout: float) -> Message:
        arguments = {"clientID": "dbg", "clientName": "dbg", "adapterID": self.adapter_id,
                     "linesStartAt1": True, "columnsStartAt1": True, "pathFormat": "path",
                     "locale": "en", **client}
        self.caps = dict(self.channel.request("initialize", arguments, timeout))
        return self.caps

    def start(self, command: str, arguments: Message, configure: Callable[[], None],
              timeout: float) -> Message:
        """launch/attach with the handshake described in the module docstring."""
        pending = self.channel.send_request(command, arguments)
        deadline = time.monotonic() + timeout
        while not self.initialized.wait(0.05):
            if pending.done:
                pending.wait(0)  # raises if the launch failed
            if self.channel.closed is not None:
                raise self.channel.closed
            if time.monotonic() > deadline:
                missing = "no `initialized` event" + (
                    "" if pending.done else f" and no answer to {command}")
                raise DebuggerTimeout(
                    f"{self.channel.name} did not finish starting within {timeout:g}s "
                    f"({missing})", "raise --timeout; the adapter may be waiting for something")
        if self.channel.closed is not None:
            if pending.done:
                pending.wait(0)  # its own failure says more
            raise self.channel.closed
        configure()
        if self.supports("supportsConfigurationDoneRequest"):
            self.channel.request("configurationDone", None, max(1.0, deadline - time.monotonic()))
        return pending.wait(max(1.0, deadline - time.monotonic()))

    # -- running ---------------------------------------------------------------------

    def mark_running(self) -> int:
        """Before a resuming request: returns the stop counter to wait past."""
        with self._cond:
            if self.state != "exited":
                self.state = "running"
            return self.stop.seq

    def resume_refused(self, seq: int) -> None:
        """The resuming request after ``mark_running(seq)`` failed: the
        program never left its stop, so it is stopped again (unless
        something else happened meanwhile)."""
        with self._cond:
            if self.state == "running" and self.stop.seq == seq:
                self.state = "stopped"

    @contextmanager
    def running_code(self) -> Iterator[CodeRun]:
        """Around a request that may run the program's code while it is
        stopped (evaluate, setExpression, setVariable): the resumes and stops
        the adapter reports before answering are the call's, collected in
        the CodeRun instead of changing the state. The program is then
        stopped where it was, unless a stop inside the called code left it
        elsewhere: the caller tells, and :meth:`adopt_stop` makes it the
        session's stop. A request left unanswered after a resume leaves the
        program running (the call may never end); its stop, if it comes,
        counts as any other."""
        run = CodeRun()
        with self._cond:
            self._code_run = self.last_code_run = run
        try:
            yield run
        except DebuggerTimeout:
            run.unanswered = True
            raise
        finally:
            with self._cond:
                self._code_run = None
                if run.unanswered and run.resumed and not run.stops and \
                        self.state == "stopped":
                    self.state = "running"
                self._cond.notify_all()

    def adopt_stop(self, info: StopInfo) -> None:
        """A stop collected by :meth:`running_code` that left the program
        somewhere else than where it was: the session's stop now."""
        with self._cond:
            if self.state != "exited":
                self._new_stop(StopInfo(**{**info.__dict__}))

    def wait_for_stop(self, after: int, timeout: float) -> str:
        """Wait until a stop newer than ``after``, or the end of the program:
        returns "stopped", "exited" or "running" (timed out). Raises the
        channel's BackendError if the adapter died instead: that is no exit."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                if self.stop.seq > after and self.state == "stopped":
                    return "stopped"
                if self.state == "exited":
                    if self.lost and self.channel.closed is not None:
                        raise self._death()
                    return "exited"
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return "running"
                self._cond.wait(remaining)

    def request(self, command: str, arguments: Message | None, timeout: float) -> Message:
        """``command``'s answer within ``timeout`` seconds (the calling op's:
        each caller says how long it may wait, as two ops may run at once)."""
        if self.channel.closed is not None and self.state == "exited":
            if self.lost:
                raise self._death()
            raise BackendError(f"{self.channel.name} has ended", "start again with `dbg restart`")
        return self.channel.request(command, arguments, timeout)

    def request_all(self, calls: list[tuple[str, Message | None]],
                    timeout: float) -> list[Message]:
        """Each call's answer, in order, the requests all sent before the
        first answer is awaited: independent requests (a stop's scopes'
        variables) cost one round trip to the adapter, not one each. The
        first that failed raises, once all are answered."""
        if len(calls) == 1:
            return [self.request(*calls[0], timeout)]
        if self.channel.closed is not None and self.state == "exited":
            return [self.request(*call, timeout) for call in calls]  # its error, as request's
        sent = [self.channel.send_request(command, arguments) for command, arguments in calls]
        deadline = time.monotonic() + timeout
        answers: list[Message] = []
        failed: DbgError | None = None
        for pending in sent:
            try:
                answers.append(pending.wait(max(0.0, deadline - time.monotonic())))
            except DbgError as exc:
                failed = failed or exc
        if failed is not None:
            raise failed
        return answers

    def _death(self) -> BackendError:
        """How the adapter died (exit status, last stderr lines), as a fresh error."""
        closed = self.channel.closed
        assert closed is not None
        return copy.copy(closed)
