"""Meta commands: backends, plugins, tool, hits."""

from __future__ import annotations

import os
from typing import Any

import click

from dbgcore.cli.common import send
from dbgcore.cli.output import emit, fail, get_ctx
from dbgcore.errors import DbgError, UsageError
from dbgcore.location import BreakLoc


@click.command()
def backends() -> None:
    """List backends: ready or missing, with how to install what is missing."""
    from dbgcore.config import load_config
    from dbgcore.plugins import get_host

    try:
        config = load_config()
    except DbgError as exc:
        fail("backends", exc)
    classes = get_host().backend_classes()
    rows = []
    for spec in config.backends.values():
        cls = classes.get(spec.plugin)
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
    emit("backends", {"backends": rows})


@click.command()
def plugins() -> None:
    """List plugins and the backends each registers; broken ones say why."""
    from dbgcore.plugins import get_host

    # Plugins' dbg_add_commands hooks run only when the CLI looks past its
    # built-in commands; listing the commands runs them, so one that fails is
    # reported here too.
    root = click.get_current_context().find_root()
    if isinstance(root.command, click.Group):
        root.command.list_commands(root)
    rows = [{"name": p.name, "source": p.source, "ok": p.ok, "error": p.error,
             "backends": list(p.backends)} for p in get_host().report()]
    emit("plugins", {"plugins": rows})


@click.command()
def tool() -> None:
    """Show the debugger (tool and version) behind the current session."""
    send("tool")


@click.command()
@click.argument("location", required=False)
@click.option("--all", "all_sessions", is_flag=True,
              help="Every recorded session of this name, not just the latest.")
@click.option("--limit", type=click.IntRange(min=1), default=200, show_default=True)
def hits(location: str | None, all_sessions: bool, limit: int) -> None:
    """List recorded stops (optionally only those at LOCATION). Works after the
    session has ended, and after a crash."""
    from dbgcore.store import Store

    ctx = get_ctx()
    try:
        wanted = BreakLoc.parse(location) if location else None
    except UsageError as exc:
        fail("hits", exc)
    store = Store()
    try:
        session_id = None if all_sessions else store.latest_session_id(ctx.session)
        if session_id is None and not all_sessions:
            emit("hits", {"hits": [], "filter": location})
        rows = store.hits(session_id, name=ctx.session, limit=100_000)
    finally:
        store.close()
    if wanted is not None:
        rows = [r for r in rows if _matches(r, wanted)]
    emit("hits", {"hits": rows[:limit], "filter": location, "total": len(rows)})


def _matches(row: dict[str, Any], loc: BreakLoc) -> bool:
    if loc.function:
        name = row.get("function") or ""
        return name == loc.function or name.endswith("." + loc.function)
    if loc.line != row.get("line"):
        return False
    if not loc.file:
        return True
    file = row.get("file") or ""
    return file == loc.file or os.path.basename(file) == loc.file or file.endswith("/" + loc.file)


COMMANDS = [backends, plugins, tool, hits]


_MARKS = {"native": "yes", "fallback": "fallback", "none": "-"}


@click.command()
@click.option("--backend", "-b", "names", multiple=True, metavar="NAME",
              help="Only this backend (repeatable); default: every ready one.")
@click.option("--markdown", is_flag=True, help="Print the matrix as a Markdown table.")
def caps(names: tuple[str, ...], markdown: bool) -> None:
    """Which ops each backend supports: natively, by a fallback, or not at all.

    Asked of the code and of the installed debuggers themselves (each DAP
    adapter is started to read the capabilities it announces)."""
    from dbgcore.backend import CANONICAL_OPS, FEATURES
    from dbgcore.config import load_config
    from dbgcore.plugins import get_host

    try:
        config = load_config()
        unknown = [n for n in names if n not in config.backends]
        if unknown:
            raise UsageError(f"unknown backend {', '.join(unknown)}",
                             f"known backends: {', '.join(config.backends)}")
    except DbgError as exc:
        fail("caps", exc)
    classes = get_host().backend_classes()
    columns: list[dict[str, Any]] = []
    for spec in config.backends.values():
        if names and spec.name not in names:
            continue
        cls = classes.get(spec.plugin)
        column: dict[str, Any] = {"name": spec.name, "tool": spec.name, "ready": False}
        if cls is None:
            column["detail"] = f"plugin {spec.plugin!r} is not loaded"
        else:
            column["tool"] = cls.tool_for(spec)
            try:
                readiness = cls.check(spec)
                column.update(version=readiness.version, detail=readiness.detail)
                if readiness.ready:
                    column["ops"] = dict(cls.support(spec))
                    column["ready"] = True
            except Exception as exc:  # one broken backend must not hide the others
                column["detail"] = f"cannot ask {spec.name}: {exc}"
        if column["ready"] or names:
            columns.append(column)
    extra = sorted({op for c in columns for op in c.get("ops", {})
                    if op not in CANONICAL_OPS and op not in FEATURES})
    ops = [*CANONICAL_OPS, *FEATURES, *extra]
    for column in columns:
        if column["ready"]:
            column["ops"] = {op: column["ops"].get(op, "none") for op in ops}
    if markdown and not get_ctx().json:
        ready = [c for c in columns if c["ready"]]
        head = ["op", *(f"{c['name']} ({c['tool']} {c.get('version') or ''})".replace(" )", ")")
                        for c in ready)]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for op in ops:
            cells = [_MARKS[c["ops"].get(op, "none")] for c in ready]
            lines.append(f"| `{op}` | " + " | ".join(cells) + " |")
        click.echo("\n".join(lines))
        return
    emit("caps", {"ops": ops, "backends": columns})


COMMANDS.append(caps)
