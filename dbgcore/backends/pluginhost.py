"""Loading plugins, and a typed way to call them.

Built-in plugins are ordinary plugins listed in ``DEFAULT_PLUGINS``; third-party
ones come from the ``dbg`` entry-point group. ``DBG_LOAD_PLUGINS`` (comma
separated entry-point names; empty means none) limits which third-party plugins
load, ``DBG_BLOCK_PLUGINS`` excludes some. A plugin that fails to import, has a
misspelled hook, or raises from a hook is recorded and reported by
``dbg plugins``; it never stops dbg from starting.
"""

from __future__ import annotations

import importlib
import logging
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pluggy

from dbgcore.backends import hookspecs
from dbgcore.backends.contract import Backend
from dbgcore.backends.profiler import Profiler
from dbgcore.shared.jsontypes import JsonObject

if TYPE_CHECKING:
    import click

    from dbgcore.vocab.opspec import OpTable

log = logging.getLogger(__name__)

DEFAULT_PLUGINS: tuple[str, ...] = ("dbg_pdb", "dbg_dap", "dbg_jdb", "dbg_phpdbg", "dbg_ocaml",
                                     "dbg_ghci", "dbg_replay")
#: A plugin module's optional tuple of the backend ids its
#: ``dbg_register_backends`` registers: a daemon looking for another id does
#: not call that hook (which imports the plugin's backend modules).
BACKEND_IDS = "DBG_BACKEND_IDS"
ENTRY_POINT_GROUP = "dbg"


@dataclass
class PluginInfo:
    name: str
    source: str  # "builtin" | "entry point <dist> <version>"
    ok: bool = True
    error: str = ""
    backends: tuple[str, ...] = ()
    profilers: tuple[str, ...] = ()


