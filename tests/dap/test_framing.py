"""The DAP framing layer (property tests) and the channel over an in-memory stream.

FrameDecoder gets bytes in whatever pieces a pipe hands over; whatever the
pieces, and whatever junk an adapter prints between frames, the messages that
come out must be the ones that went in. DapChannel is driven over a real
socketpair by a peer that plays the adapter, so requests, responses, events
and reverse requests really cross a byte stream.
"""

from __future__ import annotations

import itertools
import json
import queue
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dbgcore.shared.errors import BackendError, DebuggerTimeout
from dbgcore.transport.dap.adapter import SocketTransport
from dbgcore.transport.dap.channel import DapChannel, DapRequestError
from dbgcore.transport.dap.framing import FrameDecoder, FramingError, encode
from dbgcore.transport.translog import TransLog

Message = dict[str, Any]

# -- strategies -------------------------------------------------------------------

json_scalars = (st.none() | st.booleans() | st.integers(-(2**53), 2**53)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12,
)
messages = st.builds(
    lambda seq, kind, extra: {**extra, "seq": seq, "type": kind},
    st.integers(0, 2**31),
    st.sampled_from(["request", "response", "event"]),
    st.dictionaries(st.text(max_size=10), json_values, max_size=4),
)
message_lists = st.lists(messages, max_size=8)


def _no_header_inside(data: bytes) -> bool:
    return b"content-length" not in data.lower()


#: Junk an adapter might print between frames: anything but a header.
garbage = st.binary(min_size=1, max_size=60).filter(_no_header_inside) | st.sampled_from([
    b"stray print from the adapter\n",
    b"Content-Len",
    b"\r\n\r\n",
    b"\x00\xff\xfe\x1b[0m",
    b"{\"seq\": 1, \"type\": \"event\"}\n",
])


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def decode_all(pieces: list[bytes], decoder: FrameDecoder | None = None) -> list[Message]:
    decoder = decoder or FrameDecoder()
    out: list[Message] = []
    for piece in pieces:
        out += decoder.feed(piece)
    return out


def frame(body: bytes, header: bytes = b"Content-Length") -> bytes:
    return header + b": %d\r\n\r\n" % len(body) + body


# -- FrameDecoder -------------------------------------------------------------------


@given(message_lists, st.lists(st.integers(min_value=0), max_size=20))
def test_messages_split_anywhere_decode_to_the_same_list(
        sent: list[Message], cuts: list[int]) -> None:
    data = b"".join(encode(m) for m in sent)
    assert decode_all(split(data, cuts)) == sent


@given(st.lists(messages, max_size=3))
@settings(max_examples=40)
def test_messages_fed_byte_by_byte(sent: list[Message]) -> None:
    data = b"".join(encode(m) for m in sent)
    decoder = FrameDecoder()
    assert decode_all([data[i : i + 1] for i in range(len(data))], decoder) == sent
    assert decoder.buffer == b"" and decoder.skipped == []


@given(st.lists(st.tuples(garbage, messages), max_size=6), garbage,
       st.lists(st.integers(min_value=0), max_size=12))
@example([(b"Content-Len", {"seq": 1, "type": "event"})], b"x", [])
@example([(b"Content-Length: banana\r\n\r\n", {"seq": 1, "type": "event"})], b"", [])
@example([(b"Content-Length: 12\r\nno colon here\r\n\r\n", {"seq": 1, "type": "event"})],
         b"", [])
def test_garbage_between_frames_is_skipped(
        pairs: list[tuple[bytes, Message]], tail: bytes, cuts: list[int]) -> None:
    data = b"".join(junk + encode(m) for junk, m in pairs) + tail
    decoder = FrameDecoder()
    assert decode_all(split(data, cuts), decoder) == [m for _, m in pairs]
    assert decoder.skipped or not pairs  # junk is reported, for the session log


@pytest.mark.parametrize("line", [b"a stray print on stdout\n", b"print ending in Content-Len",
                                  b"c"])
