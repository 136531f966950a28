"""Where dbg keeps its files: DBG_HOME, private directories, session names,
and socket paths that fit the Unix limit."""

from __future__ import annotations

import os
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dbgcore.shared import paths
from dbgcore.shared.errors import UsageError

#: sun_path holds 108 bytes on Linux, including the terminating NUL.
SUN_PATH_MAX = 107


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "dbg-home"
    monkeypatch.setenv("DBG_HOME", str(home))
    return home


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A umask that hides nothing, so only dbg's own chmod makes a dir private."""
    old = os.umask(0)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_dbg_home_is_honoured(home: Path) -> None:
    assert paths.dbg_home() == home
    assert paths.store_path() == home / "store.sqlite3"
    assert paths.session_dir("work") == home / "sessions" / "work"


def test_relative_and_tilde_dbg_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DBG_HOME", "rel/home")
    assert paths.dbg_home() == tmp_path / "rel" / "home"
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("DBG_HOME", "~/dbg")
    assert paths.dbg_home() == tmp_path / "user" / "dbg"


def test_default_home_follows_xdg_state_home(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DBG_HOME", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert paths.dbg_home() == tmp_path / "state" / "dbg"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert paths.dbg_home() == tmp_path / "user" / ".local" / "state" / "dbg"


def test_directories_are_private(home: Path, open_umask: None) -> None:
    paths.store_path()
    paths.sessions_dir()
    assert mode(home) == 0o700
    assert mode(home / "sessions") == 0o700


def test_private_dir_tightens_an_existing_open_dir(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    loose.chmod(0o755)
    assert paths.private_dir(loose) == loose
    assert mode(loose) == 0o700


@pytest.mark.parametrize("name", ["default", "a", "A.b-c_9", "1st", "x" * 64,
                                  # a child process's session: PARENT/NAME-PID
                                  "a/b", "default/pool-4242", "p/c-1/g-2"])
def test_good_session_names(name: str) -> None:
    assert paths.check_session_name(name) == name


@pytest.mark.parametrize("name", [
    "", ".", "..", "../etc", "a/..", "a/", "/b", "a//b", "a/.b", "-rf", ".hidden", "_x",
    "a b", "x" * 65, "a/" + "x" * 65, "tab\t", "new\nline", "trailing\n", "é", "nul\0",
])
def test_bad_session_names(name: str) -> None:
    with pytest.raises(UsageError) as info:
        paths.check_session_name(name)
    assert info.value.exit_code == 2
    assert info.value.hint


@given(st.text(max_size=80))
def test_a_valid_name_is_one_plain_path_component(name: str) -> None:
    try:
        paths.check_session_name(name)
    except UsageError:
        return
    # A child's session (PARENT/CHILD) has a folder beside its parent's.
    folder = name.replace("/", paths.CHILD_SEP_IN_DIR)
    assert Path(folder).name == folder
    assert name.isascii() and name.isprintable() and " " not in name
    for part in name.split("/"):
        assert part not in (".", "..")
        assert 0 < len(part) <= 64


def test_short_socket_path_is_in_the_session_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    # A home of its own, short whatever pytest's temporary folders are
    # called (a worker's are longer).
    import shutil
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="dh", dir="/tmp"))
    try:
        monkeypatch.setenv("DBG_HOME", str(home))
        assert paths.socket_path("default") == home / "sessions" / "default" / "daemon.sock"
    finally:
        shutil.rmtree(home)


def test_long_socket_path_moves_to_a_short_private_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    monkeypatch.setenv("DBG_HOME", str(deep))
    name = "s" * 64
    sock = paths.socket_path(name)
    assert len(str(paths.session_dir(name) / "daemon.sock")) > SUN_PATH_MAX
    assert len(str(sock).encode()) <= SUN_PATH_MAX
    assert sock.parent == Path("/tmp") / f"dbg-{os.getuid()}"
    assert mode(sock.parent) == 0o700
    # Stable for one session, distinct between sessions and between homes.
    assert paths.socket_path(name) == sock
    assert paths.socket_path("t" * 64) != sock
    monkeypatch.setenv("DBG_HOME", str(deep) + "2")
    assert paths.socket_path(name) != sock

    # And a real socket can be bound there.
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(sock))
    finally:
        server.close()
        sock.unlink(missing_ok=True)


