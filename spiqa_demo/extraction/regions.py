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

from collections import Counter
from dataclasses import dataclass

from spiqa_demo.extraction.captions import Caption
from spiqa_demo.extraction.geometry import area, contains, expand, overlap, union
from spiqa_demo.extraction.layout import Block, ClassifiedPage, DocumentLayout, PageFrame
from spiqa_demo.types import BBox

# -- assigning candidates to captions (scores are points of gap) ----------------------------------
# Points of gap added to a candidate on the caption's unusual side (tables under their caption,
# figures over it): a penalty, not a rule, because papers with tables captioned below exist.
_UNUSUAL_SIDE_PENALTY = 12.0
# Full-width captions in multi-column layouts claim their content first: a table spanning both
# columns would otherwise lose its right half to a figure in the right column just below it.
_FULL_WIDTH_BONUS = 6.0
# A caption is full width when it is more than this many columns wide.
_FULL_WIDTH_COLUMNS = 1.5
# A figure candidate whose graphics cover less than this share of its box is text (an equation or a
# paragraph beside the figure): it takes this many points of gap more, since a figure is drawn.
_FIGURE_INK_SHARE = 0.1
_TEXT_ONLY_FIGURE_PENALTY = 12.0
# A caption narrower than this share of its column may be set beside its figure (LNCS and
# `sidecaption` layouts): content on its left or right takes this many points of gap more than
# content above or below, which is the usual place.
_SIDE_CAPTION = 0.6
_BESIDE_PENALTY = 12.0
# A caption this close to content on its other side (pt), or at most this many times as far as to
# the contested content, can take that instead.
_CLOSE_GAP = 12.0
_CLOSE_GAP_RATIO = 2

# -- content a region is made of -----------------------------------------------------------------
# Content may reach this far (pt) into the running header's or footer's bound.
_MARGIN_SLACK = 1
# A text line more than this share inside a caption is part of the caption, not figure content.
_IN_CAPTION = 0.5
# A graphic more than this share inside a paragraph belongs to it (fraction bars, underlines); a
# hairline belongs to it when its ends lie within the paragraph give or take this much (pt).
_IN_PARAGRAPH = 0.6
_HAIRLINE_SLACK = 1
# ... and it is no taller than a line of it, or lies on one of its lines give or take this much (pt:
# a radical sign, an underline).
_ON_LINE = 2

# -- how far a caption's region reaches -----------------------------------------------------------
# A caption narrower than this share of its column and off its centre by more than this share of
# it sits in a side-by-side minipage: its figure is in its half of the column.
_NARROW_CAPTION = 0.6
_OFF_CENTRE = 0.15
# A paragraph or caption bounds the region when it overlaps the span by more than this share of the
# span (or this share of its own width, for one narrower than that).
_BLOCKER_SPAN_SHARE = 0.2
_BLOCKER_OWN_SHARE = 0.5
# Boxes this close (pt) touch: a paragraph ending this far into the caption line still bounds it,
# and content this far past the band's edges is in it.
_TOUCH = 2
# A band narrower than this between the caption and what bounds it (pt) holds no figure.
_MIN_BAND = 4
# Content lies in the caption's span when its centre is within this many points of it, or when it
# covers more than this share of the span (a figure wider than its column); it lies in the band
# when it ends within this many points of the band's edges, or, for a graphic, when more than this
# share of its height lies in the band (paths clipped away under the caption).
_SPAN_SLACK = 6
_COVERS_SPAN = 0.5
_BAND_SLACK = 6
_MOSTLY_IN_BAND = 0.6
# A graphic no thicker than this (pt) is a rule.
_RULE = 2
# A region with no graphic needs at least this many text lines (a table without rules).
_MIN_TEXT_LINES = 2
# Content further than this from its caption (pt) is not its figure.
_MAX_GAP = 120.0
# Inside one figure, pieces are never further apart than this many body-text line heights when
# another caption's content may follow; when only body text or the margin follows, diagrams with
# airy layouts need more room (first-page author blocks above a figure are further away).
_GAP_IN_BODY_SIZES = 1.6
_OPEN_GAP_FACTOR = 2.2
# Text past a figure's last graphic is kept up to a gap of this many body sizes; on the first page,
# text set no more than this much smaller than the body (pt) is the title or author block.
_TEXT_GAP_IN_BODY_SIZES = 1.2
_TITLE_SMALLER = 0.5

