"""backends.yaml: what each backend runs and how it is chosen.

Files merge in order, each over the one before: the file shipped with dbg,
the files plugins ship (``dbg_backend_files``; these only add backends, an
entry whose name is taken is left out), the user's
``$XDG_CONFIG_HOME/dbg/backends.yaml``, and the project's
``.dbg/backends.yaml`` (the nearest one walking up from the current
directory). A backend named in a later file overrides the keys it gives;
mappings (``launch``, ``options``) merge key by key. Order in the files is the
order auto-selection tries backends in. A malformed file is a ConfigError that
names the file, the line and the key.
"""

from __future__ import annotations

import json
import os
import zlib
from copy import deepcopy
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dbgcore.backends.contract import BackendSpec
from dbgcore.shared.errors import ConfigError
from dbgcore.shared.homecheck import make_folders, read_file, write_file
from dbgcore.shared.jsontypes import Json, JsonObject
from dbgcore.shared.paths import dbg_home, project_config_file, user_config_file

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import MarkedYAMLError, StreamMark

_STR_LISTS = ("command", "extensions", "root_markers", "binaries")
_STRS = ("plugin", "install", "description")
_MAPS = ("launch", "options")
_KNOWN = (*_STR_LISTS, *_STRS, *_MAPS)


@dataclass
class LoadedConfig:
    backends: dict[str, BackendSpec]
    files: list[Path]


def shipped_config_file() -> Path:
    """backends.yaml inside the installed wheel, or at the source tree's top.
    (Found beside this module, not with importlib.resources, whose import
    costs every daemon's start 4-5 ms: dbg is installed as files.)"""
    here = Path(__file__).resolve().parents[1]  # dbgcore/
    packaged = here / "backends.yaml"
    if packaged.is_file():
        return packaged
    return here.parent / "backends.yaml"


def config_files(cwd: Path | None = None, plugin_files: list[Path] | None = None) -> list[Path]:
    files = [shipped_config_file(), *(plugin_files or [])]
    user = user_config_file()
    if user.is_file():
        files.append(user)
    project = project_config_file(cwd)
    if project is not None:
        files.append(project)
    return files


#: A backend's settings as a file gives them, checked: plain data (strings,
#: lists, mappings), as YAML reads it.
Entry = JsonObject

def load_config(cwd: Path | None = None, plugin_files: list[Path] | None = None) -> LoadedConfig:
    """The merged backends; ``plugin_files`` are the backends.yaml files the
    loaded plugins ship (:meth:`dbgcore.backends.registry.BackendRegistry.config`
    gives them; none: dbg's own backends only)."""
    plugin_files = list(plugin_files or [])
    from_plugins = set(plugin_files)
    files = config_files(cwd, plugin_files)
    merged: dict[str, Entry] = {}
    # Where each backend is first defined: where a missing key must be added.
    defined_at: dict[str, str] = {}
    for path in files:
        entries, lines = _read_file(path)
        for name, entry in entries.items():
            if path in from_plugins and name in merged:
                continue  # a plugin adds backends; it does not take over one
            defined_at.setdefault(name, f"{path}:{lines[name]}")
            base = merged.setdefault(name, {})
            for key, value in entry.items():
                if key in _MAPS and isinstance(base.get(key), dict):
                    base[key] = {**base[key], **value}
                else:
                    base[key] = value
    backends: dict[str, BackendSpec] = {}
    for name, entry in merged.items():
        if "plugin" not in entry:
            raise ConfigError(
                f"{defined_at[name]}: backend {name!r} has no 'plugin' key "
                f"(in none of {', '.join(map(str, files))})",
                "say which registered backend plugin implements it, e.g. plugin: pdb",
            )
        backends[name] = BackendSpec(
            name=name,
            plugin=entry["plugin"],
            command=list(entry.get("command", [])),
            extensions=[e.lower() for e in entry.get("extensions", [])],
            root_markers=list(entry.get("root_markers", [])),
            binaries=[b.lower() for b in entry.get("binaries", [])],
            launch=dict(entry.get("launch", {})),
            install=entry.get("install", ""),
            description=entry.get("description", ""),
            options=dict(entry.get("options", {})),
        )
    return LoadedConfig(backends, files)


#: Files parsed already, by path, with the text they had: a daemon forked
#: off the client that read them does not parse them again.
_PARSED: dict[Path, tuple[str, tuple[dict[str, Entry], dict[str, int]]]] = {}


def check_backends_file(path: Path) -> None:
    """Raise ConfigError when ``path`` is not a well-formed backends.yaml."""
    _read_file(path)


