"""How the phpdbg backend reads phpdbg's answers (plugins/dbg_phpdbg/replies.py):
`back`'s frames, `print opline`, and where program output ends and a stop's
report begins, over generated text."""

from __future__ import annotations

import re

from dbg_phpdbg.replies import CURRENT_RE, HIT_RE, OPLINE_RE, OUTPUT_LINE_RE, frames_of
from hypothesis import given
from hypothesis import strategies as st

NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}(->[a-z]{1,5}|::[a-z]{1,5})?", fullmatch=True)
PATHS = st.from_regex(r"/[a-z]{1,6}(/[a-z0-9 ._-]{1,8}){0,3}\.php", fullmatch=True)
#: What a PHP program may print: any line, brackets and digits included.
LINES = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)),
                max_size=30)


@given(st.lists(st.tuples(NAMES, st.text("ab=1, ()\"", max_size=12), PATHS,
                          st.integers(1, 99999)), min_size=1, max_size=6))
def test_back_gives_each_frame_its_function_file_and_line(frames: list[tuple[str, str, str,
                                                                             int]]) -> None:
    answer = "".join(f"frame #{i}: {name}({args}) at {path}:{line}\r\n"
                     for i, (name, args, path, line) in enumerate(frames))
    read = frames_of(answer)
    assert [(f.index, f.function, f.file, f.line) for f in read] == \
        [(i, name, path, line) for i, (name, _, path, line) in enumerate(frames)]
    assert [f.current for f in read] == [True] + [False] * (len(frames) - 1)


def test_back_gives_the_arguments_in_phpdbgs_words() -> None:
    frame = frames_of('frame #0: Cart->fail(other=17.325, description="a, b=c", '
                      'rest=array(2)) at /t/c.php:7\n')[0]
    assert [(a.name, a.value) for a in frame.args or []] == [
        ("$other", "17.325"), ("$description", '"a, b=c"'), ("$rest", "array(2)")]


def test_phpunit_frames_are_a_librarys() -> None:
    read = frames_of("frame #0: PHPUnit\\Framework\\Assert::fail(message=\"x\") at "
                     "/usr/share/php/PHPUnit/Framework/Assert.php:2\n"
                     "frame #1: CartTest->testDiscount() at /t/CartTest.php:19\n"
                     "frame #2: {main} at /usr/bin/phpunit:82\n")
    assert [(f.function, f.library) for f in read] == [
        ("PHPUnit\\Framework\\Assert::fail", True), ("CartTest->testDiscount", False),
        ("{main}", True)]


@given(st.integers(0, 9999), st.sampled_from(["EXT_STMT", "EXT_FCALL_END", "ASSIGN"]),
       st.sampled_from(["", "T6 = ", "V12 = "]))
def test_print_opline_gives_the_number_and_the_opcode(number: int, opcode: str,
                                                      result: str) -> None:
    found = OPLINE_RE.search(f"L0018 {number:04d} {result}{opcode} CV1($item) string(\"p\")\n")
    assert found is not None and (int(found[1]), found[2]) == (number, opcode)


@given(st.lists(LINES, max_size=5), st.integers(1, 99999), PATHS)
def test_program_lines_are_not_taken_for_the_report(printed: list[str], line: int,
                                                     path: str) -> None:
    output = "".join(f"{text}\r\n" for text in printed)
    report = (f"[Breakpoint #1 at {path}:{line}, hits: 1]\r\n>{line:05d}: $x = 1;\r\n"
              f" {line + 1:05d}: }}\r\n")
    text = output + report
    # What wait_stop hands out as output while the program runs is whole
    # lines, none of them the report's.
    taken = "".join(m.group(1) for m in OUTPUT_LINE_RE.finditer(text))
    assert report not in taken and all(piece in output for piece in taken.splitlines())
    current = list(CURRENT_RE.finditer(text))[-1]
    hit = [m for m in HIT_RE.finditer(text, 0, current.start())
           if not text[m.end():current.start()].strip()][-1]
    assert (hit["file"], int(hit["line"])) == (path, line)
    assert text[:hit.start()] == output
    assert re.sub(r"\s", "", text[current.start():]).startswith(f">{line:05d}")