# -- graphics no caption claimed (`_unlabelled`) --------------------------------------------------
# Graphics this close (pt) are one group.
_GROUP_GAP = 8
# A group this many `_TOUCH`es from a captioned region, or closer, joins it when the space between
# them is clear.
_ADJACENT = 4
# A text line at most this many font sizes wide and high may be a panel's letter ("A", "(b)").
_PANEL_LETTER = 2.0
# ... and set no larger than this many times the body size.
_PANEL_LETTER_SIZE = 1.5
# A group more than this share inside a region is already that region's.
_CLAIMED_SHARE = 0.3
# A group in the top or bottom band of the page (shares of its height) and lower than this share of
# the page is a logo or a rule of the margin.
_TOP_BAND = 0.06
_BOTTOM_BAND = 0.96
_MARGIN_GROUP_HEIGHT = 0.1
# An unlabelled figure covers at least this share of the page and this many points each way.
_MIN_FIGURE_SHARE = 0.01
_MIN_FIGURE_WIDTH = 60
_MIN_FIGURE_HEIGHT = 24
# ... and body paragraphs cover less than this share of it.
_PROSE_SHARE = 0.3


@dataclass
class Element:
    bbox: BBox
    graphic: bool
    size: float = 0.0  # font size of a text line; 0 for graphics


@dataclass
class Region:
    """A caption's figure region, or an unlabelled figure (`caption is None`)."""

    caption: Caption | None
    bbox: BBox


@dataclass
class Candidate:
    """Content a caption could take on one side (`direction`): its elements (indices), their box, the
    gap to the caption and the score the assignment sorts by (the gap with penalties; lower wins)."""

    caption: Caption
    direction: str
    elements: list[int]
    gap: float
    score: float
    bbox: BBox
    drawn: bool  # it holds a graphic other than a rule (`_drawn`)


Sides = dict[str, str]
_OPPOSITE = {"up": "down", "down": "up"}
DEFAULT_SIDES: Sides = {"figure": "up", "table": "down"}


class PageSearch:
    """Candidate regions of one page's captions, given what other captions already claimed."""

    def __init__(self, page: ClassifiedPage, doc: DocumentLayout, captions: list[Caption]) -> None:
        self.page = page.frame  # not the page: its glyph runs are freed once every page is searched
        self.captions = captions
        self.elements = _content_elements(page, captions)
        self.prose = [page.blocks[i].bbox for i in sorted(page.body_blocks)]
        self.blockers = self.prose + [c.bbox for c in captions]
        self.spans = {c: _span(c, captions, doc) for c in captions}
        column = min(right - left for left, right in doc.columns)
        self.full_width = {
            key: len(doc.columns) > 1 and (x1 - x0) > _FULL_WIDTH_COLUMNS * column for key, (x0, x1) in self.spans.items()
        }
        self.body_size = doc.body_size
        self.max_gap = _GAP_IN_BODY_SIZES * doc.body_size
        self.columns = {c: doc.column_of(c.bbox[0], c.bbox[2]) for c in captions}
        self.text_width = (min(left for left, _ in doc.columns), max(right for _, right in doc.columns))

    def candidates(self, sides: Sides, claimed: set[int], done: set[Caption]) -> list[Candidate]:
        out = []
        content_sides = {c.bbox: sides[c.kind] for c in self.captions}
        for c in self.captions:
            if c in done:
                continue
            own = []
            for direction in ("up", "down"):
                cand = _candidate(
                    self.page, c, direction, self.spans[c], self.elements, self.blockers, claimed,
                    self.max_gap, content_sides, sides[c.kind], self.full_width[c],
                )  # fmt: skip
                if cand is not None:
                    own.append(cand)
            left, right = self.columns[c]
            # A figure with nothing drawn over or under its caption may be set in the next column,
            # its legend filling a column of its own beside it (Nature Communications).
            undrawn = c.kind == "figure" and not any(cand.drawn for cand in own)
            if c.bbox[2] - c.bbox[0] < _SIDE_CAPTION * (right - left) or undrawn:
                for direction in ("left", "right"):
                    # In its column, else across the columns: a caption in the first column set
                    # beside a table as wide as the text (Springer's "Table 1 | Source of reagents").
                    cand = _beside(c, direction, (left, right), self.elements, self.blockers, claimed, self.max_gap)
                    if (cand is None or (undrawn and not cand.drawn)) and (not own or undrawn):
                        across = _beside(c, direction, self.text_width, self.elements, self.blockers, claimed, self.max_gap)
                        cand = across if cand is None or (across is not None and across.drawn) else cand
                    if cand is not None:
                        own.append(cand)
            if c.kind == "figure" and any(cand.drawn and cand.direction != _OPPOSITE[sides[c.kind]] for cand in own):
                # A figure drawn on its usual side or beside its caption: the text on its other
                # side is its legend (set apart from the caption's first line), or a neighbour's,
                # never this figure.
                own = [cand for cand in own if cand.drawn]
            out += own
        return sorted(out, key=lambda cand: cand.score)


