"""Model calls shared by all visitors: a bounded pool per kind of model, fair between sessions.

A local model is one object in this process's memory: its calls take turns
(`SPIQA_UI_MODEL_CONCURRENCY`). Remote API calls go to servers that answer in parallel, so they run
side by side up to `SPIQA_UI_API_CONCURRENCY`. Each pool is a `FairQueue`: a session has at most
one call running (its next one waits for it, and replaces one still waiting), and sessions take
turns for free slots, so twenty-four sessions holding hung servers delay no one's turn by more than
their share. A call runs in its pool's thread and its pieces are collected in a `ModelCall`; the
handler that asked reads them between `steps.Wait`s, holding no thread while the model is slow.
Answers without a model (retrieval only) never enter a pool: their call runs in the handler.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator, Hashable, Iterator
from typing import TYPE_CHECKING, Generic, TypeVar

from spiqa_demo.errors import PaperError
from spiqa_demo.models.stopping import CallStop, stoppable
from spiqa_demo.ui.serving.work.fair_queue import FairQueue, Job
from spiqa_demo.ui.serving.work.pools import API_MODELS, LOCAL_MODELS

if TYPE_CHECKING:
    from spiqa_demo.models import ModelBackend

E_co = TypeVar("E_co", covariant=True)  # what a flow yields: reply pieces, steps, its final object
E = TypeVar("E")


class ModelCall(Generic[E_co]):
    """A flow that may call models (a generator of reply pieces, then its final object), run in the
    pool its model belongs to, or in the reader's thread when it calls none (`pool` None)."""

    def __init__(self, events: Iterator[E_co], pool: FairQueue[Job] | None) -> None:
        self._events = events
        self._pool = pool
        self._items: deque[E_co] = deque()
        self._stop = CallStop()
        self.started = pool is None
        self.finished = False
        self.error: Exception | None = None
        self.dropped_reason = ""

    # -- the pool's side

    def run(self, slot: int) -> None:
        self.started = True
        try:
            with stoppable(self._stop):  # `stop` hangs up the model request this thread is reading
                for item in self._events:
                    self._items.append(item)
                    if self._stop.stopped:
                        break
        except Exception as exc:  # the reader re-raises it where a flow's error is expected
            self.error = exc
        finally:
            self._close()
            self.finished = True

    def dropped(self, reason: str) -> None:
        self._close()  # never started: closing runs none of it
        self.dropped_reason = reason
        self.finished = True

    # -- the reader's side

    def has_news(self) -> bool:
        """Pieces to read, or the end (a call without a pool makes its pieces when they are taken)."""
        return self._pool is None or bool(self._items) or self.finished

    def take(self) -> list[E_co]:
        """The pieces so far (a call without a pool makes its next one now); the flow's error once
        they are read; [] with `finished` at the end."""
        if self._pool is None and not self.finished:
            self._run_one()
        items = []
        while self._items:
            items.append(self._items.popleft())
        if not items and self.error is not None:
            raise self.error
        if not items and self.dropped_reason:
            raise PaperError(f"the model was not asked: {self.dropped_reason}")
        return items

    def ahead(self) -> int | None:
        """How many calls wait before this one for a free model (None once it has started)."""
        return None if self._pool is None else self._pool.ahead_of(self)

    def stop(self) -> None:
        """The reader is gone or stopped: a waiting call is dropped, a running one's open model request
        is hung up now (the server stops sending) and the call ends."""
        self._stop.stop()
        if self._pool is not None:
            self._pool.cancel(self)
        elif not self.finished:
            self._close()
            self.finished = True

    def _close(self) -> None:
        if isinstance(self._events, Generator):
            self._events.close()

    def _run_one(self) -> None:
        try:
            self._items.append(next(self._events))
        except StopIteration:
            self.finished = True
        except Exception as exc:
            self.error, self.finished = exc, True


def start(owner: Hashable, events: Iterator[E], *models: ModelBackend | None) -> ModelCall[E]:
    """Run `events` for `owner` (a session) in the pool of the first of `models` that is set (the
    answering model, else the judge), or in the reader's thread when none is."""
    from spiqa_demo.models.openai_api import OpenAIBackend

    model = next((m for m in models if m is not None), None)
    if model is None:
        return ModelCall(events, None)
    pool = API_MODELS if isinstance(model, OpenAIBackend) else LOCAL_MODELS
    call = ModelCall(events, pool)
    pool.submit(owner, call)
    return call


def waiting() -> int:
    """How many model calls wait for a free model, across the pools."""
    return LOCAL_MODELS.waiting() + API_MODELS.waiting()
