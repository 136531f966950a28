"""An example dbg plugin: the backend ``perl``, Perl programs under perl's
own debugger (``perl -d``).

dbg loads this module through the ``dbg`` entry-point group declared in
pyproject.toml and calls the functions marked ``@hookimpl`` whose names
match its hooks. The backend's module is imported inside the hook, so dbg
commands that never need it do not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dbgcore.api import Backend, hookimpl

#: The backend ids the hook below registers: a session of another backend
#: (pdb, node...) does not call it, and so does not import PerlBackend.
DBG_BACKEND_IDS = ("perl",)


@hookimpl
def dbg_register_backends(register: Callable[[type[Backend]], None]) -> None:
    from dbg_example_plugin.backend import PerlBackend

    register(PerlBackend)


@hookimpl
def dbg_backend_files(add: Callable[[Path], None]) -> None:
    # The backends.yaml entry: how to run perl and which files are Perl.
    add(Path(__file__).with_name("backends.yaml"))