def caption_sides(searches: list[PageSearch]) -> Sides:
    """Where this document puts content relative to captions, per kind, by majority of clear cases.

    A paper sets all its table captions above or all below (mostly); voting on the nearer side
    of each caption keeps a stack of tables from shifting every caption onto its neighbour's table.
    Only a figure candidate holding a graphic votes for figures: a legend set in smaller type under
    its caption (Cell Press, Nature) is the nearest text to every caption, not the figures' side.
    """
    votes: dict[str, Counter[str]] = {"figure": Counter(), "table": Counter()}
    for search in searches:
        best: dict[Caption, Candidate] = {}
        for cand in search.candidates(DEFAULT_SIDES, set(), set()):
            if cand.caption.kind == "figure" and not cand.drawn:
                continue
            if cand.caption not in best or cand.gap < best[cand.caption].gap:
                best[cand.caption] = cand
        for cand in best.values():
            votes[cand.caption.kind][cand.direction] += 1
    sides = dict(DEFAULT_SIDES)
    for kind, counter in votes.items():
        if counter["up"] != counter["down"]:
            sides[kind] = "up" if counter["up"] > counter["down"] else "down"
    return sides


def page_search(page: ClassifiedPage, doc: DocumentLayout, captions: list[Caption]) -> PageSearch:
    return PageSearch(page, doc, captions)


def find_regions(search: PageSearch, sides: Sides) -> list[Region]:
    """Regions for the page's captions (those with no content are dropped) plus unlabelled figures."""
    claimed: set[int] = set()
    done: set[Caption] = set()
    regions: list[Region] = []

    def candidates() -> list[Candidate]:
        return search.candidates(sides, claimed, done)

    pending = candidates()
    while pending:
        best = next((c for c in pending if not _starves(c, pending)), pending[0])
        done.add(best.caption)
        claimed.update(best.elements)
        regions.append(Region(best.caption, best.bbox))
        pending = candidates()
    regions.extend(_unlabelled(search, claimed, regions))
    return regions


def _starves(cand: Candidate, pending: list[Candidate]) -> bool:
    """Taking `cand` would leave another caption with no content while its own caption has another.

    Two tables stacked with captions below them: the first caption's "usual side" (below) is the
    second table, which is the second caption's only content.
    """
    taken = set(cand.elements)
    others = {c.caption for c in pending if c.caption is not cand.caption}
    alternative = any(
        c.caption is cand.caption and c is not cand and not taken & set(c.elements) and c.gap <= max(_CLOSE_GAP, _CLOSE_GAP_RATIO * cand.gap)
        for c in pending
    )
    if not alternative:
        return False
    for other in others:
        theirs = [c for c in pending if c.caption == other]
        if all(taken & set(c.elements) for c in theirs):
            return True
    return False


