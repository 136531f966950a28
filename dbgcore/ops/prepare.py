"""What some ops do in the front end before (or instead of) the daemon.

``prepare`` functions take an op's checked values (locations already parsed
and anchored) and the process's :class:`~dbgcore.backends.registry.Front`, and return
what is sent: ``(op, args)``. ``run`` functions answer an op in the front
end's own process: ``(payload, via)``. Both are named in the op table
(:mod:`dbgcore.ops.table`) and shared by every front end.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbgcore.shared.errors import DbgError, UsageError

if TYPE_CHECKING:
    from dbgcore.backends.registry import BackendRegistry, Front
    from dbgcore.vocab.location import BreakLoc

Values = dict[str, Any]
Via = dict[str, str]


# -- prepare: values -> (op, wire args) ------------------------------------------------------


def start(values: Values, front: Front) -> tuple[str, Values]:
    program: str = values["program"]
    cwd = values.get("cwd")
    as_module, classpath = values.get("module"), values.get("classpath")
    options: Values = {}
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
    chosen = _choose_backend(front.backends, values.get("backend"), target, base,
                             check=not named)
    python = values.get("python")
    if python is not None:
        # Relative to the folder the command was typed in, like --stdin.
        options["python"] = _python_path(python, Path.cwd(), chosen, front.backends)
    elif _takes_python(chosen, front.backends, base):
        found = _project_python([] if named else [target if target.is_dir() else target.parent],
                                base, env)
        if found is not None:
            options["python"] = found
            note = "; ".join(n for n in (note, _venv_note(found)) if n)
    return "start", {
        "backend": chosen, "program": program if named else str(target.absolute()),
        "module": bool(as_module), "args": list(values.get("args") or []), "options": options,
        "cwd": str(base), "env": env, "breaks": values.get("breaks") or [],
        "run": bool(values.get("run")), "no_catch": bool(values.get("no_catch")),
        "stdin": stdin, "show": values.get("show") or [],
        "test": bool(values.get("test")) or _is_test_runner(program, bool(as_module)),
        "core": core, **({"note": note} if note else {}),
    }


#: What `start --core` cannot go with: a core is not run.
_NOT_WITH_CORE = (("args", "PROGRAM's arguments"), ("run", "--run"), ("breaks", "--break"),
                  ("stdin", "--stdin"), ("env", "--env"), ("python", "--python"),
                  ("module", "-m"), ("classpath", "-cp"), ("test", "a test run"))


def _core(values: Values, program: Path) -> tuple[str | None, str]:
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
RUNNERS = (*PYTHON_RUNNERS, "go")


def _is_test_runner(program: str, as_module: bool) -> bool:
    """`dbg start -m pytest ...` is a test run like `dbg test` (and so is a
    `pytest` script)."""
    name = program if as_module else os.path.basename(program)
    return name.split(".")[0] in PYTHON_RUNNERS or name in ("py.test", "pytest")


def test(values: Values, front: Front) -> tuple[str, Values]:
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
        runner = "go" if _go_tests(args, base) else None
    start_values: Values = {k: values.get(k) for k in (
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
        return start(start_values, front)
    note = ""
    python = _python_path(values["python"], Path.cwd()) if values.get("python") else None
    # The backend the run's start will pick: the one named, else the one a
    # Python program gets (selected by its suffix, as a start of `-m RUNNER`).
    chosen = _choose_backend(front.backends, values.get("backend"), base / "runner.py", base,
                             check=False)
    if python is None and _takes_python(chosen, front.backends, base):
        python = _project_python([], base, _parse_env(values.get("env") or []))
        if python is not None:
            # The same interpreter for the runner's choice below and the run.
            start_values["python"] = python
            note = _venv_note(python)
    if runner is None:
        runner = "pytest" if _has_module(python, "pytest", base) else "unittest"
        if runner == "unittest":
            note = "; ".join(n for n in (note, (
                f"ran unittest: {python or 'python3'} cannot import pytest "
                "(--runner pytest, or --python an interpreter that has it)")) if n)
    start_values.update(program=runner, module=True, args=args)
    op, sent = start(start_values, front)
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


def _python_path(python: str, base: Path, backend: str | None = None,
                 registry: BackendRegistry | None = None) -> str:
    """`--python PATH`: an interpreter that runs, by path or by name on PATH."""
    import shutil

    if backend is not None and registry is not None:
        spec = registry.config(base).backends.get(backend)
        if spec is not None and ".py" not in spec.extensions:
            raise UsageError(f"--python is for Python programs, not for the {backend} backend")
    if os.sep in python:
        path = Path(python) if os.path.isabs(python) else base / python
        found = str(path.absolute()) if path.is_file() and os.access(path, os.X_OK) else None
    else:
        found = shutil.which(python)
    if found is None:
        raise UsageError(f"--python {python}: no such interpreter",
                         "give the path of a Python executable (e.g. .venv/bin/python)")
    return found


def _takes_python(backend: str, registry: BackendRegistry, base: Path) -> bool:
    """Whether ``backend`` runs Python programs with an interpreter dbg
    chooses; not when the backend's configuration names its own
    (backends.yaml's ``python`` option, or a command that is not plain
    ``python3``)."""
    spec = registry.config(base).backends.get(backend)
    if spec is None or ".py" not in spec.extensions or spec.options.get("python"):
        return False
    return not spec.command or spec.command == ["python3"]


#: Where a project keeps its virtual environment, in the order looked for.
VENV_NAMES = (".venv", "venv")
#: What marks a project's top folder: the search for its venv stops there.
PROJECT_MARKS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def _project_python(folders: list[Path], base: Path, env: dict[str, str]) -> str | None:
    """The interpreter of the virtual environment of the project the
    program is in (its folder's, then the run folder's, each looked for up
    to its project's top folder: ``.venv/bin/python``, ``venv/bin/python``),
    as an editor picks it; None when an environment is active already
    (VIRTUAL_ENV, CONDA_PREFIX: its ``python3`` is on PATH) or there is none."""
    active = ("VIRTUAL_ENV", "CONDA_PREFIX")
    if any(os.environ.get(name) or env.get(name) for name in active):
        return None
    for start in [*folders, base]:
        folder = start.absolute()
        while True:
            for name in VENV_NAMES:
                python = folder / name / "bin" / "python"
                if (folder / name / "pyvenv.cfg").is_file() and python.is_file() \
                        and os.access(python, os.X_OK):
                    return str(python)
            if any((folder / mark).exists() for mark in PROJECT_MARKS) \
                    or folder.parent == folder:
                break
            folder = folder.parent
    return None


def _venv_note(python: str) -> str:
    return (f"ran with {python}, the project's virtual environment "
            "(--python chooses another interpreter)")


def _has_module(python: str | None, module: str, base: Path) -> bool:
    """Whether the program's Python can import ``module`` (asked of it, a
    Python start; the answer is kept, see :func:`_module_probe_stamps`)."""
    import json
    import shutil
    import subprocess

    from dbgcore.lang.pyprobe import real_python, recall, remember
    from dbgcore.shared.paths import dbg_home

    exe = python or shutil.which("python3")
    if exe is None:
        return False
    # Past a version manager's shim (0.3-0.4 s a start): its choice is kept.
    exe = real_python(exe, os.environ, str(base))
    cache = dbg_home() / "module-probes.json"
    try:
        info = os.stat(exe)
    except OSError:
        return False
    # By the path as given, not where it leads: two virtual environments of
    # one Python are one file, with other folders on their paths.
    key = json.dumps([os.path.abspath(exe), info.st_size, info.st_mtime_ns, module,
                      str(base), *(os.environ.get(name) for name in _PATH_VARIABLES)])
    try:
        kept = json.loads(recall(cache, key) or "null")
    except ValueError:
        kept = None
    if isinstance(kept, dict) and isinstance(kept.get("stamps"), dict) \
            and _module_probe_stamps(list(kept["stamps"]), module, base) == kept["stamps"]:
        return bool(kept.get("found"))
    try:
        found = subprocess.run([exe, "-c", _MODULE_PROBE, module], cwd=base,
                               capture_output=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return False
    try:
        answer = json.loads(found.stdout)
        where = [str(p) for p in answer["where"]]
    except (ValueError, KeyError, TypeError):
        return found.returncode == 0
    remember(cache, key, json.dumps({"found": bool(answer.get("found")),
                                     "stamps": _module_probe_stamps(where, module, base)}))
    return bool(answer.get("found"))


#: The variables besides the interpreter and the folder that change where
#: a module is found.
_PATH_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONSAFEPATH",
                   "PYTHONUSERBASE", "VIRTUAL_ENV")

#: Whether the module is found, and every place where installing or removing
#: one would show: the folders on sys.path and the user's site folder (made
#: only when something is installed there, and then on the path).
_MODULE_PROBE = (
    "import importlib.util, json, os, site, sys\n"
    "where = [os.path.abspath(p or os.curdir) for p in sys.path]\n"
    "where.append(site.getusersitepackages())\n"
    "print(json.dumps({'found': importlib.util.find_spec(sys.argv[1]) is not None, "
    "'where': where}))\n")


def _module_probe_stamps(paths: list[str], module: str,
                         base: Path) -> dict[str, int | list[str] | None]:
    """Each place's modification time (None where there is nothing): a
    module installed or removed, or a .pth file added, changes the folder
    it is in, and a kept answer stands only while none of them changed.

    The program's own folder (first on the path of `python -m`) changes
    whenever a file in it is made, renamed or removed (an editor's save
    does), and only a module of that name there can change the answer
    (Python reads no .pth file in it): its stamp is the names there that
    would be that module (``pytest``, ``pytest.py``, ``pytest.<abi>.so``)."""
    own = os.path.abspath(base)
    stamps: dict[str, int | list[str] | None] = {}
    for path in paths:
        try:
            if path == own:
                stamps[path] = sorted(name for name in os.listdir(path)
                                      if name == module or name.startswith(module + "."))
            else:
                stamps[path] = os.stat(path).st_mtime_ns
        except OSError:
            stamps[path] = None
    return stamps


def attach(values: Values, front: Front) -> tuple[str, Values]:
    pid, port, backend = values.get("pid"), values.get("port"), values["backend"]
    if (pid is None) == (port is None):
        raise UsageError("attach needs exactly one of --pid or --port")
    _check_attach_supported(front, backend)
    return "attach", {"backend": backend, "pid": pid, "port": port,
                      "host": values.get("host") or "127.0.0.1", "program": values.get("program"),
                      "breaks": values.get("breaks") or [], "cwd": os.getcwd()}


def break_(values: Values, front: Front) -> tuple[str, Values]:
    location, instruction = values.get("location"), values.get("instruction")
    if (location is None) == (instruction is None):
        raise UsageError("give a LOCATION or --instruction ADDR (one of them)")
    condition, hit, log = values.get("condition"), values.get("hit"), values.get("log")
    for text in (condition, log):
        if text is not None and (not text.strip() or any(c in text for c in "\r\n")):
            raise UsageError("--if and --log take one non-empty line")
    if instruction is not None:
        return "break-instruction", {"address": instruction, "condition": condition, "hit": hit}
    return "break", {"location": location, "condition": condition, "hit": hit, "log": log,
                     "temp": bool(values.get("temp"))}


def unbreak(values: Values, front: Front) -> tuple[str, Values]:
    from dbgcore.shared.bounds import whole_number
    from dbgcore.vocab.location import location_arg

    text = str(values["target"]).strip()
    if text.isascii() and text.isdigit():
        return "unbreak", {"id": whole_number(text, "unbreak ID", noun="a breakpoint id")}
    return "unbreak", {"location": location_arg(text)}


def _choose_backend(registry: BackendRegistry, name: str | None, program: Path, cwd: Path,
                    check: bool = True) -> str:
    """The backend for ``program``; with ``check``, one that can run it (a C
    source file, say, is refused with how to compile it)."""
    spec = registry.spec(name, cwd) if name is not None else registry.select(program, cwd)
    cls = registry.class_of(spec)
    if check and cls is not None:
        cls.check_program(spec, program)
    return spec.name


def _parse_env(pairs: list[str]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key or any(c in key for c in "\0 "):
            raise UsageError(f"bad --env {pair!r}", "use --env NAME=VALUE")
        env[key] = value
    return env


def _check_attach_supported(front: Front, backend: str) -> None:
    """Refuse before starting a daemon when the backend cannot attach at all."""
    spec = front.backends.config().backends.get(backend)
    if spec is None:
        raise UsageError(f"unknown backend {backend!r}")
    cls = front.backends.class_of(spec)
    if cls is not None and cls.capabilities(front.table).get("attach") == "none":
        attach = front.table.find("attach")
        raise cls.unsupported_for(spec, "attach", title=attach.title if attach else None)


# -- run: answered here ----------------------------------------------------------------------


def sessions(values: Values, session: str, timeout: float,
             front: Front) -> tuple[Values, Via | None]:
    from dbgcore.shared import client
    from dbgcore.shared.status import list_session_names

    rows = []
    for name in list_session_names():
        try:
            live = client.live_status(name)
        except DbgError:
            continue  # gone, or on its way out (a start that failed ends its daemon)
        if live is None:
            continue
        try:
            response = client.call(name, "ping", None, 5.0)
        except DbgError:
            continue
        info = (response.get("result") or {}).get("session") or {}
        rows.append({"name": name, "backend": info.get("backend"), "tool": info.get("tool"),
                     "state": info.get("state", "?"), "program": info.get("program")})
    return {"sessions": rows}, None


def kill(values: Values, session: str, timeout: float,
         front: Front) -> tuple[Values, Via | None]:
    from dbgcore.shared import client

    response = client.kill(session, timeout)
    if not response.get("ok"):
        raise DbgError.from_wire(response.get("error") or {})
    return response.get("result") or {}, response.get("via")


def hits(values: Values, session: str, timeout: float,
         front: Front | None) -> tuple[Values, Via | None]:
    from dbgcore.store.db import Store
    from dbgcore.vocab.location import BreakLoc

    location = values.get("location")
    wanted = BreakLoc.parse(location) if location else None
    store = Store(by="dbg hits")
    try:
        session_id = None if values.get("all") else store.latest_session_id(session)
        rows = [] if session_id is None and not values.get("all") else \
            store.hits(session_id, name=session, limit=100_000)
        notes = store.take_notes()  # damage found on the way: said, never passed over
    finally:
        store.close()
    if wanted is not None:
        rows = [r for r in rows if _matches(r, wanted)]
    if values.get("diff"):
        rows = _changes(rows)
    answer: Values = {"hits": rows[: values.get("limit") or 200], "filter": location,
                      "total": len(rows)}
    if values.get("diff"):
        answer["diff"] = True
    if notes:
        answer["note"] = "; ".join(notes)
    return answer, None


def _changes(rows: list[Values]) -> list[Values]:
    """Each stop with only what changed in its locals since the previous
    stop in the same function (of the same file): ``changed`` (name, value
    and ``was``, absent for a new one) and ``gone`` (names no longer there);
    a function's first stop has all its locals as changed."""
    last: dict[tuple[str, str], dict[str, str]] = {}
    out = []
    for row in rows:
        if row.get("state") == "exited":
            out.append(row)
            continue
        key = (str(row.get("file") or ""), str(row.get("function") or ""))
        now = {str(v["name"]): str(v.get("value")) for v in row.get("locals") or []}
        before = last.get(key)
        changed: list[Values] = []
        for name, value in now.items():
            if before is None or name not in before:
                changed.append({"name": name, "value": value})
            elif before[name] != value:
                changed.append({"name": name, "value": value, "was": before[name]})
        gone = sorted(set(before) - set(now)) if before is not None else []
        last[key] = now
        shown = {k: v for k, v in row.items() if k != "locals"}
        out.append({**shown, "changed": changed, "gone": gone, "first": before is None})
    return out


