"""The ops that start a session's program: `dbg start`, `test`, `attach`
and `restart`, each whole: its declaration, the front end's preparation
(the backend chosen, the program's Python found, a core file read, the
test runner's command line made) and the daemon's handler, which launches
or attaches the debugger and places the first breakpoints. Their answer is
a stop, whose text is :func:`dbgcore.ops.stops.render_stop`.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from dbgcore.backends.contract import Backend
from dbgcore.ops.breakpoints import NEAR, found_line, with_near
from dbgcore.ops.building import builds, built_request, rebuild
from dbgcore.ops.pythonfind import has_module, project_python, python_path, takes_python, venv_note
from dbgcore.ops.stops import SHOW, render_stop, stopping
from dbgcore.shared.errors import (
    DbgError,
    UnsupportedOp,
    UsageError,
)
from dbgcore.shared.jsontypes import Json
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:

    from dbgcore.backends.contract import AttachRequest, LaunchRequest
    from dbgcore.backends.registry import BackendRegistry, Front
    from dbgcore.ops.opsession import OpSession as Session
    from dbgcore.shared.pathmap import PathMap
    from dbgcore.vocab.model import Breakpoint
    from dbgcore.vocab.opspec import Payload


def prepare_start(values: Payload, front: Front) -> tuple[str, Payload]:
    program: str = values["program"]
    cwd = values.get("cwd")
    as_module, classpath = values.get("module"), values.get("classpath")
    options: Payload = {}
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
            raise UsageError(f"no such program: {program}", "check the path (relative to --cwd)")
        if not (target.is_file() or target.is_dir()):
            # A FIFO or a device: reading it to tell what it is would block.
            raise UsageError(f"{program} is not a program (not a file or a folder)",
                             "give a script, a compiled binary or a program's folder")
    stdin = values.get("stdin")
    if stdin is not None:
        path = Path(stdin) if os.path.isabs(stdin) else Path.cwd() / stdin
        if not path.is_file():
            raise UsageError(f"--stdin {stdin}: no such file")
        stdin = str(path.absolute())
    env = _parse_env(values.get("env") or [])
    named = bool(as_module) or classpath is not None
    core, note = _core(values, target)
    chosen, builds_first = _choose_backend(front.backends, values.get("backend"), target, base,
                                           check=not named, build=not values.get("no_build"))
    python = values.get("python")
    if python is not None:
        # Relative to the folder the command was typed in, like --stdin.
        options["python"] = python_path(python, Path.cwd(), chosen, front.backends)
    elif takes_python(chosen, front.backends, base):
        found = project_python([] if named else [target if target.is_dir() else target.parent],
                                base, env)
        if found is not None:
            options["python"] = found
            note = "; ".join(n for n in (note, venv_note(found)) if n)
    return "start", {
        "backend": chosen, "program": program if named else str(target.absolute()),
        "module": bool(as_module), "args": list(values.get("args") or []), "options": options,
        "cwd": str(base), "env": env, "breaks": _breaks_near(values),
        "run": bool(values.get("run")), "no_catch": bool(values.get("no_catch")),
        "stdin": stdin, "show": values.get("show") or [],
        "test": bool(values.get("test")) or _is_test_runner(program, bool(as_module)),
        "core": core, "build": builds_first, **({"note": note} if note else {}),
    }


def _breaks_near(values: Payload) -> list[Payload]:
    """The start's breakpoints, ``--near`` given to those by a line's text
    (refused when none is)."""
    breaks, near = list(values.get("breaks") or []), values.get("near")
    if near is None:
        return breaks
    if not any(b.get("match") is not None for b in breaks):
        raise UsageError(f"--near {near} picks among the lines a text is on; no --break "
                         "gives a line's text", '--break FILE:"TEXT" --near LINE')
    return [with_near(b, near) if b.get("match") is not None else b for b in breaks]


#: What `start --core` cannot go with: a core is not run.
_NOT_WITH_CORE = (("args", "PROGRAM's arguments"), ("run", "--run"), ("breaks", "--break"),
                  ("stdin", "--stdin"), ("env", "--env"), ("python", "--python"),
                  ("module", "-m"), ("classpath", "-cp"), ("test", "a test run"))


def _core(values: Payload, program: Path) -> tuple[str | None, str]:
    """`--core CORE`: the core's absolute path (relative to the folder the
    command was typed in, like --stdin), checked to be a core dump, with
    nothing given that only a run would use; and a note when it is the core
    of another program than ``program``."""
    core = values.get("core")
    if core is None:
        return None, ""
    given = [label for key, label in _NOT_WITH_CORE if values.get(key)]
    if given:
        raise UsageError(f"--core opens a core dump, which does not run: {', '.join(given)} "
                         "cannot go with it", "a core file is a snapshot: `dbg start PROGRAM` "
                         "runs it")
    path = Path(core) if os.path.isabs(core) else Path.cwd() / core
    if not path.exists():
        raise UsageError(f"--core {core}: no such file")
    if not path.is_file():
        raise UsageError(f"--core {core}: not a core file (not a regular file)")
    from dbgcore.backends.corefile import program_mismatch, read_core

    info = read_core(path, core)  # refuses anything but an ELF core, with why
    notes = [program_mismatch(info, program, core), info.truncated()]
    return os.path.abspath(path), "; ".join(note for note in notes if note)


#: Python modules that run tests, for `dbg start -m MODULE` and `dbg test`.
PYTHON_RUNNERS = ("pytest", "unittest")


RUNNERS = (*PYTHON_RUNNERS, "go", "rspec", "minitest", "phpunit")


def _is_test_runner(program: str, as_module: bool) -> bool:
    """`dbg start -m pytest ...` is a test run like `dbg test` (and so is a
    `pytest` script)."""
    name = program if as_module else os.path.basename(program)
    return name.split(".")[0] in PYTHON_RUNNERS or name in ("py.test", "pytest")


def prepare_test(values: Payload, front: Front) -> tuple[str, Payload]:
    """`dbg test [ARGS...]`: a start of the test runner, straight to the first
    failure (or breakpoint)."""
    args = list(values.get("args") or [])
    cwd = values.get("cwd")
    base = Path(cwd).absolute() if cwd else Path.cwd()
    if cwd and not base.is_dir():
        raise UsageError(f"--cwd {cwd}: no such directory")
    runner = values.get("runner")
    if runner is not None and runner not in RUNNERS:
        raise UsageError(f"unknown --runner {runner!r}", f"choose from: {', '.join(RUNNERS)}")
    if runner is None:
        runner = "go" if _go_tests(args, base) else \
            _ruby_tests(args, base) or _php_tests(args, base)
    start_values: Payload = {k: values.get(k) for k in (
        "backend", "breaks", "cwd", "env", "stdin", "idle_timeout", "python", "show")}
    start_values.update(run=True, test=True)
    if runner == "go":
        if values.get("python") is not None:
            raise UsageError("--python is for Python tests; this is a Go test run")
        package = args[0] if args and not args[0].startswith("-") else "."
        flags = args[1:] if args and not args[0].startswith("-") else args
        start_values.update(program=package, args=_go_test_flags(flags))
        if start_values.get("backend") is None:
            start_values["backend"] = front.backends.select(base / package, base).name
        return prepare_start(start_values, front)
    if runner in ("rspec", "minitest", "phpunit"):
        language = "PHP" if runner == "phpunit" else "Ruby"
        if values.get("python") is not None:
            raise UsageError(f"--python is for Python tests; this is a {language} test run "
                             f"({runner})")
        start_values.update(_ruby_test_start(runner, args) if language == "Ruby"
                            else _command_start("phpunit", args, "apt-get install phpunit"))
        if start_values.get("backend") is None:
            start_values["backend"] = "phpdbg" if language == "PHP" else "rdbg"
        return prepare_start(start_values, front)
    note = ""
    python = python_path(values["python"], Path.cwd()) if values.get("python") else None
    # The backend the run's start will pick: the one named, else the one a
    # Python program gets (selected by its suffix, as a start of `-m RUNNER`).
    chosen, _ = _choose_backend(front.backends, values.get("backend"), base / "runner.py",
                                base, check=False)
    if python is None and takes_python(chosen, front.backends, base):
        python = project_python([], base, _parse_env(values.get("env") or []))
        if python is not None:
            # The same interpreter for the runner's choice below and the run.
            start_values["python"] = python
            note = venv_note(python)
    if runner is None:
        runner = "pytest" if has_module(python, "pytest", base) else "unittest"
        if runner == "unittest":
            note = "; ".join(n for n in (note, (
                f"ran unittest: {python or 'python3'} cannot import pytest "
                "(--runner pytest, or --python an interpreter that has it)")) if n)
    start_values.update(program=runner, module=True, args=args)
    op, sent = prepare_start(start_values, front)
    if note:
        sent["note"] = note
    return op, sent


def _go_tests(args: list[str], base: Path) -> bool:
    """Whether `dbg test ARGS` means `go test`: a Go package or file named
    first, or none named in a Go module's folder."""
    first = next((a for a in args if not a.startswith("-")), None)
    if first is not None:
        path = base / first.removesuffix("/...")
        return first.endswith(".go") or (path.is_dir() and any(path.glob("*.go")))
    return (base / "go.mod").exists() or any(base.glob("*_test.go"))


