"""The path map of `attach --map` and of a container's /proc/PID/root, and
its use on the Source objects of DAP messages."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dbgcore.shared.errors import UsageError
from dbgcore.shared.pathmap import PathMap, mount_namespace_root
from dbgcore.transport.dap.sourcepaths import convert_sources


def test_whole_components_and_the_longest_folder_win() -> None:
    paths = PathMap.of([("/app", "/src"), ("/app/vendor", "/deps"), ("/", "/proc/7/root")])
    assert paths.to_local("/app/x.py") == "/src/x.py"
    assert paths.to_local("/app") == "/src"
    assert paths.to_local("/app/vendor/lib.py") == "/deps/lib.py"
    assert paths.to_local("/apple/x.py") == "/proc/7/root/apple/x.py"
    assert paths.to_remote("/src/x.py") == "/app/x.py"
    assert paths.to_remote("/deps/lib.py") == "/app/vendor/lib.py"
    assert paths.to_remote("/proc/7/root/etc/hosts") == "/etc/hosts"
    assert paths.to_remote("/elsewhere/y.py") == "/elsewhere/y.py"


def test_no_map_changes_nothing() -> None:
    assert not PathMap()
    assert PathMap().to_local("/app/x.py") == "/app/x.py"


folder = st.lists(st.sampled_from(["a", "b", "app", "src", "x.py"]), min_size=1,
                  max_size=4).map(lambda parts: "/" + "/".join(parts))


@given(remote=folder, local=folder, rest=st.lists(st.sampled_from(["m", "n.py"]), max_size=3))
def test_a_path_under_a_folder_goes_there_and_back(remote: str, local: str,
                                                   rest: list[str]) -> None:
    paths = PathMap.of([(remote, local)])
    inside = "/".join([remote, *rest])
    assert paths.to_remote(paths.to_local(inside)) == inside


def test_parse_makes_local_folders_absolute_and_refuses_bad_ones() -> None:
    paths = PathMap.parse(["/app=src", "/srv/data/=/data"], "/home/me")
    assert paths.to_json() == [{"remote": "/app", "local": "/home/me/src"},
                               {"remote": "/srv/data", "local": "/data"}]
    assert PathMap.from_json(paths.to_json()) == paths
    for bad in ("app", "=x", "/app=", "app=./src"):
        with pytest.raises(UsageError):
            PathMap.parse([bad], "/home/me")


def test_our_own_namespace_needs_no_root() -> None:
    assert mount_namespace_root(os.getpid()) is None


def test_every_source_in_a_message_is_converted_and_the_original_kept() -> None:
    paths = PathMap.of([("/app", "/src")])
    frames = {"type": "response", "command": "stackTrace", "body": {"stackFrames": [
        {"id": 1, "name": "f", "line": 3, "source": {"path": "/app/a.py", "name": "a.py"}},
        {"id": 2, "name": "<frozen>", "source": {"name": "<frozen>", "sourceReference": 9}},
        {"id": 3, "name": "g", "source": {"path": "/usr/lib/b.py"}}]}}
    out = convert_sources(frames, paths.to_local)
    rows = out["body"]["stackFrames"]
    assert [r["source"].get("path") for r in rows] == ["/src/a.py", None, "/usr/lib/b.py"]
    assert frames["body"]["stackFrames"][0]["source"]["path"] == "/app/a.py"
    assert rows[1] is frames["body"]["stackFrames"][1]  # unchanged parts are shared
    loaded = {"body": {"sources": [{"path": "/app/c.py", "sources": [{"path": "/app/d.py"}]}]}}
    assert convert_sources(loaded, paths.to_local) == {
        "body": {"sources": [{"path": "/src/c.py", "sources": [{"path": "/src/d.py"}]}]}}
    request = {"command": "setBreakpoints", "arguments": {"source": {"path": "/src/a.py"},
                                                          "breakpoints": [{"line": 3}]}}
    sent = convert_sources(request, paths.to_remote)
    assert sent["arguments"]["source"] == {"path": "/app/a.py"}
    assert request["arguments"]["source"] == {"path": "/src/a.py"}
    # A path that is not one (a relative name a debugger gives) is left alone.
    assert convert_sources({"source": {"path": "app/x.py"}}, paths.to_local) == {
        "source": {"path": "app/x.py"}}
