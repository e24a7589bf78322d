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
