"""Bad input: a clear one-line error on stderr, a non-zero exit, no traceback,
and the session just as usable afterwards.

One pdb session on cart.py, stopped at @loop, takes every bad command in turn;
after each one it must still answer from the same place.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from behavior.twins import BACKENDS, TWINS, build_twin
from builds import marked_lines

if TYPE_CHECKING:
    from conftest import Dbg, Result, Target

pytestmark = pytest.mark.usefixtures("pdb_ready")

MARKER = "smuggled.txt"


def assert_clean_error(result: Result, code: int, *words: str) -> None:
    """One line on stderr, starting `error:`, nothing on stdout, no traceback."""
    assert result.code == code, result
    assert result.out == "", result
    assert result.err.startswith("error: "), result
    assert result.err.count("\n") == 1 and result.err.endswith("\n"), result
    assert "Traceback" not in result.err, result
    for word in words:
        assert word in result.err, (word, result.err)


@pytest.fixture(scope="module")
def cart(module_dbg: Dbg, module_target: Any) -> Target:
    target: Target = module_target("cart.py")
    snap = module_dbg.json("start", "--backend", "pdb", "--break", target.loc("loop"), "--run", str(target.path))
    assert snap["ok"] and snap["location"]["line"] == target.lines["loop"], snap
    return target


@pytest.fixture
def still_usable(module_dbg: Dbg, cart: Target) -> Any:
    """After the test: the session answers, from the same stop, and nothing
    a bad command carried reached pdb as a command of its own."""
    yield
    # Past @loop's first run, `cost` would exist or `item` would have moved on.
    answer = module_dbg.json("print", "(item['name'], total, 'cost' in dir())")
    assert (answer["ok"], answer["value"]) == (True, "('apple', 0, False)"), answer
    assert not (module_dbg.cwd / MARKER).exists(), "a smuggled command ran"


def smuggle(dbg: Dbg) -> str:
    """A pdb command line that, if it ever ran, would leave a marker file."""
    return f"!open({str(dbg.cwd / MARKER)!r}, 'w').close()"


BAD_LOCATIONS = ["cart.py:abc", ":12", "cart.py:0", "cart.py:", "cart.py:-3", "a!b!c", "!f",
                 "mod!", " ", "cart.py:1x"]


@pytest.mark.parametrize("location", BAD_LOCATIONS)
@pytest.mark.usefixtures("still_usable")
def test_malformed_location(module_dbg: Dbg, location: str) -> None:
    assert_clean_error(module_dbg("break", location), 2, "bad location")


@pytest.mark.parametrize("argv", [["until", "cart.py:abc"], ["list", ":12"],
                                  ["unbreak", ":12"], ["hits", "x.py:y"]],
                         ids=lambda a: " ".join(a))
@pytest.mark.usefixtures("still_usable")
def test_malformed_location_in_other_ops(module_dbg: Dbg, argv: list[str]) -> None:
    assert_clean_error(module_dbg(*argv), 2, "bad location")


@pytest.mark.parametrize(("location", "why"), [
    ("nofile.py:3", "no Python source file matches nofile.py"),
    ("cart.py:999", "past the end"),
    ("no_such_function", "no_such_function"),
    ("no_such_module!f", "no_such_module"),
])
@pytest.mark.usefixtures("still_usable")
def test_location_pdb_refuses(module_dbg: Dbg, location: str, why: str) -> None:
    assert_clean_error(module_dbg("break", location), 1, why)


@pytest.mark.parametrize("argv", [
    ["frame", "-1"], ["frame", "abc"], ["stack", "--levels", "x"], ["up", "0"],
    ["--timeout", "0", "stack"], ["--timeout", "soon", "stack"],
    ["break", "cart.py:16", "--hit", "0"], ["break", "cart.py:16", "--if", ""],
    ["break", "cart.py:16", "--frobnicate"], ["raw", ""], ["raw", "interact"],
    ["print"], ["set", "total"], ["output", "--since", "-1"], ["no-such-command"],
], ids=lambda a: " ".join(a))
@pytest.mark.usefixtures("still_usable")
def test_usage_errors(module_dbg: Dbg, argv: list[str]) -> None:
    assert_clean_error(module_dbg(*argv), 2)


BAD_TIMEOUTS = ["inf", "-inf", "nan", "1e309", "-1", "0", "1e10", "86401"]


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast path", "click CLI"])
@pytest.mark.parametrize("timeout", BAD_TIMEOUTS)
@pytest.mark.usefixtures("still_usable")
def test_timeouts_that_are_not_a_wait(module_dbg: Dbg, timeout: str, fast_path: bool) -> None:
    # Non-finite, not positive or over a day: one usage line, before anything
    # is sent (a socket's timeout cannot hold inf, NaN or 1e10).
    env = {} if fast_path else {"DBG_NO_FAST_PATH": "1"}
    assert_clean_error(module_dbg("--timeout", timeout, "stack", env=env), 2, "--timeout",
                       "at most 86400")
    answer = module_dbg.json("--timeout", timeout, "print", "total", env=env)
    assert (answer["_exit"], answer["error"]["kind"]) == (2, "usage"), answer
    assert module_dbg.json("--timeout", "86400", "print", "total")["value"] == "0"


# Bytes that are not UTF-8, as a shell passes them (Python sees surrogates).
NOT_UTF8 = "\udcff\udcfe"


@pytest.mark.parametrize("argv", [
    ["print", NOT_UTF8], ["print", f"total + {NOT_UTF8}"], ["--json", "print", NOT_UTF8],
    ["set", "total", NOT_UTF8], ["set", NOT_UTF8, "1"], ["break", f"cart{NOT_UTF8}.py:3"],
    ["break", "cart.py:17", "--if", NOT_UTF8], ["raw", f"p {NOT_UTF8}"],
    ["until", f"{NOT_UTF8}.py:3"], ["list", NOT_UTF8], ["-s", NOT_UTF8, "status"],
    ["start", "--backend", "pdb", f"{NOT_UTF8}.py"],
], ids=lambda a: " ".join(x.encode("utf-8", "backslashreplace").decode() for x in a))
@pytest.mark.usefixtures("still_usable")
def test_bytes_that_are_not_utf8(module_dbg: Dbg, argv: list[str]) -> None:
    result = module_dbg(*argv)
    if argv[0] == "--json":
        answer = module_dbg.json(*argv[1:])
        assert (answer["_exit"], answer["error"]["kind"]) == (2, "usage"), answer
        assert "UTF-8" in answer["error"]["message"]
        return
    assert_clean_error(result, 2)
    assert "UTF-8" in result.err or "bad session name" in result.err, result.err


@pytest.mark.parametrize("name", ["bad name", "../up", "", "x" * 65, "a//b", "/a", "a/", ".hidden"])
@pytest.mark.usefixtures("still_usable")
def test_invalid_session_name(module_dbg: Dbg, name: str) -> None:
    assert_clean_error(module_dbg("--session", name, "status"), 2, "bad session name")


@pytest.mark.usefixtures("still_usable")
def test_newline_never_reaches_pdb_as_a_second_command(module_dbg: Dbg) -> None:
    second = smuggle(module_dbg)
    for argv in (["print", f"total\n{second}"], ["print", f"total\r{second}"],
                 ["raw", f"p 1\n{second}"], ["set", "total", f"5\n{second}"],
                 ["set", f"total\n{second}", "5"], ["break", "cart.py:17", "--if", f"1\n{second}"],
                 ["break", f"cart.py:17\n{second}"], ["until", f"cart.py:17\n{second}"]):
        assert_clean_error(module_dbg(*argv), 2)
        assert not (module_dbg.cwd / MARKER).exists(), argv


# Every option a debugger reads as a line, one rule (Arg.one_line): the
# stopping ops too, refused before the program moves (still_usable checks).
ONE_LINE_ARGVS = [
    ["print", "total\n+1"], ["display", "total\n+1"], ["watch", "total\n"],
    ["set", "total", "1\n+1"], ["set", "total\n", "1"],
    ["break", "cart.py:17", "--if", "1\n"], ["break", "cart.py:17", "--log", "a\nb"],
    ["next", "--show", "total\n+1"], ["continue", "--show", "total\n+1"],
    ["step", "--show", "total\r+1"], ["finish", "--show", "total\n"],
    ["until", "cart.py:17", "--show", "x\ny"],
    ["raw", "p 1\np 2"], ["input", "a\nb"], ["print", "total\r+1"],
]


@pytest.mark.parametrize("argv", ONE_LINE_ARGVS, ids=lambda a: " ".join(a).replace("\n", "\\n"))
@pytest.mark.usefixtures("still_usable")
def test_one_newline_rule(module_dbg: Dbg, argv: list[str]) -> None:
    before = module_dbg.json("breaks")["breakpoints"]
    assert_clean_error(module_dbg(*argv), 2, "must be a single line")
    assert module_dbg.json("breaks")["breakpoints"] == before


#: A client of the daemon's socket other than dbg's front ends, sending
#: `break` with the arguments given as JSON: the daemon's error for each.
WIRE_BREAK = """\
import json, sys
from dbgcore.shared import client
from dbgcore.vocab.location import location_arg
for options in json.loads(sys.argv[2]):
    args = {"location": location_arg(sys.argv[1]), **options}
    print(json.dumps(client.call("default", "break", args, 10).get("error")))
