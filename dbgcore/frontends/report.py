"""`dbg report [SESSION]`: one .tar.gz with what a bug report needs.

It holds the session's logs (daemon and debugger, the tail of each, and of
the file each rotated into), its recorded commands and stops from the store,
`dbg doctor --json`, versions, the OS, and the environment. Secrets are taken
out of every file before it is written, by one :class:`dbgcore.shared.redact.Redactor`:
built from dbg's environment, the session's `--env` values and the program's
arguments, it first learns the secrets the files themselves hold (a local
named like a password, a URL's password, a private key's lines), then masks
every one wherever it occurs, and what has a secret's shape besides.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import platform
import sqlite3
import tarfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from dbgcore import __version__
from dbgcore.shared.errors import UsageError
from dbgcore.shared.jsontypes import Json, JsonObject
from dbgcore.shared.redact import NOT_SECRET, REDACTED, Redactor, looks_like_key, secret_name

if TYPE_CHECKING:
    from dbgcore.backends.registry import Front

Values = JsonObject

#: How much of each log (and of the file it rotated into) a report takes: the end.
LOG_TAIL_BYTES = 2_000_000


def given_env(commands: list[Values]) -> dict[str, str]:
    """The ``--env`` variables of the session's recorded starts (and restarts)."""
    env: dict[str, str] = {}
    for command in commands:
        given = (command.get("args") or {}).get("env") if isinstance(command, dict) else None
        if isinstance(given, dict):
            env.update({str(k): str(v) for k, v in given.items()})
    return env


def given_argv(commands: list[Values]) -> list[str]:
    """The program's arguments of the session's recorded starts (and restarts)."""
    argv: list[str] = []
    for command in commands:
        given = (command.get("args") or {}).get("args") if isinstance(command, dict) else None
        if isinstance(given, list):
            argv += [str(a) for a in given]
    return argv


