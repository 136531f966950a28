#!/usr/bin/env python3
"""A tiny debug adapter that really speaks DAP over stdio, for fault injection.

It frames its own messages (it does not import dbgcore, so a bug in dbg's
framing cannot hide in both ends) and plays a one-file "program" that stops
at entry, steps line by line, and exits on continue. Faults are chosen on the
command line, any number of them, each a word and maybe an argument::

    fake_adapter.py [--tag TEXT] [MODE [ARG]]...

    crash-on REQUEST    exit abruptly (code 3, after two lines on stderr) when
                        REQUEST arrives
    crash-after REQUEST the same, right after answering REQUEST (e.g. continue:
                        the adapter dies while the program runs)
    hang-on REQUEST     never answer REQUEST (everything else is still answered)
    error-on REQUEST    answer REQUEST with success: false and a formatted error
    garbage             write non-DAP bytes between frames (stray prints, a
                        partial header, a header with a bad length, binary junk)
    oversized [REQUEST] answer REQUEST (default: evaluate) with a 2 GB Content-Length
    no-initialized      never send the `initialized` event
    continue-runs       on continue, the program runs on: no stop, no exit
    slow-launch SECONDS sleep before answering launch

``--tag`` is ignored; tests put a unique word there to find the process in /proc.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

Message = dict[str, Any]

CAPABILITIES: Message = {
    "supportsConfigurationDoneRequest": True,
    "supportsEvaluateForHovers": True,
    "supportsSetVariable": True,
    "supportsConditionalBreakpoints": True,
    "exceptionBreakpointFilters": [
        {"filter": "raised", "label": "Raised Exceptions", "default": False},
        {"filter": "uncaught", "label": "Uncaught Exceptions", "default": True},
    ],
}

#: Stray bytes for `garbage` mode, cycled through, one chunk before each frame.
GARBAGE = [
    b"fake adapter: a stray print on stdout\n",
    b"Content-Len",  # a header cut short ...
    b"\x00\xff\xfe binary junk \x1b[31m\r\n",
    b"Content-Length: banana\r\n\r\n",  # ... and one whose length is not a number
    b"\r\n\r\n",
    b"Content-Length: 12\r\nX-Junk-Without-Colon\r\n\r\n",
]

THREAD_ID = 1
LOCALS_REF = 100
ITEMS_REF = 101


class Adapter:
    def __init__(self, modes: dict[str, str]) -> None:
        self.modes = modes
        self.seq = 0
        self.inbuf = b""
        self.garbage_index = 0
        self.program = "/nonexistent/program.py"
        self.line = 1
        self.launch_seq: int | None = None
        self.breakpoint_ids = 0
        self.values = {"x": "42", "name": "'fake'"}

    # -- wire --------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(1, view)
            view = view[written:]

    def send(self, message: Message) -> None:
        self.seq += 1
        message = {"seq": self.seq, **message}
        body = json.dumps(message).encode("utf-8")
        if "garbage" in self.modes:
            self._write(GARBAGE[self.garbage_index % len(GARBAGE)])
            self.garbage_index += 1
        self._write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def respond(self, request: Message, body: Message | None = None, success: bool = True,
                message: str | None = None) -> None:
        response: Message = {"type": "response", "request_seq": request["seq"],
                             "command": request["command"], "success": success}
        if body is not None:
            response["body"] = body
        if message is not None:
            response["message"] = message
        self.send(response)

    def event(self, name: str, body: Message | None = None) -> None:
        event: Message = {"type": "event", "event": name}
        if body is not None:
            event["body"] = body
        self.send(event)

    def output(self, text: str, category: str = "stdout") -> None:
        self.event("output", {"category": category, "output": text})

    def read_message(self) -> Message | None:
        while True:
            end = self.inbuf.find(b"\r\n\r\n")
            if end >= 0:
                length = None
                for line in self.inbuf[:end].split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length is None:
                    raise SystemExit("fake adapter: a header without Content-Length")
                start = end + 4
                if len(self.inbuf) >= start + length:
                    body = self.inbuf[start : start + length]
                    self.inbuf = self.inbuf[start + length :]
                    message: Message = json.loads(body)
                    return message
            data = os.read(0, 65536)
            if not data:
                return None
            self.inbuf += data

    # -- the program ---------------------------------------------------------

    def stopped(self, reason: str) -> None:
        self.event("stopped", {"reason": reason, "threadId": THREAD_ID,
                               "allThreadsStopped": True})

    def crash(self, when: str) -> None:
        sys.stderr.write("fake adapter: starting to fall over\n")
        sys.stderr.write(f"fake adapter: simulated crash {when}\n")
        sys.stderr.flush()
        os._exit(3)

    def run(self) -> None:
        while True:
            request = self.read_message()
            if request is None:
                return
            if request.get("type") != "request":
                continue  # answers to reverse requests: none are sent
            command = str(request.get("command"))
            if self.modes.get("crash-on") == command:
                self.crash(f"while handling {command}")
            if self.modes.get("hang-on") == command:
                continue
            if self.modes.get("error-on") == command:
                self.respond(request, {"error": {
                    "id": 4242, "format": "cannot {verb} in the fake program ({why})",
                    "variables": {"verb": command, "why": "injected fault"},
                    "showUser": True}}, success=False, message="injected fault")
                continue
            if self.modes.get("oversized") == command:
                # An adapter that says it is about to send 2 GB (and sends a little).
                self._write(b"Content-Length: 2147483648\r\n\r\n{\"seq\": 1, ")
                continue
            handler = getattr(self, "on_" + command, None)
            if handler is None:
                self.respond(request, success=False, message=f"unknown request {command}")
            elif self.modes.get("crash-after") == command:
                # Only the response: no events after it.
                self.respond(request)
                self.crash(f"after answering {command}")
            else:
                handler(request)

    # -- requests ------------------------------------------------------------

    def on_initialize(self, request: Message) -> None:
        self.respond(request, CAPABILITIES)

    def on_launch(self, request: Message) -> None:
        arguments = request.get("arguments") or {}
        self.program = str(arguments.get("program") or self.program)
        if "slow-launch" in self.modes:
            time.sleep(float(self.modes["slow-launch"]))
        # Like debugpy: initialized now, the launch response after configurationDone.
        self.launch_seq = request["seq"]
        self.output(f"fake adapter: launching {self.program}\n", "console")
        if "no-initialized" in self.modes:
            self.respond(request)
            self.launch_seq = None
            return
        self.event("initialized")

    def on_attach(self, request: Message) -> None:
        self.on_launch(request)

    def on_configurationDone(self, request: Message) -> None:
        self.respond(request)
        if self.launch_seq is not None:
            self.respond({"seq": self.launch_seq, "command": "launch"})
            self.launch_seq = None
        self.event("process", {"name": self.program, "startMethod": "launch"})
        self.event("thread", {"reason": "started", "threadId": THREAD_ID})
        self.output("hello from the fake program\n")
        self.stopped("entry")

    def on_setBreakpoints(self, request: Message) -> None:
        arguments = request.get("arguments") or {}
        source = arguments.get("source") or {}
        breakpoints = []
        for bp in arguments.get("breakpoints") or []:
            self.breakpoint_ids += 1
            breakpoints.append({"id": self.breakpoint_ids, "verified": True,
                                "line": bp.get("line"), "source": source})
        self.respond(request, {"breakpoints": breakpoints})

    def on_setExceptionBreakpoints(self, request: Message) -> None:
        self.respond(request, {})

    def on_threads(self, request: Message) -> None:
        self.respond(request, {"threads": [{"id": THREAD_ID, "name": "MainThread"}]})

    def on_stackTrace(self, request: Message) -> None:
        frames = [
            {"id": 1, "name": "main", "line": self.line, "column": 1,
             "source": {"name": os.path.basename(self.program), "path": self.program}},
            {"id": 2, "name": "<module>", "line": 99, "column": 1,
             "source": {"name": os.path.basename(self.program), "path": self.program}},
        ]
        self.respond(request, {"stackFrames": frames, "totalFrames": len(frames)})

    def on_scopes(self, request: Message) -> None:
        self.respond(request, {"scopes": [
            {"name": "Locals", "presentationHint": "locals", "variablesReference": LOCALS_REF,
             "expensive": False},
        ]})

    def on_variables(self, request: Message) -> None:
        reference = (request.get("arguments") or {}).get("variablesReference")
        if reference == LOCALS_REF:
            variables = [{"name": k, "value": v, "type": "str" if "'" in v else "int",
                          "variablesReference": 0} for k, v in self.values.items()]
            variables.append({"name": "items", "value": "[1, 2]", "type": "list",
                              "variablesReference": ITEMS_REF})
        elif reference == ITEMS_REF:
            variables = [{"name": "0", "value": "1", "variablesReference": 0},
                         {"name": "1", "value": "2", "variablesReference": 0}]
        else:
            self.respond(request, success=False, message=f"no variables {reference}")
            return
        self.respond(request, {"variables": variables})

    def on_evaluate(self, request: Message) -> None:
        expression = str((request.get("arguments") or {}).get("expression", ""))
        if expression in self.values:
            self.respond(request, {"result": self.values[expression], "variablesReference": 0})
        elif expression.isdigit():
            self.respond(request, {"result": expression, "type": "int",
                                   "variablesReference": 0})
        else:
            self.respond(request, success=False, message=f"name {expression!r} is not defined")

    def on_setVariable(self, request: Message) -> None:
        arguments = request.get("arguments") or {}
        self.values[str(arguments.get("name"))] = str(arguments.get("value"))
        self.respond(request, {"value": str(arguments.get("value"))})

    def _step(self, request: Message) -> None:
        self.respond(request)
        self.line += 1
        self.stopped("step")

    on_next = on_stepIn = on_stepOut = _step

    def on_pause(self, request: Message) -> None:
        self.respond(request)
        self.stopped("pause")

    def on_continue(self, request: Message) -> None:
        self.respond(request, {"allThreadsContinued": True})
        if "continue-runs" in self.modes:
            return
        self.output("goodbye from the fake program\n")
        self.event("exited", {"exitCode": 0})
        self.event("terminated")

    def on_disconnect(self, request: Message) -> None:
        self.respond(request)
        sys.exit(0)


MODES_WITH_ARGUMENT = {"crash-on", "crash-after", "hang-on", "error-on", "slow-launch"}
MODES_WITHOUT = {"garbage", "no-initialized", "continue-runs"}


def parse_modes(argv: list[str]) -> dict[str, str]:
    modes: dict[str, str] = {}
    known = MODES_WITH_ARGUMENT | MODES_WITHOUT | {"oversized", "--tag"}
    i = 0
    while i < len(argv):
        word = argv[i]
        following = argv[i + 1] if i + 1 < len(argv) else None
        if word == "--tag" or word in MODES_WITH_ARGUMENT:
            if following is None:
                raise SystemExit(f"fake adapter: {word} needs an argument")
            if word != "--tag":
                modes[word] = following
            i += 2
        elif word in MODES_WITHOUT:
            modes[word] = ""
            i += 1
        elif word == "oversized":
            # Its REQUEST is optional: take the next word unless it is a mode.
            if following is not None and following not in known:
                modes[word] = following
                i += 2
            else:
                modes[word] = "evaluate"
                i += 1
        else:
            raise SystemExit(f"fake adapter: unknown mode {word!r}")
    return modes


def main() -> None:
    Adapter(parse_modes(sys.argv[1:])).run()


if __name__ == "__main__":
    main()