def _content_elements(page: ClassifiedPage, captions: list[Caption]) -> list[Element]:
    """Graphics and non-body, non-caption text lines outside the running header and footer."""
    body = [page.blocks[i] for i in page.body_blocks]

    def inside_margins(b: BBox) -> bool:
        return b[1] >= page.header_bottom - _MARGIN_SLACK and b[3] <= page.footer_top + _MARGIN_SLACK

    def in_paragraph(box: BBox, block: Block) -> bool:
        # Inside the paragraph's box, and no taller than a line of it or on one of its lines: a
        # figure inside the box of a paragraph wrapped around it is taller and lies beside its lines.
        if not _contains(block.bbox, box):
            return False
        glyph_like = box[3] - box[1] <= max(line.y1 - line.y0 for line in block.lines)
        return glyph_like or any(_meet(expand(line.bbox, _ON_LINE), box) for line in block.lines)

    out: list[Element] = []
    caption_boxes = [c.bbox for c in captions]
    images = set(page.images)
    for box in page.drawings + page.images:
        if not inside_margins(box):
            continue
        if any(in_paragraph(box, b) for b in body):
            continue  # rules and glyph-like paths inside paragraphs (fraction bars, underlines)
        if box not in images and any(overlap(box, c) > _IN_CAPTION * area(c) for c in caption_boxes):
            continue  # a frame or a shade drawn behind a caption (EMBO's boxed legends) is not its figure
        out.append(Element(box, graphic=True))
    for block in page.blocks:
        if block.number in page.body_blocks:
            continue
        for line in block.lines:
            if not inside_margins(line.bbox):
                continue
            if any(overlap(line.bbox, c) > _IN_CAPTION * max(area(line.bbox), 1e-6) for c in caption_boxes):
                continue
            out.append(Element(line.bbox, graphic=False, size=line.size))
    return out


def _meet(a: BBox, b: BBox) -> bool:
    """`a` and `b` share a point (a hairline, with no area, meets what it touches)."""
    return max(a[0], b[0]) <= min(a[2], b[2]) and max(a[1], b[1]) <= min(a[3], b[3])


def _contains(outer: BBox, inner: BBox) -> bool:
    """`inner` lies (mostly) inside `outer`; hairlines (zero area) count by their end points."""
    if area(inner) > 0:
        return overlap(outer, inner) > _IN_PARAGRAPH * area(inner)
    return contains(outer, inner, margin=_HAIRLINE_SLACK)


