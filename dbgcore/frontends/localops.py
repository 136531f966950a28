"""The ops whose body is a front end: `dbg doctor`, `report`, `agent
install`, `mcp` and `dap`, registered like any op plugin (listed in
:data:`dbgcore.ops.table.DEFAULT_OP_PLUGINS`). Their modules import much that
no other command needs (the checks' and the bug report's sqlite and
tarfile, the MCP SDK): each function here loads its module only when it
runs, so that the op table, which every front end and daemon builds, stays
light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbgcore.vocab.opspec import Arg, Op, add_ops_hook

if TYPE_CHECKING:

    from dbgcore.backends.registry import Front
    from dbgcore.vocab.opspec import Payload, Via


def run_doctor(values: Payload, session: str, timeout: float,
               front: Front) -> tuple[Payload, Via | None]:
    from dbgcore.frontends.doctor import doctor as check

    return check(values, session, timeout, front)


def run_report(values: Payload, session: str, timeout: float,
               front: Front) -> tuple[Payload, Via | None]:
    from dbgcore.frontends.report import report as bundle

    return bundle(values, session, timeout, front)


def run_agent_install(values: Payload, session: str, timeout: float,
                      front: Front) -> tuple[Payload, Via | None]:
    from dbgcore.frontends.agents import install

    return install(values, session, timeout, front)


def run_mcp(values: Payload, session: str, timeout: float, front: Front) -> None:
    from dbgcore.frontends.mcp.server import serve

    serve(values, session, timeout, front)


def run_dap(values: Payload, session: str, timeout: float, front: Front) -> None:
    from dbgcore.frontends.dap.server import serve

    serve(values, session, timeout, front)


def render_doctor(p: Payload) -> str:
    marks = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}
    out = []
    for c in p.get("checks", []):
        line = f"{marks.get(c['status'], c['status'])} {c['check']}: {c['detail']}"
        if c["status"] != "ok" and c.get("fix"):
            line += f" -- fix: {c['fix']}"
        out.append(line)
    return "\n".join(out)


def render_report(p: Payload) -> str:
    return str(p.get("path", ""))


def render_agent_install(p: Payload) -> str:
    files = p.get("files") or []
    if not p.get("written"):
        out = [f"{p.get('agent')} ({p.get('scope')}): nothing written; --print shows:"]
        for f in files:
            out.append(f"{f['path']} ({f['action']}): {f['content']}")
        return "\n".join(out)
    done = {"create": "created", "update": "updated", "unchanged": "unchanged"}
    out = [f"{p.get('agent')} ({p.get('scope')}): `dbg mcp` registered, skill installed"]
    out += [f"  {done.get(f['action'], f['action']):<9} {f['path']} ({f['what']})"
            for f in files]
    if any(f["action"] != "unchanged" for f in files):
        out.append(f"restart {p.get('agent')} to load them")
    return "\n".join(out)


#: The ops a front end answers, in the op table's order.
OPS: tuple[Op, ...] = (
    Op("doctor", "Check this machine and dbg's own files, one line per check with its fix.", (
        Arg("fix", "bool", "Do the safe fixes: end what dead daemons left running and "
            "remove their runtime files, move a damaged store aside, acknowledge the stores "
            "set aside (the copies stay), close DBG_HOME to others.", flags=("--fix",)),
    ), needs="none", send="local", run=run_doctor, render=render_doctor,
       group="meta", details=(
           "Exit 0 when every check a user needs passes, 1 when one fails; `warn` lines "
           "(a backend not installed, attach by pid limited by the kernel) do not fail it.")),
    Op("report", "Bundle what a bug report needs (logs, recorded commands and stops, doctor, "
       "versions, environment; each log's last 2 MB) into one .tar.gz, the secrets it holds "
       "masked in every file (docs/sessions.md says which); print its path.", (
        Arg("name", "str", "The session (default: the current one).", metavar="SESSION"),
        Arg("output", "str", "The folder to write into (default: DBG_HOME/reports).",
            flags=("--output", "-o"), metavar="DIR", path=True),
    ), needs="none", send="local", run=run_report, render=render_report,
       group="meta"),
    Op("agent-install", "Register `dbg mcp` with a coding agent and install dbg's skill, in "
       "the agent's own configuration files; say what was written.", (
        Arg("agent", "str", "The agent: claude (Claude Code) or codex (Codex CLI).",
            required=True, metavar="AGENT"),
        Arg("scope", "str", "user (your settings, for every project; the default) or project "
            "(the current folder's).", flags=("--scope",), default="user", metavar="SCOPE"),
        Arg("print", "bool", "Show what would be written; write nothing.", flags=("--print",)),
    ), needs="none", send="local", run=run_agent_install, render=render_agent_install,
       group="meta", agent=False, path=("agent", "install"), details=(
           "A file that exists is merged into: only dbg's entry is added or brought up to "
           "date. claude: mcpServers.dbg in ~/.claude.json (project: .mcp.json) and the skill "
           "in ~/.claude/skills/dbg/ (project: .claude/skills/dbg/). codex: [mcp_servers.dbg] "
           "in ~/.codex/config.toml (project: .codex/config.toml) and the skill in "
           "~/.codex/skills/dbg/ (project: .codex/skills/dbg/).")),
    Op("mcp", "Serve dbg's ops to an agent over the Model Context Protocol (stdio).", (
        Arg("http", "int", "Serve streamable HTTP on 127.0.0.1:PORT instead (0: a free port); "
            "requests need the bearer token it writes to a 0600 file.", flags=("--http",),
            minimum=0, maximum=65535, metavar="PORT"),
       ), needs="none", send="local", run=run_mcp, group="meta", agent=False,
       details=(
           "The ops most sessions use are tools named dbg_<op> (dbg_start, dbg_break, "
           "dbg_print...), the others are reached through dbg_more (op and args), which keeps "
           "the listing under 10 KB; sessions are the same daemons the CLI uses. "
           "`dbg agent install claude` (or codex) registers it, or in an MCP client's JSON "
           "settings:\n\n"
           '  {"mcpServers": {"dbg": {"command": "dbg", "args": ["mcp"]}}}\n\n'
           "With --http PORT it serves the SDK's streamable HTTP transport at "
           "http://127.0.0.1:PORT/mcp for clients that connect rather than start a "
           "process; each request needs `Authorization: Bearer TOKEN` (the token is "
           "written to a 0600 file it names, or taken from DBG_MCP_TOKEN), others get 401.")),
    Op("dap-server", "Serve the Debug Adapter Protocol (stdio, or --listen PORT on "
       "127.0.0.1), so an editor debugs or joins dbg sessions.", (
        Arg("listen", "int", "Listen on 127.0.0.1:PORT (0: any free port, printed) for the "
            "session -s names, with a token the client must send (its file is printed).",
            flags=("--listen",), metavar="PORT", minimum=0, maximum=65535),
        Arg("drive", "bool", "Let a client that joins a session drive it (continue, step, "
            "breakpoints); without it a joined session is read-only.", flags=("--drive",)),
    ), needs="none", send="local", run=run_dap, group="meta", agent=False,
       details=(
           "A client launches a program on any backend (launch: program, args, cwd, backend, "
           "stopOnEntry, session) and drives it, or joins a live session (attach: "
           "{\"session\": NAME}) and sees its stops as they happen. `dbg dap` with only "
           "these options is this op (`dbg dap COMMAND` sends one DAP request to the "
           "session's debugger). See docs/dap.md.")),
)


#: The ``dbg_add_ops`` hook, as a plugin's.
dbg_add_ops = add_ops_hook(OPS)