"""


@pytest.mark.usefixtures("still_usable")
def test_a_wire_client_is_refused_a_bad_breakpoint_in_the_front_ends_words(
        module_dbg: Dbg, cart: Target) -> None:
    # The daemon checks a break's --if, --hit and --log with the front end's
    # own check: a client that skips the front end meets the same rule, in
    # the same words, and nothing is set.
    where = cart.loc("discount")
    cases = [(["--hit", "0"], {"hit": 0}), (["--if", "1\n2"], {"condition": "1\n2"}),
             (["--log", " "], {"log": " "}), (["--if", ""], {"condition": ""})]
    before = module_dbg.json("breaks")["breakpoints"]
    done = subprocess.run([sys.executable, "-c", WIRE_BREAK, where,
                           json.dumps([options for _, options in cases])],
                          capture_output=True, text=True, timeout=60, cwd=module_dbg.cwd,
                          env=module_dbg.env)
    assert done.returncode == 0, done.stderr
    errors = [json.loads(line) for line in done.stdout.splitlines()]
    for (argv, _), error in zip(cases, errors, strict=True):
        said = module_dbg.json("break", where, *argv)
        assert (said["_exit"], said["error"]["kind"]) == (2, "usage"), said
        assert (error["kind"], error["message"]) == ("usage", said["error"]["message"]), argv
    assert module_dbg.json("breaks")["breakpoints"] == before


@pytest.mark.usefixtures("still_usable")
def test_pdb_separator_in_user_text_is_data(module_dbg: Dbg, cart: Target) -> None:
    # pdb runs `a;;b` as two commands; dbg's ops must not let text the user
    # meant as one expression or condition be cut there.
    second = smuggle(module_dbg)
    # `;` separates expressions for dbg print: each is evaluated on its own,
    # as an expression, so the smuggled command is a SyntaxError, not run.
    values = module_dbg.json("print", f"'x';;{second};;'y'")["values"]
    assert [v["expression"] for v in values] == ["'x'", second, "'y'"], values
    assert "SyntaxError" in values[1]["error"] and values[2]["value"] == "'y'", values
    assert not (module_dbg.cwd / MARKER).exists()
    assert module_dbg.json("print", "'a;;b'")["value"] == "'a;;b'"
    bad_set = module_dbg("set", "total", f"0;;{second}")
    assert_clean_error(bad_set, 1, "SyntaxError")
    # As a condition it does not compile: refused, nothing set, nothing run.
    before = module_dbg.json("breaks")["breakpoints"]
    bad_if = module_dbg("break", cart.loc("discount"), "--if", f"percent == 1;;{second}")
    assert_clean_error(bad_if, 1, "the condition does not compile")
    assert module_dbg.json("breaks")["breakpoints"] == before


def test_program_that_does_not_exist(module_dbg: Dbg, cart: Target) -> None:
    assert_clean_error(module_dbg("-s", "other", "start", "--backend", "pdb", "no_such_program.py"), 2,
                       "no such program: no_such_program.py")
    assert_clean_error(module_dbg("-s", "other", "start", "--backend", "pdb", "--cwd", "no_such_dir", "cart.py"), 2,
                       "no_such_dir")
    status = module_dbg.json("-s", "other", "status")
    assert status["error"]["kind"] == "no_session", json.dumps(status)
    # Gone before the refusal is answered: the next call must not reach a
    # daemon on its way out (its socket stayed, now and then, for a moment).
    door = module_dbg.home / "sessions" / "other" / "daemon.sock"
    for _ in range(10):
        assert module_dbg("-s", "other", "start", "--backend", "pdb", "no_such.py").code == 2
        assert not door.exists()


def test_unknown_and_missing_backends(module_dbg: Dbg, cart: Target) -> None:
    assert_clean_error(module_dbg("-s", "other", "start", "--backend", "nope", str(cart.path)),
                       2, "unknown backend 'nope'", "known backends:")
    config = Path(module_dbg.env["XDG_CONFIG_HOME"]) / "dbg" / "backends.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "backends:\n"
        "  ghost:\n"
        "    plugin: pdb\n"
        "    command: [no-such-python-3.99]\n"
        "    extensions: [.ghost]\n"
        "    install: get ghost from https://example.invalid/ghost\n", encoding="utf-8")
    try:
        # Named, and chosen from the program's extension: both name the fix.
        assert_clean_error(
            module_dbg("-s", "other", "start", "--backend", "ghost", str(cart.path)), 1,
            "ghost", "not ready", "https://example.invalid/ghost")
        program = module_dbg.cwd / "thing.ghost"
        program.write_text("", encoding="utf-8")
        assert_clean_error(module_dbg("-s", "other", "start", str(program)), 1,
                           "https://example.invalid/ghost")
        listing = module_dbg.json("backends")["backends"]
        ghost = next(b for b in listing if b["name"] == "ghost")
        assert ghost["ready"] is False and "example.invalid" in ghost["install"]
    finally:
        config.unlink()
    status = module_dbg.json("-s", "other", "status")
    assert status["error"]["kind"] == "no_session", json.dumps(status)


def test_bad_env_pair(module_dbg: Dbg, cart: Target) -> None:
    assert_clean_error(module_dbg("-s", "other", "start", "--backend", "pdb", "--env", "NOEQUALS", str(cart.path)),
                       2, "--env")


@pytest.mark.usefixtures("still_usable")
def test_start_twice(module_dbg: Dbg, cart: Target) -> None:
    assert_clean_error(module_dbg("start", "--backend", "pdb", str(cart.path)), 1,
                       "already exists", "`dbg -s default restart`", "kill")


def test_ops_without_a_session(module_dbg: Dbg, cart: Target) -> None:
    for argv in (["step"], ["locals"], ["break", "cart.py:16"], ["kill"], ["restart"],
                 ["raw", "p", "1"], ["output"]):
        assert_clean_error(module_dbg("-s", "nobody", *argv), 1, "no session named 'nobody'")


def test_op_needing_a_stop_while_running(module_dbg: Dbg, module_target: Any) -> None:
    spin = module_target("spin.py")
    running = module_dbg.json("-s", "runner", "--timeout", "0.5", "start", "--backend", "pdb", "--run",
                              str(spin.path))
    assert running["state"] == "running", running
    for argv in (["locals"], ["print", "count"], ["stack"], ["step"], ["continue"],
                 ["set", "count", "0"], ["up"], ["break", spin.loc("work")], ["breaks"],
                 ["raw", "p", "1"]):
        result = module_dbg("-s", "runner", *argv)
        assert_clean_error(result, 1, "runs" if argv[0] in ("break", "breaks", "unbreak", "raw")
                           else "running", "dbg pause")
        assert "_dbg_" not in result.err, result.err  # names the op, not pdb plumbing
    # ...and after a pause the same session answers again.
    paused = module_dbg.json("-s", "runner", "pause")
    assert paused["state"] == "stopped", paused
    assert int(module_dbg.json("-s", "runner", "print", "count")["value"]) > 0
    assert module_dbg.json("-s", "runner", "kill")["ok"]


# -- every backend ------------------------------------------------------------------
# One session per backend, stopped in the twin ledger's loop, takes each bad
# input in turn: a clean answer or one error line, and the same stop after.

LONG = 100_000


def _long_expression(backend: str) -> str:
    """A valid expression of about 100 KB in the backend's language."""
    if backend in ("pdb", "debugpy"):
        return "len('" + "a" * LONG + "')"
    if backend == "jdb":
        return '"' + "a" * LONG + '".length()'
    return "0" * LONG + "1"  # a C or Go integer literal


