"""Each op is declared once, in the op table (dbgcore/ops/table.py), and only the
backend registry (dbgcore/backends/registry.py) maps a backend's name to its class:
read from the source with ast, and checked by behaviour where it can be."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

import pytest

from dbgcore.backends.contract import Backend, BackendSpec, Support, answered_ops
from dbgcore.backends.pluginhost import PluginHost
from dbgcore.backends.registry import BackendRegistry
from dbgcore.ops.table import BUILTIN, builtin_table
from dbgcore.shared.errors import BackendMissing, UnsupportedOp, UsageError
from dbgcore.vocab.model import StopEvent

ROOT = Path(__file__).resolve().parents[2]
CORE = sorted((ROOT / "dbgcore").rglob("*.py"))
#: Where backend lookups must not be written out again: the core and the
#: plugins (whose own debugger words, `next`, `step`, are op names too, so
#: only the core is searched for op lists).
SOURCES = sorted([*CORE, *(ROOT / "plugins").rglob("*.py")])
OP_WORDS = {word for op in BUILTIN for word in (op.name, *op.aliases)}
#: Lists of op names that are no second declaration, and why.
NOT_DECLARATIONS = {
    # The resources each session offers, named after the ops that show them.
    ("dbgcore/frontends/mcp/server.py", frozenset({"hits", "output"})),
    # DAP's stepping requests (two share an op's name) and the op each one sends.
    ("dbgcore/frontends/dap/adapter.py", frozenset({"continue", "next"})),
    # The testing kit's example command line of each op, to try it on a backend.
    ("dbgcore/testing.py", frozenset({
        "break", "unbreak", "breaks", "watch", "catch", "continue", "step", "next", "finish",
        "until", "record", "pause", "stack", "frame", "locals", "print", "set", "threads",
        "thread", "raw", "attach"})),
}


def _strings(nodes: list[ast.expr | None]) -> set[str]:
    return {n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def op_collections(tree: ast.AST) -> list[tuple[int, frozenset[str]]]:
    """What a second declaration of ops looks like: a dict keyed mostly by op
    names (`CANONICAL_OPS = {"break": ...}`), a set of them (`AFTER_THE_END
    = frozenset({"status", ...})`), a tuple or list of them an op is looked
    up in (`op in ("raw", "input")`); two names or more. (A payload whose
    keys happen to be argument names, `{"breaks": ..., "cwd": ...}`, is none.)"""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = _strings(node.keys)
            words = keys & OP_WORDS
            if 2 * len(words) < len(keys):
                continue
        elif isinstance(node, ast.Set):
            words = _strings(list(node.elts)) & OP_WORDS
        elif isinstance(node, ast.Compare) and any(
                isinstance(o, (ast.In, ast.NotIn)) for o in node.ops):
            words = {w for c in node.comparators if isinstance(c, (ast.Tuple, ast.List))
                     for w in _strings(list(c.elts))} & OP_WORDS
        else:
            continue
        if len(words) >= 2:
            found.append((node.lineno, frozenset(words)))
    return sorted(found, key=lambda item: item[0])


def test_the_reader_finds_a_second_declaration() -> None:
    tree = ast.parse('A = {"break": 1, "step": 2}\nB = frozenset({"status", "tool"})\n'
                     'C = op in ("raw", "input")\nD = {"state": 1, "tool": 2, "x": 3}\n'
                     'E = ("next", "step")\n')
    assert [set(words) for _, words in op_collections(tree)] == [
        {"break", "step"}, {"status", "tool"}, {"raw", "input"}]


@pytest.mark.parametrize("path", [p for p in CORE if p != ROOT / "dbgcore" / "ops" / "table.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_op_is_declared_outside_the_table(path: Path) -> None:
    where = path.relative_to(ROOT).as_posix()
    found = [(line, sorted(words)) for line, words in
             op_collections(ast.parse(path.read_text(encoding="utf-8")))
             if (where, words) not in NOT_DECLARATIONS]
    assert found == [], f"ops listed again outside dbgcore/ops/table.py: {found}"


def test_every_backend_op_method_is_one_ops() -> None:
    methods = [op.method for op in BUILTIN if op.method is not None]
    assert len(methods) == len(set(methods))
    for method in methods:
        assert getattr(Backend, method.__name__) is method, method
    # The title an UnsupportedOp gives is the op's declaration's, handed to
    # the backend by the core (SessionContext.op_titles), or to a refusal
    # made before a session.
    step = builtin_table().find("step")
    assert step is not None and step.title == "step into"
    refused = Backend.unsupported_for(BackendSpec(name="bare", plugin="bare"), "step",
                                      title=step.title)
    assert isinstance(refused, UnsupportedOp) and refused.op == "step into"


def test_backend_py_declares_no_op() -> None:
    # Which method answers which op is said once, in the table: backend.py
    # names no op (its methods refuse by the name the core gave them).
    source = (ROOT / "dbgcore" / "backends" / "contract.py").read_text()
    tree = ast.parse(source)
    decorated = [node.name for node in ast.walk(tree)
                 if isinstance(node, ast.FunctionDef) and node.decorator_list
                 and not all(isinstance(d, ast.Name) and d.id in ("classmethod", "property",
                                                                  "staticmethod")
                             for d in node.decorator_list)]
    assert decorated == [], decorated
    # `dbg caps`'s order: the table's, attach (a session op) last.
    names = [op.name for op in answered_ops(BUILTIN)]
    assert names[0] == "break" and names[-1] == "attach", names
    assert "exception" not in names  # Backend.op_exception: listed with the backends' own


def test_op_support_is_laid_over_the_overridden_methods() -> None:
    class Builds(Backend):
        op_support: ClassVar[Mapping[str, Support]] = {"until": "fallback"}

        def cont(self, timeout: float) -> StopEvent:
            raise AssertionError("not called")

    caps = Builds.capabilities(BUILTIN)
    assert (caps["continue"], caps["until"], caps["step"]) == ("native", "fallback", "none")
    assert list(caps) == list(Backend.capabilities(BUILTIN))


def test_every_op_sent_to_the_daemon_has_its_handler() -> None:
    table = builtin_table()
    for op in table:
        if op.send == "local":
            # A local op with a handler sends itself to the daemon for the part
            # that needs the debugger (`history --at`; `stacks` without --pid;
            # `list` in a session, which answers a FILE without one).
            assert op.run is not None, op
            assert op.handler is None or op.name in ("history", "stacks", "list"), op
        elif op.prepare is None or op.name == "start":
            # (`test` is sent as `start`.) An op without a handler is the backend's.
            assert op.handler is not None or op.method is not None, op
        for function in (op.prepare, op.run, op.handler, op.beside, op.render):
            assert function is None or callable(function), op
        if op.handler is not None:
            params = list(inspect.signature(op.handler).parameters)
            assert params == ["session", "args", "timeout"], (op, params)


def _lookups(tree: ast.AST) -> list[tuple[int, str]]:
    """Calls that map a backend's name to its entry or class."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else \
                func.id if isinstance(func, ast.Name) else ""
            if name in ("backend_classes", "load_config", "get_host", "select_backend"):
                out.append((node.lineno, name))
    return out


