"""The concurrency groups events of several tabs share, as typed keyword arguments for Gradio events.

`layout` makes them once from the settings and hands them to each tab's `wire`, so a tab never
decides on its own how many of another tab's requests may run beside its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict


class Queue(TypedDict):
    """An event's `concurrency_id` and `concurrency_limit` (passed as `**queue`)."""

    concurrency_id: str
    concurrency_limit: int


@dataclass(frozen=True)
class Queues:
    """`ask`: answers, the judge and run-all; `paper`: paper loads and cited-paper adds."""

    ask: Queue
    paper: Queue
