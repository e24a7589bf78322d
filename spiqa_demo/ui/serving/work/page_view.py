"""A paper page as an image with a figure's region and caption, or a passage, marked (for `gr.AnnotatedImage`).

`draw_page` paints one page at a screen resolution into a PNG: a task for a worker process
(`page_renders` runs it there, within its limits, and keeps what it drew), since a page can be
built to take minutes to paint. A second task (`write_page_text`) writes the page's printed lines
beside the PNG (`text_path`), each with its box in the image's pixels, for the viewer's text layer:
laid over the image, they make its text selectable. The boxes are the extracted ones (PDF points) scaled to the
image's pixels.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.conversation.types import Cell
from spiqa_demo.extraction.pixels import fit_scale
from spiqa_demo.files import write_whole
from spiqa_demo.types import BBox, Figure
from spiqa_demo.ui.serving.work.workers import Report

if TYPE_CHECKING:
    import pymupdf

PAGE_DPI = 110  # a US-letter page is 935 x 1210 px: readable, and a PNG small enough to send on every view
# A page larger than this (PDF allows 14,400 points a side) is shown smaller.
PAGE_MAX_PIXELS = 4_000_000
# A page's text layer is sent with the page: past these, the rest of a page's lines are left unselectable.
TEXT_MAX_LINES = 3000
TEXT_MAX_CHARS = 120_000

Annotation = tuple[tuple[int, int, int, int], str]
AnnotatedPage = tuple[str, list[Annotation]]  # a `gr.AnnotatedImage` value: the image's file and its boxes


@dataclass(frozen=True)
class PageImage:
    """A drawn page: its PNG and its pixels per PDF point."""

    path: Path
    scale: float


def draw_page(report: Report, pdf: Path, page: int, annotations: bool, dpi: int, target: Path) -> float:
    """Page `page` (1-based) of `pdf` drawn into the PNG `target` (unless it is there already) at `dpi`,
    within `PAGE_MAX_PIXELS`; its pixels per point. `annotations`: with the reader's highlights and notes."""
    import pymupdf

    with pymupdf.open(pdf) as doc:
        drawn = doc[page - 1]
        scale = fit_scale(dpi / 72, drawn.rect.width, drawn.rect.height, PAGE_MAX_PIXELS)
        if target.exists():
            os.utime(target)
        else:
            pixels = drawn.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False, annots=annotations)
            write_whole(target, lambda partial: pixels.save(partial, output="png"))
    return scale


def write_page_text(report: Report, pdf: Path, page: int, scale: float, target: Path) -> None:
    """The text layer of the page image `target` (page `page` of `pdf` drawn at `scale`, by `draw_page`) written
    beside it (`text_path`), unless it is there already: a task of its own, so a page whose text is too costly
    to read within its limits is still shown, only not selectable."""
    import pymupdf

    text = text_path(target)
    if text.exists():
        return
    with pymupdf.open(pdf) as doc:
        layer = json.dumps({"image": target.name, "lines": _printed_lines(doc[page - 1], scale)}, ensure_ascii=False)
    write_whole(text, lambda partial: partial.write_text(layer, encoding="utf-8"))


def text_path(png: Path) -> Path:
    """Where `write_page_text` writes the text layer of the page image `png`."""
    return png.with_suffix(".text.json")


def _printed_lines(page: pymupdf.Page, scale: float) -> list[tuple[float, float, float, float, str]]:
    """The page's lines of text as shown upright on the drawn page, each `(x0, y0, x1, y1, text)` in the
    image's pixels, within `TEXT_MAX_LINES` and `TEXT_MAX_CHARS`. Lines written sideways (an arXiv
    stamp in the margin) are left out: a horizontal layer could not lie on them."""
    import pymupdf

    turn = page.rotation_matrix  # extraction reads the unrotated page; the image shows it turned
    lines: list[tuple[float, float, float, float, str]] = []
    chars = 0
    for block in page.get_text("dict", flags=pymupdf.TEXTFLAGS_TEXT)["blocks"]:
        for line in block.get("lines", ()):
            dx, dy = line["dir"]
            if abs(dx * turn.b + dy * turn.d) > 0.05 or dx * turn.a + dy * turn.c <= 0:
                continue
            text = "".join(span["text"] for span in line["spans"])
            box = pymupdf.Rect(line["bbox"]) * turn * scale
            if not text.strip() or box.is_empty:
                continue
            chars += len(text)
            if len(lines) >= TEXT_MAX_LINES or chars > TEXT_MAX_CHARS:
                return lines
            lines.append((round(box.x0, 1), round(box.y0, 1), round(box.x1, 1), round(box.y1, 1), text))
    return lines


def page_text(image: PageImage) -> str:
    """The text layer `draw_page` wrote for `image` (JSON: the image's name and its lines), "" when there is
    none (an image drawn before the layer was, or a layer since evicted: the page is shown, not selectable)."""
    try:
        return text_path(image.path).read_text(encoding="utf-8")
    except OSError:
        return ""


def _pixels(box: BBox, scale: float) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return (round(x0 * scale), round(y0 * scale), round(x1 * scale), round(y1 * scale))


def figure_on_page(image: PageImage, figure: Figure, cells: Sequence[Cell] = ()) -> AnnotatedPage:
    """`(page image, [(box, label)])`: the figure's region and its caption, for `gr.AnnotatedImage`,
    and the table cells an answer states ("ResNet-101 · top-1 err.")."""
    boxes = [(_pixels(figure.bbox, image.scale), figure.title)]
    if figure.caption_bbox is not None:
        boxes.append((_pixels(figure.caption_bbox, image.scale), "caption"))
    boxes += [(_pixels(box, image.scale), f"{cell.row_name} · {cell.heading}") for cell, box in cell_places(figure, cells)]
    return str(image.path), boxes


def cell_places(figure: Figure, cells: Sequence[Cell]) -> list[tuple[Cell, BBox]]:
    """Where `cells` of `figure`'s table are printed, as extraction read them (a table read from an
    image has no cell boxes, so nothing is boxed)."""
    if figure.table is None:
        return []
    places = [(cell, figure.table.body_cell_box(cell.row, cell.column)) for cell in cells]
    return [(cell, box) for cell, box in places if box is not None]


def box_on_page(image: PageImage, box: BBox | None, label: str) -> AnnotatedPage:
    """`(page image, [(box, label)])`: one region of a page (a cited passage); no box when its place is unknown."""
    return str(image.path), [] if box is None else [(_pixels(box, image.scale), label)]
