"""The op table: every op dbg offers, declared once.

An :class:`Op` names the op, its aliases, its typed arguments (:class:`Arg`),
what state the session must be in, a one-line summary and its text renderer.
Everything else is made from this table: the click commands
(:mod:`dbgcore.cli.build`), the fast path (:mod:`dbgcore.entry`), the daemon's
state checks (:mod:`dbgcore.session`), the MCP tools (:mod:`dbgcore.mcp_server`)
and the command reference in ``docs/cli.md`` (:mod:`dbgcore.docgen`).
Plugins add their own ops, with renderers, through the ``dbg_add_ops`` hook.

Kept free of heavy imports: the fast path reads this table on every call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    Payload = dict[str, Any]
    Renderer = Callable[[Payload], str]

#: Argument kinds, and what they are on the wire.
KINDS = ("str", "text", "int", "float", "bool", "location", "json")


class Arg:
    """One typed argument of an op.

    ``kind``: ``str``; ``text`` (free text, several shell words joined with
    spaces: an expression, a raw command); ``int``; ``float``; ``bool`` (a
    flag); ``location`` (``FILE:LINE``, ``LINE``, ``FUNCTION`` or
    ``MODULE!FUNCTION``, parsed at the front end and sent as a typed value);
    ``json`` (a JSON text). ``flags`` are the option's spellings on the
    command line; an argument without flags is positional. ``multiple``: a
    list (a repeatable option, or every remaining positional word).
    ``one_line`` (default: for ``text``): the value is read by the debugger
    as one line (an expression, a condition, a command, a line of input), so
    a CR, LF or NUL in it is a usage error at the front end, before anything
    is sent: dbg's one newline rule (docs/semantics.md).
    """

    __slots__ = ("default", "flags", "help", "hidden", "kind", "maximum", "metavar",
                 "minimum", "multiple", "name", "one_line", "passthrough", "required")

    def __init__(self, name: str, kind: str = "str", help: str = "", *,
                 flags: tuple[str, ...] = (), required: bool = False, default: Any = None,
                 multiple: bool = False, minimum: float | None = None,
                 maximum: float | None = None, metavar: str | None = None,
                 passthrough: bool = False, hidden: bool = False,
                 one_line: bool | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown argument kind {kind!r}")
        self.name = name
        self.kind = kind
        self.help = help
        self.flags = flags
        self.required = required
        self.default = default
        self.multiple = multiple
        self.minimum = minimum
        self.maximum = maximum
        self.metavar = metavar
        #: Positional words taken as they are, dashes included (a program's arguments).
        self.passthrough = passthrough
        #: Not offered on the command line (front ends other than the CLI only).
        self.hidden = hidden
        self.one_line = kind == "text" if one_line is None else one_line

    @property
    def positional(self) -> bool:
        return not self.flags

    @property
    def label(self) -> str:
        return self.metavar or self.name.upper()

    def __repr__(self) -> str:
        return f"Arg({self.name!r}, {self.kind!r})"


class Op:
    """One op.

    ``needs``: ``none`` (no session at all: answered by the client),
    ``session`` (a session with a program), ``stopped`` (refused with
    ``not_stopped`` while the target runs, ``target_exited`` after it ended).
    ``stops``: blocks until the target stops and answers with a stop
    snapshot. ``send``: ``call`` (sent to the session's daemon), ``start``
    (starts a daemon and sends it this op), ``local`` (answered in the
    front end's process by ``run``, a ``module:function`` path or a callable
    ``(values, session) -> payload``). ``prepare`` (same forms) turns the
    front end's checked values into what is sent: ``(op, args)``.
    ``render``: a function name in :mod:`dbgcore.cli.render`, or a callable.
    ``lost_ok``: answered even when the debugger died. ``path``: the words of
    the command line (``("memory", "read")``), default the name.
    """

    __slots__ = ("agent", "aliases", "args", "details", "group", "lost_ok", "name", "needs",
                 "path", "prepare", "render", "run", "send", "stops", "summary")

    def __init__(self, name: str, summary: str, args: Iterable[Arg] = (), *,
                 aliases: tuple[str, ...] = (), needs: str = "session", stops: bool = False,
                 send: str = "call", run: Any = None, prepare: Any = None,
                 render: Any = None, group: str = "inspection", lost_ok: bool = False,
                 path: tuple[str, ...] | None = None, agent: bool = True,
                 details: str = "") -> None:
        if needs not in ("none", "session", "stopped"):
            raise ValueError(f"op {name}: unknown needs {needs!r}")
        if send not in ("call", "start", "local"):
            raise ValueError(f"op {name}: unknown send {send!r}")
        self.name = name
        self.summary = summary
        self.args = tuple(args)
        self.aliases = aliases
        self.needs = needs
        self.stops = stops
        self.send = send
        self.run = run
        self.prepare = prepare
        self.render = render
        self.group = group
        self.lost_ok = lost_ok
        #: The words of its command line; () for an op no command sends by name.
        self.path = (name,) if path is None else path
        #: More help, after the summary (`dbg OP --help`).
        self.details = details
        #: Offered to agents as an MCP tool.
        self.agent = agent

    def arg(self, name: str) -> Arg:
        return next(a for a in self.args if a.name == name)

    def __repr__(self) -> str:
        return f"Op({self.name!r})"


def resolve(ref: Any) -> Any:
    """A ``module:function`` path to the function (callables as they are)."""
    if not isinstance(ref, str):
        return ref
    import importlib

    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


# -- the built-in ops ----------------------------------------------------------------------

_SHOW = Arg("show", "text", "Also evaluate EXPR at this stop.",
            flags=("--show",), multiple=True, metavar="EXPR")
_LOCATION_HELP = "FILE:LINE, LINE, FUNCTION or MODULE!FUNCTION"
_STDIN = Arg("stdin", "str", "A file the program reads as its standard input (without it, "
             "`dbg input` sends lines).", flags=("--stdin",), metavar="FILE")
_IDLE = Arg("idle_timeout", "float", "End the session after this long without a command "
            "(default 1800).", flags=("--idle-timeout",), minimum=1, metavar="SECONDS")
_PYTHON = Arg("python", "str", "Python: the interpreter that runs the program (default: "
              "the `python3` this environment runs, e.g. an active venv's).",
              flags=("--python",), metavar="PATH")
_PREP = "dbgcore.cli.prepare"


def _stopping(name: str, summary: str, *args: Arg, aliases: tuple[str, ...] = (),
              needs: str = "stopped") -> Op:
    return Op(name, summary, (*args, _SHOW), aliases=aliases, needs=needs, stops=True,
              group="execution", render="snapshot")


BUILTIN: tuple[Op, ...] = (
    # -- sessions
    Op("start", "Start PROGRAM under a debugger, stopped at entry (or at the first "
       "breakpoint with --run).", (
        Arg("program", "str", "The program: a script, a binary, a class, or with -m a module.",
            required=True),
        Arg("args", "str", "The program's arguments.", multiple=True, passthrough=True),
        Arg("backend", "str", "Backend to use (default: chosen from PROGRAM).",
            flags=("--backend", "-b"), metavar="NAME"),
        Arg("breaks", "location", "Breakpoint to set.", flags=("--break",),
            multiple=True, metavar="LOC"),
        Arg("run", "bool", "Continue to the first stop or the end after starting.",
            flags=("--run",)),
        Arg("core", "str", "Open CORE, a core dump PROGRAM left when it crashed, post mortem: "
            "look around where it died; nothing runs.", flags=("--core",), metavar="CORE"),
        Arg("no_catch", "bool", "Do not stop on uncaught exceptions (by default the program "
            "stops where one would end it).", flags=("--no-catch",)),
        Arg("cwd", "str", "Working directory of the program.", flags=("--cwd",),
            metavar="DIR"),
        Arg("env", "str", "Environment variable.", flags=("--env",),
            multiple=True, metavar="K=V"),
        _STDIN, _IDLE,
        Arg("module", "bool", "PROGRAM is a Python module to run like `python -m` "
            "(e.g. pytest).", flags=("-m", "--module")),
        Arg("classpath", "str", "Java: the class path; PROGRAM is then the main class (jdb).",
            flags=("-cp", "--classpath"), metavar="PATH"),
        _PYTHON, _SHOW,
    ), needs="none", stops=True, send="start", prepare=f"{_PREP}:start", render="snapshot",
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
            metavar="DIR"),
        Arg("env", "str", "Environment variable.", flags=("--env",),
            multiple=True, metavar="K=V"),
        _STDIN, _IDLE, _PYTHON, _SHOW,
    ), needs="none", stops=True, send="start", prepare=f"{_PREP}:test", render="snapshot",
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
            "needs it.", flags=("--program",)),
        Arg("breaks", "location", "Breakpoint to set.", flags=("--break",),
            multiple=True, metavar="LOC"),
        Arg("idle_timeout", "float", "End the session after this long without a command.",
            flags=("--idle-timeout",), minimum=1, metavar="SECONDS"),
    ), needs="none", stops=True, send="start", prepare=f"{_PREP}:attach", render="snapshot",
       group="sessions"),
    _stopping("restart", "Run the same program again; breakpoints are set again.",
              needs="session"),
    Op("status", "Show the session's state and where it stopped.", group="sessions",
       render="_status", lost_ok=True),
    Op("sessions", "List live sessions.", needs="none", send="local",
       run=f"{_PREP}:sessions", render="_sessions", group="sessions"),
    Op("kill", "End the session: debuggee, debugger and daemon.", send="local",
       run=f"{_PREP}:kill", render="_kill", group="sessions", lost_ok=True),
    # -- breakpoints
    Op("break", "Set a breakpoint at FILE:LINE, LINE, FUNCTION or MODULE!FUNCTION.", (
        Arg("location", "location", _LOCATION_HELP),
        Arg("instruction", "str", "Break at an instruction address instead.",
            flags=("--instruction",), metavar="ADDR"),
        Arg("condition", "str", "Stop only when COND is true.", flags=("--if",),
            metavar="COND", one_line=True),
        Arg("hit", "int", "Stop on the Nth hit.", flags=("--hit",), minimum=1, metavar="N"),
        Arg("log", "str", "Log MSG instead of stopping (a logpoint).", flags=("--log",),
            metavar="MSG", one_line=True),
        Arg("temp", "bool", "Remove the breakpoint after its first stop.", flags=("--temp",)),
    ), prepare=f"{_PREP}:break_", render="_break", group="breakpoints"),
    Op("unbreak", "Remove a breakpoint by its id or location.", (
        Arg("target", "str", "A breakpoint id (from `dbg breaks`) or a location.",
            required=True, metavar="ID|LOCATION"),
    ), prepare=f"{_PREP}:unbreak", render="_unbreak", group="breakpoints"),
    Op("breaks", "List breakpoints: where each bound, its condition and hit count.",
       render="_breaks", group="breakpoints", lost_ok=True),
    Op("watch", "Stop when EXPRESSION's value changes (a watchpoint).", (
        Arg("expression", "text", "What to watch: a variable or an expression.",
            required=True),
    ), render="_break", group="breakpoints"),
    Op("catch", "Stop where exceptions are raised: of the classes named, or as FILTERS say "
       "(none: stop catching).", (
        Arg("filters", "str", "Exception classes (ValueError, mypkg.errors.ParseError: "
            "subclasses too) and filters: raised, uncaught, userUnhandled, or the debugger's "
            "own (`dbg caps`).", multiple=True),
        Arg("all_code", "bool", "Python: stop where an exception is raised in the standard "
            "library's or an installed package's code too, not only in the program's.",
            flags=("--all-code",)),
    ), render="_catch", group="breakpoints", details=(
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
    _stopping("continue", "Resume until the next stop (alias: c).", aliases=("c",)),
    _stopping("step", "Step into the next line, entering calls (alias: s).", aliases=("s",)),
    _stopping("next", "Step over to the next line (alias: n).", aliases=("n",)),
    _stopping("finish", "Run until the selected frame returns; show its return value."),
    _stopping("until", "Run to LOCATION ahead (FILE:LINE or LINE), or past the current loop.",
              Arg("location", "location", "Where to stop: a line ahead.")),
    _stopping("pause", "Interrupt the running target.", needs="session"),
    _stopping("wait", "Wait for a running target to stop or exit.", needs="session"),
    Op("input", "Send TEXT and a newline to the program's standard input; on a running "
       "program, wait for its next stop.", (
        Arg("text", "text", "The line to send (a newline is added)."),
        Arg("eof", "bool", "Close the program's standard input (after the line, if any).",
            flags=("--eof",)),
    ), render="_input", group="execution", details=(
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
    ), needs="stopped", render="_stack", details=(
        "Each frame shows its arguments (`fee(amount=1000)`, values cut at 60 characters). "
        "Library and runtime frames are hidden, except frame 0 and the selected one, and "
        "counted in their place (`... 24 frames of _pytest, pluggy`). Frames keep the "
        "numbers `dbg stack --all` gives them; `dbg frame N` selects any of them, `up` "
        "and `down` move among the frames shown.")),
    Op("frame", "Select frame INDEX (0 is where the target stopped).", (
        Arg("index", "int", "The frame's index in `dbg stack` (a hidden one's in "
            "`dbg stack --all`).", required=True, minimum=0),
    ), needs="stopped", render="_frame"),
    Op("up", "Select the caller's frame (COUNT levels up).", (
        Arg("count", "int", "How many levels.", default=1, minimum=1),
    ), needs="stopped", render="_frame"),
    Op("down", "Select the callee's frame (COUNT levels down).", (
        Arg("count", "int", "How many levels.", default=1, minimum=1),
    ), needs="stopped", render="_frame"),
    Op("locals", "Show the local variables of the selected frame.", needs="stopped",
       render="_locals"),
    Op("print", "Evaluate EXPRESSION in the selected frame; `;` separates several.", (
        Arg("expression", "text", "One expression, or several separated by `;` "
            "(`dbg print 'x; y + 1'`).", required=True),
    ), needs="stopped", render="_print"),
    Op("display", "Show EXPRESSION at every later stop (no argument: list them).", (
        Arg("expression", "text", "The expression to show."),
    ), render="_display"),
    Op("undisplay", "Stop showing an expression at stops (by its number, or all).", (
        Arg("number", "int", "The number `dbg display` gave it; none: all.", minimum=1),
    ), render="_display"),
    Op("set", "Assign VALUE (an expression) to LHS in the selected frame.", (
        Arg("lhs", "str", "A variable or field.", required=True, one_line=True),
        Arg("value", "text", "The new value, an expression.", required=True),
    ), needs="stopped", render="_set"),
    Op("threads", "List threads.", needs="stopped", render="_threads"),
    Op("thread", "Select thread ID.", (
        Arg("id", "str", "The thread's id from `dbg threads`.", required=True, metavar="ID"),
    ), needs="stopped", render="_thread"),
    Op("list", "Show source around the current line, or around FILE:LINE / LINE.", (
        Arg("location", "location", "Where: FILE:LINE or LINE."),
        Arg("context", "int", "Lines before and after.", flags=("--context",), default=5,
            minimum=0),
    ), render="_list"),
    Op("exception", "The exception the target stopped on: type, message, traceback in "
       "call order.", needs="stopped", render="_exception"),
    Op("output", "Show the program's output (stdout and stderr kept apart), paged by cursor.", (
        Arg("since", "int", "Cursor from the previous answer; only newer output is shown.",
            flags=("--since",), default=0, minimum=0),
        Arg("stdout", "bool", "Only the program's stdout.", flags=("--stdout",)),
        Arg("stderr", "bool", "Only the program's stderr.", flags=("--stderr",)),
    ), render="_output", lost_ok=True),
    Op("raw", "Send TEXT to the native debugger and print its answer unparsed.", (
        Arg("text", "text", "A command in the debugger's own language.", required=True,
            passthrough=True),
    ), render="_raw"),
    # -- meta
    Op("tool", "Show the debugger (tool and version) behind the current session.",
       render="_tool", group="meta", lost_ok=True),
    Op("hits", "List recorded stops (optionally only those at LOCATION); works after the "
       "session ended, and after a crash.", (
        Arg("location", "str", "Only stops at this location."),
        Arg("all", "bool", "Every recorded session of this name, not just the latest.",
            flags=("--all",)),
        Arg("limit", "int", "At most this many.", flags=("--limit",), default=200,
            minimum=1),
    ), needs="none", send="local", run=f"{_PREP}:hits", render="_hits", group="meta"),
    Op("backends", "List backends: ready or missing, with how to install what is missing.",
       needs="none", send="local", run=f"{_PREP}:backends", render="_backends", group="meta"),
    Op("plugins", "List plugins and the backends each registers; broken ones say why.",
       needs="none", send="local", run=f"{_PREP}:plugins", render="_plugins", group="meta"),
    Op("caps", "Which ops each backend supports: natively, by a fallback, or not at all.", (
        Arg("backend", "str", "Only this backend; default: every ready one.",
            flags=("--backend", "-b"), multiple=True, metavar="NAME"),
        Arg("markdown", "bool", "Print the matrix as a Markdown table.", flags=("--markdown",)),
    ), needs="none", send="local", run=f"{_PREP}:caps", render="_caps", group="meta"),
    Op("doctor", "Check this machine and dbg's own files, one line per check with its fix.", (
        Arg("fix", "bool", "Do the safe fixes: end what dead daemons left running and "
            "remove their runtime files, move a damaged store aside, acknowledge the stores "
            "set aside (the copies stay), close DBG_HOME to others.", flags=("--fix",)),
    ), needs="none", send="local", run="dbgcore.doctor:doctor", render="_doctor",
       group="meta", details=(
           "Exit 0 when every check a user needs passes, 1 when one fails; `warn` lines "
           "(a backend not installed, attach by pid limited by the kernel) do not fail it.")),
    Op("report", "Bundle what a bug report needs (logs, recorded commands and stops, doctor, "
       "versions, environment; each log's last 2 MB) into one .tar.gz, every secret given to "
       "dbg redacted in every file; print its path.", (
        Arg("name", "str", "The session (default: the current one).", metavar="SESSION"),
        Arg("output", "str", "The folder to write into (default: DBG_HOME/reports).",
            flags=("--output", "-o"), metavar="DIR"),
    ), needs="none", send="local", run="dbgcore.report:report", render="_report",
       group="meta"),
    Op("mcp", "Serve dbg's ops to an agent over the Model Context Protocol (stdio).",
       needs="none", send="local", run="dbgcore.mcp_server:serve", group="meta", agent=False,
       details=(
           "Each op is a tool named dbg_<op> (dbg_start, dbg_break, dbg_print...); sessions "
           "are the same daemons the CLI uses. Register it with an MCP client, e.g. in its "
           "JSON settings:\n\n"
           '  {"mcpServers": {"dbg": {"command": "dbg", "args": ["mcp"]}}}\n\n'
           "or: claude mcp add dbg -- dbg mcp")),
)


class OpTable:
    """The built-in ops and those plugins add, by name and by alias."""

    def __init__(self, ops: Iterable[Op] = BUILTIN) -> None:
        self.ops: dict[str, Op] = {}
        self.names: dict[str, str] = {}
        for op in ops:
            self.add(op)

    def add(self, op: Op) -> None:
        if not isinstance(op, Op):
            raise TypeError(f"{op!r} is not a dbgcore.ops.Op")
        for word in (op.name, *op.aliases):
            if word in self.names:
                raise ValueError(f"op {word!r} is already defined")
        for arg in op.args:
            if arg.name in ("session", "timeout"):
                raise ValueError(f"op {op.name}: argument name {arg.name!r} is reserved")
        self.ops[op.name] = op
        for word in (op.name, *op.aliases):
            self.names[word] = op.name

    def find(self, word: str) -> Op | None:
        name = self.names.get(word)
        return self.ops[name] if name is not None else None

    def __iter__(self) -> Any:
        return iter(self.ops.values())

    def read_words(self, words: list[str]) -> tuple[Op, dict[str, Any]] | None:
        """``OP [WORD...]`` as an op and its values, for an op sent as it is
        to the daemon whose words are all positional arguments; None for
        anything else (options, ``--help``, words that do not fit), which
        the click CLI reads. The fast path's one parser."""
        op = self.find(words[0]) if words else None
        rest = words[1:]
        if op is None or op.send != "call" or op.prepare is not None or len(op.path) != 1 \
                or any(w.startswith("-") for w in rest):
            return None
        values: dict[str, Any] = {}
        for arg in op.args:
            if not arg.positional or arg.hidden:
                continue
            if arg.kind == "text" or arg.multiple:
                if not rest and arg.required:
                    return None
                if rest:
                    values[arg.name] = " ".join(rest) if arg.kind == "text" else list(rest)
                rest = []
            elif rest:
                values[arg.name] = rest.pop(0)
            elif arg.required:
                return None
        return None if rest else (op, values)


_BUILTIN_TABLE: OpTable | None = None
_FULL_TABLE: OpTable | None = None


def builtin_table() -> OpTable:
    global _BUILTIN_TABLE
    if _BUILTIN_TABLE is None:
        _BUILTIN_TABLE = OpTable()
    return _BUILTIN_TABLE


def full_table() -> OpTable:
    """Built-in ops and every loaded plugin's (loads the plugins)."""
    global _FULL_TABLE
    if _FULL_TABLE is None:
        from dbgcore.plugins import get_host

        table = OpTable()
        get_host().add_ops(table)
        _FULL_TABLE = table
    return _FULL_TABLE
