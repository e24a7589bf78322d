"""Open a paper for the app in the background: `spiqa_demo.library.open_paper` runs in a worker
process (`workers`), the app publishes the crops and shows the paper once it is extracted,
then loads the index the worker saved.

A load runs as a `PaperLoad` in `LOADS`, a `FairQueue` of `SPIQA_UI_PAPER_CONCURRENCY` slots, each with its
worker process: a session has at most one load running and one waiting (a newer load replaces the
waiting one), and sessions take turns for free slots, so one visitor flooding slow PDFs holds one
slot while everyone else's papers are read in the others. A load is not the request that asked
for it: a visitor who cancels the request or closes the tab never leaves the session half-loaded
(a running load finishes; one still waiting is dropped and the previous paper stays), and a
question asked meanwhile waits for the index instead of failing. A load's processor time and
memory in its worker are bounded (`SPIQA_UI_LOAD_CPU_S`, `SPIQA_UI_WORKER_MEMORY_MB`), the PDF's
images by `SPIQA_MAX_IMAGE_PIXELS`, and the session's files by its upload quota; a killed worker's
staging folders are deleted. Progress is `(fraction, message)` with counts ("Reading page 3 of 12",
"Cropping Figure 2 (2 of 9)", "Indexing 9 figures and tables"); bad input ends the load with its
message. Cited papers (`cited_loading`) are read in the same queue and worker processes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from spiqa_demo.errors import PaperError
from spiqa_demo.library import open_paper
from spiqa_demo.library.parallel import Extracted, extract_one
from spiqa_demo.settings import ExtractionSettings, Settings
from spiqa_demo.types import Paper, Progress
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.chat_messages import History
from spiqa_demo.ui.serving.files import storage
from spiqa_demo.ui.serving.messages import as_sentence
from spiqa_demo.ui.serving.untrusted import inert
from spiqa_demo.ui.serving.work.pools import LOADS
from spiqa_demo.ui.serving.work.readers import READERS
from spiqa_demo.ui.serving.work.workers import Limits, Report

log = logging.getLogger(__name__)

WAITING = "Waiting for a free reader"
STARTING = "Starting the paper reader (the first paper after the app starts)"


def load_limits(settings: Settings) -> Limits:
    return Limits(settings.ui.ui_load_cpu_s, settings.ui.ui_worker_memory_mb, "SPIQA_UI_LOAD_CPU_S")


def _open(report: Report, pdf: Path, settings: Settings) -> Paper:
    """(In a worker) `pdf` opened as every paper is, its index saved beside its cache entry; the
    progress and the extracted paper (before it is indexed) reported."""
    opened = open_paper(pdf, settings, progress=lambda fraction, message: report(("progress", fraction, message)),
                        extracted=lambda paper, _: report(("extracted", paper)))
    return opened.paper


def extract(slot: int, pdf: Path, settings: Settings, progress: Progress, extracted: Callable[[Paper], None]) -> Paper:
    """`pdf` extracted and indexed by the worker process of `slot`; the index is saved for this process."""

    def hear(message: tuple[object, ...]) -> None:
        if message[0] == "progress":
            progress(*message[1:])  # type: ignore[arg-type]
        elif message[0] == "extracted":
            extracted(message[1])  # type: ignore[arg-type]

    if READERS[slot].starting:
        progress(0.0, STARTING)
    return READERS[slot].run(_open, (pdf, settings), f"{pdf.name}: reading it", load_limits(settings), hear)


def _extract_cited(report: Report, pdf: Path, settings: ExtractionSettings) -> Extracted:
    """(In a worker) a cited paper checked and extracted (not indexed), or why it cannot be."""
    return extract_one(pdf, settings)


def extract_cited(slot: int, pdf: Path, settings: Settings) -> Extracted:
    """A cited paper `pdf` checked and extracted by the worker process of `slot`."""
    try:
        return READERS[slot].run(_extract_cited, (pdf, settings.extraction), f"{pdf.name}: reading it",
                                  load_limits(settings))
    except PaperError as exc:
        return Extracted(pdf, error=str(exc))


def greeting(paper: Paper) -> str:
    title = inert(paper.title or paper.source)
    if not paper.items:
        return f"Loaded **{title}**, but no figures or tables were found in it. You can still ask; answers will have no figure to show."
    return (f"Loaded **{title}** ({paper.summary()}). Ask a question about its figures, tables and text; "
            "follow-up questions are read in the context of the chat.")


class PaperOwner(Protocol):
    """The visitor's session a load is for (a Paper tab's `Session`): the load it waits for, whether its
    crops show the reader's highlights, its chat (greeted when the paper is ready), and the switch to the paper."""

    load_job: PaperLoad | None
    annotations: bool
    history: History

    def load(self, paper: Paper, pdf: Path) -> object: ...


