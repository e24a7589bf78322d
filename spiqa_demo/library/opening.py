"""Opening one paper: the file checked, a copy kept when the caller keeps one, the paper extracted
(or read from the extraction cache) and its figures and tables indexed (or the saved index loaded).

The single-paper twin of `PaperLibrary`, and the one way a paper is opened: the app, the CLI
commands and a library's anchor all come here, so each gets the same checks, the same caches and
the same messages, and the index a question needs is in the process's `IndexStore` by the time
the paper is open. The index is saved in the paper's extraction cache entry, so it is evicted
with it and another process finds it there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.errors import InputError
from spiqa_demo.extraction import load_paper
from spiqa_demo.extraction.cache import paper_cache_dir
from spiqa_demo.extraction.document import check_size
from spiqa_demo.settings import ExtractionSettings, Settings
from spiqa_demo.types import Paper, Progress

if TYPE_CHECKING:  # retrieval loads FAISS and BM25, which the extraction workers importing this package never need
    from retrieval.index import FigureIndex
    from retrieval.store import IndexStore

EXTRACTION_SHARE = 0.85  # of the progress: extraction; indexing takes the rest


@dataclass(frozen=True)
class Keeper:
    """How a caller keeps its own copy of each file it opens (the app keeps uploads, so a paper's
    pages can be shown after the upload is gone) and deletes a copy that turned out unreadable."""

    keep: Callable[[Path], Path]
    discard: Callable[[Path], None]


@dataclass(frozen=True)
class OpenedPaper:
    """An open paper: its extraction, the file it was read from (the kept copy when the caller keeps
    one) and its figure/table index."""

    paper: Paper
    pdf: Path
    index: FigureIndex


def check_file(path: Path, settings: ExtractionSettings) -> None:
    """`InputError` when `path` is plainly no paper to open: missing, not a PDF file, too large.
    Checked before the file is copied or read; what only reading shows (damaged, encrypted, too many
    pages) extraction says."""
    if not path.is_file():
        raise InputError(f"{path.name}: file not found")
    if path.suffix.lower() != ".pdf":
        raise InputError(f"{path.name}: only PDF files can be read (got a {path.suffix or 'file without extension'})")
    check_size(path, settings)


def _silent(fraction: float, message: str) -> None:
    return None


def open_paper(
    source: Path,
    settings: Settings,
    *,
    keep: Keeper | None = None,
    progress: Progress | None = None,
    extracted: Callable[[Paper, Path], None] | None = None,
    store: IndexStore | None = None,
) -> OpenedPaper:
    """Check `source`, keep a copy (`keep`), extract it or read it from the cache, then index it.

    `progress` hears `(fraction, message)`: extraction's own reports scaled to `EXTRACTION_SHARE`,
    then "Indexing N figures and tables". `extracted(paper, pdf)` is called between the two, so the
    app can show the figures while the index is built. `store`: the process's for `settings.retrieval`'s
    encoder by default.
    """
    report = progress or _silent
    check_file(source, settings.extraction)
    pdf = keep.keep(source) if keep is not None else source
    report(0.0, f"Opening {source.name}")
    try:
        paper = load_paper(pdf, settings.extraction, progress=lambda fraction, message: report(EXTRACTION_SHARE * fraction, message))
    except Exception:
        if keep is not None:
            keep.discard(pdf)  # a file that cannot be read is not kept
        raise
    if extracted is not None:
        extracted(paper, pdf)
    report(EXTRACTION_SHARE, f"Indexing {len(paper.items)} figures and tables")
    if store is None:
        from retrieval.embedder import get_embedder
        from retrieval.store import get_store

        store = get_store(get_embedder(settings.retrieval))
    return OpenedPaper(paper, pdf, store.figures(paper, _index_folder(paper, settings.extraction)))


def _index_folder(paper: Paper, settings: ExtractionSettings) -> Path | None:
    """The paper's extraction cache entry's `retrieval` folder; None when the entry is gone (evicted
    meanwhile), since a folder made there would be no finished entry and never be evicted."""
    entry = paper_cache_dir(paper, settings)
    return entry / "retrieval" if (entry / "paper.json").is_file() else None