def log_tail(path: Path, limit: int = LOG_TAIL_BYTES) -> str:
    """The last ``limit`` bytes of a log, from the first whole line in them
    (never read through a link: see dbgcore.shared.homecheck)."""
    from dbgcore.shared.homecheck import open_file

    with open(open_file(str(path), os.O_RDONLY), "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        fh.seek(max(0, size - limit))
        data = fh.read(limit)
    if size <= limit:
        return data.decode("utf-8", errors="replace")
    # A line cut in two may hold half a secret: start at the next whole one.
    cut = data.find(b"\n")
    data = data[cut + 1:] if 0 <= cut < len(data) - 1 else data
    return (f"[dbg report: the first {size - len(data)} bytes of this log are left out]\n"
            + data.decode("utf-8", errors="replace"))


def redacted_env(env: dict[str, str], redactor: Redactor) -> str:
    lines = []
    for name in sorted(env):
        value = env[name]
        # A setting (DISABLE_AUTH=true) is not a secret, whatever its name.
        hidden = (secret_name(name) or looks_like_key(value)) \
            and value.lower() not in NOT_SECRET
        lines.append(f"{name}={REDACTED if hidden else redactor.text(value)}")
    return "\n".join(lines) + "\n"


def _recorded(name: str) -> tuple[Values | None, list[Values], list[Values], list[str]]:
    """The latest recorded session of this name: its row, commands and
    stops; and what was found wrong with the store on the way."""
    from dbgcore.shared.paths import store_path
    from dbgcore.store.damage import standing_note
    from dbgcore.store.db import Store

    if not store_path().exists() and not os.path.lexists(store_path()):
        # None made since one was set aside: that one is still told of.
        note = standing_note(store_path())
        return None, [], [], [note] if note else []
    try:
        store = Store(readonly=True, by="dbg report")
    except (sqlite3.Error, OSError) as exc:
        return {"error": f"store unreadable: {exc}"}, [], [], []
    try:
        sid = store.latest_session_id(name)
        if sid is None:
            return None, [], [], store.take_notes()
        found = store.session_row(sid), store.commands(sid), store.hits(sid, limit=10_000)
        return (*found, store.take_notes())
    except sqlite3.Error as exc:
        return {"error": f"store unreadable: {exc}"}, [], [], store.take_notes()
    finally:
        store.close()


def report(values: Values, session: str, timeout: float, front: Front) -> tuple[Values, None]:
    from dbgcore.frontends.doctor import doctor
    from dbgcore.shared.paths import check_session_name, dbg_home, private_dir

    name = check_session_name(values.get("name") or session)
    folder = dbg_home() / "sessions" / name
    row, commands, stops, notes = _recorded(name)
    if row is None and not folder.is_dir():
        raise UsageError(f"nothing recorded for a session named {name!r}"
                         + (f" ({'; '.join(notes)})" if notes else ""),
                         "see `dbg sessions`, or `dbg hits --all`")
    env = dict(os.environ)
    checks = doctor({}, session, timeout, front)[0]
    checks.pop("_exit", None)
    logs: dict[str, str] = {}
    if folder.is_dir():
        for log in sorted([*folder.glob("*.log"), *folder.glob("*.log.1")]):
            if log.is_file() and not log.is_symlink():
                logs[f"logs/{log.name}"] = log_tail(log)
    # Every secret, gathered once from wherever it reached dbg, then taken
    # out of every file wherever it is echoed.
    redactor = Redactor(env, given_argv(commands), given_env(commands).values()).learn(
        row, commands, stops, *logs.values())

    def as_json(data: Json) -> str:
        return json.dumps(redactor.value(data), indent=2, default=str)

    readme = (f"dbg report of session {name!r}, made {time.strftime('%Y-%m-%d %H:%M:%S')}."
              "\nSecrets are redacted; read the files before you share them.\n")
    if notes:
        readme += "".join(f"Note: {n}\n" for n in notes)
    files: dict[str, str] = {
        "README.txt": readme,
        "versions.json": as_json({
            "dbg": __version__, "python": platform.python_version(),
            "os": platform.platform(), "machine": platform.machine(),
            "backends": [c for c in checks["checks"] if c["check"].startswith("backend ")],
        }),
        "doctor.json": as_json(checks),
        "environment.txt": redacted_env(env, redactor),
        "session.json": as_json(row),
        "commands.json": as_json(commands),
        "stops.json": as_json(stops),
        **logs,
    }
    out_dir = Path(values["output"]).expanduser() if values.get("output") else \
        private_dir(dbg_home() / "reports")
    if not out_dir.is_dir():
        raise UsageError(f"{out_dir} is not a folder", "give --output an existing folder")
    path = out_dir / f"dbg-report-{name}-{time.strftime('%Y%m%d-%H%M%S')}.tar.gz"
    root = path.name.removesuffix(".tar.gz")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            for member, text in files.items():
                # JSON files were redacted value by value (above), the rest is text.
                data = (text if member.endswith(".json") else redactor.text(text)).encode()
                info = tarfile.TarInfo(f"{root}/{member}")
                info.size, info.mtime, info.mode = len(data), int(time.time()), 0o600
                tar.addfile(info, io.BytesIO(data))
    except OSError as exc:
        from dbgcore.shared.diskspace import refused
        from dbgcore.shared.errors import OpFailed

        with contextlib.suppress(OSError):
            path.unlink()  # half a report is no report
        disk = refused(exc, out_dir, f"cannot write the report {path}", "--output") \
            if values.get("output") else refused(exc, dbg_home(), f"cannot write the report {path}")
        if disk is None:
            raise OpFailed(f"cannot write the report {path}: {exc.strerror or exc}",
                           "give --output a folder you can write in") from exc
        raise disk from exc
    answer: Values = {"path": str(path), "session": name, "files": sorted(files)}
    if notes:
        answer["note"] = "; ".join(notes)
    return answer, None
