"""Java as a Java IDE shows it (issue 41): the sources of a program compiled
into another folder, the JDK's helpful NullPointerException message, and
objects with their fields, on real jdb."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import builds
import pytest

pytestmark = pytest.mark.backend("jdb")

SHOP = Path(__file__).parent / "targets" / "javashop"


@pytest.fixture(autouse=True)
def jdb_ready(backend_ready: Callable[[str], None]) -> None:
    backend_ready("jdb")


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """The shop project copied and compiled as a build tool would:
    ``javac -g -d build src/shop/*.java``, sources left in ``src``."""
    project = tmp_path / "project"
    shutil.copytree(SHOP, project)
    builds.build_java_project(project)
    return project


def test_sources_are_found_beside_the_class_path(dbg: Any, shop: Path) -> None:
    order = shop / "src" / "shop" / "Order.java"
    main = shop / "src" / "shop" / "Main.java"
    lines = builds.marked_lines(order)
    # Started from elsewhere: only the class path says where the project is.
    snap = dbg.json("start", "--backend", "jdb", "--break", "shop.Order.total",
                    "-cp", str(shop / "build"), "shop.Main")
    assert snap["ok"], snap.get("error")
    assert snap["location"]["file"] == str(main), snap["location"]
    stop = dbg.json("continue")
    assert stop["location"]["file"] == str(order), stop["location"]
    frames = dbg.json("stack")["frames"]
    assert [(f["file"], f["function"]) for f in frames] == [
        (str(order), "shop.Order.total"), (str(main), "shop.Main.main")], frames
    # A breakpoint by the file's name, found among those sources.
    assert dbg.json("break", f"Order.java:{lines['total-return']}")["breakpoint"]["verified"]
    shown = dbg("list")
    assert shown.code == 0 and "sum += item.length();" in shown.out, shown
    assert "?" not in dbg("stack").out


def test_a_source_path_the_user_gives(dbg: Any, shop: Path, tmp_path: Path) -> None:
    # Sources where nothing points: jdb's own `sourcepath` command says where.
    elsewhere = tmp_path / "checkout"
    (shop / "src").rename(elsewhere)
    snap = dbg.json("start", "--backend", "jdb", "-cp", str(shop / "build"), "shop.Main")
    assert snap["ok"] and snap["location"]["file"] is None, snap
    dbg("raw", f"sourcepath {elsewhere}")
    frames = dbg.json("stack")["frames"]
    assert frames[0]["file"] == str(elsewhere / "shop" / "Main.java"), frames
    shown = dbg("list")
    assert shown.code == 0 and "new Order(622" in shown.out, shown


def test_an_uncaught_npe_shows_the_jdks_helpful_message(dbg: Any, shop: Path) -> None:
    main = shop / "src" / "shop" / "Main.java"
    lines = builds.marked_lines(main)
    stop = dbg.json("start", "--backend", "jdb", "--run", "-cp", str(shop / "build"),
                    "shop.Main")
    assert stop["reason"] == "exception", stop
    assert stop["location"]["line"] == lines["npe"], stop["location"]
    helpful = 'Cannot invoke "String.length()" because "name" is null'
    assert stop["description"] == f"java.lang.NullPointerException: {helpful} (uncaught)", stop
    assert helpful in dbg("exception").out
    thrown = dbg.json("exception")
    assert (thrown["exception"], thrown["description"]) == (
        "java.lang.NullPointerException", helpful), thrown
    # The question to the JVM left the program as it was: it stops again
    # where it did, and ends with the NPE's own report.
    assert dbg.json("stack")["frames"][0]["line"] == lines["npe"]
    done = dbg.json("continue")
    assert done["state"] == "exited", done
    assert helpful in str(dbg.output("stderr"))



def test_objects_show_their_fields(dbg: Any, shop: Path) -> None:
    main = shop / "src" / "shop" / "Main.java"
    lines = builds.marked_lines(main)
    stop = dbg.json("start", "--backend", "jdb", "--break", f"{main}:{lines['call-total']}",
                    "--run", "-cp", str(shop / "build"), "shop.Main")
    assert stop["reason"] == "breakpoint", stop
    # The stop: each object local's own fields below it, one level.
    shown = {v["name"]: v for v in stop["locals"]}
    fields = {f["name"]: f["value"] for f in shown["o"]["fields"]}
    assert fields == {"id": "622", "customer": '"ada"',
                      "items": 'ArrayList(size=2) ["kiwi", "plum"]',
                      "stock": 'HashMap(size=1) {"kiwi": 3}', "discount": "15",
                      "previous": "Order {...}"}, fields
    head = ('Order {id: 622, customer: "ada", items: ArrayList(size=2) ["kiwi", "plum"], '
            'stock: HashMap(size=1) {"kiwi": 3}, discount: 15, ')
    # `locals`: a nested object as {...}, the fields past ten as "+N more".
    listed = {v["name"]: v["value"] for v in dbg.json("locals")["variables"]}
    assert listed["o"] == (head + "previous: Order {...}, note: null, weight: 2.5, "
                           "paid: false, placed: 1700000000000, +2 more}"), listed
    assert listed["args"] == "String[0] []"
    # `print`: one level deeper; jdb alone would print the toString(), "shop.Order@1b6d3586".
    printed = dbg.json("print", "o")["value"]
    assert printed.startswith(head + 'previous: Order {id: 621, customer: "bob", '
                              "items: ArrayList(size=0) [], "), printed
    assert dbg("print", "o.previous.previous").out.strip().endswith("null")
    assert dbg.json("print", "o.boxes")["value"] == "int[2] [3, 4]"
    assert dbg.json("print", "o.discount")["value"] == "15"
    assert dbg.json("print", "o.customer")["value"] == '"ada"'
    assert dbg.json("print", "o.items.size() + 1")["value"] == "3"
