"""Ops answered beside one that waits for the program.

The daemon runs ops one at a time, but an op that waits for the program
(`continue`, `start`, `raw`...) may wait for minutes; meanwhile another
client's `status`, `output` or `pause` must be answered. Apart from the
worker's turn-taking because these run on the connection's own thread, at
the same time as the busy op: what each may do is its declaration's
``beside`` (:class:`dbgcore.vocab.opspec.Op`), and how a caller waits for the
busy op's answer (the program's stop, a prompt for input, a child session's
stop) is :func:`follow`.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from dbgcore.daemon.children import ChildSessions
from dbgcore.daemon.session import Session
from dbgcore.shared.errors import DbgError, NotStopped
from dbgcore.shared.jsontypes import JsonObject
from dbgcore.vocab.model import StopSnapshot
from dbgcore.vocab.opspec import OpTable

#: How often a client waiting for the program looks whether it waits for input.
INPUT_CHECK = 0.2


def answered(session: Session, result: JsonObject) -> JsonObject:
    return {"ok": True, "result": result, "via": session.via()}


def follow(future: Future[JsonObject], timeout: float | None, session: Session,
           children: ChildSessions, children_before: set[str] | None = None) -> JsonObject:
    """The answer of the op behind ``future`` (within ``timeout``, else
    `running`); or, when the program blocks reading the stdin dbg feeds
    it, at once a `running` answer that says it waits for input (the op
    goes on waiting for the stop, which `dbg input` or `dbg wait` then
    collects). A child session stopped already (``children_before``, by
    default those stopped now) is not news; one that stops later is: a
    caller whose op may already run takes that set before it queues it,
    or a child that stops at once would count as stopped before."""
    deadline = None if timeout is None else time.monotonic() + timeout
    if children_before is None:
        children_before = set(children.stopped())
    while True:
        wait = INPUT_CHECK if deadline is None else max(
            0.0, min(INPUT_CHECK, deadline - time.monotonic()))
        try:
            return future.result(wait)
        except FutureTimeout:
            pass
        if deadline is not None and time.monotonic() >= deadline:
            return answered(session, StopSnapshot(state="running").to_dict())
        try:
            waiting = session.waiting_for_input()
        except Exception:  # /proc went away under us: just keep waiting
            waiting = False
        if waiting:
            return answered(session, {**StopSnapshot(state="running").to_dict(),
                                      "waiting_for_input": True,
                                      "prompt": session.prompt()})
        stopped = [name for name in children.stopped() if name not in children_before]
        if stopped:
            return answered(session, {**StopSnapshot(state="running").to_dict(),
                                      "children_stopped": [children.stop_of(n) for n in stopped]})


def answer_beside(op: str, args: JsonObject, timeout: float, busy: str,
                  future: Future[JsonObject], session: Session, table: OpTable,
                  children: ChildSessions) -> JsonObject:
    """An op that arrives while ``busy`` (another client's) waits for the
    program, answered as its declaration's ``beside`` says: at once
    (`status`, `output`), or with the stop the busy op gets (`pause`
    interrupts the program first); an op without one is refused at once.
    Such an op must not wait for the program, and touch nothing the busy
    op uses."""
    spec = table.find(op)
    try:
        if spec is None or spec.beside is None:
            raise NotStopped(
                f"{op} needs the program stopped, and another call's `{busy}` is waiting "
                "for it to stop", "`dbg pause` interrupts it; `dbg wait` waits for the stop")
        now, extra = spec.beside(session, args, timeout, busy)
        if now is not None:
            return answered(session, now)
    except DbgError as exc:
        return {"ok": False, "error": exc.to_wire(), "via": session.via()}
    response = follow(future, timeout, session, children)
    if response.get("ok"):
        result = dict(response.get("result") or {})
        if "state" not in result and session.last is not None:
            # The busy op was no stopping op (`raw`): the stop it left.
            result = session.last.to_dict()
        result.update(extra)
        response = {**response, "result": result}
    return response
