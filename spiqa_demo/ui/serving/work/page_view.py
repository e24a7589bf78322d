"""A paper page as an image with a figure's region and caption, or a passage, marked (for `gr.AnnotatedImage`).

`draw_page` paints one page at a screen resolution into a PNG: a task for a worker process
(`page_renders` runs it there, within its limits, and keeps what it drew), since a page can be
built to take minutes to paint. The boxes are the extracted ones (PDF points) scaled to the image's
pixels.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from spiqa_demo.conversation.types import Cell
from spiqa_demo.extraction.pixels import fit_scale
from spiqa_demo.files import write_whole
from spiqa_demo.types import BBox, Figure
from spiqa_demo.ui.serving.work.workers import Report

PAGE_DPI = 110  # a US-letter page is 935 x 1210 px: readable, and a PNG small enough to send on every view
# A page larger than this (PDF allows 14,400 points a side) is shown smaller.
PAGE_MAX_PIXELS = 4_000_000

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
