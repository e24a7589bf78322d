"""OCR of the text inside raster figures (`SPIQA_OCR_FIGURES`): axis labels and legends drawn into a
bitmap have no text layer, so without OCR a plot pasted as an image is found by its caption alone.

Only a figure whose region is mostly one or more images and that carries almost no text of its own
is read; the words join the figure's text (what retrieval and the prompts see). Off by default:
each figure costs a Tesseract run, and no question set here asks about text inside raster figures
to show that retrieval gains from it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from spiqa_demo.extraction.geometry import area, overlap
from spiqa_demo.extraction.ocr import Tesseract
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.pixels import fit_dpi
from spiqa_demo.extraction.scanned import ScanReader
from spiqa_demo.extraction.tables import Word
from spiqa_demo.settings import ExtractionSettings
from spiqa_demo.types import BBox

# A region this much covered by images is a raster figure; one with more characters of its own
# than this already has its labels as text.
_IMAGE_COVER = 0.5
_OWN_TEXT_CHARS = 20


@dataclass
class FigureOcr:
    """Reads raster figures with `engine` at up to `dpi` (fewer where the crop would pass `max_pixels`)."""

    engine: Tesseract
    dpi: int
    max_pixels: int
    deadline: float
    figures: int = 0
    seconds: float = 0.0

    def words(self, page: pymupdf.Page, bbox: BBox, own: list[Word]) -> list[Word]:
        """OCR words inside `bbox` when it is a raster figure without its own text, else none."""
        if sum(len(w.text) for w in own) > _OWN_TEXT_CHARS or image_cover(page, bbox) < _IMAGE_COVER:
            return []
        rect = pymupdf.Rect(bbox) & page.rect
        if rect.is_empty:
            return []
        dpi = fit_dpi(self.dpi, rect.width, rect.height, self.max_pixels)
        started = time.monotonic()
        pixmap = page.get_pixmap(dpi=dpi, clip=rect, colorspace=pymupdf.csGRAY)
        try:
            found = self.engine.read(pixmap, (rect.x0, rect.y0), self.deadline - started)
        except TimeoutError:
            return []  # the extraction's own time limit stops the rest
        self.figures += 1
        self.seconds += time.monotonic() - started
        return [Word(*w.bbox, w.text) for w in found]


def figure_reader(scans: ScanReader, settings: ExtractionSettings, deadline: float) -> FigureOcr | None:
    """The reader of raster figures when SPIQA_OCR_FIGURES is on and Tesseract can be used (the
    engine the scanned pages use)."""
    if not settings.ocr_figures or isinstance(engine := scans.engine(), str):
        return None
    return FigureOcr(engine, settings.ocr_dpi, settings.max_crop_pixels, deadline)


def figure_ocr_warnings(reader: FigureOcr | None, scans: ScanReader, settings: ExtractionSettings) -> list[str]:
    """Why raster figures were not read although asked, or that their OCR text may hold errors."""
    if settings.ocr_figures and reader is None and isinstance(reason := scans.engine(), str):
        return [f"Text inside raster figures was not read (SPIQA_OCR_FIGURES): {reason}."]
    if reader is not None and reader.figures:
        return [f"Text inside {reader.figures} raster figures was read by OCR and may contain recognition errors."]
    return []


def image_cover(page: pymupdf.Page, bbox: BBox) -> float:
    """The share of `bbox` that images drawn on `page` cover (overlaps counted once per image)."""
    covered = sum(overlap(tuple(info["bbox"]), bbox) for info in page.get_image_info())
    return min(1.0, covered / max(area(bbox), 1e-6))
