"""Rendering scales bounded in pixels: a PDF page may be 14,400 points a side, and no crop, OCR
image or page view of it may exhaust memory. Every render of a page area goes through `fit_scale`.

An image inside the PDF is bounded too (`check_image`): rendering any part of a page decodes its
images whole, however small the render, and a 1.5 MB file can hold a 40000 x 40000 image that
takes seconds of CPU to decode. Its size is declared in the PDF, so it is refused before any render.
"""

from __future__ import annotations

import math

from spiqa_demo.errors import InputError


class ImageTooLarge(InputError):
    """A page holds an image over the decoded-pixel limit (the message names the page, not the file)."""


def fit_scale(scale: float, width: float, height: float, max_pixels: int) -> float:
    """Pixels per point: `scale`, lowered (with no floor) so that a `width` x `height` point area
    renders to at most `max_pixels`."""
    pixels = max(width * height, 1e-6) * scale * scale
    return scale * math.sqrt(max_pixels / pixels) if pixels > max_pixels else scale


def fit_dpi(dpi: int, width: float, height: float, max_pixels: int) -> int:
    """`fit_scale` in whole dots per inch (at least 1), for renders that take a DPI."""
    return max(1, int(72 * fit_scale(dpi / 72, width, height, max_pixels)))


def check_image(page: int, width: int, height: int, max_pixels: int) -> None:
    """`ImageTooLarge` when page `page`'s image of `width` x `height` pixels is over `max_pixels`."""
    if width * height > max_pixels:
        raise ImageTooLarge(f"page {page} holds an image of {width} x {height} pixels, over the "
                            f"{max_pixels / 1e6:g}-megapixel limit (SPIQA_MAX_IMAGE_PIXELS), so it was not read")
