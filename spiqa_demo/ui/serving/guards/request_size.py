"""The largest request the app reads, file uploads aside: one event's inputs cannot be as large as a client likes.

Gradio parses a request whole before any handler can cut its texts (`input_limits`), and keeps each
box's text as the client sent it for as long as the session lives (`session_expiry`). A request
body over `SPIQA_UI_MAX_REQUEST_MB` is answered HTTP 413 without being read. Uploads have their own
limit (`SPIQA_MAX_FILE_MB`, Gradio's `max_file_size`), so their route is left to it.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from spiqa_demo.settings import Settings
from spiqa_demo.ui.serving.guards.upload_room import UPLOAD_PATH


def max_request_bytes(settings: Settings) -> int:
    """`SPIQA_UI_MAX_REQUEST_MB` in bytes (as the app's upload limit counts them)."""
    return round(settings.ui.ui_max_request_mb * 1_000_000)


class RequestSizeLimit:
    """ASGI middleware: a request body over `max_bytes` (other than an upload) gets HTTP 413.

    A declared length over the limit is refused before anything is read; a body sent without one
    is counted as it arrives, and past the limit the app is told the client left (it stops reading).
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].endswith(UPLOAD_PATH):
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    return {"type": "http.disconnect"}
            return message

        await self.app(scope, counted, send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"detail": f"the request is larger than the {self.max_bytes / 1_000_000:g} MB this app reads"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
