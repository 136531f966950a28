"""Adapter profiles by name: the small, named differences between debug
adapters (see :mod:`dbg_dap.profile_base`), one module per adapter family:
:mod:`dbg_dap.debugpy`, :mod:`dbg_dap.gdb`, :mod:`dbg_dap.lldb`, :mod:`dbg_dap.delve`
(the native ones on :mod:`dbg_dap.native`).

A session imports only its own adapter's module: debugpy's alone (with
secrets, hmac and hashlib) took 18 ms of a delve or gdb daemon's start."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from dbg_dap.profile_base import AdapterProfile, ptrace_diagnosis
from dbgcore.api import BackendSpec, UsageError

if TYPE_CHECKING:
    from dbg_dap.debugpy import DebugpyProfile
    from dbg_dap.delve import DelveProfile
    from dbg_dap.gdb import GdbProfile
    from dbg_dap.lldb import LldbProfile
    from dbg_dap.rdbg import RdbgProfile

__all__ = ["AdapterProfile", "DebugpyProfile", "DelveProfile", "GdbProfile",
           "LldbProfile", "RdbgProfile", "profile_for", "profiles", "ptrace_diagnosis"]

#: Profile name -> (module, class) of each adapter's own profile.
_PLACES = {
    "debugpy": ("dbg_dap.debugpy", "DebugpyProfile"),
    "gdb": ("dbg_dap.gdb", "GdbProfile"),
    "lldb": ("dbg_dap.lldb", "LldbProfile"),
    "delve": ("dbg_dap.delve", "DelveProfile"),
    "rdbg": ("dbg_dap.rdbg", "RdbgProfile"),
}


def _load(name: str) -> type[AdapterProfile]:
    module, cls = _PLACES[name]
    found: type[AdapterProfile] = getattr(importlib.import_module(module), cls)
    return found


def __getattr__(attr: str) -> type[AdapterProfile]:
    for name, (_, cls) in _PLACES.items():
        if cls == attr:
            return _load(name)
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


def profiles() -> dict[str, type[AdapterProfile]]:
    """Every profile by name."""
    return {AdapterProfile.name: AdapterProfile, **{name: _load(name) for name in _PLACES}}


def profile_for(spec: BackendSpec) -> AdapterProfile:
    name = str(spec.options.get("profile", "generic"))
    if name == AdapterProfile.name:
        return AdapterProfile(spec)
    if name not in _PLACES:
        raise UsageError(f"backend {spec.name!r}: unknown DAP profile {name!r}",
                         f"known profiles: {', '.join(profiles())}")
    return _load(name)(spec)
