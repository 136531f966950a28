"""Built-in plugin: `dbg replay RUN`, a session whose stops are read from a
run `dbg trace --lines` recorded (the backend ``replay``), stepped forwards
and backwards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dbgcore.api import Backend, Op, hookimpl

#: The backend ids registered below: a session of another backend does not
#: call the hook, which imports this plugin's backend.
DBG_BACKEND_IDS = ("replay",)


@hookimpl
def dbg_register_backends(register: Callable[[type[Backend]], None]) -> None:
    from dbg_replay.backend import ReplayBackend

    register(ReplayBackend)


@hookimpl
def dbg_backend_files(add: Callable[[Path], None]) -> None:
    add(Path(__file__).with_name("backends.yaml"))


@hookimpl
def dbg_add_ops(add: Callable[[Op], None]) -> None:
    from dbg_replay.op import REPLAY

    add(REPLAY)
