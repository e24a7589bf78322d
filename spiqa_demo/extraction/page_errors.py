"""MuPDF's errors on a page are bad input, not bugs.

A hostile or broken page (a content stream nesting graphics states thousands deep, a damaged object
or font) makes MuPDF raise while it is read or rendered. Such a page is skipped and named in the
paper's warnings; a paper none of whose pages can be read is refused with an `InputError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from spiqa_demo.extraction.layout import PageLayout
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.paper_text import one_line

# PyMuPDF's compiled layer re-raises MuPDF errors as RuntimeError ("code=5: too many nested graphics
# states"), its Python layer as FzErrorBase subclasses; extraction's own code raises neither.
MUPDF_ERRORS: tuple[type[Exception], ...] = (RuntimeError, pymupdf.mupdf.FzErrorBase)

_MAX_REASON_CHARS = 120
# The size of a page (pt) that neither the file nor a page before it tells: US Letter.
_LETTER = (612.0, 792.0)


def reason(exc: BaseException) -> str:
    """MuPDF's message in one short line, without its numeric error code."""
    text = " ".join(str(exc).split())
    if text.startswith("code=") and ": " in text:
        text = text.split(": ", 1)[1]
    text = text or type(exc).__name__
    return one_line(text, _MAX_REASON_CHARS)


@dataclass
class PageFailures:
    """Pages that could not be read, and items whose crop could not be rendered, with MuPDF's reasons."""

    unread: dict[int, str] = field(default_factory=dict)  # 1-based page -> reason
    uncropped: dict[str, str] = field(default_factory=dict)  # item title -> reason

    def warnings(self) -> list[str]:
        out = []
        if self.unread:
            pages = sorted(self.unread)
            which = f"Page {pages[0]}" if len(pages) == 1 else "Pages " + _listing([str(p) for p in pages])
            verb = "was" if len(pages) == 1 else "were"
            out.append(f"{which} could not be read ({self.unread[pages[0]]}) and {verb} skipped.")
        if self.uncropped:
            titles = sorted(self.uncropped)
            first = self.uncropped[titles[0]]
            out.append(f"The image of {_listing(titles)} could not be rendered ({first}).")
        return out


def blank_page(doc: pymupdf.Document, index: int, read: Sequence[PageLayout]) -> PageLayout:
    """A page with nothing on it, in place of one MuPDF cannot read (page numbers stay right); its
    size is the file's for it, else the page's before it."""
    try:
        rect = doc.page_cropbox(index)
        width, height = rect.width, rect.height
    except MUPDF_ERRORS:
        width, height = (read[-1].width, read[-1].height) if read else _LETTER
    return PageLayout(index + 1, width, height, [], [], [])


def _listing(names: list[str], shown: int = 8) -> str:
    if len(names) > shown:
        return ", ".join(names[:shown]) + f" and {len(names) - shown} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
