"""How damage to the session store is found, set aside and told.

Damage is never passed over in silence. A store that SQLite cannot read (not
a database, a page that does not add up, a directory in its place), or that
is smaller than at its last check that passed (emptied, cut short: SQLite
would take an empty file for a new store), found on open (``PRAGMA
quick_check``, whenever the file changed since the last check) or by any read
or write later, is moved aside with its -wal and -shm, a fresh one records
from then on, the answer of the op that found it carries a note, and
``store-set-aside.jsonl`` beside it keeps telling every op that opens the
store (a note each time, :func:`standing_note`) and `dbg doctor` (which then
fails) until the user clears it (`dbg doctor --fix`, or deleting the copy).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from pathlib import Path

from dbgcore.shared.homecheck import open_file, open_log, write_file
from dbgcore.shared.jsontypes import JsonObject


def keep_aside(path: Path, why: str) -> Path:
    """Move a store that cannot be used, with its -wal and -shm files, to
    ``PATH.WHY-TIME`` (a fresh one is made in its place); returns where."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.{why}-{stamp}")
    number = 1
    while os.path.lexists(aside):  # two in one second: never over an earlier copy
        number += 1
        aside = path.with_name(f"{path.name}.{why}-{stamp}.{number}")
    # The main file last: a process that opens the store meanwhile finds the
    # damaged file without its WAL, never a fresh file beside the old WAL.
    for suffix in ("-wal", "-shm", ""):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    # The stamp of the last check was the damaged file's: the fresh one has none.
    with contextlib.suppress(OSError):
        checked_file(path).unlink()
    return aside


#: SQLite's result codes for a file that is not (or no longer) a sound database.
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
#: The same, as Python 3.10 words them (it has no ``sqlite_errorcode``).
_DAMAGE_WORDS = ("malformed", "not a database", "disk image", "database corrupt")


