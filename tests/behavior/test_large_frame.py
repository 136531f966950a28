"""A frame holding very large values (a 1,000,000-element list or array and a
10 MB string) answers `locals` and stops with a short answer, on the
backends where such frames are common: debugpy, pdb and gdb."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from builds import build_c

if TYPE_CHECKING:
    from conftest import Dbg

PY = '''\
def hold():
    numbers = list(range(1_000_000))
    text = "x" * 10_000_000
    return len(numbers) + len(text)  # here


print(hold())
'''

C = '''\
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    int numbers[1000000];
    for (int i = 0; i < 1000000; i++)
        numbers[i] = i;
    char *text = malloc(10000001);
    memset(text, 'x', 10000000);
    text[10000000] = '\\0';
    printf("%d %zu\\n", numbers[999999], strlen(text)); // here
    free(text);
    return 0;
}
'''

#: What P7 of the speed issue allows an answer about such a frame.
MAX_BYTES = 4096


@pytest.mark.parametrize("backend", ["debugpy", "pdb", "gdb"])
def test_locals_of_a_huge_frame_stay_short(backend: str, dbg: Dbg, tmp_path: Path,
                                            backend_ready: Callable[[str], None]) -> None:
    backend_ready(backend)
    prog = tmp_path / "prog"
    prog.mkdir()
    source = prog / ("big.c" if backend == "gdb" else "big.py")
    source.write_text(C if backend == "gdb" else PY)
    program = build_c(source) if backend == "gdb" else source
    line = next(n for n, text in enumerate(source.read_text().splitlines(), 1) if "here" in text)
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
