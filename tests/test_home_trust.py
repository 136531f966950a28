"""dbg trusts nothing in its home it did not make (issue 38, item 1).

Another user (uid 65534, through setpriv) plants a home, links and a
status file naming their own process; dbg, run as the user of the suite,
must refuse in one line, follow no link, and signal no process it cannot
tell is its own. The short socket folder (/tmp/dbg-UID) is raced in a
private mount namespace with its own /tmp, so that the /tmp/dbg-UID other
tests on the machine use is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dbgcore.shared import procutil
from dbgcore.testing import DBG, Dbg, Result, require

NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
FULL_CLI = {"DBG_NO_FAST_PATH": "1"}


@pytest.fixture(autouse=True)
def _as_another_user() -> None:
    require(os.geteuid() == 0 and shutil.which("setpriv") is not None,
            "planting as another user needs root and setpriv")


def assert_refused(result: Result, *words: str, code: int = 2) -> None:
    """One line on stderr, nothing on stdout, no traceback."""
    assert result.code == code, result
    assert result.out == "", result
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result
    assert "Traceback" not in result.err, result
    for word in words:
        assert word in result.err, (word, result.err)


def as_nobody(*argv: str, stdin: str = "") -> None:
    subprocess.run([*AS_NOBODY, *argv], input=stdin, text=True, check=True, timeout=30)


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder like /tmp (sticky, anyone may make things in it) that both
    users reach; pytest's own are private to root."""
    base = Path(tempfile.mkdtemp(prefix="dbg-trust-", dir="/tmp"))
    base.chmod(0o1777)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def foreign_process() -> Iterator[tuple[int, int]]:
    """A live process of uid 65534, leading its own process group: its pid
    and its real start time."""
    proc = subprocess.Popen([*AS_NOBODY, "sleep", "600"], start_new_session=True)
    try:
        # setpriv runs as root until it has changed its uid.
        deadline = time.monotonic() + 30
        while procutil.owner_of(proc.pid) != NOBODY and time.monotonic() < deadline:
            time.sleep(0.01)
        started = procutil.start_time(proc.pid)
        assert started is not None and procutil.owner_of(proc.pid) == NOBODY
        yield proc.pid, started
    finally:
        proc.kill()
        proc.wait()


def status_naming(home: Path, child: tuple[int, int], daemon: int = 999999) -> str:
    pid, started = child
    return json.dumps({
        "pid": daemon, "start_time": 1, "session": "default",
        "socket": str(home / "sessions" / "default" / "daemon.sock"),
        "children": [{"pid": pid, "start_time": started, "pgid": pid, "role": "pdb"}]})


def runner(home: Path, dbg: Dbg) -> Dbg:
    return Dbg(home, dbg.cwd)


def test_a_home_another_user_planted_is_refused_and_their_process_lives(
        dbg: Dbg, target: Any, shared: Path, foreign_process: tuple[int, int]) -> None:
    home = shared / "home"
    folder = home / "sessions" / "default"
    as_nobody("mkdir", "-p", str(folder))
    as_nobody("sh", "-c", f"cat > {folder / 'status.json'}",
              stdin=status_naming(home, foreign_process))
    cart = target("cart.py")
    planted = runner(home, dbg)
    for argv in (["status"], ["sessions"], ["print", "1"], ["kill"],
                 ["start", "--backend", "pdb", str(cart.path)]):
        for env in ({}, FULL_CLI):
            assert_refused(planted(*argv, env=env), str(home), "belongs to nobody (uid 65534)",
                           "set DBG_HOME to a folder of yours")
            assert procutil.alive(*foreign_process), (argv, env)
    assert (folder / "status.json").exists()
    assert not (home / "store.sqlite3").exists()
    doctor = planted("doctor")
    assert doctor.code == 1 and "FAIL home" in doctor.out and "nobody" in doctor.out, doctor


