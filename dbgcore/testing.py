"""dbg's testing kit, a pytest plugin (entry point ``pytest11``: ``dbg``).

A backend plugin's author gets the same tools dbg's own tests use:

- the ``dbg`` fixture: a :class:`Dbg` runner that runs the real ``dbg``
  command in a subprocess, from a work folder that is not the program's, with
  a private DBG_HOME, and ends its sessions at teardown;
- :func:`require_backend`: skip a test when a debugger is missing (fail with
  ``DBG_REQUIRE_ALL_BACKENDS=1``, as in CI);
- :func:`marked_lines`: the lines of ``# @name`` / ``// @name`` markers;
- :func:`debugger_rss_kb`: the memory of a session's debugger;
- :class:`BackendSuite`: the cross-backend behaviour suite as a test class.
  Subclass it, name the backend and a marked program, and pytest runs every
  test of it on your backend::

      class TestNode(BackendSuite):
          backend = "node"
          program = Path(__file__).parent / "programs" / "ledger.js"

The program must carry these markers (see docs/plugins.md, "Testing"):
``@loop`` a line in a loop of ``main`` where a local ``total`` is set,
``@call-fee`` the line in ``main`` calling ``fee(amount)``, ``@fee`` the first
line of ``fee``, and it must end with exit code ``exit_code`` (default 0).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from dbgcore.shared import procutil
from dbgcore.shared.jsontypes import JsonObject

__all__ = ["BackendSuite", "Dbg", "Result", "dbg_in", "debugger_rss_kb", "marked_lines", "require",
           "require_backend"]

#: How the kit runs dbg: the installed package, with this interpreter.
DBG = [sys.executable, "-m", "dbgcore"]


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self) -> JsonObject:
        data: JsonObject = json.loads(self.out)
        return data


class Dbg:
    """Runs `dbg` with a private DBG_HOME; kills its sessions at teardown."""

    def __init__(self, home: Path, cwd: Path) -> None:
        self.home = home
        self.cwd = cwd
        self.env = {**os.environ, "DBG_HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}
        self.env.pop("DBG_SESSION", None)
        self.sessions: set[str] = set()

    def __call__(self, *args: str, timeout: float = 60, cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> Result:
        argv = [str(a) for a in args]
        session = "default"
        for i, arg in enumerate(argv):
            if arg in ("-s", "--session") and i + 1 < len(argv):
                session = argv[i + 1]
        self.sessions.add(session)
        proc = subprocess.run(
            [*DBG, *argv], capture_output=True, text=True, timeout=timeout,
            cwd=cwd or self.cwd, env={**self.env, **(env or {})}, stdin=subprocess.DEVNULL,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def json(self, *args: str, timeout: float = 60, cwd: Path | None = None,
             env: dict[str, str] | None = None) -> JsonObject:
        """Run with --json and return the one JSON object it printed."""
        result = self("--json", *args, timeout=timeout, cwd=cwd, env=env)
        try:
            data: JsonObject = json.loads(result.out)
        except json.JSONDecodeError as exc:
            raise AssertionError(f"not one JSON object: {result!r}") from exc
        data["_exit"] = result.code
        return data

    def output(self, *categories: str, session: str = "default") -> str:
        """All the program output held so far, every page of it (a page is
        at most 1,000 chunks), of the given categories (default: all)."""
        text, cursor = [], 0
        while True:
            page = self.json("-s", session, "output", "--since", str(cursor))
            assert page["ok"], page
            text += [c["text"] for c in page["chunks"]
                     if not categories or c["category"] in categories]
            cursor = page["cursor"]
            if not page["more"]:
                return "".join(text)

    def kill_all(self) -> None:
        """Kill every session this runner's DBG_HOME holds: the ones its calls
        named and any other a test started there (through `dbg mcp`, say);
        a parent's kill ends its child sessions."""
        folder = self.home / "sessions"
        found = {entry.name for entry in folder.iterdir()
                 if entry.is_dir() and "+" not in entry.name} if folder.is_dir() else set()
        for session in sorted(self.sessions | found):
            self("-s", session, "kill", timeout=30)


