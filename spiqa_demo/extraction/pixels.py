"""Rendering scales bounded in pixels: a PDF page may be 14,400 points a side, and no crop, OCR
image or page view of it may exhaust memory. Every render of a page area goes through `fit_scale`."""

from __future__ import annotations

import math


def fit_scale(scale: float, width: float, height: float, max_pixels: int) -> float:
    """Pixels per point: `scale`, lowered (with no floor) so that a `width` x `height` point area
    renders to at most `max_pixels`."""
    pixels = max(width * height, 1e-6) * scale * scale
    return scale * math.sqrt(max_pixels / pixels) if pixels > max_pixels else scale


def fit_dpi(dpi: int, width: float, height: float, max_pixels: int) -> int:
    """`fit_scale` in whole dots per inch (at least 1), for renders that take a DPI."""
    return max(1, int(72 * fit_scale(dpi / 72, width, height, max_pixels)))
