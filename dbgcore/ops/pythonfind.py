"""Which Python runs a program `dbg start` or `dbg test` debugs: an active
venv's, the project's ``.venv`` or ``venv``, else the ``python3`` on PATH;
and whether that Python has a module (a test runner), asked of it once and
remembered. The front end's preparation of those ops
(:mod:`dbgcore.ops.starting`) reads these.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from dbgcore.shared.errors import UsageError

if TYPE_CHECKING:
    from dbgcore.backends.registry import BackendRegistry


def python_path(python: str, base: Path, backend: str | None = None,
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


def takes_python(backend: str, registry: BackendRegistry, base: Path) -> bool:
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


def project_python(folders: list[Path], base: Path, env: dict[str, str]) -> str | None:
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


def venv_note(python: str) -> str:
    return (f"ran with {python}, the project's virtual environment "
            "(--python chooses another interpreter)")


def has_module(python: str | None, module: str, base: Path) -> bool:
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
            and module_probe_stamps(list(kept["stamps"]), module, base) == kept["stamps"]:
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
                                     "stamps": module_probe_stamps(where, module, base)}))
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


def module_probe_stamps(paths: list[str], module: str,
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
