"""`dbg replay RUN`: start a session on the backend ``replay`` over a
recorded run. The run is looked up here first, so that one without
recorded lines is refused before a session starts."""

from __future__ import annotations

from typing import Any

from dbgcore.api import Arg, Op, UsageError, recorded_run, render

Payload = dict[str, Any]


def prepare_replay(values: Payload, front: object) -> tuple[str, Payload]:
    asked = str(values.get("run") or "last").strip()
    if asked != "last" and not (asked.isdigit() and 0 < int(asked) < 2**31):
        raise UsageError(f"bad run {asked!r}: a run id from `dbg runs`, or last",
                         "dbg replay 12, dbg replay last")
    found = recorded_run(asked)
    run = found["run"]
    return "start", {
        "backend": "replay", "program": str(run.get("program") or ""),
        "args": list(run.get("args") or []), "cwd": found.get("cwd"), "env": {},
        "replays": int(run["id"]), "breaks": values.get("breaks") or [],
        "run": False, "show": values.get("show") or [],
    }


REPLAY = Op("replay", "Replay a run `dbg trace --lines` recorded: step, next, finish and "
            "continue, also --back, through its recorded lines.", (
                Arg("run", "str", "The run: an id from `dbg runs`, or last (the newest run "
                    "with recorded lines).", default="last"),
                Arg("breaks", "location", "Breakpoint to set.", flags=("--break",),
                    multiple=True, metavar="LOC"),
            ), needs="none", stops=True, send="start", prepare=prepare_replay,
            render=lambda p: render("start", p), group="sessions", details=(
                "Nothing runs: each stop, its locals (the values recorded as of that line) "
                "and its stack are read from the record; printing a recorded name works, "
                "evaluating anything else, set, call and raw are refused (exit 3). At the "
                "first or last recorded line the stop says so.\n\n"
                "  dbg trace main --lines && dbg kill\n"
                "  dbg replay last\n"
                "  dbg break cart.py:12 && dbg continue --back"))
