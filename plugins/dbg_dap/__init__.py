"""Built-in plugin: the DAP backend (debugpy today; gdb, lldb-dap and delve use
the same class with their own profiles), and its expert ops."""

from __future__ import annotations

from collections.abc import Callable

from dbgcore.api import Backend, Op, hookimpl

#: The backend ids registered below: a session of another backend does not
#: call the hook, which imports this plugin's backend.
DBG_BACKEND_IDS = ("dap",)


@hookimpl
def dbg_register_backends(register: Callable[[type[Backend]], None]) -> None:
    from dbg_dap.backend import DapBackend

    register(DapBackend)


@hookimpl
def dbg_add_ops(add: Callable[[Op], None]) -> None:
    from dbg_dap.ops import OPS

    for op in OPS:
        add(op)
