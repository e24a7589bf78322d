"""An OpenAI-compatible chat endpoint on loopback that records what it is sent.

Tests and benchmarks of the shared app use it as the address a visitor names: it shows which
headers (keys) reach such an address, and, streaming slowly, stands in for a slow model server.
A test that must act while a request is provably unanswered (stop it, interrupt the run, ask
something else meanwhile) holds the requests after the first few until it says go, instead of
racing a slow stream against the clock. A `paced` stream sends each piece after the first only
when the test releases it, and meanwhile watches for the app hanging up: a test stops an answer
mid-stream and sees whether, and after how many pieces, the connection was closed.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A CoT reply in pieces: image choice and rationale first, then the answer.
REPLY_PIECES = ("{'Image': 1, 'Rationale': 'the table'}", " The answer is : ", "SPDNet")
# How often a held stream sends a filler piece: it stays alive, as a slow model's would.
HELD_PIECE_S = 0.2
CHECK_S = 0.02  # how often a paced stream waiting for the test's go-ahead looks for a hang-up


@dataclass
class Listener:
    """What the endpoint saw: every request's headers and body, and whether a stream was fully sent."""

    url: str = ""
    requests: list[str] = field(default_factory=list)
    started: threading.Event = field(default_factory=threading.Event)  # a request arrived
    finished: threading.Event = field(default_factory=threading.Event)  # a streamed reply was fully sent
    held: threading.Event = field(default_factory=threading.Event)  # a request is waiting for `go`
    go: threading.Event = field(default_factory=threading.Event)  # held requests are answered once set
    disconnected: threading.Event = field(default_factory=threading.Event)  # the app hung up before the end
    pieces_sent: int = 0  # streamed pieces written, all requests together
    pieces_at_stop: int | None = None  # `pieces_sent` when the test stopped the answer
    _go_ahead: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))

    def saw(self, text: str) -> bool:
        return any(text in request for request in self.requests)

    def release(self, pieces: int = 1) -> None:
        """A paced stream may send this many more pieces."""
        self._go_ahead.release(pieces)

    def mark_stop(self) -> None:
        """The test stops the answer now: pieces sent from here on are counted (`sent_after_stop`)."""
        self.pieces_at_stop = self.pieces_sent

    @property
    def sent_after_stop(self) -> int:
        assert self.pieces_at_stop is not None, "mark_stop() was not called"
        return self.pieces_sent - self.pieces_at_stop


def _completion(content: str = "Yes") -> bytes:
    """A reply (by default a one-token "Yes", with its log-probs: what the L3Score judge asks for)."""
    top = [{"token": "Yes", "logprob": -0.1, "bytes": None}]
    return json.dumps({
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content},
                     "logprobs": {"content": [{"token": "Yes", "logprob": -0.1, "bytes": None, "top_logprobs": top}]}}],
    }).encode()


@contextmanager
def openai_listener(
    chunk_delay_s: float = 0.0,
    chunks: int = len(REPLY_PIECES),
    answer_first: int | None = None,
    silent: bool = False,
    reply: Callable[[dict[str, Any]], str] | None = None,
    paced: bool = False,
) -> Iterator[Listener]:
    """Serve `/v1/chat/completions` on 127.0.0.1; a streamed reply is `chunks` pieces, `chunk_delay_s` apart.

    With `answer_first`, the requests after the first `answer_first` are held until `go` is set
    (leaving the block sets it): a plain reply is not sent before, and a streamed one sends its
    first piece (the image choice and rationale), then a "." every `HELD_PIECE_S`, so it never ends
    before `go` however slow the machine. `silent`: a held request gets no byte at all before `go`
    (a server that accepts and never replies, or a model queued before it starts), and a hang-up
    meanwhile sets `disconnected` (a request stopped before its headers). `reply(request_body)`
    gives the reply's text instead (sent whole, streamed as one piece): a test answers each request
    as a model would. `paced`: a
    streamed reply's pieces after the first wait for `release()` (or `go`), and a hang-up meanwhile
    ends the stream and sets `disconnected`.
    """
    record = Listener()
    counting = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with counting:
                record.requests.append(str(self.headers) + body.decode("utf-8", "replace"))
                hold = answer_first is not None and len(record.requests) > answer_first
            record.started.set()
            if hold and silent:
                record.held.set()
                if not self._go_or_hang_up():
                    return
            request = json.loads(body or b"{}")
            if request.get("stream"):
                self._stream(hold, None if reply is None else reply(request))
                return
            if hold:
                record.held.set()
                record.go.wait()
            answer = _completion() if reply is None else _completion(reply(request))
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
            except OSError:
                return  # the app hung up (it gave up waiting)

        def _stream(self, hold: bool, text: str | None) -> None:
            hold = hold and not silent  # a silent hold is over once the reply starts
            pieces = [*REPLY_PIECES, *["."] * max(0, chunks - len(REPLY_PIECES))][:chunks] if text is None else [text]
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for n, piece in enumerate(pieces):
                    if paced and n > 0 and not self._released():
                        return
                    self._piece(piece)
                    time.sleep(chunk_delay_s)
                    if hold and n == 0:
                        record.held.set()
                        while not record.go.wait(HELD_PIECE_S):
                            self._piece(".")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except OSError:
                record.disconnected.set()  # the app hung up (a stopped answer)
                return
            record.finished.set()

        def _go_or_hang_up(self) -> bool:
            """Hold the reply (its headers too) until `go`; False when the app hung up meanwhile."""
            while not record.go.wait(CHECK_S):
                if self._hung_up():
                    record.disconnected.set()
                    return False
            return True

        def _released(self) -> bool:
            """Wait for the test's go-ahead for one more piece; False when the app hung up meanwhile."""
            while not record._go_ahead.acquire(timeout=CHECK_S):
                if record.go.is_set():
                    return True
                if self._hung_up():
                    record.disconnected.set()
                    return False
            return True

        def _hung_up(self) -> bool:
            """Whether the app closed its side: the socket reads as ended (it sends nothing more mid-reply)."""
            readable, _, _ = select.select([self.connection], [], [], 0)
            try:
                return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                return True  # reset

        def _piece(self, text: str) -> None:
            chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                     "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
            # Counted before it is written: the app may read it (and the test stop) before a count after
            # the write; a piece the hung-up socket refused was never sent.
            with counting:
                record.pieces_sent += 1
            try:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            except OSError:
                with counting:
                    record.pieces_sent -= 1
                raise

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    record.url = f"http://127.0.0.1:{server.server_port}/v1"
    try:
        yield record
    finally:
        record.go.set()
        server.shutdown()
        server.server_close()
