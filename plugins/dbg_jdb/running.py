"""Running a Java program under jdb: continue, steps, finish, until and
pause, and the event each one ends at.

Events (breakpoint hit, step completed, field modified, exception) arrive
after the ``> `` that a resuming command prints at once; they are read as
the answer to that command."""

from __future__ import annotations

import re
import time

from dbg_jdb.inspection import JdbInspection
from dbg_jdb.parse import (
    EVENT_RE,
    EXIT_RE,
    RUNNING_PROMPT_RE,
    STOPPED_PROMPT_RE,
    SUSPENDED_RE,
)
from dbgcore.api import (
    BreakLoc,
    Location,
    OpFailed,
    PtyEOF,
    PtyTimeout,
    ReturnValue,
    StopEvent,
)


class JdbRunning(JdbInspection):
    """The execution ops of the jdb backend."""

    def _resume(self, command: str, timeout: float) -> StopEvent:
        driver = self._drv()
        if (driver.child is None or not driver.child.isalive()) and self._jdb_died(""):
            assert self.lost is not None
            raise self.lost
        self.settle(timeout)
        driver.send_line(command)
        self.set_state("running")
        return self._wait_event(timeout, timeout, resumed=True)

    def _wait_event(self, wait: float, timeout: float, resumed: bool = False) -> StopEvent:
        """Read up to jdb's next event (a stop, the program's end) for up to
        ``wait``; ``timeout`` bounds the commands sent about the stop."""
        driver = self._drv()
        deadline = time.monotonic() + wait
        try:
            match = None
            if resumed:
                # jdb answers a resuming command with "> " at once (the VM
                # runs), unless the event is already here: read past it, or
                # it would pass for the answer to the next command.
                match = driver.expect([EVENT_RE, EXIT_RE, SUSPENDED_RE], wait,
                                      prompt=RUNNING_PROMPT_RE)
                if match.index == 0:
                    match = None
            while match is None:
                match = driver.expect([EVENT_RE, EXIT_RE, SUSPENDED_RE],
                                      max(0.0, deadline - time.monotonic()),
                                      prompt=STOPPED_PROMPT_RE)
                if match.index == 0 and not match.before.strip("\r\n> "):
                    # A thread's prompt with nothing before it while the
                    # program runs: jdb's event thread printing late (seen
                    # under load: "> " and "main[1] " right after `cont`,
                    # then the breakpoint). A command that did not run says
                    # why.
                    match = None
        except PtyTimeout:
            return StopEvent(state="running")
        except PtyEOF as exc:
            if self._jdb_died(exc.output):
                assert self.lost is not None
                raise self.lost from exc
            return self._ended(exc.output)
        self._scan(match.before)
        if match.index == 2:
            return self._ended(match.before)
        if match.index == 3:
            # A second client's `dbg pause` (interrupt) typed `suspend`.
            self._note_prompt(driver.expect([], wait))
            self.set_state("stopped")
            return self._suspended(timeout)
        if match.index == 0:
            # A prompt with no event: the command did not run (jdb said why).
            self._note_prompt(match)
            self.set_state("stopped")
            answer = " ".join(match.before.split()).lstrip("> ").strip()
            raise OpFailed(f"jdb: {answer or 'the command did nothing'}")
        self._read_prompt(wait)
        self.set_state("stopped")
        return self._stop_event(match.named, timeout)

    def _stop_event(self, event: dict[str, str], timeout: float) -> StopEvent:
        kind = event["kind"]
        where = event["where"]  # "Main.square()"
        line = int(re.sub(r"[,.]", "", event["line"]))
        function = where[:-2] if where.endswith("()") else where
        location = Location(self.breaks.file_of(function.rsplit(".", 1)[0]), line, function)
        self._location = location
        description, reason, hit = "", "step", []
        if kind == "Breakpoint hit":
            reason = "breakpoint"
            hit = [bp for bp in self.breaks.table.values() if bp.kind != "watch"
                   and self.breaks.matches(bp, function, location)]
        elif kind.startswith("Field"):
            reason = "watchpoint"
            hit = [bp for bp in self.breaks.table.values() if bp.kind == "watch"
                   and bp.native == event["field"]]
            description = f"{event['field']}: {event['old']} -> {event['new']}"
        elif kind.startswith("Method exited"):
            reason = "return"
        elif kind.startswith("Exception"):
            reason = "exception"
            message = self.exception_message(timeout)
            self._last_message = message
            first = message.splitlines()[0] if message.strip() else ""
            description = (f"{event['exc']}: {first} ({event['caught']})" if first
                           else f"{event['exc']} ({event['caught']})")
        for bp in hit:
            bp.hits += 1
        user = [bp for bp in hit if not bp.internal]
        if hit and not user:
            reason = "until" if any(bp.until for bp in hit) else "breakpoint"
        for bp in hit:
            if bp.temporary and not bp.internal:
                self.breaks.discard(bp.id, timeout)
        self._last_reason = reason
        if reason == "exception":
            self._last_exception = event["exc"]
        returned = event.get("ret") or None
        return StopEvent(state="stopped", reason=reason, location=location,
                         return_value=ReturnValue(returned) if returned is not None else None,
                         thread=self._thread or None, description=description,
                         hit_breakpoints=[bp.id for bp in user])

    def wait_stop(self, wait: float, timeout: float) -> StopEvent:
        return self._wait_event(wait, timeout)

    def cont(self, timeout: float) -> StopEvent:
        self.require_stopped("continue", timeout)
        return self._resume("cont", timeout)

    def step(self, timeout: float) -> StopEvent:
        self.require_stopped("step", timeout)
        return self._resume(self._line_step("step"), timeout)

    def next(self, timeout: float) -> StopEvent:
        self.require_stopped("next", timeout)
        return self._resume(self._line_step("next"), timeout)

    def _line_step(self, command: str) -> str:
        # Stopped in a native method (a pause in Thread.sleep), a line step
        # never completes: the JVM steps by lines and the frame has none.
        # Going back to the caller is the next line there is.
        native = self._location is not None and self._location.line is None
        return "step up" if native else command

    def finish(self, timeout: float) -> StopEvent:
        # jdb's `step up` says nothing of the value; a method-exit trace
        # does ("Method exited: return value = ..."): stop at the selected
        # method's exit first, then step out to the caller.
        self.require_stopped("finish", timeout)
        for _ in range(self._frame - 1):  # the frames above the selected one
            event = self._resume("step up", timeout)
            if event.state != "stopped" or event.reason != "step":
                return event
        self.command("trace method exit", timeout, silent=True)
        try:
            event = self._resume("cont", timeout)
        finally:
            if self.state() == "stopped":
                self.command("untrace", timeout, silent=True)
        if event.state != "stopped" or event.reason != "return":
            return event  # stopped by something else first
        after = self._resume("step up", timeout)
        after.return_value = event.return_value
        return after

    def until(self, loc: BreakLoc | None, timeout: float) -> StopEvent:
        self.require_stopped("until", timeout)
        if loc is None:
            return self.next(timeout)
        if loc.file is None and loc.function is None and self._location is not None:
            loc = BreakLoc(file=self._location.file, line=loc.line)
        bp = self.breaks.add(loc, timeout, internal=True, temporary=True, strict=True)
        self.breaks.table[bp].until = True
        try:
            return self._resume("cont", timeout)
        finally:
            if self.state() != "exited":
                self.breaks.discard(bp, timeout)

    def pause(self, timeout: float) -> StopEvent:
        if self.state() == "stopped":
            return StopEvent(state="stopped", reason="pause", location=self._location,
                             thread=self._thread or None)
        driver = self._drv()
        driver.send_line("suspend")
        match = driver.expect([], timeout)
        self._note_prompt(match)
        self.set_state("stopped")
        return self._suspended(timeout)

    def interrupt(self) -> None:
        # From a second client's thread while an op waits in _wait_event,
        # which reads jdb's answer to this (SUSPENDED_RE) as the stop.
        if self.state() == "running" and self.driver is not None:
            self.driver.send_line("suspend")

    def _suspended(self, timeout: float) -> StopEvent:
        """The stop of a VM that `suspend` stopped."""
        # A suspended VM has no current thread: choose the one dbg stopped last
        # in, else main.
        wanted = self._thread or "main"
        for thread in self.threads(timeout):
            if thread.name == wanted:
                self.select_thread(thread.id, timeout)
                break
        frames = self.stack(1, timeout)
        top = frames[0] if frames else None
        self._location = Location(top.file, top.line, top.function) if top else None
        return StopEvent(state="stopped", reason="pause", location=self._location,
                         thread=self._thread or None)

