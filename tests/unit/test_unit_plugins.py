"""Plugin loading: the built-in pdb plugin, third-party plugins found through
real entry points of installed distributions, and broken plugins that are
reported by `dbg plugins` without stopping dbg."""

from __future__ import annotations

import json
import os
import textwrap
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from dbgcore.backends.pluginhost import DEFAULT_PLUGINS, PluginHost

GOOD = """
    import click

    from dbgcore.backends.contract import Backend
    from dbgcore.backends.hookspecs import hookimpl


    class EchoBackend(Backend):
        id = "echo-test"
        tool = "echo-tool"


    @hookimpl
    def dbg_register_backends(register):
        register(EchoBackend)


    @hookimpl
    def dbg_add_commands(cli):
        @cli.command("hello-plugin")
        @click.argument("name")
        def hello(name):
            '''Greet NAME (added by a plugin).'''
            click.echo(f"hello {name} from dbgtest_good")
"""

BROKEN = {
    # entry-point name: (module source, words the reported reason must contain)
    "import-fails": ("""
        raise RuntimeError("boom at import time")
    """, ["RuntimeError", "boom at import time"]),
    "misspelled": ("""
        from dbgcore.backends.hookspecs import hookimpl

        @hookimpl
        def dbg_register_backend(register):
            pass
    """, ["unknown hook", "dbg_register_backend"]),
    "hook-raises": ("""
        from dbgcore.backends.hookspecs import hookimpl

        @hookimpl
        def dbg_register_backends(register):
            raise ValueError("registration exploded")
    """, ["ValueError", "registration exploded"]),
    "registers-junk": ("""
        from dbgcore.backends.hookspecs import hookimpl

        @hookimpl
        def dbg_register_backends(register):
            register(dict)
    """, ["TypeError", "not a Backend subclass"]),
    "commands-raise": ("""
        from dbgcore.backends.hookspecs import hookimpl

        @hookimpl
        def dbg_add_commands(cli):
            raise KeyError("no-such-group")
    """, ["KeyError", "no-such-group"]),
}

ECHO_CONFIG = """
backends:
  echo:
    plugin: echo-test
    command: [sh]
    install: it is sh
"""


def user_config(dbg: Any, text: str) -> None:
    path = dbg.home / "config" / "dbg" / "backends.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def plugins_by_name(dbg: Any, env: dict[str, str]) -> dict[str, dict[str, Any]]:
    data = dbg.json("plugins", env=env)
    assert data["_exit"] == 0, data
    return {p["name"]: p for p in data["plugins"]}


def install_good(site: Any) -> None:
    site.install("dbgtest-good", "dbgtest_good", GOOD, entry="good", version="1.2")


def install_broken(site: Any) -> None:
    for name, (source, _) in BROKEN.items():
        module = "dbgtest_" + name.replace("-", "_")
        site.install(f"dbgtest-{name}", module, source, entry=name)
    # An entry point naming a module that is not there at all.
    info = site.path / "dbgtest_ghost-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dbgtest-ghost\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[dbg]\nghost = dbgtest_no_such_module\n")


def test_builtin_pdb_plugin_registers_pdb_backend() -> None:
    host = PluginHost(load_entry_points=False)
    assert "dbg_pdb" in DEFAULT_PLUGINS
    classes = host.backend_classes()
    assert classes["pdb"].id == "pdb"
    info = {p.name: p for p in host.report()}["dbg_pdb"]
    assert (info.ok, info.source, info.backends) == (True, "builtin", ("pdb",))


def test_third_party_plugin_through_entry_point(dbg: Any, plugin_site: Any) -> None:
    install_good(plugin_site)
    user_config(dbg, ECHO_CONFIG)
    env = plugin_site.env()

    plugins = plugins_by_name(dbg, env)
    good = plugins["good"]
    assert good["ok"] is True, good
    assert good["source"] == "entry point dbgtest-good 1.2"
    assert good["backends"] == ["echo-test"]
    assert plugins["dbg_pdb"]["ok"] is True

    text = dbg("plugins", env=env)
    assert "ok     good (entry point dbgtest-good 1.2): echo-test" in text.out

    backends = {b["name"]: b for b in dbg.json("backends", env=env)["backends"]}
    assert backends["echo"]["ready"] is True, backends["echo"]
    assert backends["echo"]["plugin"] == "echo-test"

    helped = dbg("--help", env=env)
    assert helped.code == 0
    assert "hello-plugin" in helped.out

    hello = dbg("hello-plugin", "world", env=env)
    assert (hello.code, hello.out) == (0, "hello world from dbgtest_good\n"), hello

    # Without the distribution on the path, neither the plugin nor its command exist.
    assert "good" not in plugins_by_name(dbg, {})
    missing = dbg("hello-plugin", "world")
    assert missing.code == 2
    assert "Traceback" not in missing.err


