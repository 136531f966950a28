"""The breakpoint ops: `dbg break`, `unbreak`, `breaks`, `watch` and
`catch`: their declarations, the front end's preparation (`--instruction`
sends another op, an id or a location is told apart), the daemon's handlers
(over the session's breakpoint table) and the text of their answers.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from dbgcore.backends.contract import Backend
from dbgcore.lang.sourcefind import suffix_matches
from dbgcore.ops.stops import LOCATION_HELP, breakpoint_text
from dbgcore.shared.errors import (
    DbgError,
    OpFailed,
    UsageError,
)
from dbgcore.shared.jsontypes import Json
from dbgcore.vocab.opspec import Arg, Op, add_ops_hook
from dbgcore.vocab.values import check_value

if TYPE_CHECKING:

    from dbgcore.backends.registry import Front
    from dbgcore.ops.opsession import OpSession as Session
    from dbgcore.vocab.model import BreakLoc, Location
    from dbgcore.vocab.opspec import Payload

#: What a breakpoint does beyond stopping, declared once: the front end
#: checks a call's values against these, and the daemon's handler the
#: arguments a wire client sent (:func:`break_options`), in the same words.
CONDITION = Arg("condition", "str", "Stop only when COND is true.", flags=("--if",),
                metavar="COND", one_line=True, expression=True)
HIT = Arg("hit", "int", "Stop on the Nth hit.", flags=("--hit",), minimum=1, metavar="N")
LOG = Arg("log", "str", "Log MSG instead of stopping (a logpoint).", flags=("--log",),
          metavar="MSG", one_line=True)
#: Which line a location by a line's text means when several hold the text.
NEAR = Arg("near", "int", 'With FILE:"TEXT" on several lines: the one nearest LINE.',
           flags=("--near",), minimum=1, metavar="LINE")


def with_near(location: Json, near: int | None) -> Json:
    """A location (as a front end sends it) with ``--near``, which only a
    location by a line's text takes."""
    if near is None:
        return location
    if not isinstance(location, dict) or location.get("match") is None:
        raise UsageError(f"--near {near} picks among the lines a text is on; "
                         f"{_said(location)} names a line already",
                         'give the line\'s text: FILE:"TEXT" --near LINE')
    return {**location, "near": near}


def _said(location: Json) -> str:
    return str(location.get("text")) if isinstance(location, dict) else "that location"


def found_line(session: Session, loc: BreakLoc) -> BreakLoc:
    """``loc`` as a backend takes it: a location by a line's text
    (``FILE:"TEXT"``) at the line of its file that holds the text, by the
    rule of :mod:`dbgcore.lang.linetext`, found here so every backend gets
    the same line; the text is kept, for a restart to find again. Any other
    location is left as it is."""
    if loc.match is None or loc.line is not None:
        return loc
    from dbgcore.lang.linetext import find_line

    path = source_file(session, loc)
    return replace(loc, file=path, line=find_line(path, loc.match, loc.near, str(loc)))


def source_file(session: Session, loc: BreakLoc) -> str:
    """The file a location by a line's text names: a path the front end
    made absolute (it is in the folder the user typed it in), else a path
    or a file name found from the program's folders (as FILE:LINE is)."""
    from dbgcore.lang.sourcefind import resolve_source, walk_sources

    file = loc.file
    assert file is not None
    if os.path.isabs(file):
        if os.path.isfile(file):
            return file
        raise OpFailed(f"{loc}: no such file {file}")
    roots: list[str] = []
    for request in (session.launch_request, session.attach_request):
        program = getattr(request, "program", None) if request is not None else None
        for folder in (getattr(request, "cwd", None),
                       os.path.dirname(program) if program and os.path.isabs(program) else None):
            if folder and os.path.isdir(folder) and folder not in roots:
                roots.append(folder)
    suffix = os.path.splitext(file)[1]
    tiers = [lambda root=root: walk_sources(root, (suffix,)) for root in roots] if suffix else []
    found = resolve_source(file, roots, tiers)
    if found is None:
        raise OpFailed(f"{loc}: no file {file} here or in the program's folders",
                       "give its path")
    return found


