import shelflib
import tagging


def test_shelve():
    assert shelflib.shelve_all(["a", "b"]) == tagging.tag(["A", "B"])
