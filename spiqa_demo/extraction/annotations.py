"""A reader's annotations (highlights, free-text notes, boxes, lines, ink, sticky notes) are not
paper content.

MuPDF runs a page's annotations together with its content for text, vector drawings and images, so
a note would be read as a line of the paper, a box drawn round a table cell as a figure, and a
highlight could merge with a caption. Extraction therefore removes them from its in-memory copy of
each page before reading it (the file is never changed). Links and form fields are the author's and
stay. Crops show the annotations only when asked (`SPIQA_CROP_ANNOTATIONS`): they are then rendered
from a second, untouched copy of the document.
"""

from __future__ import annotations

from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.settings import ExtractionSettings


def strip_annotations(page: pymupdf.Page) -> int:
    """Delete every annotation of `page` from the in-memory document; returns how many there were."""
    removed = 0
    # One pass per annotation at most: a deletion MuPDF refuses cannot loop forever.
    for _ in range(len(page.annot_xrefs())):
        annot = page.first_annot
        if annot is None:
            break
        page.delete_annot(annot)
        removed += 1
    return removed


def annotation_warnings(count: int, settings: ExtractionSettings) -> list[str]:
    """What the user is told about the `count` annotations removed, and whether the crops show them."""
    if not count:
        return []
    where = "kept in the figure images" if settings.crop_annotations else "left out of the figure images too"
    return [f"The PDF has {count} reader annotation{'s' if count > 1 else ''} (highlights, notes, drawings): "
            f"they were not read as part of the paper, and are {where}."]
