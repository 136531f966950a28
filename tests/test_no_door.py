"""No door for anyone else: every channel of a session is reachable only by
the session's user (issue 20).

For each backend a session is started and stopped at a breakpoint; every TCP
port its processes listen on is found from /proc (/proc/net/tcp and each
process's fds, never a list of known ports); then a process of another user
(uid 65534, through setpriv) and a process of the same user that the session
did not start connect to each one and send garbage and plausible protocol
messages (DAP pydevdAuthorize with a null token, DAP initialize, a JDWP
handshake, an HTTP GET of /json/list, a WebSocket upgrade). The session must
answer `next` and `print` as before, and nothing they read may give a way in.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from builds import build_c, build_go

from dbgcore.testing import Dbg, marked_lines, require
from dbgcore.transport import peers
from dbgcore.transport.dap.adapter import AdapterProcess, LoopbackListener

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
#: An interpreter uid 65534 can run (dbg's own may sit in a folder of root's).
NOBODY_PYTHON = "/usr/bin/python3"

#: Run by the intruders (as `python -c`, so no file of ours need be readable
#: by them): connects to each port in argv, once per payload, and prints what
#: came back as JSON.
INTRUDER = r"""
import json, socket, sys, time
def dap(obj):
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body
PAYLOADS = {
    "garbage": b"\x00\xff\xfe garbage \r\n\r\n" * 8,
    "pydevdAuthorize": dap({"seq": 1, "type": "request", "command": "pydevdAuthorize",
                            "arguments": {"debugServerAccessToken": None}}),
    "initialize": dap({"seq": 1, "type": "request", "command": "initialize",
                       "arguments": {"adapterID": "intruder", "clientID": "intruder"}}),
    "jdwp": b"JDWP-Handshake",
    "json-list": b"GET /json/list HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    "websocket": (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                  b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  b"Sec-WebSocket-Version: 13\r\n\r\n"),
}
found = {}
for port in map(int, sys.argv[1:]):
    for name, payload in PAYLOADS.items():
        got, how = b"", "closed"
        try:
            sock = socket.create_connection(("127.0.0.1", port), 2)
        except OSError as exc:
            found["%d %s" % (port, name)] = {"reply": "", "how": "refused: %s" % exc}
            continue
        try:
            sock.sendall(payload)
            sock.settimeout(0.5)
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                got += chunk
            else:
                how = "open"
        except socket.timeout:
            how = "open"
        except OSError as exc:
            how = "reset: %s" % exc
        finally:
            sock.close()
        found["%d %s" % (port, name)] = {"reply": got.decode("latin-1"), "how": how}
print(json.dumps(found))
"""


def _need_other_user() -> None:
    require(os.geteuid() == 0 and shutil.which("setpriv") is not None
            and os.access(NOBODY_PYTHON, os.X_OK),
            "needs root, setpriv and /usr/bin/python3 to act as another user")


def intrude(ports: list[int], other_user: bool) -> dict[str, dict[str, str]]:
    """What each payload got from each port, sent by uid 65534 (other_user)
    or by a process of ours that no session started."""
    argv = [*NOBODY, NOBODY_PYTHON] if other_user else [sys.executable]
    done = subprocess.run([*argv, "-c", INTRUDER, *map(str, ports)], capture_output=True,
                          text=True, timeout=120, cwd="/")
    assert done.returncode == 0, done.stderr
    found: dict[str, dict[str, str]] = json.loads(done.stdout)
    return found


def session_roots(dbg: Dbg, session: str = "default") -> list[int]:
    status = json.loads((dbg.home / "sessions" / session / "status.json").read_text())
    return [int(status["pid"]), *(int(c["pid"]) for c in status.get("children", []))]


def session_ports(dbg: Dbg) -> list[tuple[int, tuple[str, int]]]:
    """(pid, address) of every TCP listener the session's processes hold."""
    return peers.listening_ports(session_roots(dbg))


# -- one program per backend: stopped at @here, `next` goes to @after ------------------

PY = "total = 40\ntotal = total + 2  # @here\nprint(total)  # @after\n"
C = ("#include <stdio.h>\nint main(void) {\n    int total = 40;\n"
     "    total = total + 2; // @here\n    printf(\"%d\\n\", total); // @after\n"
     "    return 0;\n}\n")
