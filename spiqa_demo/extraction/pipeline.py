"""PDF -> `Paper` as a sequence of named stages, each one call here and its work in a module of its
own (pdffigures2's `FigureExtractor`):

1. `read_pages`: each page parsed once (`layout.read_page`) after a reader's annotations are
   removed (`annotations`); a file with an image over `SPIQA_MAX_IMAGE_PIXELS` is refused before
   any image is decoded (`pixels`); a scanned page is read by OCR (`scanned`), one MuPDF cannot
   read is left blank (`page_errors`);
2. `analyse_document` (`layout`): body font size, text columns and running lines over all pages;
3. `search_pages`, page by page: body text (`layout.classify_page`), captions (`captions`), the
   page's region search (`regions`), its passages (`passages`: paragraphs, a double-spaced
   manuscript's lines joined) and bibliography rows (`references`); a page's glyph runs are dropped
   once it is searched, so a long paper is held one page at a time;
4. `find_all_regions`: each caption's region, with the side the paper sets content on (`regions`),
   and legends printed on another page than their figure paired with it (`legends`);
5. `make_items` (`items`): one figure or table per label, with its text (`tables`, `figure_ocr`),
   numbered in its part where a supplement numbers from 1 again (`parts`);
6. mentions and citations: the bibliography's entries left out of the passages
   (`passages.outside_bibliography`), the sentences citing each item (`passages.attach_mentions`)
   and the references each passage, item and mention cites (`references`, `citations`);
7. `write_crops` (`crops`): each item's PNG, when an image folder is given.

Every stage reports what it found to a `debug.StageLog`; with `debug_dir` that is a `VisualLog`,
drawn over the pages afterwards (`debug_view`), otherwise one that keeps nothing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path

from spiqa_demo.errors import InputError
from spiqa_demo.extraction.annotations import annotation_warnings, strip_annotations
from spiqa_demo.extraction.captions import find_captions
from spiqa_demo.extraction.citations import link_citations
from spiqa_demo.extraction.crops import write_crops
from spiqa_demo.extraction.deadline import Deadline
from spiqa_demo.extraction.debug import StageLog, VisualLog
from spiqa_demo.extraction.debug_view import draw_pages
from spiqa_demo.extraction.document import open_pdf, read_arxiv_id
from spiqa_demo.extraction.figure_ocr import figure_ocr_warnings, figure_reader
from spiqa_demo.extraction.items import make_items
from spiqa_demo.extraction.layout import DocumentLayout, PageFrame, PageLayout, analyse_document, classify_page, read_page
from spiqa_demo.extraction.legends import pair_legends
from spiqa_demo.extraction.page_errors import MUPDF_ERRORS, PageFailures, blank_page, reason
from spiqa_demo.extraction.parts import find_part_start, page_part_name
from spiqa_demo.extraction.passages import attach_mentions, outside_bibliography, page_passages
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.pixels import ImageTooLarge
from spiqa_demo.extraction.references import Row, find_references, page_rows
from spiqa_demo.extraction.regions import PageSearch, Region, caption_sides, find_regions, page_search
from spiqa_demo.extraction.scanned import ScanReader
from spiqa_demo.extraction.summary import content_warnings, summarise
from spiqa_demo.extraction.tables import Word
from spiqa_demo.hashing import sha256_of
from spiqa_demo.settings import ExtractionSettings
from spiqa_demo.types import Paper, Passage, Progress

# Bump when extraction output changes: cached papers of older versions are re-extracted.
EXTRACTOR_VERSION = "20"

# The share of the progress bar reading the pages takes; cropping takes the rest (searching and
# linking are quick next to either).
_READING_SHARE = 0.6
# How far MuPDF's object cache is shrunk after each page (percent): keeps a 300-page file bounded.
_STORE_SHRINK_PERCENT = 100


def _noop(fraction: float, message: str) -> None:
    return None


def extract_paper(
    pdf: str | Path,
    image_dir: Path | None = None,
    dpi: int | None = None,
    progress: Progress | None = None,
    settings: ExtractionSettings | None = None,
    debug_dir: Path | None = None,
) -> Paper:
    """Extract `pdf` into a `Paper`; crops go to `image_dir` (absolute paths) when given, and a
    picture of each page with every stage's boxes to `debug_dir` when given (`debug_view`).

    Crops show the reader's annotations when `settings.crop_annotations` is set; nothing else does.
    """
    settings = settings or ExtractionSettings()
    progress = progress or _noop
    dpi = dpi or settings.dpi
    path = Path(pdf)
    doc = open_pdf(path, settings)
    deadline = Deadline(path, settings.extraction_timeout_s)
    failures = PageFailures()
    scans = ScanReader(settings)
    log = VisualLog(debug_dir) if debug_dir is not None else StageLog()
    try:
        pages, annotations = read_pages(doc, scans, deadline, failures, _part(progress, 0.0, _READING_SHARE))
        if len(failures.unread) == doc.page_count:
            raise InputError(f"{path.name}: no page of the PDF could be read ({failures.unread[1]})")
        layout = analyse_document(pages)
        log.document(layout)
        summary = summarise(doc, pages, unread=set(failures.unread))
        searched = search_pages(pages, layout, log)
        references = find_references(searched.rows)
        regions = find_all_regions(searched.searches, log)
        if doc.is_repaired and not summary.readable:
            raise InputError(f"{path.name}: the PDF is damaged (truncated?) and nothing could be read from it")
        figure_ocr = figure_reader(scans, settings, deadline.at)
        part = find_part_start(regions, searched.part_names)
        items = make_items(regions, doc, searched.words, scans.words, figure_ocr, part)
        body = outside_bibliography(searched.passages, references)
        attach_mentions(body, items, part.page if part is not None else None)
        passages, items = link_citations(body, items, references)
        log.items(items)
        log.passages(passages)
        if image_dir is not None:
            stripped = doc if not (settings.crop_annotations and annotations) else None
            write_crops(items, image_dir, path, stripped, dpi, settings, deadline,
                        _part(progress, _READING_SHARE, 1 - _READING_SHARE), failures)
        if isinstance(log, VisualLog):
            draw_pages(doc, log, settings.max_crop_pixels)
        paper = Paper(
            sha256=sha256_of(path),
            source=path.name,
            title=summary.title,
            arxiv_id=read_arxiv_id(doc, summary.first_page_text, path.name),
            page_sizes=summary.page_sizes,
            passages=passages,
            items=items,
            references=references,
            warnings=scans.warnings() + figure_ocr_warnings(figure_ocr, scans, settings)
            + content_warnings(summary, items, doc.is_repaired) + annotation_warnings(annotations, settings)
            + failures.warnings(),
            extractor_version=EXTRACTOR_VERSION,
            dpi=dpi,
        )
    except MUPDF_ERRORS as exc:  # outside any one page: the document itself is broken
        raise InputError(f"{path.name}: the PDF is damaged and cannot be read ({reason(exc)})") from None
    finally:
        doc.close()
    progress(1.0, paper.summary())
    return paper


def extract_to_dir(
    pdf: str | Path,
    out_dir: Path,
    dpi: int | None = None,
    progress: Progress | None = None,
    settings: ExtractionSettings | None = None,
    debug_dir: Path | None = None,
) -> Paper:
    """Write `out_dir/paper.json` (image paths relative to `out_dir`) and `out_dir/crops/*.png`
    (and the debug view to `debug_dir`, as `extract_paper` does)."""
    out_dir = Path(out_dir)
    paper = extract_paper(pdf, image_dir=out_dir / "crops", dpi=dpi, progress=progress, settings=settings, debug_dir=debug_dir)
    for item in paper.items:
        item.image = str(Path(item.image).relative_to(out_dir))
    (out_dir / "paper.json").write_text(paper.to_json(), encoding="utf-8")
    return paper


# -- the stages ----------------------------------------------------------------------------------


def read_pages(
    doc: pymupdf.Document, scans: ScanReader, deadline: Deadline, failures: PageFailures, progress: Progress
) -> tuple[deque[PageLayout], int]:
    """Stage 1: every page's layout, in a queue that `search_pages` empties, and how many reader
    annotations were removed; pages MuPDF cannot read are blank, and named in `failures`."""
    pages: deque[PageLayout] = deque()
    annotations = 0
    for index in range(doc.page_count):
        deadline.check()
        try:
            page = doc[index]
            annotations += strip_annotations(page)
            pages.append(scans.read(page, read_page(page, scans.settings.max_image_pixels), deadline.at))
        except ImageTooLarge as exc:  # before anything decoded it: the file is refused, not left half-read
            raise InputError(f"{deadline.path.name}: {exc}") from None
        except MUPDF_ERRORS as exc:
            failures.unread[index + 1] = reason(exc)
            pages.append(blank_page(doc, index, pages))
        pymupdf.TOOLS.store_shrink(_STORE_SHRINK_PERCENT)
        progress(len(pages) / doc.page_count, f"Reading page {len(pages)} of {doc.page_count}")
    return pages, annotations


@dataclass
class Searched:
    """What `search_pages` keeps of the pages: each page's region search (no glyph runs), the
    passages in reading order, the text rows the bibliography is read from, the pages that name
    a part of the paper (a supplement's heading) and the words of the pages with a caption."""

    searches: list[PageSearch]
    passages: list[Passage]
    rows: list[Row]
    part_names: dict[int, str]  # the part a page's heading names (`parts.page_part_name`)
    # The words read with a page that has a caption (`PageLayout.words`), for its items' text;
    # `make_items` reads any other page's words again.
    words: dict[int, list[Word]]


def search_pages(pages: deque[PageLayout], layout: DocumentLayout, log: StageLog) -> Searched:
    """Stage 3, one page at a time (each is dropped from `pages` once searched): body text, captions,
    the region search, passages and bibliography rows."""
    searched = Searched([], [], [], {}, {})
    while pages:
        page = classify_page(pages.popleft(), layout)
        log.page(page)
        captions = find_captions(page, layout)
        log.captions(page.number, captions)
        searched.searches.append(page_search(page, layout, captions))
        if captions and page.words:  # none read for a caption that opens with no label ("KEY RESOURCES TABLE")
            searched.words[page.number] = page.words
        searched.passages += page_passages(page, layout)
        searched.rows += page_rows(page, layout)
        if (name := page_part_name(page)) is not None:
            searched.part_names[page.number] = name
    return searched


def find_all_regions(searches: list[PageSearch], log: StageLog) -> list[tuple[PageFrame, Region]]:
    """Stage 4: every caption's region and the unlabelled figures, on each page, once the paper's
    caption sides are known (a vote over all pages); then legends printed apart from their figures
    are paired with them (`legends`)."""
    sides = caption_sides(searches)
    for search in searches:
        log.candidates(search, sides)
    regions = pair_legends(searches, [(s.page, r) for s in searches for r in find_regions(s, sides)])
    log.regions(regions)
    return regions


def _part(progress: Progress, start: float, share: float) -> Progress:
    """`progress` for one stage: its fractions 0-1 become `start` to `start + share` of the whole."""
    return lambda fraction, message: progress(start + share * fraction, message)
