"""Built-in plugin: the phpdbg backend (PHP's own debugger, over a PTY)."""

from __future__ import annotations

from collections.abc import Callable

from dbgcore.api import Backend, hookimpl

#: The backend ids registered below: a session of another backend does not
#: call the hook, which imports this plugin's backend.
DBG_BACKEND_IDS = ("phpdbg",)


@hookimpl
def dbg_register_backends(register: Callable[[type[Backend]], None]) -> None:
    from dbg_phpdbg.backend import PhpdbgBackend

    register(PhpdbgBackend)