def _ruby_tests(args: list[str], base: Path) -> str | None:
    """Which Ruby runner `dbg test ARGS` means: rspec for a spec file or a
    project with spec/ or .rspec, minitest for a test file (test_*.rb,
    *_test.rb); None when it is no Ruby test run."""
    files = [a for a in args if not a.startswith("-")]
    first = files[0] if files else None
    if first is not None:
        name = os.path.basename(first.split(":")[0])
        if name.endswith("_spec.rb") or (first.rstrip("/") == "spec" and (base / "spec").is_dir()):
            return "rspec"
        if name.endswith(".rb") and (name.startswith("test_") or name.endswith("_test.rb")):
            return "minitest"
        return None
    return "rspec" if (base / ".rspec").is_file() else None


def _php_tests(args: list[str], base: Path) -> str | None:
    """`dbg test ARGS` means PHPUnit for a *Test.php file, or none named in
    a project with a phpunit.xml."""
    first = next((a for a in args if not a.startswith("-")), None)
    if first is not None:
        return "phpunit" if first.endswith("Test.php") else None
    found = (base / "phpunit.xml").is_file() or (base / "phpunit.xml.dist").is_file()
    return "phpunit" if found else None


def _command_start(command: str, args: list[str], install: str) -> Payload:
    """A test run of a runner's own command on PATH, given ARGS."""
    found = shutil.which(command)
    if found is None:
        raise UsageError(f"{command} not found on PATH", install)
    return {"program": found, "args": args}


