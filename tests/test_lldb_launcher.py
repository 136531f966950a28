"""lldb's runInTerminal launcher (dbg_dap.lldb): dbg starts the program
through /bin/sh speaking lldb-dap's FIFO protocol instead of through
lldb-dap's own launcher, which lldb is slow to attach to. The program must
still get its arguments as given, its stdin, and dbg its real exit status."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from builds import build_c
from dbg_dap import lldb as lldb_profile

from dbgcore.testing import Dbg, marked_lines

pytestmark = pytest.mark.backend("lldb")

LAUNCHER = ["/usr/bin/lldb-dap-19", "--comm-file", "/tmp/lldb-dap-run-in-terminal-comm-1",
            "--debugger-pid", "42", "--launch-target", "/tmp/prog", "a b", "$HOME"]


def test_lldb_dap_launcher_becomes_a_shell_only_where_ptrace_allows() -> None:
    profile = lldb_profile.LldbProfile.__new__(lldb_profile.LldbProfile)
    argv = profile.terminal_argv(list(LAUNCHER))
    if lldb_profile._ptrace_free():
        assert argv[:2] == ["/bin/sh", "-c"]
        # The FIFO, then the program and its arguments, untouched.
        assert argv[3:] == ["dbg-launcher", LAUNCHER[2], "/tmp/prog", "a b", "$HOME"]
    else:
        assert argv == LAUNCHER
    # Anything but lldb-dap's launcher is run as asked.
    other = ["/usr/bin/env", "--comm-file", "x"]
    assert profile.terminal_argv(list(other)) == other


SOURCE = textwrap.dedent("""\
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    int main(int argc, char **argv) {
        char line[64] = "";
        if (!fgets(line, sizeof line, stdin)) line[0] = 0;
        line[strcspn(line, "\\n")] = 0;
        printf("args=%d [%s] [%s] stdin=[%s]\\n", argc, argv[1], argv[2], line); // @said
        fflush(stdout);
        return atoi(argv[3]);
    }
    """)


def test_program_gets_its_arguments_stdin_and_exit_code(
        dbg: Dbg, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready("lldb")
    source = tmp_path / "echoer.c"
    source.write_text(SOURCE)
    program = build_c(source)
    feed = tmp_path / "in.txt"
    feed.write_text("hello there\n")
    said = marked_lines(source)["said"]
    snap = dbg.json("start", "--backend", "lldb", "--stdin", str(feed), "--break",
                    f"echoer.c:{said + 1}", "--run", str(program), "a b", "$HOME", "7")
    assert snap["ok"] and snap["reason"] == "breakpoint", snap
    end = dbg.json("continue")
    assert (end["state"], end["exit_code"], end["signal"]) == ("exited", 7, None), end
    assert "args=4 [a b] [$HOME] stdin=[hello there]" in dbg.output("stdout")
