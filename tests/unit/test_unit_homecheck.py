"""dbgcore.shared.homecheck: folders made and verified by descriptor, files opened
without following links (the user's own links here; another user's are in
tests/test_home_trust.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dbgcore.shared import homecheck


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_folders_are_made_private_from_the_home_down(tmp_path: Path) -> None:
    home = tmp_path / "home"
    homecheck.make_folders(str(home), str(home / "sessions" / "a"))
    for folder in (home, home / "sessions", home / "sessions" / "a"):
        assert mode(folder) == 0o700


def test_a_folder_of_ours_others_can_read_is_closed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o755)
    homecheck.make_folders(str(home), str(home / "sessions"))
    assert mode(home) == 0o700


def test_without_tighten_a_readable_folder_is_left_as_it_is(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o755)
    homecheck.make_folders(str(home), tighten=False)
    assert mode(home) == 0o755


@pytest.mark.parametrize("loose", [0o777, 0o770, 0o702])
def test_a_folder_others_can_write_in_is_refused(tmp_path: Path, loose: int) -> None:
    home = tmp_path / "home"
    (home / "sessions").mkdir(parents=True)
    (home / "sessions").chmod(loose)
    with pytest.raises(homecheck.Untrusted, match=f"sessions can be written by others "
                                                  f"\\(mode {loose:o}\\)"):
        homecheck.make_folders(str(home), str(home / "sessions" / "a"))
    assert mode(home / "sessions") == loose
    assert not (home / "sessions" / "a").exists()
    assert homecheck.folders_problem(str(home), str(home / "sessions")) is not None


def test_a_link_in_the_home_is_not_followed(tmp_path: Path) -> None:
    aim = tmp_path / "aim"
    aim.mkdir()
    aim.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "sessions").symlink_to(aim)
    with pytest.raises(homecheck.Untrusted, match="sessions is a symbolic link"):
        homecheck.make_folders(str(home), str(home / "sessions" / "a"))
    assert mode(aim) == 0o755 and list(aim.iterdir()) == []
    problem = homecheck.folders_problem(str(home), str(home / "sessions" / "a"))
    assert problem == f"{home / 'sessions'} is a symbolic link"


def test_a_file_in_a_folders_place_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "sessions").write_text("")
    with pytest.raises(homecheck.Untrusted, match="sessions is not a folder"):
        homecheck.make_folders(str(home), str(home / "sessions"))


def test_a_log_is_not_opened_through_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    link = tmp_path / "daemon.log"
    link.symlink_to(victim)
    with pytest.raises(homecheck.Untrusted, match=r"daemon\.log is a symbolic link"):
        homecheck.open_log(str(link))
    with pytest.raises(homecheck.Untrusted):
        homecheck.read_file(str(link))
    assert victim.read_text() == "keep\n"


def test_a_new_log_is_private(tmp_path: Path) -> None:
    fd = homecheck.open_log(str(tmp_path / "daemon.log"))
    os.close(fd)
    assert mode(tmp_path / "daemon.log") == 0o600


def test_a_file_others_can_write_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    path.write_text("{}")
    path.chmod(0o666)
    with pytest.raises(homecheck.Untrusted, match="can be written by others"):
        homecheck.read_file(str(path))


def test_a_link_at_the_temporary_name_is_replaced_not_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    temporary = tmp_path / "status.tmp"
    temporary.symlink_to(victim)
    homecheck.write_file(str(tmp_path / "status.json"), b"{}", str(temporary))
    assert victim.read_text() == "keep\n"
    assert (tmp_path / "status.json").read_bytes() == b"{}"
    assert mode(tmp_path / "status.json") == 0o600
    assert not temporary.exists() and not temporary.is_symlink()
