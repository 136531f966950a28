"""`dbg agent install NAME`: register `dbg mcp` with a coding agent and
install dbg's skill, in that agent's own configuration files.

Each agent keeps its MCP servers and skills in its own places and formats:

- Claude Code: the user's servers under ``mcpServers`` in ``~/.claude.json``
  (``$CLAUDE_CONFIG_DIR/.claude.json`` when that is set), a project's in
  ``.mcp.json`` at its root; skills in ``~/.claude/skills/NAME/SKILL.md`` or
  the project's ``.claude/skills/``.
- Codex: a ``[mcp_servers.NAME]`` table (``command``, ``args``) in
  ``~/.codex/config.toml`` (``$CODEX_HOME`` when set) or the project's
  ``.codex/config.toml``; skills in ``~/.codex/skills/`` or ``.codex/skills/``.

A file that exists is merged into, never replaced: only dbg's own entry is
added or brought up to date, and what else is there stays as it was (read
back and compared before the file is replaced). JSON is read and written
with the standard library. TOML is read with ``tomllib`` and, since the
standard library writes none, dbg's table is appended as text (or its two
lines replaced), then the whole file is parsed again and checked before it
is written: a file dbg cannot change that way is left alone, with what to
add by hand.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbgcore.shared.errors import DbgError, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

    from dbgcore.backends.registry import Front
    from dbgcore.vocab.opspec import Payload, Via

SERVER = "dbg"
SCOPES = ("user", "project")


@dataclass
class Change:
    """One file as the install leaves it."""

    path: Path
    what: str  # what in the file is dbg's: "mcpServers.dbg", "the dbg skill"
    old: str | None  # the file's text now (None: no file)
    new: str  # its text after the install
    shown: str  # what to show of it (the entry, not a whole settings file)

    @property
    def action(self) -> str:
        if self.old is None:
            return "create"
        return "unchanged" if self.old == self.new else "update"


def server_command() -> tuple[str, list[str]]:
    """How the agent starts `dbg mcp`: the `dbg` beside this interpreter
    (an agent started from a desktop may not have the venv on its PATH), or
    the interpreter itself running dbgcore."""
    beside = Path(sys.executable).parent / "dbg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute()), ["mcp"]
    return str(Path(sys.executable).absolute()), ["-m", "dbgcore", "mcp"]


def skill_source() -> Path:
    """The skill inside the installed wheel (pyproject's force-include), or in
    the source tree's contrib/skills."""
    packaged = Path(__file__).resolve().parents[1] / "skills" / "dbg" / "SKILL.md"
    if packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "contrib" / "skills" / "dbg" / "SKILL.md"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise DbgError(f"cannot read {path}: {exc}", "nothing was written") from exc


# -- the formats -------------------------------------------------------------------------------


def json_change(path: Path, entry: dict[str, Any]) -> Change:
    """``mcpServers.dbg`` set to ``entry`` in the JSON object of ``path``
    (its other keys, and dbg's own ones ``entry`` lacks, kept)."""
    old = _read(path)
    data: Any = {}
    if old is not None and old.strip():
        try:
            data = json.loads(old)
        except ValueError as exc:
            raise DbgError(f"{path} is not valid JSON ({exc}); nothing was written",
                           "fix the file, or see what to add with --print") from exc
    if not isinstance(data, dict):
        raise DbgError(f"{path} is not a JSON object; nothing was written",
                       "fix the file, or see what to add with --print")
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise DbgError(f"{path}: mcpServers is not an object; nothing was written")
    current = servers.get(SERVER)
    merged = {**(current if isinstance(current, dict) else {}), **entry}
    if old is not None and current == merged:
        new = old
    else:
        servers[SERVER] = merged
        new = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    shown = json.dumps({"mcpServers": {SERVER: merged}}, indent=2, ensure_ascii=False)
    return Change(path, f"mcpServers.{SERVER}", old, new, shown)


def _toml_string(value: str) -> str:
    # A JSON string is a TOML basic string: the same escapes, \uXXXX included.
    return json.dumps(value)


def _toml_table(command: str, args: list[str]) -> list[str]:
    return [f"[mcp_servers.{SERVER}]", f"command = {_toml_string(command)}",
            "args = [" + ", ".join(_toml_string(a) for a in args) + "]"]


def _toml_edit(old: str, command: str, args: list[str]) -> str | None:
    """``old`` with dbg's table appended, or its ``command`` and ``args``
    lines replaced; None when the table is written some other way (inline,
    dotted keys, a multi-line array) that only a person should change."""
    lines = old.splitlines()
    header = f"[mcp_servers.{SERVER}]"
    starts = [i for i, line in enumerate(lines) if line.strip() == header]
    table = _toml_table(command, args)
    if not starts:
        text = old
        if text and not text.endswith("\n"):
            text += "\n"
        return text + ("\n" if text.strip() else "") + "\n".join(table) + "\n"
    first = starts[0]
    end = next((i for i in range(first + 1, len(lines)) if lines[i].lstrip().startswith("[")),
               len(lines))
    body = [line for line in lines[first + 1:end]
            if line.split("=")[0].strip() not in ("command", "args")]
    if any(line.lstrip().startswith(("]", '"')) for line in body):
        return None  # the rest of a multi-line array
    new = [*lines[:first], *table, *body, *lines[end:]]
    return "\n".join(new) + "\n"


def _toml_loads(text: str, path: Path, hand: str) -> dict[str, Any] | None:
    """The TOML ``text`` read, None if it is not valid TOML."""
    if sys.version_info >= (3, 11):
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
    raise DbgError(f"reading {path} needs Python 3.11's tomllib; nothing was written",
                   f"add by hand:\n{hand}")


def toml_change(path: Path, command: str, args: list[str]) -> Change:
    """``[mcp_servers.dbg]`` with ``command`` and ``args`` in ``path``."""
    old = _read(path)
    hand = "\n".join(_toml_table(command, args))
    before = _toml_loads(old or "", path, hand)
    if before is None:
        raise DbgError(f"{path} is not valid TOML; nothing was written",
                       f"fix it, then add:\n{hand}")
    servers = before.get("mcp_servers")
    current = servers.get(SERVER) if isinstance(servers, dict) else None
    if old is not None and isinstance(current, dict) and current.get("command") == command \
            and current.get("args") == args:
        return Change(path, f"mcp_servers.{SERVER}", old, old, hand)
    new = _toml_edit(old or "", command, args)
    after = _toml_loads(new, path, hand) if new is not None else None
    if new is None or after is None or not _only_dbg_changed(before, after, command, args):
        raise DbgError(f"{path} keeps mcp_servers in a form dbg does not rewrite; "
                       "nothing was written", f"add by hand:\n{hand}")
    return Change(path, f"mcp_servers.{SERVER}", old, new, hand)


def _only_dbg_changed(before: dict[str, Any], after: dict[str, Any], command: str,
                      args: list[str]) -> bool:
    def without_dbg(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        rest = dict(data)
        servers = dict(rest.pop("mcp_servers", None) or {})
        mine = servers.pop(SERVER, None) or {}
        rest["mcp_servers"] = servers
        return rest, {k: v for k, v in mine.items() if k not in ("command", "args")}

    (rest_before, mine_before), (rest_after, mine_after) = without_dbg(before), \
        without_dbg(after)
    entry = (after.get("mcp_servers") or {}).get(SERVER) or {}
    return rest_before == rest_after and mine_before == mine_after \
        and entry.get("command") == command and entry.get("args") == args


def skill_change(folder: Path) -> Change:
    source = skill_source()
    text = _read(source)
    if text is None:
        raise DbgError(f"dbg's skill is not at {source}",
                       "reinstall dbg: its wheel carries the skill")
    path = folder / SERVER / "SKILL.md"
    lines = len(text.splitlines())
    return Change(path, "the dbg skill", _read(path), text,
                  f"the dbg skill ({lines} lines, from {source})")


# -- the agents --------------------------------------------------------------------------------


def _claude(scope: str, home: Path, project: Path) -> list[Change]:
    command, args = server_command()
    entry = {"type": "stdio", "command": command, "args": args}
    if scope == "project":
        return [json_change(project / ".mcp.json", entry),
                skill_change(project / ".claude" / "skills")]
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    folder = Path(configured) if configured else home / ".claude"
    settings = folder / ".claude.json" if configured else home / ".claude.json"
    return [json_change(settings, entry), skill_change(folder / "skills")]


def _codex(scope: str, home: Path, project: Path) -> list[Change]:
    command, args = server_command()
    configured = os.environ.get("CODEX_HOME")
    folder = project / ".codex" if scope == "project" else \
        Path(configured) if configured else home / ".codex"
    return [toml_change(folder / "config.toml", command, args),
            skill_change(folder / "skills")]


#: Each agent dbg installs into: how it lays out its files, by scope.
AGENTS: dict[str, Callable[[str, Path, Path], list[Change]]] = {
    "claude": _claude,
    "codex": _codex,
}


def plan(agent: str, scope: str, home: Path, project: Path) -> list[Change]:
    known = AGENTS.get(agent)
    if known is None:
        raise UsageError(f"no agent {agent!r}: dbg installs into " + ", ".join(sorted(AGENTS)))
    if scope not in SCOPES:
        raise UsageError(f"no scope {scope!r}: user or project")
    return known(scope, home, project)


def _write(change: Change) -> None:
    change.path.parent.mkdir(parents=True, exist_ok=True)
    temporary = change.path.with_name(change.path.name + ".dbg-tmp")
    mode = change.path.stat().st_mode & 0o7777 if change.old is not None else None
    temporary.write_text(change.new, encoding="utf-8")
    if mode is not None:
        os.chmod(temporary, mode)  # ~/.claude.json is the user's alone: it stays so
    os.replace(temporary, change.path)


def install(values: Payload, session: str, timeout: float,
            front: Front) -> tuple[Payload, Via | None]:
    agent = str(values.get("agent") or "")
    scope = str(values.get("scope") or "user")
    show_only = bool(values.get("print"))
    changes = plan(agent, scope, Path.home(), Path.cwd())
    if not show_only:
        try:
            for change in changes:
                if change.action != "unchanged":
                    _write(change)
        except OSError as exc:
            raise DbgError(f"cannot write {exc.filename or 'a file'}: {exc.strerror or exc}",
                           "see what to write with --print") from exc
    command, args = server_command()
    files = [{"path": str(c.path), "what": c.what, "action": c.action, "content": c.shown}
             for c in changes]
    return {"agent": agent, "scope": scope, "written": not show_only,
            "server": {"command": command, "args": args}, "files": files}, None
