"""A deep recursion in `dbg stack` and `dbg stacks`: its innermost frames, a
count of the calls folded and the call that began it, not a hundred
identical lines; `--all` and `up` still reach every frame
(tests/targets/deep.py, tests/targets/native/deep.c)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import builds
import pytest

if TYPE_CHECKING:
    from conftest import Dbg


@pytest.mark.parametrize("backend", ["pdb", "debugpy", "gdb"])
def test_a_deep_recursion_is_folded_in_the_stack(
        dbg: Dbg, target: Any, backend: str, backend_ready: Callable[[str], None]) -> None:
    backend_ready(backend)
    if backend == "gdb":
        deep = target("native/deep.c")
        program = str(builds.build_c(deep.path))
    else:
        deep = target("deep.py")
        program = str(deep.path)
    dbg.json("start", "--backend", backend, "--break", deep.loc("base"), "--run", program)

    stack = dbg.json("stack")
    frames = stack["frames"]
    calls = [f for f in frames if f["function"] == "depth"]
    recurse = deep.lines["recurse"]
    # Frame 0 at the base case, three recursive calls, and the outermost
    # call of the recursion (the one main made).
    assert [f["line"] for f in calls] == [deep.lines["base"]] + [recurse] * 4, frames
    runs = [r for r in stack["hidden"] if r.get("recursion")]
    assert runs == [{"first": 4, "last": 99, "count": 96, "of": [], "recursion": "depth"}], stack
    assert [f["index"] for f in calls] == [0, 1, 2, 3, 100], frames
    assert any(f["function"] == "main" for f in frames), frames

    text = dbg("stack").out
    assert "96 more recursive calls of depth" in text, text
    assert len(text.splitlines()) < 12, text

    # Nothing is lost: --all lists every frame, and up walks through the
    # recursion one frame at a time.
    every = dbg.json("stack", "--all", "--levels", "200")["frames"]
    assert len([f for f in every if f["function"] == "depth"]) == 101, len(every)
    for index in (1, 2, 3, 4, 5):
        assert dbg.json("up")["frame"]["index"] == index

    if backend != "gdb":
        # `dbg stacks` folds it the same way.
        threads = dbg.json("stacks")["threads"]
        main_thread = next(t for t in threads if any(
            f["function"] == "depth" for f in t["frames"]))
        assert any(r.get("recursion") == "depth" and r["count"] >= 90
                   for r in main_thread["hidden"]), main_thread
