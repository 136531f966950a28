"""dbg's public plugin API: everything a backend plugin may use, in one place.

A plugin imports from here only (``from dbgcore.api import Backend, StopEvent``);
the modules behind these names may move between releases, this module's names
do not. docs/plugins.md walks through them. Names are loaded on first use, so
importing this module costs nothing a plugin does not use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dbgcore import peers, procutil, pyrepr, pytrace, pywatch
    from dbgcore.backend import (
        AttachRequest,
        Backend,
        BackendSpec,
        LaunchRequest,
        Readiness,
        SessionContext,
        Support,
    )
    from dbgcore.backendchoice import binary_kind
    from dbgcore.bounds import number_or_name
    from dbgcore.children import child_session_name, start_child_session
    from dbgcore.cli.output import emit
    from dbgcore.console import ConsoleBackend
    from dbgcore.corefile import CoreInfo, post_mortem_description, read_core
    from dbgcore.dap.channel import DapChannel, DapRequestError, Message
    from dbgcore.dap.session import DapSession
    from dbgcore.dap.transport import (
        LISTENING_RE,
        AdapterProcess,
        LoopbackListener,
        PipeTransport,
        SocketTransport,
        Transport,
        parse_listening,
    )
    from dbgcore.errors import (
        DbgError,
        DebuggerLost,
        DebuggerTimeout,
        NotAProgram,
        NotStopped,
        OpFailed,
        TargetExited,
        UnsupportedOp,
        UsageError,
    )
    from dbgcore.hookspecs import hookimpl
    from dbgcore.lang import (
        function_span,
        next_python_code_line,
        no_code_message,
        python_code_lines,
        python_function,
        python_is_generator,
        python_object_repr,
        python_program_problem,
    )
    from dbgcore.model import (
        BreakLoc,
        BreakOptions,
        Breakpoint,
        Frame,
        Location,
        ReturnValue,
        StopEvent,
        StopState,
        Thread,
        Value,
        Variable,
        ended,
        signal_name,
    )
    from dbgcore.ops import render
    from dbgcore.opspec import Arg, Op
    from dbgcore.output import OutputBuffer
    from dbgcore.paths import dbg_home, private_dir
    from dbgcore.prespawn import adapter_secret
    from dbgcore.ptydriver import Match, PtyDriver, PtyEOF, PtyTimeout
    from dbgcore.pyframes import STDLIB_EXPRESSION, PythonLibraries, python_parameters
    from dbgcore.pyprobe import (
        PythonSetup,
        file_key,
        probe_python,
        real_python,
        recall,
        remember,
    )
    from dbgcore.sources import Tier, resolve_source, walk_sources
    from dbgcore.streams import OutputPump
    from dbgcore.timeouts import DEFAULT_TIMEOUT
    from dbgcore.tracefall import trace_by_stops
    from dbgcore.tracing import (
        VALUE_CHARS,
        CallRecord,
        CallSink,
        LineRecord,
        TraceOutcome,
        follow_trace_file,
        read_trace_file,
        traced_run,
    )
    from dbgcore.translog import TransLog

__all__ = [
    "DEFAULT_TIMEOUT",
    "LISTENING_RE",
    "STDLIB_EXPRESSION",
    "VALUE_CHARS",
    "AdapterProcess",
    "Arg",
    "AttachRequest",
    "Backend",
    "BackendSpec",
    "BreakLoc",
    "BreakOptions",
    "Breakpoint",
    "CallRecord",
    "CallSink",
    "ConsoleBackend",
    "CoreInfo",
    "DapChannel",
    "DapRequestError",
    "DapSession",
    "DbgError",
    "DebuggerLost",
    "DebuggerTimeout",
    "Frame",
    "LaunchRequest",
    "LineRecord",
    "Location",
    "LoopbackListener",
    "Match",
    "Message",
    "NotAProgram",
    "NotStopped",
    "Op",
    "OpFailed",
    "OutputBuffer",
    "OutputPump",
    "PipeTransport",
    "PtyDriver",
    "PtyEOF",
    "PtyTimeout",
    "PythonLibraries",
    "PythonSetup",
    "Readiness",
    "ReturnValue",
    "SessionContext",
    "SocketTransport",
    "StopEvent",
    "StopState",
    "Support",
    "TargetExited",
    "Thread",
    "Tier",
    "TraceOutcome",
    "TransLog",
    "Transport",
    "UnsupportedOp",
    "UsageError",
    "Value",
    "Variable",
    "adapter_secret",
    "binary_kind",
    "child_session_name",
    "dbg_home",
    "emit",
    "ended",
    "file_key",
    "follow_trace_file",
    "function_span",
    "hookimpl",
    "next_python_code_line",
    "no_code_message",
    "number_or_name",
    "parse_listening",
    "peers",
    "post_mortem_description",
    "private_dir",
    "probe_python",
    "procutil",
    "pyrepr",
    "python_code_lines",
    "python_function",
    "python_is_generator",
    "python_object_repr",
    "python_parameters",
    "python_program_problem",
    "pytrace",
    "pywatch",
    "read_core",
    "read_trace_file",
    "real_python",
    "recall",
    "remember",
    "render",
    "resolve_source",
    "signal_name",
    "start_child_session",
    "trace_by_stops",
    "traced_run",
    "walk_sources",
]

#: Where each public name is defined.
_HOME: dict[str, str] = {
    "AttachRequest": "dbgcore.backend",
    "Backend": "dbgcore.backend",
    "BackendSpec": "dbgcore.backend",
    "LaunchRequest": "dbgcore.backend",
    "Readiness": "dbgcore.backend",
    "SessionContext": "dbgcore.backend",
    "Support": "dbgcore.backend",
    "BreakLoc": "dbgcore.model",
    "BreakOptions": "dbgcore.model",
    "Breakpoint": "dbgcore.model",
    "Frame": "dbgcore.model",
    "Location": "dbgcore.model",
    "ReturnValue": "dbgcore.model",
    "StopEvent": "dbgcore.model",
    "StopState": "dbgcore.model",
    "Thread": "dbgcore.model",
    "Value": "dbgcore.model",
    "Variable": "dbgcore.model",
    "ended": "dbgcore.model",
    "signal_name": "dbgcore.model",
    "CallRecord": "dbgcore.tracing",
    "CallSink": "dbgcore.tracing",
    "follow_trace_file": "dbgcore.tracing",
    "LineRecord": "dbgcore.tracing",
    "TraceOutcome": "dbgcore.tracing",
    "read_trace_file": "dbgcore.tracing",
    "VALUE_CHARS": "dbgcore.tracing",
    "traced_run": "dbgcore.tracing",
    "trace_by_stops": "dbgcore.tracefall",
    "DbgError": "dbgcore.errors",
    "DebuggerLost": "dbgcore.errors",
    "DebuggerTimeout": "dbgcore.errors",
    "NotAProgram": "dbgcore.errors",
    "NotStopped": "dbgcore.errors",
    "OpFailed": "dbgcore.errors",
    "TargetExited": "dbgcore.errors",
    "UnsupportedOp": "dbgcore.errors",
    "UsageError": "dbgcore.errors",
    "number_or_name": "dbgcore.bounds",
    "hookimpl": "dbgcore.hookspecs",
    "Arg": "dbgcore.opspec",
    "DEFAULT_TIMEOUT": "dbgcore.timeouts",
    "Op": "dbgcore.opspec",
    "ConsoleBackend": "dbgcore.console",
    "CoreInfo": "dbgcore.corefile",
    "post_mortem_description": "dbgcore.corefile",
    "read_core": "dbgcore.corefile",
    "child_session_name": "dbgcore.children",
    "start_child_session": "dbgcore.children",
    "Match": "dbgcore.ptydriver",
    "PtyDriver": "dbgcore.ptydriver",
    "PtyEOF": "dbgcore.ptydriver",
    "PtyTimeout": "dbgcore.ptydriver",
    "PythonLibraries": "dbgcore.pyframes",
    "STDLIB_EXPRESSION": "dbgcore.pyframes",
    "python_parameters": "dbgcore.pyframes",
    "PythonSetup": "dbgcore.pyprobe",
    "probe_python": "dbgcore.pyprobe",
    "real_python": "dbgcore.pyprobe",
    "file_key": "dbgcore.pyprobe",
    "recall": "dbgcore.pyprobe",
    "remember": "dbgcore.pyprobe",
    "OutputPump": "dbgcore.streams",
    "OutputBuffer": "dbgcore.output",
    "TransLog": "dbgcore.translog",
    "DapChannel": "dbgcore.dap.channel",
    "DapRequestError": "dbgcore.dap.channel",
    "Message": "dbgcore.dap.channel",
    "DapSession": "dbgcore.dap.session",
    "AdapterProcess": "dbgcore.dap.transport",
    "LISTENING_RE": "dbgcore.dap.transport",
    "LoopbackListener": "dbgcore.dap.transport",
    "PipeTransport": "dbgcore.dap.transport",
    "SocketTransport": "dbgcore.dap.transport",
    "Transport": "dbgcore.dap.transport",
    "parse_listening": "dbgcore.dap.transport",
    "Tier": "dbgcore.sources",
    "resolve_source": "dbgcore.sources",
    "walk_sources": "dbgcore.sources",
    "function_span": "dbgcore.lang",
    "next_python_code_line": "dbgcore.lang",
    "no_code_message": "dbgcore.lang",
    "python_code_lines": "dbgcore.lang",
    "python_function": "dbgcore.lang",
    "python_is_generator": "dbgcore.lang",
    "python_object_repr": "dbgcore.lang",
    "python_program_problem": "dbgcore.lang",
    "dbg_home": "dbgcore.paths",
    "private_dir": "dbgcore.paths",
    "adapter_secret": "dbgcore.prespawn",
    "binary_kind": "dbgcore.backendchoice",
    "emit": "dbgcore.cli.output",
    "render": "dbgcore.ops",
}


# Any: it returns whichever exported object is named (a class, a function, a
# module, a constant), loaded on first use; mypy reads the TYPE_CHECKING
# imports above for each name's own type.
def __getattr__(name: str) -> Any:
    if name in ("procutil", "peers", "pyrepr", "pytrace", "pywatch"):
        return importlib.import_module(f"dbgcore.{name}")
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"dbgcore.api has no {name!r}: see docs/plugins.md")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # the next lookup is a plain one
    return value