GO = ("package main\n\nimport \"fmt\"\n\nfunc main() {\n\ttotal := 40\n"
      "\ttotal = total + 2 // @here\n\tfmt.Println(total) // @after\n}\n")
JAVA = ("public class Door {\n    public static void main(String[] args) {\n"
        "        int total = 40;\n        total = total + 2; // @here\n"
        "        System.out.println(total); // @after\n    }\n}\n")
JS = "let total = 40;\ntotal = total + 2; // @here\nconsole.log(total); // @after\n"
PERL = "my $total = 40;\n$total = $total + 2; # @here\nprint \"$total\\n\"; # @after\n"


def _script(name: str, text: str) -> Callable[[Path], tuple[Path, Path]]:
    """A program its debugger runs from source: written as ``name``."""
    def make(folder: Path) -> tuple[Path, Path]:
        source = folder / name
        source.write_text(text)
        return source, source
    return make


_py, _java = _script("door.py", PY), _script("Door.java", JAVA)
_js, _perl = _script("door.js", JS), _script("door.pl", PERL)


def _c(folder: Path) -> tuple[Path, Path]:
    source = folder / "door.c"
    source.write_text(C)
    return source, build_c(source)


def _go(folder: Path) -> tuple[Path, Path]:
    package = folder / "door"
    package.mkdir()
    (package / "go.mod").write_text("module door\n\ngo 1.18\n")
    (package / "main.go").write_text(GO)
    return package / "main.go", build_go(package)


#: backend: (program maker, the variable's name as print takes it)
BACKENDS: dict[str, tuple[Callable[[Path], tuple[Path, Path]], str]] = {
    "debugpy": (_py, "total"), "pdb": (_py, "total"), "gdb": (_c, "total"),
    "lldb": (_c, "total"), "dlv": (_go, "total"), "jdb": (_java, "total"),
    "node": (_js, "total"), "perl": (_perl, "$total"),
}

#: What guards each backend's ports (none: it holds no port at all).
GUARDED_PORTS = {"debugpy": 2, "node": 1}

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_no_port_of_a_session_lets_anyone_else_in(dbg: Dbg, backend: str,
                                                  backend_ready: Callable[[str], None]) -> None:
    _need_other_user()
    backend_ready(backend)
    make, variable = BACKENDS[backend]
    source, program = make(dbg.cwd)
    lines = marked_lines(source)
    started = dbg.json("start", "--backend", backend, str(program), timeout=120)
    assert started["ok"], started
    stop = dbg.json("break", f"{source}:{lines['here']}")
    assert stop["ok"], stop
    stop = dbg.json("continue")
    assert stop["state"] == "stopped" and stop["location"]["line"] == lines["here"], stop

    listening = session_ports(dbg)
    ports = sorted({address[1] for _, address in listening})
    print(f"{backend}: listening {listening}")
    assert len(ports) == GUARDED_PORTS.get(backend, 0), listening
    assert all(address[0] in ("127.0.0.1", "::1") for _, address in listening), listening

    for other_user in (True, False):
        found = intrude(ports, other_user)
        print(f"{backend} ({'uid 65534' if other_user else 'same user'}): {found}")
        for key, got in found.items():
            reply = got["reply"]
            if backend == "debugpy":
                # Closed by the adapter's guard before a byte is written
                # (unguarded, debugpy sends pydevdAuthorize, or telemetry
                # events to a client, at once).
                assert reply == "" and got["how"] != "open", (key, got)
            # Nothing that names a way in: node's WebSocket URL (its id) or a
            # DAP answer.
            assert not UUID_RE.search(reply) and "ws://" not in reply, (key, got)
            assert "webSocketDebuggerUrl" not in reply and '"type": "response"' not in reply

    if backend == "debugpy":
        log = (dbg.home / "sessions" / "default" / "debugger.log").read_text()
        assert "a process of uid 65534" in log and "did not start" in log

    step = dbg.json("next")
    assert step["state"] == "stopped" and step["location"]["line"] == lines["after"], step
    value = dbg.json("print", variable)
    assert value["ok"] and "42" in json.dumps(value), value
    assert dbg.json("kill")["ok"]


