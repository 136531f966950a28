"""`dbg tasks` on pdb and debugpy: at a breakpoint in one coroutine of a real
asyncio program, every task is listed with its coroutine, its state
(pending, done with its result, cancelled), the line its coroutine is
suspended at and what it awaits (a queue's get, a sleep, another task);
the running one is marked. Sixty tasks are cut at fifty and counted. A
program without asyncio has none, and says why; a backend without tasks
refuses with the `dbg raw` hint."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dbgcore.testing import Dbg, require, require_backend

BACKENDS = ["pdb", "debugpy"]


def _stop(dbg: Dbg, backend: str, program: Any, mark: str) -> None:
    require_backend(backend)
    snap = dbg.json("start", "--backend", backend, "--break", program.loc(mark), "--run",
                    str(program.path))
    assert snap["_exit"] == 0 and snap["state"] == "stopped", snap
    assert snap["location"]["line"] == program.lines[mark], snap


@pytest.mark.parametrize("backend", BACKENDS)
def test_tasks_lists_each_task_and_what_it_awaits(dbg: Dbg, target: Any, backend: str) -> None:
    program = target("asyncio/tasks.py")
    _stop(dbg, backend, program, "report")
    answer = dbg.json("tasks")
    assert answer["_exit"] == 0, answer
    tasks = {t["name"]: t for t in answer["tasks"]}
    assert sorted(tasks) == ["Task-1", "cancelled", "consumer", "finished", "reporter",
                             "sleeper", "waiter"], tasks
    path = os.path.realpath(program.path)

    def at(name: str, mark: str) -> None:
        task = tasks[name]
        assert (os.path.realpath(task["file"]), task["line"]) == (path, program.lines[mark]), task
        assert task["state"] == "pending", task

    at("consumer", "consume_waits")
    assert tasks["consumer"]["coro"] == "consume"
    assert tasks["consumer"]["awaits"].startswith("Queue.get -> "), tasks["consumer"]
    at("sleeper", "doze_waits")
    assert tasks["sleeper"]["awaits"].startswith("sleep -> "), tasks["sleeper"]
    at("waiter", "wait_for_waits")
    assert tasks["waiter"]["awaits"] == "task sleeper (doze)", tasks["waiter"]
    at("reporter", "report")
    assert tasks["reporter"]["current"] is True
    assert [n for n, t in tasks.items() if t["current"]] == ["reporter"]
    assert tasks["Task-1"]["awaits"] == "task reporter (report)", tasks["Task-1"]
    assert tasks["finished"]["state"] == "done"
    assert tasks["finished"]["outcome"] == "returned 42"
    assert tasks["cancelled"]["state"] == "cancelled"
    assert answer["more"] == 0

    text = dbg("tasks")
    assert text.code == 0, text
    lines = text.out.splitlines()
    assert f"* reporter  report()  pending  at {program.path}:{program.lines['report']}" in \
        [line.replace(path, str(program.path)) for line in lines], text.out
    assert any(line.startswith("  waiter  wait_for()  pending  at ")
               and line.endswith("awaits task sleeper (doze)") for line in lines), text.out


@pytest.mark.parametrize("backend", BACKENDS)
def test_tasks_past_fifty_are_counted(dbg: Dbg, target: Any, backend: str) -> None:
    program = target("asyncio/crowd.py")
    _stop(dbg, backend, program, "crowd")
    answer = dbg.json("tasks")
    assert len(answer["tasks"]) == 50 and answer["more"] == 11, answer  # 60 naps and main
    assert answer["tasks"][0]["name"] == "Task-1" and answer["tasks"][0]["current"]
    assert dbg("tasks").out.splitlines()[-1] == "+11 more tasks not listed"


def test_a_program_without_asyncio_has_no_tasks(dbg: Dbg, target: Any) -> None:
    program = target("cart.py")
    require_backend("pdb")
    assert dbg.json("start", "--backend", "pdb", str(program.path))["_exit"] == 0
    answer = dbg.json("tasks")
    assert answer["tasks"] == [] and answer["none_why"] == "the program has not imported asyncio"
    assert dbg("tasks").out.strip().endswith("no asyncio tasks (the program has not imported "
                                             "asyncio)")


def test_a_backend_without_tasks_refuses_with_the_raw_hint(dbg: Dbg, target: Any) -> None:
    from builds import build_c

    require_backend("gdb")
    binary = build_c(target("native/cart.c").path)
    assert dbg.json("start", "--backend", "gdb", str(binary))["_exit"] == 0
    answer = dbg.json("tasks")
    assert answer["_exit"] == 3 and answer["error"]["kind"] == "unsupported", answer
    assert "dbg raw" in answer["error"]["message"], answer
    assert dbg.json("status")["ok"]  # the session is still usable


@pytest.mark.parametrize("version", ["3.8", "3.12", "3.13"])
def test_tasks_on_other_pythons(dbg: Dbg, target: Any, version: str) -> None:
    """asyncio keeps its tasks differently from one version to the next (a
    weak set of all of them in 3.8-3.11, of the scheduled ones from 3.12,
    eager tasks apart): the listing is the same."""
    found = sorted((Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python"))
    require(bool(found), f"no Python {version} here (pyenv has none)")
    require_backend("pdb")
    program = target("asyncio/tasks.py")
    snap = dbg.json("start", "--backend", "pdb", "--python", str(found[-1]), "--break",
                    program.loc("report"), "--run", str(program.path))
    assert snap["_exit"] == 0 and snap["state"] == "stopped", snap
    tasks = {t["name"]: t for t in dbg.json("tasks")["tasks"]}
    assert tasks["waiter"]["awaits"] == "task sleeper (doze)", tasks
    assert tasks["consumer"]["awaits"].startswith("Queue.get -> "), tasks
    assert (tasks["finished"]["state"], tasks["cancelled"]["state"]) == ("done", "cancelled")
    assert tasks["reporter"]["current"] is True


def test_tasks_at_a_stop_outside_the_loop_thread(dbg: Dbg, target: Any) -> None:
    """debugpy stops in asyncio.to_thread's worker, where no loop runs:
    every live task is listed, the loop's main awaiting the thread."""
    program = target("asyncio/offloop.py")
    _stop(dbg, "debugpy", program, "in_thread")
    tasks = {t["name"]: t for t in dbg.json("tasks")["tasks"]}
    assert sorted(tasks) == ["Task-1", "ticker"], tasks
    assert tasks["Task-1"]["awaits"].startswith("to_thread -> "), tasks
    assert tasks["ticker"]["awaits"].startswith("sleep -> "), tasks
    assert not any(t["current"] for t in tasks.values())
