"""The hooks a dbg plugin can implement.

A plugin is a module (or object) with functions marked ``@hookimpl`` whose names
match these specs. Built-in plugins are listed in ``dbgcore.backends.pluginhost.DEFAULT_PLUGINS``;
third-party plugins are found through the ``dbg`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pluggy

from dbgcore.shared.jsontypes import JsonObject

if TYPE_CHECKING:
    import click

    from dbgcore.backends.contract import Backend
    from dbgcore.backends.profiler import Profiler
    from dbgcore.vocab.opspec import Op

hookspec = pluggy.HookspecMarker("dbg")
hookimpl = pluggy.HookimplMarker("dbg")


@hookspec
def dbg_register_backends(register: Callable[[type[Backend]], None]) -> None:
    """Register the backend classes this plugin provides.

    :param register: call it once per :class:`dbgcore.backends.contract.Backend` subclass;
        the class's ``id`` is the name backends.yaml uses in ``plugin:``.

    Every plugin's implementation is called; a registration that fails is
    reported by ``dbg plugins`` and does not stop the others. A plugin
    module's ``DBG_BACKEND_IDS`` tuple names the ids it registers: a daemon
    that needs another backend does not call its hook (see
    :meth:`dbgcore.backends.pluginhost.PluginHost.backend_class`).
    """


@hookspec
def dbg_register_profilers(register: Callable[[type[Profiler]], None]) -> None:
    """Register the profiler classes this plugin provides: the second kind
    of backend, which records where a program's time goes (`dbg profile`),
    or its memory (``measures = "heap"``: `dbg heap`; ``"leaks"``: `dbg
    leaks`).

    :param register: call it once per :class:`dbgcore.backends.profiler.Profiler`
        subclass; its ``id`` is the name ``--tool`` picks it by.

    Every plugin's implementation is called, in the order the plugins load;
    for a program, the first registered profiler that fits it and is
    installed is chosen. An id already registered is refused (the first
    keeps it) and that plugin reported broken by ``dbg plugins``.
    """


@hookspec
def dbg_backend_files(add: Callable[[Path], None]) -> None:
    """Name the backends.yaml files this plugin ships, with the entries of
    the backends it brings (``plugin:``, ``extensions:``, ``install:``...).

    :param add: call it with the path of each file (the same format as dbg's
        own backends.yaml; ship it inside the package).

    Every plugin's implementation is called, in every process that reads
    backends.yaml; a file that is malformed makes its plugin broken in ``dbg
    plugins`` and is left out. The files are read after dbg's own file and
    before the user's and the project's, which may override any key of them.
    An entry whose name dbg's file or an earlier plugin's already uses is left
    out: a plugin adds backends, it does not take over others'.
    """


@hookspec
def dbg_add_commands(cli: click.Group) -> None:
    """Add CLI commands to ``dbg``.

    :param cli: the top-level ``dbg`` click group; call ``cli.add_command``.

    Every plugin's implementation is called when the CLI starts; one that
    fails is reported by ``dbg plugins`` and its commands are left out.
    """


@hookspec
def dbg_add_ops(add: Callable[[Op], None]) -> None:
    """Add ops to dbg's op table.

    :param add: call it once per :class:`dbgcore.vocab.opspec.Op`. The op gets a
        CLI command, an MCP tool and a place in the docs like the built-in
        ones. The session daemon answers it by the op's ``handler``
        (``(session, args, timeout) -> payload``) or, for an op your backend
        answers, by the backend method the op names: ``method="op_heap"``
        (by name, so that building the op table imports no backend; called
        ``(args, timeout) -> payload``); a backend whose class lacks
        that method refuses it as unsupported, and `dbg caps` shows it
        supported exactly where the class has it. (An op with neither goes to
        the backend's method ``op_<name>``, ``-`` in the name becoming ``_``.)

    Every plugin's implementation is called; an op whose name is taken is
    refused, and that plugin reported broken by ``dbg plugins`` (the others'
    ops are kept).
    """


@hookspec
def dbg_stop_recorded(session: str, snapshot: JsonObject) -> None:
    """Called in the session daemon after a stop has been saved to the store.

    :param session: the session's name.
    :param snapshot: the stop snapshot as sent to the client (``state``,
        ``reason``, ``location``, ``locals``...).

    Every plugin's implementation is called; errors are logged in the
    session's daemon log and otherwise ignored, so a plugin cannot break a session.
    """
