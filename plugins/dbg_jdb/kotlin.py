"""Kotlin on jdb: a ``.kt`` file compiled with kotlinc, debugged as the
classes it makes.

kotlinc writes the line tables and local variables jdb needs by default. A
file's top-level functions go into a class named after the file
(``shop.kt`` -> ``ShopKt``, or its ``@file:JvmName``), which is the main
class; each class the file declares is a class of its own. jdb names only
a class and a file name (``ShopKt.main (shop.kt:12)``), so dbg remembers
which source each compiled class came from, and a breakpoint's line is set
in the class whose body holds it.
"""

from __future__ import annotations

import os
import re
import shutil
import zipfile
from pathlib import Path

from dbg_jdb.bodies import blanked, enclosing_class, source_text
from dbgcore.api import BackendMissing

_PACKAGE_RE = re.compile(r"^\s*package\s+([\w.]+)", re.M)
_JVM_NAME_RE = re.compile(r'^\s*@file\s*:\s*JvmName\(\s*"([\w$]+)"\s*\)', re.M)
_DECL_RE = re.compile(r"\b(?:class|interface|object)\s+([A-Za-z_][\w]*)")
#: What cannot hold code: comments, strings and character literals.
_NOISE_RE = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"'
                       r"|'(?:\\.|[^'\\\n])*'", re.S)


def package_of(text: str) -> str:
    found = _PACKAGE_RE.search(text)
    return found.group(1) if found else ""


def file_class(source: Path, text: str) -> str:
    """The class of the file's top-level functions: ``ShopKt``."""
    package = package_of(text)
    named = _JVM_NAME_RE.search(text)
    stem = named.group(1) if named else source.stem[:1].upper() + source.stem[1:] + "Kt"
    return f"{package}.{stem}" if package else stem


def class_at_line(source: Path, line: int) -> str:
    """The class whose body holds ``line``: a declared class (nested ones
    as Outer$Inner), else the file's class."""
    text = source_text(source)
    if text is None:
        return source.stem
    best = enclosing_class(blanked(text, _NOISE_RE), line, _DECL_RE, body_on_its_line=True)
    if not best:
        return file_class(source, text)
    package = package_of(text)
    return f"{package}.{best}" if package else best


def stdlib() -> str | None:
    """The Kotlin standard library beside the kotlinc on PATH (its lib/)."""
    kotlinc = shutil.which("kotlinc")
    if kotlinc is None:
        return None
    jar = Path(os.path.realpath(kotlinc)).parent.parent / "lib" / "kotlin-stdlib.jar"
    return str(jar) if jar.is_file() else None


def build_command(source: Path, out: Path) -> tuple[list[str], Path]:
    """kotlinc's command that compiles ``source`` into a jar beside ``out``
    (its manifest names the main class; the standard library is added to
    the class path at launch, not copied into the jar)."""
    if shutil.which("kotlinc") is None:
        raise BackendMissing(f"cannot build {source.name}: kotlinc is not on PATH",
                             "apt-get install kotlin")
    jar = out.with_suffix(".jar")
    return ["kotlinc", str(source.absolute()), "-d", str(jar)], jar


def launch_parts(jar: Path, source: Path) -> tuple[list[str], list[str], dict[str, str]]:
    """For a jar built from ``source``: its class path (with the standard
    library), its source roots, and the source of each class in it."""
    library = stdlib()
    try:
        with zipfile.ZipFile(jar) as archive:
            names = archive.namelist()
    except (OSError, zipfile.BadZipFile):
        names = []
    classes = {name[:-len(".class")].replace("/", ".") for name in names
               if name.endswith(".class") and "$" not in name}
    bundled = "kotlin/Unit.class" in names  # built with -include-runtime
    classpath = [str(jar), *([library] if library and not bundled else [])]
    return classpath, [str(source.parent)], {name: str(source) for name in sorted(classes)}
