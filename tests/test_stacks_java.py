"""`dbg stacks` on a running Java program (jdb): two threads deadlocked on
two monitors taken in opposite orders (tests/targets/java/Deadlock.java).
jdb reads stacks only of a suspended VM; the JDK's jstack reads them while
it runs: each thread at the line it blocks at, what it waits to lock and
which thread holds it, and the program still running after."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg


def test_a_java_deadlock_read_by_jstack_names_each_lock_s_holder(dbg: Dbg, target: Any) -> None:
    require_backend("jdb")
    program = target("java/Deadlock.java")
    assert dbg.json("start", "--backend", "jdb", str(program.path))["ok"]
    running = dbg.json("--timeout", "3", "continue")
    assert running["ok"] and running["state"] == "running", running

    answer = dbg.json("stacks")
    assert answer["ok"] and answer["source"] == "jstack", answer
    threads = {t["name"]: t for t in answer["threads"]}
    assert {"main", "forward", "backward"} <= set(threads), answer

    def own(thread: dict[str, Any]) -> tuple[str, int]:
        frame = next(f for f in thread["frames"] if (f.get("file") or "").endswith(
            "Deadlock.java"))
        return frame["function"], frame["line"]

    assert own(threads["forward"]) == ("Deadlock.forward", program.lines["forward-blocks"])
    assert own(threads["backward"]) == ("Deadlock.backward", program.lines["backward-blocks"])
    assert own(threads["main"]) == ("Deadlock.main", program.lines["main-waits"])
    assert threads["forward"]["state"] == threads["backward"]["state"] == "blocked"
    assert threads["forward"]["waits"] == "waiting to lock a java.lang.Object held by " \
        "'backward'", threads["forward"]
    assert threads["backward"]["waits"].endswith("held by 'forward'"), threads["backward"]
    assert threads["main"]["state"] == "waiting", threads["main"]
    # The JDK's own threads are counted, not shown.
    assert answer["library_threads"]["count"] >= 1, answer

    text = dbg("stacks").out
    assert "(read by jstack)" in text and "held by 'forward'" in text, text
    assert dbg.json("status")["state"] == "running"
    paused = dbg.json("pause")
    assert paused["ok"] and paused["state"] == "stopped", paused
