"""Local models loaded when the app starts on a ZeroGPU Space, before any visitor's GPU time.

ZeroGPU attaches a GPU only inside `spaces.GPU` calls and expects weights to be placed on "cuda"
in the main process at startup (they move to the GPU when a call begins). Loading them on the
first question instead would make that visitor wait for the weights. So on a ZeroGPU Space the
configured answering model and L3Score judge (with its fallback) are loaded at import of the app,
local checkpoints reading their weights then; elsewhere the background warm-up loads the answering
model after the page is served.
"""

from __future__ import annotations

import logging

from spiqa_demo.models.zerogpu import on_zerogpu
from spiqa_demo.settings import Settings

log = logging.getLogger(__name__)


def preload_on_zerogpu(settings: Settings) -> list[str]:
    """On a ZeroGPU Space, load the configured models now; returns the names of the local ones loaded.

    A model that fails to load is logged and skipped: the app still starts (retrieval works) and
    the first use of that model reports the problem.
    """
    if not on_zerogpu(settings.models):
        return []
    import spaces  # noqa: F401  (before torch touches CUDA: ZeroGPU requires this import order)

    from spiqa_demo.evaluation.metrics import load_judge
    from spiqa_demo.models import backend_kind, load_backend
    from spiqa_demo.models.local import LocalBackend

    backends: list[object] = []
    try:
        if backend_kind(settings.models) == "local":
            backends.append(load_backend(settings.models))
    except Exception:  # reported to the visitor on first use
        log.exception("loading the answering model at startup failed")
    try:
        judge = load_judge(settings) if settings.evaluation.judge_model else None
        if judge is not None:
            backends += [judge.backend, judge.fallback]
    except Exception:  # reported when a score is first asked for
        log.exception("loading the L3Score judge at startup failed")
    return [b.name for b in backends if isinstance(b, LocalBackend)]
