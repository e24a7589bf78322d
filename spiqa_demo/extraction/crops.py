"""High-resolution PNG crops of figure regions, rendered from the vector page (not screenshots)."""

from __future__ import annotations

import math
from pathlib import Path

import pymupdf

from spiqa_demo.types import BBox

# White space kept around a region so that strokes on its edge are not cut.
_PAD = 2.0


def render_crop(page: pymupdf.Page, bbox: BBox, path: Path, dpi: int, max_pixels: int) -> Path:
    """Render `bbox` of `page` to a PNG at `dpi`, lowered if the crop would exceed `max_pixels`."""
    rect = pymupdf.Rect(bbox[0] - _PAD, bbox[1] - _PAD, bbox[2] + _PAD, bbox[3] + _PAD) & page.rect
    pixels = (rect.width * dpi / 72) * (rect.height * dpi / 72)
    if pixels > max_pixels:
        dpi = max(36, int(dpi * math.sqrt(max_pixels / pixels)))
    pix = page.get_pixmap(dpi=dpi, clip=rect, alpha=False)
    pix.save(path)
    return path