def test_the_dial_back_listener_takes_only_its_adapters_connection() -> None:
    """tcp-dial (delve): connections that come before the adapter's, from
    another user and from a process of ours it did not start, are closed
    unread and noted; the adapter's own is the one accepted, and the
    listener is closed then."""
    _need_other_user()
    listener = LoopbackListener()
    dialer = (f"import socket, time; time.sleep(2); s = socket.create_connection(('127.0.0.1', "
              f"{listener.port})); s.sendall(b'from the adapter'); time.sleep(5)")
    adapter = AdapterProcess([sys.executable, "-c", dialer], stdio=False, name="fake-adapter")
    intruders = [subprocess.Popen([*argv, "-c", INTRUDER, str(listener.port)],
                                  stdout=subprocess.PIPE, text=True, cwd="/")
                 for argv in ([*NOBODY, NOBODY_PYTHON], [sys.executable])]
    refused: list[str] = []
    try:
        transport = listener.accept(20, adapter, on_refused=refused.append)
        assert transport.read() == b"from the adapter"
        transport.close()
        answers = [json.loads(intruder.communicate(timeout=60)[0]) for intruder in intruders]
    finally:
        adapter.proc.kill()
        for intruder in intruders:
            intruder.kill()
            intruder.wait()
    assert all(got["reply"] == "" for found in answers for got in found.values()), answers
    assert any("uid 65534" in why for why in refused), refused
    assert any("did not start" in why for why in refused), refused
    with pytest.raises(OSError):  # closed once it has its connection
        listener.sock.getsockname()


def test_jdb_start_takes_only_its_own_jvm_and_jdb(dbg: Dbg, tmp_path: Path,
                                                 backend_ready: Callable[[str], None]) -> None:
    """The JVM and jdb each dial a port of dbg's. Processes that connect to
    it first (held back here by a `java` that waits two seconds), of another
    user and of the same user, are refused and noted; the start goes on with
    the real JVM and jdb, and the session works."""
    _need_other_user()
    backend_ready("jdb")
    source, _ = _java(dbg.cwd)
    lines = marked_lines(source)
    slow = tmp_path / "slowjava"
    slow.mkdir()
    real_java = shutil.which("java")
    assert real_java
    (slow / "java").write_text(f"#!/bin/sh\nsleep 2\nexec {real_java} \"$@\"\n")
    (slow / "java").chmod(0o755)
    answer: dict[str, Any] = {}

    def start() -> None:
        answer["result"] = dbg("--json", "start", "--backend", "jdb", str(source), timeout=120,
                               env={"PATH": f"{slow}{os.pathsep}{os.environ['PATH']}"})

    thread = threading.Thread(target=start)
    thread.start()
    ports: list[int] = []
    deadline = time.monotonic() + 60
    while not ports and time.monotonic() < deadline and thread.is_alive():
        ports = [address[1] for _, address in peers.listening_ports(_processes_of(dbg.home))]
        time.sleep(0.01)
    assert ports, "dbg never listened for the JVM"
    print(f"jdb: listening before the JVM came {ports}")
    found = {**intrude(ports, other_user=True), **{
        f"same user {key}": got for key, got in intrude(ports, other_user=False).items()}}
    thread.join(120)
    result = answer["result"]
    print(result, found)
    assert all(got["reply"] == "" for got in found.values()), found
    assert result.code == 0 and json.loads(result.out)["state"] == "stopped", result
    log = (dbg.home / "sessions" / "default" / "debugger.log").read_text()
    assert "a process of uid 65534" in log and "did not start" in log
    assert not peers.listening_ports(session_roots(dbg))
    assert dbg.json("break", f"{source}:{lines['here']}")["ok"]
    assert dbg.json("continue")["location"]["line"] == lines["here"]
    step = dbg.json("next")
    assert step["location"]["line"] == lines["after"], step
    assert "42" in json.dumps(dbg.json("print", "total"))


def _processes_of(home: Path) -> list[int]:
    """Pids of the processes whose environment names DBG_HOME=home."""
    mark = f"DBG_HOME={home}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if mark in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                found.append(int(entry))
        except OSError:
            continue
    return found
