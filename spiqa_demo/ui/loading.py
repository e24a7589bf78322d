"""Open a paper for the app: keep a copy, extract it (cached), then index it for questions.

The two steps are separate so the gallery can be shown while the index is built. Progress is
reported as `(fraction, message)` with counts ("Reading page 3 of 12", "Cropping Figure 2 (2 of
9)", "Indexing 9 figures and tables"); bad input raises `PaperError`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Paper
from spiqa_demo.ui import storage

Progress = Callable[[float, str], None]

EXTRACTION_SHARE = 0.85  # of the progress bar; indexing takes the rest


def check_upload(path: Path) -> None:
    """Refuse what is obviously not a paper before copying it anywhere."""
    settings = get_settings()
    if not path.is_file():
        raise PaperError("the upload did not arrive; try again")
    if path.suffix.lower() != ".pdf":
        raise PaperError(f"{path.name}: only PDF files can be read (got a {path.suffix or 'file without extension'})")
    size_mb = path.stat().st_size / 1e6
    if size_mb > settings.max_file_mb:
        raise PaperError(f"{path.name}: {size_mb:.0f} MB is over the {settings.max_file_mb} MB limit")


def index_paper(paper: Paper) -> None:
    """Build (or fetch from memory) the paper's retrieval index, so the first question is fast.

    The QA flows keep one index per paper in memory (`spiqa_demo.qa.shortlist`); it is built there.
    """
    if not paper.items:
        return
    from spiqa_demo.qa.shortlist import build_index

    build_index(paper)


def extract(source: Path, progress: Progress) -> tuple[Paper, Path]:
    """`(paper, the app's copy of the PDF)` for an uploaded or downloaded file (not yet indexed)."""
    from spiqa_demo.extraction import load_paper

    check_upload(source)
    pdf = storage.keep_upload(source)
    progress(0.0, f"Opening {source.name}")
    paper = load_paper(pdf, progress=lambda fraction, message: progress(EXTRACTION_SHARE * fraction, message))
    progress(EXTRACTION_SHARE, f"Indexing {len(paper.items)} figures and tables")
    return paper, pdf