def test_a_stray_line_read_alone_is_reported_whole(line: bytes) -> None:
    # A line that arrives in a read of its own, before the frame's: it is not
    # cut where the read ended (only a tail that may begin a header waits).
    decoder = FrameDecoder()
    assert decoder.feed(line) == []
    message = {"seq": 1, "type": "event"}
    assert decoder.feed(encode(message)) == [message]
    assert b"".join(decoder.skipped) == line
    if not line.endswith(b"Content-Len"):
        assert decoder.skipped == [line]


@pytest.mark.parametrize("lie", [b"Content-Length: 5\r\n\r\n", b"Content-Length: 900\r\n\r\n",
                                 b"Content-Length: 3\r\n\r\n{}x"])
def test_a_header_that_lies_does_not_swallow_the_next_frame(lie: bytes) -> None:
    # A stray header (an adapter logging what it sends, say) whose length does
    # not match what follows: the real frame right after it must still come out.
    good = [{"seq": 1, "type": "event", "event": "stopped"}, {"seq": 2, "type": "response"}]
    data = lie + b"".join(encode(m) for m in good)
    assert decode_all([data]) == good
    assert decode_all([data[i : i + 1] for i in range(len(data))]) == good


@given(st.integers(1, 4096), st.integers(1, 1 << 40))
def test_a_body_over_max_body_is_a_framing_error(limit: int, over: int) -> None:
    decoder = FrameDecoder(max_body=limit)
    # Raised on the header alone: nobody waits for a body that large to arrive.
    with pytest.raises(FramingError, match=rf"{limit + over}-byte message; the limit is {limit}"):
        decoder.feed(b"Content-Length: %d\r\n\r\n" % (limit + over))


@given(messages)
def test_a_body_of_exactly_max_body_is_accepted(message: Message) -> None:
    data = encode(message)
    body_length = len(data) - data.index(b"\r\n\r\n") - 4
    assert FrameDecoder(max_body=body_length).feed(data) == [message]


def test_oversized_frame_after_good_ones() -> None:
    good = encode({"seq": 1, "type": "event"})
    decoder = FrameDecoder(max_body=1000)
    assert decoder.feed(good) == [{"seq": 1, "type": "event"}]
    with pytest.raises(FramingError, match="2147483648-byte message"):
        decoder.feed(b"Content-Length: 2147483648\r\n\r\n{\"seq\": ")


@given(st.lists(messages, max_size=4), st.data())
@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
def test_header_name_is_case_insensitive(sent: list[Message], data: st.DataObject) -> None:
    stream = b""
    for m in sent:
        body = json.dumps(m).encode()
        flips = data.draw(st.lists(st.booleans(), min_size=14, max_size=14))
        name = bytes(c ^ 0x20 if flip and chr(c).isalpha() else c
                     for c, flip in zip(b"Content-Length", flips, strict=True))
        space = data.draw(st.sampled_from([b"", b" ", b"  ", b"\t"]))
        stream += name + b":" + space + b"%d" % len(body) + b"\r\n\r\n" + body
    assert decode_all(split(stream, data.draw(st.lists(st.integers(0), max_size=6)))) == sent


@pytest.mark.parametrize("header", [
    b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
    b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n",
    b"CONTENT-LENGTH:%d  \r\n\r\n",
])
def test_other_header_fields_are_tolerated(header: bytes) -> None:
    body = json.dumps({"seq": 9, "type": "event", "event": "output"}).encode()
    assert decode_all([header % len(body) + body]) == [json.loads(body)]


def test_body_length_counts_bytes_not_characters() -> None:
    message = {"seq": 1, "type": "event", "body": {"output": "héllo ✓ 😀\n"}}
    data = encode(message)
    assert decode_all([data[i : i + 1] for i in range(len(data))]) == [message]


def test_non_object_bodies_are_skipped() -> None:
    good = {"seq": 3, "type": "event"}
    data = frame(b"[1, 2]") + frame(b"\xff\xfe") + frame(b"not json") + encode(good)
    decoder = FrameDecoder()
    assert decoder.feed(data) == [good]
    assert decoder.skipped


# -- DapChannel over a socketpair ------------------------------------------------------


