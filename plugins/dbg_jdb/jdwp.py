"""JDWP read as it passes between the program's JVM and jdb, and the few
questions dbg asks the JVM itself on that connection.

jdb shows an exception stop by the exception's class alone, and none of its
expressions reaches the exception object (it is no frame's variable): the
JDK's helpful NullPointerException message ("Cannot invoke
"String.length()" because "name" is null") would never be seen. dbg relays
JDWP between the two (see :mod:`dbg_jdb.backend`), so the relay reads the
packets: each exception event leaves the exception's object and thread,
and at the stop dbg asks the JVM for that object's ``getMessage()`` in
packets of its own, whose replies go to dbg, never to jdb.

A JDWP packet: length (4 bytes, the header's 11 included), id (4), flags
(1: 0x80 for a reply), then a command's set and number (1 + 1) or a
reply's error code (2); after a 14-byte handshake each way.
"""

from __future__ import annotations

import itertools
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

HANDSHAKE = b"JDWP-Handshake"
_HEADER = struct.Struct(">IIB")
_REPLY = 0x80
#: Ids of dbg's own commands: far above jdb's, which count from 1.
_OWN_IDS = 0x40000000

#: (command set, command) of what is read or asked.
_ID_SIZES = (1, 7)
_CLASSES_BY_SIGNATURE = (1, 2)
_METHODS = (2, 5)
_INVOKE_METHOD = (9, 6)
_STRING_VALUE = (10, 1)
_COMPOSITE_EVENT = (64, 100)

#: Event kinds whose data the reader knows how to pass over.
_THREAD_AND_LOCATION = frozenset({1, 2, 40, 41})  # step, breakpoint, method entry, exit
_THREAD_ONLY = frozenset({6, 7, 90})  # thread start, thread death, VM start
_EXCEPTION = 4
_CLASS_PREPARE = 8
_INVOKE_SINGLE_THREADED = 1


class JdwpError(Exception):
    """A question dbg asked the JVM got no answer it can use."""


@dataclass
class _Sizes:
    """The VM's ID sizes (VirtualMachine.IDSizes, which jdb asks first);
    8 bytes each until the VM has said."""
    field: int = 8
    method: int = 8
    object: int = 8
    reference: int = 8
    frame: int = 8


@dataclass
class ThrownException:
    """An exception event's object and the thread it stopped, as JDWP ids."""
    thread: bytes
    exception: bytes


@dataclass
class _Pending:
    done: threading.Event = field(default_factory=threading.Event)
    error: int = 0
    data: bytes = b""


