"""The debug view (`extract --debug DIR`): each page as MuPDF renders it, with the boxes every stage
reported (`debug.VisualLog`) drawn over it in one colour per stage, their labels, and a legend.

Like pdffigures2's `VisualLogger` and docling's `visualize_layout`, it answers "why": why a table was
merged into a figure (a candidate that reached past it, a paragraph not taken for body text), why a
caption was missed or cut short. Pages are drawn as extraction read them, a reader's annotations
removed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from spiqa_demo.extraction.debug import Layer, Mark, VisualLog
from spiqa_demo.extraction.geometry import Box, overlap
from spiqa_demo.extraction.page_errors import MUPDF_ERRORS
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.pixels import fit_scale

# Pages are drawn at this resolution (dpi): the page's own words stay readable beside the labels.
DPI = 110
# Label text height and the legend's width (px).
_FONT_PX = 13
_LEGEND_WIDTH = 300
_PAD = 4


@dataclass(frozen=True)
class _Style:
    """How a layer is drawn: outline colour and width (px), fill opacity (0-255, 0 for none), and
    how far (px) its outlines sit outside their boxes, so that a region, its candidate and the kept
    item on one box stay apart."""

    colour: tuple[int, int, int]
    width: int
    fill: int = 0
    offset: int = 0


# How each layer is drawn; a layer's colour is how a test finds it in a picture.
STYLES = {
    Layer.COLUMNS: _Style((150, 150, 150), 1),
    Layer.MARGINS: _Style((110, 110, 110), 1, fill=50),
    Layer.TEXT: _Style((225, 150, 0), 1, fill=45),
    Layer.BODY: _Style((60, 110, 230), 1, fill=35),
    Layer.GRAPHICS: _Style((0, 165, 80), 2),
    Layer.IMAGES: _Style((0, 140, 150), 2, fill=35),
    Layer.PASSAGES: _Style((20, 40, 140), 1, offset=2),
    Layer.CAPTIONS: _Style((215, 25, 25), 2, fill=40),
    Layer.CANDIDATES: _Style((245, 120, 0), 1, offset=-3),
    Layer.REGIONS: _Style((140, 50, 210), 2),
    Layer.ITEMS: _Style((225, 0, 130), 3, offset=4),
}
# Where a label goes against its box, in the order tried until one clears every label drawn
# before it: over its top edge, under its bottom edge (left-aligned, then right-aligned), inside it.
_PLACES = (("above", "left"), ("above", "right"), ("below", "left"), ("below", "right"), ("inside", "left"))


def draw_pages(doc: pymupdf.Document, log: VisualLog, max_pixels: int) -> list[Path]:
    """Write `log.out_dir/page-NNN.png` for every page of `doc`; returns their paths."""
    log.out_dir.mkdir(parents=True, exist_ok=True)
    font = ImageFont.load_default(size=_FONT_PX)
    paths = []
    for number in range(1, doc.page_count + 1):
        marks = log.marks.get(number, [])
        page, zoom, origin = _render(doc, number, log.sizes[number], max_pixels)
        _draw_boxes(page, marks, zoom, origin)
        _draw_labels(page, marks, zoom, origin, font)
        path = log.out_dir / f"page-{number:03d}.png"
        _with_legend(page, marks, f"page {number} of {doc.page_count}", font).save(path, format="PNG", compress_level=1)
        paths.append(path)
    return paths


def _render(
    doc: pymupdf.Document, number: int, size: tuple[float, float], max_pixels: int
) -> tuple[Image.Image, float, tuple[float, float]]:
    """The page as an RGBA image, its pixels per point and its top-left corner (pt); a blank page
    of `size` (pt) when MuPDF cannot render it."""
    try:
        page = doc[number - 1]
        rect = page.rect
        zoom = fit_scale(DPI / 72, rect.width, rect.height, max_pixels)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        return Image.frombytes("RGB", (pix.width, pix.height), pix.samples).convert("RGBA"), zoom, (rect.x0, rect.y0)
    except MUPDF_ERRORS:
        width, height = size
        zoom = fit_scale(DPI / 72, width, height, max_pixels)
        return Image.new("RGBA", (round(width * zoom), round(height * zoom)), "white"), zoom, (0.0, 0.0)


def _pixels(mark: Mark, zoom: float, origin: tuple[float, float]) -> Box:
    """The mark's box in pixels, moved out by its layer's offset."""
    x0, y0, x1, y1 = mark.box
    ox, oy = origin
    box = Box((x0 - ox) * zoom, (y0 - oy) * zoom, (x1 - ox) * zoom, (y1 - oy) * zoom)
    return box.expand(STYLES[mark.layer].offset)


def _draw_boxes(page: Image.Image, marks: list[Mark], zoom: float, origin: tuple[float, float]) -> None:
    """Fills and outlines, layer by layer in the stages' order, on a transparent sheet laid over the page."""
    sheet = Image.new("RGBA", page.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(sheet)
    for layer in Layer:
        style = STYLES[layer]
        for mark in marks:
            if mark.layer is not layer:
                continue
            box = _pixels(mark, zoom, origin)
            # A hairline (a table rule) is drawn one pixel thick at least; PIL refuses inverted boxes.
            corners = (box.x0, box.y0, max(box.x1, box.x0 + 1), max(box.y1, box.y0 + 1))
            fill = (*style.colour, style.fill) if style.fill else None
            draw.rectangle(corners, outline=(*style.colour, 255), width=style.width, fill=fill)
    page.alpha_composite(sheet)


def _draw_labels(
    page: Image.Image, marks: list[Mark], zoom: float, origin: tuple[float, float], font: ImageFont.ImageFont | ImageFont.FreeTypeFont
) -> None:
    """Each labelled mark's words on a tag of its layer's colour, at the first place that covers no
    earlier tag (the last place tried when all are taken)."""
    draw = ImageDraw.Draw(page)
    taken: list[Box] = []
    for mark in (m for layer in Layer for m in marks if m.layer is layer and m.label):
        box = _pixels(mark, zoom, origin)
        x0, _, x1, bottom = draw.textbbox((0, 0), mark.label, font=font)
        tags = [_tag(box, x1 - x0 + 2 * _PAD, bottom + _PAD, place, page.size) for place in _PLACES]
        tag = next((t for t in tags if not any(overlap(t, other) > 0 for other in taken)), tags[-1])
        taken.append(tag)
        colour = STYLES[mark.layer].colour
        draw.rectangle(tag, fill=(*colour, 255))
        draw.text((tag.x0 + _PAD, tag.y0 + _PAD / 2), mark.label, font=font, fill=_ink_on(colour))


def _tag(box: Box, width: float, height: float, place: tuple[str, str], size: tuple[int, int]) -> Box:
    """A `width` x `height` tag at `place` against `box`, moved onto the image when it would leave it."""
    row, side = place
    top = {"above": box.y0 - height, "below": box.y1 + 1, "inside": box.y0 + 1}[row]
    left = box.x0 if side == "left" else box.x1 - width
    left, top = min(max(0.0, left), size[0] - width), min(max(0.0, top), size[1] - height)
    return Box(left, top, left + width, top + height)


def _ink_on(colour: tuple[int, int, int]) -> tuple[int, int, int, int]:
    """Black text on a light tag, white on a dark one (perceived brightness, ITU-R BT.601)."""
    r, g, b = colour
    return (0, 0, 0, 255) if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (255, 255, 255, 255)


def _with_legend(
    page: Image.Image, marks: list[Mark], title: str, font: ImageFont.ImageFont | ImageFont.FreeTypeFont
) -> Image.Image:
    """The page with a legend on its right: each layer's colour, what it shows and its count on the page."""
    line = _FONT_PX + 2 * _PAD
    out = Image.new("RGB", (page.width + _LEGEND_WIDTH, max(page.height, line * (len(Layer) + 2))), "white")
    out.paste(page.convert("RGB"), (0, 0))
    draw = ImageDraw.Draw(out)
    left = page.width + 2 * _PAD
    draw.text((left, _PAD), title, font=font, fill="black")
    for row, layer in enumerate(Layer, 2):
        style = STYLES[layer]
        y = row * line
        draw.rectangle((left, y, left + line, y + _FONT_PX), outline=style.colour, width=2, fill=style.colour if style.fill else None)
        count = sum(m.layer is layer for m in marks)
        draw.text((left + line + _PAD, y), f"{layer.value}: {count}", font=font, fill="black")
    return out