def _cases(backend: str) -> list[tuple[str, list[str]]]:
    main = {"pdb": "ledger.py", "debugpy": "ledger.py", "gdb": "ledger.c", "lldb": "ledger.c",
            "dlv": "main.go", "jdb": "Ledger.java"}[backend]
    return [
        ("long print", ["print", _long_expression(backend)]),
        ("long raw", ["raw", "print " + _long_expression(backend)]),
        ("control characters", ["print", "i\x1b[31m\x07"]),
        ("unfinished expression", ["print", "i +"]),
        ("up past the outermost frame", ["up", "1000000"]),
        ("up a negative count", ["up", "-1"]),
        ("down a huge count", ["down", "99999999999999999999"]),
        ("frame that is not there", ["frame", "999"]),
        ("disasm count 0", ["disasm", "--count", "0"]),
        ("disasm count negative", ["disasm", "--count", "-5"]),
        ("disasm count huge", ["disasm", "--count", "99999999"]),
        ("memory count negative", ["memory", "read", "0x1000", "-1"]),
        ("breakpoint on line 0", ["break", f"{main}:0"]),
        ("file with spaces", ["break", "no such file.c:3"]),
        ("file with unicode", ["break", "ünï cödé.py:3"]),
        ("set an unknown variable", ["set", "no_such_variable_here", "1"]),
        ("watch nothing", ["watch", " "]),
    ]


