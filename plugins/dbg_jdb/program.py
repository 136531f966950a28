"""What `dbg start` was given, as a class path, a main class and source roots.

Accepted: a ``.java`` file (compiled with ``javac -g`` into the session's
private folder), a ``.class`` file, a ``.jar`` whose manifest names its main
class (one dbg built from a ``.kt`` file: dbg_jdb.kotlin), or a class name
with ``-cp``.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from dbg_jdb import kotlin
from dbg_jdb.bodies import blanked, enclosing_class, source_text
from dbgcore.api import OpFailed, UsageError, private_dir

_PACKAGE_RE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_CLASS_NAME_RE = re.compile(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*")


@dataclass
class JavaProgram:
    classpath: list[str]
    main_class: str
    #: Folders holding the sources, package folders below them.
    source_roots: list[str] = field(default_factory=list)
    #: Outer class -> its source file, where its name does not say it (the
    #: classes of a Kotlin file).
    class_sources: dict[str, str] = field(default_factory=dict)


def package_of(source: Path) -> str:
    text = source_text(source)
    return _package_in(text) if text is not None else ""


@functools.lru_cache(maxsize=8)
def _package_in(text: str) -> str:
    match = _PACKAGE_RE.search(text)
    return match.group(1) if match else ""


def source_root(source: Path) -> Path:
    """The folder above ``source``'s package folders."""
    root = source.parent
    for _ in package_of(source).split(".") if package_of(source) else []:
        root = root.parent
    return root


def class_of_file(source: Path) -> str:
    package = package_of(source)
    return f"{package}.{source.stem}" if package else source.stem


_DECL_RE = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)")
_NOISE_RE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def class_at_line(source: Path, line: int) -> str:
    """The class whose body holds ``line`` of ``source`` (nested ones as
    Outer$Inner), for `stop at CLASS:LINE`; the file's own class otherwise.
    Braces are counted outside comments, strings and character literals."""
    text = source_text(source)
    if text is None:
        return class_of_file(source)
    best = enclosing_class(blanked(text, _NOISE_RE), line, _DECL_RE)
    if not best:
        return class_of_file(source)
    package = package_of(source)
    return f"{package}.{best}" if package else best


def prepare(program: str, classpath: str | None, build_dir: Path, timeout: float,
            cwd: str | None = None, built_from: str | None = None) -> JavaProgram:
    path = Path(program)
    here = Path(cwd) if cwd else Path.cwd()
    if classpath is not None:
        if not _CLASS_NAME_RE.fullmatch(program):
            raise UsageError(f"{program!r} is not a class name",
                             "with -cp give the main class, e.g. -cp build com.example.Main")
        roots = [p for p in classpath.split(os.pathsep) if p]
        return JavaProgram(roots, program, project_sources(roots, program, here))
    suffix = path.suffix.lower()
    if suffix == ".java":
        return _compile(path, build_dir, timeout)
    if suffix == ".class":
        # A class file of the default package, or under its package folders.
        name = path.stem
        return JavaProgram([str(path.parent)], name, project_sources([str(path.parent)], name,
                                                                     here))
    if suffix == ".jar":
        main = _jar_main_class(path)
        if built_from is not None and Path(built_from).suffix.lower() == ".kt":
            classes, roots, sources = kotlin.launch_parts(path, Path(built_from))
            return JavaProgram(classes, main, roots, sources)
        return JavaProgram([str(path)], main, project_sources([str(path)], main, here))
    raise UsageError(f"jdb cannot run {path.name}",
                     "give a .java file, a .class file, a .jar, or -cp DIR MainClass")


#: How far above a class path entry its project's top may be: ``build`` (1),
#: Maven's ``target/classes`` (2), Gradle's ``build/classes/java/main`` (4).
_PROJECT_DEPTH = 4
#: Where a project keeps its sources, below its top folder.
_SOURCE_FOLDERS = (("src", "main", "java"), ("src",))


def project_sources(classpath: list[str], main_class: str, cwd: Path) -> list[str]:
    """The source roots of a program run from ``classpath``: each entry
    itself (classes compiled beside their sources), then the ``src/main/java``
    or ``src/`` of the project above an entry and of ``cwd``, and ``cwd``.

    Classes compiled into another folder (``javac -d build``) name only
    their file (``Order.java``), not where it is: jdb, given no source path,
    shows ``?:8``. A derived folder counts only if it holds the main class's
    source under its package folders (``shop/Main.java`` for ``shop.Main``),
    so a stranger's ``src`` up the tree is never taken for the program's."""
    relative = Path(*main_class.split(".")).with_suffix(".java")
    roots = [str(Path(entry).absolute()) for entry in classpath]
    candidates: list[Path] = []
    for entry in classpath:
        folder = Path(entry).absolute()
        if not folder.is_dir():
            folder = folder.parent  # a jar: its project is around the folder it is in
        for top in [folder, *folder.parents][:_PROJECT_DEPTH + 1]:
            candidates += [top.joinpath(*parts) for parts in _SOURCE_FOLDERS]
    candidates += [cwd.absolute().joinpath(*parts) for parts in _SOURCE_FOLDERS]
    candidates.append(cwd.absolute())
    for candidate in candidates:
        if str(candidate) not in roots and (candidate / relative).is_file():
            roots.append(str(candidate))
    return roots


def _compile(source: Path, build_dir: Path, timeout: float) -> JavaProgram:
    javac = shutil.which("javac")
    if javac is None:
        raise UsageError("javac not found: it is needed to compile " + source.name,
                         "install a JDK (apt-get install openjdk-17-jdk-headless)")
    root = source_root(source)
    private_dir(build_dir)
    try:
        done = subprocess.run([javac, "-g", "-d", str(build_dir), "-sourcepath", str(root),
                               str(source)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise OpFailed(f"javac took longer than {timeout:g}s", "raise --timeout") from exc
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if "error:" in line]
        first = errors[0].strip() if errors else done.stderr.strip().splitlines()[0]
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        raise OpFailed(f"javac could not compile {source.name}: {first}{more}",
                       f"fix it, then `dbg start {source.name}` again")
    return JavaProgram([str(build_dir)], class_of_file(source), [str(root)])


def java_build_command(program: Path, out: Path) -> tuple[list[str], Path] | None:
    """`dbg start app.kt` builds a jar (see dbg_jdb.kotlin); a .java file is
    compiled at launch instead, beside the classes it finds."""
    if program.suffix.lower() != ".kt" or not program.is_file():
        return None
    return kotlin.build_command(program, out)


def _jar_main_class(jar: Path) -> str:
    try:
        with zipfile.ZipFile(jar) as archive:
            manifest = archive.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile) as exc:
        raise UsageError(f"cannot read the manifest of {jar.name}: {exc}",
                         "use -cp JAR MainClass") from exc
    # Manifest lines wrap at 72 bytes with a leading space on continuations.
    unfolded = re.sub(r"\r?\n ", "", manifest)
    match = re.search(r"^Main-Class:\s*(\S+)", unfolded, re.M)
    if not match:
        raise UsageError(f"{jar.name} names no Main-Class", "use -cp JAR MainClass")
    return match.group(1)
