"""How gdb and lldb get a binary from a source file: `dbg start prog.c`
builds it with debug information and no optimisation (what a debugger needs
to show every line and variable) so that users need not know each
compiler's flags. The compiler is the one on PATH (cc/gcc/clang for C,
c++/g++/clang++ for C++, rustc for Rust, ldc2/dmd/gdc for D, nim for
Nim). A Cargo project's folder, or a .rs file inside one, is built with
`cargo build` (its crates and modules are not one file's), its binary
target picked from Cargo.toml.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from dbgcore.api import BackendMissing, UsageError

#: One compiler's command line: its name on PATH, then its arguments, where
#: {src} is the source and {out} the binary (and its folder, {dir}).
_Command = tuple[str, ...]

_CC = ("-g", "-O0", "{src}", "-o", "{out}")

#: suffix -> (the compilers' command lines, tried in order, how to install one).
_BUILDS: dict[str, tuple[tuple[_Command, ...], str]] = {
    ".c": ((("cc", *_CC), ("gcc", *_CC), ("clang", *_CC)), "apt-get install gcc (or clang)"),
    **{suffix: ((("c++", *_CC), ("g++", *_CC), ("clang++", *_CC)),
                "apt-get install g++ (or clang)") for suffix in (".cc", ".cpp", ".cxx")},
    ".rs": ((("rustc", "-g", "-C", "opt-level=0", "{src}", "-o", "{out}"),),
            "install Rust (https://rustup.rs, or apt-get install rustc)"),
    # D: LDC, the reference compiler DMD, or GDC.
    ".d": ((("ldc2", "-g", "-O0", "{src}", "-of={out}"), ("dmd", "-g", "{src}", "-of={out}"),
            ("gdc", "-g", "-O0", "{src}", "-o", "{out}")), "apt-get install ldc"),
    # Nim compiles to C in a cache folder of its own (kept in the build's
    # folder), with #line directives back to the .nim source.
    ".nim": ((("nim", "c", "--debugger:native", "--opt:none", "--hints:off",
               "--nimcache:{dir}/nimcache", "-o:{out}", "{src}"),), "apt-get install nim"),
}


def cargo_manifest(program: Path) -> Path | None:
    """The Cargo.toml of the project ``program`` (a folder, or a .rs file)
    belongs to."""
    start = program.absolute()
    folders = [start] if program.is_dir() else []
    if program.suffix.lower() == ".rs":
        folders += list(start.parents)
    return next((f / "Cargo.toml" for f in folders if (f / "Cargo.toml").is_file()), None)


def build_command(program: Path, out: Path) -> tuple[list[str], Path] | None:
    """The compiler's command line for ``program`` and the binary it makes,
    or None when this is no source dbg builds (a header, a binary)."""
    manifest = cargo_manifest(program)
    if manifest is not None:
        return _cargo(manifest, program, out.parent / "cargo-target")
    entry = _BUILDS.get(program.suffix.lower())
    if entry is None or not program.is_file():
        return None
    commands, install = entry
    command = next((c for c in commands if shutil.which(c[0])), None)
    if command is None:
        raise BackendMissing(f"cannot build {program.name}: no compiler on PATH "
                             f"(tried {', '.join(c[0] for c in commands)})", install)
    words = {"src": str(program.absolute()), "out": str(out), "dir": str(out.parent)}
    return [command[0], *(arg.format(**words) for arg in command[1:])], out


def _cargo(manifest: Path, program: Path, target: Path) -> tuple[list[str], Path]:
    """`cargo build` of the project's binary target (its dev profile: debug
    info, no optimisation), into ``target`` rather than the project's own
    target/ folder."""
    if shutil.which("cargo") is None:
        raise BackendMissing(f"cannot build {program.name}: cargo is not on PATH",
                             "install Rust with cargo (https://rustup.rs, or apt-get "
                             "install cargo)")
    name = _cargo_binary(manifest, program)
    command = ["cargo", "build", "--quiet", "--manifest-path", str(manifest),
               "--target-dir", str(target), "--bin", name]
    return command, target / "debug" / name


def _cargo_binary(manifest: Path, program: Path) -> str:
    """The binary target to build, as `cargo metadata` lists the project's
    targets: the one whose source ``program`` is, else the only one, else
    the package's default-run."""
    said = "no answer"
    try:
        done = subprocess.run(["cargo", "metadata", "--no-deps", "--offline",
                               "--format-version", "1", "--manifest-path", str(manifest)],
                              capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
        said = (done.stderr.strip().splitlines() or [said])[-1]
        data = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        data = None
    if not isinstance(data, dict) or not data.get("packages"):
        raise UsageError(f"cannot read {manifest}: {said}", "fix Cargo.toml")
    package = next((p for p in data["packages"]
                    if Path(p.get("manifest_path", "")) == manifest.absolute()),
                   data["packages"][0])
    bins = {str(t["name"]): Path(t["src_path"]) for t in package.get("targets") or []
            if "bin" in (t.get("kind") or [])}
    mine = [name for name, path in bins.items() if path == program.absolute()]
    if mine:
        return mine[0]
    if len(bins) == 1:
        return next(iter(bins))
    if package.get("default_run") in bins:
        return str(package["default_run"])
    raise UsageError(f"{manifest} has {len(bins) or 'no'} binary targets"
                     f"{': ' + ', '.join(sorted(bins)) if bins else ''}",
                     "dbg start the .rs file of the one to debug (src/main.rs, src/bin/NAME.rs)")