def test_broken_plugins_are_reported_and_dbg_still_works(dbg: Any, plugin_site: Any) -> None:
    install_good(plugin_site)
    install_broken(plugin_site)
    user_config(dbg, ECHO_CONFIG)
    env = plugin_site.env()

    plugins = plugins_by_name(dbg, env)
    for name, (_, words) in BROKEN.items():
        assert plugins[name]["ok"] is False, plugins[name]
        for word in words:
            assert word in plugins[name]["error"], (name, plugins[name]["error"])
    assert plugins["ghost"]["ok"] is False
    assert "dbgtest_no_such_module" in plugins["ghost"]["error"]
    # The others are unharmed.
    assert plugins["good"]["ok"] is True
    assert plugins["dbg_pdb"]["ok"] is True
    assert plugins["dbg_pdb"]["backends"] == ["pdb"]

    text = dbg("plugins", env=env)
    assert text.code == 0
    assert "broken import-fails (entry point dbgtest-import-fails 1.0): RuntimeError" in text.out
    assert "Traceback" not in text.out + text.err

    helped = dbg("--help", env=env)
    assert helped.code == 0, helped
    assert "hello-plugin" in helped.out
    assert "Traceback" not in helped.err

    listed = dbg("backends", env=env)
    assert listed.code == 0, listed
    assert "ready   pdb" in listed.out
    assert "ready   echo" in listed.out

    hello = dbg("hello-plugin", "there", env=env)
    assert hello.out == "hello there from dbgtest_good\n", hello


def test_backend_of_unloaded_plugin_is_listed_as_missing(dbg: Any) -> None:
    user_config(dbg, ECHO_CONFIG)
    rows = {b["name"]: b for b in dbg.json("backends")["backends"]}
    assert rows["echo"]["ready"] is False
    assert "plugin 'echo-test' is not loaded" in rows["echo"]["detail"]
    assert rows["pdb"]["ready"] is True


@pytest.mark.parametrize(("load", "block", "expected"), [
    (None, None, {"good", "import-fails", "misspelled"}),
    ("good", None, {"good"}),
    ("good, misspelled", None, {"good", "misspelled"}),
    ("", None, set()),
    (None, "import-fails,misspelled", {"good"}),
    ("good,misspelled", "misspelled", {"good"}),
])
def test_allow_and_block_lists(dbg: Any, plugin_site: Any, load: str | None,
                               block: str | None, expected: set[str]) -> None:
    install_good(plugin_site)
    for name in ("import-fails", "misspelled"):
        source, _ = BROKEN[name]
        plugin_site.install(f"dbgtest-{name}", "dbgtest_" + name.replace("-", "_"), source,
                            entry=name)
    env = plugin_site.env()
    if load is not None:
        env["DBG_LOAD_PLUGINS"] = load
    if block is not None:
        env["DBG_BLOCK_PLUGINS"] = block
    # The lists filter third-party plugins only; built-in ones always load.
    # (Plugins installed in this environment, such as contrib/dbg-node, are
    # left out of the comparison.)
    installed = {ep.name for ep in metadata.entry_points(group="dbg")}
    assert set(plugins_by_name(dbg, env)) - installed == {*DEFAULT_PLUGINS, *expected}


STOP_LOGGER = """
    import json
    import os

    from dbgcore.backends.hookspecs import hookimpl


    @hookimpl
    def dbg_stop_recorded(session, snapshot):
        with open(os.environ["DBGTEST_STOP_LOG"], "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"session": session, "snapshot": snapshot}) + "\\n")
"""

STOP_RAISER = """
    import json
    import os

    from dbgcore.backends.hookspecs import hookimpl


    @hookimpl
    def dbg_stop_recorded(session, snapshot):
        with open(os.environ["DBGTEST_STOP_LOG"], "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"raiser": session}) + "\\n")
        raise RuntimeError("stop hook failed on purpose")
"""