def marked_lines(path: Path) -> dict[str, int]:
    """Line numbers of `# @name` (or `// @name`, OCaml's `(* @name *)`,
    Haskell's `-- @name`)
    markers in a program."""
    marks = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for name in re.findall(r"(?:#|//|\(\*|--)\s*@([\w-]+)", line):
            marks[name] = number
    return marks


def debugger_rss_kb(home: Path, program: Path, session: str = "default") -> int:
    """The resident memory, in kB, of a session's debugger: the daemon's
    children other than ``program`` (gdb; lldb-dap), from /proc. 0 when
    none is found."""
    status = json.loads((home / "sessions" / session / "status.json").read_text())
    total = 0
    for child in procutil.children_of(status["pid"]):
        try:
            text = Path(f"/proc/{child}/status").read_text()
            exe = os.readlink(f"/proc/{child}/exe")
        except OSError:  # it ended meanwhile
            continue
        rss = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
        if rss and exe != str(program.resolve()):
            total += int(rss.group(1))
    return total


def require(ready: bool, why: str) -> None:
    """Skip a test whose tool is missing (``why``), unless
    DBG_REQUIRE_ALL_BACKENDS=1 (as in CI), where it is a failure."""
    if ready:
        return
    if os.environ.get("DBG_REQUIRE_ALL_BACKENDS") == "1":
        pytest.fail(f"required here but missing: {why}")
    pytest.skip(why)


def require_backend(name: str) -> None:
    """Skip when a backend's debugger is missing, unless DBG_REQUIRE_ALL_BACKENDS=1
    (as in CI), where a missing debugger is a failure."""
    from dbgcore.backends.pluginhost import PluginHost
    from dbgcore.backends.registry import BackendRegistry

    registry = BackendRegistry(PluginHost())
    spec = registry.config().backends.get(name)
    cls = registry.class_of(spec) if spec else None
    readiness = cls.check(spec) if cls and spec else None
    if readiness is not None and readiness.ready:
        return
    why = readiness.detail if readiness else f"no backend {name!r} is registered"
    require(False, f"backend {name} not ready: {why}")


@contextmanager
def dbg_in(base: Path) -> Iterator[Dbg]:
    """A runner with its DBG_HOME in ``base/home``, working from ``base/work``;
    its sessions are ended when the block ends."""
    work = base / "work"
    work.mkdir()
    runner = Dbg(base / "home", work)
    try:
        yield runner
    finally:
        runner.kill_all()


@pytest.fixture
def dbg(tmp_path: Path) -> Iterator[Dbg]:
    """A dbg runner with a private DBG_HOME, working from its own folder."""
    with dbg_in(tmp_path) as runner:
        yield runner


#: The suite's ``prog`` fixture: the runner, the built program and its
#: marked lines (``# @name`` -> line number).
Prog = tuple[Dbg, Path, dict[str, int]]