def _span(caption: Caption, captions: list[Caption], doc: DocumentLayout) -> tuple[float, float]:
    """Horizontal extent a caption's figure may occupy.

    The caption's column; half of it for a narrow off-centre caption (side-by-side minipages); the
    full text width for a caption crossing the gutter.
    """
    x0, _, x1, _ = caption.bbox
    left, right = doc.column_of(x0, x1)
    width = right - left
    center = (x0 + x1) / 2
    if (x1 - x0) < _NARROW_CAPTION * width and abs(center - (left + right) / 2) > _OFF_CENTRE * width:
        mid = (left + right) / 2
        return (left, mid) if center < mid else (mid, right)
    # Captions level with this one and over its extent (side-by-side minipages, in one column or
    # across the gutter: three tables in a row under a page-wide band) share it at the midpoints.
    beside = [
        o for o in captions
        if o is not caption and o.bbox[1] < caption.bbox[3] and caption.bbox[1] < o.bbox[3]
        and o.bbox[0] < right and o.bbox[2] > left
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
    page: PageFrame,
    caption: Caption,
    direction: str,
    span: tuple[float, float],
    elements: list[Element],
    blockers: list[BBox],
    claimed: set[int],
    max_gap: float,
    content_sides: dict[BBox, str],
    usual: str,
    full_width: bool,
) -> Candidate | None:
    sx0, sx1 = span
    _, cy0, _, cy1 = caption.bbox
    body_size = max_gap / _GAP_IN_BODY_SIZES
    min_overlap = _BLOCKER_SPAN_SHARE * (sx1 - sx0)

    def overlaps(b: BBox) -> bool:
        # Text that ends before the caption begins (or starts after it ends) runs beside the
        # figure (a paragraph wrapped around it), not across its band.
        beside = b[2] < caption.bbox[0] or b[0] > caption.bbox[2]
        return not beside and min(b[2], sx1) - max(b[0], sx0) > min(min_overlap, _BLOCKER_OWN_SHARE * (b[2] - b[0]))

    if direction == "up":
        above = [b for b in blockers if b[3] <= cy0 + _TOUCH and b != caption.bbox and overlaps(b)]
        nearest = max(above, key=lambda b: b[3], default=None)
        top, bottom = (nearest[3] if nearest else page.header_bottom), cy0
    else:
        below = [b for b in blockers if b[1] >= cy1 - _TOUCH and b != caption.bbox and overlaps(b)]
        nearest = min(below, key=lambda b: b[1], default=None)
        top, bottom = cy1, (nearest[1] if nearest else page.footer_top)
    # Content between two captions is shared: split it at a clear gap. Content bounded by body
    # text belongs to this caption whole (diagrams have wide internal gaps).
    bounded_by = content_sides.get(nearest) if nearest is not None else None
    if bounded_by is None:
        max_gap *= _OPEN_GAP_FACTOR
    if bottom - top < _MIN_BAND:
        return None
    boxes: dict[int, BBox] = {}
    for i, el in enumerate(elements):
        if i in claimed:
            continue
        ex0, ey0, ex1, ey1 = el.bbox
        xc, yc = (ex0 + ex1) / 2, (ey0 + ey1) / 2
        covers = min(ex1, sx1) - max(ex0, sx0) > _COVERS_SPAN * (sx1 - sx0)  # a figure wider than its column
        if not (sx0 - _SPAN_SLACK <= xc <= sx1 + _SPAN_SLACK or covers) or not top - _TOUCH <= yc <= bottom + _TOUCH:
            continue
        if not sx0 - _SPAN_SLACK <= xc <= sx1 + _SPAN_SLACK:
            ex0, ex1 = max(ex0, sx0), min(ex1, sx1)  # only the part over this column is this figure's
        if ey0 >= top - _BAND_SLACK and ey1 <= bottom + _BAND_SLACK:
            boxes[i] = (ex0, ey0, ex1, ey1)
        elif el.graphic and min(ey1, bottom) - max(ey0, top) > _MOSTLY_IN_BAND * (ey1 - ey0):
            boxes[i] = (ex0, max(ey0, top), ex1, min(ey1, bottom))  # paths clipped away under the caption
    if bounded_by == ("up" if direction == "down" else "down"):
        boxes = _near_part(boxes, direction)
    # In a band no other caption bounds, a figure's drawn panels lie whatever the gap between them
    # (pdffigures2 grows a figure up to the body text): text past a wide gap does not join it.
    leap = {i for i in boxes if is_drawn(elements[i])} if bounded_by is None and caption.kind == "figure" else set()
    chosen = _contiguous(boxes, direction, cy0 if direction == "up" else cy1, max_gap, leap)
    chosen = _trim_far_text(chosen, boxes, elements, direction, body_size, first_page=page.number == 1)
    if not chosen or (not any(elements[i].graphic for i in chosen) and len(chosen) < _MIN_TEXT_LINES):
        return None
    box = union([boxes[i] for i in chosen])
    gap = cy0 - box[3] if direction == "up" else box[1] - cy1
    score = max(gap, 0.0) + (0.0 if direction == usual else _UNUSUAL_SIDE_PENALTY)
    score += _text_only_penalty(caption, chosen, boxes, elements, box)
    if full_width:
        score -= _FULL_WIDTH_BONUS
    return Candidate(caption, direction, chosen, gap, score, box, _drawn(chosen, elements))


