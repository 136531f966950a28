"""debugpy's processes without their startup report when no log keeps it.

Each of debugpy's processes (the adapter, its launcher, and pydevd's side in
the program, twice there) describes its environment as it starts: every
distribution on ``sys.path`` with its version, read from the metadata of
each (``importlib.metadata.distributions()``), 40-65 ms a time with dbg's
packages on the path. The text goes to ``log.info``, which writes nothing
unless a log file takes that level (``DEBUGPY_LOG_DIR``); it was built all
the same. Here it is built only when some log takes it.

``importlib.metadata`` itself (35 ms to import: email, zipfile, csv...) was
imported by ``debugpy.common.log`` for that report alone: it is made a lazy
module as debugpy's log loads, and taken out of ``sys.modules`` again once
it has (drop_lazy): the log keeps it, loaded if it is used, and the
program's own import of the module is the usual one.

As it loads, the log also opens its stderr log with a line naming the
platform, ``platform.platform()``: 18-25 ms on 3.12 (it reads the
interpreter's binary for its libc's version and runs ``uname -p`` in a child
process), in the launcher and in the program, each on the way to the first
line. That log drops the line unless ``DEBUGPY_LOG_STDERR`` takes "info";
otherwise it is not asked (platform_unasked).

Python 3.8 syntax and the standard library only: the launcher runs on the
program's Python.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from collections.abc import Iterator
from types import ModuleType

_METADATA = "importlib.metadata"


def quiet_describe(log: ModuleType) -> None:
    """``log.describe_environment`` builds its text only when a log takes
    "info" (``log._levels``: the levels of every log file open)."""
    describe = getattr(log, "describe_environment", None)
    if describe is None or not isinstance(getattr(log, "_levels", None), (set, frozenset)):
        return  # another debugpy: left as it is

    def describe_environment(header: str) -> None:
        if "info" in log._levels:
            describe(header)

    log.describe_environment = describe_environment  # type: ignore[attr-defined]


@contextlib.contextmanager
def platform_unasked() -> Iterator[None]:
    """While debugpy's log module runs: ``platform.platform()`` answers ""
    when the line it goes into is dropped (its stderr log, the only one
    opened as the module loads, keeps "warning error" unless
    ``DEBUGPY_LOG_STDERR`` says otherwise). Nothing is cached: a later call,
    the program's own or a log file's, asks the system as usual."""
    if "info" in os.environ.get("DEBUGPY_LOG_STDERR", "warning error").split():
        yield
        return
    import platform

    real = platform.platform

    def unasked(aliased: bool = False, terse: bool = False) -> str:
        return ""

    platform.platform = unasked
    try:
        yield
    finally:
        if platform.platform is unasked:
            platform.platform = real


def lazy_metadata() -> ModuleType | None:
    """``importlib.metadata`` as a lazy module (loaded on its first use),
    unless something imported it already or debugpy logs (the report then
    needs it); the lazy module, or None."""
    if _METADATA in sys.modules or os.environ.get("DEBUGPY_LOG_DIR") or \
            any(arg.startswith("--log-dir") for arg in sys.argv):
        return None
    try:
        spec = importlib.util.find_spec(_METADATA)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.loader is None:
        return None
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[_METADATA] = module
    loader.exec_module(module)
    importlib.metadata = module  # type: ignore[attr-defined,unused-ignore]
    return module


def drop_lazy(module: ModuleType) -> None:
    """Out of ``sys.modules`` and the ``importlib`` package if nothing used it
    yet (a module LazyLoader has loaded is a plain module again)."""
    if type(module) is ModuleType or sys.modules.get(_METADATA) is not module:
        return
    del sys.modules[_METADATA]
    if importlib.__dict__.get("metadata") is module:
        del importlib.metadata  # type: ignore[attr-defined,unused-ignore]
