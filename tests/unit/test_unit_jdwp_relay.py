"""dbg's JDWP relay between a JVM and jdb, on real sockets, each end played
by this test speaking JDWP: packets pass whole both ways, an exception
event's object and thread are noted, and dbg's own questions get their
answers without jdb ever seeing them."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator

import pytest
from dbg_jdb.jdwp import HANDSHAKE, JdwpError, JdwpRelay


def _packet(ident: int, flags: int, tail: bytes, data: bytes) -> bytes:
    return struct.pack(">IIB", 11 + len(data), ident, flags) + tail + data


def _read(sock: socket.socket) -> bytes:
    header = b""
    while len(header) < 11:
        header += sock.recv(11 - len(header))
    length = struct.unpack(">I", header[:4])[0]
    body = b""
    while len(body) < length - 11:
        body += sock.recv(length - 11 - len(body))
    return header + body


@pytest.fixture
def ends() -> Iterator[tuple[socket.socket, socket.socket, JdwpRelay]]:
    """The JVM's end, jdb's end and the relay between them, after the
    handshake and jdb's IDSizes (objects of 4 bytes, the rest 8)."""
    vm_side, vm_relay = socket.socketpair()
    jdb_side, jdb_relay = socket.socketpair()
    relay = JdwpRelay(vm_relay, jdb_relay)
    relay.start()
    jdb_side.sendall(HANDSHAKE)
    assert vm_side.recv(14) == HANDSHAKE
    vm_side.sendall(HANDSHAKE)
    assert jdb_side.recv(14) == HANDSHAKE
    jdb_side.sendall(_packet(1, 0, bytes((1, 7)), b""))
    assert _read(vm_side)[9:11] == bytes((1, 7))
    vm_side.sendall(_packet(1, 0x80, b"\0\0", struct.pack(">5I", 8, 8, 4, 8, 8)))
    assert len(_read(jdb_side)) == 31
    yield vm_side, jdb_side, relay
    for sock in (vm_side, jdb_side):
        sock.close()


def test_an_exception_event_is_noted_and_passed_on(
        ends: tuple[socket.socket, socket.socket, JdwpRelay]) -> None:
    vm, jdb, relay = ends
    assert relay.sizes.object == 4
    location = b"\x01" + b"C" * 8 + b"M" * 8 + b"\0" * 8
    # A thread start first (its data passed over), then the exception.
    events = (b"\x02" + struct.pack(">I", 2) + b"\x06" + struct.pack(">I", 5) + b"TTTT"
              + b"\x04" + struct.pack(">I", 9) + b"TTTT" + location + b"L" + b"EXC!"
              + location)
    vm.sendall(_packet(77, 0, bytes((64, 100)), events))
    assert _read(jdb)[11:] == events
    assert relay.thrown is not None
    assert (relay.thrown.thread, relay.thrown.exception) == (b"TTTT", b"EXC!")


def test_dbgs_own_question_is_answered_to_dbg_alone(
        ends: tuple[socket.socket, socket.socket, JdwpRelay]) -> None:
    vm, jdb, relay = ends
    answers: list[bytes] = []
    asking = threading.Thread(target=lambda: answers.append(
        relay.ask((10, 1), b"SSSS", 5.0)))
    asking.start()
    question = _read(vm)
    ident = struct.unpack(">I", question[4:8])[0]
    assert question[9:] == bytes((10, 1)) + b"SSSS" and ident >= 0x40000000
    # jdb's own reply first, then dbg's: only jdb's reaches jdb.
    vm.sendall(_packet(2, 0x80, b"\0\0", b"for jdb"))
    vm.sendall(_packet(ident, 0x80, b"\0\0", b"for dbg"))
    asking.join(5)
    assert answers == [b"for dbg"]
    assert _read(jdb)[11:] == b"for jdb"
    jdb.settimeout(0.2)
    with pytest.raises(TimeoutError):
        jdb.recv(1)
    # An error code is an error, and no answer at all a timeout.
    def refuse() -> None:
        ident = struct.unpack(">I", _read(vm)[4:8])[0]
        vm.sendall(_packet(ident, 0x80, struct.pack(">H", 20), b""))

    refused = threading.Thread(target=refuse)
    refused.start()
    with pytest.raises(JdwpError, match="JDWP error 20"):
        relay.ask((9, 1), b"OOOO", 5.0)
    refused.join(5)
    with pytest.raises(JdwpError, match="did not answer"):
        relay.ask((9, 1), b"OOOO", 0.2)
