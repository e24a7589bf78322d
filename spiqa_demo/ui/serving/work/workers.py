"""Work that may cost more than a bounded amount runs in worker processes, never in the web server:
paper loads, cited papers, the viewer's page images, and the scoring of result files.

A `Worker` is one Python process of its own, started as `python -m spiqa_demo.ui.serving.work.workers` (so it
imports no web server and inherits none of its threads) and reused task after task, by one caller
at a time. A task is a module-level function (pickled by name) called in the worker as
`task(report, *args)`: `report` sends messages (progress, an extracted paper) to the caller's `hear`
while it runs, and what it returns is the caller's result. Before each task the worker limits
itself: processor time (RLIMIT_CPU, `Limits.cpu_s` beyond what it has used: past it the kernel kills
it) and memory (RLIMIT_DATA, `Limits.memory_mb` beyond what it holds: an allocation past it fails).
The caller's message says which limit stopped a task, `on_death` cleans up after a killed one (its
staging folders), and the next task starts a new worker. Requests and replies cross the process's
pipes as pickles. This module imports no Gradio.
"""

from __future__ import annotations

import logging
import os
import pickle
import resource
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Concatenate, TypeVar

from spiqa_demo.errors import PaperError
from spiqa_demo.settings import RetrievalSettings

log = logging.getLogger(__name__)

T = TypeVar("T")
# A message a task sends its caller while it runs (any picklable values: ("progress", 0.5, "…")).
Report = Callable[[tuple[object, ...]], None]

# One math thread per worker: the workers share the machine with each other and with the server.
_WORKER_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
_PACKAGE_ROOT = Path(__file__).resolve().parents[4]


@dataclass(frozen=True)
class Limits:
    """What one task may use: `cpu_s` processor seconds (set by the variable `cpu_setting`, named when
    it stops a task) and `memory_mb` megabytes beyond what the worker holds before it."""

    cpu_s: int
    memory_mb: int
    cpu_setting: str


def _ignore(_: tuple[object, ...]) -> None:
    return None


class Worker:
    """One worker process (started on first use, and again after it dies), used by one caller at a time."""

    def __init__(self, on_death: Callable[[], None] = lambda: None) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._on_death = on_death
        self.starting = False  # `warm` is under way: a task waits for the process and its encoder

    def start(self) -> None:
        """Start the process now (Python and this module loaded), so the first task does not wait for it."""
        with self._lock:
            self._started()

    def warm(self, settings: RetrievalSettings) -> None:
        """Start the process, import what a paper load runs and load its sentence encoder now, so no
        visitor waits for them."""
        self.starting = True
        try:
            self.run(_load_encoder, (settings,), "starting the paper reader")
        finally:
            self.starting = False

    def run(self, task: Callable[Concatenate[Report, ...], T], args: tuple[object, ...], what: str, limits: Limits | None = None,
            hear: Report = _ignore) -> T:
        """`task(report, *args)` run in the worker within `limits`; `hear` gets what it reports.

        `what` names the work in messages ("paper.pdf: reading it"). A `PaperError` says why the work
        cannot be done: the task's own, or the limit that stopped it."""
        with self._lock:
            process = self._started()
            try:
                _send(process.stdin, ("run", task, args, limits))
                while True:
                    kind, *payload = _receive(process.stdout)
                    if kind == "done":
                        return payload[0]
                    if kind == "failed":
                        message, is_paper_error = payload
                        raise PaperError(message) if is_paper_error else RuntimeError(message)
                    if kind == "memory":
                        assert limits is not None
                        raise PaperError(f"{what} needed more than {limits.memory_mb} MB of memory, so it was stopped "
                                         "(SPIQA_UI_WORKER_MEMORY_MB)")
                    hear((kind, *payload))
            except (EOFError, OSError, pickle.UnpicklingError):
                raise self._died(what, limits) from None

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        path = os.pathsep.join(p for p in (str(_PACKAGE_ROOT), os.environ.get("PYTHONPATH", "")) if p)
        self._process = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         env={**os.environ, **_WORKER_ENV, "PYTHONPATH": path})
        return self._process

    def _died(self, what: str, limits: Limits | None) -> PaperError:
        """Why the worker stopped mid-task (it is started again for the next task)."""
        assert self._process is not None
        code = self._process.wait()
        self._process = None
        try:
            self._on_death()
        except Exception:  # cleaning up must not hide why the work stopped
            log.exception("cleaning up after a worker failed")
        if code == -signal.SIGXCPU and limits is not None:
            return PaperError(f"{what} took more than {limits.cpu_s} s of processor time, so it was stopped "
                              f"({limits.cpu_setting})")
        return PaperError(f"{what}: the worker process stopped (out of memory?)")


