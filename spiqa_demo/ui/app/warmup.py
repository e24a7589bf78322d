"""Start-up work done in the background once the page is served, so the first paper is fast.

Importing sentence-transformers and loading the embedder is slow; doing it while
the visitor picks a file takes it off the "upload -> ready to ask" path, in this process and in the
worker processes that read papers. The SPIQA files for the
check are read too, and a configured local model is loaded (once per process), so the first
question does not wait for its weights. Failures are logged and reported on first real use.
"""

from __future__ import annotations

import logging
import threading

from spiqa_demo.ui.serving.app_settings import app_settings

log = logging.getLogger(__name__)


def _warm() -> None:
    try:
        import spiqa_demo.extraction  # noqa: F401  # imported for its side effect: PyMuPDF loaded before the first visitor
        from retrieval.embedder import get_embedder
        from spiqa_demo.ui.serving.work import page_renders, result_files
        from spiqa_demo.ui.serving.work.loading import warm_workers

        settings = app_settings()
        page_renders.warm()
        result_files.warm()
        get_embedder(settings.retrieval).load()
        warm_workers()
        from spiqa_demo.ui.shared.spiqa_data import benchmark_datasets

        benchmark_datasets()
        from spiqa_demo.models import backend_kind, load_backend

        if backend_kind(settings.models) == "local":
            load_backend(settings.models)
    except Exception:  # the first real use reports the problem to the visitor
        log.exception("background warm-up failed")


def start_warmup() -> threading.Thread:
    """Run the warm-up in a daemon thread; returns it (tests and benchmarks may join it)."""
    thread = threading.Thread(target=_warm, name="spiqa-warmup", daemon=True)
    thread.start()
    return thread
