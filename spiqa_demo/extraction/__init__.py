"""PDF -> `Paper`: every figure and table with label, caption, page, boxes, crop, text and mentions,
and the bibliography with the citations of passages, figures and tables linked to it.

Public entry points:
- `extract_paper(pdf, image_dir=None)`: extract (crops written to `image_dir` when given);
- `extract_to_dir(pdf, out_dir)`: `out_dir/paper.json` + crops with relative paths (the CLI);
- `load_paper(pdf)`: the cached version the app and the other commands use.
Bad input raises `InputError` (a `PaperError`). A reader's annotations are not read as paper
content (`annotations`); a page MuPDF cannot read is skipped with a warning (`page_errors`).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from spiqa_demo.errors import InputError
from spiqa_demo.extraction import cache
from spiqa_demo.extraction.annotations import strip_annotations
from spiqa_demo.extraction.captions import Caption, find_captions
from spiqa_demo.extraction.citations import link_citations
from spiqa_demo.extraction.crops import CropWriter
from spiqa_demo.extraction.document import find_title, open_pdf, read_arxiv_id
from spiqa_demo.extraction.figure_ocr import FigureOcr
from spiqa_demo.extraction.layout import PageFrame, PageLayout, analyse_document, classify_page, read_page
from spiqa_demo.extraction.page_errors import MUPDF_ERRORS, PageFailures, reason
from spiqa_demo.extraction.passages import attach_mentions, page_passages
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.references import Row, find_references, page_rows
from spiqa_demo.extraction.regions import Region, caption_sides, find_regions, page_search
from spiqa_demo.extraction.scanned import ScanReader
from spiqa_demo.extraction.tables import Word, figure_text, page_words, region_words, table_markdown
from spiqa_demo.hashing import sha256_of
from spiqa_demo.settings import Settings, get_settings
from spiqa_demo.types import Figure, Paper, Progress, round_bbox

__all__ = ["EXTRACTOR_VERSION", "extract_paper", "extract_to_dir", "load_paper"]

# Bump when extraction output changes: cached papers of older versions are re-extracted.
EXTRACTOR_VERSION = "6"


def _noop(fraction: float, message: str) -> None:
    return None


def extract_paper(
    pdf: str | Path,
    image_dir: Path | None = None,
    dpi: int | None = None,
    progress: Progress | None = None,
    settings: Settings | None = None,
) -> Paper:
    """Extract `pdf` into a `Paper`; crops go to `image_dir` (absolute paths) when given.

    Crops show the reader's annotations when `settings.crop_annotations` is set; nothing else does.
    """
    settings = settings or get_settings()
    progress = progress or _noop
    dpi = dpi or settings.dpi
    path = Path(pdf)
    doc = open_pdf(path, settings)
    started = time.monotonic()
    failures = PageFailures()
    annotations = 0
    scans = ScanReader(settings)
    try:
        layouts: list[PageLayout] = []
        for index in range(doc.page_count):
            _check_time(started, settings, path)
            try:
                page = doc[index]
                annotations += strip_annotations(page)
                layouts.append(scans.read(page, read_page(page), started + settings.extraction_timeout_s))
            except MUPDF_ERRORS as exc:
                failures.unread[index + 1] = reason(exc)
                layouts.append(_blank_page(doc, index, layouts))
            pymupdf.TOOLS.store_shrink(100)  # MuPDF's object cache; keeps a 300-page file bounded
            progress(0.6 * len(layouts) / doc.page_count, f"Reading page {len(layouts)} of {doc.page_count}")
        if len(failures.unread) == doc.page_count:
            raise InputError(f"{path.name}: no page of the PDF could be read ({failures.unread[1]})")
        layout = analyse_document(layouts)
        summary = _summary(doc, layouts, unread=set(failures.unread))
        searches = []
        passages = []
        rows: list[Row] = []
        # Each page is dropped once searched: nothing after this loop reads glyph runs, and a
        # 300-page file need not hold them all.
        unsearched = deque(layouts)
        del layouts
        while unsearched:
            classified = classify_page(unsearched.popleft(), layout)
            searches.append(page_search(classified, layout, find_captions(classified, layout)))
            passages += page_passages(classified, layout)
            rows += page_rows(classified, layout)
        references = find_references(rows)
        sides = caption_sides(searches)
        regions = [(s.page, r) for s in searches for r in find_regions(s, sides)]
        if doc.is_repaired and not summary.readable:
            raise InputError(f"{path.name}: the PDF is damaged (truncated?) and nothing could be read from it")
        figure_ocr = _figure_ocr(scans, settings, started)
        items = _items(_deduplicate(regions), doc, scans.words, figure_ocr)
        attach_mentions(passages, items)
        passages, items = link_citations(passages, items, references)
        if image_dir is not None:
            _write_crops(items, image_dir, path, doc if not (settings.crop_annotations and annotations) else None,
                         dpi, settings, started, progress, failures)
        paper = Paper(
            sha256=sha256_of(path),
            source=path.name,
            title=summary.title,
            arxiv_id=read_arxiv_id(doc, summary.first_page_text, path.name),
            page_sizes=summary.page_sizes,
            passages=passages,
            items=items,
            references=references,
            warnings=scans.warnings() + _figure_ocr_warnings(figure_ocr, scans, settings) + _warnings(summary, items, doc.is_repaired)
            + _annotation_warnings(annotations, settings) + failures.warnings(),
            extractor_version=EXTRACTOR_VERSION,
            dpi=dpi,
        )
    except MUPDF_ERRORS as exc:  # outside any one page: the document itself is broken
        raise InputError(f"{path.name}: the PDF is damaged and cannot be read ({reason(exc)})") from None
    finally:
        doc.close()
    progress(1.0, paper.summary())
    return paper


def _write_crops(
    items: list[Figure],
    image_dir: Path,
    path: Path,
    stripped: pymupdf.Document | None,
    dpi: int,
    settings: Settings,
    started: float,
    progress: Progress,
    failures: PageFailures,
) -> None:
    """Render each item's crop from `stripped` (the document read, its annotations removed), or
    from a fresh copy of the file when None (the reader's annotations kept). An item MuPDF cannot
    render keeps no image and is named in the warnings."""
    image_dir.mkdir(parents=True, exist_ok=True)
    suffix = "-annotated" if settings.crop_annotations else ""
    doc = stripped or open_pdf(path, settings)
    try:
        with CropWriter(dpi, settings.max_crop_pixels) as crops:
            for n, item in enumerate(items, 1):
                _check_time(started, settings, path)
                progress(0.6 + 0.4 * n / len(items), f"Cropping {item.title} ({n} of {len(items)})")
                target = image_dir / f"{item.id}{suffix}.png"
                try:
                    item.image = str(crops.write(doc[item.page - 1], item.bbox, target, item.caption_bbox))
                except MUPDF_ERRORS as exc:
                    failures.uncropped[item.title] = reason(exc)
    finally:
        if doc is not stripped:
            doc.close()


def _blank_page(doc: pymupdf.Document, index: int, read: list[PageLayout]) -> PageLayout:
    """A page with nothing on it, in place of one MuPDF cannot read (page numbers stay right)."""
    try:
        rect = doc.page_cropbox(index)
        width, height = rect.width, rect.height
    except MUPDF_ERRORS:
        width, height = (read[-1].width, read[-1].height) if read else (612.0, 792.0)
    return PageLayout(index + 1, width, height, [], [], [])


def extract_to_dir(
    pdf: str | Path, out_dir: Path, dpi: int | None = None, progress: Progress | None = None, settings: Settings | None = None
) -> Paper:
    """Write `out_dir/paper.json` (image paths relative to `out_dir`) and `out_dir/crops/*.png`."""
    out_dir = Path(out_dir)
    paper = extract_paper(pdf, image_dir=out_dir / "crops", dpi=dpi, progress=progress, settings=settings)
    for item in paper.items:
        item.image = str(Path(item.image).relative_to(out_dir))
    (out_dir / "paper.json").write_text(paper.to_json(), encoding="utf-8")
    return paper


def load_paper(pdf: str | Path, progress: Progress | None = None, settings: Settings | None = None) -> Paper:
    """The `Paper` for `pdf` from the cache, extracting it on first use (image paths absolute)."""
    settings = settings or get_settings()
    path = Path(pdf)
    if not path.is_file():
        raise InputError(f"{path.name}: file not found")
    folder = cache.entry_dir(settings, sha256_of(path), EXTRACTOR_VERSION, settings.dpi)
    cached = cache.read_entry(folder)
    if cached is not None:
        return cached
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=folder.parent))
    try:
        extract_to_dir(path, staging, dpi=settings.dpi, progress=progress, settings=settings)
        paper = cache.commit(staging, folder, settings)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if paper is None:
        raise InputError(f"{path.name}: the extraction cache at {folder} is not writable")
    return paper


def _check_time(started: float, settings: Settings, path: Path) -> None:
    if time.monotonic() - started > settings.extraction_timeout_s:
        raise InputError(f"{path.name}: extraction took longer than {settings.extraction_timeout_s:.0f} s and was stopped")


def _deduplicate(regions: list[tuple[PageFrame, Region]]) -> list[tuple[PageFrame, Region]]:
    """One region per (kind, number): the caption with the strongest caption evidence wins."""
    best: dict[tuple[str, str], tuple[float, PageFrame, Region]] = {}
    out = []
    for page, region in regions:
        caption = region.caption
        if caption is None:
            out.append((page, region))
            continue
        key = (caption.kind, caption.number)
        if key not in best or caption.score > best[key][0]:
            best[key] = (caption.score, page, region)
    return out + [(page, region) for _, page, region in best.values()]


def _figure_ocr(scans: ScanReader, settings: Settings, started: float) -> FigureOcr | None:
    """The reader of raster figures when SPIQA_OCR_FIGURES is on and Tesseract can be used."""
    if not settings.ocr_figures or isinstance(engine := scans.engine(), str):
        return None
    return FigureOcr(engine, settings.ocr_dpi, settings.max_crop_pixels, started + settings.extraction_timeout_s)


def _figure_ocr_warnings(figure_ocr: FigureOcr | None, scans: ScanReader, settings: Settings) -> list[str]:
    if settings.ocr_figures and figure_ocr is None and isinstance(reason := scans.engine(), str):
        return [f"Text inside raster figures was not read (SPIQA_OCR_FIGURES): {reason}."]
    if figure_ocr is not None and figure_ocr.figures:
        return [f"Text inside {figure_ocr.figures} raster figures was read by OCR and may contain recognition errors."]
    return []


def _items(
    regions: list[tuple[PageFrame, Region]], doc: pymupdf.Document, ocr_words: dict[int, list[Word]], figure_ocr: FigureOcr | None
) -> list[Figure]:
    """Figures/tables from regions, with the words inside each (read only for pages with items:
    words are most of the memory a long paper would otherwise hold; scanned pages' come from OCR,
    and raster figures' from `figure_ocr` when given)."""
    items = []
    words_of: dict[int, list[Word]] = dict(ocr_words)
    for page, region in regions:
        caption: Caption | None = region.caption
        if page.number not in words_of:
            words_of[page.number] = _words(doc, page.number)
        words = region_words(words_of[page.number], region.bbox, caption.bbox if caption else None)
        kind = caption.kind if caption else "figure"
        if kind == "figure" and figure_ocr is not None and page.number not in ocr_words:
            words += figure_ocr.words(doc[page.number - 1], region.bbox, words)
        items.append(
            Figure(
                kind=kind,
                label=caption.label if caption else "",
                number=caption.number if caption else "",
                page=page.number,
                bbox=round_bbox(region.bbox),
                caption=caption.text if caption else "",
                caption_bbox=round_bbox(caption.bbox) if caption else None,
                text=table_markdown(words) if kind == "table" else figure_text(words),
            )
        )
    return sorted(items, key=lambda f: (f.page, f.bbox[1], f.bbox[0]))


def _words(doc: pymupdf.Document, number: int) -> list[Word]:
    """The words of page `number`, none when MuPDF cannot read them (the items keep their captions)."""
    try:
        return page_words(doc[number - 1])
    except MUPDF_ERRORS:
        return []


@dataclass(frozen=True)
class _Summary:
    """What the `Paper` needs of the pages besides their figures and passages, taken before the
    glyph runs are freed: page sizes, the title, the first page's text (arXiv id) and text coverage."""

    page_sizes: list[tuple[float, float]]
    title: str
    first_page_text: str
    textless: int  # pages without a text layer
    readable: bool  # any page has text or graphics


def _summary(doc: pymupdf.Document, layouts: list[PageLayout], unread: set[int]) -> _Summary:
    """`unread`: pages MuPDF could not read (blank here, and not counted as pages without text)."""
    first = layouts[0]
    return _Summary(
        page_sizes=[(p.width, p.height) for p in layouts],
        title=find_title(doc, first),
        first_page_text=" ".join(ln.text for ln in first.lines),
        textless=sum(1 for p in layouts if not p.has_text and p.number not in unread),
        readable=any(p.has_text or p.images or p.drawings for p in layouts),
    )


def _annotation_warnings(count: int, settings: Settings) -> list[str]:
    if not count:
        return []
    where = "kept in the figure images" if settings.crop_annotations else "left out of the figure images too"
    return [f"The PDF has {count} reader annotation{'s' if count > 1 else ''} (highlights, notes, drawings): "
            f"they were not read as part of the paper, and are {where}."]


def _warnings(summary: _Summary, items: list[Figure], repaired: bool) -> list[str]:
    warnings = ["The PDF was damaged and has been repaired; some content may be missing."] if repaired else []
    textless, pages = summary.textless, len(summary.page_sizes)
    if textless == pages:
        warnings.append("The PDF has no text layer (a scan?): captions and passages could not be read; page images were kept as unlabelled figures.")
    elif textless:
        warnings.append(f"{textless} of {pages} pages have no text layer; their captions could not be read.")
    if not items:
        warnings.append("No figures or tables were found in this paper.")
    return warnings
