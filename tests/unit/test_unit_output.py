"""OutputBuffer: the debuggee's output, paged by cursor, filtered by stream,
bounded in bytes, safe to fill and read from several threads."""

from __future__ import annotations

import threading
from typing import Any

from dbgcore.transport.outputbuffer import OutputBuffer


def texts(page: dict[str, Any]) -> list[str]:
    return [c["text"] for c in page["chunks"]]


def read_all(buf: OutputBuffer, since: int = 0, **kwargs: Any) -> tuple[list[str], int]:
    """Page through everything after ``since``; return the texts and the last cursor."""
    got: list[str] = []
    while True:
        page = buf.read(since, **kwargs)
        got += texts(page)
        assert page["cursor"] >= since
        since = page["cursor"]
        if not page["more"]:
            return got, since


def test_cursor_paging() -> None:
    buf = OutputBuffer()
    assert buf.read() == {"chunks": [], "cursor": 0, "more": False, "dropped": False}
    for i in range(5):
        buf.append("stdout", f"line {i}\n")
    page = buf.read()
    assert texts(page) == [f"line {i}\n" for i in range(5)]
    assert [c["seq"] for c in page["chunks"]] == [1, 2, 3, 4, 5]
    assert (page["cursor"], page["more"], page["dropped"]) == (5, False, False)
    assert buf.cursor == 5

    # Reading from the cursor gives only what came later, and nothing twice.
    assert buf.read(since=5)["chunks"] == []
    buf.append("stdout", "later\n")
    page = buf.read(since=5)
    assert texts(page) == ["later\n"]
    assert page["cursor"] == 6
    assert texts(buf.read(since=3)) == ["line 3\n", "line 4\n", "later\n"]


def test_empty_text_is_not_a_chunk() -> None:
    buf = OutputBuffer()
    buf.append("stdout", "")
    assert buf.cursor == 0


def test_limit_sets_more_and_pages_resume_at_the_cursor() -> None:
    buf = OutputBuffer()
    for i in range(10):
        buf.append("stdout", f"{i}")
    page = buf.read(limit=3)
    assert texts(page) == ["0", "1", "2"]
    assert (page["cursor"], page["more"]) == (3, True)
    page = buf.read(since=page["cursor"], limit=3)
    assert texts(page) == ["3", "4", "5"]
    assert read_all(buf, limit=3) == ([str(i) for i in range(10)], 10)
    # Exactly `limit` chunks left is not "more".
    assert buf.read(since=7, limit=3)["more"] is False


def test_limit_below_one_still_makes_progress() -> None:
    buf = OutputBuffer()
    buf.append("stdout", "a")
    buf.append("stdout", "b")
    assert read_all(buf, limit=0) == (["a", "b"], 2)


def test_categories_filter() -> None:
    buf = OutputBuffer()
    for i in range(6):
        buf.append("stderr" if i % 2 else "stdout", f"{i}")
    assert texts(buf.read(categories={"stdout"})) == ["0", "2", "4"]
    assert texts(buf.read(categories={"stderr"})) == ["1", "3", "5"]
    assert texts(buf.read(categories={"stdout", "stderr"})) == [str(i) for i in range(6)]
    assert buf.read(categories={"console"})["chunks"] == []
    # Paging one stream with a limit neither skips nor repeats its chunks.
    assert read_all(buf, categories={"stderr"}, limit=1) == (["1", "3", "5"], 6)
    # The cursor covers the other streams' chunks too: nothing new comes back.
    assert buf.read(since=6, categories={"stdout"})["chunks"] == []


def test_bounded_in_bytes_and_reader_told_what_it_missed() -> None:
    buf = OutputBuffer(max_bytes=100)
    for i in range(30):
        buf.append("stdout", f"{i:09d}\n")  # 10 bytes each
    page = buf.read()
    held = "".join(texts(page))
    assert len(held.encode()) <= 100
    assert texts(page)[-1] == "000000029\n", "the newest output is kept"
    assert page["dropped"] is True
    first = page["chunks"][0]["seq"]
    assert first == 21
    # A reader whose cursor is past the dropped chunks missed nothing.
    assert buf.read(since=first - 1)["dropped"] is False
    assert buf.read(since=first - 2)["dropped"] is True


def test_bound_counts_bytes_not_characters() -> None:
    buf = OutputBuffer(max_bytes=100)
    for _ in range(30):
        buf.append("stdout", "é" * 10)  # 10 characters, 20 bytes
    held = "".join(texts(buf.read()))
    assert 0 < len(held.encode("utf-8")) <= 100


def test_one_chunk_larger_than_the_bound_keeps_its_tail() -> None:
    buf = OutputBuffer(max_bytes=100)
    buf.append("stdout", "x" * 50 + "y" * 100)
    page = buf.read()
    assert texts(page) == ["y" * 100]
    buf = OutputBuffer(max_bytes=100)
    buf.append("stdout", "x" + "é" * 100)
    (text,) = texts(buf.read())
    assert len(text.encode("utf-8")) <= 100
    assert text == "é" * len(text), "no half-character at the cut"


def test_writers_and_a_paging_reader_in_threads() -> None:
    buf = OutputBuffer(max_bytes=1 << 24)
    writers, per_writer = 8, 400
    done = threading.Event()
    seen: list[dict[str, Any]] = []

    def write(n: int) -> None:
        for i in range(per_writer):
            buf.append("stdout" if n % 2 else "stderr", f"{n}:{i}\n")

    def read() -> None:
        since = 0
        while True:
            finished = done.is_set()
            page = buf.read(since, limit=37)
            seen.extend(page["chunks"])
            since = page["cursor"]
            if finished and not page["more"]:
                return

    reader = threading.Thread(target=read)
    reader.start()
    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    reader.join(timeout=30)
    assert not reader.is_alive()

    seqs = [c["seq"] for c in seen]
    assert seqs == list(range(1, writers * per_writer + 1)), "each chunk once, in order"
    for n in range(writers):
        mine = [c["text"] for c in seen if c["text"].startswith(f"{n}:")]
        assert mine == [f"{n}:{i}\n" for i in range(per_writer)]
