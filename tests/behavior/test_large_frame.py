"""A frame holding very large values (a 1,000,000-element list or array and a
10 MB string) answers `locals` and stops with a short answer, on the
backends where such frames are common: debugpy, pdb and gdb."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from builds import build_c

if TYPE_CHECKING:
    from conftest import Dbg

#: The benchmark's own large frames (bench/extra.py measures them).
PROGRAMS = Path(__file__).resolve().parents[2] / "bench" / "s1"

#: What P7 of the speed issue allows an answer about such a frame.
MAX_BYTES = 4096


@pytest.mark.parametrize("backend", ["debugpy", "pdb", "gdb"])
def test_locals_of_a_huge_frame_stay_short(backend: str, dbg: Dbg, tmp_path: Path,
                                            backend_ready: Callable[[str], None]) -> None:
    backend_ready(backend)
    prog = tmp_path / "prog"
    prog.mkdir()
    source = prog / ("big.c" if backend == "gdb" else "big.py")
    shutil.copy(PROGRAMS / source.name, source)
    program = build_c(source) if backend == "gdb" else source
    line = next(n for n, text in enumerate(source.read_text().splitlines(), 1) if "@big" in text)
    started = dbg("start", "--backend", backend, "--break", f"{source.name}:{line}", "--run",
                  str(program))
    assert started.code == 0, started
    assert len(started.out.encode()) <= MAX_BYTES, started.out
    for args in (["locals"], ["--json", "locals"]):
        answer = dbg(*args)
        assert answer.code == 0, answer
        assert "numbers" in answer.out and "text" in answer.out, answer.out
        assert len(answer.out.encode()) <= MAX_BYTES, (len(answer.out), answer.out[:300])
    # The session still answers (gdb used to die expanding the array).
    assert dbg("print", "numbers[999999]").out.splitlines()[-1].startswith("999999")
