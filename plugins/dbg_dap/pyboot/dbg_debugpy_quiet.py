"""debugpy's processes without their startup report when no log keeps it.

Each of debugpy's processes (the adapter, its launcher, and pydevd's side in
the program, twice there) describes its environment as it starts: every
distribution on ``sys.path`` with its version, read from the metadata of
each (``importlib.metadata.distributions()``), 40-65 ms a time with dbg's
packages on the path. The text goes to ``log.info``, which writes nothing
unless a log file takes that level (``DEBUGPY_LOG_DIR``); it was built all
the same. Here it is built only when some log takes it.

``importlib.metadata`` itself (35 ms to import: email, zipfile, csv...) was
imported by ``debugpy.common.log`` for that report alone: in the adapter
and the launcher it is made a lazy module, loaded if something uses it.

Python 3.8 syntax and the standard library only: the launcher runs on the
program's Python.
"""

from __future__ import annotations

import importlib.util
import sys
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


def lazy_metadata() -> None:
    """``importlib.metadata`` as a lazy module (loaded on its first use),
    unless something imported it already."""
    if _METADATA in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(_METADATA)
    except (ImportError, ValueError):
        return
    if spec is None or spec.loader is None:
        return
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[_METADATA] = module
    loader.exec_module(module)
    importlib.metadata = module  # type: ignore[attr-defined,unused-ignore]
