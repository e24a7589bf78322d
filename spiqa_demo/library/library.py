"""`PaperLibrary`: an anchor paper and the cited papers a user provides, matched to its references.

The anchor is opened as any single paper is (`open_paper`), its figures indexed. Papers come as
PDF paths, folders of PDFs or arXiv ids (`add`); they are extracted in parallel through the
extraction cache (`parallel`) and matched to the anchor's bibliography (`matching`); their passages
are searched through the library's `IndexStore` (`passages`; keys are the PDFs' sha256).
Bad input never stops the others: the same PDF twice is kept once, a file that cannot be read or
downloaded and an anchor without a bibliography each leave a `Notice`, and a provided paper that
matches no reference is kept and listed by `unmatched()`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.arxiv import download_arxiv_pdf, parse_arxiv_id
from spiqa_demo.errors import PaperError
from spiqa_demo.hashing import sha256_of
from spiqa_demo.library.matching import match_references
from spiqa_demo.library.opening import open_paper
from spiqa_demo.library.parallel import Extracted, extract_all
from spiqa_demo.library.records import Availability, LibraryPaper, Notice
from spiqa_demo.library.sources import sort_sources
from spiqa_demo.settings import Settings
from spiqa_demo.types import Paper

if TYPE_CHECKING:  # retrieval loads FAISS and BM25, which the extraction workers importing this package never need
    from retrieval.passage_index import PassageIndex
    from retrieval.store import IndexStore


class PaperLibrary:
    """The anchor `Paper`, the provided papers (`papers`) and what was noticed on the way (`notices`);
    `store` holds their indexes (the process's by default, so the anchor's is the one opening it built)."""

    def __init__(
        self, anchor: Paper, settings: Settings, anchor_origin: str = "", store: IndexStore | None = None
    ) -> None:
        from retrieval.embedder import get_embedder
        from retrieval.store import get_store

        self.anchor = anchor
        self.anchor_origin = anchor_origin or anchor.source
        self.settings = settings
        self.store = store or get_store(get_embedder(settings.retrieval))
        self.papers: list[LibraryPaper] = []
        self.notices: list[Notice] = []
        if not anchor.references:
            self.notices.append(
                Notice(self.anchor_origin, "no-bibliography",
                       f"{anchor.source}: no bibliography was found, so no provided paper can be matched to a reference")
            )  # fmt: skip

    @classmethod
    def open(cls, anchor_pdf: str | Path, settings: Settings, store: IndexStore | None = None) -> PaperLibrary:
        """A library around the anchor PDF, opened as any single paper is (`open_paper`: checked,
        extracted through the cache, its figures indexed for the questions asked about them);
        PaperError when unreadable."""
        opened = open_paper(Path(anchor_pdf), settings, store=store)
        return cls(opened.paper, settings, str(anchor_pdf), store)

    def add(self, arguments: Sequence[str | Path], workers: int | None = None) -> list[Notice]:
        """Add PDF paths, folders of PDFs and arXiv ids; the notices of this call (also kept in `notices`)."""
        sources = sort_sources(arguments)
        self.notices += sources.notices
        notices = list(sources.notices)
        notices += self.add_pdfs(sources.pdfs, workers)
        notices += self.add_arxiv(sources.arxiv_ids, workers)
        return notices

    def add_pdfs(self, paths: Sequence[str | Path], workers: int | None = None,
                 finished: Callable[[Path], None] | None = None,
                 extract: Callable[[Path], Extracted] | None = None) -> list[Notice]:
        """Add PDF files (extracted in parallel, or one by one by `extract` when given; `finished` is told
        of each as it is read); the notices of this call."""
        return self._add_files([(Path(p), str(p)) for p in paths], workers, finished, extract)

    def add_arxiv(self, ids: Sequence[str], workers: int | None = None) -> list[Notice]:
        """Download and add arXiv papers; without a network each id gets a one-line notice."""
        notices: list[Notice] = []
        files: list[tuple[Path, str]] = []
        with tempfile.TemporaryDirectory(prefix="spiqa-arxiv-") as folder:
            for text in ids:
                try:
                    origin = f"arXiv:{parse_arxiv_id(text)}"
                    files.append((download_arxiv_pdf(text, Path(folder), self.settings.extraction), origin))
                except PaperError as exc:
                    notices.append(Notice(text, "failed", str(exc)))
            self.notices += notices
            # Extracted before the folder goes: the papers live on in the extraction cache.
            return notices + self._add_files(files, workers)

    def _add_files(self, files: list[tuple[Path, str]], workers: int | None,
                   finished: Callable[[Path], None] | None = None,
                   extract: Callable[[Path], Extracted] | None = None) -> list[Notice]:
        held = {self.anchor.sha256: self.anchor_origin, **{p.key: p.origin for p in self.papers}}
        notices: list[Notice] = []
        fresh: list[tuple[Path, str]] = []
        for path, origin in files:
            try:
                digest = sha256_of(path)
            except OSError as exc:
                notices.append(Notice(origin, "failed", f"{path.name}: cannot be read ({exc.strerror or exc})"))
                continue
            if digest in held:
                notices.append(Notice(origin, "duplicate", f"{origin}: the same PDF as {held[digest]}; kept once"))
                continue
            held[digest] = origin
            fresh.append((path, origin))
        for (_, origin), outcome in zip(fresh, extract_all([p for p, _ in fresh], self.settings.extraction, workers, finished,
                                                                 extract)):
            if outcome.paper is None:
                notices.append(Notice(origin, "failed", outcome.error or f"{origin}: extraction failed"))
            else:
                self.papers.append(LibraryPaper(outcome.paper, origin))
        self.notices += notices
        return notices

    def availability(self) -> list[Availability]:
        """Every reference of the anchor, with the provided paper that holds it (or None)."""
        return match_references(self.anchor.references, self.papers)

    def unmatched(self) -> list[LibraryPaper]:
        """Provided papers that match no reference of the anchor (kept in the library all the same)."""
        matched = {a.paper for a in self.availability()}
        return [p for p in self.papers if p.key not in matched]

    def passages(self, keys: Sequence[str]) -> PassageIndex:
        """BM25 over the passages of the library's papers that `keys` name (the anchor's sha256, the
        provided papers' keys), searched whole or per paper; built once per set of papers (`store`)."""
        held = {self.anchor.sha256: self.anchor, **{p.key: p.paper for p in self.papers}}
        return self.store.passages({key: paper for key, paper in held.items() if key in keys})