def _beside(
    caption: Caption,
    direction: str,
    column: tuple[float, float],
    elements: list[Element],
    blockers: list[BBox],
    claimed: set[int],
    max_gap: float,
) -> Candidate | None:
    """The content set beside a narrow caption (`direction` "left" or "right"), inside its column:
    what lies level with the caption, and what joins that within `max_gap` up or down, between the
    nearest paragraphs above and below on that side."""
    cx0, cy0, cx1, cy1 = caption.bbox
    sx0, sx1 = (column[0] - _SPAN_SLACK, cx0) if direction == "left" else (cx1, column[1] + _SPAN_SLACK)
    if sx1 - sx0 < _MIN_BAND:
        return None

    def on_side(b: BBox) -> bool:
        return b[0] >= sx0 - _TOUCH and b[2] <= sx1 + _TOUCH

    side = [b for b in blockers if b != caption.bbox and min(b[2], sx1) - max(b[0], sx0) > _TOUCH]
    top = max((b[3] for b in side if b[3] <= cy0 + _TOUCH), default=float("-inf"))
    bottom = min((b[1] for b in side if b[1] >= cy1 - _TOUCH), default=float("inf"))
    boxes = {
        i: el.bbox for i, el in enumerate(elements)
        if i not in claimed and on_side(el.bbox) and el.bbox[1] >= top - _TOUCH and el.bbox[3] <= bottom + _TOUCH
    }  # fmt: skip
    chosen = [i for i, b in boxes.items() if b[1] < cy1 and b[3] > cy0]  # level with the caption
    if not chosen:
        return None
    box = union([boxes[i] for i in chosen])
    grown = True
    while grown:
        grown = False
        for i, b in boxes.items():
            if i not in chosen and (box[1] - b[3] <= max_gap and b[1] - box[3] <= max_gap):
                chosen.append(i)
                box = union([box, b])
                grown = True
    if not any(elements[i].graphic for i in chosen) and len(chosen) < _MIN_TEXT_LINES:
        return None
    gap = cx0 - box[2] if direction == "left" else box[0] - cx1
    score = max(gap, 0.0) + _BESIDE_PENALTY + _text_only_penalty(caption, chosen, boxes, elements, box)
    return Candidate(caption, direction, sorted(chosen), gap, score, box, _drawn(chosen, elements))


def is_drawn(element: Element) -> bool:
    """A graphic that is more than a rule (a rule sets a legend or a table apart)."""
    return element.graphic and min(element.bbox[2] - element.bbox[0], element.bbox[3] - element.bbox[1]) > _RULE


def _drawn(chosen: list[int], elements: list[Element]) -> bool:
    return any(is_drawn(elements[i]) for i in chosen)


def _text_only_penalty(caption: Caption, chosen: list[int], boxes: dict[int, BBox], elements: list[Element], box: BBox) -> float:
    """`_TEXT_ONLY_FIGURE_PENALTY` for a figure candidate whose graphics cover little of its `box`."""
    drawn = sum(area(boxes[i]) for i in chosen if elements[i].graphic)
    return _TEXT_ONLY_FIGURE_PENALTY if caption.kind == "figure" and drawn < _FIGURE_INK_SHARE * area(box) else 0.0


def _trim_far_text(
    chosen: list[int], boxes: dict[int, BBox], elements: list[Element], direction: str, body: float, first_page: bool
) -> list[int]:
    """Drop text beyond the last graphic when a clear gap separates it or, on the first page, when
    it is set at body size or larger (the title and author block right above a teaser figure).
    Text-only regions (tables without rules) are kept whole."""
    gap = _TEXT_GAP_IN_BODY_SIZES * body
    too_large = body - _TITLE_SMALLER if first_page else float("inf")
    graphic_at = [n for n, i in enumerate(chosen) if elements[i].graphic]
    if not graphic_at or graphic_at[-1] == len(chosen) - 1:
        return chosen
    up = direction == "up"
    core = chosen[: graphic_at[-1] + 1]
    frontier = min(boxes[i][1] for i in core) if up else max(boxes[i][3] for i in core)
    kept = list(core)
    for i in chosen[len(core) :]:
        b = boxes[i]
        if (frontier - b[3] if up else b[1] - frontier) > gap or elements[i].size >= too_large:
            break
        kept.append(i)
        frontier = min(frontier, b[1]) if up else max(frontier, b[3])
    return kept


def _near_part(boxes: dict[int, BBox], direction: str) -> dict[int, BBox]:
    """The content on this caption's side of the widest gap in `boxes`: the band is bounded by a
    caption whose content faces this one (a table's caption above its rows, a figure's caption under
    its graphic), so the band holds both items, one after the other (stacked tables, a figure under
    a table); each caption takes its part of the band."""
    up = direction == "up"
    order = sorted(boxes, key=lambda i: -boxes[i][3] if up else boxes[i][1])
    widest, cut = 0.0, len(order)
    frontier: float | None = None
    for n, i in enumerate(order):
        _, y0, _, y1 = boxes[i]
        if frontier is not None:
            gap = frontier - y1 if up else y0 - frontier
            if gap > widest:
                widest, cut = gap, n
            frontier = min(frontier, y0) if up else max(frontier, y1)
        else:
            frontier = y0 if up else y1
    return {i: boxes[i] for i in order[:cut]}


