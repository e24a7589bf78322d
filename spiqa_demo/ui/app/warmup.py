"""Start-up work done in the background, so the first paper is as fast as any later one.

A paper load waits for its reader (a worker process, `readers`) to start and load the sentence
encoder: the longest wait of all. So the first reader, which the first paper gets, starts first,
before the app imports Gradio and builds its page (`start_first_reader`, from the entry point). The
rest runs once the page is served (`start_warmup`), first what this process runs for the first
paper and its questions: what Gradio imports on its first event (matplotlib), this process's
encoder and index libraries, a configured local model (once per process, so the first question does
not wait for its weights). Then what no load needs, each step only while no paper is being loaded
(on two cores it would slow the load): the page-image and scoring workers, the SPIQA files for the
check, and last the other readers, one by one. Failures are logged and reported on first real use.
"""

from __future__ import annotations

import logging
import threading
import time

from spiqa_demo.settings import Settings
from spiqa_demo.ui.serving.app_settings import app_settings

log = logging.getLogger(__name__)


GIVE_WAY_CHECK_S = 0.05  # how often the warm-up looks whether the loads under way are done
GIVE_WAY_QUIET_S = 1.0  # how long no paper must have been loaded before the warm-up goes on
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
        from spiqa_demo.ui.serving.work import readers

        try:
            readers.warm_first(settings)
        except Exception:  # the first load reports the problem to the visitor
            log.exception("starting the paper reader failed")

    thread = threading.Thread(target=warm, name="spiqa-warm-first-reader", daemon=True)
    thread.start()
    return thread


def _warm_gradio_events() -> None:
    """Run once what Gradio runs around every event, on the server's event loop: it imports matplotlib
    (when installed) and resolves its backend (`gradio.utils.MatplotlibBackendMananger`). Done here
    first, the first visitor's first event (an upload) does not stall every request while it runs."""
    from gradio import utils

    around_events = getattr(utils, "MatplotlibBackendMananger", None)  # absent from another Gradio: nothing to warm
    if around_events is not None:
        with around_events():
            pass


def _after_loads() -> None:
    """Return once no paper has been loaded or waited for a reader for `GIVE_WAY_QUIET_S`: what is
    warmed after this, a load does not need, and on two cores it would slow the load, the next one of
    papers sent one after another too (a steady stream of loads defers it for good, and each of those
    things then starts on its first use)."""
    from spiqa_demo.ui.serving.work.pools import LOADS

    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < GIVE_WAY_QUIET_S:
        time.sleep(GIVE_WAY_CHECK_S)
        if not LOADS.idle():
            quiet_since = time.monotonic()


def _warm() -> None:
    settings = app_settings()
    first_reader = start_first_reader(settings)  # already started by the entry point, when it did
    try:
        # First what this process runs for a visitor's first paper and questions.
        _warm_gradio_events()
        from retrieval.embedder import get_embedder
        from retrieval.store import get_store

        get_store(get_embedder(settings.retrieval)).warm()  # a loaded paper's index and the questions about it
        import spiqa_demo.extraction  # noqa: F401  # imported for its side effect: PyMuPDF loaded before the first visitor
        from spiqa_demo.models import backend_kind, load_backend

        if backend_kind(settings.models) == "local":
            load_backend(settings.models)
        # Then what no load needs, each step after the loads under way.
        from spiqa_demo.ui.serving.work import page_renders, result_files

        _after_loads()
        page_renders.warm()
        result_files.warm()
        from spiqa_demo.ui.shared.spiqa_data import benchmark_datasets

        _after_loads()
        benchmark_datasets()
        first_reader.join()
        from spiqa_demo.ui.serving.work.readers import others

        for reader in others(settings):  # last, one by one: beside the first one's, they would slow the first paper
            _after_loads()
            reader.warm(settings.retrieval)
    except Exception:  # the first real use reports the problem to the visitor
        log.exception("background warm-up failed")


def start_warmup() -> threading.Thread:
    """Run the warm-up in a daemon thread (the readers too, unless started already); returns it
    (tests and benchmarks may join it: the readers are warm then too)."""
    thread = threading.Thread(target=_warm, name="spiqa-warmup", daemon=True)
    thread.start()
    return thread