def _ruby_test_start(runner: str, args: list[str]) -> Payload:
    """The start of a Ruby test run: rspec's own command with ARGS, or the
    minitest file itself (minitest/autorun runs its tests when it ends)."""
    if runner == "rspec":
        return _command_start("rspec", args, "apt-get install ruby-rspec (or gem install rspec)")
    files = [a for a in args if not a.startswith("-")]
    if not files:
        raise UsageError("a minitest run needs its test file",
                         "dbg test test/test_cart.rb [-n test_total]")
    rest = list(args)
    rest.remove(files[0])
    return {"program": files[0], "args": rest}


def _go_test_flags(flags: list[str]) -> list[str]:
    """`go test`'s short flags as the test binary reads them (-run X -> -test.run X)."""
    known = {"run", "v", "count", "timeout", "bench", "short", "failfast", "skip", "cpu",
             "parallel", "benchtime", "list"}
    out = []
    for flag in flags:
        name = flag.lstrip("-").split("=", 1)[0]
        if flag.startswith("-") and name in known:
            flag = "-test." + flag.lstrip("-")
        out.append(flag)
    return out


def prepare_attach(values: Payload, front: Front) -> tuple[str, Payload]:
    from dbgcore.shared.pathmap import PathMap

    pid, port, backend = values.get("pid"), values.get("port"), values["backend"]
    host = values.get("host") or "127.0.0.1"
    if values.get("remote"):
        if port is not None:
            raise UsageError("give --remote HOST:PORT or --host/--port, not both")
        host, port = _remote_address(str(values["remote"]))
    if (pid is None) == (port is None):
        raise UsageError("attach needs exactly one of --pid, --port or --remote")
    paths = PathMap.parse(list(values.get("maps") or []), os.getcwd())
    _check_attach_supported(front, backend, bool(paths))
    return "attach", {"backend": backend, "pid": pid, "port": port,
                      "host": host, "program": values.get("program"),
                      "paths": paths.to_json(),
                      "breaks": values.get("breaks") or [], "cwd": os.getcwd()}


