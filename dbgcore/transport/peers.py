"""Who is at the other end of a loopback TCP connection, from /proc.

A loopback port is open to every local user: the kernel asks no one's
permission before a connect() to 127.0.0.1. Where a debugger can only talk
TCP, dbg (and its adapter guard) checks each connection before speaking: the
other end's socket is found in /proc/net/tcp (or tcp6) by its address pair,
its owner's uid is read there, and its inode must be held open by one of the
processes dbg started (a process and everything it started). A socket of
another user, or of a process of ours outside the session, is refused.

For tools that only talk TCP and would listen themselves (JDWP), both ends
can dial dbg instead: :func:`accept_only` takes one checked connection and
closes its port (jdb's backend then relays JDWP between two such
connections, reading it as it passes: plugins/dbg_jdb/jdwp.py).

Only the standard library, and Python 3.8 syntax: this file is also loaded by
path into an adapter's own interpreter (see plugins/dbg_dap/adapterboot).
"""

from __future__ import annotations

import os
import socket
import struct
import time
from collections.abc import Callable, Iterable
from typing import NamedTuple

#: /proc/net/tcp's state column.
ESTABLISHED = "01"
LISTEN = "0A"


class TcpSocket(NamedTuple):
    """One row of /proc/net/tcp or tcp6."""

    local: tuple[str, int]
    remote: tuple[str, int]
    state: str
    uid: int
    inode: int


def _address(text: str) -> tuple[str, int]:
    host, port = text.split(":")
    # The kernel prints each 32-bit word of the address as a number in host
    # byte order: packed back the same way, they are the address's bytes.
    packed = b"".join(struct.pack("=I", int(host[i:i + 8], 16))
                      for i in range(0, len(host), 8))
    family = socket.AF_INET if len(packed) == 4 else socket.AF_INET6
    return normal((socket.inet_ntop(family, packed), int(port, 16)))


def normal(address: Iterable[object]) -> tuple[str, int]:
    """(host, port) of a socket address, an IPv4-mapped IPv6 one as IPv4."""
    host, port = list(address)[:2]
    text = str(host)
    if text.startswith("::ffff:") and "." in text:
        text = text[len("::ffff:"):]
    return text, int(str(port))


#: The kernel's TCP tables, IPv4's and IPv6's.
TABLES = ("/proc/net/tcp", "/proc/net/tcp6")


def tcp_sockets(tables: Iterable[str] = TABLES) -> list[TcpSocket]:
    """Every TCP socket of this network namespace, IPv4 and IPv6 (or those
    of ``tables``)."""
    rows: list[TcpSocket] = []
    for table in tables:
        try:
            with open(table) as listing:
                lines = listing.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10:
                continue
            try:
                rows.append(TcpSocket(_address(fields[1]), _address(fields[2]), fields[3],
                                      int(fields[7]), int(fields[9])))
            except (ValueError, struct.error, OSError):
                continue
    return rows


def family_tree(roots: Iterable[int]) -> set[int]:
    """The processes ``roots`` and every process they started, still alive."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                # The command name is in parentheses and may hold spaces.
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(name))
    tree = {pid for pid in roots if pid > 0}
    todo = list(tree)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in tree:
                tree.add(child)
                todo.append(child)
    return tree


def socket_inodes(pid: int) -> set[int]:
    """The inodes of the sockets ``pid`` holds open (none when it is gone)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return set()
    inodes = set()
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(int(link[8:-1]))
    return inodes


def holders(inode: int, pids: Iterable[int]) -> list[int]:
    """Which of ``pids`` hold the socket ``inode`` open."""
    return [pid for pid in pids if inode in socket_inodes(pid)]


#: Linux's netlink family for socket diagnostics, its request, and the
#: answer that is an error (see sock_diag(7)).
NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLMSG_ERROR = 2


def _diag_address(host: str, family: int) -> bytes:
    """``host`` as inet_diag_sockid holds it: 16 bytes, IPv4 in the first
    four, IPv4 in IPv6 as ::ffff:a.b.c.d."""
    if family == socket.AF_INET6 and "." in host:
        host = "::ffff:" + host
    return socket.inet_pton(family, host).ljust(16, b"\0")


def diagnosed(local: tuple[str, int], remote: tuple[str, int]) -> TcpSocket | None:
    """The socket whose own end is ``local`` and whose peer is ``remote``,
    asked of the kernel by its exact address pair (sock_diag(7)): tens of
    microseconds, where a read of /proc/net/tcp walks the kernel's whole
    table (~3.5 ms each here). None when it is not found so, or netlink
    cannot be asked (the caller then reads /proc)."""
    families = [socket.AF_INET6] if ":" in local[0] else [socket.AF_INET, socket.AF_INET6]
    for family in families:
        try:
            sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG)
        except (OSError, AttributeError):  # not Linux, or no sock_diag here
            return None
        try:
            sock.settimeout(1.0)
            # inet_diag_req_v2: family, protocol, no extensions, every state;
            # inet_diag_sockid: ports (big-endian), addresses, any interface,
            # no cookie.
            ident = struct.pack("!HH", local[1], remote[1]) + \
                _diag_address(local[0], family) + _diag_address(remote[0], family) + \
                struct.pack("=III", 0, 0xFFFFFFFF, 0xFFFFFFFF)
            request = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF) + ident
            sock.sendto(struct.pack("=IHHII", 16 + len(request), SOCK_DIAG_BY_FAMILY, 1, 1, 0)
                        + request, (0, 0))
            answer = sock.recv(65536)
        except (OSError, ValueError, struct.error):
            return None
        finally:
            sock.close()
        if len(answer) < 16 + 72 or struct.unpack_from("=H", answer, 4)[0] == NLMSG_ERROR:
            continue  # not a socket of this family (ENOENT)
        state = answer[17]
        uid, inode = struct.unpack_from("=II", answer, 16 + 4 + 48 + 12)
        return TcpSocket(local, remote, f"{state:02X}", uid, inode)
    return None


