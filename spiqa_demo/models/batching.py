"""Batched generation for concurrent callers: many threads' `generate` calls become one batched call.

`BatchingBackend` wraps a backend that has `generate_batch` (the local transformers backend) and is
itself a `ModelBackend`. Each caller (a worker thread of the batch evaluation, a QA flow) calls
`generate` as usual and blocks; the first caller to find the model idle gathers the waiting
requests (up to `batch_size`, for at most `gather_s`) and runs them as one `generate_batch`, then
hands over to the next waiting caller. Replies are the ones the model gives each chat alone (greedy
decoding), so batching changes throughput, not results. Streaming, log-prob and token-count calls
go straight to the wrapped backend.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from time import monotonic
from typing import Protocol, runtime_checkable

from spiqa_demo.errors import PaperError
from spiqa_demo.models.base import Message, ModelBackend, NextTokenLogprobs, Usage

# How long the first waiting request waits for others to join its batch: small next to one
# generation, long enough for worker threads that are still preparing their prompts.
GATHER_S = 0.1


@runtime_checkable
class BatchGenerator(Protocol):
    """A backend that can answer several independent chats in one call (see `LocalBackend.generate_batch`)."""

    def generate_batch(
        self, requests: Sequence[list[Message]], max_new_tokens: int = 512, usages: Sequence[Usage | None] | None = None
    ) -> list[str]: ...


def can_batch(backend: ModelBackend) -> bool:
    """True when `backend` answers several chats in one call."""
    return isinstance(backend, BatchGenerator)


@dataclass
class _Request:
    messages: list[Message]
    max_new_tokens: int
    usage: Usage | None
    reply: str = ""
    error: BaseException | None = None
    finished: bool = False


@dataclass
class _Queue:
    pending: list[_Request] = field(default_factory=list)
    running: bool = False
    changed: threading.Condition = field(default_factory=threading.Condition)


class BatchingBackend:
    """A `ModelBackend` that runs the concurrent `generate` calls of many threads in batches."""

    def __init__(self, backend: ModelBackend, batch_size: int, gather_s: float = GATHER_S) -> None:
        if not can_batch(backend):
            raise PaperError(f"model {backend.name!r} cannot generate in batches")
        if batch_size < 1:
            raise PaperError(f"the batch size must be at least 1 (got {batch_size})")
        self.backend = backend
        self.batch_size = batch_size
        self.gather_s = gather_s
        self.name = backend.name
        self.supports_images = backend.supports_images
        self.max_images = backend.max_images
        self.context_tokens = backend.context_tokens
        self._queue = _Queue()

    def __repr__(self) -> str:
        return f"BatchingBackend({self.backend!r}, batch_size={self.batch_size})"

    def generate(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> str:
        if self.batch_size == 1:
            return self.backend.generate(messages, max_new_tokens, usage=usage)
        request = _Request(messages, max_new_tokens, usage)
        queue = self._queue
        with queue.changed:
            queue.pending.append(request)
            queue.changed.notify_all()
            while not request.finished:
                if queue.running:
                    queue.changed.wait()
                    continue
                queue.running = True
                batch = self._gather()
                queue.changed.release()
                try:
                    self._run(batch)
                finally:
                    queue.changed.acquire()
                    queue.running = False
                    for done in batch:
                        done.finished = True
                    queue.changed.notify_all()
        if request.error is not None:
            raise request.error
        return request.reply

    def stream(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> Iterator[str]:
        return self.backend.stream(messages, max_new_tokens, usage=usage)

    def next_token_logprobs(
        self, messages: list[Message], candidates: list[str] | None = None, top_k: int = 5
    ) -> NextTokenLogprobs:
        return self.backend.next_token_logprobs(messages, candidates=candidates, top_k=top_k)

    def count_tokens(self, messages: list[Message]) -> int:
        return self.backend.count_tokens(messages)

    def _gather(self) -> list[_Request]:
        """Up to `batch_size` waiting requests with the oldest one's token budget (the caller holds the lock)."""
        queue = self._queue
        deadline = monotonic() + self.gather_s
        while len(queue.pending) < self.batch_size and (left := deadline - monotonic()) > 0:
            queue.changed.wait(left)
        budget = queue.pending[0].max_new_tokens
        batch = [r for r in queue.pending if r.max_new_tokens == budget][: self.batch_size]
        queue.pending = [r for r in queue.pending if all(r is not b for b in batch)]
        return batch

    def _run(self, batch: list[_Request]) -> None:
        """Answer `batch` in one call; when that fails, one by one, so each error reaches its own caller."""
        backend = self.backend
        assert isinstance(backend, BatchGenerator)
        if len(batch) > 1:
            try:
                replies = backend.generate_batch(
                    [r.messages for r in batch], batch[0].max_new_tokens, usages=[r.usage for r in batch]
                )
            except PaperError:  # one bad chat (an unreadable image, ...): find which below
                pass
            except BaseException as exc:
                for request in batch:
                    request.error = exc
                return
            else:
                for request, reply in zip(batch, replies):
                    request.reply = reply
                return
        for request in batch:
            try:
                request.reply = self.backend.generate(request.messages, request.max_new_tokens, usage=request.usage)
            except BaseException as exc:
                request.error = exc