def break_options(values: Payload) -> tuple[str | None, int | None, str | None]:
    """A breakpoint's ``--if``, ``--hit`` and ``--log`` (each None when not
    given), checked by their declarations and refused when blank: the one
    check of them, which the front end's preparation asks of a call's
    values and the daemon's handler of what reached it, since a client of
    the socket need not be dbg's own front end (a newline in a condition
    would reach a line-oriented debugger as a second command)."""
    checked: Payload = {arg.name: check_value("break", arg, values[arg.name])
                        for arg in (CONDITION, HIT, LOG) if values.get(arg.name) is not None}
    condition, log = checked.get("condition"), checked.get("log")
    if any(text is not None and not text.strip() for text in (condition, log)):
        raise UsageError("--if and --log take one non-empty line")
    return condition, checked.get("hit"), log


def prepare_break(values: Payload, front: Front) -> tuple[str, Payload]:
    location, instruction = values.get("location"), values.get("instruction")
    if (location is None) == (instruction is None):
        raise UsageError("give a LOCATION or --instruction ADDR (one of them)")
    condition, hit, log = break_options(values)
    if instruction is not None:
        if values.get("near") is not None:
            raise UsageError("--near picks among the lines a text is on, not an instruction",
                             'dbg break FILE:"TEXT" --near LINE')
        return "break-instruction", {"address": instruction, "condition": condition, "hit": hit}
    return "break", {"location": with_near(location, values.get("near")),
                     "condition": condition, "hit": hit, "log": log,
                     "temp": bool(values.get("temp"))}


def prepare_unbreak(values: Payload, front: Front) -> tuple[str, Payload]:
    from dbgcore.shared.bounds import whole_number
    from dbgcore.vocab.location import location_arg

    text = str(values["target"]).strip()
    if text.isascii() and text.isdigit():
        return "unbreak", {"id": whole_number(text, "unbreak ID", noun="a breakpoint id")}
    return "unbreak", {"location": location_arg(text)}


