"""Figures and tables from regions: one item per label, each with the text inside its region (a
table's structure and its Markdown, the words in reading order for a figure).

Words are read here, only for pages that have items: they are most of the memory a long paper
would otherwise hold. Scanned pages' words come from OCR, and raster figures' and raster tables'
from `FigureOcr` when it is on: OCR'd words have boxes, so a table's rows and columns are laid out
from them as from a text layer.
"""

from __future__ import annotations

from spiqa_demo.extraction.captions import Caption
from spiqa_demo.extraction.figure_ocr import FigureOcr
from spiqa_demo.extraction.layout import PageFrame
from spiqa_demo.extraction.page_errors import MUPDF_ERRORS
from spiqa_demo.extraction.parts import PartStart, number_parts
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.regions import Region
from spiqa_demo.extraction.tables import Word, figure_text, page_words, region_words, table_structure
from spiqa_demo.types import Figure, round_bbox


def _deduplicate(regions: list[tuple[PageFrame, Region]]) -> list[tuple[PageFrame, Region]]:
    """One region per (kind, number), or per heading for a table captioned by one ("KEY RESOURCES
    TABLE", no number): the caption with the strongest caption evidence wins."""
    best: dict[tuple[str, str], tuple[float, PageFrame, Region]] = {}
    out = []
    for page, region in regions:
        caption = region.caption
        if caption is None:
            out.append((page, region))
            continue
        key = (caption.kind, caption.number or caption.label.upper())
        if key not in best or caption.score > best[key][0]:
            best[key] = (caption.score, page, region)
    return out + [(page, region) for _, page, region in best.values()]


def make_items(
    regions: list[tuple[PageFrame, Region]],
    doc: pymupdf.Document,
    text_words: dict[int, list[Word]],
    ocr_words: dict[int, list[Word]],
    figure_ocr: FigureOcr | None,
    part: PartStart | None = None,
) -> list[Figure]:
    """The items of `regions`, one per label, in page order from the top; those from `part.page`
    on are items of that part (their numbers restart there). Their words come from `ocr_words` on a
    page read by OCR, else from `text_words` (read with the page's layout), else from the page."""
    items = []
    words_of: dict[int, list[Word]] = text_words | ocr_words
    for page, region in _deduplicate(number_parts(regions, part)):
        caption: Caption | None = region.caption
        if page.number not in words_of:
            words_of[page.number] = _words(doc, page.number)
        # A legend printed on another page (`legends`) has no box on this one.
        caption_bbox = caption.bbox if caption is not None and caption.page == page.number else None
        words = region_words(words_of[page.number], region.bbox, caption_bbox)
        kind = caption.kind if caption else "figure"
        if figure_ocr is not None and page.number not in ocr_words:  # a table pasted as an image is read too
            words += figure_ocr.words(doc[page.number - 1], region.bbox, words)
        table = table_structure(words) if kind == "table" and words else None
        items.append(
            Figure(
                kind=kind,
                label=caption.label if caption else "",
                number=caption.number if caption else "",
                page=page.number,
                bbox=round_bbox(region.bbox),
                caption=caption.text if caption else "",
                caption_bbox=round_bbox(caption_bbox) if caption_bbox else None,
                text=table.to_markdown() if table is not None else figure_text(words),
                table=table,
                part=part.name if part is not None and page.number >= part.page else "",
            )
        )
    return sorted(items, key=lambda f: (f.page, f.bbox[1], f.bbox[0]))


def _words(doc: pymupdf.Document, number: int) -> list[Word]:
    """The words of page `number`, none when MuPDF cannot read them (the items keep their captions)."""
    try:
        return page_words(doc[number - 1])
    except MUPDF_ERRORS:
        return []
