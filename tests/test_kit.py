"""The testing kit's backend suite (dbgcore.testing.BackendSuite), run on the
six built-in backends over the twin ledger programs, exactly as a plugin
author runs it on theirs."""

from __future__ import annotations

from pathlib import Path

from behavior.twins import TWINS, build_twin

from dbgcore.testing import BackendSuite

LEDGER = Path(__file__).resolve().parent / "targets" / "ledger"


class _Twin(BackendSuite):
    """A built-in backend on its language's twin (built into the test's folder)."""

    def prepare(self, folder: Path) -> Path:
        return build_twin(TWINS[self.backend].language, folder)

    def marked_source(self, program: Path) -> Path:
        twin = TWINS[self.backend]
        return program.parent / twin.main if program.is_file() else program / twin.main


class TestPdb(_Twin):
    backend = "pdb"
    program = LEDGER / "py" / "ledger.py"


class TestDebugpy(_Twin):
    backend = "debugpy"
    program = LEDGER / "py" / "ledger.py"


class TestGdb(_Twin):
    backend = "gdb"
    program = LEDGER / "c"


class TestLldb(_Twin):
    backend = "lldb"
    program = LEDGER / "c"


class TestDlv(_Twin):
    backend = "dlv"
    program = LEDGER / "go"


class TestJdb(_Twin):
    backend = "jdb"
    program = LEDGER / "java"
