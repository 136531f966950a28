"""Early spawn: a new session's debugger starts while its daemon imports.

A daemon forked by the first client of a `dbg start --backend NAME` (or of
a `dbg test`) spends tens of milliseconds importing and setting up before
its backend spawns the debug adapter, which then takes its own hundreds of
milliseconds to start. That start needs only a command line, and the
second core is idle meanwhile: the forked daemon starts the adapter first
(:func:`spawn_early`, before it imports anything else) into this process's
:data:`dbgcore.transport.early.THIS_PROCESS`, which the daemon is handed
and hands on to the backend's transport, which adopts it when it is exactly
what it would have spawned (that module says on what terms, and keeps the
record of what each backend spawns).

This module reads the start's words for it, without the op table: which
backend they name, else the suffix of the program they name (a start that
names no backend spawns the backend the last such start chose for a
program of that suffix; a `dbg test`, the backend the last such test
chose). A session's first start in a new DBG_HOME, an adapter reached over
TCP, and a backend whose spawn changed spawn as before, and so does every
start with ``DBG_NO_EARLY_SPAWN`` set.

A spare daemon (dbgcore.start.sparedaemon) spawns one before its start is
known (for the start of the session it was forked in), and is retargeted
(:func:`retarget`) to the start that takes it.
"""

from __future__ import annotations

import os

# Only what the early spawn needs is imported before it (json, subprocess,
# dbgcore.shared.procutil, in the spawn): logging, dataclasses, pathlib and
# typing cost a start 10-20 ms more before the debugger's spawn, and the
# daemon imports them next, beside the debugger's own start.
from dbgcore.transport.early import THIS_PROCESS

#: The ops whose daemon spawns the debugger early: `start`, and `test`
#: (whose backend runs the test runner as a program).
_OPS = ("start", "test")
#: The key of `dbg test` without --backend in the record's PROGRAMS (it names
#: no program: the runner's arguments are tests, folders, options).
TEST_KEY = "test"


def backend_of(words: list[str]) -> str | None:
    """The backend a start's (or `test`'s) words name with ``--backend`` /
    ``-b`` among its options (before the program or the runner's first
    argument), None for none. Read without the op table (15 ms of imports):
    a word after an option may be its value, and the program is a word after
    a word that is no option. A misread only spawns a process no backend
    adopts, and the daemon reads the words properly (dbgcore.vocab.opspec) before
    anything else happens."""
    return _option(words, ("--backend", "-b"))


def _option(words: list[str], names: tuple[str, ...]) -> str | None:
    """The value of the option called one of ``names`` (the first is its
    long name) among the options of a start's (or `test`'s) ``words``; None
    when it is not given there."""
    if not words or words[0] not in _OPS:
        return None
    after_option = False
    rest = iter(words[1:])
    for word in rest:
        if word == "--":
            return None
        if word in names:
            return next(rest, None)
        if word.startswith(names[0] + "="):
            return word.partition("=")[2]
        if not word.startswith("-") and not after_option:
            return None  # the program: what follows is its own
        after_option = word.startswith("-") and "=" not in word
    return None


def program_key(words: list[str]) -> str | None:
    """For a start's words that name no backend: the suffix of the first
    word among its options that names a file (``.py``), lower-cased; None
    for none, or a module's start (``-m``). Read without the op table, so an
    option's value (``--stdin in.txt``) may be taken for the program: the
    same words give the same key, and a wrong guess only spawns a process
    no backend adopts. `test`: :data:`TEST_KEY`, whatever it runs."""
    if words and words[0] == "test":
        return TEST_KEY
    if not words or words[0] != "start":
        return None
    for word in words[1:]:
        if word == "--" or word in ("-m", "--module"):
            return None
        if not word.startswith("-") and os.path.isfile(word):
            suffix = os.path.splitext(word)[1].lower()
            return suffix or None
    return None


def retarget(words: list[str]) -> None:
    """A spare daemon (dbgcore.start.successor), whose early process was spawned
    for the start of the session it was forked in, is taken by the start of
    ``words``: what is kept of the start is this one's, as in a daemon
    forked for it. Its early process is adopted only if it is what this
    start's backend spawns, as ever."""
    backend = backend_of(words)
    THIS_PROCESS.expect(backend, program_key(words) if backend is None else None)


def spawn_early(words: list[str]) -> None:
    """In a daemon just forked for ``words`` (a `start`), before it imports
    anything else: spawn the adapter its backend spawned last time, if any.
    Never raises: whatever goes wrong here, the backend spawns as before."""
    backend = backend_of(words)
    program = program_key(words) if backend is None else None
    if os.environ.get("DBG_NO_EARLY_SPAWN") or (backend is None and program is None):
        THIS_PROCESS.expect(backend, program)
        return
    name = THIS_PROCESS.expect(backend, program)
    if name is not None:
        # A DAP backend spawns its adapter in the run's folder (`--cwd`, else here).
        THIS_PROCESS.spawn_for_start(name, os.path.abspath(_option(words, ("--cwd",)) or "."))


def adapter_secret(name: str) -> str:
    """A fresh secret (64 hex digits) for the adapter's environment variable
    ``name``, such as an access token: the one this process's early adapter
    was given, while there is one, so that it can be adopted. Never written
    down (see :meth:`dbgcore.transport.early.EarlyProcesses.secret`)."""
    return THIS_PROCESS.secret(name)
