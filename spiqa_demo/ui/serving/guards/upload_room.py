"""Room for an upload is made before it streams in, or the upload is refused.

Gradio writes uploads into its temp folder under the app's UI folder before any handler sees them
(and before anyone knows which session sent them), so twelve uploads of 99 MB that are never
loaded would pass the folder's limit with no cleanup in sight. This ASGI middleware wraps Gradio's
upload route: it sets aside the upload's declared size (`storage.reserve`: older uploads no live
session holds are deleted to make room), answers 413 with the reason when no room can be made
without deleting what live sessions show, and cleans up again once the upload is in place.
"""

from __future__ import annotations

import anyio
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.files import storage

UPLOAD_PATH = "/gradio_api/upload"


class UploadRoom:
    """Middleware: every POST to Gradio's upload route first gets room in the UI folder."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].endswith(UPLOAD_PATH):
            await self.app(scope, receive, send)
            return
        settings = app_settings()
        declared = dict(scope["headers"]).get(b"content-length", b"")
        # Without a declared length, room for the largest file the app accepts.
        size = int(declared) if declared.isdigit() else settings.extraction.max_file_mb * 1_000_000
        refusal = await anyio.to_thread.run_sync(storage.reserve, size, settings)
        if refusal:
            await PlainTextResponse(f"Upload refused: {refusal}.", status_code=413)(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            storage.unreserve(size)
            await anyio.to_thread.run_sync(storage.evict, settings)
