"""Pending breakpoints: set in a library the program has not loaded yet, shown
as pending, then as bound once the debugger says they bound, and hit."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import builds
import pytest


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
def test_breakpoint_in_a_library_loaded_later_binds_and_hits(
        dbg: Any, target: Any, backend_ready: Callable[[str], None], backend: str) -> None:
    backend_ready(backend)
    source = target("native/dlplugin.c")
    plugin, line = source.path, source.lines["square"]
    host = builds.build_c(target("native/dlhost.c").path)
    library = plugin.with_name("libdlplugin.so")
    subprocess.run(["gcc", "-g", "-O0", "-shared", "-fPIC", str(plugin), "-o", str(library)],
                   check=True)

    assert dbg.json("start", "--backend", backend, str(host), str(library))["ok"]
    by_line = dbg.json("break", f"{plugin}:{line}")["breakpoint"]
    by_name = dbg.json("break", "plugin_square")["breakpoint"]
    assert (by_line["verified"], by_name["verified"]) == (False, False)
    assert "pending" in dbg("breaks").out

    stop = dbg.json("continue")
    assert (stop["reason"], stop["location"]["line"]) == ("breakpoint", line), stop
    listed = {b["id"]: b for b in dbg.json("breaks")["breakpoints"]}
    assert listed[by_line["id"]]["verified"] is True
    assert listed[by_line["id"]]["line"] == line
    assert listed[by_name["id"]]["verified"] is True
    assert "pending" not in dbg("breaks").out
    assert dbg.json("print", "x")["value"] == "7"
    assert dbg.json("continue")["exit_code"] == 0
    chunks = dbg.json("output")["chunks"]
    assert "49" in "".join(c["text"] for c in chunks if c["category"] == "stdout")
