"""The paper readers: one worker process (`workers`) per slot of `LOADS`, where papers are read and
indexed (`loading`, `cited_loading`). Light to import (no PyMuPDF, no Gradio), so the app's entry
point can start the first reader before it imports Gradio and builds its page.
"""

from __future__ import annotations

from spiqa_demo.settings import Settings
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.work.workers import SlotWorkers, Worker


def _sweep_staging() -> None:
    """A killed worker's half-extracted folders are deleted (they would count against the cache's limit)."""
    from spiqa_demo.extraction.cache import sweep_staging

    sweep_staging(app_settings().extraction)


READERS = SlotWorkers(on_death=_sweep_staging)


def warm_first(settings: Settings) -> None:
    """Start the first slot's reader (the first paper gets it) and load its encoder; meanwhile delete
    what killed workers of earlier runs left in the cache."""
    from spiqa_demo.extraction.cache import sweep_staging  # PyMuPDF: imported while the reader's process starts

    reader = READERS[0]
    reader.start()
    sweep_staging(settings.extraction)
    reader.warm(settings.retrieval)


def others(settings: Settings) -> list[Worker]:
    """The readers of the other slots (`settings` sizes `LOADS` too)."""
    return READERS.of(max(1, settings.ui.ui_paper_concurrency))[1:]
