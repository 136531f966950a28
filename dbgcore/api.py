"""dbg's public plugin API: everything a backend plugin may use, in one place.

A plugin imports from here only (``from dbgcore.api import Backend, StopEvent``);
the modules behind these names may move between releases, this module's names
do not. docs/plugins.md walks through them. Names are loaded on first use, so
importing this module costs nothing a plugin does not use.

:data:`EXPORTS` is the one list of the names, each under the module it comes
from; ``__all__`` and the lookup are made from it, and so is the type stub
beside this file (``api.pyi``, for mypy, by ``python -m dbgcore.docgen``,
checked current by a unit test).
"""

from __future__ import annotations

import importlib

#: Each public name under the module that defines it. A name that is a module
#: of its own (``procutil``) sits under its package.
EXPORTS: dict[str, tuple[str, ...]] = {
    "dbgcore.shared": ("elf", "procutil"),
    "dbgcore.transport": ("peers",),
    "dbgcore.inprogram": ("libfiles", "pyrepr", "pytasks", "pytrace", "pytree", "pywatch"),
    "dbgcore.backends": ("pyspy",),
    "dbgcore.backends.profiler": ("RecordRequest", "Profiler", "run_bounded"),
    "dbgcore.vocab.profiles": ("HeapPoint", "Leak", "Profile", "ProfileFrame", "Sample"),
    "dbgcore.backends.contract": ("AttachRequest", "Backend", "BackendSpec", "LaunchRequest",
                        "Readiness", "SessionContext", "Support"),
    "dbgcore.backends.choice": ("binary_kind",),
    "dbgcore.shared.bounds": ("number_or_name",),
    "dbgcore.start.children": ("child_session_name", "start_child_session"),
    "dbgcore.frontends.cli.emit": ("emit",),
    "dbgcore.backends.console": ("ConsoleBackend",),
    "dbgcore.backends.corefile": ("CoreInfo", "post_mortem_description", "read_core"),
    "dbgcore.transport.dap.channel": ("DapChannel", "DapRequestError", "Message"),
    "dbgcore.transport.dap.adaptersession": ("DapSession",),
    "dbgcore.transport.dap.adapter": ("LISTENING_RE", "AdapterProcess", "LoopbackListener",
                              "PipeTransport", "SocketTransport", "Transport",
                              "parse_listening"),
    "dbgcore.shared.errors": ("BackendError", "BackendMissing", "DbgError", "DebuggerLost",
                        "DebuggerTimeout", "NotAProgram", "NotStopped", "OpFailed",
                        "TargetExited", "UnsupportedOp", "UsageError"),
    "dbgcore.backends.hookspecs": ("hookimpl",),
    "dbgcore.lang.rules": ("function_span", "next_python_code_line", "no_code_message",
                     "python_code_lines", "python_function", "python_is_generator",
                     "python_object_repr", "python_program_problem"),
    "dbgcore.vocab.model": ("BreakLoc", "BreakOptions", "Breakpoint", "FieldList", "Frame",
                      "Location", "ReturnValue", "StopEvent", "StopState", "Thread",
                      "ThreadStack", "Value", "Variable", "ended", "signal_name"),
    "dbgcore.ops.table": ("render",),
    "dbgcore.vocab.opspec": ("Arg", "Op"),
    "dbgcore.transport.outputbuffer": ("OutputBuffer",),
    "dbgcore.shared.paths": ("dbg_home", "private_dir"),
    "dbgcore.shared.pathmap": ("PathMap",),
    "dbgcore.start.prespawn": ("adapter_secret",),
    "dbgcore.transport.ptydriver": ("Match", "PtyDriver", "PtyEOF", "PtyTimeout"),
    "dbgcore.lang.pyframes": ("STDLIB_EXPRESSION", "PythonLibraries", "python_parameters"),
    "dbgcore.lang.pyplaces": ("CodePlace", "loaded_functions_expression", "outside_program",
                              "python_places"),
    "dbgcore.lang.pyprobe": ("PythonSetup", "file_key", "probe_python", "real_python",
                        "recall", "remember"),
    "dbgcore.lang.sourcefind": ("Tier", "real_path", "resolve_source", "walk_sources"),
    "dbgcore.transport.streams": ("OutputPump",),
    "dbgcore.shared.timeouts": ("DEFAULT_TIMEOUT",),
    "dbgcore.backends.stoptracer": ("trace_by_stops",),
    "dbgcore.vocab.traces": ("VALUE_CHARS", "CallRecord", "CallSink", "LineRecord",
                        "TraceOutcome", "follow_trace_file", "read_trace_file",
                        "recorded_events", "traced_run"),
    "dbgcore.transport.translog": ("TransLog",),
    "dbgcore.store.replayed": ("recorded_run",),
}

_HOME = {name: home for home, names in EXPORTS.items() for name in names}
__all__ = list(_HOME)


# mypy reads each name's own type in api.pyi, not here.
def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"dbgcore.api has no {name!r}: see docs/plugins.md")
    module = importlib.import_module(home)
    # A name that is a module of its own is imported as one.
    value = getattr(module, name) if hasattr(module, name) else \
        importlib.import_module(f"{home}.{name}")
    globals()[name] = value  # the next lookup is a plain one
    return value
