"""Adapter profiles by name: the small, named differences between debug
adapters (see :mod:`dbg_dap.profile_base`), one module per adapter family:
:mod:`dbg_dap.debugpy`, :mod:`dbg_dap.gdb`, :mod:`dbg_dap.lldb`, :mod:`dbg_dap.delve`
(the native ones on :mod:`dbg_dap.native`)."""

from __future__ import annotations

from dbg_dap.debugpy import DebugpyProfile
from dbg_dap.delve import DelveProfile
from dbg_dap.gdb import GdbProfile
from dbg_dap.lldb import LldbProfile
from dbg_dap.profile_base import AdapterProfile, ptrace_diagnosis
from dbgcore.api import BackendSpec, UsageError

__all__ = ["AdapterProfile", "DebugpyProfile", "DelveProfile", "GdbProfile",
           "LldbProfile", "profile_for", "profiles", "ptrace_diagnosis"]


def profiles() -> dict[str, type[AdapterProfile]]:
    """Every profile by name."""
    return {p.name: p for p in (AdapterProfile, DebugpyProfile, GdbProfile, LldbProfile,
                                DelveProfile)}


def profile_for(spec: BackendSpec) -> AdapterProfile:
    name = str(spec.options.get("profile", "generic"))
    known = profiles()
    cls = known.get(name)
    if cls is None:
        raise UsageError(f"backend {spec.name!r}: unknown DAP profile {name!r}",
                         f"known profiles: {', '.join(known)}")
    return cls(spec)
