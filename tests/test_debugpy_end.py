"""debugpy's end and start as dbg speeds them up (plugins/dbg_dap/pyboot/
sitecustomize.py), with nothing lost: pydevd's threads no longer wait 0.5 s
for each other as the program ends (nor sleep 0.1 s as they connect, before
the program begins), yet the program's last output and its
real exit code still arrive, from the main thread and from a thread of its
own alike; the objects there are before the program begins (pydevd's above
all) are frozen for the collector, and the program's own are collected as
ever, at its end too; debugpy's modules are loaded from dbg's bytecode cache in a
program whose Python is not the adapter's, and the program runs as before.

The speed itself is measured by bench/tests.py and bench/s1.py.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from dbgcore.testing import Dbg, require_backend

LINES = 3000

PROGRAM = textwrap.dedent(f'''\
    import sys
    import threading


    def late():
        sys.stdout.write("".join(f"thread line {{i}}\\n" for i in range({LINES})))
        sys.stdout.flush()


    for i in range({LINES}):
        print(f"main line {{i}}")
    worker = threading.Thread(target=late)
    worker.start()
    worker.join()
    sys.stderr.write("the last words\\n")
    sys.exit(int(sys.argv[1]))
''')


@pytest.fixture
def program(tmp_path: Path) -> Path:
    require_backend("debugpy")
    path = tmp_path / "prog" / "ends.py"
    path.parent.mkdir()
    path.write_text(PROGRAM)
    return path


def other_python() -> str:
    """An interpreter of another version than dbg's (pyenv's), or a skip."""
    import sys

    for version in ("3.12", "3.13", "3.10"):
        found = sorted((Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python"))
        if found and f"{sys.version_info[0]}.{sys.version_info[1]}" != version:
            return str(found[-1])
    found_on_path = shutil.which("python3.12")
    if found_on_path:
        return found_on_path
    pytest.skip("no Python of another version than dbg's here")


@pytest.mark.parametrize("code", [0, 3])
def test_the_last_output_and_the_exit_code_arrive(dbg: Dbg, program: Path, code: int) -> None:
    answer = dbg.json("start", "--backend", "debugpy", "--run", str(program), str(code),
                      timeout=120)
    assert answer["ok"] and answer["state"] == "exited", answer
    assert answer["exit_code"] == code, answer
    out = dbg.output("stdout")
    lines = out.splitlines()
    assert [line for line in lines if line.startswith("main line")] == \
        [f"main line {i}" for i in range(LINES)]
    assert [line for line in lines if line.startswith("thread line")] == \
        [f"thread line {i}" for i in range(LINES)]
    assert "the last words" in dbg.output("stderr")


def test_a_program_on_another_python_loads_debugpy_from_dbgs_cache(
        dbg: Dbg, program: Path) -> None:
    python = other_python()
    tag = subprocess.run([python, "-c", "import sys; print(sys.implementation.cache_tag)"],
                         capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    for run in range(2):
        answer = dbg.json("start", "--backend", "debugpy", "--python", python, "--run",
                          str(program), "5", timeout=120)
        assert answer["ok"] and answer["state"] == "exited" and answer["exit_code"] == 5, \
            (run, answer)
        assert dbg.output("stdout").count("thread line") == LINES
    cached = list((dbg.home / "pyc" / tag).rglob("pydevd.pyc"))
    assert cached, sorted(p.name for p in (dbg.home / "pyc").rglob("*.pyc"))[:20]


def test_a_thread_that_outlives_the_main_thread_is_waited_for(dbg: Dbg, tmp_path: Path) -> None:
    require_backend("debugpy")
    program = tmp_path / "prog" / "outlives.py"
    program.parent.mkdir()
    program.write_text(textwrap.dedent('''\
        import sys
        import threading
        import time


        def late():
            time.sleep(0.5)
            print("the worker's last line", flush=True)


        threading.Thread(target=late).start()
        print("main ends")
        sys.exit(4)
    '''))
    answer = dbg.json("start", "--backend", "debugpy", "--run", str(program), timeout=120)
    assert answer["ok"] and answer["state"] == "exited" and answer["exit_code"] == 4, answer
    out = dbg.output("stdout")
    assert "main ends" in out and "the worker's last line" in out, out


def test_the_programs_own_objects_are_collected_as_ever(dbg: Dbg, target: Any) -> None:
    require_backend("debugpy")
    program = Path(target("gc_probe.py").path)
    bare = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                          timeout=60)
    assert bare.returncode == 6, bare
    answer = dbg.json("start", "--backend", "debugpy", "--run", str(program), timeout=120)
    assert answer["ok"] and (answer["state"], answer["exit_code"]) == ("exited", 6), answer
    out = dbg.output("stdout")
    # A cycle of the program's is collected during the run, and one left
    # for the interpreter's end at its end, as in the bare run.
    for line in ("collected during the run", "found True", "collected at the end"):
        assert line in bare.stdout and line in out, (line, bare.stdout, out)
    # pydevd's objects (and the interpreter's start) are frozen: thousands
    # more than the bare run's.
    frozen = {name: int(text.split("frozen ")[1].split()[0]) for name, text in
              (("bare", bare.stdout), ("dbg", out))}
    assert frozen["dbg"] > frozen["bare"] + 5000, frozen


def test_pydevd_skips_only_its_sleep_as_it_connects(dbg: Dbg, target: Any) -> None:
    """pydevd's module-wide ``time`` is dbg's stand-in (a debugpy whose
    pydevd changed would lose it: this fails then), and a sleep anywhere but
    in its connection to the adapter still sleeps, pydevd's own included."""
    require_backend("debugpy")
    cart = target("cart.py")
    snap = dbg.json("start", "--backend", "debugpy", "--break", cart.loc("loop"), "--run",
                    str(cart.path), timeout=120)
    assert snap["ok"] and snap["reason"] == "breakpoint", snap
    kind = dbg.json("print", "type(__import__('pydevd').time).__name__")
    assert kind["ok"] and kind["value"] == "'_NetworkStartTime'", kind
    slept = dbg.json("print", "(lambda t, m: (__import__('pydevd').time.sleep(0.2), "
                              "m() - t)[1])(__import__('time').monotonic(), "
                              "__import__('time').monotonic)")
    assert slept["ok"] and float(slept["value"]) >= 0.2, slept
    assert dbg.json("kill")["ok"]