def other_end(local: tuple[str, int], remote: tuple[str, int],
              rows: list[TcpSocket] | None = None) -> TcpSocket | None:
    """The socket at the other end of the connection from ``local`` to ``remote``."""
    local, remote = normal(local), normal(remote)
    if rows is None:
        found = diagnosed(remote, local)
        if found is not None and found.inode:
            return found
    # One table at a time: reading one costs the kernel a walk of its whole
    # hash table (~3.5 ms each here, the empty tcp6 too), and a loopback
    # peer is mostly in IPv4's (an IPv6 socket dialing 127.0.0.1 is in tcp6's).
    listings = [rows] if rows is not None else (tcp_sockets([table]) for table in TABLES)
    for listing in listings:
        for row in listing:
            if row.local == remote and row.remote == local and row.inode:
                return row
    return None


def refusal(local: tuple[str, int], remote: tuple[str, int], roots: Iterable[int],
            patience: float = 1.0) -> str | None:
    """None when the other end of this loopback connection is held by one of
    ``roots`` or a process they started; else who it is, for a message.

    /proc/net/tcp is not read in one atomic step: a socket being set up
    while the kernel walks its tables can be missing from one reading (seen
    with a JVM dialing jdb), so a peer not found is looked for again for up
    to ``patience`` seconds."""
    host = normal(remote)[0]
    if not host.startswith("127.") and host != "::1":
        return f"{host}, not loopback"
    roots = list(roots)
    deadline = time.monotonic() + patience
    while True:
        peer = other_end(local, remote)
        if peer is not None:
            break
        if time.monotonic() > deadline:
            return f"port {remote[1]}, a socket not found in /proc/net/tcp"
        time.sleep(0.02)
    if peer.uid != os.geteuid():
        return f"port {remote[1]}, a process of uid {peer.uid}"
    # The roots first: an adapter mostly dials by itself, and the tree
    # costs a read of every process's stat (~2 ms).
    if not holders(peer.inode, roots) and not holders(peer.inode, family_tree(roots)):
        return f"port {remote[1]}, a process of yours that this session did not start"
    return None


def check_accepted(sock: socket.socket, roots: Iterable[int]) -> str | None:
    """:func:`refusal` for a connection a listener accepted."""
    try:
        return refusal(normal(sock.getsockname()), normal(sock.getpeername()), roots)
    except OSError as exc:  # already closed by the other end
        return f"a connection that closed at once ({exc.strerror or exc})"


def listening_ports(roots: Iterable[int]) -> list[tuple[int, tuple[str, int]]]:
    """(pid, address) of every TCP socket ``roots`` and what they started listen on."""
    rows = {row.inode: row for row in tcp_sockets() if row.state == LISTEN and row.inode}
    found = []
    for pid in sorted(family_tree(roots)):
        found += [(pid, rows[inode].local) for inode in sorted(socket_inodes(pid) & rows.keys())]
    return found


# -- a reverse connection dbg opens and checks, for tools that only dial or listen --


def loopback_listener() -> socket.socket:
    """A TCP socket listening on a free loopback port, for a process dbg
    starts to dial (its port: ``getsockname()[1]``)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        # Room for the awaited connection behind others' that get refused.
        sock.listen(8)
    except OSError:
        sock.close()
        raise
    return sock


def accept_only(listener: socket.socket, roots: Iterable[int], timeout: float,
                alive: Callable[[], bool],
                on_refused: Callable[[str], None] | None = None) -> socket.socket | None:
    """The first connection to ``listener`` whose other end is held by one
    of ``roots`` or a process they started; any other is closed unread
    (``on_refused`` hears who it was). None once ``alive()`` says the
    awaited process is gone or ``timeout`` passes. ``listener`` is closed
    either way: no one else can connect afterwards."""
    roots = list(roots)
    deadline = time.monotonic() + timeout
    listener.settimeout(0.05)
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except socket.timeout:  # noqa: UP041 (TimeoutError only from 3.10)
                conn = None
            if conn is not None:
                why = check_accepted(conn, roots)
                if why is None:
                    conn.settimeout(None)
                    return conn
                try:
                    conn.close()
                except OSError:
                    pass
                if on_refused is not None:
                    on_refused(f"refused a connection from {why}")
            if not alive() or time.monotonic() > deadline:
                return None
    finally:
        listener.close()

