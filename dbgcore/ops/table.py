"""The op table: every op dbg offers, each declared once.

An :class:`~dbgcore.vocab.opspec.Op` names the op, its aliases, its typed
arguments, what state the session must be in, a one-line summary, and the
functions that do it: the front end's preparation, the daemon's handler,
the backend method that answers it (:class:`dbgcore.backends.contract.Backend`)
and its text renderer. dbg's own ops are declared by op groups, one module
each with every function of its ops (:mod:`dbgcore.ops.starting`,
:mod:`~dbgcore.ops.breakpoints`, :mod:`~dbgcore.ops.execution`...), which
register them as a plugin registers its ops: through a ``dbg_add_ops(add)``
function. They are listed in :data:`DEFAULT_OP_PLUGINS`, whose order is the
table's (`dbg caps`, the MCP tools, ``docs/cli.md``). Everything else is
made from this table: the click commands (:mod:`dbgcore.frontends.cli.build`),
the fast path (:mod:`dbgcore.entry`), the daemon's dispatch and state checks
(:mod:`dbgcore.daemon.session`), what each backend supports (`dbg caps`), the
MCP tools (:mod:`dbgcore.frontends.mcp.server`) and the command reference in
``docs/cli.md`` (:mod:`dbgcore.docgen`). Plugins add their own ops through
the ``dbg_add_ops`` hook, after these.

Kept free of heavy imports: every front end reads this table, and the op
groups keep what only an op's body needs out of their own imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from dbgcore.backends.contract import answered_ops
from dbgcore.backends.registry import Front
from dbgcore.ops.stops import text
from dbgcore.vocab.opspec import Arg, Op, OpTable, Payload, Renderer, Start

if TYPE_CHECKING:
    from collections.abc import Callable

    from dbgcore.backends.pluginhost import PluginHost

__all__ = ["BACKEND_OPS", "BUILTIN", "DEFAULT_OP_PLUGINS", "Arg", "Op", "OpTable",
           "builtin_table", "front", "full_table", "render"]

#: dbg's own op plugins, by module name, in the order of their ops in the
#: table (pytest's ``default_plugins``). Each module's ``dbg_add_ops(add)``
#: adds its ops. The last is a front end's: its ops' bodies are the doctor,
#: the bug report, the agents' set-up and the MCP server, so it is named
#: here and loaded as a plugin is, not imported by the op vocabulary.
DEFAULT_OP_PLUGINS: tuple[str, ...] = (
    "dbgcore.ops.starting",
    "dbgcore.ops.memcheck",
    "dbgcore.ops.sessions",
    "dbgcore.ops.breakpoints",
    "dbgcore.ops.execution",
    "dbgcore.ops.inspection",
    "dbgcore.ops.stacks",
    "dbgcore.ops.listing",
    "dbgcore.ops.program",
    "dbgcore.ops.history",
    "dbgcore.ops.profiling",
    "dbgcore.ops.memory",
    "dbgcore.ops.cross",
    "dbgcore.ops.meta",
    "dbgcore.frontends.localops",
)


def _builtin_ops() -> tuple[Op, ...]:
    """The ops of :data:`DEFAULT_OP_PLUGINS`, each plugin's hook called in turn."""
    ops: list[Op] = []
    for name in DEFAULT_OP_PLUGINS:
        importlib.import_module(name).dbg_add_ops(ops.append)
    return tuple(ops)


#: dbg's own ops, in the table's order.
BUILTIN: tuple[Op, ...] = _builtin_ops()


#: The ops a backend answers by overriding a :class:`Backend` method (the
#: rows of `dbg caps` before the features), in `dbg caps`'s order.
BACKEND_OPS: list[Op] = answered_ops(BUILTIN)

_BUILTIN_TABLE: OpTable | None = None


def builtin_table() -> OpTable:
    """dbg's own ops (no plugin's)."""
    global _BUILTIN_TABLE
    if _BUILTIN_TABLE is None:
        _BUILTIN_TABLE = OpTable(BUILTIN)
    return _BUILTIN_TABLE


def full_table(host: PluginHost) -> OpTable:
    """dbg's ops and those of every plugin ``host`` loaded (their
    ``dbg_add_ops`` hooks run now)."""
    table = OpTable(BUILTIN)
    host.add_ops(table)
    return table


def front(make_host: Callable[[], PluginHost], start: Start | None = None) -> Front:
    """What a process that answers ops hands them: every op the plugins of
    the host offer, their backends, and ``start`` for the ops that start a
    session. Made once, by the entry point; the host is made (the plugins
    loaded) when first needed."""
    return Front(make_host, full_table, start)


def render(op: str, payload: Payload, table: OpTable | None = None) -> str:
    """The text of ``op``'s answer, by the renderer its declaration names (in
    ``table``, default dbg's own ops)."""
    spec = (table or builtin_table()).find(op)
    renderer: Renderer | None = spec.render if spec is not None else None
    return text(renderer, payload)
