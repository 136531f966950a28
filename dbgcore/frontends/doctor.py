"""`dbg doctor`: what this machine and dbg's own files are like, one check a line.

Each check says ``ok``, ``warn`` (worth knowing, not in the way) or ``fail``
(something a user needs is broken), what it found, and the fix. ``--fix``
does the fixes that cannot lose anything a user wants: it ends what dead
daemons left running, removes their runtime files (FIFOs, sockets), moves a
damaged store aside (a fresh one is made on the next start), acknowledges the
stores an op found damaged and set aside (they fail the check until then; the
copies stay) and closes DBG_HOME to others.
"""

from __future__ import annotations

import os
import platform
import sqlite3
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbgcore import __version__

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front

Values = dict[str, Any]

#: Yama's ptrace_scope values and what each means for `dbg attach --pid`.
_PTRACE_SCOPES = {
    "0": ("ok", "attach by pid works for any process of yours", ""),
    "1": ("warn", "attach by pid works only for processes that allow it (or with "
                  "CAP_SYS_PTRACE); dbg start and attach by port are not affected",
          "sudo sysctl kernel.yama.ptrace_scope=0"),
    "2": ("warn", "attach by pid needs CAP_SYS_PTRACE (admin only)",
          "sudo sysctl kernel.yama.ptrace_scope=0, or run dbg with CAP_SYS_PTRACE"),
    "3": ("warn", "attach by pid is disabled until the next reboot",
          "reboot with kernel.yama.ptrace_scope set to 0 or 1"),
}
_CAP_SYS_PTRACE = 19


def _check(name: str, status: str, detail: str, fix: str = "") -> Values:
    return {"check": name, "status": status, "detail": detail, "fix": fix}


def doctor(values: Values, session: str, timeout: float, front: Front) -> tuple[Values, None]:
    fix = bool(values.get("fix"))
    checks = [
        _check("python", "ok", f"Python {platform.python_version()} ({sys.executable})"),
        _check("dbg", "ok", f"dbg {__version__} ({Path(__file__).parents[1]})"),
        *backend_checks(front),
        *profiler_checks(front),
        ptrace_check(),
        *home_checks(fix),
    ]
    failed = [c["check"] for c in checks if c["status"] == "fail"]
    return {"checks": checks, "healthy": not failed, "failed": failed,
            "_exit": 1 if failed else 0}, None


def backend_checks(front: Front) -> list[Values]:
    from dbgcore.ops.meta import run_backends as backends

    out = []
    for row in backends({}, "", 0, front)[0]["backends"]:
        if row["ready"]:
            out.append(_check(f"backend {row['name']}", "ok", row.get("detail") or "ready"))
        else:
            out.append(_check(f"backend {row['name']}", "warn",
                              f"not ready: {row.get('detail') or 'not found'}",
                              row.get("install") or ""))
    return out


def profiler_checks(front: Front) -> list[Values]:
    """One line a profiler (`dbg profile --tool NAME`): ready, with what its
    plugin says of this machine (perf: the event it samples by when there
    are no hardware counters), or not, with how to install it."""
    out = []
    for cls in front.host.profilers().values():
        readiness = cls.readiness()
        detail = " ".join(p for p in (readiness.version, readiness.detail) if p)
        if readiness.ready:
            out.append(_check(f"profiler {cls.id}", "ok", detail or "ready"))
        else:
            out.append(_check(f"profiler {cls.id}", "warn",
                              f"not ready: {readiness.detail or 'not found'}", cls.install))
    return out


def _has_cap_sys_ptrace() -> bool:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> _CAP_SYS_PTRACE & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


def ptrace_check() -> Values:
    try:
        scope = Path("/proc/sys/kernel/yama/ptrace_scope").read_text().strip()
    except OSError:
        return _check("ptrace", "ok", "no Yama ptrace_scope: attach by pid works for "
                                      "processes of yours")
    status, detail, fix = _PTRACE_SCOPES.get(
        scope, ("warn", f"unknown ptrace_scope {scope}", ""))
    if status != "ok" and scope != "3" and _has_cap_sys_ptrace():
        status, detail, fix = "ok", "dbg has CAP_SYS_PTRACE: attach by pid works", ""
    return _check("ptrace", status, f"kernel.yama.ptrace_scope = {scope}: {detail}", fix)


