"""How the tabs' waiting events run, made once by `layout` and handed to each tab's `wire`, so a tab
never decides on its own how many of another tab's requests may run beside its own.

Questions (answers, the judge, run-all), loads (papers, cited papers), the page viewer and result
files wait for things that may take minutes: a model server, a paper being read, a page being drawn,
a file being scored. Gradio would count a waiting request against its
concurrency limit, so twenty-four hung model calls would fill it and queue everyone behind them.
These events have no Gradio limit; their handlers are `steps` run `unthreaded`, so a wait holds no
worker and no thread, and the work itself is bounded where it is done: model calls in
`model_calls`' pools, paper loads, page images and scoring in worker processes (`workers`), and the handlers' own short
steps (ranking a shortlist, formatting a reply) by one limiter of `SPIQA_UI_ASK_CONCURRENCY` threads.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import ParamSpec, TypedDict, TypeVar

import anyio

from spiqa_demo.ui.serving.work.steps import Wait, unthreaded

P = ParamSpec("P")
T = TypeVar("T")


class Queue(TypedDict):
    """An event's `concurrency_id` and `concurrency_limit` (passed as `**queue`)."""

    concurrency_id: str
    concurrency_limit: int | None


@dataclass(frozen=True)
class Queues:
    """`ask`: answers, the judge and run-all; `paper`: paper loads and cited-paper adds; `view`: the page
    viewer; `results`: reading and scoring result files; `steps`: the threads their handlers' steps share."""

    ask: Queue
    paper: Queue
    view: Queue
    results: Queue
    steps: anyio.CapacityLimiter

    @classmethod
    def make(cls, step_threads: int) -> Queues:
        return cls(ask=Queue(concurrency_id="ask", concurrency_limit=None),
                   paper=Queue(concurrency_id="paper", concurrency_limit=None),
                   view=Queue(concurrency_id="view", concurrency_limit=None),
                   results=Queue(concurrency_id="results", concurrency_limit=None),
                   steps=anyio.CapacityLimiter(max(1, step_threads)))

    def handler(self, fn: Callable[P, Iterator[T | Wait]]) -> Callable[P, AsyncIterator[T]]:
        """`fn`'s steps as the handler Gradio calls."""
        return unthreaded(fn, self.steps)
