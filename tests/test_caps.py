"""`dbg caps`: the capability matrix, asked of the code and the debuggers."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from dbgcore.ops.table import BACKEND_OPS

#: The ops a backend answers by overriding a Backend method (the op table's).
CANONICAL_OPS = [op.name for op in BACKEND_OPS]


def test_caps_matrix_for_pdb_and_gdb(dbg: Any, backend_ready: Callable[[str], None]) -> None:
    backend_ready("pdb")
    backend_ready("gdb")
    data = dbg.json("caps", "--backend", "pdb", "--backend", "gdb")
    assert data["ok"], data
    assert set(CANONICAL_OPS) <= set(data["ops"])
    assert {"disasm", "memory-read", "scopes", "dap"} <= set(data["ops"])
    by_name = {b["name"]: b for b in data["backends"]}
    assert list(by_name) == ["pdb", "gdb"]
    pdb, gdb = by_name["pdb"]["ops"], by_name["gdb"]["ops"]
    assert (pdb["threads"], pdb["disasm"], pdb["break"]) == ("native", "none", "native")
    # gdb's DAP has no data breakpoints: dbg uses gdb's own `watch`; pdb has
    # no watchpoints: dbg checks the expression at each line of its frame.
    assert (gdb["watch"], gdb["memory-read"], gdb["until"]) == ("fallback", "native", "fallback")
    assert pdb["watch"] == "fallback"

    text = dbg("caps", "--backend", "pdb", "--backend", "gdb").out.splitlines()
    assert text[0].split() == ["pdb", "gdb"]
    assert "watch              fallback  fallback" in text

    table = dbg("caps", "--markdown", "--backend", "gdb").out.splitlines()
    assert table[0].startswith("| op | gdb (gdb ")
    assert "| `watch` | fallback |" in table


def test_caps_names_a_backend_that_is_not_ready_and_refuses_unknown_ones(dbg: Any) -> None:
    config = dbg.home / "config" / "dbg" / "backends.yaml"
    config.parent.mkdir(parents=True)
    config.write_text(textwrap.dedent("""
        backends:
          ghost:
            plugin: dap
            command: [dbgtest-no-such-adapter]
    """))
    data = dbg.json("caps", "--backend", "ghost")
    assert data["backends"][0]["ready"] is False
    assert "dbgtest-no-such-adapter not found" in data["backends"][0]["detail"]
    assert "ghost: not ready" in dbg("caps", "--backend", "ghost").out

    result = dbg("caps", "--backend", "nosuch")
    assert result.code == 2 and "unknown backend nosuch" in result.err, result
    assert "Traceback" not in result.err
