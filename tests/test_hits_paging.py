"""`dbg hits` on a long record: the latest stops by default, newest last, the
count of all and of those left out, paged by `--before ID` / `--after ID`,
filtered by place on the store's indexes, and `--diff` across a page's edge.
The store is filled through its own API (as a daemon records stops), then
read by the store and through the CLI; no debugger runs."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from dbgcore.store.db import Store
from dbgcore.store.stopreads import StopPlace
from dbgcore.testing import Dbg

#: The places the filled program stops at in turn: (file, line, function).
PLACES = (("/src/app/ledger.py", 41, "Ledger.post"), ("/src/app/ledger.py", 58, "Ledger.fee"),
          ("/src/app/main.py", 12, "main"))


def fill(store: Store, name: str, stops: int) -> int:
    """A session of ``stops`` stops, cycling through PLACES (stop n has
    local ``n`` = n), then the exit; the session's id."""
    sid = store.open_session(name, "pdb", "pdb", "3.12", "/src/app/main.py", [], "/src")
    run = store.open_run(sid, "/src/app/main.py", [])
    for n in range(stops):
        file, line, function = PLACES[n % len(PLACES)]
        store.record_stop(sid, {"state": "stopped", "reason": "breakpoint", "thread": 1,
                                "location": {"file": file, "line": line, "function": function},
                                "locals": [{"name": "n", "value": str(n), "type": "int"}]},
                          [{"name": function, "file": file, "line": line}], run_id=run)
    store.record_stop(sid, {"state": "exited", "exit_code": 0}, [], run_id=run)
    return sid


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "store.sqlite3")
    yield s
    s.close()


def numbers(rows: list[dict[str, object]]) -> list[int | None]:
    return [int(str(r["locals"][0]["value"])) if r["locals"] else None  # type: ignore[index]
            for r in rows]


def test_the_latest_are_chosen_and_come_oldest_first(store: Store) -> None:
    sid = fill(store, "a", 30)
    latest = store.hits(sid, limit=4, latest=True)
    assert numbers(latest) == [27, 28, 29, None]  # None: the exit, last
    assert [r["state"] for r in latest][-1] == "exited"
    assert numbers(store.hits(sid, limit=3)) == [0, 1, 2]  # the first, as before
    assert store.hit_count(sid) == 31
    ids = [int(str(r["id"])) for r in latest]
    assert ids == sorted(ids)


def test_pages_before_and_after_an_id_cover_the_record_once(store: Store) -> None:
    sid = fill(store, "a", 25)
    seen: list[int] = []
    page = store.hits(sid, limit=7, latest=True)
    while page:
        seen[:0] = [int(str(r["id"])) for r in page]
        page = store.hits(sid, limit=7, latest=True, before=int(str(page[0]["id"])))
    every = [int(str(r["id"])) for r in store.hits(sid, limit=1000)]
    assert seen == every and len(every) == 26
    forward: list[int] = []
    after = 0
    while page := store.hits(sid, limit=4, after=after):
        forward += [int(str(r["id"])) for r in page]
        after = forward[-1]
    assert forward == every
    first = every[10]
    assert store.hit_count(sid, before=first) == 10
    assert store.hit_count(sid, after=first) == 15


def test_a_place_filters_in_the_store_and_is_counted(store: Store) -> None:
    sid = fill(store, "a", 30)
    other = fill(store, "b", 9)
    fee = StopPlace(function="fee")
    assert numbers(store.hits(sid, limit=3, latest=True, at=fee)) == [22, 25, 28]
    assert store.hit_count(sid, at=fee) == 10
    assert store.hit_count(other, at=fee) == 3
    # The whole name, or its last part after a dot, case and all.
    assert store.hit_count(sid, at=StopPlace(function="Ledger.fee")) == 10
    assert store.hit_count(sid, at=StopPlace(function="FEE")) == 0
    assert store.hit_count(sid, at=StopPlace(function="ee")) == 0
    at_line = StopPlace(line=58, file_matches=lambda f: f.endswith("/ledger.py"))
    assert numbers(store.hits(sid, limit=2, latest=True, at=at_line)) == [25, 28]
    nowhere = StopPlace(line=58, file_matches=lambda f: f.endswith("/main.py"))
    assert store.hits(sid, at=nowhere) == [] and store.hit_count(sid, at=nowhere) == 0
    assert store.hit_count(sid, at=StopPlace(line=12)) == 10
    assert store.hit_count(None, "a", at=StopPlace(line=12)) == 10  # by name
    assert store.hit_count(None, at=StopPlace(line=12)) == 13  # every session


