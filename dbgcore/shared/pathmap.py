"""Where a debugged program's files are on this machine, when the program
sees them elsewhere: a container's files (another mount namespace, read
here through ``/proc/PID/root``), or a remote debug server's (`dbg attach
--remote HOST:PORT --map REMOTE=LOCAL`).

A :class:`PathMap` is a list of (remote, local) folder pairs. What the
debugger says (a frame's file, a breakpoint's) is turned into the local path,
which dbg reads and shows; what dbg sends it (a breakpoint's file) is turned
back. The longest matching folder wins, and a folder matches only whole
path components (``/app`` maps ``/app/x.py``, never ``/apple/x.py``). A
path under no pair is left as it is, both ways.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass

from dbgcore.shared.errors import UsageError


def _folder(path: str) -> str:
    """``path`` normalized, without a trailing slash (``/`` stays ``/``)."""
    return posixpath.normpath(path) if path not in ("", "/") else "/"


def _under(path: str, folder: str) -> str | None:
    """The rest of ``path`` below ``folder`` ('' for the folder itself), or
    None when it is not below it."""
    if folder == "/":
        return path[1:] if path.startswith("/") else None
    if path == folder:
        return ""
    if path.startswith(folder + "/"):
        return path[len(folder) + 1:]
    return None


def _join(folder: str, rest: str) -> str:
    return folder if not rest else posixpath.join(folder, rest)


@dataclass(frozen=True)
class PathMap:
    pairs: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, pairs: list[tuple[str, str]]) -> PathMap:
        return cls(tuple((_folder(r), _folder(loc)) for r, loc in pairs))

    @classmethod
    def parse(cls, specs: list[str], cwd: str) -> PathMap:
        """``--map REMOTE=LOCAL`` values (LOCAL relative to ``cwd``);
        UsageError for one that is not two absolute-enough folders."""
        pairs = []
        for spec in specs:
            remote, eq, local = spec.partition("=")
            if not eq or not remote or not local:
                raise UsageError(f"bad --map {spec!r}", "use --map REMOTE_FOLDER=LOCAL_FOLDER, "
                                 "e.g. --map /app=./src")
            if not remote.startswith("/"):
                raise UsageError(f"--map {spec!r}: the remote folder must be absolute",
                                 "use the folder as the program sees it, e.g. /app")
            pairs.append((remote, os.path.join(cwd, os.path.expanduser(local))))
        return cls.of(pairs)

    @classmethod
    def from_json(cls, rows: object) -> PathMap:
        if not isinstance(rows, list):
            return cls()
        return cls.of([(str(r["remote"]), str(r["local"])) for r in rows
                       if isinstance(r, dict) and "remote" in r and "local" in r])

    def to_json(self) -> list[dict[str, str]]:
        return [{"remote": r, "local": loc} for r, loc in self.pairs]

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def _convert(self, path: str, outward: bool) -> str:
        best: tuple[int, str] | None = None
        for remote, local in self.pairs:
            source, target = (local, remote) if outward else (remote, local)
            rest = _under(path, source)
            if rest is not None and (best is None or len(source) > best[0]):
                best = (len(source), _join(target, rest))
        return best[1] if best is not None else path

    def to_local(self, path: str) -> str:
        """The path here of a file the program names ``path``."""
        return self._convert(path, outward=False)

    def to_remote(self, path: str) -> str:
        """The path the program knows a file by that is ``path`` here."""
        return self._convert(path, outward=True)


def mount_namespace_root(pid: int) -> str | None:
    """``/proc/PID/root`` when process ``pid`` is in another mount namespace
    than this process (a container's, or `unshare --mount`'s): the folder
    through which its files are read here. None when it shares ours, or its
    namespace cannot be read (another user's process: the attach says why)."""
    try:
        theirs = os.stat(f"/proc/{pid}/ns/mnt")
        ours = os.stat("/proc/self/ns/mnt")
    except OSError:
        return None
    if (theirs.st_dev, theirs.st_ino) == (ours.st_dev, ours.st_ino):
        return None
    return f"/proc/{pid}/root"
