"""What the `Paper` says of the pages besides their figures and passages: page sizes, title, the
first page's text (for the arXiv id), text coverage, and the warnings these call for.

It is taken right after the pages are read, before region search frees their glyph runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spiqa_demo.extraction.document import find_title
from spiqa_demo.extraction.layout import PageLayout
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.types import Figure


@dataclass(frozen=True)
class PagesSummary:
    """The pages, summed up for the `Paper`."""

    page_sizes: list[tuple[float, float]]
    title: str
    first_page_text: str
    textless: int  # pages without a text layer
    readable: bool  # any page has text or graphics


def summarise(doc: pymupdf.Document, pages: Sequence[PageLayout], unread: set[int]) -> PagesSummary:
    """`unread`: pages MuPDF could not read (blank here, and not counted as pages without text)."""
    first = pages[0]
    return PagesSummary(
        page_sizes=[(p.width, p.height) for p in pages],
        title=find_title(doc, first),
        first_page_text=" ".join(ln.text for ln in first.lines),
        textless=sum(1 for p in pages if not p.has_text and p.number not in unread),
        readable=any(p.has_text or p.images or p.drawings for p in pages),
    )


def content_warnings(summary: PagesSummary, items: list[Figure], repaired: bool) -> list[str]:
    """A repaired file, pages without text, and a paper where nothing was found."""
    warnings = ["The PDF was damaged and has been repaired; some content may be missing."] if repaired else []
    textless, pages = summary.textless, len(summary.page_sizes)
    if textless == pages:
        warnings.append("The PDF has no text layer (a scan?): captions and passages could not be read; page images were kept as unlabelled figures.")
    elif textless:
        warnings.append(f"{textless} of {pages} pages have no text layer; their captions could not be read.")
    if not items:
        warnings.append("No figures or tables were found in this paper.")
    return warnings
