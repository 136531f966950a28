"""`dbg start prog.c|prog.cpp|main.rs` builds the source with debug info and
no optimisation into the session's folder, says the command it ran, shows
the compiler's own errors when the build fails; `--no-build` refuses the
source with how to compile it, as before (issue 42, part 6)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import builds
import pytest


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Callable[[str], Any]]:
    """A target copied into a folder nobody may write in: the build must
    go elsewhere (the session's folder)."""
    folders: list[Path] = []

    def make(name: str) -> Any:
        copied = builds.copy_target(name, tmp_path / "ro")
        folder = copied.path.parent
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
        folders.append(folder)
        return copied

    yield make
    for folder in folders:
        folder.chmod(stat.S_IRWXU)


def test_a_c_source_is_built_and_stops_at_its_breakpoint(
        dbg: Any, read_only: Callable[[str], Any], backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")
    builds._need("cc")
    source = read_only("native/cart.c")
    line = source.lines["loop"]
    stop = dbg.json("start", "--break", source.loc("loop"), "--run", str(source.path))
    assert stop["_exit"] == 0, stop
    assert (stop["reason"], stop["location"]["line"]) == ("breakpoint", line), stop
    assert stop["via"]["tool"] == "gdb"  # chosen as for a binary
    command = stop["build"]["command"]
    assert command.startswith("cc -g -O0 ") and str(source.path) in command, command
    assert isinstance(stop["build"]["seconds"], float)
    built = Path(command.split(" -o ")[1])
    assert built.is_file() and built.name == "cart"
    assert dbg.home in built.parents, built  # the session's folder, not beside the source
    assert os.listdir(source.path.parent) == ["cart.c"]
    assert dbg.json("print", "i")["value"] == "0"
    assert dbg.json("kill")["_exit"] == 0


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
@pytest.mark.parametrize(("name", "marker", "compiler"), [
    ("native/shapes.cpp", "sum", "c++ -g -O0 "),
    ("native/cart.rs", "loop", "rustc -g -C opt-level=0 "),
])
def test_cpp_and_rust_sources_are_built_for_gdb_and_lldb(
        dbg: Any, target: Any, backend_ready: Callable[[str], None], backend: str,
        name: str, marker: str, compiler: str) -> None:
    backend_ready(backend)
    builds._need(compiler.split()[0])
    source = target(name)
    line = source.lines[marker]
    result = dbg("start", "--backend", backend, "--break", source.loc(marker), "--run",
                 str(source.path))
    assert result.code == 0, result
    assert f"built: {compiler}{source.path} -o " in result.out, result.out
    assert f"breakpoint 1 at {source.path}:{line}" in result.out, result.out
    assert not source.path.with_suffix("").exists()
    assert dbg.json("kill")["_exit"] == 0


def test_a_compile_error_is_the_answer_and_no_session_starts(
        dbg: Any, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")
    builds._need("cc")
    source = tmp_path / "broken.c"
    source.write_text("int main(void)\n{\n    return undeclared_thing;\n}\n")
    result = dbg("start", str(source))
    assert result.code == 1, result
    assert "build failed (exit 1" in result.err and "cc -g -O0" in result.err, result.err
    assert "undeclared_thing" in result.err and "broken.c:3:" in result.err, result.err
    assert "Traceback" not in result.err
    assert dbg.json("sessions")["sessions"] == []
    answer = dbg.json("start", str(source))
    assert (answer["_exit"], answer["error"]["kind"]) == (1, "failed"), answer


def test_a_long_compile_error_is_bounded(
        dbg: Any, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")
    builds._need("cc")
    source = tmp_path / "many.c"
    source.write_text("int main(void)\n{\n" + "".join(f"    x{i} = 1;\n" for i in range(60))
                      + "}\n")
    result = dbg("start", str(source))
    assert result.code == 1, result
    assert "more lines" in result.err.splitlines()[-1], result.err
    assert len(result.err.splitlines()) <= 42, result.err


def test_no_build_keeps_the_refusal(dbg: Any, target: Any,
                                    backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")
    source = target("native/cart.c")
    result = dbg("start", "--no-build", str(source.path))
    assert result.code == 1, result
    assert "cart.c is a source file, not a program" in result.err
    assert "compile it with debug info first: gcc -g -O0 cart.c -o cart" in result.err
    assert dbg.json("sessions")["sessions"] == []


def test_a_missing_compiler_is_one_line_with_the_install_hint(
        dbg: Any, target: Any, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")
    source = target("native/cart.rs")
    # A PATH with the debugger's folder but no rustc.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    result = dbg("start", str(source.path), env={"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert result.code != 0, result
    assert result.err.count("\n") <= 1, result.err
    assert "cannot build cart.rs: no compiler on PATH (tried rustc)" in result.err
    assert "rustup" in result.err
    assert dbg.json("sessions")["sessions"] == []


def test_restart_rebuilds_a_changed_source_and_a_failed_rebuild_keeps_the_session(
        dbg: Any, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")
    builds._need("cc")
    source = tmp_path / "count.c"
    program = "int main(void)\n{\n    int n = %d;\n    return n;\n}\n"
    source.write_text(program % 5)
    assert dbg.json("start", "--break", f"{source}:4", "--run", str(source))["_exit"] == 0
    assert dbg.json("print", "n")["value"] == "5"
    same = dbg("restart")
    assert same.code == 0 and "built:" not in same.out, same  # unchanged: not rebuilt
    source.write_text(program % 7)
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))
    again = dbg.json("restart")
    assert again["_exit"] == 0 and again["build"]["command"].startswith("cc -g -O0 "), again
    assert dbg.json("continue")["location"]["line"] == 4
    assert dbg.json("print", "n")["value"] == "7"
    source.write_text(program.replace("int n", "int") % 9)
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 2 * 10**9))
    broken = dbg("restart")
    assert broken.code == 1 and "build failed" in broken.err and "count.c:3" in broken.err, broken
    # The program built before is still the session's, stopped where it was.
    assert dbg.json("print", "n")["value"] == "7"
    assert dbg.json("kill")["_exit"] == 0


def _crate(folder: Path, main: str) -> Path:
    (folder / "src").mkdir(parents=True)
    (folder / "Cargo.toml").write_text('[package]\nname = "tally"\nversion = "0.1.0"\n'
                                       'edition = "2021"\n')
    (folder / "src" / "main.rs").write_text(main)
    return folder


@pytest.mark.parametrize("backend", ["gdb", "lldb"])
def test_a_cargo_project_builds_with_cargo_into_the_session_folder(
        dbg: Any, target: Any, tmp_path: Path, backend_ready: Callable[[str], None],
        backend: str) -> None:
    backend_ready(backend)
    builds._need("cargo")
    source = target("native/cart.rs")
    crate = _crate(tmp_path / "crate", source.path.read_text())
    line = source.lines["loop"]
    main = crate / "src" / "main.rs"
    for program in (crate, main):  # the project's folder, or its main.rs
        stop = dbg.json("start", "--backend", backend, "--break", f"{main}:{line}", "--run",
                        str(program))
        assert stop["_exit"] == 0, stop
        assert (stop["reason"], stop["location"]["line"]) == ("breakpoint", line), stop
        command = stop["build"]["command"]
        assert command.startswith(f"cargo build --quiet --manifest-path {crate}/Cargo.toml "), \
            command
        assert command.endswith(" --bin tally") and str(dbg.home) in command, command
        assert not (crate / "target").exists()  # not the project's own target/
        assert dbg.json("kill")["_exit"] == 0


def test_a_cargo_build_error_is_the_answer(dbg: Any, tmp_path: Path,
                                          backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")
    builds._need("cargo")
    crate = _crate(tmp_path / "crate", "fn main() {\n    let x: i32 = \"no\";\n}\n")
    result = dbg("start", str(crate))
    assert result.code == 1, result
    assert "build failed (exit 101" in result.err and "mismatched types" in result.err, \
        result.err
    assert "src/main.rs:2" in result.err, result.err
    assert dbg.json("sessions")["sessions"] == []


def test_the_arguments_after_the_source_are_the_programs(
        dbg: Any, tmp_path: Path, backend_ready: Callable[[str], None]) -> None:
    backend_ready("gdb")
    builds._need("cc")
    source = tmp_path / "args.c"
    source.write_text("int main(int argc, char **argv)\n{\n    return argc;\n}\n")
    stop = dbg.json("start", "--break", f"{source}:3", "--run", str(source), "one", "--two")
    assert stop["_exit"] == 0 and stop["location"]["line"] == 3, stop
    assert dbg.json("print", "argc")["value"] == "3"
    assert dbg.json("print", "argv[2]")["value"].endswith('"--two"')
    assert dbg.json("continue")["exit_code"] == 3


@pytest.mark.parametrize(("name", "text", "compiler", "backend", "words"), [
    ("broken.d", "void main() {\n    int n = undeclared_thing;\n}\n", "ldc2", "gdb",
     ("broken.d(2)", "undeclared_thing")),
    ("broken.nim", "proc main() =\n  echo undeclared_thing\nmain()\n", "nim", "gdb",
     ("broken.nim(2", "undeclared_thing")),
    ("broken.kt", "fun main() {\n    println(undeclared_thing)\n}\n", "kotlinc", "jdb",
     ("broken.kt:2", "undeclared_thing")),
    ("broken.ml", "let () = print_int undeclared_thing\n", "ocamlc", "ocamldebug",
     ("line 1", "undeclared_thing")),
])
def test_each_languages_compile_error_is_its_compilers_own_words(
        dbg: Any, tmp_path: Path, backend_ready: Callable[[str], None], name: str, text: str,
        compiler: str, backend: str, words: tuple[str, ...]) -> None:
    backend_ready(backend)
    builds._need(compiler)
    source = tmp_path / name
    source.write_text(text)
    result = dbg("start", str(source))
    assert result.code == 1, result
    assert "build failed (exit" in result.err and compiler in result.err, result.err
    for word in words:
        assert word in result.err, (word, result.err)
    assert "Traceback" not in result.err
    assert dbg.json("sessions")["sessions"] == []


@pytest.mark.parametrize(("name", "command"), [
    ("native/shop.d", "ldc2 -g -O0 shop.d -of=shop"),
    ("native/shop.nim", "nim c --debugger:native --opt:none -o:shop shop.nim"),
])
def test_no_build_refuses_d_and_nim_with_their_compile_command(
        dbg: Any, target: Any, backend_ready: Callable[[str], None], name: str,
        command: str) -> None:
    backend_ready("gdb")
    source = target(name)
    result = dbg("start", "--no-build", str(source.path))
    assert result.code == 1, result
    assert f"compile it with debug info first: {command}" in result.err, result.err
