"""`dbg start app.ts`: TypeScript built on the fly with its source maps.

The compiler is TypeScript's own, ``tsc`` (on PATH, in the program's
``node_modules/.bin``, or beside dbg's interpreter), run with
``--sourceMap`` into the session's build folder; node then runs the
JavaScript and the backend reads the maps (:mod:`dbg_node.mapped`) to show
the TypeScript. ``--noCheck`` leaves type checking out: a type error is no
reason not to debug (and a program without ``@types/node`` installed has
one at every ``process``), while a syntax error still fails the build.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from dbgcore.api import BackendMissing, BackendSpec, NotAProgram

#: TypeScript's suffixes -> the JavaScript tsc makes of each, and the
#: module system it is given (an .mts file is always an ES module).
SUFFIXES = {".ts": (".js", "commonjs"), ".cts": (".cjs", "commonjs"),
            ".mts": (".mjs", "nodenext")}
#: What tsc is told besides: a target node runs as it is (so the
#: JavaScript keeps the TypeScript's shape, line for line), and interop for
#: `import fs from "fs"` under CommonJS.
FLAGS = ("--sourceMap", "--noCheck", "--target", "es2022", "--esModuleInterop",
         "--skipLibCheck", "--pretty", "false")
INSTALL = ("install TypeScript so that `tsc` is on PATH (npm install -g typescript), or in "
           "the program's node_modules (npm install --save-dev typescript)")


def build_command(spec: BackendSpec, program: Path, out: Path) -> tuple[list[str], Path] | None:
    """tsc's command for a TypeScript file and the JavaScript it makes in
    ``out``'s folder (its name and folder as the source's: the program's
    own folder is tsc's root, so its imports of ./lib/... land beside it);
    for a folder with a tsconfig.json, the project's build with its own
    settings, into that folder too."""
    if program.is_dir():
        return _project(spec, program, out.parent) \
            if (program / "tsconfig.json").is_file() else None
    made = SUFFIXES.get(program.suffix.lower())
    if made is None or not program.is_file():
        return None
    suffix, module = made
    tsc = find_tsc(spec, program)
    source = program.absolute()
    command = [tsc, *FLAGS, "--module", module, "--rootDir", str(source.parent),
               "--outDir", str(out.parent), str(source)]
    return command, out.parent / (program.stem + suffix)


#: What a project's build is told over its tsconfig.json: maps beside the
#: JavaScript (not inlined), JavaScript made even where the project makes
#: none (noEmit: a project checked by tsc, run by another tool).
PROJECT_FLAGS = ("--sourceMap", "--inlineSourceMap", "false", "--noEmit", "false",
                 "--noCheck", "--pretty", "false")
#: The names a project's main file has when package.json names none.
ENTRY_NAMES = ("index", "main", "app")


def _project(spec: BackendSpec, folder: Path, out: Path) -> tuple[list[str], Path]:
    """`tsc --project` of the folder's tsconfig.json into ``out``, rooted at
    the folder (its files keep their places under ``out``), and the
    JavaScript of the project's entry file."""
    folder = folder.absolute()
    entry = project_entry(folder)
    tsc = find_tsc(spec, entry)
    command = [tsc, "--project", str(folder / "tsconfig.json"), *PROJECT_FLAGS,
               "--rootDir", str(folder), "--outDir", str(out)]
    made = out / entry.relative_to(folder)
    return command, made.with_suffix(SUFFIXES[entry.suffix.lower()][0])


def project_entry(folder: Path) -> Path:
    """The TypeScript file a project's program starts at: the source of
    package.json's ``main`` (``dist/index.js`` is ``index.ts`` at the
    folder, under ``src/``, or where ``dist/`` is), else an index.ts,
    main.ts or app.ts in the folder or its ``src/``."""
    wanted: list[Path] = []
    try:
        manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
        main = str(manifest.get("main") or "") if isinstance(manifest, dict) else ""
    except (OSError, ValueError):
        main = ""
    if main:
        stem = Path(main).with_suffix("")
        wanted.append(stem)
        if len(stem.parts) > 1:  # dist/index.js: the source is not in dist/
            wanted += [Path("src", *stem.parts[1:]), Path(*stem.parts[1:])]
    wanted += [Path(place, name) for place in (".", "src") for name in ENTRY_NAMES]
    for rel in wanted:
        for suffix in SUFFIXES:
            candidate = folder / rel.with_suffix(suffix)
            if candidate.is_file():
                return candidate
    raise NotAProgram(f"{folder} has a tsconfig.json but no entry file dbg can tell",
                      "give the .ts file the program starts at: dbg start "
                      f"{folder.name}/src/index.ts (or set package.json's main)")


def find_tsc(spec: BackendSpec, program: Path) -> str:
    """backends.yaml's ``options.tsc``, else the project's own tsc (the
    nearest node_modules/.bin above the program), else tsc on PATH, else
    the one beside dbg's interpreter (a virtual environment's)."""
    given = spec.options.get("tsc")
    if given:
        found = shutil.which(str(given))
        if found is None:
            raise BackendMissing(f"cannot build {program.name}: options.tsc {given} is "
                                 "not there", INSTALL)
        return found
    for folder in program.absolute().parents:
        local = folder / "node_modules" / ".bin" / "tsc"
        if os.access(local, os.X_OK):
            return str(local)
    found = shutil.which("tsc") or shutil.which("tsc", path=os.path.dirname(sys.executable))
    if found is None:
        raise BackendMissing(f"cannot build {program.name}: no tsc (TypeScript's compiler)",
                             INSTALL)
    return found
