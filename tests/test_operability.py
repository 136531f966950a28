"""`dbg doctor` and `dbg report`, on real DBG_HOMEs in the states an operator
meets: fresh, opened to others, a damaged store, a daemon killed under its
session; and a report that must not carry a secret."""

from __future__ import annotations

import json
import os
import signal
import stat
import tarfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from dbgcore.shared import procutil

if TYPE_CHECKING:
    from conftest import Dbg

pytestmark = pytest.mark.usefixtures("pdb_ready")


def checks(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["check"]: c for c in answer["checks"]}


def test_doctor_on_a_fresh_home_passes_and_names_every_backend(dbg: Dbg) -> None:
    answer = dbg.json("doctor")
    assert answer["_exit"] == 0 and answer["healthy"] is True, answer
    found = checks(answer)
    assert {"python", "dbg", "ptrace", "home"} <= set(found), found
    assert found["backend pdb"]["status"] == "ok"
    listed = {b["name"] for b in dbg.json("backends")["backends"]}
    assert {f"backend {n}" for n in listed} <= set(found)
    for check in answer["checks"]:
        assert check["status"] in ("ok", "warn", "fail")
        if check["status"] != "ok" and check["check"].startswith("backend "):
            assert check["fix"], check  # a missing backend says how to install it
    text = dbg("doctor")
    assert text.code == 0 and len(text.out.splitlines()) == len(answer["checks"]), text


def test_doctor_fails_on_a_home_others_can_read_and_fixes_it(dbg: Dbg) -> None:
    dbg.home.mkdir(parents=True, exist_ok=True)
    dbg.home.chmod(0o755)
    result = dbg("doctor")
    assert result.code == 1, result
    line = next(ln for ln in result.out.splitlines() if "DBG_HOME" in ln)
    assert line.startswith("FAIL") and f"chmod 700 {dbg.home}" in line, line
    fixed = dbg.json("doctor", "--fix")
    assert fixed["_exit"] == 0, fixed
    assert stat.S_IMODE(dbg.home.stat().st_mode) == 0o700


def test_doctor_finds_a_damaged_store_and_fix_keeps_it_aside(dbg: Dbg, target: Any) -> None:
    cart = target("cart.py")
    assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]
    assert dbg.json("kill")["ok"]
    store = dbg.home / "store.sqlite3"
    for extra in ("-wal", "-shm"):
        Path(f"{store}{extra}").unlink(missing_ok=True)
    store.write_bytes(b"SQLite format 3\0" + b"\xde\xad" * 4000)
    answer = dbg.json("doctor")
    assert answer["_exit"] == 1 and answer["failed"] == ["store"], answer
    assert "doctor --fix" in checks(answer)["store"]["fix"]
    assert dbg.json("doctor", "--fix")["_exit"] == 0
    kept = [p.name for p in dbg.home.glob("store.sqlite3.damaged-*")
            if not p.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1, kept
    # A fresh store: the next session records again.
    assert dbg.json("start", "--backend", "pdb", "--break", cart.loc("loop"), "--run",
                    str(cart.path))["ok"]
    assert dbg.json("hits")["hits"]


def test_doctor_finds_what_a_killed_daemon_left_and_fix_ends_it(dbg: Dbg, target: Any) -> None:
    spin = target("spin.py")
    assert dbg.json("--timeout", "0.5", "start", "--backend", "pdb", "--run",
                    str(spin.path))["ok"]
    status = json.loads((dbg.home / "sessions" / "default" / "status.json").read_text())
    children = [(c["pid"], c.get("start_time")) for c in status["children"]]
    assert children
    os.kill(status["pid"], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while procutil.alive(status["pid"], status.get("start_time")) and \
            time.monotonic() < deadline:
        time.sleep(0.05)
    answer = dbg.json("doctor")
    assert answer["_exit"] == 1 and answer["failed"] == ["session default"], answer
    detail = checks(answer)["session default"]["detail"]
    assert f"pid {status['pid']}) is gone" in detail, detail
    for pid, started in children:
        # pdb dies with its daemon; whatever did not is named.
        assert not procutil.alive(pid, started) or str(pid) in detail, detail
    assert dbg.json("doctor", "--fix")["_exit"] == 0
    assert not any(procutil.alive(pid, started) for pid, started in children)
    assert dbg.json("doctor")["_exit"] == 0


SECRETS = {"GITHUB_TOKEN": "ghp_" + "Zq8" * 12, "DB_PASSWORD": "hunter2-but-longer",
           "SESSION_COOKIE": "c00kie-value-xyz", "MISC_VALUE": "k" * 20 + "93f1a7c2b8e4d6f0a1b2"}


def test_report_bundles_the_session_and_holds_no_secret(dbg: Dbg, target: Any,
                                                        tmp_path: Path) -> None:
    dbg.env.update(SECRETS)
    dbg.env["DBG_REVEAL"] = "1"  # answers unmasked: the report must mask the logs itself
    prog = target("secrets.py")
    snap = dbg.json("start", "--backend", "pdb", "--env", "API_KEY=from-the-cli-123",
                    "--break", prog.loc("use"), "--run", str(prog.path))
    assert snap["ok"], snap
    values = {v["name"]: v["value"] for v in snap["locals"]}
    assert SECRETS["DB_PASSWORD"] in values["password"]  # the store keeps it masked
    dbg.json("continue")
    out = tmp_path / "reports"
    out.mkdir()
    made = dbg.json("report", "--output", str(out))
    assert made["_exit"] == 0, made
    path = Path(made["path"])
    assert path.parent == out and path.name.endswith(".tar.gz")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with tarfile.open(path) as tar:
        members = {m.name.split("/", 1)[1]: tar.extractfile(m).read().decode()  # type: ignore[union-attr]
                   for m in tar.getmembers() if m.isfile()}
    assert {"doctor.json", "versions.json", "environment.txt", "commands.json", "stops.json",
            "logs/daemon.log", "logs/debugger.log"} <= set(members), sorted(members)
    ops = [c["op"] for c in json.loads(members["commands.json"])]
    assert "start" in ops and "continue" in ops, ops
    assert prog.lines["use"] in [s["line"] for s in json.loads(members["stops.json"])]
    assert "GITHUB_TOKEN=<redacted>" in members["environment.txt"]
    for name, text in members.items():
        for secret in [*SECRETS.values(), "from-the-cli-123"]:
            assert secret not in text, (name, secret)
    # The text form prints where it went.
    again = dbg("report", "--output", str(out))
    assert again.code == 0 and again.out.strip().endswith(".tar.gz"), again


def test_report_of_a_session_never_run_is_one_clear_line(dbg: Dbg) -> None:
    result = dbg("report", "nobody")
    assert result.code == 2 and result.err.startswith("error: nothing recorded"), result