CASES = [(backend, name, argv) for backend in BACKENDS for name, argv in _cases(backend)]


@pytest.fixture(scope="module")
def loops(module_dbg: Dbg, tmp_path_factory: pytest.TempPathFactory,
          backend_ready: Any) -> Any:
    """A session per backend (named after it), stopped at the ledger's @loop."""
    started: dict[str, int] = {}

    def get(backend: str) -> int:
        backend_ready(backend)
        if backend not in started:
            twin = TWINS[backend]
            root = tmp_path_factory.mktemp(backend) / "prog"
            path = build_twin(twin.language, root)
            line = marked_lines(root / twin.main)["loop"]
            snap = module_dbg.json("-s", backend, "start", "--backend", backend, "--break",
                                   f"{Path(twin.main).name}:{line}", "--run", str(path))
            assert snap["ok"] and snap["location"]["line"] == line, snap
            started[backend] = line
        return started[backend]

    return get


@pytest.mark.parametrize(("backend", "case", "argv"), CASES,
                         ids=[f"{b}-{name}" for b, name, _ in CASES])
def test_bad_input_on_every_backend(module_dbg: Dbg, loops: Any, backend: str, case: str,
                                    argv: list[str]) -> None:
    line = loops(backend)
    result = module_dbg("-s", backend, *argv)
    assert "Traceback" not in result.out + result.err, result
    if result.code != 0:
        assert_clean_error(result, result.code)
        assert result.code in (1, 2), result
        if backend == "jdb" and case.startswith("long"):
            assert "4,000 bytes" in result.err, result  # the terminal's limit, named
    # Still the same stop, still answering.
    module_dbg("-s", backend, "frame", "0")
    stack = module_dbg.json("-s", backend, "stack")
    assert stack["ok"] and stack["frames"][0]["line"] == line, (case, stack)
    assert module_dbg.json("-s", backend, "print", "i")["ok"]


