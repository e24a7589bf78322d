"""The HTTP client a model backend talks through: every connection it opens hangs up at Stop.

A stopped call must close its request at once, whatever it is waiting for: the server's headers
(a slow or queued model sends none for long), the reply's next piece, or the request's own upload.
The `openai` client blocks inside the HTTP library for each of these, and the one that stops is
another thread; so the connections themselves watch for the stop. Each wait on a socket, made in a
thread that runs a stoppable call (`stopping.stoppable`), registers a hang-up on that call's
`CallStop`: stopping shuts the socket down (which, unlike closing it, wakes the blocked thread and
tells the server at once), and the wait ends with `Stopped`. `Stopped` is no error the HTTP or
`openai` layers know, so it passes through them untouched: no retry makes the request again.
A TCP connect in progress is not interrupted (the connect timeout bounds it); a stopped call opens
no new connection.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable, Iterable
from contextlib import suppress
from typing import TYPE_CHECKING, Any, TypeVar

from spiqa_demo.models.stopping import Stopped, current_stop

if TYPE_CHECKING:
    import httpcore2
    import httpx2

T = TypeVar("T")


def model_http_client(untrusted: bool) -> httpx2.Client:
    """An HTTP client for the `openai` client whose connections hang up when their call is stopped.
    `untrusted` (a base URL a visitor named): every connection, redirects included, goes to a
    checked public address (`addresses`), and no proxy comes from the environment, since the
    connection itself is what is checked."""
    import httpx2
    import openai

    transport = httpx2.HTTPTransport(trust_env=not untrusted, limits=openai.DEFAULT_CONNECTION_LIMITS)
    client = openai.DefaultHttpxClient(transport=transport, trust_env=not untrusted)
    backend = _network(untrusted)
    # httpx takes no network backend of its own; its pools do (tests/test_endpoints.py checks this
    # still holds), the proxies' pools from the environment included.
    for pool_transport in (transport, *client._mounts.values()):
        if isinstance(pool_transport, httpx2.HTTPTransport):
            pool_transport._pool._network_backend = backend
    return client


def _network(untrusted: bool) -> httpcore2.NetworkBackend:
    import httpcore2

    from spiqa_demo.models.addresses import public_address

    class StoppableStream(httpcore2.NetworkStream):
        """A connection whose waits end at once, in `Stopped`, when the call they serve is stopped."""

        def __init__(self, inner: httpcore2.NetworkStream) -> None:
            self._inner = inner

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self._watched(lambda: self._inner.read(max_bytes, timeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self._watched(lambda: self._inner.write(buffer, timeout))

        def close(self) -> None:
            self._inner.close()

        def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                      timeout: float | None = None) -> httpcore2.NetworkStream:
            return StoppableStream(self._watched(lambda: self._inner.start_tls(ssl_context, server_hostname, timeout)))

        def get_extra_info(self, info: str) -> Any:
            return self._inner.get_extra_info(info)

        def _watched(self, wait: Callable[[], T]) -> T:
            stop = current_stop()
            if stop is None:
                return wait()
            try:
                with stop.on_stop(self._hang_up):
                    result = wait()
            except Exception as exc:
                if stop.stopped:
                    raise Stopped() from exc  # the hang-up, not the server, ended the wait
                raise
            if stop.stopped:
                raise Stopped()  # a hung-up socket reads as the reply's end: it is not one
            return result

        def _hang_up(self) -> None:
            sock = self._inner.get_extra_info("socket")
            if sock is not None:
                with suppress(OSError):  # already closed: the reply had ended
                    # The plain socket's shutdown, under TLS too: it leaves the TLS object to the reading thread.
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

    class StoppableNetwork(httpcore2.SyncBackend):
        def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                        socket_options: Iterable[Any] | None = None) -> httpcore2.NetworkStream:
            stop = current_stop()
            if stop is not None and stop.stopped:
                raise Stopped()
            if untrusted:
                address = public_address(host, port)
                if address is None:
                    raise httpcore2.ConnectError(f"{host} is not a public address")
                host = address
            return StoppableStream(super().connect_tcp(host, port, timeout, local_address, socket_options))

    return StoppableNetwork()
