"""Open a paper for the app: keep a copy, extract it (cached), publish its crops, index it.

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
from spiqa_demo.types import Paper, Progress
from spiqa_demo.ui import storage
from spiqa_demo.ui.app_settings import app_settings
from spiqa_demo.ui.messages import as_sentence

if TYPE_CHECKING:
    from spiqa_demo.ui.session import Session

log = logging.getLogger(__name__)

EXTRACTION_SHARE = 0.85  # of the progress bar; indexing takes the rest
PAPER_CONCURRENCY = 2  # extraction is CPU-bound: two at a time keep the server responsive
_pool = ThreadPoolExecutor(max_workers=PAPER_CONCURRENCY, thread_name_prefix="paper-load")


def check_upload(path: Path) -> None:
    """Refuse what is obviously not a paper before copying it anywhere."""
    from spiqa_demo.extraction.document import check_size

    if not path.is_file():
        raise PaperError("the upload did not arrive; try again")
    if path.suffix.lower() != ".pdf":
        raise PaperError(f"{path.name}: only PDF files can be read (got a {path.suffix or 'file without extension'})")
    check_size(path, app_settings())


def index_paper(paper: Paper) -> None:
    """Build (or fetch from memory) the paper's retrieval index, so the first question is fast.

    The QA flows keep one index per paper in memory (`spiqa_demo.qa.shortlist`); it is built there.
    """
    if not paper.items:
        return
    from spiqa_demo.qa.shortlist import build_index

    build_index(paper)


def extract(source: Path, progress: Progress, annotations: bool = False) -> tuple[Paper, Path]:
    """`(paper, the app's copy of the PDF)` for an uploaded or downloaded file (not yet indexed);
    `annotations`: crops keep the reader's highlights and notes."""
    from spiqa_demo.extraction import load_paper

    check_upload(source)
    pdf = storage.keep_upload(source)
    progress(0.0, f"Opening {source.name}")
    try:
        paper = load_paper(pdf, progress=lambda fraction, message: progress(EXTRACTION_SHARE * fraction, message),
                           settings=app_settings().with_overrides(crop_annotations=annotations))
    except Exception:
        storage.discard(pdf)  # a file that cannot be read is not kept
        raise
    progress(EXTRACTION_SHARE, f"Indexing {len(paper.items)} figures and tables")
    return paper, pdf


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
            paper, pdf = extract(source, self._progress, session.annotations)
            paper = storage.publish(paper)
            if session.load_job is self:
                session.load(paper, pdf)
            self.paper = paper
            index_paper(paper)
            self._progress(1.0, f"Ready: {paper.summary()}")
            if session.load_job is self:
                session.history.insert(0, {"role": "assistant", "content": greeting(paper)})
        except Exception as exc:  # PaperError: bad input; anything else is a bug, but the app goes on
            if not isinstance(exc, PaperError):
                log.exception("loading a paper failed")
            self.error = as_sentence(str(exc) if isinstance(exc, PaperError)
                                     else f"something went wrong reading this file ({type(exc).__name__})")
            if source is not None:
                storage.discard(source)  # a rejected upload or download is not kept
        finally:
            self._done.set()