def _matches(row: Values, loc: BreakLoc) -> bool:
    if loc.function:
        name = row.get("function") or ""
        return bool(name == loc.function or name.endswith("." + loc.function))
    if loc.line != row.get("line"):
        return False
    if not loc.file:
        return True
    from dbgcore.lang.sourcefind import suffix_matches

    file = row.get("file") or ""
    return file == loc.file or bool(suffix_matches(loc.file, [file]))


def backends(values: Values, session: str, timeout: float,
             front: Front) -> tuple[Values, Via | None]:
    rows = []
    for spec in front.backends.config().backends.values():
        cls = front.backends.class_of(spec)
        if cls is None:
            rows.append({"name": spec.name, "plugin": spec.plugin, "ready": False,
                         "detail": f"plugin {spec.plugin!r} is not loaded (see dbg plugins)",
                         "install": spec.install})
            continue
        try:
            readiness = cls.check(spec)
        except Exception as exc:  # a plugin's check must not break the listing
            rows.append({"name": spec.name, "plugin": spec.plugin, "ready": False,
                         "detail": f"check failed: {exc}", "install": spec.install})
            continue
        rows.append({"name": spec.name, "plugin": spec.plugin, "ready": readiness.ready,
                     "detail": readiness.detail, "version": readiness.version,
                     "install": spec.install, "extensions": spec.extensions})
    return {"backends": rows}, None


