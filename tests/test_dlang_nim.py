"""D (ldc) and Nim on gdb and lldb: `dbg start shop.d|shop.nim` builds the
source with debug info, frames are named as the language's user writes
them, strings read as text, and the compilers' temporaries are not among
the locals (issue 42, part 5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import builds
import pytest


def _frame_names(dbg: Any) -> list[str]:
    return [str(f["function"]) for f in dbg.json("stack")["frames"]]


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
def test_a_d_program_reads_as_d(dbg: Any, target: Any, backend_ready: Callable[[str], None],
                                backend: str) -> None:
    backend_ready(backend)
    builds._need("ldc2")
    source = target("native/shop.d")
    stop = dbg.json("start", "--backend", backend, "--break", source.loc("loop"), "--run",
                    str(source.path))
    assert stop["_exit"] == 0, stop
    assert stop["build"]["command"].startswith("ldc2 -g -O0 "), stop["build"]
    assert (stop["reason"], stop["location"]["line"]) == ("breakpoint", source.lines["loop"])
    # The D name, demangled by the debugger (gdb) or by dbg (lldb), without
    # its parameters on both.
    assert stop["location"]["function"] == "shop.total", stop["location"]
    assert _frame_names(dbg)[:2] == ["shop.total", "D main"]
    assert dbg.json("print", "item.name")["value"] == '"apple"'
    locals_ = {v["name"]: v for v in dbg.json("locals")["variables"]}
    assert {"items", "sum", "item"} <= set(locals_), locals_
    assert not [n for n in locals_ if n.startswith("__")], locals_  # foreach's __r, __key
    assert dbg.json("print", "item")["value"] == '{name = "apple", price = 3, quantity = 2}'
    assert dbg.json("print", "items")["value"].startswith("shop.Item[] of length 3")
    # gdb's D parser cannot index a slice (`items[1]`): a value path can.
    assert [(v["name"], v["value"]) for v in dbg.json("vars", "items[1].name")["variables"]] \
        == [("name", '"pear"')]
    assert dbg.json("kill")["_exit"] == 0


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
@pytest.mark.parametrize(("program", "compiler", "function", "entry"), [
    ("native/cart.d", "ldc2", "cart.apply_discount", "D main"),
    ("native/cart.d", "ldc2", "apply_discount", "D main"),
    ("native/cart.nim", "nim", "apply_discount", "NimMainModule"),
])
def test_entry_and_a_function_breakpoint_are_the_programs_own(
        dbg: Any, target: Any, backend_ready: Callable[[str], None], backend: str,
        program: str, compiler: str, function: str, entry: str) -> None:
    backend_ready(backend)
    builds._need(compiler)
    source = target(program)
    start = dbg.json("start", "--backend", backend, str(source.path))
    # The program's own first line, not the runtime's C main.
    assert (start["reason"], start["location"]["file"], start["location"]["line"]) == \
        ("entry", str(source.path), source.lines["main-first"]), start["location"]
    assert start["location"]["function"] == entry
    # By the name its user writes: bound to the function's code, not pending.
    made = dbg.json("break", function)["breakpoint"]
    assert made["verified"] is True and made["file"] == str(source.path), made
    stop = dbg.json("continue")
    assert stop["reason"] == "breakpoint" and stop["location"]["function"].endswith(
        "apply_discount"), stop["location"]
    assert dbg.json("kill")["_exit"] == 0


def test_a_nim_program_reads_as_nim_on_gdb(dbg: Any, target: Any,
                                           backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")
    builds._need("nim")
    source = target("native/shop.nim")
    stop = dbg.json("start", "--break", source.loc("loop"), "--run", str(source.path))
    assert stop["_exit"] == 0, stop
    assert stop["via"]["tool"] == "gdb"
    assert stop["build"]["command"].startswith("nim c --debugger:native "), stop["build"]
    assert stop["reason"] == "breakpoint", stop
    assert stop["location"]["function"] == "total", stop["location"]
    locals_ = {v["name"]: v for v in dbg.json("locals")["variables"]}
    assert {"items", "sum", "item", "cost", "result"} <= set(locals_), locals_
    assert not [n for n in locals_ if n.endswith("_")], locals_
    assert dbg.json("print", "item.name")["value"] == '"apple"'
    assert dbg.json("print", "items")["value"].startswith("seq of length 2")
    assert [(v["name"], v["value"]) for v in dbg.json("vars", "items[1].name")["variables"]] \
        == [("name", '"pear"')]
    # Nim files `sum += cost` under the `for` line: a breakpoint there binds
    # at the next line with code, and says so.
    moved = dbg.json("break", source.loc("add"))
    assert moved["_exit"] == 0 and moved["breakpoint"]["line"] == source.lines["add"] + 1, moved
    assert dbg.json("kill")["_exit"] == 0
