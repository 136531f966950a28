"""The interpreters a benchmark runs its programs on, by version: ``3.12``
is a venv of the benchmarks' own, ``~/.cache/dbg-bench/py312`` (under
``$XDG_CACHE_HOME`` when that is set), with the packages the programs
import. It is made on first use, from the ``python3.12`` of pyenv
(``~/.pyenv/versions/3.12.*``) or of PATH, with ``python -m venv`` and
``pip install``, which needs PyPI (or the index pip is set up with); the
test suite never asks for one (its small runs take this interpreter).
A path (anything with a ``/``) is taken as it is.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: What every program of the benchmarks imports, and the heavy imports'.
PACKAGES = ("pytest", "numpy", "pandas")


def cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "dbg-bench"


def base_python(version: str) -> str | None:
    """An interpreter of ``version`` (``3.12``) to make the venv with."""
    found = sorted((Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python"))
    if found:
        return str(found[-1])
    return shutil.which(f"python{version}")


def python_for(spec: str, packages: tuple[str, ...] = PACKAGES) -> str:
    """The interpreter ``spec`` names: a path as it is, a version as the
    benchmarks' venv of it (made, or given ``packages`` it lacks, here)."""
    if "/" in spec:
        return spec
    venv = cache() / f"py{spec.replace('.', '')}"
    python = venv / "bin" / "python"
    if not python.exists():
        base = base_python(spec)
        if base is None:
            raise SystemExit(f"no Python {spec} found (pyenv, PATH) to make {venv} with")
        print(f"making {venv} (Python {spec}, {' '.join(packages)})", file=sys.stderr, flush=True)
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
    missing = [p for p in packages if subprocess.run(
        [str(python), "-c", f"import {p}"], capture_output=True).returncode != 0]
    if missing:
        print(f"{venv}: pip install {' '.join(missing)}", file=sys.stderr, flush=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *missing], check=True)
    return str(python)


def version_of(python: str) -> str:
    """``3.12.1``: the version an interpreter says it is."""
    return subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                          capture_output=True, text=True, check=True).stdout.strip()