def test_dbg_stop_recorded_runs_in_the_daemon_at_each_stop(
        dbg: Any, plugin_site: Any, target: Any, tmp_path: Path, pdb_ready: None) -> None:
    cart = target("cart.py")
    log = tmp_path / "stops.jsonl"
    # Distributions are found in sys.path order: the raiser's folder comes
    # first, so it is registered, and called, before the logger.
    plugin_site.ahead().install("dbgtest-stop-raiser", "dbgtest_stop_raiser", STOP_RAISER,
                                entry="stop-raiser")
    plugin_site.install("dbgtest-stop-logger", "dbgtest_stop_logger", STOP_LOGGER,
                        entry="stop-logger")
    env = {**plugin_site.env(), "DBGTEST_STOP_LOG": str(log)}

    def read_log() -> list[dict[str, Any]]:
        lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        # Each stop: the raiser was called, raised, and the logger still ran.
        assert lines[0::2] == [{"raiser": "hooked"}] * (len(lines) // 2), lines
        return lines[1::2]

    started = dbg.json("-s", "hooked", "start", "--backend", "pdb", "--run", "--break", cart.loc("discount"),
                       str(cart.path), env=env)
    assert started["ok"] is True, started
    assert started["reason"] == "breakpoint"

    records = read_log()
    assert {r["session"] for r in records} == {"hooked"}
    at_break = records[-1]["snapshot"]
    assert at_break["state"] == "stopped"
    assert at_break["reason"] == "breakpoint"
    assert at_break["location"]["line"] == cart.lines["discount"]
    assert at_break["location"]["function"] == "apply_discount"
    assert Path(at_break["location"]["file"]).name == "cart.py"
    assert {"total", "percent"} <= {v["name"] for v in at_break["locals"]}

    # The raising plugin stopped neither the session nor the other plugin.
    finished = dbg.json("-s", "hooked", "continue", env=env)
    assert finished["state"] == "exited", finished
    records = read_log()
    assert records[-1]["snapshot"]["state"] == "exited"
    assert records[-1]["snapshot"]["exit_code"] == 0

    # What the plugin saw is what the store recorded.
    hits = dbg.json("-s", "hooked", "hits")["hits"]
    assert [(h["state"], h["line"]) for h in hits] == [
        (r["snapshot"]["state"], (r["snapshot"]["location"] or {}).get("line")) for r in records
    ]
    daemon_log = (dbg.home / "sessions" / "hooked" / "daemon.log").read_text(encoding="utf-8")
    assert "stop hook failed on purpose" in daemon_log


def test_plugin_module_is_imported_once_per_process(plugin_site: Any, tmp_path: Path,
                                                    dbg: Any) -> None:
    counter = tmp_path / "imports.txt"
    plugin_site.install("dbgtest-counted", "dbgtest_counted", textwrap.dedent(f"""
        with open({str(counter)!r}, "a") as fh:
            fh.write("imported\\n")
    """), entry="counted")
    assert dbg("plugins", env=plugin_site.env()).code == 0
    assert counter.read_text().splitlines() == ["imported"]


def test_plugin_ops_join_the_table_and_a_taken_name_breaks_only_that_plugin() -> None:
    from dbgcore.backends.hookspecs import hookimpl
    from dbgcore.ops.table import BUILTIN, Arg, Op, OpTable

    class ArenasPlugin:
        @hookimpl
        def dbg_add_ops(self, add: Any) -> None:
            add(Op("arenas", "Show the arenas.", (Arg("arena", "int", "An arena.", minimum=0),),
                   needs="stopped", render=lambda p: "arenas"))

    class GreedyPlugin:
        @hookimpl
        def dbg_add_ops(self, add: Any) -> None:
            add(Op("print", "Print, again."))

    host = PluginHost(load_entry_points=False)
    host.pm.register(ArenasPlugin(), name="arenas")
    host.pm.register(GreedyPlugin(), name="greedy")
    table = OpTable(BUILTIN)
    host.add_ops(table)
    arenas = table.find("arenas")
    assert arenas is not None and arenas.needs == "stopped" and arenas.arg("arena").kind == "int"
    assert table.find("print") is not None and table.find("print").summary != "Print, again."
    assert table.find("disasm") is not None  # the built-in DAP plugin's ops
    greedy = next(i for i in host.report() if i.name == "greedy")
    assert not greedy.ok and "already defined" in greedy.error, greedy


SHIPS_ENTRY = """
    from pathlib import Path

    from dbgcore.api import Backend, hookimpl


    class ShippedBackend(Backend):
        id = "shipped-test"
        tool = "shipped-tool"


    @hookimpl
    def dbg_register_backends(register):
        register(ShippedBackend)


    @hookimpl
    def dbg_backend_files(add):
        add(Path(__file__).with_name("dbgtest_ships.yaml"))
"""

SHIPPED_YAML = """
backends:
  shipped:
    plugin: shipped-test
    command: [sh]
    extensions: [.shipped]
    install: it is sh
  pdb:
    plugin: shipped-test
    command: [sh]
"""

BAD_FILE = """
    from pathlib import Path

    from dbgcore.api import hookimpl


    @hookimpl
    def dbg_backend_files(add):
        add(Path(__file__).with_name("dbgtest_badfile.yaml"))
"""


def test_a_plugin_ships_its_backends_yaml_entries(dbg: Any, plugin_site: Any) -> None:
    plugin_site.install("dbgtest-ships", "dbgtest_ships", SHIPS_ENTRY, entry="ships")
    (plugin_site.path / "dbgtest_ships.yaml").write_text(SHIPPED_YAML, encoding="utf-8")
    plugin_site.install("dbgtest-badfile", "dbgtest_badfile", BAD_FILE, entry="badfile")
    (plugin_site.path / "dbgtest_badfile.yaml").write_text("backends: [1, 2\n", encoding="utf-8")
    env = plugin_site.env()

    # No user or project file names it: the plugin's own file brings the entry.
    rows = {b["name"]: b for b in dbg.json("backends", env=env)["backends"]}
    assert rows["shipped"]["ready"] is True and rows["shipped"]["plugin"] == "shipped-test", rows
    assert rows["shipped"]["extensions"] == [".shipped"]
    # A plugin's file adds backends; the one it names that dbg has is left as dbg's.
    assert rows["pdb"]["plugin"] == "pdb", rows["pdb"]
    # A malformed file breaks its plugin, not dbg.
    plugins = plugins_by_name(dbg, env)
    assert plugins["badfile"]["ok"] is False and "dbgtest_badfile.yaml" in plugins["badfile"][
        "error"], plugins["badfile"]
    assert plugins["ships"]["ok"] is True
    # Without the plugin, there is no such backend.
    assert "shipped" not in {b["name"] for b in dbg.json("backends")["backends"]}

    # The user's file still has the last word, key by key.
    user_config(dbg, "backends:\n  shipped:\n    install: ask your admin\n")
    rows = {b["name"]: b for b in dbg.json("backends", env=env)["backends"]}
    assert rows["shipped"]["install"] == "ask your admin"
    assert rows["shipped"]["plugin"] == "shipped-test"


def test_one_backend_class_imports_only_the_plugins_up_to_its_own() -> None:
    # A fresh interpreter: what a session's daemon imports for a pdb start.
    import subprocess
    import sys

    code = textwrap.dedent("""
        import json, sys
        from dbgcore.backends.pluginhost import PluginHost
        host = PluginHost()
        pdb = host.backend_class("pdb")
        before = sorted(m for m in sys.modules if m.endswith(".backend"))
        every = host.backend_classes()
        print(json.dumps({"before": before, "same": every["pdb"] is pdb,
                          "ids": sorted(every), "none": host.backend_class("no-such") is None}))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    seen = json.loads(proc.stdout)
    assert "dbg_pdb.backend" in seen["before"], seen
    assert "dbg_jdb.backend" not in seen["before"], seen
    assert seen["same"] and seen["none"], seen
    assert {"pdb", "jdb"} <= set(seen["ids"]), seen


def test_a_backend_lookup_passes_over_plugins_that_declare_other_ids() -> None:
    # The built-in plugins declare the ids they register (DBG_BACKEND_IDS):
    # a jdb daemon imports neither pdb's backend nor the DAP one, a DAP
    # daemon not pdb's.
    import subprocess
    import sys

    code = textwrap.dedent("""
        import json, sys
        from dbgcore.backends.pluginhost import PluginHost
        seen = {}
        for backend_id in sys.argv[1:]:
            host = PluginHost(load_entry_points=False)
            assert host.backend_class(backend_id).id == backend_id
            seen[backend_id] = sorted(m for m in sys.modules if m.startswith("dbg_")
                                      and m.endswith(".backend"))
        print(json.dumps(seen))
    """)
    for backend_id, own in (("jdb", "dbg_jdb.backend"), ("dap", "dbg_dap.backend")):
        proc = subprocess.run([sys.executable, "-c", code, backend_id], capture_output=True,
                              text=True, check=True)
        assert json.loads(proc.stdout) == {backend_id: [own]}, proc.stdout


def test_a_declared_id_is_its_plugins_and_a_plugin_registers_only_what_it_declares() -> None:
    import types

    from dbgcore.backends.pluginhost import PluginHost

    def plugin(name: str, source: str) -> types.ModuleType:
        module = types.ModuleType(name)
        exec(textwrap.dedent(source), module.__dict__)
        return module

    takes_dap = plugin("takes_dap", """
        from dbgcore.backends.contract import Backend
        from dbgcore.backends.hookspecs import hookimpl

        class Impostor(Backend):
            id = "dap"

        @hookimpl
        def dbg_register_backends(register):
            register(Impostor)
    """)
    says_a_does_b = plugin("says_a_does_b", """
        from dbgcore.backends.contract import Backend
        from dbgcore.backends.hookspecs import hookimpl

        DBG_BACKEND_IDS = ("a-test",)

        class B(Backend):
            id = "b-test"

        @hookimpl
        def dbg_register_backends(register):
            register(B)
    """)
    for lookup in ("dap", "jdb", "b-test"):
        host = PluginHost(load_entry_points=False)
        host._load("takes_dap", "test", lambda: takes_dap)
        host._load("says_a_does_b", "test", lambda: says_a_does_b)
        found = host.backend_class(lookup)
        # The DAP plugin's "dap", whether or not its hook ran before the
        # later plugin's: the id it declares is its own.
        assert host.backend_classes()["dap"].__module__ == "dbg_dap.backend", lookup
        assert found is (None if lookup == "b-test" else host.backend_classes()[lookup])
        infos = {i.name: i for i in host.report()}
        assert not infos["takes_dap"].ok and "'dap'" in infos["takes_dap"].error, lookup
        assert not infos["says_a_does_b"].ok and "b-test" in infos["says_a_does_b"].error
        assert "b-test" not in host.backend_classes()


def test_the_op_table_imports_no_backend() -> None:
    # Every daemon and front end builds the op table with the plugins' ops: a
    # pdb daemon must not import the DAP backend (40 ms) to name its methods.
    import subprocess
    import sys

    code = textwrap.dedent("""
        import json, sys
        from dbgcore.ops.table import front
        from dbgcore.backends.pluginhost import PluginHost
        table = front(PluginHost).table
        print(json.dumps({"disasm": table.find("disasm") is not None,
                          "backends": sorted(m for m in sys.modules if m.endswith(".backend")
                                             and m != "dbgcore.backends.contract")}))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    seen = json.loads(proc.stdout)
    assert seen == {"disasm": True, "backends": []}, seen


def test_entry_points_are_importlib_metadatas_without_importing_it(plugin_site: Any) -> None:
    import subprocess
    import sys

    code = textwrap.dedent("""
        import json, sys
        from dbgcore.backends.pluginhost import PluginHost, entry_points
        host = PluginHost()
        mine = [[e.name, e.value, e.source] for e in entry_points("dbg")]
        imported = "importlib.metadata" in sys.modules
        from importlib import metadata
        theirs = [[e.name, e.value, f"entry point {e.dist.metadata['Name']} {e.dist.version}"]
                  for e in metadata.entry_points(group="dbg")]
        print(json.dumps({"mine": mine, "theirs": theirs, "imported": imported}))
    """)
    install_good(plugin_site)
    ahead = plugin_site.ahead()  # the same distribution again, earlier on the path
    ahead.install("dbgtest-good", "dbgtest_shadow", "", entry="shadow", version="9.0")
    plugin_site.install("dbgtest-other", "dbgtest_other", "", entry="other-one")
    env = {**os.environ, **plugin_site.env()}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=env)
    seen = json.loads(proc.stdout)
    assert seen["mine"] == seen["theirs"], seen
    names = [name for name, _, _ in seen["mine"]]
    assert "shadow" in names and "other-one" in names and "good" not in names, seen
    assert not seen["imported"], seen