# -- the CLI without a session: config, DBG_HOME, programs that are not ------------

BAD_CONFIGS = {
    "unclosed list": "backends: [1, 2",
    "not a mapping": "backends: 5",
    "plugin not text": "backends:\n  x:\n    plugin: 3\n",
    "command not a list": "backends:\n  pdb:\n    command: python3\n",
    "extensions not a list": "backends:\n  y:\n    plugin: pdb\n    extensions: .py\n",
    "a list at the top": "- a\n",
    "not UTF-8": "backends:\n  \udcff: {}\n",
}


@pytest.mark.parametrize("text", list(BAD_CONFIGS.values()), ids=list(BAD_CONFIGS))
def test_malformed_backends_yaml(dbg: Dbg, text: str) -> None:
    config = Path(dbg.env["XDG_CONFIG_HOME"]) / "dbg" / "backends.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(text.encode("utf-8", "surrogateescape"))
    (dbg.cwd / "x.py").write_text("x = 1\n")
    for argv in (["backends"], ["start", "--backend", "pdb", "x.py"]):
        result = dbg(*argv)
        assert_clean_error(result, 2, str(config))


@pytest.mark.parametrize("where", ["under a file", "in /proc"])
def test_a_dbg_home_that_cannot_be_made(dbg: Dbg, target: Any, where: str) -> None:
    cart = target("cart.py")
    if where == "under a file":
        blocker = dbg.cwd / "a-file"
        blocker.write_text("")
        home = str(blocker / "home")
    else:
        home = "/proc/dbg-home-here"
    env = {"DBG_HOME": home}
    for argv in (["start", "--backend", "pdb", str(cart.path)], ["print", "1"], ["hits"],
                 ["report"]):
        assert_clean_error(dbg(*argv, env=env), 2, "cannot make the private folder")
    doctor = dbg("doctor", env=env)
    assert doctor.code == 1 and "FAIL home" in doctor.out, doctor


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["a folder", "a FIFO", "a script without a shebang"])
def test_a_program_that_is_not_one(dbg: Dbg, backend: str, kind: str,
                                   backend_ready: Any) -> None:
    backend_ready(backend)
    if kind == "a folder":
        program = dbg.cwd / "folder"
        program.mkdir()
    elif kind == "a FIFO":
        program = dbg.cwd / "fifo"
        os.mkfifo(program)
    else:
        program = dbg.cwd / "script"
        program.write_text("echo hi\n")
        program.chmod(0o755)
    result = dbg("--timeout", "20", "start", "--backend", backend, str(program), timeout=60)
    assert result.code in (1, 2), result
    assert_clean_error(result, result.code)
    assert dbg.json("status")["error"]["kind"] == "no_session"


