"""`dbg agent install NAME`: `dbg mcp` registered and the skill installed in
each agent's own files, under a temporary HOME; merged into what is there,
idempotent, --print writing nothing, bad names a usage error."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import Dbg, Result

SKILL = Path(__file__).resolve().parent.parent / "contrib" / "skills" / "dbg" / "SKILL.md"

if sys.version_info >= (3, 11):
    import tomllib

    def read_toml(path: Path) -> dict[str, object]:
        return tomllib.loads(path.read_text(encoding="utf-8"))
else:
    read_toml = None


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def install(dbg: Dbg, home: Path, *args: str, json_out: bool = True) -> Result:
    env = {k: v for k, v in dbg.env.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME")}
    env["HOME"] = str(home)
    return dbg(*(["--json"] if json_out else []), "agent", "install", *args, env=env)


def files_under(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_claude_into_an_empty_home_then_again(dbg: Dbg, home: Path) -> None:
    done = install(dbg, home, "claude")
    assert done.code == 0, done
    answer = json.loads(done.out)
    assert [f["action"] for f in answer["files"]] == ["create", "create"], answer
    settings = json.loads((home / ".claude.json").read_text())
    entry = settings["mcpServers"]["dbg"]
    assert entry["type"] == "stdio" and entry["args"][-1] == "mcp", entry
    # The command it wrote starts dbg's MCP server.
    assert Path(entry["command"]).exists(), entry
    assert (home / ".claude" / "skills" / "dbg" / "SKILL.md").read_text() == SKILL.read_text()
    before = files_under(home)
    again = install(dbg, home, "claude")
    assert [f["action"] for f in json.loads(again.out)["files"]] == ["unchanged"] * 2, again
    assert files_under(home) == before
    text = install(dbg, home, "claude", json_out=False)
    assert text.code == 0 and "unchanged" in text.out and str(home / ".claude.json") in text.out


def test_claude_keeps_what_is_there(dbg: Dbg, home: Path) -> None:
    theirs = {"numStartups": 7, "mcpServers": {"other": {"command": "other-mcp", "args": []},
                                               "dbg": {"command": "old", "env": {"A": "1"}}},
              "projects": {"/x": {"allowedTools": ["Bash"]}}}
    settings = home / ".claude.json"
    settings.write_text(json.dumps(theirs))
    settings.chmod(0o600)
    done = install(dbg, home, "claude")
    assert json.loads(done.out)["files"][0]["action"] == "update", done
    now = json.loads(settings.read_text())
    assert now["numStartups"] == 7 and now["projects"] == theirs["projects"]
    assert now["mcpServers"]["other"] == theirs["mcpServers"]["other"]
    # dbg's entry brought up to date; what the user added to it kept.
    assert now["mcpServers"]["dbg"]["env"] == {"A": "1"}
    assert now["mcpServers"]["dbg"]["command"] != "old"
    assert settings.stat().st_mode & 0o777 == 0o600


def test_claude_project_scope(dbg: Dbg, home: Path) -> None:
    done = install(dbg, home, "claude", "--scope", "project")
    assert done.code == 0, done
    assert "dbg" in json.loads((dbg.cwd / ".mcp.json").read_text())["mcpServers"]
    assert (dbg.cwd / ".claude" / "skills" / "dbg" / "SKILL.md").is_file()
    assert not (home / ".claude.json").exists()


def test_codex_merges_into_its_toml(dbg: Dbg, home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o3"  # mine\n\n[mcp_servers.other]\ncommand = "x"\n'
                      'args = ["serve"]\n\n[mcp_servers.other.env]\nKEY = "v"\n')
    original = config.read_text()
    done = install(dbg, home, "codex")
    if read_toml is None:
        # Python 3.10 has no TOML reader: refused, with the lines to add, and
        # the file untouched (not skipped: that answer is the behaviour there).
        assert done.code == 1 and "tomllib" in done.err and "[mcp_servers.dbg]" in done.err
        assert config.read_text() == original
        return
    assert done.code == 0, done
    text = config.read_text()
    assert text.startswith(original), text  # appended: comments and layout kept
    assert read_toml is not None
    data = read_toml(config)
    servers = data["mcp_servers"]
    assert isinstance(servers, dict)
    assert servers["other"] == {"command": "x", "args": ["serve"], "env": {"KEY": "v"}}
    assert servers["dbg"]["args"][-1] == "mcp" and data["model"] == "o3"
    assert (home / ".codex" / "skills" / "dbg" / "SKILL.md").read_text() == SKILL.read_text()
    again = install(dbg, home, "codex")
    assert [f["action"] for f in json.loads(again.out)["files"]] == ["unchanged"] * 2
    assert config.read_text() == text

    # An older dbg entry: its command and args replaced, its other keys kept.
    config.write_text(original + '\n[mcp_servers.dbg]\ncommand = "old-dbg"\nargs = []\n'
                      "enabled = true\n")
    install(dbg, home, "codex")
    dbg_entry = read_toml(config)["mcp_servers"]["dbg"]  # type: ignore[index]
    assert dbg_entry["enabled"] is True and dbg_entry["command"] != "old-dbg", dbg_entry


def test_codex_refuses_a_file_it_cannot_read(dbg: Dbg, home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text("this is = = not toml\n")
    done = install(dbg, home, "codex", json_out=False)
    assert done.code == 1 and "not valid TOML" in done.err, done
    assert config.read_text() == "this is = = not toml\n"
    assert not (home / ".codex" / "skills").exists()


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_print_writes_nothing(dbg: Dbg, home: Path, agent: str) -> None:
    shown = install(dbg, home, agent, "--print", json_out=False)
    assert shown.code == 0, shown
    assert "nothing written" in shown.out and '"mcp"' in shown.out, shown.out
    assert files_under(home) == {}
    assert json.loads(install(dbg, home, agent, "--print").out)["written"] is False


@pytest.mark.parametrize("args", [("cursor",), ("claude", "--scope", "global"), ()])
def test_a_bad_name_is_a_usage_error(dbg: Dbg, home: Path, args: tuple[str, ...]) -> None:
    done = install(dbg, home, *args, json_out=False)
    assert done.code == 2, done
    assert len(done.err.strip().splitlines()) == 1 and "Traceback" not in done.err, done.err
    assert files_under(home) == {}
