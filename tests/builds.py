"""Test targets: copying them with their line markers, and building the
native ones (C, C++, Rust, Go, Java) with debug info.

Each build goes into the caller's folder; a toolchain that is missing skips
the test (or fails it when DBG_REQUIRE_ALL_BACKENDS=1, like a missing
debugger): scripts/install-debuggers installs every one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from dbgcore.testing import marked_lines

TARGETS = Path(__file__).resolve().parent / "targets"


def _need(tool: str) -> str:
    found = shutil.which(tool)
    if found:
        return found
    if os.environ.get("DBG_REQUIRE_ALL_BACKENDS") == "1":
        pytest.fail(f"{tool} is required to build a test target but is not installed")
    pytest.skip(f"{tool} not installed")


def pids_naming(path: str) -> list[int]:
    """Processes whose command line has ``path`` as one of its words (a
    program its debugger runs by its file)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                words = cmdline.read().split(b"\0")
        except OSError:
            continue
        if path.encode() in words:
            found.append(int(pid))
    return found


def _run(argv: list[str], cwd: Path) -> None:
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GO111MODULE": "on"}
    env.setdefault("GOCACHE", str(Path.home() / ".cache" / "go-build"))
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"build failed: {' '.join(argv)}\n{done.stdout}{done.stderr}")


def build_c(source: Path, out: Path | None = None) -> Path:
    """gcc -g -O0 SOURCE -o OUT (g++ for .cpp)."""
    compiler = _need("g++" if source.suffix in (".cpp", ".cc") else "gcc")
    out = out or source.with_suffix("")
    _run([compiler, "-g", "-O0", "-pthread", str(source), "-o", str(out)], source.parent)
    return out


def build_c_program(sources: list[Path], out: Path, libs: tuple[str, ...] | list[str] = ()) -> Path:
    """gcc -g -O0 SOURCES... -o OUT LIBS (a program of several files)."""
    compiler = _need("gcc")
    _run([compiler, "-g", "-O0", *map(str, sources), "-o", str(out), *libs], out.parent)
    return out


def build_c_library(source: Path, out: Path) -> Path:
    """gcc -g -O0 -shared -fPIC SOURCE -o OUT (a library loaded with dlopen)."""
    compiler = _need("gcc")
    _run([compiler, "-g", "-O0", "-shared", "-fPIC", str(source), "-o", str(out)], out.parent)
    return out


def build_rust(source: Path, out: Path | None = None) -> Path:
    rustc = _need("rustc")
    out = out or source.with_suffix("")
    _run([rustc, "-g", "-C", "opt-level=0", str(source), "-o", str(out)], source.parent)
    return out


def build_go(package: Path, out: Path | None = None) -> Path:
    """go build with optimizations and inlining off, as delve's debug mode does."""
    go = _need("go")
    out = out or package / "prog"
    _run([go, "build", "-gcflags=all=-N -l", "-o", str(out), "."], package)
    return out


def copy_tree(name: str, work: Path) -> Path:
    """Copy tests/targets/NAME (a file or a folder) into ``work``."""
    source = TARGETS / name
    dest = work / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, dest, dirs_exist_ok=True)
    else:
        shutil.copy(source, dest)
    return dest


def build_java(source: Path, out: Path | None = None) -> Path:
    """javac -g into OUT (default: a `classes` folder beside SOURCE); returns OUT."""
    javac = _need("javac")
    out = out or source.parent / "classes"
    _run([javac, "-g", "-d", str(out), str(source)], source.parent)
    return out


def build_java_project(project: Path, out: str = "build") -> Path:
    """``javac -g -d OUT src/**/*.java`` in PROJECT, as a build tool
    compiles: classes apart from their sources; returns the OUT folder."""
    javac = _need("javac")
    sources = sorted(str(p) for p in (project / "src").rglob("*.java"))
    _run([javac, "-g", "-d", str(project / out), *sources], project)
    return project / out


@dataclass
class Target:
    path: Path
    lines: dict[str, int]

    def loc(self, mark: str) -> str:
        return f"{self.path}:{self.lines[mark]}"


def copy_target(name: str, work: Path) -> Target:
    """Copy tests/targets/NAME into ``work`` and resolve its line markers."""
    dest = work / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(TARGETS / name, dest)
    return Target(dest, marked_lines(dest))
