"""Stopping a model call from another thread, so that a stopped answer costs no more tokens.

A streamed reply is read in the thread that runs the call; the reader who stops it is in another.
Closing the stream's generator only works between pieces, and a slow server may send none for
long (each token on a paid API is still spent while the connection is open). So the thread that
runs a call installs a `CallStop` (`stoppable`), a streaming backend registers how to hang up its
open request on it (`on_stop`), and whoever stops the call runs that hang-up at once, from its own
thread; the reading thread then fails with `Stopped` instead of a connection error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from spiqa_demo.errors import BackendError


class Stopped(BackendError):
    """The call was stopped by whoever asked for it: nobody waits for its reply."""

    def __init__(self) -> None:
        super().__init__("the model call was stopped", retryable=False)


class CallStop:
    """Set once by the one who stops a call; runs the hang-ups registered by the call's open requests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopped = False
        self._hangups: list[Callable[[], None]] = []

    @property
    def stopped(self) -> bool:
        return self._stopped

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            hangups, self._hangups = self._hangups, []
        for hangup in hangups:
            hangup()

    @contextmanager
    def on_stop(self, hangup: Callable[[], None]) -> Iterator[None]:
        """Run `hangup` when the call is stopped while the block runs (at once when it already was)."""
        with self._lock:
            stopped = self._stopped
            if not stopped:
                self._hangups.append(hangup)
        if stopped:
            hangup()
        try:
            yield
        finally:
            with self._lock:
                if hangup in self._hangups:
                    self._hangups.remove(hangup)


_current: ContextVar[CallStop | None] = ContextVar("spiqa_call_stop", default=None)


@contextmanager
def stoppable(stop: CallStop) -> Iterator[None]:
    """Model requests made in this block (in this thread) are hung up by `stop.stop()`."""
    token = _current.set(stop)
    try:
        yield
    finally:
        _current.reset(token)


def current_stop() -> CallStop | None:
    """The stop installed by the running call (None outside one: a CLI run, a test, a script)."""
    return _current.get()
