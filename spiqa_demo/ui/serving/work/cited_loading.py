"""Add cited papers to a session's library in the background, with progress.

Like a paper load (`loading.PaperLoad`), the work runs in a thread pool, not in the request: a
cancelled request still finishes adding, and a question asked meanwhile waits for it. Uploads are
checked and kept under the app's upload folder (so their pages can be shown later), within the
session's upload quota and held for the session while it lives; arXiv ids are downloaded there.
The PDFs are read one by one in the paper loads' queue and worker processes (`pools.LOADS`),
within a paper load's processor time and memory, in turn with every session's loads, and progress
counts each file as it is read. A file that fails leaves its message (and its kept
copy is deleted); the others are added all the same.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable, Sequence
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.library import Notice, PaperLibrary, check_file
from spiqa_demo.library.parallel import Extracted
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.files import storage
from spiqa_demo.ui.serving.messages import as_sentence, public_name
from spiqa_demo.ui.serving.work.loading import extract_cited
from spiqa_demo.ui.serving.work.pools import CITED_ADDS, LOADS

log = logging.getLogger(__name__)

CITED = "cited"  # what a session's cited papers are held under in `storage.live`


class CitedExtraction:
    """One cited PDF read in `pools.LOADS` (a job of its queue, in turn with every session's loads)."""

    def __init__(self, pdf: Path) -> None:
        self.pdf = pdf
        self.outcome = Extracted(pdf, error=f"{pdf.name}: not read")
        self._done = threading.Event()

    def run(self, slot: int) -> None:
        try:
            self.outcome = extract_cited(slot, self.pdf, app_settings())
        finally:
            self._done.set()

    def dropped(self, reason: str) -> None:
        self.outcome = Extracted(self.pdf, error=f"{self.pdf.name}: not read: {reason}")
        self._done.set()

    def wait(self) -> Extracted:
        self._done.wait()
        return self.outcome


class CitedLoad:
    """Cited PDFs and arXiv ids being added to one library; `notices` say what went wrong, per input.

    A load waits for the previous load of the same session (`after`), so two never change the
    library at once.
    """

    def __init__(self, library: PaperLibrary, files: Sequence[Path], arxiv_ids: Sequence[str],
                 owner: Hashable, after: CitedLoad | None = None) -> None:
        self.fraction, self.message = 0.0, "Waiting for a free reader"
        self.notices: list[Notice] = []
        self.added: list[str] = []  # origins of the papers this load added
        self._done = threading.Event()
        self._owner = owner  # the session: the kept PDFs count against its quota and are held for it
        CITED_ADDS.submit(self._run, library, list(files), list(arxiv_ids), after)

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    def messages(self) -> list[str]:
        """The notices as sentences for people, naming files without the server's folders."""
        out = []
        for notice in self.notices:
            text = notice.message
            if notice.source and not notice.source.startswith("arXiv:"):
                text = text.replace(notice.source, public_name(notice.source))
            out.append(as_sentence(text.replace(str(storage.uploads_dir()) + "/", "")))
        return out

    def _run(self, library: PaperLibrary, files: list[Path], arxiv_ids: list[str], after: CitedLoad | None) -> None:
        try:
            if after is not None:
                after.wait()
            kept = self._fetch(files, arxiv_ids)
            before = {p.origin for p in library.papers}
            read: list[Path] = []

            def finished(path: Path) -> None:  # progress moves as each paper is read, in the order they finish
                read.append(path)
                self.fraction = len(read) / len(kept)
                self.message = f"Read {public_name(str(path))} ({len(read)} of {len(kept)})"

            if kept:
                self.message = f"Reading {len(kept)} paper{'s' if len(kept) > 1 else ''}"
            notices = library.add_pdfs(kept, finished=finished, extract=self._extract)
            self.notices += notices
            for notice in notices:
                if notice.kind == "failed":
                    storage.reject(self._owner, CITED, Path(notice.source))
            self.added = [p.origin for p in library.papers if p.origin not in before]
            self.fraction, self.message = 1.0, f"Added {len(self.added)} of {len(files) + len(arxiv_ids)} papers"
        except Exception as exc:  # a bug must not leave the session waiting for ever
            log.exception("adding cited papers failed")
            self.notices.append(Notice("", "failed", f"something went wrong adding the papers ({type(exc).__name__})"))
        finally:
            self._done.set()

    def _extract(self, pdf: Path) -> Extracted:
        """`pdf` read by a paper reader's worker process, within a paper load's limits."""
        job = CitedExtraction(pdf)
        LOADS.submit((self._owner, CITED), job)  # one at a time per session, beside its own paper's load
        return job.wait()

    def _fetch(self, files: list[Path], arxiv_ids: list[str]) -> list[Path]:
        """The app's kept copies of the uploads and of the downloaded arXiv papers that can be read."""
        from spiqa_demo.arxiv import download_arxiv_pdf

        kept = []
        for path in files:
            try:
                check_file(path, app_settings().extraction)
                kept.append(storage.accept_upload(self._owner, CITED, path))
            except PaperError as exc:
                self.notices.append(Notice(path.name, "failed", str(exc)))
        for text in arxiv_ids:
            self.message = f"Downloading {text} from arXiv"
            try:
                download = download_arxiv_pdf(text, storage.ui_root() / "downloads", app_settings().extraction)
            except PaperError as exc:
                self.notices.append(Notice(text, "failed", str(exc)))
                continue
            try:
                kept.append(storage.accept_upload(self._owner, CITED, download))
            except PaperError as exc:
                self.notices.append(Notice(text, "failed", str(exc)))
            storage.discard(download)
        return kept
