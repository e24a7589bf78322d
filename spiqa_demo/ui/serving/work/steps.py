"""Handlers that wait without holding a thread: a handler's steps, and the waits between them.

A handler that waits (for a model, for a paper being read) is written as a plain generator of
steps: it yields what to show, or a `Wait` saying what it waits for. Gradio calls it through
`unthreaded`: each step runs in a worker thread (it is short: ranking a shortlist, formatting),
while a `Wait` is awaited on the event loop, holding no thread at all. So any number of visitors
may wait for hung model servers and the thread pool stays free for everyone else's work; a
request that is cancelled or loses its client closes the generator at its wait, as it would at a
yield. `blocking` runs the same steps outside Gradio (tests, scripts).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from dataclasses import dataclass
from typing import ParamSpec, TypeVar, cast

import anyio

T = TypeVar("T")
P = ParamSpec("P")
CHECK_S = 0.05  # how often a wait looks at its condition
# How often a handler waiting on work that moves on its own (a load, an add, a queued question) shows its progress.
POLL_S = 0.2


@dataclass(frozen=True)
class Wait:
    """Resume once `ready()` holds, or after `timeout_s` (to show news such as progress) when given."""

    ready: Callable[[], bool]
    timeout_s: float | None = None

    def deadline(self) -> float:
        return time.monotonic() + self.timeout_s if self.timeout_s is not None else float("inf")


def blocking(steps: Iterator[T | Wait]) -> Iterator[T]:
    """The steps' outputs, each wait spent sleeping in this thread."""
    for step in steps:
        if isinstance(step, Wait):
            deadline = step.deadline()
            while not step.ready() and time.monotonic() < deadline:
                time.sleep(CHECK_S)
        else:
            yield step


def unthreaded(fn: Callable[P, Iterator[T | Wait]], limiter: anyio.CapacityLimiter) -> Callable[P, AsyncIterator[T]]:
    """`fn` for Gradio: its steps run in threads counted by `limiter`, its waits hold no thread.

    The wrapper keeps `fn`'s signature (Gradio reads it for `gr.Progress` and the like).
    """

    @functools.wraps(fn)
    async def run(*args: P.args, **kwargs: P.kwargs) -> AsyncIterator[T]:
        steps = fn(*args, **kwargs)
        try:
            while True:
                step = await anyio.to_thread.run_sync(_next, steps, limiter=limiter)
                if step is _END:
                    return
                if isinstance(step, Wait):
                    deadline = step.deadline()
                    while not step.ready() and time.monotonic() < deadline:
                        await asyncio.sleep(CHECK_S)
                else:
                    yield cast(T, step)
        finally:
            if isinstance(steps, Generator):
                steps.close()  # at its wait or yield: its own cleanup runs (a model call it queued is dropped)

    return run


_END = object()


def _next(steps: Iterator[T | Wait]) -> T | Wait | object:
    """The next step, or `_END` (StopIteration cannot cross a thread boundary into a coroutine)."""
    return next(steps, _END)