class JdwpRelay:
    """Copies JDWP both ways between the JVM and jdb, packet by packet, each
    way in a thread, until either side closes (then both are closed)."""

    def __init__(self, vm: socket.socket, jdb: socket.socket) -> None:
        self.vm = vm
        self.jdb = jdb
        self.sizes = _Sizes()
        #: The exception of the latest exception event (None: none yet).
        self.thrown: ThrownException | None = None
        self._to_vm = threading.Lock()
        self._ids = itertools.count(_OWN_IDS)
        self._pending: dict[int, _Pending] = {}
        self._id_sizes_asked: set[int] = set()
        self._get_message: tuple[bytes, bytes] | None = None  # Throwable's classID, methodID

    def start(self) -> list[threading.Thread]:
        # Each small write goes at once: JDWP writes a header and a body apart,
        # and Nagle's algorithm would hold the second for the peer's ACK.
        for sock in (self.vm, self.jdb):
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threads = [threading.Thread(target=self._guarded, args=(run,), name=f"jdwp-{name}",
                                    daemon=True)
                   for name, run in (("to-vm", self._jdb_to_vm), ("to-jdb", self._vm_to_jdb))]
        for thread in threads:
            thread.start()
        return threads

    # -- the two ways ------------------------------------------------------------

    def _guarded(self, run: Callable[[], None]) -> None:
        try:
            run()
        except OSError:
            pass
        for sock in (self.vm, self.jdb):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for pending in list(self._pending.values()):
            pending.error = -1
            pending.done.set()

    def _jdb_to_vm(self) -> None:
        hello = _read_exactly(self.jdb, len(HANDSHAKE))
        if hello is None:
            return
        with self._to_vm:
            self.vm.sendall(hello)
        while (packet := _read_packet(self.jdb)) is not None:
            ident, flags = _HEADER.unpack_from(packet)[1:]
            if not flags & _REPLY and tuple(packet[9:11]) == _ID_SIZES:
                self._id_sizes_asked.add(ident)
            with self._to_vm:
                self.vm.sendall(packet)

    def _vm_to_jdb(self) -> None:
        hello = _read_exactly(self.vm, len(HANDSHAKE))
        if hello is None:
            return
        self.jdb.sendall(hello)
        while (packet := _read_packet(self.vm)) is not None:
            ident, flags = _HEADER.unpack_from(packet)[1:]
            if flags & _REPLY:
                pending = self._pending.pop(ident, None)
                if pending is not None:
                    pending.error = struct.unpack_from(">H", packet, 9)[0]
                    pending.data = packet[11:]
                    pending.done.set()
                    continue  # dbg's own question: jdb never asked it
                if ident in self._id_sizes_asked and len(packet) >= 31:
                    self._id_sizes_asked.discard(ident)
                    self.sizes = _Sizes(*struct.unpack_from(">5I", packet, 11))
            elif tuple(packet[9:11]) == _COMPOSITE_EVENT:
                # Noted before jdb has the event, so before it shows the stop.
                self._note_events(packet[11:])
            self.jdb.sendall(packet)

    def _note_events(self, data: bytes) -> None:
        """The exception event in a composite event, if there is one."""
        sizes = self.sizes
        location = 1 + sizes.reference + sizes.method + 8
        try:
            count = struct.unpack_from(">I", data, 1)[0]
            at = 5
            for _ in range(count):
                kind = data[at]
                at += 5  # the kind and the request's id
                if kind == _EXCEPTION:
                    thread = data[at:at + sizes.object]
                    at += sizes.object + location
                    exception = data[at + 1:at + 1 + sizes.object]  # after its tag
                    self.thrown = ThrownException(thread, exception)
                    return
                if kind in _THREAD_AND_LOCATION:
                    at += sizes.object + location
                elif kind in _THREAD_ONLY:
                    at += sizes.object
                elif kind == _CLASS_PREPARE:
                    at += sizes.object + 1 + sizes.reference
                    at += 4 + struct.unpack_from(">I", data, at)[0] + 4
                else:
                    return  # a kind of variable length, not read further
        except (IndexError, struct.error):
            return

    # -- dbg's own questions -----------------------------------------------------

    def ask(self, command: tuple[int, int], data: bytes, timeout: float) -> bytes:
        """One command of dbg's to the JVM; its reply's data."""
        ident = next(self._ids)
        pending = self._pending[ident] = _Pending()
        packet = _HEADER.pack(11 + len(data), ident, 0) + bytes(command) + data
        try:
            with self._to_vm:
                self.vm.sendall(packet)
        except OSError as exc:
            self._pending.pop(ident, None)
            raise JdwpError(f"the JVM's connection is closed: {exc}") from exc
        if not pending.done.wait(timeout):
            self._pending.pop(ident, None)
            raise JdwpError(f"the JVM did not answer within {timeout:g}s")
        if pending.error:
            raise JdwpError(f"the JVM answered JDWP error {pending.error}")
        return pending.data

    def exception_message(self, thrown: ThrownException, timeout: float) -> str | None:
        """``getMessage()`` of the exception, called in the thread it stopped
        (that thread alone runs meanwhile); None for a null message."""
        throwable, method = self._throwable_get_message(timeout)
        reply = self.ask(_INVOKE_METHOD, thrown.exception + thrown.thread + throwable + method
                         + struct.pack(">II", 0, _INVOKE_SINGLE_THREADED), timeout)
        size = self.sizes.object
        string = reply[1:1 + size]
        raised = reply[2 + size:2 + 2 * size]
        if raised.strip(b"\0"):
            raise JdwpError("getMessage() threw")
        if not string.strip(b"\0"):
            return None
        value = self.ask(_STRING_VALUE, string, timeout)
        length = struct.unpack_from(">I", value)[0]
        return value[4:4 + length].decode("utf-8", "replace")

    def _throwable_get_message(self, timeout: float) -> tuple[bytes, bytes]:
        """java.lang.Throwable's class id and the method id of its
        getMessage(), asked once: a virtual call of it reaches an override
        (NullPointerException's, which builds the helpful message)."""
        if self._get_message is not None:
            return self._get_message
        sizes = self.sizes
        reply = self.ask(_CLASSES_BY_SIGNATURE, _string("Ljava/lang/Throwable;"), timeout)
        if struct.unpack_from(">I", reply)[0] < 1:
            raise JdwpError("java.lang.Throwable is not loaded")
        throwable = reply[5:5 + sizes.reference]
        reply = self.ask(_METHODS, throwable, timeout)
        at = 4
        for _ in range(struct.unpack_from(">I", reply)[0]):
            method = reply[at:at + sizes.method]
            at += sizes.method
            name, at = _read_string(reply, at)
            signature, at = _read_string(reply, at)
            at += 4  # modifiers
            if (name, signature) == ("getMessage", "()Ljava/lang/String;"):
                self._get_message = (throwable, method)
                return self._get_message
        raise JdwpError("java.lang.Throwable has no getMessage()")


def _string(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack(">I", len(raw)) + raw


def _read_string(data: bytes, at: int) -> tuple[str, int]:
    length = struct.unpack_from(">I", data, at)[0]
    return data[at + 4:at + 4 + length].decode("utf-8", "replace"), at + 4 + length


def _read_exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = sock.recv(size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_packet(sock: socket.socket) -> bytes | None:
    """One whole packet, or None at the end of the connection."""
    header = _read_exactly(sock, _HEADER.size)
    if header is None:
        return None
    length = _HEADER.unpack(header)[0]
    if length < 11:
        return None  # not JDWP: end the relay rather than guess
    rest = _read_exactly(sock, length - _HEADER.size)
    return None if rest is None else header + rest
