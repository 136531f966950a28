"""`dbg report` holds no secret given to dbg, in any form, in any file of the
bundle: an `--env` value with a secret-looking name, a secret-named variable
of dbg's own environment, a URL's password in an argument and in the
program's output; and it takes bounded tails of the logs, rotated ones too."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from dbgcore.report import LOG_TAIL_BYTES
from dbgcore.testing import require_backend

if TYPE_CHECKING:
    from conftest import Dbg

PROGRAM = '''\
import os
import sys

print("argument", sys.argv[1])
print("given", os.environ.get("BAR_SECRET"), os.environ.get("QUOTED_PASSWORD"))
print("own", os.environ.get("MY_OWN_TOKEN"))
print("output url", "mysql://admin:outpw991@db.example/x")
seen = os.environ.get("BAR_SECRET")  # @seen
print("done", seen)
'''

#: Every secret, and how it reached dbg.
GIVEN = {
    "BAR_SECRET": "s3cr3t-bar-value",          # start --env, secret-looking name
    "QUOTED_PASSWORD": 'pa"ss\\wo rd-42',      # start --env, escaped in JSON and repr
}
OWN = {"MY_OWN_TOKEN": "tok-own-77341"}       # dbg's own environment
ARG_URL = "postgres://user:pw5678@host/db"    # a URL password in an argument
SECRETS = [*GIVEN.values(), *OWN.values(), "pw5678", "outpw991"]


def members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read()  # type: ignore[union-attr]
                for m in tar.getmembers() if m.isfile()}


def forms(secret: str) -> list[bytes]:
    """The secret as it is, and as JSON or a Python repr would escape it."""
    return sorted({secret.encode(), json.dumps(secret)[1:-1].encode(),
                   repr(secret)[1:-1].encode()}, key=len)


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_no_secret_given_in_any_form_is_in_any_file_of_the_report(
        dbg: Dbg, tmp_path: Path, backend: str) -> None:
    require_backend(backend)
    dbg.env.update(OWN)
    dbg.env["DISABLE_AUTH"] = "true"  # a setting: JSON's own `true` stays
    program = dbg.cwd / "tell.py"
    program.write_text(PROGRAM)
    seen = PROGRAM.splitlines().index(next(ln for ln in PROGRAM.splitlines()
                                           if "@seen" in ln)) + 1
    env = [a for name, value in GIVEN.items() for a in ("--env", f"{name}={value}")]
    snap = dbg.json("start", "--backend", backend, *env, "--break", f"tell.py:{seen + 1}",
                    "--run", str(program), ARG_URL)
    assert snap["ok"], snap
    # The secrets really went through dbg: in the program's locals and output.
    assert GIVEN["BAR_SECRET"] in str(snap["locals"]), snap
    output = dbg.output()
    for secret in SECRETS:
        assert secret in output, (secret, output)
    assert dbg.json("print", "seen")["ok"]
    dbg.json("continue")

    out = tmp_path / "reports"
    out.mkdir()
    made = dbg.json("report", "--output", str(out))
    assert made["_exit"] == 0, made
    files = members(Path(made["path"]))
    names = {name.split("/", 1)[1] for name in files}
    assert {"commands.json", "stops.json", "logs/debugger.log", "logs/daemon.log",
            "environment.txt"} <= names, names
    for name, data in files.items():
        for secret in SECRETS:
            for form in forms(secret):
                assert form not in data, (name, form)
    for name, data in files.items():
        if name.endswith(".json"):
            json.loads(data)  # still JSON, with every secret out
    text = b"\n".join(files.values()).decode()
    assert "postgres://user:<redacted>@host/db" in text
    assert "<redacted>" in next(v for k, v in files.items()
                                if k.endswith("commands.json")).decode()


def test_the_report_takes_the_tail_of_each_log_and_of_its_rotated_file(
        dbg: Dbg, tmp_path: Path) -> None:
    require_backend("pdb")
    program = dbg.cwd / "tell.py"
    program.write_text(PROGRAM)
    dbg.env.update(OWN)
    assert dbg.json("start", "--backend", "pdb", str(program), ARG_URL)["ok"]
    assert dbg.json("kill")["ok"]
    folder = dbg.home / "sessions" / "default"
    # A rotated log far over the bound, its head unlike its tail; the tail
    # holds a secret of dbg's environment.
    head = b"HEAD-LINE " * 100 + b"\n"
    tail = b"tail line " * 10 + b"\n"
    with (folder / "debugger.log.1").open("wb") as fh:
        fh.write(head * 30_000)
        fh.write(tail * 1_000 + f"leak {OWN['MY_OWN_TOKEN']} end\n".encode())
    out = tmp_path / "reports"
    out.mkdir()
    made = dbg.json("report", "--output", str(out))
    assert made["_exit"] == 0, made
    files = {name.split("/", 1)[1]: data for name, data in members(Path(made["path"])).items()}
    rotated = files["logs/debugger.log.1"]
    assert len(rotated) <= LOG_TAIL_BYTES + 200, len(rotated)
    assert rotated.startswith(b"[dbg report: the first ")
    assert rotated.rstrip().endswith(b"leak <redacted> end"), rotated[-100:]
    assert OWN["MY_OWN_TOKEN"].encode() not in rotated
    assert "logs/debugger.log" in files and "logs/daemon.log" in files
