"""An OpenAI-compatible chat endpoint on loopback that records what it is sent.

Tests and benchmarks of the shared app use it as the address a visitor names: it shows which
headers (keys) reach such an address, and, streaming slowly, stands in for a slow model server.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A CoT reply in pieces: image choice and rationale first, then the answer.
REPLY_PIECES = ("{'Image': 1, 'Rationale': 'the table'}", " The answer is : ", "SPDNet")


@dataclass
class Listener:
    """What the endpoint saw: every request's headers and body, and whether a stream was fully sent."""

    url: str = ""
    requests: list[str] = field(default_factory=list)
    started: threading.Event = field(default_factory=threading.Event)  # a request arrived
    finished: threading.Event = field(default_factory=threading.Event)  # a streamed reply was fully sent

    def saw(self, text: str) -> bool:
        return any(text in request for request in self.requests)


def _completion() -> bytes:
    """A one-token "Yes" reply with its log-probs (what the L3Score judge asks for)."""
    top = [{"token": "Yes", "logprob": -0.1, "bytes": None}]
    return json.dumps({
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Yes"},
                     "logprobs": {"content": [{"token": "Yes", "logprob": -0.1, "bytes": None, "top_logprobs": top}]}}],
    }).encode()


@contextmanager
def openai_listener(chunk_delay_s: float = 0.0, chunks: int = len(REPLY_PIECES)) -> Iterator[Listener]:
    """Serve `/v1/chat/completions` on 127.0.0.1; a streamed reply is `chunks` pieces, `chunk_delay_s` apart."""
    record = Listener()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            record.requests.append(str(self.headers) + body.decode("utf-8", "replace"))
            record.started.set()
            if json.loads(body or b"{}").get("stream"):
                self._stream()
                return
            reply = _completion()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def _stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            pieces = [*REPLY_PIECES, *["."] * max(0, chunks - len(REPLY_PIECES))][:chunks]
            try:
                for piece in pieces:
                    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                             "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(chunk_delay_s)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except OSError:
                return  # the app hung up (a stopped answer)
            record.finished.set()

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    record.url = f"http://127.0.0.1:{server.server_port}/v1"
    try:
        yield record
    finally:
        server.shutdown()
        server.server_close()
