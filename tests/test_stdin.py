"""The program's standard input on every backend: `dbg start --stdin FILE`
and `dbg input`, with real debuggers on one program written in each language
(tests/targets/stdin/: it prompts `line N? `, reads a line, says `read N:
TEXT`, and says `EOF after N lines` when its stdin ends).

dbg runs from its own folder, not the program's. Each test prints how long
its exchange took (`pytest -s` shows it).
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from builds import TARGETS, build_c, build_go

from dbgcore.testing import Dbg, Result, marked_lines, require_backend

BACKENDS = ["pdb", "debugpy", "gdb", "lldb", "dlv", "jdb", "node", "perl", "rdbg", "ocamldebug",
            "ghci"]

#: What each language's program is: its source, and whether it is built first.
SOURCES = {"pdb": "reader.py", "debugpy": "reader.py", "gdb": "reader.c", "lldb": "reader.c",
           "dlv": "go/main.go", "jdb": "Lines.java", "node": "reader.js", "perl": "reader.pl",
           "rdbg": "reader.rb", "ocamldebug": "reader.ml",
           "ghci": "reader.hs"}

FAKE_ADAPTER = Path(__file__).resolve().parent / "dap" / "fake_adapter.py"


@dataclass
class Program:
    #: What `dbg start` is given.
    path: Path
    #: The source with the `@before` (ahead of the reads) and `@got` (after a
    #: read) markers.
    source: Path

    def at(self, mark: str) -> str:
        return f"{self.source.name}:{marked_lines(self.source)[mark]}"


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Program]:
    """The program for a backend, copied (and built) once per module into a
    folder of its own."""
    folder = tmp_path_factory.mktemp("programs")
    made: dict[str, Program] = {}

    def get(backend: str) -> Program:
        name = SOURCES[backend]
        if name not in made:
            source = folder / name
            source.parent.mkdir(parents=True, exist_ok=True)
            if name.startswith("go/"):
                shutil.copytree(TARGETS / "stdin" / "go", source.parent, dirs_exist_ok=True)
                made[name] = Program(build_go(source.parent), source)
            else:
                shutil.copy(TARGETS / "stdin" / name, source)
                path = build_c(source) if source.suffix == ".c" else source
                made[name] = Program(path, source)
        return made[name]

    return get


@pytest.fixture
def session(module_dbg: Dbg, request: pytest.FixtureRequest) -> Iterator[str]:
    """A session named after the test's backend, killed at the end."""
    name = str(request.node.callspec.params["backend"])
    yield name
    module_dbg("-s", name, "kill", timeout=30)


def call(dbg: Dbg, session: str, *args: str, timeout: float = 90) -> dict[str, object]:
    return dbg.json("-s", session, *args, timeout=timeout)


def run_to_end(dbg: Dbg, session: str) -> dict[str, object]:
    """`dbg continue` until the program ends (a backend may stop again at a
    breakpoint of a new run first)."""
    for _ in range(4):
        answer = call(dbg, session, "continue")
        assert answer["ok"], answer
        if answer["state"] == "exited":
            return answer
    raise AssertionError(f"the program did not end: {answer}")


def output_since(dbg: Dbg, session: str, cursor: int) -> tuple[str, int]:
    """What the program wrote on stdout since ``cursor``, and the new cursor."""
    text = []
    while True:
        page = call(dbg, session, "output", "--since", str(cursor))
        assert page["ok"], page
        chunks = page["chunks"]
        assert isinstance(chunks, list)
        text += [c["text"] for c in chunks if c["category"] == "stdout"]
        cursor = int(str(page["cursor"]))
        if not page["more"]:
            return "".join(text), cursor


def refused(result: Result, *words: str) -> None:
    """A clear error: non-zero, one message naming ``words``, no traceback."""
    assert result.code != 0, result
    assert "Traceback" not in result.err, result
    for word in words:
        assert word in result.err, result


