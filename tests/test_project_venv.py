"""A Python program runs with its project's virtual environment (`.venv` or
`venv` beside it, up to the project's top folder) when no `--python` is
given and none is active, as an editor picks it; the answer says so.

The project is made here: a venv (without pip) whose site-packages holds a
module only it has, and, for `dbg test`, reaches pytest through the
site-packages of the Python running these tests. dbg runs from another
folder, with a PATH whose `python3` is not the venv's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from dbgcore.testing import Dbg, marked_lines, require_backend

BACKENDS = ["debugpy", "pdb"]

APP = """\
import only_here


def main():
    value = only_here.VALUE  # @use
    print(value)


main()
"""

TEST = """\
import only_here


def test_value():
    assert only_here.VALUE == 41  # @fails
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    (root / "pyproject.toml").write_text("[project]\nname = 'app'\nversion = '1'\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text(APP)
    (root / "tests").mkdir()
    (root / "tests" / "test_value.py").write_text(TEST)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")],
                   check=True, capture_output=True, timeout=120)
    site = subprocess.run([str(root / ".venv" / "bin" / "python"), "-c",
                           "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    (Path(site) / "only_here.py").write_text("VALUE = 42\n")
    ours = sysconfig.get_path("purelib")
    (Path(site) / "_dbg_test_deps.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    return root


@pytest.fixture
def plain_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose `python3` is not the venv's (and cannot import
    the project's module), with no virtual environment active; dbg itself
    is run by its path (dbgcore.testing.DBG)."""
    found = shutil.which("python3")
    assert found is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(found)
    return {"PATH": os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]),
            "VIRTUAL_ENV": "", "CONDA_PREFIX": ""}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_start_runs_with_the_projects_venv(dbg: Dbg, project: Path, backend: str,
                                              plain_path: dict[str, str]) -> None:
    require_backend(backend)
    program = project / "src" / "app.py"
    env = plain_path
    snap = dbg.json("start", "--backend", backend, "--break",
                    f"{program}:{marked_lines(program)['use']}", "--run", str(program),
                    timeout=90, env=env)
    assert snap["ok"] and snap["reason"] == "breakpoint", snap
    venv_python = str(project / ".venv" / "bin" / "python")
    assert venv_python in snap.get("note", ""), snap
    assert "project's virtual environment" in snap["note"], snap
    prefix = dbg.json("print", "__import__('sys').prefix", env=env)
    assert prefix["value"].strip("'") == str(project / ".venv"), prefix
    assert dbg.json("continue", env=env)["exit_code"] == 0
    assert dbg.output("stdout").strip() == "42"


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_active_venv_or_python_given_wins(dbg: Dbg, project: Path, backend: str,
                                             plain_path: dict[str, str]) -> None:
    require_backend(backend)
    program = project / "src" / "app.py"
    # Another environment active: its python3 runs the program (which then
    # cannot import the project's module), and nothing is said of the venv.
    active = {**plain_path, "VIRTUAL_ENV": str(Path(sys.executable).parent.parent)}
    end = dbg.json("start", "--backend", backend, "--run", "--no-catch", str(program),
                   timeout=90, env=active)
    assert end["ok"] and end["state"] == "exited" and end["exit_code"] == 1, end
    assert "virtual environment" not in end.get("note", ""), end
    assert "No module named 'only_here'" in dbg.output("stderr")
    dbg("kill")
    given = dbg.json("start", "--backend", backend, "--python", sys.executable, "--run",
                     "--no-catch", str(program), timeout=90, env=plain_path)
    assert given["exit_code"] == 1 and "virtual environment" not in given.get("note", ""), given


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_test_run_uses_the_projects_venv_and_its_pytest(dbg: Dbg, project: Path,
                                                          backend: str,
                                                          plain_path: dict[str, str]) -> None:
    require_backend(backend)
    test = project / "tests" / "test_value.py"
    snap = dbg.json("test", "--backend", backend, "--", "-q", "tests/test_value.py",
                    timeout=90, cwd=project, env=plain_path)
    assert snap["ok"] and snap["reason"] == "exception", snap
    assert (snap["location"]["file"], snap["location"]["line"]) == (
        os.path.realpath(test), marked_lines(test)["fails"]), snap
    assert "project's virtual environment" in snap.get("note", ""), snap
    assert "unittest" not in snap["note"], snap