class Peer:
    """The adapter's end: reads our requests, sends whatever the test wants."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.decoder = FrameDecoder()
        self.inbox: list[Message] = []
        self.seq = 1000

    def send(self, message: Message) -> None:
        self.seq += 1
        self.sock.sendall(encode({"seq": self.seq, **message}))

    def receive(self, timeout: float = 5.0) -> Message:
        self.sock.settimeout(timeout)
        while not self.inbox:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("the channel closed its end")
            self.inbox += self.decoder.feed(data)
        return self.inbox.pop(0)

    def respond(self, request: Message, body: Message | None = None, success: bool = True,
                **extra: Any) -> None:
        self.send({"type": "response", "request_seq": request["seq"], "success": success,
                   "command": request["command"], "body": body or {}, **extra})

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def wired() -> Iterator[tuple[DapChannel, Peer]]:
    ours, theirs = socket.socketpair()
    channel = DapChannel(SocketTransport(ours), TransLog(None), name="peer")
    peer = Peer(theirs)
    channel.start()
    yield channel, peer
    channel.close()
    peer.close()


def test_responses_are_matched_by_request_seq_in_any_order(
        wired: tuple[DapChannel, Peer]) -> None:
    channel, peer = wired
    pending = [channel.send_request(name, {"n": i})
               for i, name in enumerate(["threads", "stackTrace", "evaluate"])]
    requests = [peer.receive() for _ in pending]
    assert [r["command"] for r in requests] == ["threads", "stackTrace", "evaluate"]
    assert len({r["seq"] for r in requests}) == 3
    for request in reversed(requests):
        peer.respond(request, {"answer_to": request["command"]})
    assert [p.wait(5)["answer_to"] for p in pending] == ["threads", "stackTrace", "evaluate"]


def test_response_to_an_unknown_request_is_ignored(wired: tuple[DapChannel, Peer]) -> None:
    channel, peer = wired
    pending = channel.send_request("threads")
    request = peer.receive()
    peer.send({"type": "response", "request_seq": 999_999, "success": True,
               "command": "threads", "body": {"wrong": True}})
    peer.respond(request, {"right": True})
    assert pending.wait(5) == {"right": True}


def test_error_response_becomes_a_failed_op_with_the_formatted_message(
        wired: tuple[DapChannel, Peer]) -> None:
    channel, peer = wired
    pending = channel.send_request("evaluate", {"expression": "nope"})
    peer.respond(peer.receive(), {"error": {"id": 1, "format": "name {name} is not {what}",
                                            "variables": {"name": "'nope'", "what": "defined"}}},
                 success=False, message="ignored when there is a format")
    with pytest.raises(DapRequestError) as caught:
        pending.wait(5, "peer")
    assert caught.value.message == "evaluate failed: name 'nope' is not defined"
    assert caught.value.kind == "failed" and caught.value.command == "evaluate"


def test_events_are_dispatched_by_name_and_to_catch_all(wired: tuple[DapChannel, Peer]) -> None:
    channel, peer = wired
    stopped: queue.Queue[Message] = queue.Queue()
    everything: queue.Queue[Message] = queue.Queue()
    channel.on_event("stopped", stopped.put)
    channel.on_event("*", everything.put)
    peer.send({"type": "event", "event": "output", "body": {"output": "hi\n"}})
    peer.send({"type": "event", "event": "stopped", "body": {"reason": "breakpoint"}})
    assert stopped.get(timeout=5)["body"] == {"reason": "breakpoint"}
    assert [everything.get(timeout=5)["event"] for _ in range(2)] == ["output", "stopped"]
    assert stopped.empty()


def test_reverse_request_is_answered_by_its_handler(wired: tuple[DapChannel, Peer]) -> None:
    channel, peer = wired
    seen: list[Message] = []

    def run_in_terminal(request: Message) -> Message:
        seen.append(request["arguments"])
        return {"processId": 4321}

    channel.on_reverse_request("runInTerminal", run_in_terminal)
    arguments = {"kind": "integrated", "cwd": "/tmp", "args": ["python3", "prog.py"]}
    peer.send({"type": "request", "command": "runInTerminal", "arguments": arguments})
    response = peer.receive()
    assert response["type"] == "response" and response["command"] == "runInTerminal"
    assert response["request_seq"] == peer.seq and response["success"] is True
    assert response["body"] == {"processId": 4321}
    assert seen == [arguments]


def test_reverse_request_without_handler_or_failing_is_refused(
        wired: tuple[DapChannel, Peer]) -> None:
    channel, peer = wired

    def broken(request: Message) -> Message:
        raise RuntimeError("cannot spawn that")

    channel.on_reverse_request("runInTerminal", broken)
    peer.send({"type": "request", "command": "startDebugging", "arguments": {}})
    unknown = peer.receive()
    assert unknown["success"] is False and "startDebugging" in unknown["message"]
    peer.send({"type": "request", "command": "runInTerminal", "arguments": {}})
    failed = peer.receive()
    assert failed["success"] is False and failed["message"] == "cannot spawn that"


def test_unanswered_request_times_out_naming_request_and_adapter(
        wired: tuple[DapChannel, Peer]) -> None:
    channel, peer = wired
    with pytest.raises(DebuggerTimeout) as caught:
        channel.request("disassemble", {"memoryReference": "0x0"}, timeout=0.2)
    assert caught.value.kind == "timeout"
    assert caught.value.message == "peer did not answer disassemble within 0.2s"
    # The channel is still usable afterwards.
    assert peer.receive()["command"] == "disassemble"
    pending = channel.send_request("threads")
    peer.respond(peer.receive(), {"threads": []})
    assert pending.wait(5) == {"threads": []}


def test_eof_fails_every_pending_and_later_request_at_once(
        wired: tuple[DapChannel, Peer]) -> None:
    channel, peer = wired
    closed: queue.Queue[Message] = queue.Queue()
    channel.on_event("_closed", closed.put)
    pending = [channel.send_request("continue"), channel.send_request("stackTrace")]
    for _ in pending:
        peer.receive()
    started = time.monotonic()
    peer.close()
    for item in pending:
        with pytest.raises(BackendError, match="peer closed the connection") as caught:
            item.wait(30, "peer")
        assert caught.value.kind == "backend"
    assert time.monotonic() - started < 10  # at once, not after the 30 s timeout
    assert closed.get(timeout=5)["body"]["message"] == "peer closed the connection"
    later_started = time.monotonic()
    with pytest.raises(BackendError, match="peer closed the connection"):
        channel.request("threads", None, timeout=30)
    assert time.monotonic() - later_started < 5
    assert channel.closed is not None


def test_framing_error_fails_pending_requests_naming_the_limit() -> None:
    ours, theirs = socket.socketpair()
    channel = DapChannel(SocketTransport(ours), TransLog(None), name="peer", max_body=1024)
    channel.start()
    peer = Peer(theirs)
    try:
        pending = channel.send_request("evaluate")
        peer.receive()
        peer.sock.sendall(b"Content-Length: 2147483648\r\n\r\n{")
        with pytest.raises(BackendError, match="2147483648-byte message; the limit is 1024 bytes"):
            pending.wait(10)
        with pytest.raises(BackendError, match="broke the protocol"):
            channel.request("threads", None, timeout=10)
    finally:
        channel.close()
        peer.close()


def test_events_and_responses_interleaved_with_garbage(wired: tuple[DapChannel, Peer]) -> None:
    channel, peer = wired
    events: queue.Queue[Message] = queue.Queue()
    channel.on_event("output", events.put)
    pending = channel.send_request("threads")
    request = peer.receive()
    peer.sock.sendall(b"junk\r\n\r\nContent-Len")
    peer.send({"type": "event", "event": "output", "body": {"output": "x"}})
    peer.sock.sendall(b"\x00\xffmore junk")
    peer.respond(request, {"threads": [{"id": 1, "name": "main"}]})
    assert pending.wait(5) == {"threads": [{"id": 1, "name": "main"}]}
    assert events.get(timeout=5)["body"] == {"output": "x"}


def test_concurrent_requests_from_many_threads(wired: tuple[DapChannel, Peer]) -> None:
    channel, peer = wired
    results: dict[int, Message] = {}

    def ask(n: int) -> None:
        results[n] = channel.request("evaluate", {"expression": str(n)}, timeout=10)

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    requests = [peer.receive() for _ in threads]
    for request in sorted(requests, key=lambda r: -r["seq"]):
        peer.respond(request, {"result": request["arguments"]["expression"]})
    for thread in threads:
        thread.join(10)
    assert {n: r["result"] for n, r in results.items()} == {n: str(n) for n in range(20)}
