"""Start-up work done in the background, so the first paper is fast.

A paper load waits for its reader (a worker process, `loading`) to start and load the sentence
encoder: the longest wait of all. So the first reader starts first, before the app builds
its page (`start_first_reader`, from the entry point). The rest runs once the page is served
(`start_warmup`): this process's embedder (for questions), PyMuPDF, the SPIQA files for the check, a
configured local model (once per process, so the first question does not wait for its weights),
and last the other readers, whose encoders loading beside the first one's would slow the first
paper on two cores. Failures are logged and reported on first real use.
"""

from __future__ import annotations

import logging
import threading

from spiqa_demo.settings import Settings
from spiqa_demo.ui.serving.app_settings import app_settings

log = logging.getLogger(__name__)


_first_reader: list[threading.Thread] = []
_starting = threading.Lock()


def start_first_reader(settings: Settings) -> threading.Thread:
    """Start the first paper reader and its encoder in the background, once per process; returns the thread."""
    with _starting:
        if not _first_reader:
            _first_reader.append(_started_reader(settings))
        return _first_reader[0]


def _started_reader(settings: Settings) -> threading.Thread:
    def warm() -> None:
        from spiqa_demo.ui.serving.work.loading import warm_workers

        try:
            warm_workers(settings, first=True)
        except Exception:  # the first load reports the problem to the visitor
            log.exception("starting the paper reader failed")

    thread = threading.Thread(target=warm, name="spiqa-warm-first-reader", daemon=True)
    thread.start()
    return thread


def _warm() -> None:
    settings = app_settings()
    first_reader = start_first_reader(settings)  # already started by the entry point, when it did
    try:
        import spiqa_demo.extraction  # noqa: F401  # imported for its side effect: PyMuPDF loaded before the first visitor
        from retrieval.embedder import get_embedder
        from spiqa_demo.ui.serving.work import page_renders, result_files

        page_renders.warm()
        result_files.warm()
        get_embedder(settings.retrieval).load()
        from spiqa_demo.ui.shared.spiqa_data import benchmark_datasets

        benchmark_datasets()
        from spiqa_demo.models import backend_kind, load_backend

        if backend_kind(settings.models) == "local":
            load_backend(settings.models)
        first_reader.join()
        from spiqa_demo.ui.serving.work.loading import warm_workers

        warm_workers(settings, first=False)  # last: loads side by side with the first slot's would slow the first paper
    except Exception:  # the first real use reports the problem to the visitor
        log.exception("background warm-up failed")


def start_warmup() -> threading.Thread:
    """Run the warm-up in a daemon thread (the readers too, unless started already); returns it
    (tests and benchmarks may join it: the readers are warm then too)."""
    thread = threading.Thread(target=_warm, name="spiqa-warmup", daemon=True)
    thread.start()
    return thread
