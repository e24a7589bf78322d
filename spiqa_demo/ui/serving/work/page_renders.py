"""The viewer's page images, drawn in worker processes a few at a time and kept, so no page costs the
web server anything and none is drawn twice.

`rendered` gives a `PageRender`: done at once when the page was drawn before at that resolution (the
PNG is kept in the UI folder under a name only this server can compute) or when it could not be drawn
before (a page past its limit stays refused: stepping the zoom never pays for it again); else it is
queued in `RENDERS`, a `FairQueue` of `SPIQA_UI_RENDER_CONCURRENCY` slots, each with its `Worker`, where the
page is drawn within `SPIQA_UI_RENDER_CPU_S` processor seconds and `SPIQA_UI_WORKER_MEMORY_MB`, then its text layer is read within the same limits (a page whose text
is past them is shown without it). A
session has one render running and one waiting (a newer page replaces the waiting one), and sessions
take turns, so a visitor paging through a slow PDF holds one slot while everyone else's pages are
drawn in the other. The viewer waits for `done` without holding a thread (`steps.Wait`).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Hashable
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.files import storage
from spiqa_demo.ui.serving.messages import as_sentence
from spiqa_demo.ui.serving.work.page_view import PageImage, draw_page, write_page_text
from spiqa_demo.ui.serving.work.pools import RENDERS
from spiqa_demo.ui.serving.work.workers import Limits, SlotWorkers

log = logging.getLogger(__name__)
KEPT = 4096  # drawn pages and refused ones remembered (each a path and a number)
_workers = SlotWorkers()
_drawn: OrderedDict[Path, float] = OrderedDict()  # PNG -> pixels per point
_refused: OrderedDict[tuple[Path, int, bool], str] = OrderedDict()  # (PDF, page, annotations) -> why
_lock = threading.Lock()


class PageRender:
    """One page image asked for: `image` once drawn, else `error` (a sentence for people) once `done`."""

    def __init__(self, pdf: Path, page: int, annotations: bool, dpi: int, target: Path) -> None:
        self.pdf, self.page, self.annotations, self.dpi, self.target = pdf, page, annotations, dpi, target
        self.image: PageImage | None = None
        self.error = ""
        self.replaced = False  # a newer page of the session took its place before it was drawn
        self._done = threading.Event()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def finish(self, image: PageImage | None, error: str = "") -> PageRender:
        self.image, self.error = image, error
        self._done.set()
        return self

    def dropped(self, reason: str) -> None:
        self.replaced = True
        self.finish(None, as_sentence(f"this page was not drawn: {reason}"))

    def run(self, slot: int) -> None:
        settings = app_settings().ui
        limits = Limits(settings.ui_render_cpu_s, settings.ui_worker_memory_mb, "SPIQA_UI_RENDER_CPU_S")
        key = (self.pdf, self.page, self.annotations)
        try:
            scale = _workers[slot].run(draw_page, (self.pdf, self.page, self.annotations, self.dpi, self.target),
                                       f"page {self.page}: drawing it", limits)
        except Exception as exc:  # PaperError: past a limit or unreadable; anything else a bug: the viewer goes on
            error = as_sentence(str(exc) if isinstance(exc, PaperError) else f"drawing page {self.page} failed")
            _remember(_refused, key, error)
            self.finish(None, error)
            return
        try:
            _workers[slot].run(write_page_text, (self.pdf, self.page, scale, self.target),
                               f"page {self.page}: reading its text", limits)
        except Exception:  # past a limit, or unreadable: the page is shown, its text only not selectable
            log.warning("page %d: its text layer was not written", self.page, exc_info=True)
        _remember(_drawn, self.target, scale)
        storage.evict()
        self.finish(PageImage(self.target, scale))


def _remember(kept: OrderedDict, key: Hashable, value: object) -> None:
    with _lock:
        kept[key] = value
        kept.move_to_end(key)
        while len(kept) > KEPT:
            kept.popitem(last=False)


def rendered(pdf: Path, page: int, annotations: bool, dpi: int, owner: Hashable) -> PageRender:
    """Page `page` of the kept `pdf` at `dpi` for session `owner`: drawn before, refused before, or queued."""
    prefix = storage.pages_prefix(pdf)  # the kept PDF's folder is its content hash: served names are keyed
    target = prefix.with_name(f"{prefix.name}-p{page}-{dpi}{'-annotated' if annotations else ''}.png")
    render = PageRender(pdf, page, annotations, dpi, target)
    with _lock:
        scale = _drawn.get(target)
        refused = _refused.get((pdf, page, annotations))
    if scale is not None and target.is_file():
        target.touch()  # the UI folder's eviction takes the least recently used first
        return render.finish(PageImage(target, scale))
    if refused is not None:
        return render.finish(None, refused)
    RENDERS.submit(owner, render)
    return render


def warm() -> None:
    """Start the workers (the app's start-up calls this), so the first page is not slowed by a start."""
    for worker in _workers.of(RENDERS.slots):
        worker.start()