def _contiguous(boxes: dict[int, BBox], direction: str, edge: float, max_gap: float, leap: set[int]) -> list[int]:
    """The elements reached from the caption edge without crossing a vertical gap over `max_gap`,
    or one up to `_MAX_GAP` to reach an element of `leap` (text met on the way is passed over).

    Content beyond such a gap belongs to something else (the next figure or table in the column).
    """
    up = direction == "up"
    order = sorted(boxes, key=lambda i: -boxes[i][3] if up else boxes[i][1])
    chosen: list[int] = []
    frontier = edge
    for i in order:
        _, y0, _, y1 = boxes[i]
        gap = frontier - y1 if up else y0 - frontier
        if gap > (_MAX_GAP if not chosen else max_gap):
            if chosen and gap <= _MAX_GAP and leap:
                if i not in leap:
                    continue
            else:
                break
        chosen.append(i)
        frontier = min(frontier, y0) if up else max(frontier, y1)
    return chosen


def _unlabelled(search: PageSearch, claimed: set[int], regions: list[Region]) -> list[Region]:
    """Graphics no caption claimed: merged into the captioned region they complete (panels past a
    wide gap or beside it), else kept as unlabelled figures when large (logos and stray rules are
    too small)."""
    page, elements = search.page, search.elements
    free = [el.bbox for i, el in enumerate(elements) if i not in claimed and el.graphic]
    groups: list[BBox] = []
    for box in sorted(free, key=lambda b: (b[1], b[0])):
        grown = expand(box, _GROUP_GAP)
        for j, g in enumerate(groups):
            if overlap(grown, g) > 0:
                groups[j] = union([g, box])
                break
        else:
            groups.append(box)
    left = groups
    merged = True
    while merged:  # a region grown by one group may reach the next
        merged, pending = False, []
        for g in left:
            if any(overlap(g, r.bbox) > _CLAIMED_SHARE * area(g) for r in regions):
                continue
            host = _completed_region(g, regions, search.blockers)
            if host is None:
                pending.append(g)
                continue
            host.bbox = union([host.bbox, g])
            merged = True
        left = pending
    for i, el in enumerate(elements):  # panel letters ("A", "(b)") set beside the panels they name
        if i in claimed or el.graphic or max(el.bbox[2] - el.bbox[0], el.bbox[3] - el.bbox[1]) > _PANEL_LETTER * el.size:
            continue
        if el.size > _PANEL_LETTER_SIZE * search.body_size:  # a logo's glyphs
            continue
        if any(overlap(el.bbox, r.bbox) > 0 for r in regions):
            continue
        host = _completed_region(el.bbox, regions, search.blockers)
        if host is not None and host.caption is not None and host.caption.kind == "figure":
            host.bbox = union([host.bbox, el.bbox])
    _take_adjacent_text(search, claimed, regions)
    page_area = page.width * page.height

    def figure_sized(g: BBox) -> bool:
        in_margin = (g[1] < _TOP_BAND * page.height or g[3] > _BOTTOM_BAND * page.height) and g[3] - g[1] < _MARGIN_GROUP_HEIGHT * page.height
        return not in_margin and area(g) >= _MIN_FIGURE_SHARE * page_area and (g[2] - g[0]) >= _MIN_FIGURE_WIDTH and (g[3] - g[1]) >= _MIN_FIGURE_HEIGHT

    # A frame or a shade drawn around paragraphs (a boxed summary, a page's rules) holds text, not a figure.
    figures = [g for g in left if figure_sized(g) and sum(overlap(g, b) for b in search.prose) < _PROSE_SHARE * area(g)]
    return [Region(None, g) for g in _joined(figures, regions, search.blockers)]


