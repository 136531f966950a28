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
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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