def _read_file(path: Path) -> tuple[dict[str, Entry], dict[str, int]]:
    """The file's backends, checked, and the line each backend's name is on."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start + 1})",
                          "save it as UTF-8") from exc
    known = _PARSED.get(path)
    if known is not None and known[0] == text:
        return deepcopy(known[1])
    # Two checksums and the length: zlib is loaded already, where hashlib
    # would load OpenSSL (3-4 ms a start); an edit that keeps the length
    # and both sums is not a thing that happens to a hand-written file.
    data = f"{path}\0{text}".encode("utf-8", "surrogateescape")
    digest = f"{len(data)}-{zlib.crc32(data):08x}-{zlib.adler32(data):08x}"
    result = _parsed_before(digest)
    if result is None:
        result = _parse_file(path, text)
        _keep_parsed(digest, result)
    _PARSED[path] = (text, deepcopy(result))
    return result


#: Files read before, by the digest of their path and text: parsing YAML
#: (ruamel, pure Python) costs every `dbg start` 30-60 ms, more than the rest
#: of the configuration; a well-formed file's checked backends are kept.
_PARSED_CACHE = "backends-parsed.json"


def _parsed_before(digest: str) -> tuple[dict[str, Entry], dict[str, int]] | None:
    try:
        data = json.loads(read_file(str(dbg_home() / _PARSED_CACHE)))
        entries, lines = data[digest]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(entries, dict) or not isinstance(lines, dict) \
            or set(entries) != set(lines) or not all(isinstance(e, dict)
                                                     for e in entries.values()):
        return None
    return entries, {str(name): int(line) for name, line in lines.items()}


def _keep_parsed(digest: str, result: tuple[dict[str, Entry], dict[str, int]]) -> None:
    path = dbg_home() / _PARSED_CACHE
    try:
        data = json.loads(read_file(str(path)))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    data.pop(digest, None)
    data[digest] = list(result)
    try:
        make_folders(str(path.parent), tighten=False)
        write_file(str(path), json.dumps(dict(list(data.items())[-20:])).encode("utf-8"),
                   str(path.with_name(f".{path.name}.{os.getpid()}")))
    except OSError:
        pass  # a cache: without it, the file is only parsed again


def _parse_file(path: Path, text: str) -> tuple[dict[str, Entry], dict[str, int]]:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        doc = YAML(typ="rt").load(text)
    except MarkedYAMLError as exc:
        raise ConfigError(_syntax_problem(path, text, exc), "fix the YAML syntax") from exc
    except YAMLError as exc:
        raise ConfigError(f"{path}: {exc}", "fix the YAML syntax") from exc
    if doc is None:
        return {}, {}
    if not isinstance(doc, CommentedMap):
        raise ConfigError(f"{path}:1: the file must be a mapping with a 'backends' key")
    for key in doc:
        if key != "backends":
            raise ConfigError(f"{path}:{_line(doc, key)}: unknown top-level key {key!r}",
                              "the only top-level key is 'backends'")
    backends = doc.get("backends")
    if backends is None:
        return {}, {}
    if not isinstance(backends, CommentedMap):
        raise ConfigError(f"{path}:{_line(doc, 'backends')}: key 'backends' must be a mapping "
                          "of backend name to its settings")
    result: dict[str, Entry] = {}
    lines: dict[str, int] = {}
    for name, entry in backends.items():
        lines[name] = _line(backends, name)
        where = f"{path}:{lines[name]}"
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{where}: backend names must be non-empty strings")
        if not isinstance(entry, CommentedMap):
            raise ConfigError(f"{where}: key {name!r} must be a mapping of settings")
        result[name] = _check_entry(path, name, entry)
    return result, lines


def _syntax_problem(path: Path, text: str, exc: MarkedYAMLError) -> str:
    """``FILE:LINE: problem: "the line"``, plus the line where the construct the
    parser was in began: it often notices a problem (an unclosed ``[``) only
    lines later, and the key is on the line where the construct began."""
    lines = text.splitlines()

    def quoted(mark: StreamMark | None) -> str:
        if mark is None or mark.line >= len(lines) or not lines[mark.line].strip():
            return ""
        return f': "{lines[mark.line].strip()}"'

    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "invalid YAML"
    if mark is None:
        return f"{path}: {problem}"
    message = f"{path}:{mark.line + 1}: {problem}{quoted(mark)}"
    begun = exc.context_mark
    if exc.problem and exc.context and begun is not None and begun.line != mark.line:
        message += f" ({exc.context} at line {begun.line + 1}{quoted(begun)})"
    return message


def _check_entry(path: Path, name: str, entry: CommentedMap) -> Entry:
    checked: Entry = {}
    for key, value in entry.items():
        where = f"{path}:{_line(entry, key)}"
        if key not in _KNOWN:
            raise ConfigError(
                f"{where}: unknown key {key!r} in backend {name!r}",
                f"known keys: {', '.join(_KNOWN)}",
            )
        if key in _STR_LISTS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(
                    f"{where}: key {key!r} of backend {name!r} must be a list of strings")
            checked[key] = [str(v) for v in value]
        elif key in _STRS:
            if not isinstance(value, str):
                raise ConfigError(f"{where}: key {key!r} of backend {name!r} must be a string")
            checked[key] = str(value)
        else:
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: key {key!r} of backend {name!r} must be a mapping")
            checked[key] = _plain(value)
    return checked


def _line(node: CommentedMap, key: object) -> int:
    try:
        return int(node.lc.key(key)[0]) + 1
    except (KeyError, TypeError, AttributeError):
        return int(getattr(node.lc, "line", 0)) + 1


def _plain(value: object) -> Json:
    """ruamel's round-trip containers -> plain dicts and lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
