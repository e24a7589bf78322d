"""Opening a PDF safely, and the paper-level metadata read from it (hash, title, arXiv id).

Every way a user's file can be unusable (not a PDF, truncated, encrypted, empty, too large, too
many pages) becomes an `InputError` (a `PaperError`) with a message a person can act on.
"""

from __future__ import annotations

import re
from pathlib import Path

from spiqa_demo.errors import InputError
from spiqa_demo.extraction.layout import PageLayout, read_page
from spiqa_demo.extraction.page_errors import MUPDF_ERRORS, reason
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.paper_text import find_arxiv_id
from spiqa_demo.settings import ExtractionSettings

# A PDF says so in its first kilobyte (bytes read to check).
_HEAD_BYTES = 1024
# A metadata title longer than this (characters) that names no file is the real title.
_MIN_META_TITLE = 8
# Else the title is the largest text in this top share of page 1: lines of more than this many
# characters, within this many points of the largest size, at most this many of them.
_TITLE_AREA = 0.5
_MIN_TITLE_LINE = 3
_TITLE_SIZE_SLACK = 0.6
_MAX_TITLE_LINES = 4


def check_size(path: Path, settings: ExtractionSettings) -> None:
    """`InputError` when the file is over the size limit: checked before it is copied or opened."""
    size_mb = path.stat().st_size / 1e6
    if size_mb > settings.max_file_mb:
        raise InputError(f"{path.name}: {size_mb:.0f} MB is over the {settings.max_file_mb} MB limit (SPIQA_MAX_FILE_MB)")


def open_pdf(path: Path, settings: ExtractionSettings) -> pymupdf.Document:
    """Open `path` as a PDF or raise `InputError` saying why it cannot be used."""
    if not path.is_file():
        raise InputError(f"{path.name}: file not found")
    if path.stat().st_size == 0:
        raise InputError(f"{path.name}: the file is empty")
    check_size(path, settings)
    with path.open("rb") as fh:
        head = fh.read(_HEAD_BYTES)
    if b"%PDF-" not in head:
        raise InputError(f"{path.name}: not a PDF file")
    pymupdf.TOOLS.mupdf_display_errors(False)
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception as exc:  # MuPDF raises its own error types for damaged files
        raise InputError(f"{path.name}: the PDF is damaged and cannot be read ({reason(exc)})") from None
    if doc.needs_pass:
        doc.close()
        raise InputError(f"{path.name}: the PDF is password-protected; remove the password and upload it again")
    if doc.page_count == 0:
        doc.close()
        raise InputError(f"{path.name}: the PDF has no pages (it may be truncated)")
    if doc.page_count > settings.max_pages:
        count = doc.page_count
        doc.close()
        raise InputError(f"{path.name}: {count} pages is over the {settings.max_pages}-page limit (SPIQA_MAX_PAGES)")
    return doc


def read_arxiv_id(doc: pymupdf.Document, first_page_text: str, file_name: str) -> str | None:
    """The arXiv id (with version when printed) from the first page stamp, metadata or file name."""
    for text in (first_page_text, " ".join(str(v) for v in (doc.metadata or {}).values() if v)):
        if stamped := find_arxiv_id(text, stamped=True):
            return str(stamped)
    named = find_arxiv_id(file_name)
    return str(named) if named else None


def find_title(doc: pymupdf.Document, first: PageLayout) -> str:
    """The title: PDF metadata when it looks real, else the largest text in the upper half of page 1."""
    meta = (doc.metadata or {}).get("title", "").strip()
    if len(meta) > _MIN_META_TITLE and not re.search(r"\.(dvi|tex|pdf|docx?)$|^untitled|^microsoft", meta, re.IGNORECASE):
        return meta
    top = [(ln.text, ln.size) for ln in first.lines
           if ln.y0 < _TITLE_AREA * first.height and len(ln.text) > _MIN_TITLE_LINE and not ln.text.lower().startswith("arxiv")]
    if not top:
        return ""
    largest = max(size for _, size in top)
    parts = [text for text, size in top if abs(size - largest) < _TITLE_SIZE_SLACK]
    return " ".join(parts[:_MAX_TITLE_LINES]).strip()


def read_title(path: Path, settings: ExtractionSettings) -> str:
    """The title of `path` from its first page alone, for lists of papers that are not extracted yet.

    "" when the first page has no text layer or cannot be read; `InputError` when the file is not a
    usable PDF (as `open_pdf`).
    """
    doc = open_pdf(path, settings)
    try:
        return find_title(doc, read_page(doc[0]))
    except MUPDF_ERRORS:
        return ""
    finally:
        doc.close()
