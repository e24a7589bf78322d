"""How many model calls the app makes at once, across all visitors.

A local model is one object in this process's memory: its calls take turns. Remote API calls go
to servers that answer in parallel, so they run side by side up to a bound. Retrieval-only
answers take no slot and never wait behind a model.
"""

from __future__ import annotations

import threading
from functools import lru_cache

from spiqa_demo.models import ModelBackend
from spiqa_demo.ui.app_settings import app_settings


@lru_cache(maxsize=1)
def _slots() -> dict[str, threading.BoundedSemaphore]:
    settings = app_settings()
    return {
        "local": threading.BoundedSemaphore(max(1, settings.ui.ui_model_concurrency)),
        "api": threading.BoundedSemaphore(max(1, settings.ui.ui_api_concurrency)),
    }


def model_slot(backend: ModelBackend | None) -> threading.BoundedSemaphore | None:
    """The semaphore a call to `backend` must hold, or None for retrieval only (no model)."""
    if backend is None:
        return None
    from spiqa_demo.models.openai_api import OpenAIBackend

    return _slots()["api" if isinstance(backend, OpenAIBackend) else "local"]
