"""The op table: every op dbg offers, declared once.

An :class:`~dbgcore.vocab.opspec.Op` names the op, its aliases, its typed
arguments, what state the session must be in, a one-line summary, and the
functions that do it: the front end's preparation (:mod:`dbgcore.ops.prepare`),
the daemon's handler (:mod:`dbgcore.ops.handlers`), the backend method that
answers it (:class:`dbgcore.backends.contract.Backend`) and its text renderer
(:mod:`dbgcore.ops.render`). Everything else is made from this table: the
click commands (:mod:`dbgcore.frontends.cli.build`), the fast path (:mod:`dbgcore.entry`),
the daemon's dispatch and state checks (:mod:`dbgcore.daemon.session`), what each
backend supports (`dbg caps`), the MCP tools (:mod:`dbgcore.frontends.mcp.server`) and
the command reference in ``docs/cli.md`` (:mod:`dbgcore.docgen`). Plugins add
their own ops through the ``dbg_add_ops`` hook.

Kept free of heavy imports: every front end reads this table, and the modules
it names keep what only an op's body needs out of their own imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.backends.contract import Backend, answered_ops
from dbgcore.backends.registry import Front
from dbgcore.ops import deferred, handlers, prepare, render_history, stacks
from dbgcore.ops import history as recorded
from dbgcore.ops import render as renderers
from dbgcore.vocab.opspec import Arg, Beside, Handler, Op, OpTable, Payload, Renderer, Start

if TYPE_CHECKING:
    from collections.abc import Callable

    from dbgcore.backends.pluginhost import PluginHost

__all__ = ["BACKEND_OPS", "BUILTIN", "Arg", "Op", "OpTable", "builtin_table", "front", "full_table",
           "render"]


# -- the built-in ops ----------------------------------------------------------------------

_SHOW = Arg("show", "text", "Also evaluate EXPR at this stop.",
            flags=("--show",), multiple=True, metavar="EXPR", expression=True)
_LOCATION_HELP = "FILE:LINE, LINE, FUNCTION or MODULE!FUNCTION"
_STDIN = Arg("stdin", "str", "A file the program reads as its standard input (without it, "
             "`dbg input` sends lines).", flags=("--stdin",), metavar="FILE", path=True)
_IDLE = Arg("idle_timeout", "float", "End the session after this long without a command "
            "(default 1800).", flags=("--idle-timeout",), minimum=1, metavar="SECONDS")
_PYTHON = Arg("python", "str", "Python: the interpreter that runs the program (default: "
              "an active venv's `python3`, else the project's `.venv` or `venv`, looked for "
              "from the program's folder and the run folder up to the project's top, else the "
              "`python3` on PATH).",
              flags=("--python",), metavar="PATH", path=True)


def _stopping(name: str, summary: str, *args: Arg, aliases: tuple[str, ...] = (),
              needs: str = "stopped", handler: Handler | None = None,
              beside: Beside | None = None, method: Callable[..., object] | None = None,
              title: str = "", lost_ok: bool = False, ended_ok: bool = False, checked: bool = True,
              new_debugger: bool | None = None, own_tool: bool = False,
              core_ok: bool = False) -> Op:
    # core_ok: each runs the program, which a core cannot (but `wait` only waits).
    return Op(name, summary, (*args, _SHOW), aliases=aliases, needs=needs, stops=True,
              group="execution", render=renderers.snapshot, handler=handler, beside=beside,
              method=method, title=title, lost_ok=lost_ok, ended_ok=ended_ok, checked=checked,
              new_debugger=new_debugger, own_tool=own_tool, core_ok=core_ok)


BUILTIN: tuple[Op, ...] = (
    # -- sessions
    Op("start", "Start PROGRAM under a debugger, stopped at entry (or at the first "
       "breakpoint with --run).", (
        Arg("program", "str", "The program: a script, a binary, a class, or with -m a module.",
            required=True, path=True),
        Arg("args", "str", "The program's arguments.", multiple=True, passthrough=True),
        Arg("backend", "str", "Backend to use (default: chosen from PROGRAM).",
            flags=("--backend", "-b"), metavar="NAME"),
        Arg("breaks", "location", "Breakpoint to set.", flags=("--break",),
            multiple=True, metavar="LOC"),
        Arg("run", "bool", "Continue to the first stop or the end after starting.",
            flags=("--run",)),
        Arg("core", "str", "Open CORE, a core dump PROGRAM left when it crashed, post mortem: "
            "look around where it died; nothing runs.", flags=("--core",), metavar="CORE",
            path=True),
        Arg("no_catch", "bool", "Do not stop on uncaught exceptions (by default the program "
            "stops where one would end it).", flags=("--no-catch",)),
        Arg("cwd", "str", "Working directory of the program.", flags=("--cwd",),
            metavar="DIR", path=True),
        Arg("env", "str", "Environment variable.", flags=("--env",),
            multiple=True, metavar="K=V"),
        _STDIN, _IDLE,
        Arg("module", "bool", "PROGRAM is a Python module to run like `python -m` "
            "(e.g. pytest).", flags=("-m", "--module")),
        Arg("classpath", "str", "Java: the class path; PROGRAM is then the main class (jdb).",
            flags=("-cp", "--classpath"), metavar="PATH"),
        _PYTHON, _SHOW,
    ), needs="none", stops=True, send="start", prepare=prepare.start, handler=handlers.start,
       own_tool=True,
       render=renderers.snapshot,
       group="sessions", details=(
           "Options go before PROGRAM; every word after it is the program's. A test "
           "runner started here (`-m pytest`, `-m unittest`) stops where a test fails, "
           "as `dbg test` does.\n\n"
           "`--core CORE` opens a core dump instead of running PROGRAM (on the backends "
           "`dbg caps` says can, row core): the stop (reason `core`) says how the process died and "
           "where; stack, frame, up, down, locals, print, threads, disasm and memory read "
           "look around; continue, step, next, finish, until, pause, restart, set, input "
           "and breakpoints are refused (exit 1), since a core cannot run.\n\n"
           "  dbg start --core core ./wc\n"
           "  dbg start --backend lldb --core /var/crash/core.1234 build/server")),
    Op("test", "Run a test suite under the debugger; stop where a test fails.", (
        Arg("args", "str", "The runner's arguments: test files or packages, -k, -run... "
            "(after `--` when the first one starts with a dash).", multiple=True,
            passthrough=True),
        Arg("runner", "str", "pytest, unittest or go (default: go for Go packages, else "
            "pytest when the program's Python has it, else unittest).", flags=("--runner",),
            metavar="NAME"),
        Arg("backend", "str", "Backend to use (default: debugpy for Python, dlv for Go).",
            flags=("--backend", "-b"), metavar="NAME"),
        Arg("breaks", "location", "Breakpoint to set.", flags=("--break",),
            multiple=True, metavar="LOC"),
        Arg("cwd", "str", "Working directory of the run (default: here).", flags=("--cwd",),
            metavar="DIR", path=True),
        Arg("env", "str", "Environment variable.", flags=("--env",),
            multiple=True, metavar="K=V"),
        _STDIN, _IDLE, _PYTHON, _SHOW,
    ), needs="none", stops=True, send="start", prepare=prepare.test, render=renderers.snapshot,
       own_tool=True,
       group="sessions", details=(
           "The run goes straight to the first stop: a failing test, stopped in the frame "
           "that raised the assertion or error, on the failing line (`dbg exception` tells "
           "the rest), or a breakpoint; passing tests do not stop, and `dbg continue` goes "
           "on to the next failure. Python: pytest or unittest, on debugpy or pdb. Go: `go "
           "test` through delve (`-run X` and `-v` are passed as -test.run, -test.v).\n\n"
           "  dbg test tests/test_report.py -k total\n"
           "  dbg test --break helper.py:12 -- -x tests/\n"
           "  dbg test ./pkg -run TestParse")),
    Op("attach", "Attach to a running process (--pid) or debug server (--port).", (
        Arg("backend", "str", "Backend to attach with.", flags=("--backend", "-b"),
            required=True, metavar="NAME"),
        Arg("pid", "int", "Process id to attach to.", flags=("--pid",), minimum=1),
        Arg("port", "int", "Port of a debug server to attach to.", flags=("--port",),
            minimum=1, maximum=65535),
        Arg("host", "str", "Host of the debug server.", flags=("--host",),
            default="127.0.0.1"),
        Arg("program", "str", "Path of the program's binary or script, if the backend "
            "needs it.", flags=("--program",), path=True),
        Arg("breaks", "location", "Breakpoint to set.", flags=("--break",),
            multiple=True, metavar="LOC"),
        Arg("idle_timeout", "float", "End the session after this long without a command.",
            flags=("--idle-timeout",), minimum=1, metavar="SECONDS"),
    ), needs="none", stops=True, send="start", prepare=prepare.attach, handler=handlers.attach,
       method=Backend.attach, title="attaching", render=renderers.snapshot,
       group="sessions"),
    _stopping("restart", "Run the same program again; breakpoints are set again.",
              needs="session", handler=handlers.restart, lost_ok=True, ended_ok=True,
              checked=False, new_debugger=True),
    Op("status", "Show the session's state and where it stopped.", group="sessions",
       own_tool=True,
       handler=handlers.status, beside=handlers.status_beside, render=renderers.status,
       lost_ok=True, ended_ok=True, checked=False),
    Op("sessions", "List live sessions.", needs="none", send="local",
       own_tool=True,
       run=prepare.sessions, render=renderers.sessions, group="sessions"),
    Op("kill", "End the session: debuggee, debugger and daemon.", send="local",
       own_tool=True,
       run=prepare.kill, render=renderers.kill, group="sessions", lost_ok=True),
    # -- breakpoints
    Op("break", "Set a breakpoint at FILE:LINE, LINE, FUNCTION or MODULE!FUNCTION.", (
        Arg("location", "location", _LOCATION_HELP),
        Arg("instruction", "str", "Break at an instruction address instead.",
            flags=("--instruction",), metavar="ADDR"),
        Arg("condition", "str", "Stop only when COND is true.", flags=("--if",),
            metavar="COND", one_line=True, expression=True),
        Arg("hit", "int", "Stop on the Nth hit.", flags=("--hit",), minimum=1, metavar="N"),
        Arg("log", "str", "Log MSG instead of stopping (a logpoint).", flags=("--log",),
            metavar="MSG", one_line=True),
        Arg("temp", "bool", "Remove the breakpoint after its first stop.", flags=("--temp",)),
    ), prepare=prepare.break_, handler=handlers.break_, method=Backend.set_breakpoint,
       title="breakpoints",
       own_tool=True,
       render=renderers.break_, group="breakpoints", core_ok=False,
       children=True),
    Op("unbreak", "Remove a breakpoint by its id or location.", (
        Arg("target", "str", "A breakpoint id (from `dbg breaks`) or a location.",
            required=True, metavar="ID|LOCATION"),
    ), prepare=prepare.unbreak, handler=handlers.unbreak, method=Backend.remove_breakpoint,
       title="removing breakpoints",
       render=renderers.unbreak, group="breakpoints",
       ended_ok=True, children=True),
    Op("breaks", "List breakpoints: where each bound, its condition and hit count.",
       handler=handlers.breaks, method=Backend.list_breakpoints, title="listing breakpoints",
       render=renderers.breaks, group="breakpoints", lost_ok=True, ended_ok=True),
    Op("watch", "Stop when EXPRESSION's value changes (a watchpoint).", (
        Arg("expression", "text", "What to watch: a variable or an expression.",
            required=True, expression=True),
    ), handler=handlers.watch, method=Backend.watch, title="watchpoints", render=renderers.break_,
       own_tool=True,
       group="breakpoints", core_ok=False),
    Op("catch", "Stop where exceptions are raised: of the classes named, or as FILTERS say "
       "(none: stop catching).", (
        Arg("filters", "str", "Exception classes (ValueError, mypkg.errors.ParseError: "
            "subclasses too) and filters: raised, uncaught, userUnhandled, or the debugger's "
            "own (`dbg caps`).", multiple=True),
        Arg("all_code", "bool", "Python: stop where an exception is raised in the standard "
            "library's or an installed package's code too, not only in the program's.",
            flags=("--all-code",)),
    ), handler=handlers.catch, method=Backend.catch, title="exception catchpoints",
       render=renderers.catch, group="breakpoints", core_ok=False, details=(
        "FILTERS: exception classes, and raised (every exception), uncaught (where one "
        "would end the program), userUnhandled (debugpy: where one leaves the program's "
        "code for a library's that does not handle it), or the debugger's own (`dbg caps`). "
        "Each call replaces the filters set before, `uncaught` included, which a session "
        "starts with (unless `dbg start --no-catch`): name it to keep it. Python (pdb, "
        "debugpy): a class or `raised` stops once, where the exception is raised in the "
        "program's own code; one raised inside the standard library or an installed package "
        "stops where it comes out into the program's code (the line that called), and one "
        "handled in there does not stop, unless --all-code. A class name without its module "
        "is a builtin one, or any class of that name loaded when the catch is set. `dbg "
        "exception` tells the rest; `dbg test` stops where a test fails without any catch. "
        "Other debuggers take their own filters and class names (jdb: "
        "java.io.IOException).\n\n"
        "  dbg catch ValueError uncaught\n"
        "  dbg catch mypkg.errors.ParseError\n"
        "  dbg catch raised --all-code")),
    # -- execution
    _stopping("continue", "Resume until the next stop (alias: c).", aliases=("c",),
              own_tool=True,
              handler=handlers.continue_, method=Backend.cont, title="continue"),
    _stopping("step", "Step into the next line, entering calls (alias: s).", aliases=("s",),
              own_tool=True,
              handler=handlers.step, method=Backend.step, title="step into"),
    _stopping("next", "Step over to the next line (alias: n).", aliases=("n",),
              own_tool=True,
              handler=handlers.next_, method=Backend.next, title="step over"),
    _stopping("finish", "Run until the selected frame returns; show its return value.",
              own_tool=True,
              handler=handlers.finish, method=Backend.finish, title="step out"),
    _stopping("until", "Run to LOCATION ahead (FILE:LINE or LINE), or past the current loop.",
              Arg("location", "location", "Where to stop: a line ahead."),
              handler=handlers.until, method=Backend.until, title="run until"),
    _stopping("pause", "Interrupt the running target.", needs="session", handler=handlers.pause,
              own_tool=True,
              beside=handlers.pause_beside, method=Backend.pause, title="pause"),
    _stopping("wait", "Wait for a running target to stop or exit.", needs="session",
              handler=handlers.wait, beside=handlers.wait_beside, ended_ok=True, core_ok=True),
    Op("input", "Send TEXT and a newline to the program's standard input; on a running "
       "program, wait for its next stop.", (
        Arg("text", "text", "The line to send (a newline is added)."),
        Arg("eof", "bool", "Close the program's standard input (after the line, if any).",
            flags=("--eof",)),
    ), handler=handlers.input_, beside=handlers.input_beside, render=renderers.input_,
       own_tool=True,
       group="execution", ended_ok=True, core_ok=False, waits=True, details=(
        "A program started without --stdin reads what `dbg input` sends. A stopping "
        "command (`continue`, `step`...) whose program waits for input answers at once "
        "with `running: waiting for input`; `dbg input` then sends the line and waits for "
        "the next stop, as `dbg wait` does. `dbg output` shows the prompt it printed.")),
    # -- inspection
    Op("stack", "Show the call stack of the current thread.", (
        Arg("levels", "int", "Show at most N frames.", flags=("--levels",), minimum=1,
            metavar="N"),
        Arg("all", "bool", "Also the frames it hides: libraries' and test runners' (the "
            "standard library, site-packages, Go's testing, java.*), the runtime's (runpy, "
            "libc, runtime.main).", flags=("--all",)),
    ), needs="stopped", handler=handlers.stack, method=Backend.stack, title="stack traces",
       own_tool=True,
       render=renderers.stack, details=(
        "Each frame shows its arguments (`fee(amount=1000)`, values cut at 60 characters). "
        "Library and runtime frames are hidden, except frame 0 and the selected one, and "
        "counted in their place (`... 24 frames of _pytest, pluggy`). Frames keep the "
        "numbers `dbg stack --all` gives them; `dbg frame N` selects any of them, `up` "
        "and `down` move among the frames shown.")),
    stacks.OP,
    Op("frame", "Select frame INDEX (0 is where the target stopped).", (
        Arg("index", "int", "The frame's index in `dbg stack` (a hidden one's in "
            "`dbg stack --all`).", required=True, minimum=0),
    ), needs="stopped", handler=handlers.frame, method=Backend.select_frame,
       title="frame selection",
       own_tool=True,
       render=renderers.frame),
    Op("up", "Select the caller's frame (COUNT levels up).", (
        Arg("count", "int", "How many levels.", default=1, minimum=1),
    ), needs="stopped", handler=handlers.up, render=renderers.frame),
    Op("down", "Select the callee's frame (COUNT levels down).", (
        Arg("count", "int", "How many levels.", default=1, minimum=1),
    ), needs="stopped", handler=handlers.down, render=renderers.frame),
    Op("locals", "Show the local variables of the selected frame.", needs="stopped",
       own_tool=True,
       handler=handlers.locals_, method=Backend.locals, title="locals", render=renderers.locals_),
    Op("print", "Evaluate EXPRESSION in the selected frame; `;` separates several.", (
        Arg("expression", "text", "One expression, or several separated by `;` "
            "(`dbg print 'x; y + 1'`).", required=True, expression=True),
    ), needs="stopped", handler=handlers.print_, method=Backend.evaluate,
       title="expression evaluation",
       own_tool=True,
       render=renderers.print_),
    Op("display", "Show EXPRESSION at every later stop (no argument: list them).", (
        Arg("expression", "text", "The expression to show.", expression=True),
    ), handler=handlers.display, render=renderers.display, ended_ok=True),
    Op("undisplay", "Stop showing an expression at stops (by its number, or all).", (
        Arg("number", "int", "The number `dbg display` gave it; none: all.", minimum=1),
    ), handler=handlers.undisplay, render=renderers.display, ended_ok=True),
    Op("set", "Assign VALUE (an expression) to LHS in the selected frame.", (
        Arg("lhs", "str", "A variable or field.", required=True, one_line=True,
            expression=True),
        Arg("value", "text", "The new value, an expression.", required=True, expression=True),
    ), needs="stopped", handler=handlers.set_, method=Backend.set_variable,
       title="setting variables",
       render=renderers.set_, core_ok=False),
    Op("threads", "List threads.", needs="stopped", handler=handlers.threads,
       method=Backend.threads, title="thread listing", render=renderers.threads),
    Op("thread", "Select thread ID.", (
        Arg("id", "str", "The thread's id from `dbg threads`.", required=True, metavar="ID"),
    ), needs="stopped", handler=handlers.thread, method=Backend.select_thread,
       title="thread selection",
       render=renderers.thread),
    Op("list", "Show source around the current line, or around FILE:LINE / LINE.", (
        Arg("location", "location", "Where: FILE:LINE or LINE."),
        Arg("context", "int", "Lines before and after.", flags=("--context",), default=5,
            minimum=0),
    ), handler=handlers.list_, render=renderers.list_, ended_ok=True),
    Op("exception", "The exception the target stopped on: type, message, traceback in "
       "call order.", needs="stopped", method=Backend.op_exception,
       handler=handlers.exception, render=renderers.exception),
    Op("output", "Show the program's output (stdout and stderr kept apart), paged by cursor.", (
        Arg("since", "int", "Cursor from the previous answer; only newer output is shown.",
            flags=("--since",), default=0, minimum=0),
        Arg("stdout", "bool", "Only the program's stdout.", flags=("--stdout",)),
        Arg("stderr", "bool", "Only the program's stderr.", flags=("--stderr",)),
    ), handler=handlers.output, beside=handlers.output_beside, render=renderers.output,
       own_tool=True,
       lost_ok=True, ended_ok=True),
    Op("raw", "Send TEXT to the native debugger and print its answer unparsed.", (
        Arg("text", "text", "A command in the debugger's own language.", required=True,
            passthrough=True),
    ), handler=handlers.raw, method=Backend.raw, title="raw commands", render=renderers.raw,
       own_tool=True,
       waits=True),
    # -- meta
    Op("tool", "Show the debugger (tool and version) behind the current session.",
       handler=handlers.tool, beside=handlers.tool_beside, render=renderers.tool, group="meta",
       lost_ok=True, ended_ok=True),
    Op("hits", "List recorded stops (optionally only those at LOCATION); works after the "
       "session ended, and after a crash.", (
        Arg("location", "str", "Only stops at this location."),
        Arg("all", "bool", "Every recorded session of this name, not just the latest.",
            flags=("--all",)),
        Arg("limit", "int", "At most this many.", flags=("--limit",), default=200,
            minimum=1),
        Arg("diff", "bool", "Show, hit to hit, only the locals that changed since the "
            "previous hit in the same function.", flags=("--diff",)),
    ), needs="none", send="local", run=prepare.hits, render=renderers.hits, group="history"),
    Op("trace", "Run on without stopping, recording each call of FUNCTION...: arguments, "
       "return value or exception, caller; with --lines each line and the locals it changed.", (
        Arg("functions", "str", "The functions to trace, named as `dbg break` names them.",
            required=True, multiple=True, metavar="FUNCTION"),
        Arg("lines", "bool", "Also record each line a traced call reaches, with the locals "
            "that changed there.", flags=("--lines",)),
        Arg("max", "int", "Record at most N calls (default 10000); later ones are counted.",
            flags=("--max",), minimum=1, metavar="N"),
        Arg("limit", "int", "Show the last N calls (default 40); `dbg calls` has them all.",
            flags=("--limit",), minimum=1, metavar="N"),
    ), stops=True, handler=handlers.trace, method=Backend.trace, title="call traces",
       render=render_history.trace, group="history", core_ok=False, details=(
           "The program runs from the current stop until it stops by itself (a "
           "breakpoint, an exception, the end) or the op's --timeout, which pauses it; the "
           "answer is that stop and one line per call, most recent last, nested by depth. "
           "The calls are kept in the session store with the run (`dbg calls`, `dbg diff`), "
           "also after the session ended. How each debugger traces: `dbg caps` row trace "
           "(native: the debugger's own means in the program; fallback: dbg's breakpoints "
           "and step out, a few calls a second, and without return values with --lines).\n\n"
           "  dbg trace tri\n"
           "  dbg trace parse_line emit --max 500\n"
           "  dbg trace fee --lines")),
    Op("calls", "List the calls `dbg trace` recorded (of FUNCTION), also after the session "
       "ended.", (
        Arg("function", "str", "Only the calls of this function."),
        Arg("where", "str", "Only calls where EXPR holds, over their argument names, ret "
            "(the return value), exc (the exception), fn, depth.", flags=("--where",),
            metavar="EXPR", one_line=True),
        Arg("run", "int", "The run (`dbg runs`; default the session's latest).",
            flags=("--run",), minimum=1, metavar="ID"),
        Arg("limit", "int", "Show the last N (default 40).", flags=("--limit",), minimum=1,
            metavar="N"),
    ), needs="none", send="local", run=recorded.calls, render=render_history.calls,
       group="history", details=(
           "Values are compared as the literals they read as (3, -1.5, 'abc', None), so the "
           "same EXPR works on every language's records.\n\n"
           "  dbg calls check_entry --where \"value < 0\"\n"
           "  dbg calls tri --where \"n == 2 and ret != 3\"")),
    Op("history", "The values EXPR took: at each recorded stop, or with --at at each hit of "
       "LOCATION as the program runs on, without stopping there.", (
        Arg("expression", "text", "The expression (without --at: a local's name, or an "
            "expression over recorded locals; the values an earlier --at of the same EXPR "
            "recorded are read too).", required=True, expression=True),
        Arg("at", "location", "Run on, evaluating EXPR at each hit of LOC (" + _LOCATION_HELP
            + ") until the program stops by itself.", flags=("--at",), metavar="LOC"),
        Arg("max", "int", "With --at: stop the program at the Nth hit (default 1000).",
            flags=("--max",), minimum=1, metavar="N"),
        Arg("run", "int", "Without --at: the run (`dbg runs`; default the latest).",
            flags=("--run",), minimum=1, metavar="ID"),
        Arg("limit", "int", "Show the last N values (default 40).", flags=("--limit",),
            minimum=1, metavar="N"),
    ), needs="none", send="local", run=recorded.history, handler=handlers.history,
       render=render_history.history, group="history", core_ok=False, waits=True, details=(
           "Each value is marked * where it changed from the one before, with where it was "
           "seen.\n\n"
           "  dbg history total --at ledger.py:41\n"
           "  dbg history 'len(items)'")),
    Op("runs", "List the recorded runs of the program (start, restart, test): ids for "
       "`dbg diff`, and how each ended (in progress, or cut short when its end was never "
       "written).", (
        Arg("all", "bool", "Every session's runs, not only this session's.", flags=("--all",)),
        Arg("limit", "int", "The last N (default 40).", flags=("--limit",), minimum=1,
            metavar="N"),
    ), needs="none", send="local", run=recorded.runs, render=render_history.runs,
       group="history"),
    Op("diff", "Where two runs part ways: the first traced call, return value or line (or "
       "stop) that differs, both sides shown.", (
        Arg("run_a", "int", "The first run's id (`dbg runs`).", minimum=1, metavar="RUN_A"),
        Arg("run_b", "int", "The second run's id.", minimum=1, metavar="RUN_B"),
    ), needs="none", send="local", run=recorded.diff, render=render_history.diff,
       group="history", details=(
           "Without ids: the session's last two runs. Trace the same functions in both "
           "(e.g. a passing input and a failing one) and the answer is the first call whose "
           "arguments or result differ.\n\n"
           "  dbg diff 12 13")),
    Op("backends", "List backends: ready or missing, with how to install what is missing.",
       needs="none", send="local", run=prepare.backends, render=renderers.backends, group="meta"),
    Op("plugins", "List plugins and the backends each registers; broken ones say why.",
       needs="none", send="local", run=prepare.plugins, render=renderers.plugins, group="meta"),
    Op("caps", "Which ops each backend supports: natively, by a fallback, or not at all.", (
        Arg("backend", "str", "Only this backend; default: every ready one.",
            flags=("--backend", "-b"), multiple=True, metavar="NAME"),
        Arg("markdown", "bool", "Print the matrix as a Markdown table.", flags=("--markdown",)),
    ), needs="none", send="local", run=prepare.caps, render=renderers.caps, group="meta"),
    Op("doctor", "Check this machine and dbg's own files, one line per check with its fix.", (
        Arg("fix", "bool", "Do the safe fixes: end what dead daemons left running and "
            "remove their runtime files, move a damaged store aside, acknowledge the stores "
            "set aside (the copies stay), close DBG_HOME to others.", flags=("--fix",)),
    ), needs="none", send="local", run=deferred.doctor, render=renderers.doctor,
       group="meta", details=(
           "Exit 0 when every check a user needs passes, 1 when one fails; `warn` lines "
           "(a backend not installed, attach by pid limited by the kernel) do not fail it.")),
    Op("report", "Bundle what a bug report needs (logs, recorded commands and stops, doctor, "
       "versions, environment; each log's last 2 MB) into one .tar.gz, the secrets it holds "
       "masked in every file (docs/sessions.md says which); print its path.", (
        Arg("name", "str", "The session (default: the current one).", metavar="SESSION"),
        Arg("output", "str", "The folder to write into (default: DBG_HOME/reports).",
            flags=("--output", "-o"), metavar="DIR", path=True),
    ), needs="none", send="local", run=deferred.report, render=renderers.report,
       group="meta"),
    Op("agent-install", "Register `dbg mcp` with a coding agent and install dbg's skill, in "
       "the agent's own configuration files; say what was written.", (
        Arg("agent", "str", "The agent: claude (Claude Code) or codex (Codex CLI).",
            required=True, metavar="AGENT"),
        Arg("scope", "str", "user (your settings, for every project; the default) or project "
            "(the current folder's).", flags=("--scope",), default="user", metavar="SCOPE"),
        Arg("print", "bool", "Show what would be written; write nothing.", flags=("--print",)),
    ), needs="none", send="local", run=prepare.agent_install, render=renderers.agent_install,
       group="meta", agent=False, path=("agent", "install"), details=(
           "A file that exists is merged into: only dbg's entry is added or brought up to "
           "date. claude: mcpServers.dbg in ~/.claude.json (project: .mcp.json) and the skill "
           "in ~/.claude/skills/dbg/ (project: .claude/skills/dbg/). codex: [mcp_servers.dbg] "
           "in ~/.codex/config.toml (project: .codex/config.toml) and the skill in "
           "~/.codex/skills/dbg/ (project: .codex/skills/dbg/).")),
    Op("mcp", "Serve dbg's ops to an agent over the Model Context Protocol (stdio).",
       needs="none", send="local", run=deferred.mcp, group="meta", agent=False,
       details=(
           "The ops most sessions use are tools named dbg_<op> (dbg_start, dbg_break, "
           "dbg_print...), the others are reached through dbg_more (op and args), which keeps "
           "the listing under 10 KB; sessions are the same daemons the CLI uses. "
           "`dbg agent install claude` (or codex) registers it, or in an MCP client's JSON "
           "settings:\n\n"
           '  {"mcpServers": {"dbg": {"command": "dbg", "args": ["mcp"]}}}')),
)


#: The ops a backend answers by overriding a :class:`Backend` method (the
#: rows of `dbg caps` before the features), in `dbg caps`'s order.
BACKEND_OPS: list[Op] = answered_ops(BUILTIN)

_BUILTIN_TABLE: OpTable | None = None


def builtin_table() -> OpTable:
    """dbg's own ops (no plugin's)."""
    global _BUILTIN_TABLE
    if _BUILTIN_TABLE is None:
        _BUILTIN_TABLE = OpTable(BUILTIN)
    return _BUILTIN_TABLE


def full_table(host: PluginHost) -> OpTable:
    """dbg's ops and those of every plugin ``host`` loaded (their
    ``dbg_add_ops`` hooks run now)."""
    table = OpTable(BUILTIN)
    host.add_ops(table)
    return table


def front(make_host: Callable[[], PluginHost], start: Start | None = None) -> Front:
    """What a process that answers ops hands them: every op the plugins of
    the host offer, their backends, and ``start`` for the ops that start a
    session. Made once, by the entry point; the host is made (the plugins
    loaded) when first needed."""
    return Front(make_host, full_table, start)


def render(op: str, payload: Payload, table: OpTable | None = None) -> str:
    """The text of ``op``'s answer, by the renderer its declaration names (in
    ``table``, default dbg's own ops)."""
    spec = (table or builtin_table()).find(op)
    renderer: Renderer | None = spec.render if spec is not None else None
    return renderers.text(renderer, payload)
