"""`dbg report [SESSION]`: one .tar.gz with what a bug report needs.

It holds the session's logs (daemon and debugger, the tail of each, and of
the file each rotated into), its recorded commands and stops from the store,
`dbg doctor --json`, versions, the OS, and the environment. Secrets are taken
out of every file before it is written. They are gathered first, from every
place a secret reaches dbg: the values of the session's `--env` variables and
of dbg's own environment whose names say they are secret (TOKEN, KEY, SECRET,
PASSWORD, AUTH, COOKIE, CREDENTIAL, ...), values that look like keys, and the
password of every URL found in any of the files (``scheme://user:PASSWORD@``).
Each value is then replaced wherever it occurs, in every file (also escaped as
JSON or a Python repr would escape it), and any NAME=VALUE or "NAME": "VALUE"
pair with a secret-sounding NAME is hidden too.
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
from typing import TYPE_CHECKING

from dbgcore import __version__
from dbgcore.errors import UsageError
from dbgcore.jsontypes import Json, JsonObject

if TYPE_CHECKING:
    from dbgcore.registry import Front

Values = JsonObject

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
# scheme://user:PASSWORD@host: the password, up to the @ of the host.
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@\"'<>]*:([^\s/@\"'<>]+)@")
#: How much of each log (and of the file it rotated into) a report takes: the end.
LOG_TAIL_BYTES = 2_000_000
#: Shorter values are not hidden alone: they would take out half the words.
_MIN_SECRET = 4
#: Settings, not secrets (DISABLE_AUTH=true): replaced everywhere, they would
#: take out JSON's own words too.
_NOT_SECRET = frozenset({"true", "false", "null", "none"})


def _may_hide(value: str) -> bool:
    return len(value) >= _MIN_SECRET and value.lower() not in _NOT_SECRET


def looks_like_key(value: str) -> bool:
    if _KEY_SHAPES.search(value):
        return True
    # Long, unbroken, and a mix of letters and digits: a key, not a word or path.
    return bool(_LONG_KEYLIKE.match(value)) and any(c.isdigit() for c in value) \
        and any(c.isalpha() for c in value)


def secret_values(env: dict[str, str]) -> list[str]:
    """The values of ``env`` to take out everywhere, longest first."""
    found = {v for k, v in env.items()
             if _may_hide(v) and (_SECRET_NAME.search(k) or looks_like_key(v))}
    return sorted(found, key=len, reverse=True)


def url_passwords(text: str) -> set[str]:
    return {m.group(1) for m in _URL_PASSWORD.finditer(text) if _may_hide(m.group(1))}


def given_env(commands: list[Values]) -> dict[str, str]:
    """The ``--env`` variables of the session's recorded starts (and restarts)."""
    env: dict[str, str] = {}
    for command in commands:
        given = (command.get("args") or {}).get("env") if isinstance(command, dict) else None
        if isinstance(given, dict):
            env.update({str(k): str(v) for k, v in given.items()})
    return env


def with_escapes(values: set[str]) -> list[str]:
    """Each value, and the forms it takes once escaped as JSON or a Python
    repr would (a log holds messages in both); longest first, so a value
    that holds another is taken out whole."""
    forms = set(values)
    for value in values:
        forms.add(json.dumps(value)[1:-1])
        forms.add(json.dumps(value, ensure_ascii=False)[1:-1])
        forms.add(repr(value)[1:-1])
    return sorted((f for f in forms if _may_hide(f)), key=len, reverse=True)


def redact(text: str, secrets: list[str]) -> str:
    text = replace_all(text, secrets)
    text = _SECRET_PAIR.sub(lambda m: m.group(1) + REDACTED, text)
    text = _URL_PASSWORD.sub(lambda m: m.group(0).replace(m.group(1), REDACTED), text)
    return _KEY_SHAPES.sub(REDACTED, text)


def replace_all(text: str, secrets: list[str]) -> str:
    for value in secrets:
        if value in text:
            text = text.replace(value, REDACTED)
    return text


def log_tail(path: Path, limit: int = LOG_TAIL_BYTES) -> str:
    """The last ``limit`` bytes of a log, from the first whole line in them."""
    with path.open("rb") as fh:
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


def redact_data(data: Json, secrets: list[str]) -> Json:
    """JSON-shaped ``data`` with every string redacted, and the value of
    every key that names a secret hidden."""
    if isinstance(data, str):
        return redact(data, secrets)
    if isinstance(data, dict):
        return {redact_data(k, secrets): REDACTED if isinstance(k, str)
                and _SECRET_NAME.search(k) and isinstance(v, str)
                else redact_data(v, secrets) for k, v in data.items()}
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


def _recorded(name: str) -> tuple[Values | None, list[Values], list[Values], list[str]]:
    """The latest recorded session of this name: its row, commands and
    stops; and what was found wrong with the store on the way."""
    from dbgcore.paths import store_path
    from dbgcore.store import Store, standing_note

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
    from dbgcore.doctor import doctor
    from dbgcore.paths import check_session_name, dbg_home, private_dir

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
            if log.is_file():
                logs[f"logs/{log.name}"] = log_tail(log)
    # Every secret, gathered once from wherever it reached dbg, then taken
    # out of every file wherever it is echoed.
    given = given_env(commands)
    found = set(secret_values(env)) | set(secret_values(given))
    for text in (json.dumps([row, commands, stops], default=str), *env.values(),
                 *given.values(), *logs.values()):
        found |= url_passwords(text)
    secrets = with_escapes(found)

    def as_json(data: Json) -> str:
        return json.dumps(redact_data(data, secrets), indent=2, default=str)

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
        "environment.txt": redacted_env(env, secrets),
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
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for member, text in files.items():
            # JSON files are redacted value by value (above), the rest as
            # text; a secret in neither (a number in JSON) is taken out last.
            text = text if member.endswith(".json") else redact(text, secrets)
            data = replace_all(text, secrets).encode()
            info = tarfile.TarInfo(f"{root}/{member}")
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o600
            tar.addfile(info, io.BytesIO(data))
    answer: Values = {"path": str(path), "session": name, "files": sorted(files)}
    if notes:
        answer["note"] = "; ".join(notes)
    return answer, None
