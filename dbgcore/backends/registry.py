"""The backends: a name in backends.yaml, its entry, and the class that
drives it, looked up here and nowhere else.

A :class:`BackendRegistry` is made from the plugin host by the process's
entry point (the CLI, the daemon, the MCP server, the testing kit) and handed
down to whatever chooses or starts a backend, with the op table, as a
:class:`Front` (:func:`dbgcore.ops.table.front` makes one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.shared.errors import BackendMissing, DbgError, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from dbgcore.backends.config import LoadedConfig
    from dbgcore.backends.contract import Backend, BackendSpec
    from dbgcore.backends.pluginhost import PluginHost
    from dbgcore.vocab.opspec import OpTable, Start


class BackendRegistry:
    """Backend name -> backends.yaml entry (:class:`BackendSpec`) -> class."""

    def __init__(self, host: PluginHost) -> None:
        self.host = host

    def config(self, cwd: Path | None = None) -> LoadedConfig:
        """backends.yaml as seen from ``cwd`` (dbg's, the plugins', the
        user's and the project's files, merged)."""
        from dbgcore.backends.config import load_config  # YAML: only for what reads the files

        return load_config(cwd, self.host.backend_files())

    def classes(self) -> dict[str, type[Backend]]:
        """Every registered backend class, by the ``plugin:`` name that picks it."""
        return self.host.backend_classes()

    def class_of(self, spec: BackendSpec) -> type[Backend] | None:
        """The class that drives ``spec``; None when its plugin is not loaded."""
        return self.host.backend_class(spec.plugin)

    def spec(self, name: str, cwd: Path | None = None) -> BackendSpec:
        config = self.config(cwd)
        spec = config.backends.get(name)
        if spec is None:
            raise UsageError(f"unknown backend {name!r}",
                             f"known backends: {', '.join(config.backends)}")
        return spec

    def loaded(self, name: str, cwd: Path | None = None) -> tuple[BackendSpec, type[Backend]]:
        """The entry and its class; refused when the class's plugin is not loaded."""
        spec = self.spec(name, cwd)
        cls = self.class_of(spec)
        if cls is None:
            raise BackendMissing(
                f"backend {name!r} needs plugin {spec.plugin!r}, which is not loaded",
                "see `dbg plugins` for plugins that failed to load",
            )
        return spec, cls

    def ready(self, name: str, cwd: Path | None = None) -> tuple[BackendSpec, type[Backend]]:
        """As :meth:`loaded`, and refused unless its debugger is installed."""
        spec, cls = self.loaded(name, cwd)
        readiness = cls.check(spec)
        if not readiness.ready:
            raise BackendMissing(f"backend {name!r} is not ready: {readiness.detail}",
                                 spec.install)
        return spec, cls

    def select(self, program: Path, cwd: Path | None = None) -> BackendSpec:
        """The backend that fits ``program`` (:mod:`dbgcore.backends.choice`)."""
        from dbgcore.backends.choice import select_backend

        return select_backend(program, self.config(cwd).backends, self.classes())


class Front:
    """What a process that answers ops hands them: its op table and its
    backends, both from one plugin host, and (in a front end that starts
    sessions: the CLI, MCP) how to start a session's daemon, ``start``
    (:func:`dbgcore.start.spawn.start`). Made once by the process's entry point;
    the host is made, and the plugins loaded, when first needed (most CLI
    commands never need them)."""

    def __init__(self, host: Callable[[], PluginHost],
                 table: Callable[[PluginHost], OpTable], start: Start | None = None) -> None:
        self._make_host = host
        self._make_table = table
        self.start = start
        self._host: PluginHost | None = None
        self._table: OpTable | None = None
        self._backends: BackendRegistry | None = None

    @property
    def host(self) -> PluginHost:
        if self._host is None:
            self._host = self._make_host()
        return self._host

    @property
    def table(self) -> OpTable:
        """Every op: dbg's and the plugins' (their ``dbg_add_ops`` hooks run
        on first use)."""
        if self._table is None:
            self._table = self._make_table(self.host)
        return self._table

    @property
    def backends(self) -> BackendRegistry:
        if self._backends is None:
            self._backends = BackendRegistry(self.host)
        return self._backends

    def backend_support(self) -> dict[str, dict[str, str]]:
        """Each configured backend's op support as its code declares it (no
        debugger is started for this): what `dbg mcp`'s tool listing names.
        Here, beside the table and the backends it reads, so that `dbg
        mcp`'s fork helper, which has every backend's class loaded, answers
        it for the front end without importing one."""
        out: dict[str, dict[str, str]] = {}
        try:
            config = self.backends.config()
        except DbgError:
            return out
        for spec in config.backends.values():
            cls = self.backends.class_of(spec)
            if cls is not None:
                out[spec.name] = dict(cls.declared_support(self.table))
        return out