def is_damage(exc: BaseException) -> bool:
    """Whether ``exc`` says the database file itself is damaged (not busy,
    not a full disk, not a permission)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    return any(word in str(exc).lower() for word in _DAMAGE_WORDS)


class StoreDamaged(Exception):
    """The store failed its check, or is not a file: why."""


def set_aside_log(path: Path) -> Path:
    """Where the stores set aside are told of until the user clears them."""
    return path.with_name("store-set-aside.jsonl")


def _lock_file(path: Path) -> Path:
    return path.with_name(".store-aside.lock")


def set_aside(path: Path, why: str, detail: str, by: str,
              found: tuple[int, int] | None = None) -> Path:
    """Move the store aside and leave word of it for `dbg doctor`; where it
    went. With ``found`` (the device and inode of the file found damaged),
    a store another process has set aside meanwhile is left alone (the fresh
    one in its place is not the damaged one): where that one went instead."""
    import fcntl

    fd = open_file(str(_lock_file(path)), os.O_WRONLY | os.O_CREAT)
    try:
        # Two processes that find the same damage at once: one moves it.
        fcntl.flock(fd, fcntl.LOCK_EX)
        if found is not None and identity(path) != found:
            earlier = stores_set_aside(path)
            return Path(str(earlier[-1]["aside"])) if earlier else path
        aside = keep_aside(path, why)
        entry = {"aside": str(aside), "why": why, "detail": detail[:300], "by": by,
                 "at": time.time()}
        log = open_log(str(set_aside_log(path)))
        try:
            os.write(log, (json.dumps(entry) + "\n").encode())
        finally:
            os.close(log)
        return aside
    finally:
        os.close(fd)


def identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def stores_set_aside(path: Path) -> list[JsonObject]:
    """The stores set aside and not cleared yet: told of in the log, and
    still there (a copy the user deleted is cleared)."""
    try:
        lines = set_aside_log(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        with contextlib.suppress(ValueError, TypeError):
            entry = json.loads(line)
            if isinstance(entry, dict) and os.path.lexists(str(entry.get("aside"))):
                out.append(entry)
    return out


def clear_set_aside(path: Path) -> None:
    """The user has heard: `dbg doctor` stops failing on the stores set aside
    (their copies stay until the user deletes them)."""
    with contextlib.suppress(FileNotFoundError):
        set_aside_log(path).unlink()


def standing_note(path: Path, told: str = "") -> str | None:
    """One line on the stores set aside and not acknowledged yet, for every
    answer that reads the store until `dbg doctor --fix` (what they held is
    missing from it meanwhile); None when there are none, or when ``told``
    (what the op says already) names the latest."""
    entries = stores_set_aside(path)
    if not entries:
        return None
    latest = entries[-1]
    if str(latest.get("aside")) in told:
        return None
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(latest.get("at") or 0)))
    what = "locked past the timeout" if latest.get("why") == "locked" else "damaged"
    more = f" (and {len(entries) - 1} earlier)" if len(entries) > 1 else ""
    return (f"the session store was {what}{more} ({latest.get('detail')}; found by "
            f"{latest.get('by')} at {when}): what it held is kept at {latest.get('aside')} and "
            "is missing here; a fresh one records since (`dbg doctor --fix` once you have "
            "looked)")


def shrunk(path: Path) -> str | None:
    """Why the store file is damaged if it is smaller than at its last check
    that passed, the same file (emptied, cut short): SQLite never makes a
    store smaller without VACUUM, which dbg never runs. None: it is not."""
    try:
        stamp = checked_file(path).read_text(encoding="utf-8").split(":")
        info = os.stat(path)
        device, inode, size = int(stamp[0]), int(stamp[1]), int(stamp[2])
    except (OSError, ValueError, IndexError):
        return None
    if (info.st_dev, info.st_ino) != (device, inode) or info.st_size >= size:
        return None
    held = f"where a store of {size:,} bytes was"
    if info.st_size == 0:
        return f"emptied: 0 bytes {held}"
    return f"cut short: {info.st_size:,} bytes {held}"


def check_stamp(path: Path) -> str:
    """What identifies the store file's content for the check: device,
    inode, size and modification time (SQLite writes the main file only when
    a checkpoint copies the WAL in, and damage made by anyone else changes
    it too)."""
    info = os.stat(path)
    return f"{info.st_dev}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}"


def checked_file(path: Path) -> Path:
    return path.with_name(".store-checked")


def quick_check(db: sqlite3.Connection, path: Path) -> None:
    """``PRAGMA quick_check`` on the store, unless the file is as it was at
    the last check that passed; raises StoreDamaged with SQLite's findings.
    (About 7 ms for 5,000 stops, 50 ms for 50,000 in a 65 MB store, warm.)"""
    stamp = check_stamp(path)
    marker = checked_file(path)
    with contextlib.suppress(OSError):
        if marker.read_text(encoding="utf-8") == stamp:
            return
    verdict = [str(row[0]) for row in db.execute("PRAGMA quick_check(20)")]
    if verdict != ["ok"]:
        # One line for a note: SQLite heads its findings with the schema name.
        found = " ".join(" ".join(verdict).replace("*** in database main ***", "").split())
        raise StoreDamaged(found[:200])
    stamp_checked(path, stamp)


def stamp_checked(path: Path, stamp: str) -> None:
    """Keep ``stamp`` as the store's last check that passed (also what
    :func:`shrunk` measures it against)."""
    marker = checked_file(path)
    with contextlib.suppress(OSError):
        write_file(str(marker), stamp.encode("utf-8"),
                   str(marker.with_name(f"{marker.name}.{os.getpid()}")))


def damage_note(detail: str, aside: Path) -> str:
    return (f"the session store was damaged and could not be used ({detail}); it is kept at "
            f"{aside}, and a fresh one records from now on (`dbg doctor` reports it until "
            "`dbg doctor --fix`)")