def test_a_status_file_of_ours_naming_another_users_process_does_not_kill_it(
        dbg: Dbg, foreign_process: tuple[int, int]) -> None:
    # Without the home to blame: the pid is acted on only if it is ours.
    folder = dbg.home / "sessions" / "default"
    folder.mkdir(parents=True, mode=0o700)
    (folder / "status.json").write_text(status_naming(dbg.home, foreign_process))
    result = dbg("status")
    assert result.code == 1 and "died" in result.err and "Traceback" not in result.err, result
    assert procutil.alive(*foreign_process)


def test_a_live_process_of_ours_is_not_taken_for_the_daemon(dbg: Dbg) -> None:
    # A status file naming one of the user's processes (its true start
    # time) as the daemon: it is not the session's daemon, which holds the
    # session's files open.
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                 start_new_session=True)
    try:
        started = procutil.start_time(bystander.pid)
        folder = dbg.home / "sessions" / "default"
        folder.mkdir(parents=True, mode=0o700)
        (folder / "status.json").write_text(json.dumps({
            "pid": bystander.pid, "start_time": started, "session": "default",
            "socket": str(folder / "daemon.sock"), "children": []}))
        result = dbg("status")
        assert result.code == 1 and f"daemon (pid {bystander.pid}) died" in result.err, result
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


@pytest.mark.parametrize("made_by", ["nobody", "the user"])
def test_a_linked_home_is_not_followed(dbg: Dbg, target: Any, shared: Path,
                                       made_by: str) -> None:
    aim, link = shared / "aim", shared / "link"
    if made_by == "nobody":
        as_nobody("mkdir", "-m", "755", str(aim))
        as_nobody("ln", "-s", str(aim), str(link))
    else:
        aim.mkdir()
        aim.chmod(0o755)
        link.symlink_to(aim)
    cart = target("cart.py")
    linked = runner(link, dbg)
    for env in ({}, FULL_CLI):
        assert_refused(linked("start", "--backend", "pdb", str(cart.path), env=env),
                       f"{link} is a symbolic link")
        assert_refused(linked("status", env=env), f"{link} is a symbolic link")
    assert stat.S_IMODE(aim.stat().st_mode) == 0o755 and list(aim.iterdir()) == []


def test_a_linked_sessions_folder_is_not_followed(dbg: Dbg, target: Any, shared: Path) -> None:
    aim = shared / "theirs"
    as_nobody("mkdir", "-m", "755", str(aim))
    dbg.home.mkdir(mode=0o700)
    (dbg.home / "sessions").symlink_to(aim)
    cart = target("cart.py")
    for env in ({}, FULL_CLI):
        assert_refused(dbg("start", "--backend", "pdb", str(cart.path), env=env),
                       "sessions is a symbolic link")
        assert_refused(dbg("sessions", env=env), "sessions is a symbolic link")
    assert stat.S_IMODE(aim.stat().st_mode) == 0o755 and list(aim.iterdir()) == []


@pytest.mark.parametrize("log", ["daemon.log", "debugger.log"])
def test_a_linked_log_is_not_appended_to(dbg: Dbg, target: Any, tmp_path: Path,
                                         log: str) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    folder = dbg.home / "sessions" / "default"
    folder.mkdir(parents=True, mode=0o700)
    (folder / log).symlink_to(victim)
    cart = target("cart.py")
    for env in ({}, FULL_CLI):
        assert_refused(dbg("start", "--backend", "pdb", str(cart.path), env=env),
                       f"{folder / log} is a symbolic link")
    assert victim.read_text() == "keep me\n"


def test_a_linked_log_in_a_planted_home_is_not_appended_to(
        dbg: Dbg, target: Any, shared: Path) -> None:
    home = shared / "home"
    folder = home / "sessions" / "default"
    victim = shared / "victim.txt"
    victim.write_text("keep me\n")
    as_nobody("mkdir", "-p", str(folder))
    as_nobody("ln", "-s", str(victim), str(folder / "daemon.log"))
    as_nobody("ln", "-s", str(victim), str(folder / "debugger.log"))
    cart = target("cart.py")
    assert_refused(runner(home, dbg)("start", "--backend", "pdb", str(cart.path)),
                   "belongs to nobody")
    assert victim.read_text() == "keep me\n"


