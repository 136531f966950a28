"""Session commands: start, attach, restart, status, sessions, kill."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from dbgcore import client
from dbgcore.cli.common import send
from dbgcore.cli.output import emit, emit_response, fail, get_ctx
from dbgcore.errors import DbgError, NoSession, UsageError
from dbgcore.location import location_arg

_PASSTHROUGH = {"ignore_unknown_options": True, "allow_interspersed_args": False}


def _choose_backend(name: str | None, program: Path, cwd: Path, check: bool = True) -> str:
    """The backend for ``program``; with ``check``, one that can run it (a C
    source file, say, is refused with how to compile it)."""
    from dbgcore.config import load_config
    from dbgcore.plugins import get_host
    from dbgcore.select import select_backend

    config = load_config(cwd)
    classes = get_host().backend_classes()
    if name is not None:
        if name not in config.backends:
            raise UsageError(f"unknown backend {name!r}",
                             f"known backends: {', '.join(config.backends)}")
        spec = config.backends[name]
    else:
        spec = select_backend(program, config.backends, classes)
    cls = classes.get(spec.plugin)
    if check and cls is not None:
        cls.check_program(spec, program)
    return spec.name


def _parse_env(pairs: tuple[str, ...]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key or any(c in key for c in "\0 "):
            raise UsageError(f"bad --env {pair!r}", "use --env NAME=VALUE")
        env[key] = value
    return env


def _start_session(op: str, args: dict[str, Any], idle_timeout: float | None) -> None:
    ctx = get_ctx()
    try:
        response = client.start(ctx.session, op, args, ctx.timeout, idle_timeout)
    except DbgError as exc:
        fail(op, exc)
    emit_response(op, response)


@click.command(context_settings=_PASSTHROUGH)
@click.option("--backend", "-b", metavar="NAME",
              help="Backend to use (default: chosen from PROGRAM).")
@click.option("--break", "breaks", multiple=True, metavar="LOC",
              help="Breakpoint to set (repeatable).")
@click.option("--run", is_flag=True, help="Continue to the first stop or the end after starting.")
@click.option("--no-catch", is_flag=True,
              help="Do not stop on uncaught exceptions (by default the program stops where one "
                   "would end it).")
@click.option("--cwd", type=click.Path(file_okay=False), help="Working directory of the program.")
@click.option("--env", "env_pairs", multiple=True, metavar="K=V",
              help="Environment variable (repeatable).")
@click.option("--idle-timeout", type=click.FloatRange(min=1), metavar="SECONDS",
              help="End the session after this long without a command (default 1800).")
@click.option("-m", "--module", "as_module", is_flag=True,
              help="PROGRAM is a Python module to run like `python -m` (e.g. pytest).")
@click.option("-cp", "--classpath", metavar="PATH",
              help="Java: the class path; PROGRAM is then the main class (jdb).")
@click.argument("program")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def start(backend: str | None, breaks: tuple[str, ...], run: bool, no_catch: bool,
          cwd: str | None,
          env_pairs: tuple[str, ...], idle_timeout: float | None, as_module: bool,
          classpath: str | None, program: str, args: tuple[str, ...]) -> None:
    """Start PROGRAM under a debugger, stopped at entry."""
    options: dict[str, Any] = {}
    try:
        base = Path(cwd).absolute() if cwd else Path.cwd()
        if cwd and not base.is_dir():
            raise UsageError(f"--cwd {cwd}: no such directory")
        if classpath is not None:
            # PROGRAM names a class: chosen (and checked) like a .class file.
            if as_module:
                raise UsageError("-cp and -m do not go together")
            entries = [p for p in classpath.split(os.pathsep) if p]
            missing = [p for p in entries if not (base / p).exists()]
            if not entries or missing:
                raise UsageError(f"-cp {classpath}: no such file or folder "
                                 f"{', '.join(missing) or classpath}")
            options["classpath"] = os.pathsep.join(str((base / p).absolute()) for p in entries)
            target = base / f"{program.replace('.', '/')}.class"
        elif as_module:
            if not all(part.isidentifier() for part in program.split(".")):
                raise UsageError(f"bad module name {program!r}", "e.g. dbg start -m pytest")
            # Chosen like a Python file would be.
            target = base / f"{program.replace('.', '/')}.py"
        else:
            target = Path(program) if os.path.isabs(program) else base / program
            if not target.exists():
                raise UsageError(f"no such program: {program}",
                                 "check the path (relative to --cwd)")
        env = _parse_env(env_pairs)
        wires = [location_arg(spec) for spec in breaks]
        named = as_module or classpath is not None
        chosen = _choose_backend(backend, target, base, check=not named)
    except DbgError as exc:
        fail("start", exc)
    _start_session("start", {
        "backend": chosen, "program": program if named else str(target.absolute()),
        "module": as_module, "args": list(args), "options": options,
        "cwd": str(base), "env": env, "breaks": wires, "run": run, "no_catch": no_catch,
    }, idle_timeout)


@click.command()
@click.option("--backend", "-b", metavar="NAME", required=True, help="Backend to attach with.")
@click.option("--pid", type=click.IntRange(min=1), help="Process id to attach to.")
@click.option("--port", type=click.IntRange(1, 65535), help="Port of a debug server to attach to.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Host of the debug server.")
@click.option("--program", help="Path of the program's binary or script, if the backend needs it.")
@click.option("--break", "breaks", multiple=True, metavar="LOC",
              help="Breakpoint to set (repeatable).")
@click.option("--idle-timeout", type=click.FloatRange(min=1), metavar="SECONDS")
def attach(backend: str, pid: int | None, port: int | None, host: str, program: str | None,
           breaks: tuple[str, ...], idle_timeout: float | None) -> None:
    """Attach to a running process (--pid) or debug server (--port)."""
    try:
        if (pid is None) == (port is None):
            raise UsageError("attach needs exactly one of --pid or --port")
        wires = [location_arg(spec) for spec in breaks]
        _check_attach_supported(backend)
    except DbgError as exc:
        fail("attach", exc)
    _start_session("attach", {"backend": backend, "pid": pid, "port": port, "host": host,
                              "program": program, "breaks": wires,
                              "cwd": os.getcwd()}, idle_timeout)


def _check_attach_supported(backend: str) -> None:
    """Refuse before starting a daemon when the backend cannot attach at all."""
    from dbgcore.config import load_config
    from dbgcore.plugins import get_host

    spec = load_config().backends.get(backend)
    if spec is None:
        raise UsageError(f"unknown backend {backend!r}")
    cls = get_host().backend_classes().get(spec.plugin)
    if cls is not None and cls.capabilities().get("attach") == "none":
        raise cls.unsupported_for(spec, "attach")


@click.command()
def restart() -> None:
    """Run the same program again; breakpoints are set again."""
    send("restart")


@click.command()
def status() -> None:
    """Show the session's state and where it stopped."""
    send("status")


@click.command()
def sessions() -> None:
    """List live sessions."""
    from dbgcore.status import list_session_names

    rows = []
    for name in list_session_names():
        try:
            live = client.live_status(name)
        except NoSession:
            continue
        if live is None:
            continue
        try:
            response = client.call(name, "ping", timeout=5.0)
        except DbgError:
            continue
        info = (response.get("result") or {}).get("session") or {}
        rows.append({"name": name, "backend": info.get("backend"), "tool": info.get("tool"),
                     "state": info.get("state", "?"), "program": info.get("program")})
    emit("sessions", {"sessions": rows})


@click.command()
def kill() -> None:
    """End the session: debuggee, debugger and daemon."""
    ctx = get_ctx()
    try:
        client.live_status(ctx.session)
        response = client.call(ctx.session, "kill", timeout=ctx.timeout)
    except DbgError as exc:
        fail("kill", exc)
    emit_response("kill", response)


COMMANDS = [start, attach, restart, status, sessions, kill]