def _take_adjacent_text(search: PageSearch, claimed: set[int], regions: list[Region]) -> None:
    """Grow each figure region over the figure text no caption claimed that touches it (a panel's
    key or axis labels past the last graphic, set at its side, smaller than the body text: an
    author block over a teaser figure is not), as long as nothing of the page's
    text separates them (`_completed_region`): pdffigures2 takes every non-body line its region
    overlaps. Repeated, since a line taken may reach the next."""
    elements = search.elements
    left, right = search.text_width
    free = [
        el.bbox for i, el in enumerate(elements)
        if i not in claimed and not el.graphic and el.size < search.body_size - _TITLE_SMALLER  # not a title or author block
        and el.bbox[0] >= left - _SPAN_SLACK and el.bbox[2] <= right + _SPAN_SLACK  # not a note in the margin
    ]  # fmt: skip
    grown = True
    while grown and free:
        grown = False
        for box in list(free):
            if any(overlap(box, r.bbox) > _CLAIMED_SHARE * area(box) for r in regions):
                free.remove(box)  # already inside a region
                continue
            near = [r for r in regions if r.caption is not None and r.caption.kind == "figure" and _meet(expand(r.bbox, _GROUP_GAP), box)]
            host = _completed_region(box, near, search.blockers, bridge=False) if near else None
            if host is None or _completed_region(box, regions, search.blockers, bridge=False) is not host:
                continue
            host.bbox = union([host.bbox, box])
            free.remove(box)
            grown = True


def _joined(groups: list[BBox], regions: list[Region], blockers: list[BBox]) -> list[BBox]:
    """`groups` joined wherever the box holding two of them meets no paragraph, caption or region:
    the panels of a figure whose caption is on another page (a figure set on a page of its own)."""
    out = list(groups)
    joined = True
    while joined:
        joined = False
        for a in range(len(out)):
            for b in range(a + 1, len(out)):
                hull = expand(union([out[a], out[b]]), -_TOUCH)
                if any(overlap(hull, x) > 0 for x in blockers) or any(overlap(hull, r.bbox) > 0 for r in regions):
                    continue
                out[a] = union([out[a], out[b]])
                del out[b]
                joined = True
                break
            if joined:
                break
    return out


def _completed_region(group: BBox, regions: list[Region], blockers: list[BBox], bridge: bool = True) -> Region | None:
    """The nearest captioned region whose box joined with `group` holds no paragraph, no caption and
    no other region: nothing of the page's text separates them, so they are one figure (pdffigures2
    grows a figure up to the body text and captions around it; the panels of a figure set across
    the page over a caption in one column lie beside the part its column holds). With `bridge`, a
    group touching the region, or this close to it (`_ADJACENT`), needs only the space between the
    two clear: the panels of a figure wrapped around its side caption make an L whose box holds the
    caption. Text never bridges: a legend's lines run on beside its figure."""
    best: tuple[float, Region] | None = None
    for region in regions:
        if region.caption is None:
            continue
        r = region.bbox
        distance = max(r[0] - group[2], group[0] - r[2], 0.0) + max(r[1] - group[3], group[1] - r[3], 0.0)
        if not _clear(union([r, group]), region, regions, blockers) and not (
            bridge and distance <= _ADJACENT * _TOUCH and _clear(_between_boxes(r, group), region, regions, blockers)
        ):
            continue
        if best is None or distance < best[0]:
            best = (distance, region)
    return best[1] if best is not None else None


def _clear(box: BBox, region: Region, regions: list[Region], blockers: list[BBox]) -> bool:
    """No paragraph, caption or region other than `region` lies in `box` (past its edges)."""
    inner = expand(box, -_TOUCH)
    return not any(overlap(inner, b) > 0 for b in blockers) and not any(o is not region and overlap(inner, o.bbox) > 0 for o in regions)


def _between_boxes(a: BBox, b: BBox) -> BBox:
    """The space between `a` and `b`: on each axis their overlap, or the gap between them."""
    x0, x1 = sorted((max(a[0], b[0]), min(a[2], b[2])))
    y0, y1 = sorted((max(a[1], b[1]), min(a[3], b[3])))
    return x0, y0, x1, y1
