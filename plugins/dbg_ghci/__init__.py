"""Built-in plugin: the ghci backend (Haskell programs under GHCi's own
debugger, driven over a pseudo-terminal). ghci interprets the source, so a
``.hs`` file needs no build step."""

from __future__ import annotations

from collections.abc import Callable

from dbgcore.api import Backend, hookimpl

#: The backend ids registered below: a session of another backend does not
#: call the hook, which imports this plugin's backend.
DBG_BACKEND_IDS = ("ghci",)


@hookimpl
def dbg_register_backends(register: Callable[[type[Backend]], None]) -> None:
    from dbg_ghci.backend import GhciBackend

    register(GhciBackend)
