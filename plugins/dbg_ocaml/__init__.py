"""Built-in plugin: the ocamldebug backend (OCaml bytecode programs under
OCaml's own debugger, over a PTY), the first backend that runs backwards."""

from __future__ import annotations

from collections.abc import Callable

from dbgcore.api import Backend, hookimpl

#: The backend ids registered below: a session of another backend does not
#: call the hook, which imports this plugin's backend.
DBG_BACKEND_IDS = ("ocamldebug",)


@hookimpl
def dbg_register_backends(register: Callable[[type[Backend]], None]) -> None:
    from dbg_ocaml.backend import OcamlBackend

    register(OcamlBackend)
