"""`dbg start prog.c`: a source file built on the fly, before its debugger
launches. Which files build, and with what command, is the backend's word
(:meth:`Backend.build_command`: core names no compiler); here the build is
run in the session's own folder (so a read-only source folder still works
and nothing is left beside the source), said in the answer, and a failed
build answers with the compiler's own first lines instead of a session.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from dbgcore.shared import procutil
from dbgcore.shared.errors import OpFailed

if TYPE_CHECKING:
    from dbgcore.backends.contract import Backend, BackendSpec, LaunchRequest
    from dbgcore.shared.jsontypes import JsonObject

#: How many of the compiler's lines a failed build shows.
SHOWN_LINES = 40

#: The longest a build may take (a big C++ file with templates takes a while).
BUILD_SECONDS = 300.0


def builds(cls: type[Backend], spec: BackendSpec, program: Path) -> bool:
    """Whether ``program`` is a source file the backend builds (raises
    BackendMissing, before any session starts, when its compiler is not
    installed)."""
    return cls.build_command(spec, program, Path(program.stem)) is not None


#: What this session's daemon built: the binary -> its source and the
#: source's mtime when the build that succeeded began (`restart` rebuilds
#: when it has changed since).
_built: dict[str, tuple[Path, int]] = {}


def build(cls: type[Backend], spec: BackendSpec, program: Path,
          run_dir: Path) -> tuple[str, JsonObject]:
    """Build ``program`` into ``run_dir``/build/STEM: the binary's path and
    the answer's ``build`` field ({command, seconds})."""
    folder = run_dir / "build"
    folder.mkdir(mode=0o700, exist_ok=True)
    plan = cls.build_command(spec, program, folder / program.stem)
    if plan is None:
        raise OpFailed(f"{program.name} is not a source file dbg builds")
    command, out = plan
    said = shlex.join(command)
    stamp = program.stat().st_mtime_ns
    # A binary still running (a restart's rebuild) is not written over: a
    # new file takes its name, the old one lives on until its process ends.
    out.unlink(missing_ok=True)
    began = time.monotonic()
    # The compiler dies with the daemon, as the debugger does: a session
    # killed mid-build leaves no build running.
    argv, preexec = procutil.bound_to_parent(command, cwd=str(folder))
    try:
        done = subprocess.run(argv, cwd=folder, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, errors="replace",
                              timeout=BUILD_SECONDS, preexec_fn=preexec)
    except subprocess.TimeoutExpired:
        raise OpFailed(f"build of {program.name} took over {BUILD_SECONDS:.0f}s: {said}",
                       "build it yourself, then: dbg start ./BINARY") from None
    except OSError as exc:
        raise OpFailed(f"cannot run {command[0]}: {exc.strerror}") from None
    if done.returncode != 0 or not out.is_file():
        lines = (done.stderr + done.stdout).rstrip().splitlines()
        shown = lines[:SHOWN_LINES]
        if len(lines) > SHOWN_LINES:
            shown.append(f"+{len(lines) - SHOWN_LINES} more lines")
        # The compiler's own words end the answer; what to do leads it.
        raise OpFailed(f"build failed (exit {done.returncode}; fix the source and start "
                       f"again): {said}\n" + "\n".join(shown))
    _built[str(out)] = (program, stamp)
    return str(out), {"command": said, "seconds": round(time.monotonic() - began, 2)}


def built_request(backend: Backend, request: LaunchRequest, run_dir: Path,
                  wanted: bool) -> tuple[LaunchRequest, JsonObject]:
    """`dbg start`'s request for the binary built from its source (when the
    front end said it builds), and the answer's ``build`` field."""
    if not wanted:
        return request, {}
    binary, built = build(type(backend), backend.spec, Path(request.program), run_dir)
    return replace(request, program=binary, built_from=request.program), built


def rebuild(cls: type[Backend], spec: BackendSpec, binary: str, run_dir: Path) -> JsonObject:
    """`dbg restart`: build ``binary`` again when it was built from a source
    that has changed since; the answer's ``build`` field, or {} when nothing
    was built (a binary given by hand, an unchanged or deleted source).
    Called before the old program ends: a build that fails leaves the
    session as it was, and the next restart tries it again."""
    known = _built.get(binary)
    if known is None:
        return {}
    source, stamp = known
    try:
        if source.stat().st_mtime_ns == stamp:
            return {}
    except OSError:
        return {}  # the source is gone: the binary built from it runs again
    return build(cls, spec, source, run_dir)[1]
