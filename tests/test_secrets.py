"""Secrets stay out of answers (docs/secrets.md): each kind dbg masks, in
`locals`, `print`, `output`, stop snapshots, `history`, `hits`, `trace` and
`calls`, on pdb and debugpy, through the fast path, the full CLI and MCP; the
store keeps none of them; `--reveal` and DBG_REVEAL=1 show them; ordinary
values are never masked; and a C string on gdb."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from builds import build_c

from dbgcore.testing import Dbg, dbg_in, marked_lines, require_backend

#: The target's locals, each with the label its mask carries and the secret
#: part of its value (made up: see tests/targets/leaky.py).
SECRETS = {
    "aws": ("aws-access-key", "AKIAQ3EXAMPLE7KEYID0"),
    "github": ("github-token", "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    "gitlab": ("gitlab-token", "glpat-x9Y8z7W6v5U4t3S2r1Q0"),
    "slack": ("slack-token", "xoxb-123456789012-abcdefABCDEF"),
    "google": ("google-api-key", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    "stripe": ("stripe-key", "sk_live_51Hx2Yz3Ab4Cd5Ef6Gh7Ij8Kl"),
    "jwt": ("jwt", "c2lnbmF0dXJlLW5vdC1yZWFs"),
    "header": ("bearer-token", "tk3Qz9LmW2pXa7Rb"),
    "url": ("url-password", "Pg5ecretW0rd"),
    "dsn": ("secret-name", "Dsn5ecret9"),
    "key": ("private-key", "MIIEowIBAAKCAQEAv3Fq0mZ2Yk1hO9xTn4cQ8sLrJpW7eE6dUa5gHbK2iMlN0oPq"),
    "password": ("secret-name", "hunter22"),
    "api_key": ("secret-name", "k-7f3a9c1e5b"),
}
#: Values the mask must leave as they are: ordinary ones, and trivial ones
#: under a secret's name.
PLAIN = {"count": "42", "greeting": "'hello world'", "empty_token": "''", "no_secret": "None"}
RAW = [secret for _, secret in SECRETS.values()]


def label(kind: str) -> str:
    return f"<redacted:{kind}>"


def leaks(text: str) -> list[str]:
    return [secret for secret in RAW if secret in text]


def values(answer: dict[str, Any]) -> dict[str, str]:
    return {v["name"]: v["value"] for v in answer.get("variables", answer.get("locals", []))}


@pytest.fixture(scope="module", params=["pdb", "debugpy"])
def seen(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """One session of tests/targets/leaky.py on the backend, run from
    stop to stop, its answers kept for the tests below to read."""
    backend = request.param
    require_backend(backend)
    # A short DBG_HOME, as short_dbg's: the fast path's sockets fit in it.
    home = Path(tempfile.mkdtemp(prefix="dbg-", dir="/tmp"))
    try:
        with dbg_in(home) as dbg:
            program = dbg.cwd / "leaky.py"
            program.write_text((Path(__file__).parent / "targets" / "leaky.py").read_text())
            marks = marked_lines(program)
            got: dict[str, Any] = {"dbg": dbg, "home": dbg.home}
            got["stop"] = dbg.json("start", "--backend", backend, "--break",
                                   f"leaky.py:{marks['told']}", "--run", str(program))
            assert got["stop"]["ok"], got["stop"]
            got["locals"] = dbg.json("locals")
            got["locals_text"] = dbg("locals").out
            got["slow_locals"] = dbg.json("locals", env={"DBG_NO_FAST_PATH": "1"})
            got["revealed"] = dbg.json("--reveal", "locals")
            got["revealed_after"] = dbg.json("locals", "--reveal")
            got["revealed_env"] = dbg.json("locals", env={"DBG_REVEAL": "1"})
            got["revealed_slow"] = dbg.json("--reveal", "locals",
                                            env={"DBG_NO_FAST_PATH": "1"})
            got["print"] = {name: dbg.json("print", name) for name in [*SECRETS, *PLAIN]}
            got["print_revealed"] = dbg.json("--reveal", "print", "password")
            got["break"] = dbg.json("break", f"leaky.py:{marks['login']}")
            got["next_stop"] = dbg.json("continue")
            got["trace"] = dbg.json("trace", "login")
            got["output"] = dbg.output()
            got["history"] = {name: dbg.json("history", name) for name in SECRETS}
            got["hits"] = dbg.json("hits")
            got["calls"] = dbg.json("calls")
            got["calls_text"] = dbg("calls").out
            got["kill"] = dbg.json("kill")
            yield got
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_locals_mask_each_kind_with_its_label(seen: dict[str, Any]) -> None:
    for answer in (seen["locals"], seen["slow_locals"]):
        assert answer["ok"], answer
        shown = values(answer)
        for name, (kind, _) in SECRETS.items():
            assert label(kind) in shown[name], (name, shown[name])
        assert leaks(json.dumps(answer)) == []
    # The stop snapshot's own locals, and its text.
    assert leaks(json.dumps(seen["stop"])) == []
    assert leaks(seen["locals_text"]) == [] and label("github-token") in seen["locals_text"]


def test_ordinary_and_trivial_values_are_not_masked(seen: dict[str, Any]) -> None:
    shown = values(seen["locals"])
    for name, value in PLAIN.items():
        assert shown[name] == value, (name, shown[name])
    for name, value in PLAIN.items():
        assert seen["print"][name]["value"] == value, seen["print"][name]


def test_print_masks_each_kind(seen: dict[str, Any]) -> None:
    for name, (kind, _) in SECRETS.items():
        answer = seen["print"][name]
        assert answer["ok"] and label(kind) in answer["value"], (name, answer)
        assert leaks(json.dumps(answer)) == []


def test_a_name_alone_masks_the_value(seen: dict[str, Any]) -> None:
    assert values(seen["locals"])["password"] == "'<redacted:secret-name>'"
    assert seen["print"]["password"]["value"] == "'<redacted:secret-name>'"


def test_reveal_shows_the_values(seen: dict[str, Any]) -> None:
    for how in ("revealed", "revealed_after", "revealed_env", "revealed_slow"):
        shown = values(seen[how])
        assert "<redacted" not in json.dumps(seen[how]), how
        for name, (_, secret) in SECRETS.items():
            assert secret in shown[name], (how, name, shown[name])
    assert seen["print_revealed"]["value"] == "'hunter22'"


def test_output_masks_each_kind(seen: dict[str, Any]) -> None:
    output = seen["output"]
    assert "shapes:" in output and "logged in with password=" in output, output
    assert leaks(output) == [], output
    for kind, _ in SECRETS.values():
        assert label(kind) in output, (kind, output)


def test_history_hits_and_traces_mask_each_kind(seen: dict[str, Any]) -> None:
    # A stop's record keeps the locals its snapshot shows.
    recorded = [name for name in values(seen["stop"]) if name in SECRETS]
    assert len(recorded) >= 5, recorded
    for name in recorded:
        kind = SECRETS[name][0]
        answer = seen["history"][name]
        assert answer["ok"] and answer["history"]["values"], (name, answer)
        assert label(kind) in json.dumps(answer), (name, answer)
    assert leaks(json.dumps(seen["history"])) == []
    assert seen["hits"]["ok"] and leaks(json.dumps(seen["hits"])) == []
    assert seen["next_stop"]["ok"] and leaks(json.dumps(seen["next_stop"])) == []
    for answer in (seen["trace"], seen["calls"]):
        assert answer["ok"] and leaks(json.dumps(answer)) == [], answer
    args = {a["name"]: a["value"] for a in seen["calls"]["calls"][0]["args"]}
    assert args == {"user": "'bob'", "password": "'<redacted:secret-name>'",
                    "token": "'<redacted:github-token>'"}, args
    assert "password='<redacted:secret-name>'" in seen["calls_text"], seen["calls_text"]


def test_the_store_keeps_no_secret(seen: dict[str, Any]) -> None:
    assert seen["kill"]["ok"], seen["kill"]
    store = next(seen["home"].rglob("store.sqlite3"))
    db = sqlite3.connect(store)
    try:
        text = json.dumps([db.execute(f"SELECT * FROM {table}").fetchall()
                           for table in ("commands", "stops", "calls", "samples")])
    finally:
        db.close()
    # The store read through (its answers above asked it), and masked.
    assert label("github-token") in text and "hello world" in text
    assert leaks(text) == [], leaks(text)
    for path in store.parent.glob("store.sqlite3*"):
        assert leaks(path.read_bytes().decode("latin-1")) == [], path


C_PROGRAM = r"""
#include <stdio.h>
#include <string.h>