@pytest.mark.parametrize("path", [p for p in SOURCES if p.name != "registry.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_registry_maps_a_backend_name_to_its_class(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if path.relative_to(ROOT).as_posix() == "dbgcore/backends/pluginhost.py":
        # The host gathers the classes the plugins register (and reports them).
        allowed = {"backend_classes"}
    else:
        allowed = set()
    found = [(line, name) for line, name in _lookups(tree) if name not in allowed]
    assert found == [], f"a backend looked up outside dbgcore/backends/registry.py: {found}"


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BackendRegistry:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    project = tmp_path / "project"
    (project / ".dbg").mkdir(parents=True)
    (project / ".dbg" / "backends.yaml").write_text(
        "backends:\n"
        "  orphan:\n    plugin: nowhere\n    command: [\"true\"]\n"
        "  absent:\n    plugin: pdb\n    command: [dbgtest-not-installed-7f2a]\n",
        encoding="utf-8")
    monkeypatch.chdir(project)
    return BackendRegistry(PluginHost(load_entry_points=False))


def test_the_registry_says_what_is_wrong_with_a_backend(registry: BackendRegistry) -> None:
    with pytest.raises(UsageError, match=r"unknown backend 'nope'") as unknown:
        registry.spec("nope")
    assert "pdb" in unknown.value.hint and "orphan" in unknown.value.hint
    with pytest.raises(BackendMissing, match=r"needs plugin 'nowhere', which is not loaded"):
        registry.loaded("orphan")
    spec, cls = registry.loaded("pdb")
    assert (spec.name, cls) == ("pdb", registry.classes()["pdb"])
    assert registry.class_of(registry.spec("orphan")) is None


def test_a_backend_not_installed_is_not_ready(registry: BackendRegistry) -> None:
    spec, _ = registry.loaded("absent")
    assert spec.command == ["dbgtest-not-installed-7f2a"]
    with pytest.raises(BackendMissing, match=r"backend 'absent' is not ready"):
        registry.ready("absent")


def test_plugin_ops_name_methods_their_backend_has() -> None:
    # A plugin's op names its backend method by name (the op table must not
    # import the backend): a misspelt name would make the op `unsupported`
    # everywhere, so each name must be a method of the class it is meant for.
    from dbg_dap.backend import DapBackend
    from dbg_dap.ops import OPS

    for op in OPS:
        assert op.method_name is not None and isinstance(op.method, str), op
        assert callable(getattr(DapBackend, op.method_name, None)), op
    with pytest.raises(ValueError):
        from dbgcore.vocab.opspec import Op

        Op("heap", "Show the heap.", method="op heap")
