"""Scanned pages: a page that is one full-page image with no text layer is read by OCR.

The OCR words become the same `PageLayout` a text page gives (Tesseract's paragraphs as blocks,
its lines as lines, font sizes estimated from the words' ink heights), and the page image's ink
that no word covers becomes the page's graphics, so captions, passages and figure regions come
from the normal pipeline. Only scanned pages are OCR'd: it costs far more than reading a text layer.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from spiqa_demo.errors import InputError, PaperError
from spiqa_demo.extraction.geometry import area, union
from spiqa_demo.extraction.layout import Block, Line, PageLayout, Span
from spiqa_demo.extraction.ocr import OcrWord, Tesseract, find_tesseract
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.pixels import fit_dpi
from spiqa_demo.extraction.tables import Word
from spiqa_demo.settings import ExtractionSettings
from spiqa_demo.types import BBox

# A page is a scan when one image covers most of it and it has (almost) no text of its own.
_SCAN_IMAGE_COVER = 0.6
_SCAN_MAX_CHARS = 20
# Ink height of a word as a fraction of its font size, by which letter shapes it has (Latin type:
# x-height about 0.46 em, ascenders and capitals reach about 0.7, descenders about 0.22 lower).
_ASCENDERS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789bdfhklt()[]{}|/\\!?&%$#@")
_DESCENDERS = set("gjpqy()[]{}|,;")
_INK_HEIGHT = {(False, False): 0.46, (True, False): 0.7, (False, True): 0.68, (True, True): 0.92}
FONT = "ocr"
# Graphics are found on a grid of this many points: finer grids split a plot's marks apart.
_GRID_PT = 3
_DARK = 160  # grey level (0-255) under which a pixel is ink


def is_scanned(layout: PageLayout) -> bool:
    """The page is an image with no (or a negligible) text layer."""
    chars = sum(len(line.text) for line in layout.lines)
    page_area = layout.width * layout.height
    return chars < _SCAN_MAX_CHARS and any(area(b) >= _SCAN_IMAGE_COVER * page_area for b in layout.images)


def word_size(word: OcrWord) -> float:
    """The font size (pt) a word's ink height implies."""
    letters = set(word.text)
    shape = (bool(letters & _ASCENDERS), bool(letters & _DESCENDERS))
    return (word.bbox[3] - word.bbox[1]) / _INK_HEIGHT[shape]


def is_vertical(words: list[OcrWord]) -> bool:
    """A line set bottom-to-top (arXiv's stamp in the margin): Tesseract splits it into lines out
    of reading order with a title-like height, and it is never a caption or passage."""
    x0, y0, x1, y1 = union([w.bbox for w in words])
    return sum(len(w.text) for w in words) > 2 and y1 - y0 > 2 * (x1 - x0)


def ocr_layout(number: int, width: float, height: float, words: list[OcrWord], graphics: list[BBox]) -> PageLayout:
    """A `PageLayout` of OCR words (Tesseract's paragraphs as blocks) and graphics boxes."""
    groups: dict[tuple[int, int], dict[int, list[OcrWord]]] = {}
    for w in words:
        groups.setdefault((w.block, w.paragraph), {}).setdefault(w.line, []).append(w)
    blocks: list[Block] = []
    for paragraph in groups.values():
        rows = [row for row in paragraph.values() if not is_vertical(row)]
        if rows:
            blocks.append(Block(len(blocks), [_line(row, len(blocks), i) for i, row in enumerate(rows)]))
    return PageLayout(number, width, height, blocks, graphics, [])


def _line(words: list[OcrWord], block: int, index: int) -> Line:
    words = sorted(words, key=lambda w: w.bbox[0])
    size = round(2 * statistics.median(word_size(w) for w in words)) / 2
    plain = [w.bbox[3] for w in words if not set(w.text) & _DESCENDERS]
    baseline = statistics.median(plain) if plain else max(w.bbox[3] for w in words) - 0.22 * size
    spans = [Span(w.text, w.bbox, size, FONT, False, baseline) for w in words]
    return Line(" ".join(w.text for w in words), union([w.bbox for w in words]), size, spans, block, index)


