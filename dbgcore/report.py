"""`dbg report [SESSION]`: one .tar.gz with what a bug report needs.

It holds the session's logs (daemon and debugger), its recorded commands and
stops from the store, `dbg doctor --json`, versions, the OS, and the
environment. Secrets are taken out of every file before it is written: the
values of variables whose names say they are secret (TOKEN, KEY, SECRET,
PASSWORD, AUTH, COOKIE, CREDENTIAL), values that look like keys, and any
NAME=VALUE or "NAME": "VALUE" pair in the logs with such a name.
"""

from __future__ import annotations

import io
import json
import os
import platform
import re
import sqlite3
import tarfile
import time
from pathlib import Path
from typing import Any

from dbgcore import __version__
from dbgcore.errors import UsageError

Values = dict[str, Any]

REDACTED = "<redacted>"
_SECRET_WORDS = "TOKEN|KEY|SECRET|PASSWORD|PASSWD|AUTH|COOKIE|CREDENTIAL|PRIVATE"
_SECRET_NAME = re.compile(rf"(?i)(?:{_SECRET_WORDS})")
# NAME=VALUE, NAME: VALUE, "NAME": "VALUE" (JSON), with a secret-sounding NAME.
_SECRET_PAIR = re.compile(
    rf"""(?i)(\b[\w.-]*(?:{_SECRET_WORDS})[\w.-]*["']?\s*[:=]\s*["']?)([^"'\\\s,;}}\]]+)""")
# Tokens with the shapes providers give them, and long runs of key-like text.
_KEY_SHAPES = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}"
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})")
_LONG_KEYLIKE = re.compile(r"^[A-Za-z0-9+/_=-]{32,}$")


def looks_like_key(value: str) -> bool:
    if _KEY_SHAPES.search(value):
        return True
    # Long, unbroken, and a mix of letters and digits: a key, not a word or path.
    return bool(_LONG_KEYLIKE.match(value)) and any(c.isdigit() for c in value) \
        and any(c.isalpha() for c in value)


def secret_values(env: dict[str, str]) -> list[str]:
    """The values of ``env`` to take out everywhere, longest first."""
    found = {v for k, v in env.items()
             if len(v) >= 4 and (_SECRET_NAME.search(k) or looks_like_key(v))}
    return sorted(found, key=len, reverse=True)


def redact(text: str, secrets: list[str]) -> str:
    for value in secrets:
        text = text.replace(value, REDACTED)
    text = _SECRET_PAIR.sub(lambda m: m.group(1) + REDACTED, text)
    return _KEY_SHAPES.sub(REDACTED, text)


def redact_data(data: Any, secrets: list[str]) -> Any:
    """JSON-shaped ``data`` with every string redacted, and the value of
    every key that names a secret hidden."""
    if isinstance(data, str):
        return redact(data, secrets)
    if isinstance(data, dict):
        return {k: REDACTED if isinstance(k, str) and _SECRET_NAME.search(k)
                and isinstance(v, str) else redact_data(v, secrets) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [redact_data(v, secrets) for v in data]
    return data


def redacted_env(env: dict[str, str], secrets: list[str]) -> str:
    lines = []
    for name in sorted(env):
        value = env[name]
        hidden = _SECRET_NAME.search(name) or looks_like_key(value)
        lines.append(f"{name}={REDACTED if hidden else redact(value, secrets)}")
    return "\n".join(lines) + "\n"


def _recorded(name: str) -> tuple[Values | None, list[Values], list[Values]]:
    """The latest recorded session of this name: its row, commands and stops."""
    from dbgcore.paths import store_path
    from dbgcore.store import Store

    if not store_path().exists():
        return None, [], []
    try:
        store = Store(readonly=True)
    except (sqlite3.Error, OSError) as exc:
        return {"error": f"store unreadable: {exc}"}, [], []
    try:
        sid = store.latest_session_id(name)
        if sid is None:
            return None, [], []
        return store.session_row(sid), store.commands(sid), store.hits(sid, limit=10_000)
    except sqlite3.Error as exc:
        return {"error": f"store unreadable: {exc}"}, [], []
    finally:
        store.close()


def report(values: Values, session: str, timeout: float) -> tuple[Values, None]:
    from dbgcore.doctor import doctor
    from dbgcore.paths import check_session_name, dbg_home, private_dir

    name = check_session_name(values.get("name") or session)
    folder = dbg_home() / "sessions" / name
    row, commands, stops = _recorded(name)
    if row is None and not folder.is_dir():
        raise UsageError(f"nothing recorded for a session named {name!r}",
                         "see `dbg sessions`, or `dbg hits --all`")
    env = dict(os.environ)
    secrets = secret_values(env)
    checks = doctor({}, session, timeout)[0]
    checks.pop("_exit", None)
    def as_json(data: Any) -> str:
        return json.dumps(redact_data(data, secrets), indent=2, default=str)

    files: dict[str, str] = {
        "README.txt": (f"dbg report of session {name!r}, made {time.strftime('%Y-%m-%d %H:%M:%S')}."
                       "\nSecrets are redacted; read the files before you share them.\n"),
        "versions.json": as_json({
            "dbg": __version__, "python": platform.python_version(),
            "os": platform.platform(), "machine": platform.machine(),
            "backends": [c for c in checks["checks"] if c["check"].startswith("backend ")],
        }),
        "doctor.json": as_json(checks),
        "environment.txt": redacted_env(env, secrets),
        "session.json": as_json(row),
        "commands.json": as_json(commands),
        "stops.json": as_json(stops),
    }
    if folder.is_dir():
        for log in sorted(folder.glob("*.log")):
            files[f"logs/{log.name}"] = log.read_text(encoding="utf-8", errors="replace")
    out_dir = Path(values["output"]).expanduser() if values.get("output") else \
        private_dir(dbg_home() / "reports")
    if not out_dir.is_dir():
        raise UsageError(f"{out_dir} is not a folder", "give --output an existing folder")
    path = out_dir / f"dbg-report-{name}-{time.strftime('%Y%m%d-%H%M%S')}.tar.gz"
    root = path.name.removesuffix(".tar.gz")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for member, text in files.items():
            # JSON files are redacted value by value (above), the rest as text.
            data = (text if member.endswith(".json") else redact(text, secrets)).encode()
            info = tarfile.TarInfo(f"{root}/{member}")
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o600
            tar.addfile(info, io.BytesIO(data))
    return {"path": str(path), "session": name, "files": sorted(files)}, None
