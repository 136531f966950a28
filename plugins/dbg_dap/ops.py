"""The DAP plugin's own ops (added to dbg's op table through ``dbg_add_ops``),
with their text renderers. Each names the :class:`dbg_dap.backend.DapBackend`
method that answers it, by name: every daemon and front end builds the op
table, and a pdb or jdb daemon must not import the DAP backend for it. A
backend without the method answers `unsupported`, naming the tool and
`dbg raw`."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from typing import Any

from dbgcore.api import Arg, Op

Payload = dict[str, Any]

#: The most children one `variables` request asks a paging adapter for (a
#: scope, a struct's fields, a page of `dbg vars`, whose --count it bounds).
#: Asked for "all", gdb and lldb-dap build every child first: a
#: 10,000,000-element array took them past 2 GB, and the session with them
#: (gdb answers nothing meanwhile).
MAX_CHILDREN = 1000
#: Children `dbg vars` shows when not told how many.
VARS_PAGE = 100


def _var(v: Payload) -> str:
    kind = f" ({v['type']})" if v.get("type") else ""
    return f"{v['name']} = {v['value']}{kind}"


def render_scopes(p: Payload) -> str:
    """Each scope and its reference; under it its variables, where the
    backend gave them with the scope (node does, but for the global one)."""
    lines = []
    for s in p.get("scopes", []):
        lines.append(f"{s['name']}: ref {s['reference']}"
                     + (" (expensive)" if s.get("expensive") else ""))
        for v in s.get("variables") or []:
            ref = f"  [ref {v['reference']}]" if v.get("reference") else ""
            lines.append(f"  {_var(v)}{ref}")
    return "\n".join(lines) or "no scopes"


def render_vars(p: Payload) -> str:
    lines = []
    for v in p.get("variables", []):
        ref = f"  [ref {v['reference']}]" if v.get("reference") else ""
        cut = f" [cut: {v['cut']} chars]" if v.get("cut") else ""
        lines.append(_var(v) + cut + ref)
    if "shown" in p and (p.get("more") or p.get("start")):
        start, shown = int(p["start"]), int(p["shown"])
        least = "at least " if p.get("listed_only") else ""
        of = f" of {least}{p['total']}" if p.get("total") else ""
        span = f"{start}-{start + shown - 1}" if shown else f"none from {start}"
        line = f"showing {shown}{of} ({span})"
        if p.get("more"):
            line += f"; `dbg vars {shlex.quote(p['target'])} --start {start + shown}` for more"
        elif p.get("listed_only"):
            line += (f"; the debugger lists only the first {p['total']}, "
                     "`dbg print` reads any element")
        lines.append(line)
    return "\n".join(lines) or "no children"


def render_disasm(p: Payload) -> str:
    out = []
    for i in p.get("instructions", []):
        mark = ">" if str(i.get("address")) == str(p.get("address")) else " "
        symbol = f" <{i['symbol']}>" if i.get("symbol") else ""
        out.append(f"{mark} {i.get('address')}{symbol}: {i.get('instruction')}")
    return "\n".join(out) or "no instructions"


def render_memory(p: Payload) -> str:
    data = bytes.fromhex(p.get("hex", ""))
    base = int(str(p.get("address") or "0"), 0)
    rows = []
    for offset in range(0, len(data), 16):
        chunk = data[offset : offset + 16]
        text = "".join(chr(c) if 32 <= c < 127 else "." for c in chunk)
        rows.append(f"{base + offset:#018x}: {chunk.hex(' '):<47}  {text}")
    if p.get("unreadable"):
        rows.append(f"({p['unreadable']} bytes unreadable)")
    return "\n".join(rows) or "no bytes"


def _listing(key: str, fields: tuple[str, ...]) -> Callable[[Payload], str]:
    def render_rows(p: Payload) -> str:
        rows = p.get(key) or []
        return "\n".join("  ".join(str(r.get(f)) for f in fields if r.get(f) is not None)
                         for r in rows) or f"no {key}"

    return render_rows


def render_dap(p: Payload) -> str:
    return json.dumps(p.get("body"), indent=2, ensure_ascii=False)


def render_break(p: Payload) -> str:
    from dbgcore.api import render

    return render("break", p)


OPS = (
    Op("scopes", "List the scopes of the selected frame (or FRAME), with their references.", (
        Arg("frame", "int", "A frame index (default: the selected frame).", minimum=0),
    ), needs="stopped", method="op_scopes", render=render_scopes, group="dap"),
    Op("vars", "Children of a variable, by reference number or value path (cart.items[2]).", (
        Arg("ref", "str", "A reference from `dbg scopes`/`dbg vars`, or a value path.",
            required=True, metavar="REF|PATH"),
        Arg("start", "int", "First child to show.", flags=("--start",), default=0, minimum=0),
        Arg("count", "int", f"How many (0: a page, {VARS_PAGE} where the debugger pages; "
            f"at most {MAX_CHILDREN}).", flags=("--count",), default=0, minimum=0,
            maximum=MAX_CHILDREN),
    ), needs="stopped", method="op_vars", render=render_vars, group="dap"),
    Op("disasm", "Disassemble around ADDRESS (default: the current instruction).", (
        Arg("address", "str", "An address or an expression giving one.", expression=True),
        Arg("count", "int", "How many instructions.", flags=("--count",), default=10,
            minimum=1, maximum=10000),
    ), needs="stopped", method="op_disasm", render=render_disasm, group="dap"),
    Op("memory-read", "Read COUNT bytes of the target's memory at ADDRESS.", (
        Arg("address", "str", "An address or an expression giving one.", required=True,
            expression=True),
        Arg("count", "int", "How many bytes.", required=True, minimum=1, maximum=1 << 20),
    ), needs="stopped", method="op_memory_read", render=render_memory, group="dap",
       path=("memory", "read")),
    Op("memory-write", "Write HEX bytes (e.g. deadbeef) to the target's memory at ADDRESS.", (
        Arg("address", "str", "An address or an expression giving one.", required=True,
            expression=True),
        Arg("hex", "str", "The bytes, in hexadecimal.", required=True, metavar="HEX"),
    ), needs="stopped", method="op_memory_write", group="dap",
       path=("memory", "write"),
       render=lambda p: f"wrote {p.get('written')} bytes at {p.get('address')}"),
    # Sent by `dbg break --instruction ADDR`; no command of its own.
    Op("break-instruction", "Set a breakpoint at an instruction address.", (
        Arg("address", "str", "The instruction's address.", required=True),
        Arg("condition", "str", "Stop only when COND is true."),
        Arg("hit", "int", "Stop on the Nth hit.", minimum=1),
    ), method="op_break_instruction", render=render_break, group="dap", path=(),
       agent=False),
    Op("modules", "List loaded modules (shared libraries).", needs="stopped",
       method="op_modules", render=_listing("modules", ("id", "name", "path")),
       group="dap"),
    Op("sources", "List loaded source files.", needs="stopped", method="op_sources",
       render=_listing("sources", ("name", "path")), group="dap"),
    Op("dap", "Send any DAP request and print the raw response body.", (
        Arg("command", "str", "The request's command (e.g. evaluate).", required=True),
        Arg("arguments", "json", "Its arguments, a JSON object.", metavar="[JSON]"),
    ), method="op_dap", render=render_dap, group="dap", details=(
        "The requests that begin and end the session (initialize, launch, attach, "
        "disconnect) are dbg's own, and refused (exit 2): `dbg start`, `dbg restart`, "
        "`dbg attach` and `dbg kill` send them. Without COMMAND (`dbg dap`, `dbg dap "
        "--listen PORT`), dbg is a DAP server instead: `dbg dap-server --help`.")),
)