class PluginHost:
    """Owns the pluggy manager; every call into plugins goes through here."""

    def __init__(self, load_entry_points: bool = True) -> None:
        self.pm = pluggy.PluginManager("dbg")
        self.pm.add_hookspecs(hookspecs)
        self.infos: dict[str, PluginInfo] = {}
        #: The backend classes registered so far, and how many plugins'
        #: ``dbg_register_backends`` hooks have been called for them.
        self._backends: dict[str, type[Backend]] = {}
        self._backend_hooks_called: set[str] = set()
        self._backend_files: list[Path] | None = None
        self._profilers: dict[str, type[Profiler]] | None = None
        self._commands_added = False
        for module_name in DEFAULT_PLUGINS:
            self._load(module_name, "builtin", partial(importlib.import_module, module_name))
        if load_entry_points:
            self._load_entry_points()

    # -- loading -------------------------------------------------------------

    def _load(self, name: str, source: str, loader: Callable[[], object]) -> None:
        info = PluginInfo(name, source)
        self.infos[name] = info
        try:
            plugin = loader()
            self.pm.register(plugin, name=name)
        except Exception as exc:  # a broken plugin must not stop dbg
            info.ok = False
            info.error = _describe(exc)
            return
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            self.pm.unregister(name=name)
            info.ok = False
            info.error = f"unknown hook: {exc}"

    def _load_entry_points(self) -> None:
        allow = os.environ.get("DBG_LOAD_PLUGINS")
        allowed = None if allow is None else {n.strip() for n in allow.split(",") if n.strip()}
        block = os.environ.get("DBG_BLOCK_PLUGINS", "")
        blocked = {n.strip() for n in block.split(",") if n.strip()}
        for ep in entry_points(ENTRY_POINT_GROUP):
            if ep.name in self.infos or ep.name in blocked:
                continue
            if allowed is not None and ep.name not in allowed:
                continue
            self._load(ep.name, ep.source, ep.load)

    # -- typed calls -----------------------------------------------------------

    def backend_classes(self) -> dict[str, type[Backend]]:
        """Every registered backend class by its ``id``."""
        while self._register_next_backends(None):
            pass
        return self._backends

    def backend_class(self, backend_id: str) -> type[Backend] | None:
        """The backend class registered as ``backend_id`` (None: none is).
        The plugins' hooks are called in their order only until one
        registers it, passing over a plugin that declares the ids it
        registers (:data:`BACKEND_IDS`) without this one: a session's daemon
        imports its own backend's module, not every plugin's (the first to
        register an id keeps it, and an id a plugin declares is that
        plugin's, so what the hooks not called would register cannot change
        the answer)."""
        while backend_id not in self._backends and self._register_next_backends(backend_id):
            pass
        return self._backends.get(backend_id)

    def _register_next_backends(self, wanted: str | None) -> bool:
        """Call the first plugin's ``dbg_register_backends`` not called yet
        (when looking for ``wanted``, of those that may register it); False
        when there is none left."""
        impls = self.pm.hook.dbg_register_backends.get_hookimpls()
        index = next((i for i, impl in enumerate(impls)
                      if impl.plugin_name not in self._backend_hooks_called
                      and (wanted is None or _may_register(impl.plugin, wanted))), None)
        if index is None:
            return False
        impl = impls[index]
        declared = _declared_ids(impl.plugin)
        self._backend_hooks_called.add(impl.plugin_name)
        # The ids the plugins before this one declare are theirs, called or not.
        claimed = {backend_id: earlier.plugin_name for earlier in impls[:index]
                   for backend_id in _declared_ids(earlier.plugin) or ()}
        found = self._backends
        mine: list[str] = []

        def register(cls: type[Backend]) -> None:
            if not (isinstance(cls, type) and issubclass(cls, Backend)) or not cls.id:
                raise TypeError(f"{cls!r} is not a Backend subclass with an id")
            if cls.id in found and found[cls.id] is not cls:
                # First come (built-ins load first) keeps it; no silent takeover.
                raise ValueError(f"backend id {cls.id!r} is already registered by "
                                 f"{found[cls.id].__module__}")
            if cls.id in claimed:
                raise ValueError(f"backend id {cls.id!r} is declared by the plugin "
                                 f"{claimed[cls.id]}, which loads first")
            if declared is not None and cls.id not in declared:
                raise ValueError(f"backend id {cls.id!r} is not among the ids the plugin "
                                 f"declares in {BACKEND_IDS} {declared!r}")
            found[cls.id] = cls
            mine.append(cls.id)

        self._call_isolated(impl, {"register": register})
        info = self.infos.get(impl.plugin_name)
        if info is not None:
            info.backends = tuple(mine)
        return True

    def profilers(self) -> dict[str, type[Profiler]]:
        """Every registered profiler class by its ``id``, in the order the
        plugins registered them (``dbg_register_profilers``, called once)."""
        if self._profilers is not None:
            return self._profilers
        found: dict[str, type[Profiler]] = {}
        for impl in self.pm.hook.dbg_register_profilers.get_hookimpls():
            def register(cls: type[Profiler], _plugin: str = impl.plugin_name) -> None:
                if not (isinstance(cls, type) and issubclass(cls, Profiler)) or not cls.id:
                    raise TypeError(f"{cls!r} is not a Profiler subclass with an id")
                if cls.id in found and found[cls.id] is not cls:
                    raise ValueError(f"profiler id {cls.id!r} is already registered by "
                                     f"{found[cls.id].__module__}")
                found[cls.id] = cls
                info = self.infos.get(_plugin)
                if info is not None:
                    info.profilers = (*info.profilers, cls.id)

            self._call_isolated(impl, {"register": register})
        self._profilers = found
        return found

    def backend_files(self) -> list[Path]:
        """The backends.yaml files plugins ship (``dbg_backend_files``), in
        the order the plugins loaded; a plugin whose hook fails adds none."""
        if self._backend_files is not None:
            return self._backend_files
        files: list[Path] = []
        for impl in self.pm.hook.dbg_backend_files.get_hookimpls():
            mine: list[Path] = []

            def add(path: Path, _mine: list[Path] = mine) -> None:
                from dbgcore.backends.config import check_backends_file

                path = Path(path)
                check_backends_file(path)  # a malformed file breaks its plugin, not dbg
                _mine.append(path)

            self._call_isolated(impl, {"add": add})
            info = self.infos.get(impl.plugin_name)
            if info is None or info.ok:
                files += mine
        self._backend_files = files
        return files

    def add_commands_once(self, cli: click.Group | None = None) -> None:
        """Run the plugins' ``dbg_add_commands`` hooks (once per process)."""
        if self._commands_added:
            return
        if cli is None:
            import click

            cli = click.Group("dbg")
        self._commands_added = True
        for impl in self.pm.hook.dbg_add_commands.get_hookimpls():
            self._call_isolated(impl, {"cli": cli})

    def add_ops(self, table: OpTable) -> None:
        """The plugins' ops, through their ``dbg_add_ops`` hooks."""
        for impl in self.pm.hook.dbg_add_ops.get_hookimpls():
            self._call_isolated(impl, {"add": table.add})

    def stop_recorded(self, session: str, snapshot: JsonObject) -> None:
        for impl in self.pm.hook.dbg_stop_recorded.get_hookimpls():
            try:
                impl.function(session=session, snapshot=snapshot)
            except Exception:
                log.exception("plugin %s failed in dbg_stop_recorded", impl.plugin_name)

    def _call_isolated(self, impl: pluggy.HookImpl, kwargs: dict[str, object]) -> None:
        # Called one implementation at a time (not through pm.hook) so that one
        # plugin raising cannot hide the others' answers.
        try:
            impl.function(**{k: v for k, v in kwargs.items() if k in impl.argnames})
        except Exception as exc:
            info = self.infos.setdefault(impl.plugin_name, PluginInfo(impl.plugin_name, "?"))
            info.ok = False
            info.error = _describe(exc)

    def report(self) -> list[PluginInfo]:
        self.backend_classes()
        self.backend_files()
        self.profilers()
        return list(self.infos.values())