# -- numbers, sizes and nesting past every bound ---------------------------------
# Checked once at the edge (dbgcore.shared.bounds, through check_values), for the
# click CLI, its fast path and MCP alike: one short usage line, exit 2, one
# JSON object with --json, and the session where it was.

BIG = "1" * 5000  # past Python's 4300-digit limit of int()

BIG_NUMBERS = [
    ["break", f"cart.py:{BIG}"], ["break", BIG], ["break", "cart.py:17", "--hit", BIG],
    ["unbreak", BIG], ["unbreak", f"cart.py:{BIG}"],
    ["hits", f"cart.py:{BIG}"], ["hits", BIG], ["hits", "--limit", BIG],
    ["history", "total", "--at", f"cart.py:{BIG}"], ["history", "total", "--at", BIG],
    ["history", "total", "--at", "cart.py:17", "--max", BIG],
    ["history", "total", "--run", BIG], ["history", "total", "--limit", BIG],
    ["trace", BIG], ["trace", "apply_discount", "--max", BIG],
    ["trace", "apply_discount", "--limit", BIG],
    ["thread", BIG], ["list", BIG], ["list", f"cart.py:{BIG}"], ["list", "--context", BIG],
    ["until", BIG], ["until", f"cart.py:{BIG}"], ["frame", BIG], ["up", BIG], ["down", BIG],
    ["stack", "--levels", BIG], ["output", "--since", BIG], ["undisplay", BIG],
    ["calls", "--run", BIG], ["calls", "--limit", BIG], ["runs", "--limit", BIG],
    ["diff", BIG, "1"], ["diff", "1", BIG], ["frame", "2147483648"],
    ["break", "cart.py:1000000001"], ["frame", "-" + BIG],
]

# 10,000 deep (and longer than an expression may be), and deep within that length.
DEEP = ["(" * 10_000 + "n" + ")" * 10_000, "not " * 10_000 + "n", "not " * 2_000 + "n",
        "n" + "+n" * 3_000, "n" + "[0]" * 2_000, "[" * 150 + "n" + "]" * 150]
DEEP_EXPRESSIONS = [argv for e in DEEP for argv in (["calls", "--where", e], ["history", e])]


def assert_usage_answer(dbg: Dbg, argv: list[str], *words: str, fast_path: bool = True) -> None:
    """The text answer and the --json one (on the click CLI when not
    ``fast_path``): one short line, exit 2, and exactly one JSON object."""
    env = {} if fast_path else {"DBG_NO_FAST_PATH": "1"}
    result = dbg(*argv, env=env)
    assert_clean_error(result, 2, *words)
    assert len(result.err) < 400, result.err  # the 5000 digits are not said back
    answer = dbg("--json", *argv, env={"DBG_NO_FAST_PATH": "1"} if fast_path else {})
    assert answer.code == 2 and "Traceback" not in answer.err, answer
    data = json.loads(answer.out)  # one object, nothing else
    assert (data["ok"], data["error"]["kind"]) == (False, "usage"), data
    message = data["error"]["message"]
    assert len(message) < 300 and "\n" not in message, message


