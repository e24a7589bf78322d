"""Scoring extracted figures/tables against ground truth: the one place the quality bar is computed.

Used by `benchmarks/extraction.py` (prints the numbers) and by the tests (assert them), on the
pdffigures2 CS-150 gold set (`extraction-gt/cs150-icml13`) and on the synthetic PDFs of
`evalsuite.pdf_factory`.

The gold-set rule is pdffigures2's own (its `evaluation/build_evaluation.py`): an extracted item is
correct when page, kind and number match a gold item and both its region and its caption box have
IoU >= 0.8 with the gold boxes. As there, extracted boxes are first cropped to the ink they contain
(the gold boxes were drawn tight around ink, so padding is not an error), a caption also counts as
right when its text equals the gold text up to spaces and hyphens, and items on pages that were not
annotated are ignored. Two choices of ours, both stricter or more explicit than pdffigures2's script:
a second item with the same (kind, number, page) is a false positive ("duplicate") instead of being
graded twice; unlabelled items (no caption found) cannot be named, so they are counted apart
(`Report.unlabelled`) and listed, not scored — pdffigures2 never emits them.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spiqa_demo.extraction.geometry import iou

if TYPE_CHECKING:
    import pymupdf

    from spiqa_demo.types import Figure, Paper

BBox = tuple[float, float, float, float]

IOU_THRESHOLD = 0.8
# pdffigures2 binarises the page at gray < 200 before cropping boxes to their ink.
INK_GRAY_THRESHOLD = 200
INK_DPI = 150


@dataclass(frozen=True)
class GoldItem:
    """One true figure or table: what an extractor should return for it."""

    kind: str
    number: str
    page: int
    bbox: BBox
    caption_bbox: BBox | None
    caption: str = ""
    label: str = ""


@dataclass
class GoldDocument:
    """A PDF with its true items; `pages_annotated` (1-based) limits what is scored."""

    doc_id: str
    pdf: Path
    items: list[GoldItem]
    pages_annotated: set[int] | None = None


@dataclass
class Match:
    """One scored row: a gold item, an extracted item, or both (same kind, number and page).

    `status` is one of: correct, missing, extra, duplicate, no_caption, wrong_region,
    wrong_caption, wrong_both (the last three carry both IoUs so failures can be looked at).
    """

    doc_id: str
    kind: str
    number: str
    page: int
    status: str
    gold: GoldItem | None = None
    found: Figure | None = None
    region_iou: float | None = None
    caption_iou: float | None = None

    def describe(self) -> str:
        """One line for a person: "icml13_3 table 2 p5 wrong_region region IoU 0.61 caption IoU 0.93"."""
        parts = [self.doc_id, self.kind, self.number or "(unlabelled)", f"p{self.page}", self.status]
        if self.region_iou is not None:
            parts.append(f"region IoU {self.region_iou:.2f}")
        if self.caption_iou is not None:
            parts.append(f"caption IoU {self.caption_iou:.2f}")
        if self.gold is not None and self.status != "correct":
            parts.append(f"gold region {_fmt(self.gold.bbox)} caption {_fmt(self.gold.caption_bbox)}")
        if self.found is not None and self.status != "correct":
            parts.append(f"found region {_fmt(self.found.bbox)} caption {_fmt(self.found.caption_bbox)}")
        return " ".join(parts)


@dataclass(frozen=True)
class Score:
    """Counts and precision/recall/F1 (pdffigures2's definitions)."""

    correct: int
    extracted: int
    gold: int

    @property
    def precision(self) -> float:
        return self.correct / self.extracted if self.extracted else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.gold if self.gold else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __str__(self) -> str:
        return (
            f"P {self.precision:.3f} R {self.recall:.3f} F1 {self.f1:.3f} "
            f"({self.correct} correct / {self.extracted} extracted / {self.gold} gold)"
        )


@dataclass
class Report:
    """All scored rows of a run, with per-kind and per-document views."""

    matches: list[Match] = field(default_factory=list)
    unlabelled: list[Match] = field(default_factory=list)

    def score(self, kind: str | None = None, doc_id: str | None = None) -> Score:
        rows = [m for m in self.matches if (kind is None or m.kind == kind) and (doc_id is None or m.doc_id == doc_id)]
        return Score(
            correct=sum(m.status == "correct" for m in rows),
            extracted=sum(m.found is not None for m in rows),
            gold=sum(m.gold is not None for m in rows),
        )

    @property
    def failures(self) -> list[Match]:
        return [m for m in self.matches if m.status != "correct"]

    @property
    def doc_ids(self) -> list[str]:
        return sorted({m.doc_id for m in self.matches + self.unlabelled}, key=natural_key)


def ink_bbox(page: pymupdf.Page, box: Sequence[float], dpi: int = INK_DPI) -> BBox | None:
    """`box` shrunk to the ink (gray < 200) rendered inside it; None when it holds no ink."""
    import numpy as np
    import pymupdf

    clip = pymupdf.Rect(box) & page.rect
    if clip.is_empty:
        return None
    pix = page.get_pixmap(clip=clip, dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    gray = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)[:, : pix.width]
    ink = gray < INK_GRAY_THRESHOLD
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if not rows.size:
        return None
    scale = 72.0 / dpi
    # The pixmap's origin is the clip scaled to `dpi` and rounded outwards (pix.x, pix.y).
    x0, y0 = pix.x + int(cols[0]), pix.y + int(rows[0])
    x1, y1 = pix.x + int(cols[-1]) + 1, pix.y + int(rows[-1]) + 1
    return (
        max(clip.x0, x0 * scale),
        max(clip.y0, y0 * scale),
        min(clip.x1, x1 * scale),
        min(clip.y1, y1 * scale),
    )


def same_caption_text(a: str, b: str) -> bool:
    """pdffigures2's caption text match: equal after dropping whitespace and hyphens (NFKC)."""
    return _squash(a) == _squash(b)


def load_gold_set(root: Path) -> list[GoldDocument]:
    """The pdffigures2-format gold set in `root` (annotations.json + documents.json + pdfs/)."""
    annotations = json.loads((root / "annotations.json").read_text())
    documents = {d["doc_id"]: d for d in json.loads((root / "documents.json").read_text())}
    gold = []
    for doc_id in sorted(annotations, key=natural_key):
        entry = annotations[doc_id]
        items = [
            GoldItem(
                kind=f["figure_type"].lower(),
                number=str(f["name"]),
                page=int(f["page"]),
                bbox=_scaled(f["region_bb"], f.get("dpi", 72.0)),
                caption_bbox=_scaled(f["caption_bb"], f.get("dpi", 72.0)),
                caption=f.get("caption", ""),
            )
            for f in entry["figures"]
        ]
        pdf = root / documents.get(doc_id, {}).get("file", f"pdfs/{doc_id}.pdf")
        gold.append(GoldDocument(doc_id, pdf, items, set(entry.get("pages_annotated") or []) or None))
    return gold


def score_document(
    gold: GoldDocument,
    items: Iterable[Figure],
    *,
    crop_to_ink: bool = True,
    compare_caption_text: bool = True,
) -> Report:
    """Grade one document's extracted `items` against its gold items (see the module docstring)."""
    import pymupdf

    pages = gold.pages_annotated
    expected = {(g.kind, g.number, g.page): g for g in gold.items if g.number}
    report = Report()
    seen: set[tuple[str, str, int]] = set()
    with pymupdf.open(gold.pdf) as doc:
        for item in items:
            if pages is not None and item.page not in pages:
                continue
            if not item.number:
                report.unlabelled.append(Match(gold.doc_id, item.kind, "", item.page, "unlabelled", found=item))
                continue
            key = (item.kind, item.number, item.page)
            truth = expected.get(key)
            if key in seen:
                report.matches.append(Match(gold.doc_id, *key, "duplicate", found=item))
                continue
            seen.add(key)
            if truth is None:
                report.matches.append(Match(gold.doc_id, *key, "extra", found=item))
                continue
            report.matches.append(_grade(gold.doc_id, truth, item, doc, crop_to_ink, compare_caption_text))
    for key, truth in expected.items():
        if key not in seen:
            report.matches.append(Match(gold.doc_id, *key, "missing", gold=truth))
    report.matches.sort(key=lambda m: (m.page, m.kind, natural_key(m.number)))
    return report


def score_against_gold(
    gold: Sequence[GoldDocument],
    papers: Mapping[str, Paper],
    *,
    crop_to_ink: bool = True,
    compare_caption_text: bool = True,
) -> Report:
    """Grade extracted `papers` (keyed by `doc_id`) against every gold document."""
    report = Report()
    for doc in gold:
        one = score_document(
            doc, papers[doc.doc_id].items, crop_to_ink=crop_to_ink, compare_caption_text=compare_caption_text
        )
        report.matches += one.matches
        report.unlabelled += one.unlabelled
    return report


def _grade(doc_id: str, truth: GoldItem, item: Figure, doc: pymupdf.Document, crop: bool, by_text: bool) -> Match:
    match = Match(doc_id, truth.kind, truth.number, truth.page, "correct", gold=truth, found=item)
    if item.caption_bbox is None:
        match.status = "no_caption"
        return match
    page = doc[item.page - 1]
    region = ink_bbox(page, item.bbox) if crop else item.bbox
    caption = ink_bbox(page, item.caption_bbox) if crop else item.caption_bbox
    match.region_iou = iou(region or item.bbox, truth.bbox)
    match.caption_iou = iou(caption or item.caption_bbox, truth.caption_bbox) if truth.caption_bbox else 0.0
    region_ok = match.region_iou >= IOU_THRESHOLD
    caption_ok = match.caption_iou >= IOU_THRESHOLD or (by_text and same_caption_text(item.caption, truth.caption))
    if not region_ok and not caption_ok:
        match.status = "wrong_both"
    elif not region_ok:
        match.status = "wrong_region"
    elif not caption_ok:
        match.status = "wrong_caption"
    return match


def _scaled(box: Sequence[float], dpi: float) -> BBox:
    s = 72.0 / float(dpi)
    return (box[0] * s, box[1] * s, box[2] * s, box[3] * s)


def _squash(text: str) -> str:
    return unicodedata.normalize("NFKC", re.sub(r"-|\s+", "", text))


def natural_key(value: str) -> tuple[Any, ...]:
    """Sort key that orders "A2" before "A10" (digit runs compare as numbers)."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", value))


def _fmt(box: Sequence[float] | None) -> str:
    return "none" if box is None else "[" + ", ".join(f"{v:.0f}" for v in box) + "]"