def plugins(values: Values, session: str, timeout: float,
            front: Front) -> tuple[Values, Via | None]:
    # Plugins' hooks for commands and ops run only when a front end looks past
    # the built-in ones; run them here, so that one that fails is reported too.
    assert front.table is not None
    host = front.host
    host.add_commands_once()
    rows = [{"name": p.name, "source": p.source, "ok": p.ok, "error": p.error,
             "backends": list(p.backends)} for p in host.report()]
    return {"plugins": rows}, None


def caps(values: Values, session: str, timeout: float,
         front: Front) -> tuple[Values, Via | None]:
    """Asked of the code and of the installed debuggers themselves (each DAP
    adapter is started to read the capabilities it announces)."""
    from dbgcore.backends.contract import FEATURES, answered_ops

    names = list(values.get("backend") or [])
    config = front.backends.config()
    unknown = [n for n in names if n not in config.backends]
    if unknown:
        raise UsageError(f"unknown backend {', '.join(unknown)}",
                         f"known backends: {', '.join(config.backends)}")
    columns: list[Values] = []
    for spec in config.backends.values():
        if names and spec.name not in names:
            continue
        cls = front.backends.class_of(spec)
        column: Values = {"name": spec.name, "tool": spec.name, "ready": False}
        if cls is None:
            column["detail"] = f"plugin {spec.plugin!r} is not loaded"
        else:
            column["tool"] = cls.tool_for(spec)
            try:
                readiness = cls.check(spec)
                column.update(version=readiness.version, detail=readiness.detail)
                if readiness.ready:
                    column["ops"] = dict(cls.support(spec, front.table))
                    column["ready"] = True
            except Exception as exc:  # one broken backend must not hide the others
                column["detail"] = f"cannot ask {spec.name}: {exc}"
        if column["ready"] or names:
            columns.append(column)
    answered = [op.name for op in answered_ops(front.table)]
    extra = sorted({op for c in columns for op in c.get("ops", {})
                    if op not in answered and op not in FEATURES})
    ops = [*answered, *FEATURES, *extra]
    for column in columns:
        if column["ready"]:
            column["ops"] = {op: column["ops"].get(op, "none") for op in ops}
    payload: Values = {"ops": ops, "backends": columns}
    if values.get("markdown"):
        payload["markdown"] = True
    return payload, None


def agent_install(values: Values, session: str, timeout: float,
                  front: Front) -> tuple[Values, Via | None]:
    from dbgcore.frontends.agents import install

    return install(values, session, timeout, front)
