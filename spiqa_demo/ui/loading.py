"""Open a paper for the app in the background: `spiqa_demo.library.open_paper` keeps a copy,
extracts (cached) and indexes it; the app publishes its crops and shows it once it is extracted.

A load runs as a `PaperLoad` in a small worker pool, not in the request that asked for it: a
visitor who cancels the request or closes the tab does not leave the session half-loaded (the
paper finishes loading), and a question asked meanwhile waits for the index instead of failing.
Progress is `(fraction, message)` with counts ("Reading page 3 of 12", "Cropping Figure 2 (2 of
9)", "Indexing 9 figures and tables"); bad input ends the load with its message.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.errors import PaperError
from spiqa_demo.library import Keeper, open_paper
from spiqa_demo.types import Paper
from spiqa_demo.ui import storage
from spiqa_demo.ui.app_settings import app_settings
from spiqa_demo.ui.messages import as_sentence

if TYPE_CHECKING:
    from spiqa_demo.ui.session import Session

log = logging.getLogger(__name__)

PAPER_CONCURRENCY = 2  # extraction is CPU-bound: two at a time keep the server responsive
_pool = ThreadPoolExecutor(max_workers=PAPER_CONCURRENCY, thread_name_prefix="paper-load")
# Uploads and downloads are kept under the app's upload folder, so a paper's pages can be shown later.
UPLOADS = Keeper(keep=storage.keep_upload, discard=storage.discard)


def greeting(paper: Paper) -> str:
    title = escape(paper.title or paper.source)
    if not paper.items:
        return f"Loaded **{title}**, but no figures or tables were found in it. You can still ask; answers will have no figure to show."
    return f"Loaded **{title}** ({paper.summary()}). Ask a question about its figures and tables."


class PaperLoad:
    """One paper being fetched, read and indexed for a session, in the worker pool.

    `paper` is set once the paper is extracted (its gallery can be shown), `done` once it is
    indexed or has failed (`error`, a message for people). The session switches to the paper only
    while this is still its latest load, so an older, slower load never replaces a newer one.
    """

    def __init__(self, fetch: Callable[[], Path], session: Session) -> None:
        self.fraction, self.message = 0.0, "Waiting for a free reader"
        self.paper: Paper | None = None
        self.error = ""
        self._done = threading.Event()
        session.load_job = self
        _pool.submit(self._run, fetch, session)

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float) -> bool:
        """Whether the load is over after waiting at most `timeout` seconds."""
        return self._done.wait(timeout)

    def _progress(self, fraction: float, message: str) -> None:
        self.fraction, self.message = fraction, message

    def _run(self, fetch: Callable[[], Path], session: Session) -> None:
        source: Path | None = None
        try:
            source = fetch()
            settings = app_settings()
            settings = settings.model_copy(update={"extraction": settings.extraction.with_overrides(crop_annotations=session.annotations)})
            opened = open_paper(source, settings, keep=UPLOADS, progress=self._progress,
                                extracted=lambda paper, pdf: self._show(paper, pdf, session))
            self._progress(1.0, f"Ready: {opened.paper.summary()}")
            if session.load_job is self:
                session.history.insert(0, {"role": "assistant", "content": greeting(opened.paper)})
        except Exception as exc:  # PaperError: bad input; anything else is a bug, but the app goes on
            if not isinstance(exc, PaperError):
                log.exception("loading a paper failed")
            self.error = as_sentence(str(exc) if isinstance(exc, PaperError)
                                     else f"something went wrong reading this file ({type(exc).__name__})")
            if source is not None:
                storage.discard(source)  # a rejected upload or download is not kept
        finally:
            self._done.set()

    def _show(self, paper: Paper, pdf: Path, session: Session) -> None:
        """The extracted paper, its crops served from the app's folder, shown while it is indexed."""
        published = storage.publish(paper)
        if session.load_job is self:
            session.load(published, pdf)
        self.paper = published
