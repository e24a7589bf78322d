"""What each extraction stage found on each page, kept for a person to look at (`extract --debug`).

pdffigures2's `VisualLogger`: the stages report what they found as they go, and `debug_view` draws
it over the rendered pages, one layer per stage, so that a region that swallowed a table can be
traced to the caption, candidate or text block that caused it. Stages report to a `StageLog`,
which keeps nothing: an extraction without `--debug` pays one empty call per stage and page. A
`VisualLog` keeps boxes only, never the pages, so debugging a long paper stays page by page too.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from spiqa_demo.extraction.captions import Caption
from spiqa_demo.extraction.layout import ClassifiedPage, DocumentLayout, PageFrame
from spiqa_demo.extraction.regions import PageSearch, Region, Sides
from spiqa_demo.types import BBox, Figure, Passage


class Layer(Enum):
    """What a box is, in the order the stages find them (and the view draws them); the value is the
    legend's wording."""

    COLUMNS = "text column (document)"
    MARGINS = "running header / footer"
    TEXT = "text block, not body"
    BODY = "body text block"
    GRAPHICS = "vector graphics cluster"
    IMAGES = "image"
    PASSAGES = "passage (index)"
    CAPTIONS = "caption (score)"
    CANDIDATES = "candidate region (gap, score)"
    REGIONS = "region found"
    ITEMS = "figure / table kept"


@dataclass(frozen=True)
class Mark:
    """One box of one layer on a page, with the words the view prints beside it."""

    layer: Layer
    box: BBox
    label: str = ""


class StageLog:
    """Where the stages report what they found; this one keeps nothing (debugging off)."""

    def document(self, layout: DocumentLayout) -> None:
        """The document's statistics (its text columns)."""

    def page(self, page: ClassifiedPage) -> None:
        """A classified page: its blocks (body or not), graphics, images, header and footer."""

    def captions(self, page: int, captions: list[Caption]) -> None:
        """The captions found on `page`."""

    def candidates(self, search: PageSearch, sides: Sides) -> None:
        """Every candidate region of a page's captions before any is assigned."""

    def regions(self, regions: list[tuple[PageFrame, Region]]) -> None:
        """The regions found, before one per label is kept."""

    def items(self, items: list[Figure]) -> None:
        """The figures and tables the paper keeps."""

    def passages(self, passages: list[Passage]) -> None:
        """The paper's passages, in reading order."""


class VisualLog(StageLog):
    """Keeps every reported box, by page (1-based), for `debug_view.draw_pages` to draw into `out_dir`."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.marks: defaultdict[int, list[Mark]] = defaultdict(list)
        self.sizes: dict[int, tuple[float, float]] = {}
        self._columns: list[tuple[float, float]] = []

    def _add(self, page: int, layer: Layer, box: BBox, label: str = "") -> None:
        self.marks[page].append(Mark(layer, box, label))

    def document(self, layout: DocumentLayout) -> None:
        self._columns = list(layout.columns)

    def page(self, page: ClassifiedPage) -> None:
        self.sizes[page.number] = (page.width, page.height)
        for n, (left, right) in enumerate(self._columns, 1):
            self._add(page.number, Layer.COLUMNS, (left, page.header_bottom, right, page.footer_top), f"column {n}")
        if page.header_bottom > 0:
            self._add(page.number, Layer.MARGINS, (0.0, 0.0, page.width, page.header_bottom), "header")
        if page.footer_top < page.height:
            self._add(page.number, Layer.MARGINS, (0.0, page.footer_top, page.width, page.height), "footer")
        for block in page.blocks:
            self._add(page.number, Layer.BODY if block.number in page.body_blocks else Layer.TEXT, block.bbox)
        for box in page.drawings:
            self._add(page.number, Layer.GRAPHICS, box)
        for box in page.images:
            self._add(page.number, Layer.IMAGES, box)

    def captions(self, page: int, captions: list[Caption]) -> None:
        for caption in captions:
            self._add(page, Layer.CAPTIONS, caption.bbox, f"{caption.label} ({caption.score:g})")

    def candidates(self, search: PageSearch, sides: Sides) -> None:
        for cand in search.candidates(sides, set(), set()):
            label = f"{cand.caption.label} {cand.direction}: gap {cand.gap:.1f}, score {cand.score:.1f}"
            self._add(search.page.number, Layer.CANDIDATES, cand.bbox, label)

    def regions(self, regions: list[tuple[PageFrame, Region]]) -> None:
        for page, region in regions:
            self._add(page.number, Layer.REGIONS, region.bbox, region.caption.label if region.caption else "unlabelled")

    def items(self, items: list[Figure]) -> None:
        for item in items:
            self._add(item.page, Layer.ITEMS, item.bbox, item.label or f"unlabelled {item.kind}")

    def passages(self, passages: list[Passage]) -> None:
        for index, passage in enumerate(passages):
            self._add(passage.page, Layer.PASSAGES, passage.bbox, f"P{index}")