def _declared_ids(plugin: object) -> tuple[str, ...] | None:
    """The backend ids ``plugin`` declares (:data:`BACKEND_IDS`); None when
    it declares none (or not as a tuple of names): its hook is always called."""
    ids = getattr(plugin, BACKEND_IDS, None)
    if isinstance(ids, tuple) and all(isinstance(i, str) for i in ids):
        return ids
    return None


def _may_register(plugin: object, backend_id: str) -> bool:
    declared = _declared_ids(plugin)
    return declared is None or backend_id in declared


@dataclass
class EntryPoint:
    """One entry point of an installed distribution: its name, its
    ``module:attribute`` value, and where it comes from (``dbg plugins``)."""

    name: str
    value: str
    source: str

    def load(self) -> object:
        module, _, attribute = self.value.partition(":")
        found: object = importlib.import_module(module.strip())
        for part in attribute.strip().split(".") if attribute.strip() else ():
            found = getattr(found, part)
        return found


def entry_points(group: str) -> list[EntryPoint]:
    """The installed distributions' entry points in ``group``, as
    :func:`importlib.metadata.entry_points` finds them (each distribution's
    ``*.dist-info`` or ``*.egg-info`` folder on ``sys.path``, the first of
    each name), read without importing :mod:`importlib.metadata`, which
    imports email and zipfile (30-40 ms of each daemon's start). A path it
    does not read as folders (a zip file), or a finder of distributions of
    another kind, is left to importlib.metadata."""
    import sys

    if any(hasattr(finder, "find_distributions") and finder.__module__ not in (
            "_frozen_importlib_external", "importlib._bootstrap_external")
            for finder in sys.meta_path) or any(
            entry and os.path.isfile(entry) for entry in sys.path):
        return _metadata_entry_points(group)
    seen: set[str] = set()
    out: list[EntryPoint] = []
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")  # in the order importlib.metadata takes them
        except OSError:
            continue
        for folder in names:
            stem, dot, suffix = folder.rpartition(".")
            if not dot or suffix.lower() not in ("dist-info", "egg-info"):
                continue
            path = os.path.join(entry or ".", folder)
            dist = _normalized(stem.partition("-")[0])
            if dist in seen or not os.path.isdir(path):
                continue
            seen.add(dist)
            out += _group_of(path, group)
    return out


def _normalized(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _group_of(folder: str, group: str) -> list[EntryPoint]:
    """The entry points in ``group`` of one distribution's metadata folder."""
    try:
        with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    found: list[tuple[str, str]] = []
    section = None
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == group and "=" in line:
            name, _, value = line.partition("=")
            found.append((name.strip(), value.strip()))
    if not found:
        return []
    source = "entry point"
    headers = _headers(folder)
    if "Name" in headers:
        source += f" {headers['Name']} {headers.get('Version', '')}".rstrip()
    return [EntryPoint(name, value, source) for name, value in found]


def _headers(folder: str) -> dict[str, str]:
    """Name and Version from a distribution's METADATA (or PKG-INFO)."""
    for file in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(folder, file), encoding="utf-8") as fh:
                headers: dict[str, str] = {}
                for line in fh:
                    if not line.strip():
                        break
                    key, colon, value = line.partition(":")
                    if colon and key in ("Name", "Version") and key not in headers:
                        headers[key] = value.strip()
                return headers
        except OSError:
            continue
    return {}


def _metadata_entry_points(group: str) -> list[EntryPoint]:
    from importlib import metadata

    out = []
    for ep in metadata.entry_points(group=group):
        dist = getattr(ep, "dist", None)
        source = "entry point"
        if dist is not None:
            source += f" {dist.metadata['Name']} {dist.version}"
        out.append(EntryPoint(ep.name, ep.value, source))
    return out


def _describe(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" (at {last[0].filename}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"