def test_a_linked_status_tmp_is_not_written_through(dbg: Dbg, target: Any,
                                                    tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    folder = dbg.home / "sessions" / "default"
    folder.mkdir(parents=True, mode=0o700)
    (folder / "status.tmp").symlink_to(victim)
    cart = target("cart.py")
    assert dbg.json("start", "--backend", "pdb", str(cart.path))["ok"]
    assert dbg.json("print", "6 * 7")["value"] == "42"
    assert victim.read_text() == "keep me\n"
    assert not (folder / "status.tmp").is_symlink()
    assert stat.S_IMODE((folder / "status.json").stat().st_mode) == 0o600


def test_a_linked_store_is_refused(dbg: Dbg, target: Any, tmp_path: Path) -> None:
    victim = tmp_path / "victim.sqlite3"
    victim.write_bytes(b"")
    dbg.home.mkdir(mode=0o700)
    (dbg.home / "store.sqlite3").symlink_to(victim)
    assert_refused(dbg("hits"), "store.sqlite3 is a symbolic link")
    assert victim.read_bytes() == b""


@pytest.mark.parametrize("which", ["home", "session folder"])
def test_a_folder_others_can_write_in_is_refused(dbg: Dbg, target: Any, which: str) -> None:
    cart = target("cart.py")
    folder = dbg.home / "sessions" / "default"
    folder.mkdir(parents=True, mode=0o700)
    loose = dbg.home if which == "home" else folder
    loose.chmod(0o777)
    for argv in (["status"], ["print", "1"], ["start", "--backend", "pdb", str(cart.path)]):
        for env in ({}, FULL_CLI):
            assert_refused(dbg(*argv, env=env), f"{loose} can be written by others (mode 777)")
    assert stat.S_IMODE(loose.stat().st_mode) == 0o777
    doctor = dbg("doctor")
    assert doctor.code == 1 and "can be written by others" in doctor.out, doctor


# -- the short socket folder, in a mount namespace of its own -----------------

_IN_NAMESPACE = """
import json, os, shutil, subprocess, sys, time, traceback
from pathlib import Path

NOBODY = 65534
AS_NOBODY = {as_nobody!r}
DBG = {dbg!r}
short = f"/tmp/dbg-{{os.geteuid()}}"
home = "/tmp/" + "h" * 60 + "/" + "o" * 60
work = Path("/tmp/work")
work.mkdir()
shutil.copy({cart!r}, work / "cart.py")
env = {{**os.environ, "DBG_HOME": home, "XDG_CONFIG_HOME": "/tmp/config"}}
env.pop("DBG_SESSION", None)
out = {{}}


def remove(path):
    try:
        os.unlink(path)
    except IsADirectoryError:
        shutil.rmtree(path, ignore_errors=True)
    except FileNotFoundError:
        pass


def dbg(*argv, extra=None):
    done = subprocess.run([*DBG, *argv], capture_output=True, text=True, timeout=120,
                          cwd=work, env={{**env, **(extra or {{}})}}, stdin=subprocess.DEVNULL)
    return [done.returncode, done.stdout, done.stderr]


def race(theirs):
    sys.path.insert(0, {root!r})
    os.environ.update(env)
    from dbgcore.shared import paths
    from dbgcore.shared.errors import UsageError
    tries, refused, wrong, made = int(sys.argv[2]), [], [], 0
    for _ in range(tries):
        remove(short)
        try:
            sock = paths.socket_path("default")
        except UsageError as exc:
            refused.append(exc.message)
            continue
        except BaseException:
            wrong.append(traceback.format_exc())
            continue
        facts = os.lstat(sock.parent)
        if not (os.path.isdir(sock.parent) and not os.path.islink(sock.parent)
                and facts.st_uid == os.geteuid() and facts.st_mode & 0o777 == 0o700):
            wrong.append(f"not a private folder of ours: {{sock.parent}}")
        made += 1
    starts = []
    for _ in range(int(sys.argv[3])):
        remove(short)
        started = dbg("start", "--backend", "pdb", "cart.py")
        starts.append(started)
        dbg("kill")
    facts = os.stat(theirs)
    out.update(refused=refused[:20], refusals=len(refused), wrong=wrong[:5], made=made,
               starts=starts, theirs=[facts.st_uid, facts.st_mode & 0o7777,
                                      sorted(os.listdir(theirs))])


if sys.argv[1] == "foreign":
    subprocess.run([*AS_NOBODY, "mkdir", "-m", "700", short], check=True)
    out["fast"] = dbg("start", "--backend", "pdb", "cart.py")
    out["full"] = dbg("start", "--backend", "pdb", "cart.py", extra={{"DBG_NO_FAST_PATH": "1"}})
else:
    # The attacker's own folder, and a loop that keeps putting a link to
    # it (or nothing) where the user's short folder goes, for a while each
    # (random: to meet the gaps between the user's steps).
    theirs = "/tmp/theirs"
    subprocess.run([*AS_NOBODY, "mkdir", "-m", "755", theirs], check=True)
    racer = subprocess.Popen([*AS_NOBODY, {python!r}, "-c", (
        "import os, random\\n"
        "while True:\\n"
        "    try: os.symlink({{theirs!r}}, {{short!r}})\\n"
        "    except OSError: pass\\n"
        "    for _ in range(random.randrange(300)): pass\\n"
        "    try: os.unlink({{short!r}})\\n"
        "    except OSError: pass\\n"
        "    for _ in range(random.randrange(300)): pass\\n"
        ).format(theirs=theirs, short=short)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        race(theirs)
    finally:
        racer.kill()
        racer.wait()
print(json.dumps(out))
"""


def in_own_tmp(*args: str) -> Any:
    """Run the script above in a mount namespace whose /tmp is a fresh
    tmpfs (sticky, 1777, as /tmp is): its /tmp/dbg-UID is no one else's."""
    require(shutil.which("unshare") is not None, "unshare is not installed")
    root = Path(__file__).resolve().parents[1]
    # The attacker's Python: one that uid 65534 can run (the suite's may be
    # under /root).
    python = next((p for p in ("/usr/bin/python3", "/usr/local/bin/python3")
                   if os.access(p, os.X_OK)), None)
    require(python is not None, "no system python3 for the racing user")
    script = _IN_NAMESPACE.format(as_nobody=AS_NOBODY, dbg=DBG, root=str(root), python=python,
                                  cart=str(root / "tests" / "targets" / "cart.py"))
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c",
         'mount -t tmpfs -o mode=1777 dbg-trust /tmp && exec "$@"',
         "sh", sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    require(done.returncode == 0 or ("unshare failed" not in done.stderr
                                     and "mount:" not in done.stderr),
            f"no mount namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done
    return json.loads(done.stdout.splitlines()[-1])


def test_a_short_socket_folder_made_first_by_someone_else_is_refused() -> None:
    found = in_own_tmp("foreign")
    for way in ("fast", "full"):
        code, out, err = found[way]
        assert code == 2 and out == "" and err.count("\n") == 1, (way, found[way])
        assert "Traceback" not in err and "exited at start" not in err, (way, err)
        assert "/tmp/dbg-0, belongs to nobody (uid 65534)" in err, (way, err)


def test_the_short_socket_folder_is_made_without_a_race() -> None:
    found = in_own_tmp("race", "300", "4")
    assert found["wrong"] == [], found["wrong"]
    # The attacker's folder was never chmodded nor written in.
    assert found["theirs"] == [NOBODY, 0o755, []], found["theirs"]
    assert found["made"] + found["refusals"] == 300
    assert all("/tmp/dbg-0, is a symbolic link" in why or "kept changing" in why
               for why in found["refused"]), found["refused"]
    for code, _out, err in found["starts"]:
        assert "Traceback" not in err and "exited at start" not in err, err
        assert code == 0 or (code == 2 and err.count("\n") == 1 and "/tmp/dbg-0" in err), err