class PaperLoad:
    """One paper being fetched, read and indexed for a session, queued in `LOADS`.

    `paper` is set once the paper is extracted (its gallery can be shown), `done` once it is
    indexed or has failed (`error`, a message for people). The session switches to the paper only
    while this is still its latest load, so an older, slower load never replaces a newer one.
    `holds`: files the load needs while it waits (an upload), kept from cleanup meanwhile.
    """

    def __init__(self, fetch: Callable[[], Path], session: PaperOwner, holds: Sequence[Path] = ()) -> None:
        self.fraction, self.message = 0.0, WAITING
        self.paper: Paper | None = None
        self.error = ""
        self._done = threading.Event()
        # Set by the request that shows this load once its last update is sent (or the request is gone):
        # Gradio sends that update again as the request completes, so a chat changed before then is
        # overwritten by the load's copy. A question asked meanwhile waits for this (`chat._wait_for_paper`).
        self.reported = threading.Event()
        self._fetch, self._session = fetch, session
        self._name = ("load", id(self))  # what it holds in `storage.live`
        session.load_job = self
        storage.live.hold(id(session), self._name, holds)
        LOADS.submit(id(session), self)

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def waiting(self) -> bool:
        """Its progress says it waits for a reader (to be free, or to start)."""
        return self.message in (WAITING, STARTING)

    def waiting_message(self) -> str:
        """What the load is doing, with its place in the queue while it waits."""
        ahead = LOADS.ahead_of(self)
        return f"{WAITING} ({ahead} before this one)" if ahead else self.message

    def cancel(self) -> None:
        """The request that asked for it is gone: a load still waiting is dropped (a running one finishes)."""
        LOADS.cancel(self)

    def dropped(self, reason: str) -> None:
        self.error = as_sentence(f"this paper was not loaded: {reason}")
        storage.live.release(id(self._session), self._name)
        if self._session.load_job is self:
            self._session.load_job = None  # the previous paper stays
        self._done.set()

    def _progress(self, fraction: float, message: str) -> None:
        self.fraction, self.message = fraction, message

    def run(self, slot: int) -> None:
        session, owner = self._session, id(self._session)
        received: list[Path] = []  # what the app got for this load, deleted if it cannot be read
        try:
            received.append(self._fetch())
            settings = app_settings()
            settings = settings.model_copy(update={"extraction": settings.extraction.with_overrides(crop_annotations=session.annotations)})
            kept = storage.accept_upload(owner, self._name, received[0], settings)
            received.append(kept)
            extract(slot, kept, settings, self._progress, lambda paper: self._show(paper, kept, session, settings))
            opened = open_paper(kept, settings)  # the extraction from the cache, the index the worker saved
            received.clear()
            self._progress(1.0, f"Ready: {opened.paper.summary()}")
            if session.load_job is self:
                session.history.insert(0, {"role": "assistant", "content": greeting(opened.paper)})
        except Exception as exc:  # PaperError: bad input; anything else is a bug, but the app goes on
            if not isinstance(exc, PaperError):
                log.exception("loading a paper failed")
            self.error = as_sentence(str(exc) if isinstance(exc, PaperError)
                                     else f"something went wrong reading this file ({type(exc).__name__})")
        finally:
            storage.live.release(owner, self._name)
            for path in received:
                storage.discard(path)  # a rejected upload or download is not kept (unless a live session shows it)
            self._done.set()

    def _show(self, paper: Paper, pdf: Path, session: PaperOwner, settings: Settings) -> None:
        """The extracted paper, its crops served from the app's folder, shown while it is indexed."""
        published = storage.publish(paper, settings)
        if session.load_job is self:
            storage.live.hold(id(session), "paper", storage.paper_files(published, pdf, settings))
            session.load(published, pdf)
        self.paper = published
        storage.evict(settings)
