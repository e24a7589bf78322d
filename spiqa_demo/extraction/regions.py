"""Figure regions: pair each caption with the graphics and figure text next to it.

For every caption, a candidate region is grown above and below it, inside the caption's column
(or the full text width when the caption crosses the gutter), up to the nearest body paragraph,
other caption or page margin; the region is the union of the graphics (vector clusters, images)
and non-body text inside. Candidates are then assigned greedily by their gap to the caption, with
the usual side (figures above their caption, tables below) favoured, so content sitting between
two captions goes to the nearer one. This is pdffigures2's idea (regions bounded by body text)
without its full search, which is what keeps it within a few times PyMuPDF's parse cost.
"""

from __future__ import annotations

from dataclasses import dataclass

from spiqa_demo.extraction.captions import Caption
from spiqa_demo.extraction.layout import DocumentLayout, PageLayout, area, intersection, union
from spiqa_demo.types import BBox

# Points of gap added to a candidate on the caption's unusual side (tables under their caption,
# figures over it). Measured on the CS-150 gold set: tables with captions below exist (icml13_1, _9).
_UNUSUAL_SIDE_PENALTY = 8.0
# Content further than this from its caption is not its figure.
_MAX_GAP = 120.0


@dataclass
class Element:
    bbox: BBox
    graphic: bool


@dataclass
class Region:
    """A caption's figure region, or an unlabelled figure (`caption is None`)."""

    caption: Caption | None
    bbox: BBox
    text_bbox: BBox | None = None


@dataclass
class _Candidate:
    caption: Caption
    direction: str
    elements: list[int]
    gap: float
    score: float


def find_regions(page: PageLayout, doc: DocumentLayout, captions: list[Caption]) -> list[Region]:
    """Regions for the captions on `page` (those with no content are dropped) plus unlabelled figures."""
    elements = _content_elements(page, captions)
    blockers = [page.blocks[i].bbox for i in sorted(page.body_blocks)] + [c.bbox for c in captions]
    spans = {id(c): _span(c, captions, doc) for c in captions}
    claimed: set[int] = set()
    done: set[int] = set()
    regions: list[Region] = []

    def candidates() -> list[_Candidate]:
        out = []
        for c in captions:
            if id(c) in done:
                continue
            for direction in ("up", "down"):
                cand = _candidate(page, c, direction, spans[id(c)], elements, blockers, claimed)
                if cand is not None:
                    out.append(cand)
        return sorted(out, key=lambda cand: cand.score)

    pending = candidates()
    while pending:
        best = pending[0]
        done.add(id(best.caption))
        claimed.update(best.elements)
        regions.append(Region(best.caption, union([elements[i].bbox for i in best.elements])))
        pending = candidates()
    regions.extend(_unlabelled(page, elements, claimed, regions))
    return regions


def _content_elements(page: PageLayout, captions: list[Caption]) -> list[Element]:
    """Graphics and non-body, non-caption text lines outside the running header and footer."""
    body = [page.blocks[i].bbox for i in page.body_blocks]
    inside_margins = lambda b: b[1] >= page.header_bottom - 1 and b[3] <= page.footer_top + 1  # noqa: E731
    out: list[Element] = []
    for box in page.drawings + page.images:
        if not inside_margins(box):
            continue
        if any(intersection(box, b) > 0.6 * max(area(box), 1e-6) for b in body):
            continue  # rules and glyph-like paths inside paragraphs (fraction bars, underlines)
        out.append(Element(box, graphic=True))
    caption_boxes = [c.bbox for c in captions]
    for block in page.blocks:
        if block.number in page.body_blocks:
            continue
        for line in block.lines:
            if not inside_margins(line.bbox):
                continue
            if any(intersection(line.bbox, c) > 0.5 * max(area(line.bbox), 1e-6) for c in caption_boxes):
                continue
            out.append(Element(line.bbox, graphic=False))
    return out