def _remote_address(text: str) -> tuple[str, int]:
    """HOST:PORT (``[::1]:PORT`` for an IPv6 address) of ``--remote``."""
    host, colon, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"bad --remote {text!r}", "use --remote HOST:PORT, e.g. "
                         "--remote 127.0.0.1:5678 (the local end of `kubectl port-forward`)")
    return host, int(port)


def _choose_backend(registry: BackendRegistry, name: str | None, program: Path, cwd: Path,
                    check: bool = True, build: bool = False) -> tuple[str, bool]:
    """The backend for ``program`` and whether it builds it first (with
    ``build``: a C source file, say); with ``check``, one that can run it
    (a source file not built is refused with how to compile it)."""
    spec = registry.spec(name, cwd) if name is not None else registry.select(program, cwd)
    cls = registry.class_of(spec)
    if check and build and cls is not None and builds(cls, spec, program):
        return spec.name, True
    if check and cls is not None:
        cls.check_program(spec, program)
    return spec.name, False


def _parse_env(pairs: list[str]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key or any(c in key for c in "\0 "):
            raise UsageError(f"bad --env {pair!r}", "use --env NAME=VALUE")
        env[key] = value
    return env


def _check_attach_supported(front: Front, backend: str, maps: bool = False) -> None:
    """Refuse before starting a daemon when the backend cannot attach at all
    (or, with ``maps``, cannot map the program's paths: `attach --map`)."""
    spec = front.backends.config().backends.get(backend)
    if spec is None:
        raise UsageError(f"unknown backend {backend!r}")
    cls = front.backends.class_of(spec)
    if cls is not None and cls.capabilities(front.table).get("attach") == "none":
        attach = front.table.find("attach")
        raise cls.unsupported_for(spec, "attach", title=attach.title if attach else None)
    if maps and cls is not None and not cls.maps_paths:
        raise cls.unsupported_for(spec, "path mapping (attach --map)",
                                  "this debugger reads the program's files by the paths it "
                                  "names; give it its own source path setting with `dbg raw`")


#: Why a backend cannot open a core file (its own hint first).
_NO_CORE = ("a core file is the memory of a crashed compiled program (C, C++, Rust, Go); "
            "`dbg caps` lists the backends that open one (row core)")


#: Why a backend cannot run a program under valgrind (its own hint first).
NO_MEMCHECK = ("valgrind's gdb server is driven by gdb: `dbg memcheck --backend gdb PROGRAM`, "
               "or run `valgrind --tool=memcheck PROGRAM` yourself")


#: Why a backend cannot give the program its standard input (its own hint first).
NO_STDIN = ("this debugger gives the program no stdin of dbg's; have the program read "
             "a file, or start it yourself with its input and `dbg attach` to it")


def handle_start(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.backends.contract import LaunchRequest

    request = LaunchRequest(
        program=args["program"],
        args=list(args.get("args", [])),
        cwd=args.get("cwd"),
        env=dict(args.get("env", {})),
        module=bool(args.get("module", False)),
        stop_on_uncaught=not args.get("no_catch"),
        options=dict(args.get("options") or {}),
        test=bool(args.get("test")),
        core=args.get("core") or None,
        memcheck=bool(args.get("memcheck")),
        replays=int(args["replays"]) if args.get("replays") else None,
    )
    backend = session.new_backend(args["backend"], request.cwd)
    request, built = built_request(backend, request, session.run_dir, bool(args.get("build")))
    if request.core and not backend.opens_cores:
        raise UnsupportedOp("core files", backend.tool_name,
                            backend.unsupported_hints.get("core") or _NO_CORE)
    if request.memcheck and not backend.runs_memcheck:
        raise UnsupportedOp("memcheck", backend.tool_name,
                            backend.unsupported_hints.get("memcheck") or NO_MEMCHECK)
    session.stdin_file = args.get("stdin") or None
    if session.stdin_file and not backend.reads_stdin:
        raise backend.unsupported("stdin", backend.unsupported_hints.get("stdin")
                                  or NO_STDIN)
    session.launch_request = request
    request = _with_stdin(session, request, backend)
    early: list[Breakpoint] | None = None

    def place_breaks() -> None:
        nonlocal early
        early = _apply_breaks(session, args.get("breaks", []), timeout)

    run = bool(args.get("run"))
    session.new_run()
    event = backend.launch(replace(request, before_run=place_breaks) if run else request,
                           timeout)
    session.version = backend.version()
    session.session_id = session.store.open_session(
        session.name, session.spec.name if session.spec else "", backend.tool_name, session.version,
        request.program, request.args, request.cwd or os.getcwd(),
    )
    if early is not None:
        # Placed before the program ran: this is already the first stop.
        # Where each one bound is told as it is now (a debugger may bind
        # a breakpoint only once the program is loaded), counted as placed.
        snapshot = session.snapshot(event, timeout)
        # A program still running when the start's time ran out answers
        # "running" (a console debugger takes no listing meanwhile).
        now = {b.id: b for b in session.breaks.listing(backend, timeout)} \
            if early and snapshot.state == "stopped" else {}
        breakpoints = [replace(now[b.id], hits=b.hits) if b.id in now else b for b in early]
    else:
        breakpoints = _apply_breaks(session, args.get("breaks", []), timeout)
        snapshot = session.snapshot(event, timeout)
        if run and snapshot.state == "stopped":
            # The entry stop is not one the user saw: nothing changed since it.
            session.frame_values.clear()
            snapshot = session.snapshot(backend.cont(timeout), timeout)
    payload = {**snapshot.to_dict(), "breakpoints": [b.to_dict() for b in breakpoints],
               "run": session.current_run()}
    if args.get("note"):
        payload["note"] = args["note"]  # the front end's word on how it chose
    return {**payload, **({"build": built} if built else {})}


def _apply_breaks(session: Session, specs: list[Json], timeout: float) -> list[Breakpoint]:
    """`start --break`'s breakpoints, all in one batch (BreakTable.add_all_many:
    one request a file and kind where the debugger allows, a function's
    places found first); the first refused fails the start, named."""
    from dbgcore.vocab.model import BreakLoc

    assert session.backend is not None
    locs: list[BreakLoc] = []
    for spec in specs:
        loc = BreakLoc.from_wire(spec)
        try:
            locs.append(found_line(session, loc))
        except DbgError as exc:
            raise type(exc)(f"--break {loc}: {exc.message}", exc.hint) from exc
    placed: list[Breakpoint] = []
    answers = session.breaks.add_all_many(session.backend, locs, timeout) if locs else []
    for loc, answer in zip(locs, answers, strict=True):
        if isinstance(answer, DbgError):
            raise type(answer)(f"--break {loc}: {answer.message}", answer.hint) from answer
        if isinstance(answer, Exception):
            raise answer
        placed += answer
    return placed


def _with_stdin(session: Session, request: LaunchRequest, backend: Backend) -> LaunchRequest:
    """The request with the program's standard input: the user's file, or
    a new FIFO `dbg input` writes to (each run reads its own)."""
    from dbgcore.transport.streams import StdinFeed

    if session.stdin is not None:
        session.stdin.remove()
        session.stdin = None
    if not backend.reads_stdin or request.core:
        return request
    if session.stdin_file:
        return replace(request, stdin=session.stdin_file)
    session.stdin = StdinFeed(session.run_dir)
    return replace(request, stdin=str(session.stdin.path))


def handle_attach(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.backends.contract import AttachRequest
    from dbgcore.shared.pathmap import PathMap

    request = AttachRequest(pid=args.get("pid"), host=args.get("host"), port=args.get("port"),
                            program=args.get("program"))
    backend = session.new_backend(args["backend"], args.get("cwd"))
    request, note = _container_paths(request, PathMap.from_json(args.get("paths")),
                                     type(backend).maps_paths)
    session.attach_request = request
    early: list[Breakpoint] | None = None
    if args.get("child"):
        request, early = _child_request(session, request, args, timeout)
    event = backend.attach(request, timeout)
    session.version = backend.version()
    session.session_id = session.store.open_session(
        session.name, session.spec.name if session.spec else "", backend.tool_name, session.version,
        request.program or "", [], os.getcwd(),
    )
    breakpoints = (_apply_breaks(session, args.get("breaks", []), timeout) if early is None
                   else early)
    answer = {**session.snapshot(event, timeout).to_dict(),
              "breakpoints": [b.to_dict() for b in breakpoints], "run": session.current_run()}
    if request.paths:
        answer["paths"] = request.paths.to_json()
    if note:
        answer["note"] = f"{answer['note']}; {note}" if answer.get("note") else note
    return answer


def _container_paths(request: AttachRequest, paths: PathMap,
                     maps: bool) -> tuple[AttachRequest, str]:
    """The request with its path map: the one given (--map), or for a
    process in another mount namespace (a container), its files read here
    through /proc/PID/root when the backend ``maps`` paths; and what to say
    of it."""
    from dbgcore.shared.pathmap import PathMap, mount_namespace_root

    pid = request.pid
    root = mount_namespace_root(pid) if pid is not None and maps else None
    if root is not None and not paths:
        paths = PathMap.of([("/", root)])
        return (replace(request, paths=paths),
                f"in another mount namespace: sources read through {root}")
    if paths:
        mapped = ", ".join(f"{r} -> {loc}" for r, loc in paths.pairs)
        return replace(request, paths=paths), f"paths mapped: {mapped}"
    return request, ""


def _child_request(session: Session, request: AttachRequest, args: Payload,
                   timeout: float) -> tuple[AttachRequest, list[Breakpoint]]:
    """A child process's session (its parent's backend started it with
    ``child``, what the debugger says of the child): the parent's
    breakpoints are placed before the child runs on, as `start --run` does."""
    early: list[Breakpoint] = []

    def place_breaks() -> None:
        early.extend(_apply_child_breaks(session, args.get("breaks", []), timeout))

    # A child of a program dbg attached to is not dbg's to end either.
    options = {"child": args["child"], "attached": bool(args.get("attached"))}
    request = replace(request, pid=args.get("pid"), options=options,
                      before_run=place_breaks)
    session.attach_request = request
    return request, early


def _apply_child_breaks(session: Session, specs: list[Json], timeout: float) -> list[Breakpoint]:
    """The parent's breakpoints, each ``{"loc", "condition", "hit_count",
    "log_message"}``, placed as the parent has them."""
    from dbgcore.vocab.model import BreakLoc, BreakOptions

    assert session.backend is not None
    locs, options = [], []
    for spec in specs:
        if not isinstance(spec, dict):
            raise UsageError(f"bad child breakpoint {spec!r}")
        locs.append(BreakLoc.from_wire(spec.get("loc")))
        options.append(BreakOptions(condition=spec.get("condition") or None,
                                    hit_count=spec.get("hit_count") or None,
                                    log_message=spec.get("log_message") or None))
    placed = []
    # In one batch, as the parent's start set them; the first refused fails.
    for answer in session.breaks.add_many(session.backend, locs, timeout, options) \
            if locs else []:
        if isinstance(answer, Exception):
            raise answer
        placed.append(answer)
    return placed


def handle_restart(session: Session, args: Payload, timeout: float) -> Payload:
    if session.launch_request is None or session.spec is None:
        raise UsageError("restart needs a session started with `dbg start`",
                         "an attached session cannot be restarted; attach again")
    old = session.backend
    assert old is not None
    built = rebuild(type(old), session.spec, session.launch_request.program, session.run_dir)
    try:
        session.breaks.listing(old, timeout)  # forgets temporary breakpoints that fired
    except DbgError:
        pass
    old.terminate()
    # The files may have been edited: each breakpoint goes where its line's
    # text is now, before it is set again.
    moved = session.breaks.follow_edits()
    backend = session.new_backend(session.spec.name, session.launch_request.cwd)
    session.new_run()
    request = _with_stdin(session, session.launch_request, backend)
    # A test run goes again to its first failure, as `dbg test` did, and a
    # memcheck run to its first error; the breakpoints are set again before
    # it runs where the backend can.
    run = request.test or request.memcheck
    replayed: tuple[list[Breakpoint], list[Payload]] | None = None

    def replay() -> None:
        nonlocal replayed
        replayed = session.breaks.replay(backend, timeout)
        # The catch with them: a test run's replay comes before the program
        # runs on, and after that it could raise what is caught unseen.
        if session.catch_filters:
            try:
                backend.catch(session.catch_filters, timeout)
            except DbgError as exc:
                replayed[1].append({"location": "catch " + " ".join(session.catch_filters),
                                    "error": exc.message})

    try:
        event = backend.launch(replace(request, before_run=replay) if run else request, timeout)
    except BaseException:
        # Half launched (a full disk refused a file of its start): nothing
        # of it runs on, and the session says its program has ended, where
        # another `dbg restart` tries again.
        backend.terminate()
        raise
    early = replayed is not None
    if replayed is None:
        replay()
    assert replayed is not None
    placed, failed = replayed
    snapshot = session.snapshot(event, timeout)
    if run and not early and snapshot.state == "stopped":
        session.frame_values.clear()
        snapshot = session.snapshot(backend.cont(timeout), timeout)
    return {**snapshot.to_dict(), "breakpoints": [b.to_dict() for b in placed],
            "failed_breakpoints": failed, "run": session.current_run(),
            **({"moved_breakpoints": moved} if moved else {}),
            **({"build": built} if built else {})}


#: The arguments several of these ops take.
_STDIN = Arg("stdin", "str", "A file the program reads as its stdin (without it, "
             "`dbg input` sends lines).", flags=("--stdin",), metavar="FILE", path=True)
_IDLE = Arg("idle_timeout", "float", "End the session after this long without a command "
            "(default 1800).", flags=("--idle-timeout",), minimum=1, metavar="SECONDS")
_PYTHON = Arg("python", "str", "Python: the interpreter that runs the program (default: "
              "an active venv's `python3`, else the project's `.venv` or `venv`, looked for "
              "from the program's folder and the run folder up to the project's top, else the "
              "`python3` on PATH).",
              flags=("--python",), metavar="PATH", path=True)


#: The ops that start a program, in the op table's order.
OPS: tuple[Op, ...] = (
    Op("start", "Start PROGRAM under a debugger, stopped at entry (or at the first "
       "breakpoint with --run).", (
        Arg("program", "str", "The program: a script, a binary (or a C, C++ or Rust source: "
            "built first), a class, or with -m a module.",
            required=True, path=True),
        Arg("args", "str", "The program's arguments.", multiple=True, passthrough=True),
        Arg("backend", "str", "Backend to use (default: chosen from PROGRAM).",
            flags=("--backend", "-b"), metavar="NAME"),
        Arg("breaks", "location", "Breakpoint to set.", flags=("--break",),
            multiple=True, metavar="LOC"),
        NEAR,
        Arg("run", "bool", "Run to the first stop (or the end) after starting.",
            flags=("--run",)),
        Arg("core", "str", "Open CORE, the core dump PROGRAM left when it crashed (post "
            "mortem: look around where it died; nothing runs).", flags=("--core",), metavar="CORE",
            path=True),
        Arg("no_catch", "bool", "Do not stop on uncaught exceptions (by default the program "
            "stops where one would end it).", flags=("--no-catch",)),
        Arg("cwd", "str", "Working directory of the program.", flags=("--cwd",),
            metavar="DIR", path=True),
        Arg("env", "str", "Environment variable.", flags=("--env",),
            multiple=True, metavar="K=V"),
        _STDIN, _IDLE,
        Arg("module", "bool", "PROGRAM is a Python module to run like `python -m` "
            "(e.g. pytest).", flags=("-m", "--module")),
        Arg("classpath", "str", "Java: the class path; PROGRAM is then the main class (jdb).",
            flags=("-cp", "--classpath"), metavar="PATH"),
        Arg("no_build", "bool", "Do not build a source file (refuse it, saying how).",
            flags=("--no-build",)),
        _PYTHON, SHOW,
    ), needs="none", stops=True, send="start", prepare=prepare_start, handler=handle_start,
       own_tool=True,
       render=render_stop,
       group="sessions", details=(
           "Options go before PROGRAM; every word after it is the program's. A test "
           "runner started here (`-m pytest`, `-m unittest`) stops where a test fails, "
           "as `dbg test` does.\n\n"
           "`--core CORE` opens a core dump instead of running PROGRAM (on the backends "
           "`dbg caps` says can, row core): the stop (reason `core`) says how the process died and "
           "where; stack, frame, up, down, locals, print, threads, disasm and memory read "
           "look around; continue, step, next, finish, until, pause, restart, set, input "
           "and breakpoints are refused (exit 1), since a core cannot run.\n\n"
           "  dbg start --core core ./wc\n"
           "  dbg start --backend lldb --core /var/crash/core.1234 build/server")),
    Op("test", "Run a test suite under the debugger; stop where a test fails.", (
        Arg("args", "str", "The runner's arguments: test files or packages, -k, -run... "
            "(after `--` when the first one starts with a dash).", multiple=True,
            passthrough=True),
        Arg("runner", "str", "pytest, unittest, go, rspec, minitest or phpunit (default: by "
            "the files named: Go packages, *_spec.rb, test_*.rb, *Test.php; else pytest "
            "when the program's Python has it, else unittest).", flags=("--runner",),
            metavar="NAME"),
        Arg("backend", "str", "Backend to use (default: debugpy for Python, dlv for Go, "
            "rdbg for Ruby, phpdbg for PHP).",
            flags=("--backend", "-b"), metavar="NAME"),
        Arg("breaks", "location", "Breakpoint to set.", flags=("--break",),
            multiple=True, metavar="LOC"),
        Arg("cwd", "str", "Working directory of the run (default: here).", flags=("--cwd",),
            metavar="DIR", path=True),
        Arg("env", "str", "Environment variable.", flags=("--env",),
            multiple=True, metavar="K=V"),
        _STDIN, _IDLE, _PYTHON, SHOW,
    ), needs="none", stops=True, send="start", prepare=prepare_test, render=render_stop,
       own_tool=True,
       group="sessions", details=(
           "The run goes straight to the first stop: a failing test, stopped in the frame "
           "that raised the assertion or error, on the failing line (`dbg exception` tells "
           "the rest), or a breakpoint; passing tests do not stop, and `dbg continue` goes "
           "on to the next failure. Python: pytest or unittest, on debugpy or pdb. Go: `go "
           "test` through delve (`-run X` and `-v` are passed as -test.run, -test.v).\n\n"
           "  dbg test tests/test_report.py -k total\n"
           "  dbg test --break helper.py:12 -- -x tests/\n"
           "  dbg test ./pkg -run TestParse")),
    Op("attach", "Attach to a running process (--pid) or debug server (--port, --remote).", (
        Arg("backend", "str", "Backend to attach with.", flags=("--backend", "-b"),
            required=True, metavar="NAME"),
        Arg("pid", "int", "Process id to attach to.", flags=("--pid",), minimum=1),
        Arg("port", "int", "Port of a debug server to attach to.", flags=("--port",),
            minimum=1, maximum=65535),
        Arg("host", "str", "Host of the debug server.", flags=("--host",),
            default="127.0.0.1"),
        Arg("remote", "str", "HOST:PORT of a debug server (the local end of `kubectl "
            "port-forward`), instead of --host and --port.", flags=("--remote",),
            metavar="HOST:PORT"),
        Arg("maps", "str", "The program's folder REMOTE is LOCAL here.",
            flags=("--map",), multiple=True, metavar="REMOTE=LOCAL"),
        Arg("program", "str", "Path of the program's binary or script, if the backend "
            "needs it.", flags=("--program",), path=True),
        Arg("breaks", "location", "Breakpoint to set.", flags=("--break",),
            multiple=True, metavar="LOC"),
        Arg("idle_timeout", "float", "End the session after this long without a command.",
            flags=("--idle-timeout",), minimum=1, metavar="SECONDS"),
    ), needs="none", stops=True, send="start", prepare=prepare_attach, handler=handle_attach,
       method=Backend.attach, title="attaching", render=render_stop,
       group="sessions"),
    stopping("restart", "Run the same program again; breakpoints are set again, each moved "
              "with its line's text when its file was edited.",
              needs="session", handler=handle_restart, lost_ok=True, ended_ok=True,
              checked=False, new_debugger=True),
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
