"""What a Python program's own interpreter says of itself, asked once: its
version, its module search path (``sys.path``) and its standard library's
folders. pdb and debugpy resolve a ``FILE:LINE`` such as
``tabulate/__init__.py:1060`` against that path, so a file of the program's
virtual environment, of a ``PYTHONPATH`` given with ``--env`` or of the
package run with ``-m`` is found before the program runs, and never one of
dbg's own interpreter.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dbgcore.shared.homecheck import make_folders, read_file, write_file

#: Run by the program's interpreter (3.8 and newer): one JSON line. With a
#: module's name (`-m MODULE`), also the file `python -m` runs for it.
_PROBE = (
    "import json, sys, sysconfig\n"
    "origin = ''\n"
    "if sys.argv[1:]:\n"
    "    import importlib.util\n"
    "    try:\n"
    "        spec = importlib.util.find_spec(sys.argv[1])\n"
    "        if spec is not None and spec.submodule_search_locations is not None:\n"
    "            spec = importlib.util.find_spec(sys.argv[1] + '.__main__')\n"
    "        origin = spec.origin if spec is not None and spec.origin else ''\n"
    "    except Exception:\n"
    "        pass\n"
    "print(json.dumps({'version': list(sys.version_info[:3]), 'path': sys.path,\n"
    "    'stdlib': sorted({sysconfig.get_path(k) or '' for k in ('stdlib', 'platstdlib')}),\n"
    "    'executable': sys.executable, 'module_file': origin}))\n"
)


@dataclass
class PythonSetup:
    """The answer of :func:`probe_python`; ``error`` says why there is none."""

    version: tuple[int, ...] = ()
    path: list[str] = field(default_factory=list)
    stdlib: list[str] = field(default_factory=list)
    executable: str = ""
    #: The source file `python -m MODULE` runs ("" if not asked, or not one).
    module_file: str = ""
    error: str = ""

    def first_on_path(self, requested: str) -> list[str]:
        """The file ``requested`` (``pkg/mod.py``, ``mod.py``) names below
        the first folder of the search path that has it, as Python's import
        would find it: a one-item list, or an empty one."""
        if os.path.isabs(requested) or ".." in requested.replace("\\", "/").split("/"):
            return []
        for folder in self.path:
            candidate = os.path.join(folder, requested)
            if os.path.isfile(candidate):
                return [os.path.realpath(candidate)]
        return []


def probe_python(python: str, env: Mapping[str, str], cwd: str | None,
                 program_dir: str | None = None, module: str | None = None,
                 timeout: float = 20) -> PythonSetup:
    """Ask ``python`` with the program's environment (``env`` over dbg's
    own) and working folder. Its search path starts with the folder of a
    script (``program_dir``), or the working folder for ``-m MODULE``, as
    the program's does; ``module``: find that module's file too."""
    try:
        done = subprocess.run([python, "-c", _PROBE, *([module] if module else [])],
                              cwd=cwd or None,
                              env={**os.environ, **env}, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return PythonSetup(error=f"cannot run {python}: {exc}")
    lines = done.stdout.strip().splitlines()
    try:
        answer = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        answer = None
    if done.returncode != 0 or not isinstance(answer, dict):
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return PythonSetup(error=f"{python} did not answer: {said}")
    base = cwd or os.getcwd()
    path = [str(p) for p in answer.get("path") or [] if isinstance(p, str)]
    if path and path[0] == "" and program_dir:
        path[0] = program_dir
    folders = _existing([os.path.join(base, p) if not os.path.isabs(p) else p for p in path])
    return PythonSetup(version=tuple(int(v) for v in answer.get("version") or []),
                       path=folders, stdlib=[str(p) for p in answer.get("stdlib") or [] if p],
                       executable=str(answer.get("executable") or python),
                       module_file=str(answer.get("module_file") or ""))


def _existing(folders: Sequence[str]) -> list[str]:
    seen: dict[str, None] = {}
    for folder in folders:
        normal = os.path.normpath(folder)
        if os.path.isdir(normal):
            seen.setdefault(normal, None)
    return list(seen)


#: What a version manager's shim chooses by: these variables, and these
#: files in the program's folder or above it (pyenv's, asdf's).
_SHIM_VARIABLES = ("PATH", "HOME", "PYENV", "ASDF", "PYTHON", "VIRTUAL_ENV", "CONDA", "UV_")
_VERSION_FILES = (".python-version", ".tool-versions")
#: How their shims hand over: `exec "/root/.pyenv/libexec/pyenv" exec "$program"`.
_SHIM_EXEC = re.compile(rb"\b(?:pyenv|asdf)[\"']? exec\b")


def real_python(python: str, env: Mapping[str, str], cwd: str | None) -> str:
    """The interpreter behind ``python`` as the program's PATH finds it. A
    version manager's shim (pyenv's is a shell script) costs 0.3-0.4 s per
    start against about 0.03 s for the interpreter itself, so what it chose
    (its ``sys.executable``) is kept in DBG_HOME, keyed by the shim, the
    variables and the version files it chooses by; an
    executable that is not a script is no shim, and is run as it is."""
    found = shutil.which(python, path=env.get("PATH"))
    if found is None:
        return python
    try:
        with open(found, "rb") as exe:
            head = exe.read(4096)
    except OSError:
        return python
    # Only a version manager's own shim: another wrapper script may set
    # what its interpreter runs with, which running that directly would lose.
    if not head.startswith(b"#!") or _SHIM_EXEC.search(head) is None:
        return python
    where = cwd or os.getcwd()
    key = _shim_key(found, env, where)
    path = _cache_file()
    known = recall(path, key)
    if known and os.access(known, os.X_OK):
        return known
    try:
        out = subprocess.run([found, "-c", "import sys; print(sys.executable)"], env=dict(env),
                             cwd=where, capture_output=True, text=True, timeout=20,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return python
    real = out.stdout.strip()
    if out.returncode != 0 or not os.path.isabs(real) or not os.access(real, os.X_OK):
        return python
    remember(path, key, real)
    return real


def _shim_key(shim: str, env: Mapping[str, str], cwd: str) -> str:
    try:
        info = os.stat(shim)
    except OSError:
        info = None
    # Not the folder itself: a shim chooses by the version files it finds
    # from there up (and its own global one), so every folder without one
    # shares an answer.
    stamps = [f"{os.path.realpath(shim)}:{info.st_size}:{info.st_mtime_ns}" if info else shim]
    stamps += sorted(f"{k}={v}" for k, v in env.items() if k.startswith(_SHIM_VARIABLES))
    root = env.get("PYENV_ROOT") or os.path.join(env.get("HOME") or os.path.expanduser("~"),
                                                 ".pyenv")
    folders = [os.path.realpath(cwd)]
    while os.path.dirname(folders[-1]) != folders[-1]:
        folders.append(os.path.dirname(folders[-1]))
    for candidate in [os.path.join(root, "version"),
                      *(os.path.join(f, n) for f in folders for n in _VERSION_FILES)]:
        try:
            info = os.stat(candidate)
        except OSError:
            continue
        stamps.append(f"{candidate}:{info.st_size}:{info.st_mtime_ns}")
    # The stamps themselves, not a digest of them: the cache holds 20 keys,
    # and hashlib loads OpenSSL (2-3 ms of each start through a shim).
    return "\0".join(stamps)


def _cache_file() -> Path:
    from dbgcore.shared.paths import dbg_home

    return dbg_home() / "python-shims.json"


def file_key(path: str) -> str:
    """A cache key for an executable: its real path, size and modification
    time ("" when it cannot be read), so that another file at that path, or
    the same one rebuilt, is asked again."""
    try:
        real = os.path.realpath(path)
        info = os.stat(real)
    except OSError:
        return ""
    return f"{real}:{info.st_size}:{info.st_mtime_ns}"


def recall(path: Path, key: str) -> str:
    """``key``'s value in the JSON cache at ``path`` ("" when it has none)."""
    try:
        data = json.loads(read_file(str(path)))
    except (OSError, ValueError):
        return ""
    found = data.get(key) if isinstance(data, dict) else None
    return found if isinstance(found, str) else ""


def remember(path: Path, key: str, value: str) -> None:
    """``key: value`` into the JSON cache at ``path`` (its last 20 entries;
    private to the user, replaced whole). A cache: a failed write is let go."""
    try:
        data = json.loads(read_file(str(path)))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    data.pop(key, None)
    data[key] = value
    try:
        # The home's own folders are verified as they are made; a cache is
        # written nowhere else (DBG_HOME, never through a link).
        make_folders(str(path.parent), tighten=False)
        write_file(str(path), json.dumps(dict(list(data.items())[-20:])).encode(),
                   str(path.with_name(f".{path.name}.{os.getpid()}")))
    except OSError:
        pass  # a cache: without it, the shim is only asked again (or one not to be trusted)