def _span(caption: Caption, captions: list[Caption], doc: DocumentLayout) -> tuple[float, float]:
    """Horizontal extent a caption's figure may occupy.

    The caption's column; half of it for a narrow off-centre caption (side-by-side minipages); the
    full text width for a caption crossing the gutter.
    """
    x0, _, x1, _ = caption.bbox
    left, right = doc.column_of(x0, x1)
    width = right - left
    center = (x0 + x1) / 2
    if (x1 - x0) < 0.6 * width and abs(center - (left + right) / 2) > 0.15 * width:
        mid = (left + right) / 2
        return (left, mid) if center < mid else (mid, right)
    beside = [
        o for o in captions
        if o is not caption and o.bbox[1] < caption.bbox[3] and caption.bbox[1] < o.bbox[3]
        and doc.column_of(o.bbox[0], o.bbox[2]) == (left, right)
    ]  # fmt: skip
    for other in beside:
        other_center = (other.bbox[0] + other.bbox[2]) / 2
        mid = (center + other_center) / 2
        if other_center > center:
            right = min(right, mid)
        else:
            left = max(left, mid)
    return left, right


def _candidate(
    page: PageLayout,
    caption: Caption,
    direction: str,
    span: tuple[float, float],
    elements: list[Element],
    blockers: list[BBox],
    claimed: set[int],
) -> _Candidate | None:
    sx0, sx1 = span
    cx0, cy0, cx1, cy1 = caption.bbox
    min_overlap = 0.2 * (sx1 - sx0)

    def overlaps(b: BBox) -> bool:
        return min(b[2], sx1) - max(b[0], sx0) > min(min_overlap, 0.5 * (b[2] - b[0]))

    if direction == "up":
        limit = max([b[3] for b in blockers if b[3] <= cy0 + 2 and b != caption.bbox and overlaps(b)], default=page.header_bottom)
        top, bottom = limit, cy0
    else:
        limit = min([b[1] for b in blockers if b[1] >= cy1 - 2 and b != caption.bbox and overlaps(b)], default=page.footer_top)
        top, bottom = cy1, limit
    if bottom - top < 4:
        return None
    chosen = []
    for i, el in enumerate(elements):
        if i in claimed:
            continue
        ex0, ey0, ex1, ey1 = el.bbox
        xc, yc = (ex0 + ex1) / 2, (ey0 + ey1) / 2
        if sx0 - 6 <= xc <= sx1 + 6 and top - 2 <= yc <= bottom + 2 and ey0 >= top - 6 and ey1 <= bottom + 6:
            chosen.append(i)
    if not chosen or not any(elements[i].graphic for i in chosen) and len(chosen) < 2:
        return None
    box = union([elements[i].bbox for i in chosen])
    gap = cy0 - box[3] if direction == "up" else box[1] - cy1
    if gap > _MAX_GAP:
        return None
    usual = "up" if caption.kind == "figure" else "down"
    score = max(gap, 0.0) + (0.0 if direction == usual else _UNUSUAL_SIDE_PENALTY)
    return _Candidate(caption, direction, chosen, gap, score)


def _unlabelled(page: PageLayout, elements: list[Element], claimed: set[int], regions: list[Region]) -> list[Region]:
    """Large graphics no caption claimed: kept as unlabelled figures (logos and rules are too small)."""
    free = [el.bbox for i, el in enumerate(elements) if i not in claimed and el.graphic]
    groups: list[BBox] = []
    for box in sorted(free, key=lambda b: (b[1], b[0])):
        grown = (box[0] - 8, box[1] - 8, box[2] + 8, box[3] + 8)
        for j, g in enumerate(groups):
            if intersection(grown, g) > 0:
                groups[j] = union([g, box])
                break
        else:
            groups.append(box)
    page_area = page.width * page.height
    taken = [r.bbox for r in regions]
    out = []
    for g in groups:
        if area(g) < 0.04 * page_area or (g[2] - g[0]) < 80 or (g[3] - g[1]) < 60:
            continue
        if any(intersection(g, t) > 0.3 * area(g) for t in taken):
            continue
        out.append(Region(None, g))
    return out
