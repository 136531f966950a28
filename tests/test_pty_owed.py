"""A console debugger's answers still owed after a timeout are read before the
next command's: one owed answer (a slow command), or several (commands typed
together, as jdb's backend types `locals` and `where` at a stop). Driven on a
small real console program that answers each line after a prompt."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dbgcore.transport.ptydriver import PtyDriver, PtyTimeout
from dbgcore.transport.translog import TransLog

#: Answers each line with "said LINE" after sleeping as long as a line
#: "slow SECONDS" asks, then prints its prompt again.
CONSOLE = r"""
import sys, time
while True:
    sys.stdout.write("(con) ")
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        break
    line = line.strip()
    if line.startswith("slow "):
        time.sleep(float(line.split()[1]))
    sys.stdout.write("said " + line + "\n")
"""

PROMPT = re.compile(r"\(con\) ")


@pytest.fixture
def console(tmp_path: Path) -> Iterator[PtyDriver]:
    driver = PtyDriver([sys.executable, "-c", CONSOLE], PROMPT, TransLog(tmp_path / "log"))
    driver.spawn()
    driver.expect([], 10.0)
    try:
        yield driver
    finally:
        driver.close(grace=1.0)


def answer(match_before: str) -> str:
    return match_before.replace("\r\n", "\n").strip()


def test_one_owed_answer_is_read_before_the_next(console: PtyDriver) -> None:
    with pytest.raises(PtyTimeout):
        console.exchange("slow 0.5", 0.05)
    assert console.owes_prompt
    settled = console.settle([], 10.0)
    assert settled is not None and answer(settled.before) == "said slow 0.5"
    assert not console.owes_prompt
    assert answer(console.exchange("next", 10.0).before) == "said next"


def test_two_owed_answers_are_both_read_before_the_next(console: PtyDriver) -> None:
    console.send_line("slow 0.5")
    console.send_line("second")
    with pytest.raises(PtyTimeout):
        console.expect([], 0.05)
    console.owed = 2
    settled = console.settle([], 10.0)
    # The last owed answer is the one returned; neither is left for "next".
    assert settled is not None and answer(settled.before).endswith("said second")
    assert not console.owes_prompt
    assert answer(console.exchange("next", 10.0).before) == "said next"