int main(void) {
    const char *token = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    char password[] = "hunter22";
    int count = 42;
    printf("%zu %d\n", strlen(token) + strlen(password), count); // @use
    return 0;
}
"""


def test_a_c_string_on_gdb(dbg: Dbg) -> None:
    require_backend("gdb")
    source = dbg.cwd / "creds.c"
    source.write_text(C_PROGRAM)
    program = build_c(source)
    line = marked_lines(source)["use"]
    stop = dbg.json("start", "--backend", "gdb", "--break", f"creds.c:{line}", "--run",
                    str(program))
    assert stop["ok"], stop
    shown = values(dbg.json("locals"))
    assert label("github-token") in shown["token"] and "ghp_" not in shown["token"], shown
    assert shown["password"] == label("secret-name") or label("secret-name") in \
        shown["password"], shown
    assert "hunter22" not in json.dumps(shown) and shown["count"] == "42", shown
    printed = dbg.json("print", "token")
    assert label("github-token") in printed["value"], printed
    revealed = dbg.json("--reveal", "print", "password")
    assert "hunter22" in revealed["value"], revealed


def test_mcp_answers_are_masked_unless_its_server_reveals(dbg: Dbg) -> None:
    require_backend("pdb")
    from mcpclient import run_mcp

    program = dbg.cwd / "leaky.py"
    program.write_text((Path(__file__).parent / "targets" / "leaky.py").read_text())
    told = marked_lines(program)["told"]
    assert dbg.json("start", "--backend", "pdb", "--break", f"leaky.py:{told}", "--run",
                    str(program))["ok"]
    answers: list[dict[str, Any]] = []

    async def scenario(session: Any) -> None:
        for tool, arguments in (("dbg_locals", {}), ("dbg_print", {"expression": "password"})):
            result = await session.call_tool(tool, arguments)
            assert isinstance(result.structured_content, dict), result
            answers.append({**result.structured_content, "_text": result.content[0].text})

    run_mcp(dbg, scenario)
    dbg.env["DBG_REVEAL"] = "1"
    run_mcp(dbg, scenario)
    masked_locals, masked_print, shown_locals, shown_print = answers
    assert masked_locals["ok"] and masked_print["ok"], answers
    for answer in (masked_locals, masked_print):
        assert leaks(json.dumps(answer)) == [], answer
    assert label("github-token") in masked_locals["_text"]
    assert masked_print["value"] == "'<redacted:secret-name>'", masked_print
    assert SECRETS["github"][1] in values(shown_locals)["github"], shown_locals
    assert shown_print["value"] == "'hunter22'", shown_print
