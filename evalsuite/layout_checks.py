"""Checks of an extracted real paper against the captions it prints (issue 31's real-layout check).

Real articles have no gold boxes, so what a paper prints is the reference
(`benchmarks/data/real_layout_captions.json`, read by a person): each printed caption is one item;
an item whose box is mostly its own caption is a figure or table without its content; an item with
no label is junk unless it overlaps one of the few genuine uncaptioned graphics written down there.
The reference is data, not a second caption parser, so it cannot share the extractor's blind spots.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from spiqa_demo.extraction.geometry import area, overlap

if TYPE_CHECKING:
    from spiqa_demo.types import BBox, Figure, Paper

# An item is "mostly its own caption" when less than this share of its box lies outside its caption.
CONTENT_SHARE = 0.5
# An unlabelled item is a recorded uncaptioned graphic when they share this much of the smaller box.
GRAPHIC_OVERLAP = 0.5


class UncaptionedGraphic(BaseModel):
    """A graphic a paper prints with no caption (a graphical abstract, a journal badge)."""

    page: int
    bbox: tuple[float, float, float, float]
    what: str


class PrintedCaptions(BaseModel):
    """One paper's entry in the reference: the numbers of the captions it prints."""

    file: str  # relative to `papers/`
    family: str
    figures: list[str]
    tables: list[str]
    heading_tables: list[str] = Field(default_factory=list)  # "KEY RESOURCES TABLE"
    uncaptioned: list[UncaptionedGraphic] = Field(default_factory=list)
    legends_without_graphic: list[str] = Field(default_factory=list)
    note: str = ""

    def keys(self) -> set[str]:
        """"figure 3", "table S1", "table KEY RESOURCES TABLE": one per printed caption."""
        return {f"figure {n}" for n in self.figures} | {f"table {n}" for n in self.tables} | {
            f"table {h.upper()}" for h in self.heading_tables
        }


class RealLayoutReference(BaseModel):
    about: str
    papers: list[PrintedCaptions]


def load_reference(path: Path) -> RealLayoutReference:
    return RealLayoutReference.model_validate(json.loads(path.read_text()))


def item_key(item: Figure) -> str:
    """The reference key an extracted item answers: its kind and number, or a heading table's label."""
    if item.number:
        prefix = "S" if item.part and not item.number.startswith("S") else ""
        return f"{item.kind} {prefix}{item.number}"
    return f"{item.kind} {item.label.upper()}" if item.label else ""


def mostly_caption(item: Figure) -> bool:
    """The item's box is (mostly) its own caption: a figure or table without its content."""
    if item.caption_bbox is None:
        return False
    box = area(item.bbox)
    return box <= 0 or box - overlap(item.bbox, item.caption_bbox) < CONTENT_SHARE * box


def _is_graphic(bbox: BBox, page: int, graphics: Iterable[UncaptionedGraphic]) -> bool:
    return any(
        g.page == page and overlap(bbox, g.bbox) >= GRAPHIC_OVERLAP * max(1e-6, min(area(bbox), area(g.bbox)))
        for g in graphics
    )


@dataclass
class LayoutCheck:
    """One paper: printed captions found and missed, labelled items without content, junk."""

    file: str
    family: str
    pages: int = 0
    seconds: float = 0.0
    printed: set[str] = field(default_factory=set)
    found: set[str] = field(default_factory=set)
    extra: list[str] = field(default_factory=list)  # labelled items the paper prints no caption for
    caption_only: list[str] = field(default_factory=list)
    labelled: int = 0
    junk: list[str] = field(default_factory=list)  # unlabelled items that are no recorded graphic
    genuine: int = 0
    error: str = ""

    @property
    def missed(self) -> list[str]:
        return sorted(self.printed - self.found)

    def describe(self) -> str:
        if self.error:
            return f"{self.file}: ERROR {self.error}"
        parts = [f"{self.file} ({self.family}): {len(self.printed & self.found)}/{len(self.printed)} captions"]
        listed = (("missed", self.missed), ("not printed", self.extra), ("mostly caption", self.caption_only))
        parts += [f"{name} {', '.join(keys)}" for name, keys in listed if keys]
        parts += [f"unlabelled {len(self.junk)}"] if self.junk else []
        return "; ".join(parts)


def check_layout(entry: PrintedCaptions, paper: Paper, seconds: float) -> LayoutCheck:
    printed = entry.keys()
    check = LayoutCheck(entry.file, entry.family, paper.page_count, seconds, printed)
    for item in paper.items:
        key = item_key(item)
        if not key:
            if _is_graphic(item.bbox, item.page, entry.uncaptioned):
                check.genuine += 1
            else:
                check.junk.append(f"p{item.page} {[round(v) for v in item.bbox]}")
            continue
        check.labelled += 1
        if key in printed:
            check.found.add(key)
        else:
            check.extra.append(f"{key} p{item.page}")
        if mostly_caption(item):
            check.caption_only.append(f"{key} p{item.page}")
    return check


@dataclass
class FamilyScore:
    """The checks of a family of papers (or all of them) added up."""

    name: str
    checks: list[LayoutCheck]

    @property
    def papers(self) -> int:
        return len(self.checks)

    def _total(self, count: Callable[[LayoutCheck], int]) -> int:
        return sum(count(c) for c in self.checks)

    @property
    def printed(self) -> int:
        return self._total(lambda c: len(c.printed))

    @property
    def found(self) -> int:
        return self._total(lambda c: len(c.printed & c.found))

    @property
    def labelled(self) -> int:
        return self._total(lambda c: c.labelled)

    @property
    def caption_only(self) -> int:
        return self._total(lambda c: len(c.caption_only))

    @property
    def junk(self) -> int:
        return self._total(lambda c: len(c.junk))

    @property
    def extra(self) -> int:
        return self._total(lambda c: len(c.extra))

    @property
    def errors(self) -> int:
        return self._total(lambda c: int(bool(c.error)))

    @property
    def pages(self) -> int:
        return self._total(lambda c: c.pages)

    @property
    def found_share(self) -> float:
        return self.found / self.printed if self.printed else 1.0

    @property
    def content_share(self) -> float:
        """Labelled items whose box holds more than their caption."""
        return 1 - self.caption_only / self.labelled if self.labelled else 1.0

    @property
    def junk_per_paper(self) -> float:
        return self.junk / self.papers if self.papers else 0.0

    @property
    def seconds(self) -> float:
        return sum(c.seconds for c in self.checks)


def by_family(checks: list[LayoutCheck]) -> list[FamilyScore]:
    """One score per family, CS first then by name, and the total last."""
    names = sorted({c.family for c in checks}, key=lambda n: (n != "CS", n))
    return [FamilyScore(n, [c for c in checks if c.family == n]) for n in names] + [FamilyScore("all", checks)]
