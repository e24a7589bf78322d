"""Images of printed lines, drawn for OCR tests: black text on white, one line per row."""

from __future__ import annotations

from pathlib import Path


def draw_lines(path: Path, lines: list[str], *, width: int, line_px: int, font_px: int, left: int, top: int) -> Path:
    """Write `lines` as a PNG at `path`, `line_px` apart from `(left, top)`, in the default font at `font_px`."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (width, line_px * len(lines) + 2 * top), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=font_px)
    for i, line in enumerate(lines):
        draw.text((left, top + line_px * i), line, fill="black", font=font)
    image.save(path)
    return path
