"""A paper page as an image with a figure's region and caption, or a passage, marked (for `gr.AnnotatedImage`).

Pages are rendered once per (PDF, page, with or without the reader's annotations) at a screen
resolution and kept in the UI folder; the boxes are the extracted ones (PDF points) scaled to the
image's pixels.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from spiqa_demo.conversation.types import Cell
from spiqa_demo.extraction.pixels import fit_scale
from spiqa_demo.extraction.tables import cell_boxes, page_words, region_words, table_grid
from spiqa_demo.types import BBox, Figure
from spiqa_demo.ui import storage

PAGE_DPI = 110  # a US-letter page is 935 x 1210 px: readable, and a PNG small enough to send on every view
# A page larger than this (PDF allows 14,400 points a side) is shown smaller.
PAGE_MAX_PIXELS = 4_000_000

Annotation = tuple[tuple[int, int, int, int], str]


def render_page(pdf: Path, page: int, annotations: bool = False, dpi: int = PAGE_DPI) -> tuple[Path, float]:
    """The PNG of page `page` (1-based) of `pdf`, rendered on first use, and its pixels per point;
    `annotations`: with the reader's highlights and notes; `dpi`: finer for a page viewed zoomed in."""
    import pymupdf

    # The kept PDF's folder is its content hash: served names are keyed with the server's secret.
    variant = "-annotated" if annotations else ""
    prefix = storage.pages_prefix(pdf)
    target = prefix.with_name(f"{prefix.name}-p{page}-{dpi}{variant}.png")
    with pymupdf.open(pdf) as doc:
        rect = doc[page - 1].rect
        scale = fit_scale(dpi / 72, rect.width, rect.height, PAGE_MAX_PIXELS)
        if target.exists():
            os.utime(target)
            return target, scale
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.part.png")
        doc[page - 1].get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False, annots=annotations).save(partial)
    os.replace(partial, target)
    storage.evict()
    return target, scale


def _pixels(box: BBox, scale: float) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return (round(x0 * scale), round(y0 * scale), round(x1 * scale), round(y1 * scale))


def figure_on_page(pdf: Path, figure: Figure, annotations: bool = False,
                   dpi: int = PAGE_DPI, cells: Sequence[Cell] = ()) -> tuple[str, list[Annotation]]:
    """`(page image, [(box, label)])`: the figure's region and its caption, for `gr.AnnotatedImage`,
    and the table cells an answer states ("ResNet-101 · top-1 err.")."""
    image, scale = render_page(pdf, figure.page, annotations, dpi)
    boxes = [(_pixels(figure.bbox, scale), figure.title)]
    if figure.caption_bbox is not None:
        boxes.append((_pixels(figure.caption_bbox, scale), "caption"))
    boxes += [(_pixels(box, scale), f"{cell.row_name} · {cell.heading}") for cell, box in cell_places(pdf, figure, cells)]
    return str(image), boxes


def cell_places(pdf: Path, figure: Figure, cells: Sequence[Cell]) -> list[tuple[Cell, BBox]]:
    """Where `cells` of `figure`'s table are printed: its words are read again from the page and
    rebuilt into the grid its structure came from; a cell whose words differ from the structure's
    (a table read from an image) has no place."""
    import pymupdf

    if not cells or figure.table is None:
        return []
    with pymupdf.open(pdf) as doc:
        words = region_words(page_words(doc[figure.page - 1]), figure.bbox, figure.caption_bbox)
    grid, boxes = table_grid(words), cell_boxes(words)
    header = len(figure.table.header)
    places = []
    for cell in cells:
        row, column = header + cell.row, cell.column
        inside = row < len(grid) and column < len(grid[row])
        box = boxes[row][column] if inside else None
        if inside and box is not None and grid[row][column] == cell.value:
            places.append((cell, box))
    return places


def box_on_page(pdf: Path, page: int, box: BBox | None, label: str,
                dpi: int = PAGE_DPI) -> tuple[str, list[Annotation]]:
    """`(page image, [(box, label)])`: one region of a page (a cited passage); no box when its place is unknown."""
    image, scale = render_page(pdf, page, dpi=dpi)
    return str(image), [] if box is None else [(_pixels(box, scale), label)]
