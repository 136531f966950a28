"""The twin programs of the behaviour suite (tests/targets/ledger/: Python,
C, Go, Java, with the same `@markers`), what each backend calls things in
them, and helpers the scenarios share."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import builds

if TYPE_CHECKING:
    from conftest import Dbg

LEDGER = builds.TARGETS / "ledger"


@dataclass(frozen=True)
class Twin:
    """One backend's twin program: where things are and what the debugger
    calls them."""

    backend: str
    language: str
    #: Source files (relative to the program's folder) by role.
    main: str
    fmt: str
    report: str
    late: str
    #: Function names as the debugger shows them.
    fee: str
    caller: str
    #: The generator of the Python twin (a plain function in the others).
    generator: str = "entriesFirst"
    #: Conditions in the target's language.
    condition: str = "i == 3"
    bad_condition: str = "i =="
    #: The outermost frame of the program's own code, and a line in it.
    entry: str = "main"
    outermost: str = "main-first"
    #: A generator in the twin (Python) yields; others return.
    yields: bool = False
    #: The recursive function and the entry check (`dbg trace` names them as
    #: `dbg break` does).
    tri: str = "tri"
    check_entry: str = "check_entry"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def lang_dir(self) -> str:
        return self.language


_PY = dict(language="py", main="ledger.py", fmt="util/fmt.py", report="report/fmt.py",
           late="late.py", fee="fee", caller="main", entry="<module>", outermost="module-main",
           yields=True, generator="entries")
_C = dict(language="c", main="ledger.c", fmt="util/fmt.c", report="report/fmt.c",
          late="late/late.c", fee="fee", caller="main", generator="entries_first")
TWINS = {
    "pdb": Twin("pdb", **_PY),  # type: ignore[arg-type]
    "debugpy": Twin("debugpy", **_PY),  # type: ignore[arg-type]
    "gdb": Twin("gdb", **_C),  # type: ignore[arg-type]
    "lldb": Twin("lldb", **_C),  # type: ignore[arg-type]
    "dlv": Twin("dlv", language="go", main="main.go", fmt="util/fmt.go",
                report="report/fmt.go", late="late.go", fee="main.fee", caller="main.main",
                entry="main.main", tri="main.tri", check_entry="main.checkEntry"),
    "jdb": Twin("jdb", language="java", main="Ledger.java", fmt="util/Fmt.java",
                report="report/Fmt.java", late="Late.java", fee="Ledger.fee",
                caller="Ledger.main", entry="Ledger.main", tri="Ledger.tri",
                check_entry="Ledger.checkEntry"),
}
BACKENDS = list(TWINS)


@dataclass
class Program:
    """A built twin in its own folder, and the dbg runner of the test."""

    twin: Twin
    root: Path
    #: What `dbg start` is given.
    path: Path
    dbg: Dbg

    def marks(self, role: str = "main") -> dict[str, int]:
        return builds.marked_lines(self.root / getattr(self.twin, role))

    def line(self, mark: str, role: str = "main") -> int:
        return self.marks(role)[mark]

    def at(self, mark: str, role: str = "main") -> str:
        """FILE:LINE as a person types it: the file's name only (or, for a
        file whose name is not unique, its path below the program's folder)."""
        rel = getattr(self.twin, role)
        name = rel if role in ("fmt", "report") else os.path.basename(rel)
        return f"{name}:{self.line(mark, role)}"

    def file(self, role: str = "main") -> str:
        return os.path.realpath(self.root / getattr(self.twin, role))

    def start(self, *args: str, breaks: tuple[str, ...] = (), run: bool = False,
              options: tuple[str, ...] = ()) -> dict[str, Any]:
        argv = ["start", "--backend", self.twin.backend, *options]
        for spec in breaks:
            argv += ["--break", spec]
        if run:
            argv.append("--run")
        return self.dbg.json(*argv, str(self.path), *args)

    def stopped_at(self, data: dict[str, Any], mark: str, role: str = "main") -> None:
        assert data.get("state") == "stopped", data
        assert data["location"]["line"] == self.line(mark, role), (mark, data)
        assert os.path.realpath(data["location"]["file"]) == self.file(role), data


def build_twin(language: str, dest: Path) -> Path:
    """Copy the twin for ``language`` into ``dest`` and build it; the path
    `dbg start` is given."""
    shutil.copytree(LEDGER / language, dest)
    if language == "c":
        builds.build_c_program([dest / "ledger.c", dest / "util/fmt.c", dest / "report/fmt.c"],
                               dest / "ledger", libs=["-ldl"])
        builds.build_c_library(dest / "late/late.c", dest / "liblate.so")
        return dest / "ledger"
    if language == "go":
        return builds.build_go(dest, dest / "ledger")
    if language == "java":
        return dest / "Ledger.java"
    return dest / "ledger.py"


def twin_program(backend: str, dbg: Dbg, backend_ready: Callable[[str], None],
                 built: Callable[[str], tuple[Path, Path]]) -> Program:
    """The backend's twin, built, with a `dbg` running from another folder."""
    twin = TWINS[backend]
    backend_ready(twin.backend)
    root, path = built(twin.language)
    return Program(twin, root, path, dbg)


def caps_of(backend: str) -> dict[str, str]:
    """What `dbg caps` says of a backend (asked of the installed debugger)."""
    from dbgcore.backends.pluginhost import PluginHost
    from dbgcore.backends.registry import BackendRegistry
    from dbgcore.ops.table import full_table

    host = PluginHost()
    spec, cls = BackendRegistry(host).loaded(backend)
    return dict(cls.support(spec, full_table(host)))


def debugger_in_program(backend: str) -> bool:
    """Whether the backend's debugger runs in the program's own process (pdb):
    a SIGKILL of it is the program's death, told as the program's end
    (docs/semantics.md, "The end")."""
    from dbgcore.backends.pluginhost import PluginHost
    from dbgcore.backends.registry import BackendRegistry

    _, cls = BackendRegistry(PluginHost()).loaded(backend)
    return bool(getattr(cls, "runs_in_program", False))


def session_processes(dbg: Dbg, name: str = "default") -> list[dict[str, Any]]:
    """The processes a session's daemon recorded (debugger, program...)."""
    status = dbg.home / "sessions" / name / "status.json"
    return list(json.loads(status.read_text())["children"])


def kill_and_wait(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        if _zombie(pid):
            return
        time.sleep(0.05)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not _zombie(pid)