def test_socket_path_limit_counts_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Short in characters, too long in bytes: the kernel counts bytes.
    with tempfile.TemporaryDirectory(dir="/tmp") as short:
        base = f"{short}/x"
        room = 100 - len(base) - len("/sessions/default/daemon.sock")
        monkeypatch.setenv("DBG_HOME", base + "é" * room)
        assert len(str(paths.session_dir("default") / "daemon.sock")) <= 100
        sock = paths.socket_path("default")
        assert len(os.fsencode(sock)) <= SUN_PATH_MAX
        server = socket.socket(socket.AF_UNIX)
        try:
            server.bind(str(sock))
        finally:
            server.close()
            sock.unlink(missing_ok=True)


def test_session_with_a_long_dbg_home_works_end_to_end(dbg: Any, target: Any,
                                                        pdb_ready: None) -> None:
    long_home = dbg.home.parent / ("h" * 90)
    dbg.env["DBG_HOME"] = str(long_home)
    cart = target("cart.py")
    started = dbg.json("-s", "long-name-session", "start", "--backend", "pdb", str(cart.path))
    assert started["ok"] is True, started
    status = dbg.json("-s", "long-name-session", "status")
    assert status["ok"] is True, status
    assert dbg("-s", "long-name-session", "kill").code == 0
    assert (long_home / "sessions" / "long-name-session").is_dir()


def test_user_and_project_config_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert paths.user_config_file() == tmp_path / "cfg" / "dbg" / "backends.yaml"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert paths.user_config_file() == tmp_path / "user" / ".config" / "dbg" / "backends.yaml"

    deep = tmp_path / "p" / "q" / "r"
    deep.mkdir(parents=True)
    assert paths.project_config_file(deep) is None or not str(
        paths.project_config_file(deep)).startswith(str(tmp_path))
    # A .dbg folder without the file does not count.
    (tmp_path / "p" / "q" / ".dbg").mkdir()
    found = tmp_path / "p" / ".dbg" / "backends.yaml"
    found.parent.mkdir()
    found.write_text("backends: {}\n")
    assert paths.project_config_file(deep) == found
    monkeypatch.chdir(deep)
    assert paths.project_config_file() == found


@given(st.text(alphabet="ab-._Z9 !é/", min_size=0, max_size=70))
def test_the_fast_path_finds_sockets_where_paths_puts_them(name: str) -> None:
    """dbgcore.entry repeats the session-name rule and the socket path (it may
    not import dbgcore.shared.paths, which costs more than the call it serves)."""
    from dbgcore import entry
    from dbgcore.shared import client

    saved = os.environ.get("DBG_HOME")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DBG_HOME"] = tmp
        try:
            try:
                expected: str | None = str(paths.socket_path(name))
            except UsageError:
                expected = None
            fast = entry._socket_path(name)
            # The fast path only gives up on a path it could use (too long).
            if fast is not None or expected is None:
                assert fast == expected, name
            else:
                assert len(os.fsencode(os.path.join(tmp, "sessions", name, "daemon.sock"))) \
                    > entry._MAX_SOCKET_PATH
        finally:
            if saved is None:
                del os.environ["DBG_HOME"]
            else:
                os.environ["DBG_HOME"] = saved
    assert entry._MAX_SOCKET_PATH == paths._MAX_SOCKET_PATH
    assert entry._ANSWER_MARGIN == client.ANSWER_MARGIN


def test_the_fast_paths_copies_of_constants_are_their_modules() -> None:
    """dbgcore.entry imports none of the modules whose values it copies."""
    from dbgcore import entry
    from dbgcore.ops.table import builtin_table
    from dbgcore.shared import procutil
    from dbgcore.start import spawn

    assert entry._DAEMON_START_TIMEOUT == spawn.DAEMON_START_TIMEOUT
    assert (entry._STOP_CHECK, entry._STOPPED_GRACE) == (procutil.STOP_CHECK,
                                                         procutil.STOPPED_GRACE)
    starts = {word for op in builtin_table() if op.send == "start"
              for word in (op.path[0], *op.aliases)}
    assert set(entry._STARTS) == starts