def test_the_previous_stop_of_a_function_is_found_before_a_page(store: Store) -> None:
    sid = fill(store, "a", 12)
    rows = store.hits(sid, limit=1, latest=True, at=StopPlace(function="main"))
    found = store.stop_before(int(str(rows[0]["id"])), rows[0]["file"],  # type: ignore[arg-type]
                              rows[0]["function"], session_id=sid)  # type: ignore[arg-type]
    assert found is not None and found["locals"][0]["value"] == "8"  # type: ignore[index]
    assert store.stop_before(1, "/src/app/ledger.py", "Ledger.post", session_id=sid) is None


def test_an_old_store_gets_the_indexes(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    s = Store(path)
    fill(s, "a", 3)
    s.close()
    with sqlite3.connect(path) as db:
        for index in ("stops_place", "stops_run", "stops_function"):
            db.execute(f"DROP INDEX {index}")
    s = Store(path)
    try:
        assert s.hit_count(None, "a", at=StopPlace(function="main")) == 1
    finally:
        s.close()
    with sqlite3.connect(path) as db:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"stops_place", "stops_run", "stops_function"} <= names


def filled(dbg: Dbg, stops: int) -> None:
    dbg.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    s = Store(dbg.home / "store.sqlite3")
    try:
        fill(s, "default", stops)
    finally:
        s.close()


def test_cli_shows_the_latest_and_says_how_to_see_more(dbg: Dbg) -> None:
    filled(dbg, 300)
    answer = dbg.json("hits")
    rows = answer["hits"]
    assert len(rows) == 200 and answer["total"] == 301, answer["total"]
    assert (answer["earlier"], answer["later"]) == (101, 0)
    assert rows[-1]["state"] == "exited" and rows[0]["locals"][0]["value"] == "101"
    text = dbg("hits", "--limit", "3").out.splitlines()
    first_id = dbg.json("hits", "--limit", "3")["hits"][0]["id"]
    assert text[0].startswith(f"(stops #{first_id}-#"), text
    assert "3 of 301 stops, 298 earlier, 0 later" in text[0], text
    assert f"earlier: --before {first_id}" in text[0], text
    assert "exited" in text[-1], text
    # The page before, and its way back.
    before = dbg.json("hits", "--limit", "3", "--before", str(first_id))
    assert [r["id"] for r in before["hits"]] == [first_id - 3, first_id - 2, first_id - 1]
    assert (before["earlier"], before["later"]) == (295, 3)
    assert f"later: --after {first_id - 1}" in dbg("hits", "--limit", "3", "--before",
                                                   str(first_id)).out
    start = dbg.json("hits", "--limit", "2", "--after", "0")["hits"]
    assert [r["locals"][0]["value"] for r in start] == ["0", "1"]


def test_cli_place_diff_and_bad_pages(dbg: Dbg) -> None:
    filled(dbg, 30)
    fee = dbg.json("hits", "ledger.py:58", "--limit", "2")
    assert [r["locals"][0]["value"] for r in fee["hits"]] == ["25", "28"]
    assert fee["total"] == 10 and fee["earlier"] == 8
    assert dbg.json("hits", "fee")["total"] == 10
    # --diff on a page: its first stop is compared with the one before the page.
    diff = dbg.json("hits", "fee", "--diff", "--limit", "1")["hits"]
    assert diff[0]["changed"] == [{"name": "n", "value": "28", "was": "25"}], diff
    assert diff[0]["first"] is False
    assert dbg.json("hits", "fee", "--diff", "--after", "0", "--limit", "1")["hits"][0]["first"]
    bad = dbg("hits", "--before", "5", "--after", "2")
    assert bad.code == 2 and "--before and --after" in bad.err and "Traceback" not in bad.err
    assert dbg("hits", "--before", "0").code == 2
    assert "no recorded stops at nowhere.py:3" in dbg("hits", "nowhere.py:3").out


def test_more_stops_than_a_query_takes_parameters_are_read_whole(store: Store) -> None:
    """A run's every stop (`dbg history`, `dbg diff` read them all): more
    ids than SQLite takes in one query (held here to 1,000, as SQLite builds
    before 3.32 have it), read in turns."""
    store.db.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 1000)
    sid = fill(store, "a", 2500)
    run = store.hits(sid, limit=1)[0]["run"]
    every = store.hits(None, run_id=int(str(run)), limit=100_000)
    assert numbers(every[:-1]) == list(range(2500)) and every[-1]["state"] == "exited"
