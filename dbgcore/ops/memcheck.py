"""`dbg memcheck PROGRAM [ARGS...]`: a start of PROGRAM under valgrind's
memcheck, driven by gdb through valgrind's gdb server, where each error
memcheck reports is a stop. Its own op rather than a `start` option, as
`dbg test` is: it names what the run is for, takes only what such a run
can use, and goes straight to the first error as `dbg test` goes to the
first failure. The daemon's side is `start`'s
(:func:`dbgcore.ops.starting.handle_start`, with ``memcheck``); the backend
runs valgrind (:attr:`dbgcore.backends.contract.LaunchRequest.memcheck`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.ops.starting import prepare_start
from dbgcore.ops.stops import SHOW, render_stop
from dbgcore.shared.errors import UsageError
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front
    from dbgcore.vocab.opspec import Payload

def prepare_memcheck(values: Payload, front: Front) -> tuple[str, Payload]:
    """A start of PROGRAM with the first backend that drives valgrind's gdb
    server (or the backend named, which the daemon refuses unless it can),
    run on to the first error."""
    start_values: Payload = {k: values.get(k) for k in (
        "program", "args", "breaks", "cwd", "env", "stdin", "idle_timeout", "show")}
    # A source file is refused with how to compile it, as before `start`
    # built sources: memcheck's build (and its flags) is not yet one of dbg's.
    start_values.update(backend=values.get("backend") or _memcheck_backend(front), run=True,
                        no_build=True)
    op, sent = prepare_start(start_values, front)
    sent["memcheck"] = True
    return op, sent


def _memcheck_backend(front: Front) -> str:
    """The first backends.yaml entry whose backend runs programs under memcheck."""
    registry = front.backends
    for name, spec in registry.config().backends.items():
        cls = registry.class_of(spec)
        if cls is not None and cls.memchecks(spec):
            return str(name)
    raise UsageError("no backend runs programs under valgrind's memcheck",
                     "dbg backends lists them; memcheck is driven by gdb (./scripts/"
                     "install-debuggers installs it)")


OPS: tuple[Op, ...] = (
    Op("memcheck", "Run PROGRAM under valgrind's memcheck, driven by gdb: each invalid read "
       "or write, use of an uninitialised value or bad free is a stop at its line.", (
        Arg("program", "str", "The compiled program (built with -g).", required=True,
            path=True),
        Arg("args", "str", "The program's arguments.", multiple=True, passthrough=True),
        Arg("backend", "str", "Backend to use (default: gdb, the one that drives valgrind's "
            "gdb server).", flags=("--backend", "-b"), metavar="NAME"),
        Arg("breaks", "location", "Breakpoint to set before the program runs.",
            flags=("--break",), multiple=True, metavar="LOC"),
        Arg("cwd", "str", "Working directory of the program.", flags=("--cwd",),
            metavar="DIR", path=True),
        Arg("env", "str", "Environment variable.", flags=("--env",),
            multiple=True, metavar="K=V"),
        Arg("stdin", "str", "A file the program reads as its standard input (without it, "
            "`dbg input` sends lines).", flags=("--stdin",), metavar="FILE", path=True),
        Arg("idle_timeout", "float", "End the session after this long without a command "
            "(default 1800).", flags=("--idle-timeout",), minimum=1, metavar="SECONDS"),
        SHOW,
    ), needs="none", stops=True, send="start", prepare=prepare_memcheck, render=render_stop,
       # Behind dbg_more for an agent: the listing's budget is for the common ops.
       group="sessions", details=(
           "The program runs under `valgrind --tool=memcheck --vgdb=yes --vgdb-error=0 "
           "--track-origins=yes` (valgrind's own messages go to a log in the session's "
           "folder) and gdb attaches through `vgdb`. The answer is the first stop: an "
           "error (reason `memcheck`, its description `memcheck: ` and valgrind's words "
           "for it, then what valgrind says of the memory, such as where an uninitialised "
           "value was created or where a block was allocated or freed), a breakpoint, or "
           "the end. It is an ordinary gdb session: stack, locals, print, break, step work "
           "at every stop, and `dbg continue` goes on to the next error or the end, whose "
           "answer holds valgrind's error and leak summaries. valgrind's gdb server "
           "commands go through raw: `dbg raw monitor leak_check full`.\n\n"
           "Starting takes seconds (valgrind loads the program and its debug info first); "
           "the start waits for valgrind's gdb server, up to 20 s, within --timeout.\n\n"
           "  dbg memcheck ./prog\n"
           "  dbg memcheck --break parse.c:40 ./prog input.txt")),
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