def _warm_launchers(home: Path) -> list[int]:
    """The waiting launchers (adapterboot/dbg_warm_launcher.py) of the
    sessions of DBG_HOME ``home``, by the cache folder in their environment."""
    mark = f"DBG_PYC_DIR={home / 'pyc'}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if b"dbg_warm_launcher.py" in cmdline and mark in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def test_the_launcher_started_with_the_adapter_runs_the_program(dbg: Dbg, tmp_path: Path) -> None:
    """debugpy's launcher, started with dbg's adapter before the launch,
    runs the launch: on the adapter's Python (dbg's), the program on its own
    (--python, a virtual environment here), with its folder, arguments,
    environment, output, stdin and exit code; no launcher is left once the
    session ends, used or not. Before Python 3.11 debugpy's own launcher
    runs it, on the program's Python."""
    require_backend("debugpy")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   capture_output=True, timeout=120)
    python = str(venv / "bin" / "python")
    program = tmp_path / "prog" / "parent.py"
    program.parent.mkdir()
    program.write_text(textwrap.dedent('''\
        import os
        import sys

        print("parent", os.path.realpath(f"/proc/{os.getppid()}/exe"))
        with open(f"/proc/{os.getppid()}/cmdline", "rb") as words:
            print("launcher", words.read().split(b"\\0")[:2])
        print("self", os.path.realpath(sys.executable))
        print("program python", sys.executable)
        print("cwd", os.getcwd())
        print("args", sys.argv[1:], os.environ.get("DBG_PROBE_VAR"))
        print("read", sys.stdin.readline().strip())
        sys.exit(7)
    '''))
    (tmp_path / "in.txt").write_text("a line of input\n")
    answer = dbg.json("start", "--backend", "debugpy", "--python", python, "--cwd",
                      str(tmp_path), "--stdin", str(tmp_path / "in.txt"), "--run",
                      str(program), "one", "two words", timeout=120,
                      env={**dbg.env, "DBG_PROBE_VAR": "probe value"})
    assert answer["ok"] and (answer["state"], answer["exit_code"]) == ("exited", 7), answer
    out = dbg.output("stdout")
    assert f"parent {os.path.realpath(sys.executable)}" in out, out
    assert f"self {os.path.realpath(python)}" in out, out
    assert f"program python {python}" in out, out
    if sys.version_info >= (3, 11):
        expected = [sys.executable, str(Path(__file__).parent.parent / "plugins" / "dbg_dap"
                                        / "adapterboot" / "dbg_warm_launcher.py")]
    else:
        expected = [python, "launcher"]
    shown = [w.decode() for w in ast.literal_eval(out.split("launcher ", 1)[1].splitlines()[0])]
    assert shown[0] == expected[0] and shown[1].endswith(expected[1]), (shown, expected)
    assert f"cwd {tmp_path}" in out, out
    assert "args ['one', 'two words'] probe value" in out, out
    assert "read a line of input" in out, out
    assert dbg.json("kill")["ok"]
    # A start refused before its launch: the adapter started early for it
    # ends, and its launcher with it.
    refused = dbg("start", "--backend", "debugpy", "--run", str(tmp_path / "nosuch.py"))
    assert refused.code != 0
    deadline = time.monotonic() + 10
    while _warm_launchers(dbg.home) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _warm_launchers(dbg.home) == []
