"""debugpy's profile: Python programs under debugpy's adapter and pydevd.

One profile made of collaborators, one module each (see
:mod:`dbg_dap.debugpy.facade`, where :class:`DebugpyProfile` hands each
callback of :class:`dbg_dap.profile_base.AdapterProfile` to its part)."""

from __future__ import annotations

from dbg_dap.debugpy.facade import DebugpyProfile
from dbg_dap.debugpy.launching import DEBUGPY_ADAPTER, PYBOOT

__all__ = ["DEBUGPY_ADAPTER", "PYBOOT", "DebugpyProfile"]
