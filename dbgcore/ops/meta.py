"""The ops about dbg's backends and plugins, answered in the front end's
process: `dbg backends`, `plugins` and `caps`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.shared.errors import (
    UsageError,
)
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:

    from dbgcore.backends.registry import Front
    from dbgcore.vocab.opspec import Payload, Via


def run_backends(values: Payload, session: str, timeout: float,
                 front: Front) -> tuple[Payload, Via | None]:
    rows = []
    for spec in front.backends.config().backends.values():
        cls = front.backends.class_of(spec)
        if cls is None:
            rows.append({"name": spec.name, "plugin": spec.plugin, "ready": False,
                         "detail": f"plugin {spec.plugin!r} is not loaded (see dbg plugins)",
                         "install": spec.install})
            continue
        try:
            readiness = cls.check(spec)
        except Exception as exc:  # a plugin's check must not break the listing
            rows.append({"name": spec.name, "plugin": spec.plugin, "ready": False,
                         "detail": f"check failed: {exc}", "install": spec.install})
            continue
        rows.append({"name": spec.name, "plugin": spec.plugin, "ready": readiness.ready,
                     "detail": readiness.detail, "version": readiness.version,
                     "install": spec.install, "extensions": spec.extensions})
    return {"backends": rows}, None


def run_plugins(values: Payload, session: str, timeout: float,
                front: Front) -> tuple[Payload, Via | None]:
    # Plugins' hooks for commands and ops run only when a front end looks past
    # the built-in ones; run them here, so that one that fails is reported too.
    assert front.table is not None
    host = front.host
    host.add_commands_once()
    rows = [{"name": p.name, "source": p.source, "ok": p.ok, "error": p.error,
             "backends": list(p.backends), "profilers": list(p.profilers)}
            for p in host.report()]
    return {"plugins": rows}, None


def run_caps(values: Payload, session: str, timeout: float,
             front: Front) -> tuple[Payload, Via | None]:
    """Asked of the code and of the installed debuggers themselves (each DAP
    adapter is started to read the capabilities it announces)."""
    from dbgcore.backends.contract import FEATURES, answered_ops

    names = list(values.get("backend") or [])
    config = front.backends.config()
    unknown = [n for n in names if n not in config.backends]
    if unknown:
        raise UsageError(f"unknown backend {', '.join(unknown)}",
                         f"known backends: {', '.join(config.backends)}")
    columns: list[Payload] = []
    for spec in config.backends.values():
        if names and spec.name not in names:
            continue
        cls = front.backends.class_of(spec)
        column: Payload = {"name": spec.name, "tool": spec.name, "ready": False}
        if cls is None:
            column["detail"] = f"plugin {spec.plugin!r} is not loaded"
        else:
            column["tool"] = cls.tool_for(spec)
            try:
                readiness = cls.check(spec)
                column.update(version=readiness.version, detail=readiness.detail)
                if readiness.ready:
                    column["ops"] = dict(cls.support(spec, front.table))
                    column["ready"] = True
            except Exception as exc:  # one broken backend must not hide the others
                column["detail"] = f"cannot ask {spec.name}: {exc}"
        if column["ready"] or names:
            columns.append(column)
    answered = [op.name for op in answered_ops(front.table)]
    extra = sorted({op for c in columns for op in c.get("ops", {})
                    if op not in answered and op not in FEATURES})
    ops = [*answered, *FEATURES, *extra]
    for column in columns:
        if column["ready"]:
            column["ops"] = {op: column["ops"].get(op, "none") for op in ops}
    payload: Payload = {"ops": ops, "backends": columns}
    if values.get("markdown"):
        payload["markdown"] = True
    return payload, None


def render_backends(p: Payload) -> str:
    out = []
    for b in p.get("backends", []):
        mark = "ready  " if b["ready"] else "missing"
        line = f"{mark} {b['name']:<10} {b.get('detail') or ''}"
        if not b["ready"] and b.get("install"):
            line += f"\n          install: {b['install']}"
        out.append(line.rstrip())
    return "\n".join(out)


_CAP_MARKS = {"native": "yes", "fallback": "fallback", "none": "-"}


def render_caps(p: Payload) -> str:
    ready = [c for c in p.get("backends", []) if c.get("ready")]
    if p.get("markdown"):
        head = ["op", *(f"{c['name']} ({c['tool']} {c.get('version') or ''})".replace(" )", ")")
                        for c in ready)]
        rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for op in p["ops"]:
            cells = [_CAP_MARKS[c["ops"].get(op, "none")] for c in ready]
            rows.append(f"| `{op}` | " + " | ".join(cells) + " |")
        return "\n".join(rows)
    out = []
    if ready:
        width = max(len(op) for op in p["ops"]) + 2
        columns = [(c, max(len(c["name"]), 8) + 2) for c in ready]
        out.append("".ljust(width) + "".join(c["name"].ljust(w) for c, w in columns))
        for op in p["ops"]:
            row = "".join(_CAP_MARKS[c["ops"].get(op, "none")].ljust(w) for c, w in columns)
            out.append((op.ljust(width) + row).rstrip())
    for c in p.get("backends", []):
        if not c.get("ready"):
            out.append(f"{c['name']}: not ready ({c.get('detail') or 'unknown'})")
    return "\n".join(out)


def render_plugins(p: Payload) -> str:
    out = []
    for item in p.get("plugins", []):
        if item["ok"]:
            backends = ", ".join(item.get("backends") or []) or "no backends"
            if item.get("profilers"):
                backends = ("" if backends == "no backends" else backends + "; ") + \
                    "profilers " + ", ".join(item["profilers"])
            out.append(f"ok     {item['name']} ({item['source']}): {backends}")
        else:
            out.append(f"broken {item['name']} ({item['source']}): {item['error']}")
    return "\n".join(out)


#: The backend and plugin ops, in the op table's order.
OPS: tuple[Op, ...] = (
    Op("backends", "List backends: ready or missing, with how to install what is missing.",
       needs="none", send="local", run=run_backends, render=render_backends, group="meta"),
    Op("plugins", "List plugins and the backends each registers; broken ones say why.",
       needs="none", send="local", run=run_plugins, render=render_plugins, group="meta"),
    Op("caps", "Which ops each backend supports: natively, by a fallback, or not at all.", (
        Arg("backend", "str", "Only this backend; default: every ready one.",
            flags=("--backend", "-b"), multiple=True, metavar="NAME"),
        Arg("markdown", "bool", "Print the matrix as a Markdown table.", flags=("--markdown",)),
    ), needs="none", send="local", run=run_caps, render=render_caps, group="meta"),
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