def handle_break(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.vocab.model import BreakLoc, BreakOptions

    assert session.backend is not None
    loc = found_line(session, BreakLoc.from_wire(args["location"]))
    condition, hit, log = break_options(args)
    options = BreakOptions(condition=condition, hit_count=hit, log_message=log,
                           temporary=bool(args.get("temp")))
    placed, places = session.breaks.add_all(session.backend, loc, options, timeout)
    payload: Payload = {"breakpoint": placed[0].to_dict()}
    if len(placed) > 1:
        payload["breakpoints"] = [b.to_dict() for b in placed]
    if places and (note := places_note(loc, places,
                                       session.backend.functions_elsewhere(loc, timeout))):
        payload["note"] = note
    return payload


def places_note(loc: BreakLoc, places: list[Location], elsewhere: list[Location]) -> str:
    """What a function breakpoint bound in the program's sources says: the
    places when there are several, and the functions of the same name it
    left out (a library's, the test runner's), each with the FILE:LINE that
    stops there."""
    said = []
    if len(places) > 1:
        said.append(f"{loc.function} is in {len(places)} places of the program: each bound")
    if elsewhere:
        shown = ", ".join(f"{p.function} ({p.file}:{p.line})" for p in elsewhere[:5])
        more = f" and {len(elsewhere) - 5} more" if len(elsewhere) > 5 else ""
        said.append(f"bound in the program's own code only; left out: {shown}{more} "
                    "(`dbg break FILE:LINE` stops in one)")
    return "; ".join(said)


def handle_unbreak(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.vocab.model import BreakLoc

    assert session.backend is not None
    if args.get("id") is not None:
        wanted = args["id"]
        if isinstance(wanted, bool) or not isinstance(wanted, int):
            raise UsageError("unbreak takes a breakpoint id or a location")
        session.breaks.listing(session.backend, timeout)
        session.breaks.require([wanted])
        ids = [wanted]
    else:
        loc = BreakLoc.from_wire(args.get("location"))
        if loc.match is not None and loc.line is None:
            # By the text it was set with, wherever the line is now.
            loc = replace(loc, file=source_file(session, loc))
            ids = session.breaks.matching(session.backend, loc, timeout)
            if not ids:
                loc = found_line(session, loc)
        ids = session.breaks.matching(session.backend, loc, timeout)
        if not ids:
            raise OpFailed(f"no breakpoint matches {loc}", "list them with `dbg breaks`")
    return {"removed": [b.to_dict() for b in session.breaks.remove(session.backend, ids, timeout)]}


#: How many breakpoints `dbg breaks` shows at a time (--limit).
BREAKS_SHOWN = 100


def handle_breaks(session: Session, args: Payload, timeout: float) -> Payload:
    """A page of the breakpoints, by id (as gdb and pdb list theirs: the
    user's handle on them): ``--limit`` of them from the ``--offset``-th, only those
    in ``--file`` (a name or path suffix) if given; with the count of all
    that match and of those after the page."""
    assert session.backend is not None
    every = session.breaks.listing(session.backend, timeout)
    wanted = args.get("file")
    if wanted:
        every = [b for b in every if b.file and (
            suffix_matches(str(wanted), [b.file])
            or os.path.realpath(str(wanted)) == os.path.realpath(b.file))]
    limit = int(args.get("limit") or BREAKS_SHOWN)
    offset = int(args.get("offset") or 0)
    page = every[offset:offset + limit]
    return {"breakpoints": [b.to_dict() for b in page], "total": len(every),
            "offset": offset, "later": max(0, len(every) - offset - len(page)),
            "filter": wanted or None}


def handle_watch(session: Session, args: Payload, timeout: float) -> Payload:
    from dbgcore.ops.inspecting import one_line

    assert session.backend is not None
    expression = one_line(args["expression"])
    bp = session.breaks.watch(session.backend, expression, timeout)
    entry = session.breaks.entries.get(int(bp.id)) if isinstance(bp.id, int) else None
    if entry is not None:
        entry.scope = session.frame_key(timeout)
        try:
            entry.value = session.backend.evaluate(expression, timeout).value
        except DbgError:
            entry.value = None
    return {"breakpoint": bp.to_dict()}


def handle_catch(session: Session, args: Payload, timeout: float) -> Payload:
    assert session.backend is not None
    filters = list(args.get("filters", []))
    if args.get("all_code"):
        filters.append("all-code")  # a filter of the backend's, kept for restart too
    session.catch_filters = session.backend.catch(filters, timeout)
    return {"filters": session.catch_filters}


def render_break(p: Payload) -> str:
    shown = p.get("breakpoints") or [p["breakpoint"]]
    note = f"\nnote: {p['note']}" if p.get("note") else ""
    return "\n".join(breakpoint_text(b) for b in shown) + note + _children_told(p)


def _children_told(p: Payload) -> str:
    """What the parent's child sessions did with a break or unbreak."""
    told = p.get("children") or []
    done = sorted({t["session"] for t in told if t.get("ok")})
    lines = [f"\nalso in child session {name}" for name in done]
    lines += [f"\nnot in child session {t['session']}: {t.get('error', '')}"
              for t in told if not t.get("ok")]
    return "".join(lines)


def render_breaks(p: Payload) -> str:
    bps = p.get("breakpoints") or []
    where = f" in {p['filter']}" if p.get("filter") else ""
    total, offset, later = (int(p.get(k) or 0) for k in ("total", "offset", "later"))
    if not bps:
        if total:
            return f"no breakpoints past the first {total:,}{where} (--offset {offset})"
        return "no breakpoints" + where
    lines = [breakpoint_text(b) for b in bps]
    if offset or later:
        more = [f"earlier: --offset {max(0, offset - len(bps))}"] if offset else []
        if later:
            more.append(f"later: --offset {offset + len(bps)}")
        lines.insert(0, f"(breakpoints {offset + 1:,}-{offset + len(bps):,} of {total:,}{where}"
                        f", by id; {'; '.join(more)}; --limit N, --file FILE)")
    return "\n".join(lines)


def render_unbreak(p: Payload) -> str:
    return "\n".join("removed " + breakpoint_text(b) for b in p.get("removed", [])) \
        + _children_told(p)


def render_catch(p: Payload) -> str:
    filters = p.get("filters") or []
    return "catching: " + ", ".join(filters) if filters else "catching no exceptions"


#: The breakpoint ops, in the op table's order.
OPS: tuple[Op, ...] = (
    Op("break", "Set a breakpoint at FILE:LINE, LINE, FUNCTION or MODULE!FUNCTION.", (
        Arg("location", "location", LOCATION_HELP),
        Arg("instruction", "str", "Break at an instruction address instead.",
            flags=("--instruction",), metavar="ADDR"),
        CONDITION, HIT, LOG, NEAR,
        Arg("temp", "bool", "Remove the breakpoint after its first stop.", flags=("--temp",)),
    ), prepare=prepare_break, handler=handle_break, method=Backend.set_breakpoint,
       title="breakpoints",
       own_tool=True,
       render=render_break, group="breakpoints", core_ok=False,
       children=True, details=(
        'FILE:"TEXT" is the line of code in FILE that holds TEXT, whitespace ignored (a line '
        "that is the whole of TEXT comes first; blank and comment-only lines never count), "
        "found by dbg for every backend; on several lines, --near LINE takes the nearest, "
        "else the error lists them. Every breakpoint at a line keeps its line's text, shown "
        "beside its number: after an edit, `dbg restart` moves it to where that text is now "
        "(the nearest to its old line), or keeps it at its line, flagged, when the text is "
        "gone.\n\n"
        "  dbg break cart.py:14\n"
        "  dbg break 'cart.py:\"total += price\"'\n"
        "  dbg break 'cart.py:\"total\"' --near 40")),
    Op("unbreak", "Remove a breakpoint by its id or location.", (
        Arg("target", "str", "A breakpoint id (from `dbg breaks`) or a location.",
            required=True, metavar="ID|LOCATION"),
    ), prepare=prepare_unbreak, handler=handle_unbreak, method=Backend.remove_breakpoint,
       title="removing breakpoints",
       render=render_unbreak, group="breakpoints",
       ended_ok=True, children=True),
    Op("breaks", "List breakpoints: where each bound, its condition and hit count.", (
        Arg("limit", "int", f"Show N (default {BREAKS_SHOWN}), by id.",
            flags=("--limit",), default=BREAKS_SHOWN, minimum=1, metavar="N"),
        Arg("offset", "int", "Skip the first N (the next page: --offset 100).",
            flags=("--offset",), minimum=0, metavar="N"),
        Arg("file", "str", "Only those in FILE (a file name or path suffix).",
            flags=("--file",), metavar="FILE"),
    ), handler=handle_breaks, method=Backend.list_breakpoints, title="listing breakpoints",
       render=render_breaks, group="breakpoints", lost_ok=True, ended_ok=True),
    Op("watch", "Stop when EXPRESSION's value changes (a watchpoint).", (
        Arg("expression", "text", "What to watch: a variable or an expression.",
            required=True, expression=True),
    ), handler=handle_watch, method=Backend.watch, title="watchpoints", render=render_break,
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
    ), handler=handle_catch, method=Backend.catch, title="exception catchpoints",
       render=render_catch, group="breakpoints", core_ok=False, details=(
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
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
