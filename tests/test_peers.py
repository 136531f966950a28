"""Who is at the other end of a loopback connection (dbgcore.transport.peers): the
kernel's answer by address pair (sock_diag) is the /proc table's, for an
IPv4 socket, an IPv6 one dialing 127.0.0.1 and one on ::1; a process that
is not the session's is refused, whichever way it is found."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from dbgcore.transport import peers

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and netlink")


def _pair(server: tuple[str, int], family: int) -> tuple[socket.socket, ...]:
    listener = socket.create_server(server, family=socket.AF_INET6 if ":" in server[0]
                                    else socket.AF_INET)
    dialer = socket.socket(family)
    dialer.connect(listener.getsockname()[:2])
    accepted, _ = listener.accept()
    return listener, dialer, accepted


@pytest.fixture
def closing() -> Iterator[list[socket.socket]]:
    held: list[socket.socket] = []
    yield held
    for sock in held:
        sock.close()


def _netlink_here() -> bool:
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, peers.NETLINK_SOCK_DIAG).close()
    except (OSError, AttributeError):
        return False
    return True


@pytest.mark.parametrize("kind", ["ipv4", "ipv6 to 127.0.0.1", "ipv6 loopback"])
def test_the_peer_is_found_by_its_address_pair_as_in_proc(
        kind: str, closing: list[socket.socket]) -> None:
    try:
        if kind == "ipv4":
            held = _pair(("127.0.0.1", 0), socket.AF_INET)
        elif kind == "ipv6 to 127.0.0.1":
            listener = socket.create_server(("127.0.0.1", 0))
            held = (listener, *_dial_mapped(listener))
        else:
            held = _pair(("::1", 0), socket.AF_INET6)
    except OSError as exc:
        pytest.skip(f"no {kind} here: {exc}")
    closing.extend(held)
    dialer, accepted = held[1], held[2]
    local, remote = peers.normal(accepted.getsockname()), peers.normal(accepted.getpeername())
    found = peers.diagnosed(remote, local)
    if found is None and not _netlink_here():
        pytest.skip("no sock_diag netlink here: /proc alone answers")
    # Where netlink can be asked, it must find the connection (else the
    # kernel's answer was misread, and every check fell back to /proc).
    assert found is not None
    in_proc = peers.other_end(local, remote, peers.tcp_sockets())
    assert in_proc is not None
    assert found == in_proc, (found, in_proc)
    assert found.inode == os.fstat(dialer.fileno()).st_ino
    assert found.uid == os.geteuid() and found.state == peers.ESTABLISHED
    assert peers.other_end(local, remote) == found


def _dial_mapped(listener: socket.socket) -> tuple[socket.socket, socket.socket]:
    dialer = socket.socket(socket.AF_INET6)
    dialer.connect(("::ffff:127.0.0.1", listener.getsockname()[1]))
    accepted, _ = listener.accept()
    return dialer, accepted


def test_a_pair_that_is_no_connection_is_not_found() -> None:
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()
    assert peers.diagnosed(("127.0.0.1", port), ("127.0.0.1", port)) is None
    assert peers.other_end(("127.0.0.1", port), ("127.0.0.1", port)) is None


def test_a_connection_from_the_root_or_its_child_is_taken_another_refused() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    dial = (f"import socket, time; s = socket.create_connection(('127.0.0.1', {port})); "
            "time.sleep(30)")
    # A shell that starts the dialer as its child: the root is the shell.
    parent = subprocess.Popen(["/bin/sh", "-c", f'"{sys.executable}" -c "{dial}"; :'])
    stranger = subprocess.Popen([sys.executable, "-c", dial])
    try:
        verdicts = {}
        for _ in range(2):
            listener.settimeout(20)
            conn, _ = listener.accept()
            why = peers.check_accepted(conn, [parent.pid])
            verdicts["refused" if why else "taken"] = why
            conn.close()
    finally:
        for proc in (parent, stranger):
            proc.kill()
            proc.wait()
        listener.close()
    assert set(verdicts) == {"taken", "refused"}, verdicts
    assert "did not start" in str(verdicts["refused"]), verdicts
