"""What is made from dbg's tables: the command reference in ``docs/cli.md``
(from the op table) and the plugin API's type stub ``dbgcore/api.pyi`` (from
:data:`dbgcore.api.EXPORTS`).

``python -m dbgcore.docgen`` rewrites the part of ``docs/cli.md`` between
``<!-- ops:begin -->`` and ``<!-- ops:end -->``, and the stub; unit tests check
that both are current.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dbgcore.api import EXPORTS
from dbgcore.backends.pluginhost import PluginHost
from dbgcore.ops.table import full_table
from dbgcore.vocab.opspec import Arg, Op, OpTable

BEGIN, END = "<!-- ops:begin -->", "<!-- ops:end -->"
GROUPS = {"sessions": "Sessions", "breakpoints": "Breakpoints", "execution": "Execution",
          "inspection": "Inspection", "history": "History",
          "profiling": "Profiling",
          "meta": "Meta", "dap": "DAP-level ops (plugin dbg_dap)"}


def synopsis(op: Op) -> str:
    words = ["dbg", *op.path]
    for arg in op.args:
        if arg.hidden:
            continue
        if arg.positional:
            label = arg.label + ("..." if arg.multiple or arg.kind == "text" else "")
            words.append(label if arg.required else f"[{label}]")
    if any(a.flags for a in op.args):
        words.insert(1 + len(op.path), "[OPTIONS]")
    return " ".join(words)


def _arg_row(arg: Arg) -> str:
    name = ", ".join(f"`{f}`" for f in arg.flags) if arg.flags else f"`{arg.label}`"
    if arg.flags and arg.kind != "bool":
        name += f" {arg.label}"
    notes = []
    if arg.multiple and arg.flags:
        notes.append("repeatable")
    if arg.required:
        notes.append("required")
    if arg.default not in (None, False, 0):
        notes.append(f"default {arg.default}")
    extra = f" ({', '.join(notes)})" if notes else ""
    return f"| {name} | {arg.kind} | {arg.help}{extra} |"


def reference(table: OpTable) -> str:
    out = ["Made from the op table by `python -m dbgcore.docgen`; do not edit by hand.", ""]
    for group, title in GROUPS.items():
        ops = [op for op in table if op.group == group and op.path]
        if not ops:
            continue
        out += [f"### {title}", ""]
        for op in ops:
            out += [f"#### `{' '.join(op.path)}`", "", "```text", synopsis(op), "```", "",
                    op.summary]
            notes = []
            if op.aliases:
                notes.append("alias " + ", ".join(f"`{a}`" for a in op.aliases))
            if op.stops:
                notes.append("blocks until the target stops; answers with a stop snapshot")
            if op.needs == "stopped":
                notes.append("needs a stopped target")
            if op.agent:
                notes.append(f"MCP tool `dbg_{op.name.replace('-', '_')}`")
            if notes:
                out += ["", "(" + "; ".join(notes) + ")"]
            args = [a for a in op.args if not a.hidden]
            if args:
                out += ["", "| Argument | Kind | Meaning |", "|---|---|---|",
                        *(_arg_row(a) for a in args)]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def rewrite(path: Path, table: OpTable) -> bool:
    """Put the reference into ``path``; True if that changed it."""
    text = path.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    new = f"{head}{BEGIN}\n{reference(table)}{END}{tail}"
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


#: The stub mypy reads for dbgcore.api, whose names are looked up on first use.
API_STUB = Path(__file__).resolve().parent / "api.pyi"


def _import_order(name: str) -> tuple[int, str]:
    """Where isort (ruff's ``I``) puts a name: constants, classes, then the rest."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def api_stub(exports: dict[str, tuple[str, ...]] = EXPORTS) -> str:
    """The text of ``dbgcore/api.pyi``: each public name imported from its
    home as itself, which is how a stub says that it exports the name."""
    out = ["# Made from dbgcore/api.py's EXPORTS by `python -m dbgcore.docgen`;"
           " do not edit by hand.", ""]
    for home in sorted(exports):
        out += [f"from {home} import {name} as {name}"
                for name in sorted(exports[home], key=_import_order)]
    return "\n".join([*out, "", "EXPORTS: dict[str, tuple[str, ...]]"]) + "\n"


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else \
        Path(__file__).resolve().parent.parent / "docs" / "cli.md"
    changed = rewrite(path, full_table(PluginHost()))
    print(f"{path}: {'updated' if changed else 'already current'}")
    stub = api_stub()
    current = API_STUB.exists() and API_STUB.read_text(encoding="utf-8") == stub
    if not current:
        API_STUB.write_text(stub, encoding="utf-8")
    print(f"{API_STUB}: {'already current' if current else 'updated'}")


if __name__ == "__main__":
    main()
