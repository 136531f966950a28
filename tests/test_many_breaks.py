"""`dbg start` with many breakpoints: set in one request a file (the
Backend.set_breakpoints batch), each bound and stopped at as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbgcore.testing import Dbg, require_backend


def _program(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    helper = folder / "helper.py"
    helper.write_text("def twice(n):\n    m = n * 2\n    return m\n")
    main = folder / "many.py"
    body = "".join(f"x{i} = {i}\n" for i in range(50))
    main.write_text("from helper import twice\n" + body + "print(twice(x49))\n")
    return main, helper


@pytest.mark.parametrize("backend", ["pdb", "debugpy"])
def test_start_with_many_breaks_binds_and_stops_at_all(dbg: Dbg, tmp_path: Path,
                                                       backend: str) -> None:
    require_backend(backend)
    main, helper = _program(tmp_path / "prog")
    args: list[str] = []
    for line in range(2, 52):
        args += ["--break", f"{main}:{line}"]
    args += ["--break", f"{helper}:2", "--break", f"{helper}:3"]
    snap = dbg.json("start", "--backend", backend, *args, "--run", str(main),
                    cwd=main.parent)
    assert snap["ok"] and snap["location"]["line"] == 2, snap
    listed = dbg.json("breaks")
    assert listed["ok"], listed
    bps = listed["breakpoints"]
    assert len(bps) == 52
    assert all(bp["verified"] for bp in bps), [bp for bp in bps if not bp["verified"]]
    assert sorted(bp["line"] for bp in bps if bp["file"].endswith("many.py")) == \
        list(range(2, 52))
    seen = [2]
    for _ in range(51):
        stop = dbg.json("continue")
        assert stop["ok"], stop
        seen.append(stop["location"]["line"])
    assert seen == [*range(2, 52), 2, 3]
    dbg("kill")


def test_debugpy_sends_one_set_breakpoints_a_file(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("debugpy")
    main, helper = _program(tmp_path / "prog")
    args: list[str] = []
    for line in range(2, 52):
        args += ["--break", f"{main}:{line}"]
    args += ["--break", f"{helper}:2", "--break", f"{helper}:3"]
    snap = dbg.json("start", "--backend", "debugpy", *args, "--run", str(main),
                    cwd=main.parent)
    assert snap["ok"], snap
    logs = list(dbg.home.rglob("debugger.log*"))
    assert logs, list(dbg.home.rglob("*"))
    sent = [line for log in logs for line in log.read_text(errors="replace").splitlines()
            if "-->" in line
            and '"setBreakpoints"' in line]
    assert len([s for s in sent if "many.py" in s]) == 1, sent
    assert len([s for s in sent if "helper.py" in s]) == 1, sent
    dbg("kill")


def test_bench_breaks_runs_small() -> None:
    require_backend("pdb")
    import subprocess
    import sys

    bench = Path(__file__).parent.parent / "bench" / "breaks.py"
    done = subprocess.run([sys.executable, str(bench), "--small", "--backends", "pdb"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "pdb" in done.stdout and "10 breakpoints" in done.stdout, done.stdout
