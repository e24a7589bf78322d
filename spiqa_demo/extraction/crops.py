"""High-resolution PNG crops of figure regions, rendered from the vector page (not screenshots)."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from PIL import Image

from spiqa_demo.extraction.deadline import Deadline
from spiqa_demo.extraction.document import open_pdf
from spiqa_demo.extraction.page_errors import MUPDF_ERRORS, PageFailures, reason
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.pixels import fit_scale
from spiqa_demo.settings import ExtractionSettings
from spiqa_demo.types import BBox, Figure, Progress

# White space kept around a region so that strokes on its edge are not cut.
_PAD = 2.0


class CropWriter:
    """Renders crops on the calling thread (MuPDF holds the GIL) and encodes the PNGs on a worker
    thread (zlib releases it), so encoding one crop overlaps rendering the next.

    Use as a context manager; leaving it waits for every file to be written.
    """

    def __init__(self, dpi: int, max_pixels: int) -> None:
        self.dpi = dpi
        self.max_pixels = max_pixels
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="png")
        self._pending: list[Future[None]] = []

    def __enter__(self) -> CropWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True)
        for future in self._pending:
            future.result()  # re-raise a failed write

    def write(self, page: pymupdf.Page, bbox: BBox, path: Path, avoid: BBox | None = None) -> Path:
        """Queue `bbox` of `page` as a PNG at the writer's DPI (lowered past `max_pixels`).

        The padding never reaches into `avoid` (the caption, often set a point under the axis labels).
        """
        x0, y0, x1, y1 = bbox[0] - _PAD, bbox[1] - _PAD, bbox[2] + _PAD, bbox[3] + _PAD
        if avoid is not None and avoid[0] < x1 and x0 < avoid[2]:
            if avoid[1] + avoid[3] > bbox[1] + bbox[3]:  # caption below the region
                y1 = max(bbox[3], min(y1, avoid[1] - 1))
            else:
                y0 = min(bbox[1], max(y0, avoid[3] + 1))
        rect = pymupdf.Rect(x0, y0, x1, y1) & page.rect
        zoom = fit_scale(self.dpi / 72, rect.width, rect.height, self.max_pixels)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=rect, alpha=False)
        image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
        self._pending.append(self._pool.submit(_save_png, image, path))
        return path


def write_crops(
    items: list[Figure],
    image_dir: Path,
    pdf: Path,
    stripped: pymupdf.Document | None,
    dpi: int,
    settings: ExtractionSettings,
    deadline: Deadline,
    progress: Progress,
    failures: PageFailures,
) -> None:
    """Render each item's crop into `image_dir` and set its `image`: from `stripped` (the document
    read, its annotations removed), or from a fresh copy of `pdf` when None (the reader's
    annotations kept). An item MuPDF cannot render keeps no image and is named in `failures`."""
    image_dir.mkdir(parents=True, exist_ok=True)
    suffix = "-annotated" if settings.crop_annotations else ""
    doc = stripped or open_pdf(pdf, settings)
    try:
        with CropWriter(dpi, settings.max_crop_pixels) as crops:
            for n, item in enumerate(items, 1):
                deadline.check()
                progress(n / len(items), f"Cropping {item.title} ({n} of {len(items)})")
                target = image_dir / f"{item.id}{suffix}.png"
                try:
                    item.image = str(crops.write(doc[item.page - 1], item.bbox, target, item.caption_bbox))
                except MUPDF_ERRORS as exc:
                    failures.uncropped[item.title] = reason(exc)
    finally:
        if doc is not stripped:
            doc.close()


def _save_png(image: Image.Image, path: Path) -> None:
    # zlib level 1: faster than MuPDF's PNG writer on photo crops, and the files are no larger.
    image.save(path, format="PNG", compress_level=1)
