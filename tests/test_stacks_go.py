"""`dbg stacks` on a running Go program (delve): a goroutine that holds a
mutex while it waits on a channel, one blocked on that mutex, and main
asleep in a loop (tests/targets/gostuck). Each goroutine's stack names its
line, with the wait reason the Go runtime keeps for it (delve reads
``runtime.curg.waitreason``): a lock's wait is "blocked", the others
"waiting"; the program runs on after."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from builds import build_go, copy_tree

from dbgcore.testing import marked_lines, require_backend

if TYPE_CHECKING:
    from pathlib import Path

    from conftest import Dbg


def test_goroutines_each_at_its_line_with_its_wait_reason(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("dlv")
    package = copy_tree("gostuck", tmp_path)
    program = build_go(package)
    lines = marked_lines(package / "main.go")
    assert dbg.json("start", "--backend", "dlv", str(program))["ok"]
    running = dbg.json("--timeout", "1", "continue")
    assert running["ok"] and running["state"] == "running", running

    answer = dbg.json("stacks")
    assert answer["ok"] and answer["source"] == "dlv", answer

    def at(function: str) -> dict[str, Any]:
        return next(t for t in answer["threads"]
                    if any(f["function"] == function for f in t["frames"]))

    def line(thread: dict[str, Any], function: str) -> int:
        return next(f["line"] for f in thread["frames"] if f["function"] == function)

    settle, audit, main = at("main.settle"), at("main.audit"), at("main.main")
    assert line(settle, "main.settle") == lines["settle-waits"], settle
    assert line(audit, "main.audit") == lines["audit-blocks"], audit
    assert line(main, "main.main") == lines["main-sleeps"], main
    assert (settle["state"], settle["waits"]) == ("waiting", "chan receive"), settle
    assert audit["state"] == "blocked" and audit["waits"] in ("semacquire",
                                                              "sync mutex lock"), audit
    assert (main["state"], main["waits"]) == ("waiting", "sleep"), main
    text = dbg("stacks").out
    assert "(blocked)" in text and "chan receive" in text, text
    assert dbg.json("status")["state"] == "running"