def _send(stream: IO[bytes] | None, message: tuple[object, ...]) -> None:
    if stream is None:
        raise OSError("no pipe")
    pickle.dump(message, stream, protocol=pickle.HIGHEST_PROTOCOL)
    stream.flush()


def _receive(stream: IO[bytes] | None) -> tuple[Any, ...]:
    if stream is None:
        raise OSError("no pipe")
    message = pickle.load(stream)
    return tuple(message)


# -- the worker process --------------------------------------------------------------------------


def _load_encoder(report: Report, settings: RetrievalSettings) -> None:
    from retrieval.embedder import get_embedder
    from retrieval.store import get_store

    try:
        import spiqa_demo.library  # noqa: F401  # imported for its side effect: extraction and PyMuPDF loaded before the first paper

        get_store(get_embedder(settings)).warm()  # the store a paper's index is built in, as `open_paper` gets it
    except Exception:  # the first load says what is wrong, to the visitor
        traceback.print_exc()


def _set_soft(kind: int, soft: int) -> None:
    _, hard = resource.getrlimit(kind)
    resource.setrlimit(kind, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def _limit(limits: Limits | None) -> None:
    """This process's limits for the next task (past what it has used and holds), or none."""
    if limits is None:
        _set_soft(resource.RLIMIT_CPU, resource.RLIM_INFINITY)
        _set_soft(resource.RLIMIT_DATA, resource.RLIM_INFINITY)
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    _set_soft(resource.RLIMIT_CPU, int(used.ru_utime + used.ru_stime + limits.cpu_s) + 1)
    _set_soft(resource.RLIMIT_DATA, _data_size() + limits.memory_mb * 1024 * 1024)


def _data_size() -> int:
    """Bytes of this process's private writable memory now (VmData; 0 where /proc has none: the limit is
    then absolute). RLIMIT_DATA, not RLIMIT_AS: a Java tokenizer the metrics start reserves gigabytes
    of address space it never uses."""
    try:
        with open("/proc/self/status") as fh:
            kilobytes = next(line.split()[1] for line in fh if line.startswith("VmData:"))
        return int(kilobytes) * 1024
    except (OSError, ValueError, IndexError, StopIteration):
        return 0


def _run(task: Callable[Concatenate[Report, ...], object], args: tuple[object, ...], limits: Limits | None, reply: Report) -> None:
    _limit(limits)
    try:
        outcome: tuple[object, ...] = ("done", task(reply, *args))
    except PaperError as exc:
        outcome = ("failed", str(exc), True)
    except MemoryError:
        outcome = ("memory",)
    except Exception as exc:  # a bug: told to the server, whose log has this traceback too
        traceback.print_exc()
        outcome = ("failed", f"{type(exc).__name__}: {exc}", False)
    finally:
        _limit(None)
    reply(outcome)


def serve() -> None:
    """The worker: answer the server's requests on stdin/stdout until stdin closes."""
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints of the libraries go to stderr, never into the replies
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))  # a killed task dumps no core

    def reply(message: tuple[object, ...]) -> None:
        try:
            _send(replies, message)
        except BrokenPipeError:  # the server is gone (stopped, SIGTERM): nobody waits for this work
            os._exit(0)

    while True:
        try:
            _, task, args, limits = _receive(sys.stdin.buffer)
        except EOFError:
            return
        _run(task, args, limits, reply)


if __name__ == "__main__":
    serve()


class SlotWorkers:
    """One `Worker` per slot of a queue, made when its slot is first used (a queue's size is known only then)."""

    def __init__(self, on_death: Callable[[], None] = lambda: None) -> None:
        self._on_death = on_death
        self._made: dict[int, Worker] = {}
        self._lock = threading.Lock()

    def __getitem__(self, slot: int) -> Worker:
        with self._lock:
            if slot not in self._made:
                self._made[slot] = Worker(on_death=self._on_death)
            return self._made[slot]

    def of(self, slots: int) -> list[Worker]:
        """The workers of slots 0 to `slots` - 1 (to start them before any work comes)."""
        return [self[slot] for slot in range(slots)]