def home_checks(fix: bool) -> list[Values]:
    from dbgcore.shared.paths import dbg_home

    home = dbg_home()
    if not os.path.lexists(home):
        base = next(p for p in home.parents if p.exists())
        if not _can_make_folder_in(base):
            return [_check("home", "fail", f"DBG_HOME {home} cannot be made: {base} is not "
                                           "a folder dbg can write in",
                           "set DBG_HOME to a folder of yours that can be written")]
        return [_check("home", "ok", f"DBG_HOME {home} is not made yet (the first start "
                                     "makes it, private)")]
    checks = [_home_check(home, fix)]
    if checks[0]["status"] == "fail":
        # What is inside cannot be trusted or read; a read-only disk shows
        # as a home that cannot be written: said, without writing in it.
        disk = disk_check(home, write=False)
        return checks + ([disk] if disk["status"] == "fail" else [])
    checks.append(disk_check(home))
    checks.append(store_check(home / "store.sqlite3", fix))
    checks.extend(set_aside_checks(home / "store.sqlite3", fix))
    checks.extend(session_checks(home, fix))
    return checks


def _can_make_folder_in(base: Path) -> bool:
    """Tried, not asked of the mode bits: root passes those on /proc too."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".dbg-doctor-", dir=base))
    except OSError:
        return False
    return True


def _home_check(home: Path, fix: bool) -> Values:
    from dbgcore.shared.homecheck import FIX, folders_problem

    # The one rule every command refuses a home by (the folders in it too).
    problem = folders_problem(str(home), str(home / "sessions"))
    if problem is not None:
        return _check("home", "fail", f"DBG_HOME is not to be trusted: {problem}", FIX)
    info = home.stat()
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        if fix:
            home.chmod(0o700)
            return _check("home", "ok", f"DBG_HOME {home} was mode {mode:o}; now 700 (fixed)")
        return _check("home", "fail", f"DBG_HOME {home} is mode {mode:o}: others can read "
                                      "what dbg records", f"chmod 700 {home}")
    if not os.access(home, os.W_OK | os.X_OK):
        return _check("home", "fail", f"DBG_HOME {home} is not writable",
                      f"chmod u+rwx {home}, or set DBG_HOME elsewhere")
    return _check("home", "ok", f"DBG_HOME {home} (private)")


#: Free space under which the disk check warns: a few minutes of a chatty
#: session's logs.
LOW_SPACE = 16 * 1024 * 1024


def disk_check(home: Path, write: bool = True) -> Values:
    """Whether dbg can write on the disk holding DBG_HOME: a small write
    tried there (with ``write``), and the space left."""
    from dbgcore.shared.diskspace import describe, free_bytes, hint, home_errno

    err = home_errno(home, write)
    if err is not None:
        return _check("disk", "fail", f"{describe(err, home)}: sessions cannot start, and live "
                                      "ones log and record nothing", hint(err))
    free = free_bytes(home)
    if free is not None and free < LOW_SPACE:
        return _check("disk", "warn", f"{free / 1e6:.1f} MB left on the disk holding "
                                      f"DBG_HOME ({home}): logs and records stop when it "
                                      "is full", "free some space there")
    return _check("disk", "ok", "the disk holding DBG_HOME can be written"
                  + (f" ({free / 1e9:.1f} GB free)" if free is not None else ""))


def store_check(path: Path, fix: bool) -> Values:
    if not os.path.lexists(path):
        return _check("store", "ok", f"no session store yet ({path})")
    from dbgcore.store.damage import shrunk

    if not path.is_file():
        verdict = ["a directory is in its place" if path.is_dir() else "not a regular file"]
    elif (cut := shrunk(path)) is not None:
        verdict = [cut]  # SQLite finds an empty file sound: an empty store
    else:
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2)
            try:
                verdict = [str(row[0]) for row in db.execute("PRAGMA integrity_check")]
            finally:
                db.close()
        except sqlite3.Error as exc:
            verdict = [str(exc)]
    if verdict == ["ok"]:
        return _check("store", "ok", f"{path}: intact, {path.stat().st_size / 1e6:.1f} MB")
    why = "; ".join(verdict)[:200]
    if "locked" in why:
        return _check("store", "warn", f"{path}: locked by another process ({why})",
                      "let the other dbg finish, or end it with dbg kill")
    if fix:
        from dbgcore.store.damage import keep_aside

        aside = keep_aside(path, "damaged")
        return _check("store", "ok", f"{path} was damaged ({why}); moved to {aside}, a fresh "
                                     "one is made on the next start (fixed)")
    return _check("store", "fail", f"{path}: damaged ({why})",
                  f"dbg doctor --fix (moves it aside as {path.name}.damaged-TIME, with its "
                  "-wal and -shm; a fresh one is made)")


def set_aside_checks(path: Path, fix: bool) -> list[Values]:
    """Stores found damaged by an op and set aside: told until the user
    acknowledges them (``--fix``) or deletes the copies."""
    from dbgcore.store.damage import clear_set_aside, stores_set_aside

    out = []
    for entry in stores_set_aside(path):
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(entry.get("at") or 0)))
        kind = "a store locked past the timeout" if entry.get("why") == "locked" \
            else "a damaged store"
        what = (f"{kind} ({entry.get('detail')}) was found by {entry.get('by')} at "
                f"{when} and set aside as {entry.get('aside')}; what it recorded is not in "
                "`dbg hits`")
        if fix:
            out.append(_check("store set aside", "ok", what + "; acknowledged (fixed): the "
                              "copy stays for you to look at or delete"))
        else:
            out.append(_check("store set aside", "fail", what,
                              "dbg doctor --fix (acknowledges it; the copy stays), or delete "
                              "the copy"))
    if fix:
        clear_set_aside(path)
    return out


def session_checks(home: Path, fix: bool) -> list[Values]:
    from dbgcore.shared.homecheck import FIX, folders_problem
    from dbgcore.shared.sessionsocket import CHILD_SEP_IN_DIR
    from dbgcore.shared.status import clean_stale, daemon_alive, leftover_files, read_status

    root = home / "sessions"
    # A child session's folder is named PARENT+CHILD for PARENT/CHILD.
    names = sorted(p.name.replace(CHILD_SEP_IN_DIR, "/") for p in root.iterdir()
                   if p.is_dir()) if root.is_dir() else []
    live, out = [], []
    for name in names:
        folder = root / name.replace("/", CHILD_SEP_IN_DIR)
        problem = folders_problem(str(home), str(folder))
        if problem is not None:
            out.append(_check(f"session {name}", "fail", f"not to be trusted: {problem}", FIX))
            continue
        status = read_status(name)
        if status is None:
            # An ended session: only its records remain, and perhaps the
            # runtime files of a daemon that was killed before it could tidy up.
            left_files = leftover_files(name, None)
            if not left_files:
                continue
            what = (f"session {name}: runtime files of dead daemons are left: "
                    + ", ".join(p.name for p in left_files[:5])
                    + (f" and {len(left_files) - 5} more" if len(left_files) > 5 else ""))
            if fix:
                clean_stale(name, None)
                out.append(_check(f"session {name}", "ok", what + "; removed (fixed)"))
            else:
                out.append(_check(f"session {name}", "warn", what, "dbg doctor --fix"))
            continue
        if daemon_alive(status, name):
            live.append(name)
            continue
        from dbgcore.shared import procutil

        left = [int(c.get("pid", 0)) for c in status.get("children", [])
                if procutil.alive(int(c.get("pid", 0)), c.get("start_time"))]
        what = f"session {name}: its daemon (pid {status.get('pid')}) is gone"
        if left:
            what += f", leaving {', '.join(map(str, left))} running"
        if fix:
            clean_stale(name, status)
            out.append(_check(f"session {name}", "ok", what + "; cleaned up (fixed)"))
        else:
            out.append(_check(f"session {name}", "fail", what, "dbg doctor --fix"))
    out.insert(0, _check("sessions", "ok", f"{len(live)} live"
                         + (f": {', '.join(live)}" if live else "")))
    return out
