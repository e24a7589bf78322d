"""Paper loads read in worker processes: a hostile PDF costs its own process, never the web server.

Each slot of `loading`'s queue has one `LoadWorker`: a Python process of its own, started as
`python -m spiqa_demo.ui.load_workers` (so it imports no web server and inherits none of its
threads) and reused load after load. It opens the paper the one way papers are opened,
`spiqa_demo.library.open_paper`: extracted through the cache and indexed, the index saved beside
the cache entry, from where the server loads it without embedding anything. Before each load the
worker limits its own processor time (RLIMIT_CPU, `SPIQA_UI_LOAD_CPU_S` beyond what it has used):
a load past it is killed by the kernel, its message says so, and the slot's next load starts a new
worker. Requests and replies cross the process's pipes as pickles: progress, the extracted paper
(so the gallery shows while the index is built), then the outcome. This module imports no Gradio.
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
from pathlib import Path
from typing import IO, Any

from spiqa_demo.errors import PaperError
from spiqa_demo.settings import Settings
from spiqa_demo.types import Paper, Progress

log = logging.getLogger(__name__)

# One math thread per worker: the workers share the machine with each other and with the server.
_WORKER_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


class LoadWorker:
    """One worker process (started on first use, and again after it dies), used by one slot at a time."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def warm(self, settings: Settings) -> None:
        """Start the process and load its sentence encoder now, so no visitor waits for it."""
        with self._lock:
            self._started(settings)

    def open(self, pdf: Path, settings: Settings, progress: Progress, extracted: Callable[[Paper], None]) -> Paper:
        """`pdf` opened in the worker (extracted and indexed): `progress` hears its reports, `extracted`
        gets the paper before it is indexed. A `PaperError` says why a file cannot be read."""
        with self._lock:
            process = self._started(settings)
            try:
                _send(process.stdin, ("open", pdf, settings))
                while True:
                    kind, *payload = _receive(process.stdout)
                    if kind == "progress":
                        progress(*payload)
                    elif kind == "extracted":
                        extracted(payload[0])
                    elif kind == "opened":
                        return payload[0]
                    else:  # "failed": the worker's own error, as a message
                        message, is_paper_error = payload
                        raise PaperError(message) if is_paper_error else RuntimeError(message)
            except (EOFError, OSError, pickle.UnpicklingError):
                raise self._died(pdf, settings) from None

    def _started(self, settings: Settings) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        path = os.pathsep.join(p for p in (str(_PACKAGE_ROOT), os.environ.get("PYTHONPATH", "")) if p)
        process = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   env={**os.environ, **_WORKER_ENV, "PYTHONPATH": path})
        self._process = process
        try:
            _send(process.stdin, ("warm", settings))
            _receive(process.stdout)  # ("ready",)
        except (EOFError, OSError, pickle.UnpicklingError):
            self._process = None
            raise PaperError("the app's paper reader could not be started; try again later") from None
        return process

    def _died(self, pdf: Path, settings: Settings) -> PaperError:
        """Why the worker stopped mid-load (it is started again for the next load)."""
        assert self._process is not None
        code = self._process.wait()
        self._process = None
        if code == -signal.SIGXCPU:
            return PaperError(f"{pdf.name}: reading it took more than {settings.ui.ui_load_cpu_s} s of processor time, "
                              "so it was stopped (SPIQA_UI_LOAD_CPU_S)")
        return PaperError(f"{pdf.name}: the paper reader stopped while reading it (out of memory?)")


def _send(stream: IO[bytes] | None, message: tuple[Any, ...]) -> None:
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


def _limit_cpu(seconds: float | None) -> None:
    """Processor time this process may still use (its soft RLIMIT_CPU past what it has used), or no limit."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = resource.RLIM_INFINITY if seconds is None else int(used.ru_utime + used.ru_stime + seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def _open(pdf: Path, settings: Settings, reply: Callable[[tuple[Any, ...]], None]) -> None:
    from spiqa_demo.library import open_paper

    _limit_cpu(settings.ui.ui_load_cpu_s)
    try:
        opened = open_paper(pdf, settings, progress=lambda fraction, message: reply(("progress", fraction, message)),
                            extracted=lambda paper, _: reply(("extracted", paper)))
        reply(("opened", opened.paper))
    except PaperError as exc:
        reply(("failed", str(exc), True))
    except Exception as exc:  # a bug: told to the server, whose log has this traceback too
        traceback.print_exc()
        reply(("failed", f"{type(exc).__name__}: {exc}", False))
    finally:
        _limit_cpu(None)


def _warm(settings: Settings) -> None:
    from retrieval.embedder import get_embedder

    try:
        get_embedder(settings.retrieval).load()
    except Exception:  # the first load says what is wrong, to the visitor
        traceback.print_exc()


def serve() -> None:
    """The worker: answer the server's requests on stdin/stdout until stdin closes."""
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints of the libraries go to stderr, never into the replies
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))  # a killed load dumps no core

    def reply(message: tuple[Any, ...]) -> None:
        _send(replies, message)

    while True:
        try:
            kind, *args = _receive(sys.stdin.buffer)
        except EOFError:
            return
        if kind == "warm":
            _warm(*args)
            reply(("ready",))
        else:
            pdf, settings = args
            _open(pdf, settings, reply)


if __name__ == "__main__":
    serve()
