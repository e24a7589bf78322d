"""Work shared by all visitors, run a few at a time, where no visitor can keep the others waiting.

A `FairQueue` runs jobs on a fixed number of slots (threads of its own, never the web server's).
Each owner (a visitor's session) has at most one job running and one waiting: a newer job replaces
the one still waiting, which is dropped with a reason. Free slots go to the owners with a waiting
job in turn (round robin), so one visitor who sends twenty jobs has one running while every other
visitor's job starts as soon as any slot frees, whatever was sent before it. Free slots are taken
lowest first: one visitor's jobs keep to slot 0, whose worker process started first and is warm,
and the others are used only when jobs run at once (so none waits for a worker still starting).
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, Protocol, TypeVar

REPLACED = "a newer request of this session took its place"
CANCELLED = "it was cancelled before it started"


class Job(Protocol):
    def run(self, slot: int) -> None:
        """Do the work on the queue's slot number `slot` (errors are the job's to keep)."""

    def dropped(self, reason: str) -> None:
        """The job will never run: replaced by a newer job of its owner, or cancelled."""


J = TypeVar("J", bound=Job)


class FairQueue(Generic[J]):
    """`slots` jobs at a time, at most one per owner, owners served in turn (see the module docstring).

    `slots` is read when the queue is first used (`pools` size theirs from the installed settings)."""

    def __init__(self, slots: int | Callable[[], int], name: str) -> None:
        self._slots = slots
        self._waiting: OrderedDict[Hashable, J] = OrderedDict()  # in turn order: the next owner served first
        self._running: dict[Hashable, J] = {}
        self._free: list[int] | None = None  # the free slots, once the queue is first used
        self._count = 0
        self._lock = threading.Lock()
        self._name = name

    @property
    def slots(self) -> int:
        """How many jobs run at once."""
        with self._lock:
            self._free_slots()
            return self._count

    def _free_slots(self) -> list[int]:
        """Under the lock: the free slots (all of them at first use)."""
        if self._free is None:
            self._count = max(1, self._slots() if callable(self._slots) else self._slots)
            self._free = list(range(self._count))
        return self._free

    def submit(self, owner: Hashable, job: J) -> None:
        """Queue `job` for `owner`; a job of the same owner still waiting is dropped (replaced)."""
        with self._lock:
            replaced = self._waiting.pop(owner, None)
            self._waiting[owner] = job
            started = self._start_next()
        if replaced is not None:
            replaced.dropped(REPLACED)
        self._launch(started)

    def cancel(self, job: J) -> bool:
        """Drop `job` if it is still waiting; False when it has started (or was never queued here)."""
        with self._lock:
            owner = next((o for o, waiting in self._waiting.items() if waiting is job), None)
            if owner is None:
                return False
            del self._waiting[owner]
        job.dropped(CANCELLED)
        return True

    def idle(self) -> bool:
        """No job running or waiting."""
        with self._lock:
            return not self._running and not self._waiting

    def waiting(self) -> int:
        """How many jobs are waiting for a slot."""
        with self._lock:
            return len(self._waiting)

    def ahead_of(self, job: J) -> int | None:
        """How many waiting jobs are served before `job`; None when it is not waiting."""
        with self._lock:
            for position, waiting in enumerate(self._waiting.values()):
                if waiting is job:
                    return position
        return None

    def _start_next(self) -> list[tuple[int, Hashable, J]]:
        """Under the lock: take the jobs that can start now (a free slot, an owner with none running)."""
        started = []
        free = self._free_slots()
        for owner in list(self._waiting):
            if not free:
                break
            if owner in self._running:
                continue  # its running job goes first; the owner keeps its place in turn
            job = self._waiting.pop(owner)
            self._running[owner] = job
            started.append((free.pop(0), owner, job))
        return started

    def _launch(self, started: list[tuple[int, Hashable, J]]) -> None:
        for slot, owner, job in started:
            threading.Thread(target=self._run, args=(slot, owner, job), name=f"{self._name}-{slot}", daemon=True).start()

    def _run(self, slot: int, owner: Hashable, job: J) -> None:
        try:
            job.run(slot)
        finally:
            with self._lock:
                del self._running[owner]
                bisect.insort(self._free_slots(), slot)  # kept in order: the lowest is taken first
                if owner in self._waiting:  # it waited behind its own job: to the back of the turn
                    self._waiting.move_to_end(owner)
                started = self._start_next()
            self._launch(started)