class BackendSuite:
    """The behaviour every backend owes its users, as tests over one marked
    program. Subclass it with ``backend`` and ``program`` (and ``exit_code``
    when the program does not end with 0)."""

    backend: ClassVar[str] = ""
    program: ClassVar[Path | None] = None
    exit_code: ClassVar[int] = 0
    _source: Path

    # -- helpers -------------------------------------------------------------------

    def prepare(self, folder: Path) -> Path:
        """The program `dbg start` is given; override to build one into
        ``folder`` (a compiled language), by default ``program`` as it is."""
        assert self.program is not None
        return Path(self.program)

    def marked_source(self, program: Path) -> Path:
        """The source file with the markers (default: the program itself)."""
        return program

    @pytest.fixture
    def prog(self, dbg: Dbg, tmp_path: Path) -> Prog:
        if not self.backend or self.program is None:
            pytest.fail("a BackendSuite subclass needs `backend` and `program` set")
        require_backend(self.backend)
        program = self.prepare(tmp_path / "prog")
        self._source = self.marked_source(program)
        return dbg, program, marked_lines(self._source)

    def at(self, lines: dict[str, int], mark: str) -> str:
        """FILE:LINE as a person types it: the file's name only."""
        return f"{self._source.name}:{lines[mark]}"

    @staticmethod
    def local_name(names: Iterable[str], name: str) -> str:
        """``name`` as the language writes it among ``names``: ``total``, or
        with a sigil (Perl's ``$total``)."""
        found = [n for n in names if n.lstrip("$@%") == name]
        assert found, f"no local {name!r} among {sorted(names)}"
        return found[0]

    def support(self, dbg: Dbg) -> dict[str, str]:
        """What `dbg caps` says of the backend: op or feature -> "native",
        "fallback" or "none"."""
        caps = dbg.json("caps", "--backend", self.backend)
        column = next(c for c in caps["backends"] if c["name"] == self.backend)
        ops: dict[str, str] = column["ops"]
        return ops

    def start(self, dbg: Dbg, program: Path, *options: str) -> JsonObject:
        snap = dbg.json("start", "--backend", self.backend, *options, str(program))
        assert snap["ok"], snap
        return snap

    # -- the suite ------------------------------------------------------------------

    def test_break_by_file_name_runs_to_it(self, prog: Prog) -> None:
        dbg, program, lines = prog
        snap = self.start(dbg, program, "--break", self.at(lines, "loop"), "--run")
        assert snap["state"] == "stopped" and snap["reason"] == "breakpoint", snap
        assert snap["location"]["line"] == lines["loop"], snap
        assert Path(snap["location"]["file"]).name == self._source.name, snap
        assert snap["hit_breakpoints"], snap

    def test_locals_and_print_agree(self, prog: Prog) -> None:
        dbg, program, lines = prog
        snap = self.start(dbg, program, "--break", self.at(lines, "loop"), "--run")
        names = {v["name"]: v["value"] for v in snap["locals"]}
        total = self.local_name(names, "total")
        printed = dbg.json("print", total)
        assert printed["ok"] and printed["value"] == names[total], printed

    def test_step_enters_a_call_at_its_first_line_and_finish_comes_back(self, prog: Prog) -> None:
        dbg, program, lines = prog
        self.start(dbg, program, "--break", self.at(lines, "call-fee"), "--run")
        into = dbg.json("step")
        assert into["ok"] and into["location"]["line"] == lines["fee"], into
        back = dbg.json("finish")
        assert back["ok"] and back["state"] == "stopped", back
        assert back["location"]["line"] in (lines["call-fee"], lines["call-fee"] + 1), back
        step = dbg.json("next")
        assert step["ok"] and step["state"] in ("stopped", "exited"), step

    def test_finish_says_what_the_function_returned(self, prog: Prog) -> None:
        dbg, program, lines = prog
        support = self.support(dbg)
        self.start(dbg, program, "--break", self.at(lines, "fee"), "--run")
        out = dbg.json("finish")
        assert out["ok"] and out["state"] == "stopped", out
        if support["return-value"] != "none":
            assert out.get("return_value"), out

    def test_next_steps_over_a_call(self, prog: Prog) -> None:
        dbg, program, lines = prog
        snap = self.start(dbg, program, "--break", self.at(lines, "call-fee"), "--run")
        over = dbg.json("next")
        assert over["ok"] and over["state"] == "stopped", over
        assert over["location"]["function"] == snap["location"]["function"], over
        assert over["location"]["line"] > lines["call-fee"], over

    def test_conditions_stop_only_where_they_hold(self, prog: Prog) -> None:
        dbg, program, lines = prog
        support = self.support(dbg)
        snap = self.start(dbg, program, "--break", self.at(lines, "loop"), "--run")
        total = self.local_name([v["name"] for v in snap["locals"]], "total")
        assert dbg("unbreak", str(snap["hit_breakpoints"][0])).code == 0
        never = dbg.json("break", self.at(lines, "loop"), "--if", f"{total} < 0")
        if support["break-if"] == "none":
            assert never["error"]["kind"] == "unsupported", never
            return
        assert never["ok"], never
        holds = dbg.json("break", self.at(lines, "call-fee"), "--if", f"{total} >= 0")
        assert holds["ok"], holds
        stop = dbg.json("continue")
        assert stop["reason"] == "breakpoint" and stop["location"]["line"] == lines["call-fee"], \
            stop
        assert stop["hit_breakpoints"] == [holds["breakpoint"]["id"]], stop

    def test_what_caps_says_is_missing_is_refused_with_the_way_round(self, prog: Prog) -> None:
        """Unsupported is explicit: every op `dbg caps` marks "none" fails with
        exit code 3, naming the tool and `dbg raw`, never a silent no-op."""
        dbg, program, lines = prog
        support = self.support(dbg)
        snap = self.start(dbg, program, "--break", self.at(lines, "fee"), "--run")
        # Each op as a user types it; the arguments only need to pass dbg's own
        # checks, since an op is sent only where caps says the backend lacks it.
        total = "total"
        typed = {
            "break": ["break", self.at(lines, "loop")], "unbreak": ["unbreak", "1"],
            "breaks": ["breaks"], "watch": ["watch", total], "catch": ["catch", "uncaught"],
            "continue": ["continue"], "step": ["step"], "next": ["next"], "finish": ["finish"],
            "until": ["until"], "record": ["record"], "pause": ["pause"], "stack": ["stack"],
            "frame": ["frame", "0"],
            "locals": ["locals"], "print": ["print", total], "set": ["set", total, "1"],
            "threads": ["threads"], "thread": ["thread", "1"], "raw": ["raw", "help"],
            "attach": ["-s", "kit-attach", "attach", "--backend", self.backend,
                       "--pid", str(os.getpid())],
        }
        missing = sorted(op for op, has in support.items() if op in typed and has == "none")
        for op in missing:
            refused = dbg(*typed[op])
            assert refused.code == 3, (op, refused)
            assert snap["via"]["tool"] in refused.err and "dbg raw" in refused.err, (op, refused)
        assert dbg.json("status")["state"] == "stopped"

    def test_the_end_has_the_exit_code(self, prog: Prog) -> None:
        dbg, program, _ = prog
        self.start(dbg, program, "--run")
        done = dbg.json("continue") if dbg.json("status").get("state") == "stopped" else \
            dbg.json("--timeout", "30", "wait")
        assert done["state"] == "exited" and done["exit_code"] == self.exit_code, done

    def test_kill_leaves_no_process(self, prog: Prog) -> None:
        dbg, program, lines = prog
        self.start(dbg, program, "--break", self.at(lines, "loop"), "--run")
        status = json.loads((dbg.home / "sessions" / "default" / "status.json").read_text())
        pids = [(status["pid"], status.get("start_time")),
                *((c["pid"], c.get("start_time")) for c in status["children"])]
        assert dbg("kill").code == 0
        deadline = time.monotonic() + 10
        while any(procutil.alive(*p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [p for p in pids if procutil.alive(*p)]

    def test_bad_input_is_one_line_and_the_session_goes_on(self, prog: Prog) -> None:
        dbg, program, lines = prog
        self.start(dbg, program, "--break", self.at(lines, "loop"), "--run")
        for argv in (["break", f"{self._source.name}:0"], ["frame", "999"], ["up", "-1"]):
            result = dbg(*argv)
            assert result.code in (1, 2) and result.out == "", result
            assert result.err.startswith("error: ") and result.err.count("\n") == 1, result
        names = [v["name"] for v in dbg.json("locals")["variables"]]
        assert dbg.json("print", self.local_name(names, "total"))["ok"]