def ink_boxes(gray: np.ndarray, scale: float, words: list[OcrWord]) -> list[BBox]:
    """Boxes (pt) of the page image's ink that no word covers: the figures' lines, marks and photos.

    `gray` is the page rendered at `1 / scale` pixels per point. Ink pieces closer than two grid
    cells join (a plot's axes, ticks and curves are one graphic).
    """
    dark = gray < _DARK
    for w in words:
        x0, y0, x1, y1 = (round(v / scale) for v in w.bbox)
        dark[max(y0 - 1, 0) : y1 + 2, max(x0 - 1, 0) : x1 + 2] = False
    cell = max(1, round(_GRID_PT / scale))
    rows, cols = dark.shape[0] // cell, dark.shape[1] // cell
    grid = np.asarray(dark[: rows * cell, : cols * cell].reshape(rows, cell, cols, cell).any(axis=(1, 3)), dtype=bool)
    labels, _ = ndimage.label(ndimage.binary_dilation(grid, iterations=1))
    boxes = []
    for found in ndimage.find_objects(np.where(grid, labels, 0)):  # boxes of the ink, not of its dilation
        if found is None:
            continue
        ys, xs = found
        inked = grid[ys, xs].sum()
        if inked < 2:
            continue  # specks: scan noise, a stray dot
        unit = cell * scale
        boxes.append((xs.start * unit, ys.start * unit, xs.stop * unit, ys.stop * unit))
    return boxes


@dataclass
class ScanReader:
    """OCR of an extraction's scanned pages: their layouts, their words for figure text, and what
    to tell the user (Tesseract missing, pages read by OCR)."""

    settings: ExtractionSettings
    words: dict[int, list[Word]] = field(default_factory=dict)  # page number -> (x0, y0, x1, y1, text)
    scanned: int = 0
    seconds: float = 0.0
    _engine: Tesseract | str | None = None

    def read(self, page: pymupdf.Page, layout: PageLayout, deadline: float) -> PageLayout:
        """`layout` itself, or for a scanned page (and OCR available) the page read by OCR."""
        if not is_scanned(layout):
            return layout
        self.scanned += 1
        engine = self.engine()
        if isinstance(engine, str):
            return layout
        started = time.monotonic()
        pixmap = page.get_pixmap(dpi=self._dpi(page), colorspace=pymupdf.csGRAY)
        try:
            found = engine.read(pixmap, (page.rect.x0, page.rect.y0), deadline - started)
        except TimeoutError:
            limit = self.settings.extraction_timeout_s
            raise PaperError(
                f"OCR of page {layout.number} ran past the {limit:.0f} s extraction limit (SPIQA_EXTRACTION_TIMEOUT_S)"
            ) from None
        gray = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.width)
        graphics = ink_boxes(gray, page.rect.width / pixmap.width, found)
        self.seconds += time.monotonic() - started
        self.words[layout.number] = [Word(*w.bbox, w.text) for w in found]
        return ocr_layout(layout.number, layout.width, layout.height, found, graphics)

    def _dpi(self, page: pymupdf.Page) -> int:
        """SPIQA_OCR_DPI, lowered for a page so large that its image would pass the crop pixel
        bound (a hostile page size must not exhaust memory)."""
        return fit_dpi(self.settings.ocr_dpi, page.rect.width, page.rect.height, self.settings.max_crop_pixels)

    def engine(self) -> Tesseract | str:
        """Tesseract, or why it cannot be used; with SPIQA_OCR=on a missing engine is an error."""
        if self.settings.ocr == "off":
            return "OCR is off (SPIQA_OCR=off)"
        if self._engine is None:
            self._engine = find_tesseract(self.settings.ocr_language)
            if isinstance(self._engine, str) and self.settings.ocr == "on":
                raise InputError(f"SPIQA_OCR=on but {self._engine}")
        return self._engine

    def warnings(self) -> list[str]:
        if not self.scanned:
            return []
        engine = self.engine()
        if isinstance(engine, str):
            return [f"{self.scanned} scanned pages could not be read: {engine}."]
        return [f"{self.scanned} scanned pages were read by OCR; their text may contain recognition errors."]