@pytest.mark.usefixtures("still_usable")
def test_numbers_past_every_bound(module_dbg: Dbg) -> None:
    before = module_dbg.json("breaks")["breakpoints"]
    for argv in BIG_NUMBERS:
        assert_usage_answer(module_dbg, argv)
    assert module_dbg.json("breaks")["breakpoints"] == before
    # The message says what was wrong and what to give instead.
    assert_clean_error(module_dbg("break", f"cart.py:{BIG}"), 2,
                       "line 111111111111...1 (5000 digits) is too large",
                       "give a line number up to 1000000000")
    assert_clean_error(module_dbg("stack", "--levels", BIG), 2, "stack --levels",
                       "(5000 digits) is too large", "up to 2147483647")
    assert_clean_error(module_dbg("--timeout", BIG, "stack"), 2, "--timeout")


@pytest.mark.usefixtures("still_usable")
def test_expressions_nested_past_the_bound(module_dbg: Dbg) -> None:
    for argv in DEEP_EXPRESSIONS:
        assert_usage_answer(module_dbg, argv, fast_path=argv[0] == "history")
        err = module_dbg(*argv).err
        assert "nests" in err or "is longer than the 10,000 characters" in err, err
    assert_clean_error(module_dbg("calls", "--where", "not " * 2_000 + "n"), 2,
                       "nests deeper than the 100 levels")


@pytest.mark.usefixtures("still_usable")
def test_a_program_path_past_the_kernels_limit(module_dbg: Dbg) -> None:
    for name in ("p" * 100_000, "q" * 5_000, "d/" * 2_100 + "x.py"):
        for fast_path in (True, False):
            argv = ["-s", "other", "start", "--backend", "pdb", name]
            assert_usage_answer(module_dbg, argv, "bytes long: a path has at most 4,096",
                                fast_path=fast_path)
    assert_usage_answer(module_dbg, ["-s", "other", "start", "--backend", "pdb",
                                     "--cwd", "c" * 5_000, "cart.py"], "start --cwd")
    status = module_dbg.json("-s", "other", "status")
    assert status["error"]["kind"] == "no_session", status


@pytest.mark.usefixtures("still_usable")
def test_a_command_group_without_its_command(module_dbg: Dbg) -> None:
    # As an op without its argument answers: one line, exit 2.
    assert_usage_answer(module_dbg, ["memory"], "memory needs a command: read or write")
    assert_usage_answer(module_dbg, ["agent"], "agent needs a command: install")
    assert_clean_error(module_dbg("memory", "read"), 2, "needs ADDRESS")


@pytest.mark.usefixtures("still_usable")
def test_click_says_a_long_word_back_shortened(module_dbg: Dbg) -> None:
    for argv in (["history", "-" * 10_000], ["break", "cart.py:17", "--" + "x" * 10_000],
                 ["calls", "--where", "n", *(["not"] * 10_000)], ["-s", "s" * 100_000, "status"]):
        assert_usage_answer(module_dbg, argv)


def _mcp(dbg: Dbg, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Each tool call's answer from one `dbg mcp`, written as raw lines (a
    number of 5000 digits is JSON, though Python's json cannot read it)."""
    init = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "bad-input", "version": "1"}}}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    lines = [json.dumps(init), json.dumps(initialized)]
    for i, (tool, arguments) in enumerate(calls):
        lines.append(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                 "params": {"name": tool, "arguments": arguments}})
                     .replace('"@BIG@"', BIG))
    proc = subprocess.run([sys.executable, "-m", "dbgcore", "mcp"], cwd=dbg.cwd, env=dbg.env,
                          input="\n".join(lines).encode() + b"\n", capture_output=True,
                          timeout=120, check=False)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr[-2000:]
    answers = {a["id"]: a for a in map(json.loads, proc.stdout.decode().splitlines())}
    return [answers[i] for i in range(len(calls))]


