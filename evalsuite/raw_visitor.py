"""A visitor that speaks Gradio's HTTP protocol itself, as a hostile script would.

`gradio_client` behaves like a browser; a hostile visitor need not: it posts uploads that it never
loads, joins events with a session id of its choosing, sends events a browser only sends on a
click (a gallery selection), and drops its connection while its requests wait. Tests and
benchmarks of the shared app use this to act that out on loopback.
"""

from __future__ import annotations

import json
import secrets
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

TIMEOUT_S = 120.0  # a busy machine may take long over one request; nothing here waits on a clock otherwise


class RawVisitor:
    """One session (its own `session_hash`) on the app at `url` ("http://127.0.0.1:PORT/")."""

    def __init__(self, url: str, session_hash: str | None = None) -> None:
        self.url = url
        self.session_hash = session_hash or secrets.token_hex(8)
        self.http = httpx.Client(timeout=TIMEOUT_S)
        config = self.http.get(f"{url}config").json()
        self._deps = {dep.get("api_name"): dep for dep in config["dependencies"]}
        self._deps.update({f"#{dep['id']}": dep for dep in config["dependencies"]})
        self._states = {c["id"] for c in config["components"] if c.get("type") == "state"}
        self._elements = {c["props"].get("elem_id"): c["id"] for c in config["components"] if c.get("props", {}).get("elem_id")}
        self.messages: dict[str, list[dict[str, Any]]] = {}  # event id -> its messages
        self._stream: httpx.Response | None = None
        self._listening: threading.Thread | None = None
        self._changed = threading.Condition()

    def upload(self, path: Path, name: str | None = None) -> dict[str, Any]:
        """POST a file to Gradio's upload route; its `FileData` (the server's path) for an event's input."""
        with path.open("rb") as fh:
            reply = self.http.post(f"{self.url}gradio_api/upload", files=[("files", (name or path.name, fh, "application/pdf"))])
        reply.raise_for_status()
        return {"path": reply.json()[0], "orig_name": name or path.name, "meta": {"_type": "gradio.FileData"}}

    def fn_index(self, api_name: str) -> int:
        return int(self._deps[api_name]["id"])

    def trigger(self, elem_id: str, trigger: str) -> str:
        """The event `trigger` ("select", ...) of the component with `elem_id` starts, as "#<fn index>" for `join`."""
        component = self._elements[elem_id]
        return next(f"#{dep['id']}" for dep in self._deps.values() if [component, trigger] in [list(t) for t in dep["targets"]])

    def join(self, api_name: str, *values: Any, event_data: dict[str, Any] | None = None) -> str:
        """Queue the event (`api_name`, or "#<fn index>") with these inputs (states are the server's; inputs
        past the given values are sent empty, as a client leaves an optional one out); its event id."""
        dep = self._deps[api_name]
        given = iter(values)
        data = [None if component in self._states else next(given, None) for component in dep["inputs"]]
        reply = self.http.post(f"{self.url}gradio_api/queue/join", json={
            "data": data, "fn_index": dep["id"], "session_hash": self.session_hash,
            "event_data": event_data, "trigger_id": None,
        })
        reply.raise_for_status()
        event_id = str(reply.json()["event_id"])
        with self._changed:
            self.messages.setdefault(event_id, [])
        self._listen()
        return event_id

    def completed(self, event_id: str) -> dict[str, Any] | None:
        """The event's `process_completed` message, once it came."""
        with self._changed:
            return next((m for m in self.messages.get(event_id, []) if m.get("msg") == "process_completed"), None)

    def wait(self, event_id: str, timeout_s: float = TIMEOUT_S) -> dict[str, Any]:
        """The event's `process_completed` message (an `AssertionError` when none came in `timeout_s`)."""
        with self._changed:
            self._changed.wait_for(lambda: self.completed(event_id) is not None, timeout_s)
        done = self.completed(event_id)
        assert done is not None, f"event {event_id} did not complete"
        return done

    def disconnect(self) -> None:
        """Drop the connection the session's messages come on, as a visitor who leaves does."""
        if self._stream is not None:
            self._stream.close()

    def close(self) -> None:
        self.disconnect()
        self.http.close()

    def _listen(self) -> None:
        if self._listening is not None and self._listening.is_alive():
            return
        self._listening = threading.Thread(target=self._read, daemon=True)
        self._listening.start()

    def _read(self) -> None:
        url = f"{self.url}gradio_api/queue/data?session_hash={self.session_hash}"
        try:
            with httpx.stream("GET", url, timeout=httpx.Timeout(TIMEOUT_S, read=None)) as stream:
                self._stream = stream
                for line in stream.iter_lines():
                    if not line.startswith("data:"):
                        continue
                    message = json.loads(line[5:])
                    with self._changed:
                        self.messages.setdefault(str(message.get("event_id")), []).append(message)
                        self._changed.notify_all()
                    if message.get("msg") == "close_stream":
                        return
        except (httpx.HTTPError, RuntimeError):  # closed by `disconnect`
            return


@contextmanager
def raw_visitor(url: str) -> Iterator[RawVisitor]:
    visitor = RawVisitor(url)
    try:
        yield visitor
    finally:
        visitor.close()


def status_of(url: str) -> int:
    """The HTTP status a GET of `url` gets (an error status too, instead of an exception)."""
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return exc.code
