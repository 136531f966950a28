"""What an op is: :class:`Arg`, :class:`Op` and the :class:`OpTable` that
holds them. The built-in ops themselves are declared in :mod:`dbgcore.ops.table`;
plugins add theirs through the ``dbg_add_ops`` hook.

Imports nothing of dbg's but the import-free spelling of the global options
(:mod:`dbgcore.shared.globalopts`): the daemon, the plugin host and every
front end read these types, and the table's callables (front-end
preparation, daemon handler, renderer, backend method) sit above it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dbgcore.shared.globalopts import BOOL_FLAGS, global_flag

#: A JSON object: an op's values, its wire arguments, its answer.
Payload = dict[str, Any]
#: An argument's default value.
Default = str | int | float | bool | None
#: Who answered a local op (``{"tool", "version"}``), or None for dbg itself.
Via = dict[str, str]
#: The front end's preparation: ``(values, front) -> (op sent, wire args)``;
#: ``front`` is the :class:`dbgcore.backends.registry.Front` of the process.
Prepare = Callable[..., tuple[str, Payload]]
#: An op answered in the front end's process:
#: ``(values, session, timeout, front) -> (payload, via)`` (None: nothing to print).
Run = Callable[..., "tuple[Payload, Via | None] | None"]
#: The daemon's side: ``(session, args, timeout) -> payload``, where
#: ``session`` is the daemon's :class:`dbgcore.daemon.session.Session`.
Handler = Callable[..., Payload]
#: The text of an answer, for people.
Renderer = Callable[[Payload], str]
#: The daemon's side of an op answered beside another client's op that waits
#: for the program: ``(session, args, timeout, busy op) -> (answer, extra)``;
#: answer None: answer with the stop the waiting op gets, ``extra`` added.
Beside = Callable[..., "tuple[Payload | None, Payload]"]
#: Starts a session's daemon and hands it its first op, returning the
#: daemon's response: (session, op, args, timeout, idle timeout).
Start = Callable[[str, str, Payload, float, "float | None"], Payload]

#: What ends a line for a line-oriented debugger: dbg's one newline rule
#: (docs/semantics.md) refuses these in a value the debugger reads as one line.
LINE_BREAKS = "\r\n\0"


def breaks_line(text: str) -> bool:
    """Whether ``text`` holds a CR, LF or NUL: the one test of the newline
    rule, which the front end's checks (:attr:`Arg.one_line`) and the
    daemon's guards of its wire arguments all ask."""
    return any(c in text for c in LINE_BREAKS)


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
    is sent: dbg's one newline rule (docs/semantics.md). ``path``: a file's
    or folder's path, of at most PATH_MAX bytes (another argument may have
    up to 128 KB: :mod:`dbgcore.shared.bounds`). ``expression``: an expression the
    debugger parses, refused when it nests past :data:`dbgcore.shared.bounds.MAX_NESTING`.
    """

    __slots__ = ("default", "expression", "flags", "help", "hidden", "kind", "maximum",
                 "metavar", "minimum", "multiple", "name", "one_line", "passthrough", "path",
                 "required")

    def __init__(self, name: str, kind: str = "str", help: str = "", *,
                 flags: tuple[str, ...] = (), required: bool = False, default: Default = None,
                 multiple: bool = False, minimum: float | None = None,
                 maximum: float | None = None, metavar: str | None = None,
                 passthrough: bool = False, hidden: bool = False,
                 one_line: bool | None = None, path: bool = False,
                 expression: bool = False) -> None:
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
        self.path = path
        self.expression = expression

    @property
    def positional(self) -> bool:
        return not self.flags

    @property
    def label(self) -> str:
        return self.metavar or self.name.upper()

    def __repr__(self) -> str:
        return f"Arg({self.name!r}, {self.kind!r})"


class Op:
    """One op, declared once: everything dbg does with it is read from here.

    ``needs``: ``none`` (no session at all: answered by the client),
    ``session`` (a session with a program), ``stopped`` (refused with
    ``not_stopped`` while the target runs, ``target_exited`` after it ended).
    ``stops``: blocks until the target stops and answers with a stop
    snapshot. ``send``: ``call`` (sent to the session's daemon), ``start``
    (starts a daemon and sends it this op), ``local`` (answered in the
    front end's process by ``run``).

    The callables: ``prepare`` turns the front end's checked values into
    what is sent (:data:`Prepare`); ``run`` answers a local op (:data:`Run`);
    ``handler`` answers it in the session's daemon (:data:`Handler`; a local
    op's ``run`` may send it there for what needs the debugger);
    ``render`` is its text (:data:`Renderer`; None: the generic one).
    ``method``: the backend method that does the op; for a built-in op the
    :class:`dbgcore.backends.contract.Backend` method a backend overrides to support
    it, for a plugin's op its backend class's method, by name
    (``"op_disasm"``: the op table is built in every front end and daemon,
    and must not import each plugin's backend to name its methods),
    called ``(args, timeout) -> payload`` when the op has no ``handler`` (a
    plugin's op with neither goes to its backend's ``op_<name>`` method).
    ``method_name`` is that method's name either way.
    What a backend supports is read from these (`dbg caps`). ``title``: the
    op in an ``UnsupportedOp`` ("step into"; default the name).

    ``beside``: how the daemon answers the op while another client's op
    waits for the program (:data:`Beside`; None: refused then).
    ``new_debugger``: starts the session's debugger anew (default: the ops
    sent as ``start``; `restart`), after which the daemon records the
    session's status. ``children``: passed on to the session's child
    sessions too (their breakpoints follow the parent's).
    ``lost_ok``: answered even when the debugger died. ``ended_ok``: still
    means something once the program ended (it reads what the session
    kept, starts it again, or answers with the end); other ops are refused
    then with ``target_exited``. ``core_ok``: False for an op that would run
    or change the program, which a core dump (`dbg start --core`) refuses.
    ``checked``: the session first looks for a stop it has not seen and
    checks ``needs`` (False: the op does its own looking). ``waits``: may
    wait for the program (the daemon answers other clients meanwhile;
    default: ``stops``). ``path``: the words of the command line
    (``("memory", "read")``), default the name.
    """

    __slots__ = ("agent", "aliases", "args", "beside", "checked", "children", "core_ok",
                 "details", "ended_ok", "group", "handler", "lost_ok", "method", "method_name",
                 "name", "needs",
                 "new_debugger", "own_tool", "path", "prepare", "render", "run", "send", "stops",
                 "summary", "title", "waits")

    def __init__(self, name: str, summary: str, args: Iterable[Arg] = (), *,
                 aliases: tuple[str, ...] = (), needs: str = "session", stops: bool = False,
                 send: str = "call", run: Run | None = None, prepare: Prepare | None = None,
                 handler: Handler | None = None, beside: Beside | None = None,
                 render: Renderer | None = None,
                 method: Callable[..., object] | str | None = None, title: str = "",
                 group: str = "inspection", lost_ok: bool = False, ended_ok: bool = False,
                 core_ok: bool = True, checked: bool = True, waits: bool | None = None,
                 new_debugger: bool | None = None, children: bool = False,
                 path: tuple[str, ...] | None = None, agent: bool = True,
                 own_tool: bool = False,
                 details: str = "") -> None:
        if needs not in ("none", "session", "stopped"):
            raise ValueError(f"op {name}: unknown needs {needs!r}")
        if send not in ("call", "start", "local"):
            raise ValueError(f"op {name}: unknown send {send!r}")
        if send == "local" and run is None:
            raise ValueError(f"op {name}: a local op needs run")
        for given in (run, prepare, handler, beside, render,
                      None if isinstance(method, str) else method):
            if given is not None and not callable(given):
                raise TypeError(f"op {name}: {given!r} is not callable")
        if isinstance(method, str) and not method.isidentifier():
            raise ValueError(f"op {name}: method {method!r} is not a method's name")
        self.name = name
        self.summary = summary
        self.args = tuple(args)
        self.aliases = aliases
        self.needs = needs
        self.stops = stops
        self.send = send
        self.run = run
        self.prepare = prepare
        self.handler = handler
        self.beside = beside
        self.render = render
        self.method = method
        self.method_name: str | None = method if isinstance(method, str) or method is None \
            else method.__name__
        self.title = title or name
        self.group = group
        self.lost_ok = lost_ok
        self.ended_ok = ended_ok
        self.core_ok = core_ok
        self.checked = checked
        self.waits = stops if waits is None else waits
        self.new_debugger = send == "start" if new_debugger is None else new_debugger
        self.children = children
        #: The words of its command line; () for an op no command sends by name.
        self.path = (name,) if path is None else path
        #: More help, after the summary (`dbg OP --help`).
        self.details = details
        #: Offered to agents as an MCP tool.
        self.agent = agent
        #: A tool of its own in `dbg mcp`'s listing (the ops most sessions use);
        #: an agent reaches the others through dbg_more, which keeps the
        #: listing, paid for on every turn, within its budget.
        self.own_tool = own_tool

    def arg(self, name: str) -> Arg:
        return next(a for a in self.args if a.name == name)

    def __repr__(self) -> str:
        return f"Op({self.name!r})"


class OpTable:
    """Ops by name and by alias: the built-in ones and those plugins add."""

    def __init__(self, ops: Iterable[Op] = ()) -> None:
        self.ops: dict[str, Op] = {}
        self.names: dict[str, str] = {}
        for op in ops:
            self.add(op)

    def add(self, op: Op) -> None:
        if not isinstance(op, Op):
            raise TypeError(f"{op!r} is not a dbgcore.ops.table.Op")
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

    def __iter__(self) -> Iterator[Op]:
        return iter(self.ops.values())

    def find_path(self, words: list[str]) -> Op | None:
        """The op whose command line ``words`` begin with (``memory read``
        has two words), or None."""
        op = self.find(words[0]) if words else None
        if op is not None:
            return op
        return next((op for op in self if len(op.path) > 1
                     and tuple(words[:len(op.path)]) == op.path), None)

    def lift_globals(self, words: list[str]) -> tuple[list[str], list[str]]:
        """The global options (-s/--session, --json, --timeout) put after
        the op in ``OP [WORD...]`` (``dbg continue --timeout 5``), and the
        op's words without them: the caller reads the first as if they came
        before the op. Read as click reads the op's command line: an option
        of the op's own of the same spelling is the op's; ``--`` ends the
        options; where a program's words follow the op's (``start PROGRAM
        ARGS...``), those after the program are the program's; where the
        passed-on words come first (``test``'s runner's, ``raw``'s
        debugger's: pytest has its own ``-s`` and ``--timeout``), every
        unknown option is theirs, and nothing is lifted. Nothing for an
        unknown op (a plain click command of a plugin's)."""
        op = self.find_path(words)
        if op is None:
            return [], list(words)
        positional = [arg for arg in op.args if arg.positional and not arg.hidden]
        if positional and positional[0].passthrough:
            return [], list(words)
        own = {flag: arg for arg in op.args if not arg.hidden for flag in arg.flags}
        program_last = any(arg.passthrough for arg in op.args)
        lifted: list[str] = []
        kept = list(words[:len(op.path)])
        rest = words[len(op.path):]
        while rest:
            word = rest[0]
            if word == "--" or (program_last and not word.startswith("-")):
                break
            rest.pop(0)
            name, eq, _ = word.partition("=") if word.startswith("--") else (word, "", "")
            arg = own.get(name)
            flag = global_flag(word) if arg is None else None
            if flag is not None:
                if flag in BOOL_FLAGS or eq:
                    lifted.append(word)
                elif rest:
                    lifted += [word, rest.pop(0)]
                else:
                    kept.append(word)  # click says its value is missing
                continue
            kept.append(word)
            if arg is not None and arg.kind != "bool" and not eq and rest:
                kept.append(rest.pop(0))  # the option's value, whatever it looks like
        return lifted, kept + rest

    def read_words(self, words: list[str]) -> tuple[Op, Payload] | None:
        """``OP [WORD...]`` as an op and its values, for an op sent as it is
        to the daemon whose words are all positional arguments; None for
        anything else (options, ``--help``, words that do not fit), which
        the click CLI reads. The fast path's one parser."""
        op = self.find(words[0]) if words else None
        rest = words[1:]
        if op is None or op.send != "call" or op.prepare is not None or len(op.path) != 1 \
                or any(w.startswith("-") for w in rest):
            return None
        values: Payload = {}
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

    def read_start_words(self, words: list[str]) -> tuple[Op, Payload] | None:
        """``OP [OPTION...] [ARG...]`` for an op that starts a session
        (``start``, ``test``, ``attach``), read as click reads it: options
        before the first positional word (the program, whose own options
        follow it), a flag's value as the next word or after ``=``, ``--``
        ending the options, a whole number in the option's range. An unknown
        option is one of the passed-on words where those come first (`dbg
        test -k name`: pytest's), as click's ignore_unknown_options has it.
        None for whatever click must read or explain (``--help``, an unknown
        or repeated option, a number it would refuse or a float, a missing
        value or program). Lets the first client of a session hand its
        command line to the daemon it has just forked, without loading the
        click CLI."""
        op = self.find(words[0]) if words else None
        if op is None or op.send != "start" or op.prepare is None or len(op.path) != 1:
            return None
        flags = {flag: arg for arg in op.args if not arg.hidden for flag in arg.flags}
        positional = [arg for arg in op.args if arg.positional and not arg.hidden]
        values: Payload = {arg.name: [] if arg.multiple else (False if arg.kind == "bool"
                                                               else arg.default)
                           for arg in op.args if not arg.hidden}
        # click puts an unknown option aside and gives it to the positional
        # words: where the first of those is a passed-on list, it is one of them.
        passed_on = bool(positional) and positional[0].passthrough and positional[0].multiple
        put_aside: list[str] = []
        given: set[str] = set()
        rest = words[1:]
        while rest and rest[0].startswith("-") and rest[0] != "-":
            word = rest.pop(0)
            if word == "--":
                break
            name, eq, inline = word.partition("=") if word.startswith("--") else (word, "", "")
            arg = flags.get(name)
            if arg is None and passed_on and _unknown_to_click(word, flags):
                put_aside.append(word)
                continue
            if arg is None or arg.kind == "float" or arg.passthrough or (
                    arg.name in given and not arg.multiple):
                return None
            given.add(arg.name)
            if arg.kind == "bool":
                if eq:
                    return None
                values[arg.name] = True
                continue
            if not eq:
                if not rest:
                    return None
                inline = rest.pop(0)
            if arg.kind == "int":
                number = _whole_number(inline, arg)
                if number is None:
                    return None
                values[arg.name] = number
            elif arg.multiple:
                values[arg.name].append(inline)
            else:
                values[arg.name] = inline
        if any(arg.required and arg.flags and arg.name not in given for arg in op.args):
            return None  # click says which option is missing
        rest = put_aside + rest
        for arg in positional:
            if arg.multiple or arg.passthrough:
                values[arg.name] = list(rest)
                rest = []
            elif rest:
                values[arg.name] = rest.pop(0)
            elif arg.required:
                return None
        return None if rest else (op, values)


def _unknown_to_click(word: str, flags: dict[str, Arg]) -> bool:
    """Whether click, ignoring unknown options, passes ``word`` on as it is:
    a long option it does not know, or short ones none of which it knows
    (``-kx``; in ``-kb`` it would read ``-b``, so that is click's to read).
    The help options are click's too."""
    known = {*flags, *_HELP_FLAGS}
    if word.partition("=")[0] in known:
        return False
    return word.startswith("--") or not any(f"-{ch}" in known for ch in word[1:])


#: The help options click adds to every command (dbgcore.frontends.cli.app's CONTEXT).
_HELP_FLAGS = ("-h", "--help")


def plain_whole(word: str) -> int | None:
    """``word`` as an int when it is plain digits (no sign, blank or ``_``)
    of at most 18, past which it is past every argument's range (and past
    4300, Python's int() refuses it); else None, for the argument checks
    (:func:`dbgcore.vocab.values.check_values`) to read or refuse."""
    if not (word.isascii() and word.isdigit()) or len(word) > 18:
        return None
    return int(word)


def _whole_number(word: str, arg: Arg) -> int | None:
    """``word`` as the CLI reads an int option, when it is plain digits in
    the option's range; None for anything the CLI must read or refuse."""
    number = plain_whole(word)
    if number is None:
        return None
    if (arg.minimum is not None and number < arg.minimum) or (
            arg.maximum is not None and number > arg.maximum):
        return None
    return number


def add_ops_hook(ops: Iterable[Op]) -> Callable[[Callable[[Op], None]], None]:
    """A ``dbg_add_ops(add)`` hook that adds ``ops`` in their order: how each
    of dbg's op groups registers its ops, as a plugin does."""
    listed = tuple(ops)

    def dbg_add_ops(add: Callable[[Op], None]) -> None:
        for op in listed:
            add(op)

    return dbg_add_ops