def lines_of(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


@pytest.mark.parametrize("backend", BACKENDS)
def test_stdin_file_feeds_the_lines_then_eof(module_dbg: Dbg, programs: Callable[[str], Program],
                                             session: str, backend: str) -> None:
    require_backend(backend)
    program = programs(backend)
    (module_dbg.cwd / "in.txt").write_text("alice\nbob\ncarol\n")
    started = time.monotonic()
    # Four lines wanted, three there: the fourth read sees the end of the file.
    answer = call(module_dbg, session, "start", "--backend", backend, "--stdin", "in.txt",
                  str(program.path), "4")
    assert answer["ok"] and answer["state"] == "stopped", answer
    end = run_to_end(module_dbg, session)
    took = time.monotonic() - started
    assert end["exit_code"] == 0, end
    # The file is the program's stdin: there is nothing to send lines to.
    refused(module_dbg("-s", session, "input", "dave"), "in.txt", "--stdin")
    text, _ = output_since(module_dbg, session, 0)
    assert lines_of(text) == ["line 1? read 1: alice", "line 2? read 2: bob",
                              "line 3? read 3: carol", "line 4? EOF after 3 lines",
                              "done: 3 lines"], text
    print(f"\n{backend}: --stdin run (start, continue to the end) {took:.2f}s")


@pytest.mark.parametrize("backend", BACKENDS)
def test_input_lines_then_eof_after_a_restart(module_dbg: Dbg,
                                              programs: Callable[[str], Program],
                                              session: str, backend: str) -> None:
    require_backend(backend)
    program = programs(backend)
    answer = call(module_dbg, session, "start", "--backend", backend,
                  "--break", program.at("before"), "--run", str(program.path))
    assert answer["ok"] and answer["reason"] == "breakpoint", answer

    started = time.monotonic()
    for name in ("alice", "bob", "carol"):
        sent = call(module_dbg, session, "input", name)
        assert sent["ok"] and sent["sent"] == len(name) + 1, sent
    end = call(module_dbg, session, "continue")
    took = time.monotonic() - started
    assert end["ok"] and end["state"] == "exited" and end["exit_code"] == 0, end
    text, cursor = output_since(module_dbg, session, 0)
    assert lines_of(text) == ["line 1? read 1: alice", "line 2? read 2: bob",
                              "line 3? read 3: carol", "done: 3 lines"], text

    # A new run reads a new stdin; --eof ends it after what was sent.
    again = call(module_dbg, session, "restart")
    assert again["ok"] and again["state"] == "stopped", again
    assert call(module_dbg, session, "input", "dave")["ok"]
    closed = call(module_dbg, session, "input", "--eof")
    assert closed["ok"] and closed["closed"] is True, closed
    refused(module_dbg("-s", session, "input", "erin"), "closed")
    run_to_end(module_dbg, session)
    text, _ = output_since(module_dbg, session, cursor)
    assert lines_of(text) == ["line 1? read 1: dave", "line 2? EOF after 1 lines",
                              "done: 1 lines"], text
    print(f"\n{backend}: three `dbg input` and a continue to the end {took:.2f}s")


@pytest.mark.parametrize("backend", BACKENDS)
def test_continue_answers_at_once_when_the_program_waits_for_input(
        module_dbg: Dbg, programs: Callable[[str], Program], session: str,
        backend: str) -> None:
    require_backend(backend)
    program = programs(backend)
    answer = call(module_dbg, session, "start", "--backend", backend,
                  "--break", program.at("before"), "--break", program.at("got"),
                  "--run", str(program.path))
    assert answer["ok"] and answer["reason"] == "breakpoint", answer

    started = time.monotonic()
    waiting = call(module_dbg, session, "continue")
    waited = time.monotonic() - started
    assert waiting["ok"] and waiting["state"] == "running", waiting
    assert waiting.get("waiting_for_input") is True, waiting
    # The daemon looks every 0.2 s; the rest is the client's own start.
    assert waited < 1.5, f"continue took {waited:.2f}s to say the program waits for input"
    prompt, _ = output_since(module_dbg, session, 0)
    assert prompt == "line 1? ", prompt

    started = time.monotonic()
    stop = call(module_dbg, session, "input", "alice")
    took = time.monotonic() - started
    assert stop["ok"] and stop["state"] == "stopped" and stop["reason"] == "breakpoint", stop
    location = stop["location"]
    assert isinstance(location, dict)
    assert location["line"] == marked_lines(program.source)["got"], stop
    print(f"\n{backend}: continue answered `waiting for input` in {waited:.2f}s; "
          f"`dbg input alice` to the next stop {took:.2f}s")


def test_the_debuggee_takes_stdin_and_its_children_inherit_it(dbg: Dbg, tmp_path: Path) -> None:
    """debugpy's sitecustomize reopens fd 0 in the debuggee only, and takes
    its variable away: a child of the program reads the same stdin, as it
    would without a debugger, and is not set up again."""
    require_backend("debugpy")
    program = tmp_path / "parent.py"
    program.write_text(textwrap.dedent(f"""\
        import os, subprocess, sys
        print("parent read:", os.read(0, 6).decode().strip(), flush=True)
        subprocess.run([{sys.executable!r}, "-c", "import os, sys; "
                        "print('child env:', os.environ.get('DBG_STDIN')); "
                        "print('child read:', sys.stdin.readline().strip())"], check=True)
        """))
    (dbg.cwd / "in.txt").write_text("alice\nbob\n")
    assert dbg.json("start", "--backend", "debugpy", "--stdin", "in.txt", str(program))["ok"]
    end = dbg.json("continue")
    assert end["state"] == "exited" and end["exit_code"] == 0, end
    assert lines_of(dbg.output("stdout")) == ["parent read: alice", "child env: None",
                                              "child read: bob"]


def test_a_backend_that_cannot_feed_stdin_refuses_it(dbg: Dbg) -> None:
    """A DAP adapter dbg has no profile for starts the program its own way:
    `--stdin` and `dbg input` are refused (exit 3), and caps says none."""
    folder = dbg.cwd / ".dbg"
    folder.mkdir()
    (folder / "backends.yaml").write_text(json.dumps({"backends": {"fake": {
        "plugin": "dap", "command": [sys.executable, str(FAKE_ADAPTER)],
        "options": {"profile": "generic", "tool": "fake"}}}}))
    program = dbg.cwd / "prog.py"
    program.write_text("x = 42\nprint(x)\n")
    (dbg.cwd / "in.txt").write_text("alice\n")

    result = dbg("start", "--backend", "fake", "--stdin", "in.txt", str(program))
    assert result.code == 3, result
    refused(result, "fake", "stdin")

    assert dbg.json("start", "--backend", "fake", str(program))["ok"]
    result = dbg("input", "alice")
    assert result.code == 3, result
    refused(result, "fake", "stdin")

    ops = dbg.json("caps", "--backend", "fake")["backends"][0]["ops"]
    assert ops["stdin"] == "none", ops


def test_caps_says_which_backends_feed_stdin(dbg: Dbg) -> None:
    for backend in BACKENDS:
        require_backend(backend)
    data = dbg.json("caps", *[a for b in BACKENDS for a in ("--backend", b)])
    assert "stdin" in data["ops"]
    assert {b["name"]: b["ops"]["stdin"] for b in data["backends"]} == dict.fromkeys(
        BACKENDS, "native")