MCP_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("dbg_break", {"location": f"cart.py:{BIG}"}),
    ("dbg_break", {"location": "cart.py:17", "hit": "@BIG@"}),  # a JSON number
    ("dbg_frame", {"index": "@BIG@"}),
    ("dbg_frame", {"index": 2**40}),
    ("dbg_stack", {"levels": BIG}),
    ("dbg_stack", {"levels": 10**400}),  # a JSON number past a float's range
    ("dbg_more", {"op": "unbreak", "args": {"target": BIG}}),
    ("dbg_more", {"op": "until", "args": {"location": BIG}}),
    ("dbg_more", {"op": "thread", "args": {"id": BIG}}),
    ("dbg_more", {"op": "hits", "args": {"location": f"cart.py:{BIG}"}}),
    ("dbg_more", {"op": "history", "args": {"expression": "total", "at": f"cart.py:{BIG}"}}),
    ("dbg_more", {"op": "trace", "args": {"functions": ["apply_discount"], "max": "@BIG@"}}),
    *[("dbg_more", {"op": "calls", "args": {"where": e}}) for e in DEEP],
    *[("dbg_more", {"op": "history", "args": {"expression": e}}) for e in DEEP],
    ("dbg_start", {"program": "p" * 100_000, "backend": "pdb", "session": "other"}),
    ("dbg_print", {"expression": "x" * 200_000}),  # one argument past 128 KB
    ("dbg_print", {"expression": "!" * 10_000 + "total"}),
    ("dbg_stack", {"timeout": "@BIG@"}), ("dbg_stack", {"timeout": 10**400}),
    ("dbg_status", {"session": "s" * 100_000}),
]


@pytest.mark.usefixtures("still_usable")
def test_numbers_and_nesting_past_every_bound_over_mcp(module_dbg: Dbg) -> None:
    answers = _mcp(module_dbg, [*MCP_CALLS, ("dbg_status", {})])
    for (tool, arguments), answer in zip(MCP_CALLS, answers, strict=False):
        # A usage error is the tool's error result, as every other one is
        # (not -32603, the internal error).
        result = answer.get("result")
        assert result is not None and result["isError"] is True, (tool, answer)
        error = result["structuredContent"]["error"]
        assert error["kind"] == "usage", (tool, arguments.get("op"), error)
        assert len(error["message"]) < 300 and "\n" not in error["message"], error
    assert answers[-1]["result"]["structuredContent"]["state"] == "stopped", answers[-1]


DAP_BACKENDS = ("debugpy", "gdb", "lldb", "dlv")


@pytest.mark.parametrize("backend", BACKENDS)
def test_numbers_past_every_bound_on_every_backend(module_dbg: Dbg, loops: Any,
                                                   backend: str) -> None:
    """The ids and numbers each debugger is handed (a thread's, a variable
    reference's), and the requests that begin and end a DAP session, which
    `dbg dap` must not send raw (debugpy answered a disconnect only when the
    program ended): refused before anything reaches the debugger."""
    line = loops(backend)
    main = Path(TWINS[backend].main).name
    # Nested past what a debugger's parser takes (lldb-dap died of SIGSEGV
    # on `!!!...1`): refused before it is sent, in every language.
    deep = ["(" * 10_000 + "i" + ")" * 10_000, "!" * 10_000 + "i", "not " * 200 + "i",
            "*" * 500 + "i", "(-" * 300 + "i" + ")" * 300]
    cases = [["break", f"{main}:{BIG}"], ["thread", BIG], ["frame", BIG], ["until", BIG],
             ["list", f"{main}:{BIG}"], ["up", BIG],
             *[["print", e] for e in deep], ["set", "i", deep[1]], ["display", deep[0]],
             ["watch", deep[3]], ["next", "--show", deep[0]],
             ["break", f"{main}:{line}", "--if", deep[1]],
             ["history", deep[0], "--at", f"{main}:{line}"]]
    if backend in DAP_BACKENDS:
        cases += [["vars", BIG], ["vars", "i", "--count", BIG], ["disasm", "--count", BIG],
                  ["memory", "read", "0x1000", BIG], ["dap", "disconnect"],
                  ["dap", "disconnect", '{"terminateDebuggee": false}'],
                  ["dap", "launch", "{}"], ["dap", "initialize"]]
    for argv in cases:
        result = module_dbg("-s", backend, *argv)
        assert_clean_error(result, 2)
        assert len(result.err) < 400, result.err
    stack = module_dbg.json("-s", backend, "stack")
    assert stack["ok"] and stack["frames"][0]["line"] == line, stack
    assert module_dbg.json("-s", backend, "print", "i")["ok"]
    assert module_dbg.json("-s", backend, "status")["state"] == "stopped"
