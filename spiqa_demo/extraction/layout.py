"""Page layout: text lines, graphics, columns and body text, from one PyMuPDF parse per page.

Everything later stages need from the PDF is read here once per page (`get_text("dict")`,
drawings and image boxes), so the rest of extraction is pure geometry on
small dataclasses. The document-level statistics (body font size, column edges) come from a first
pass over all pages because a single page is too small a sample (a page full of figures has
almost no body text).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import pairwise
from statistics import median

from spiqa_demo.extraction.geometry import Box, area, overlap, union
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.pixels import check_image
from spiqa_demo.extraction.tables import Word, glued_space, page_words
from spiqa_demo.paper_text import parse_caption_label
from spiqa_demo.types import BBox

# -- reading a page (`read_page`) ----------------------------------------------------------------
# A line is "bold" when PyMuPDF flags it or the font name says so (Type 1 LaTeX fonts such as
# CMBX carry no flag).
_BOLD_FLAG = 16
_BOLD_NAMES = ("bold", "cmbx", "black", "heavy", "semibold", ".b", "-b")
# The glyphs' bodies, in font sizes from the baseline: capitals reach this far up, and this much
# below it covers the baseline's overshoot, not descenders (how pdffigures2 measures captions).
_CAP_HEIGHT = 0.72
_BELOW_BASELINE = 0.1
# A colour whose every channel (0-1) is above this is white: plotting tools paint white backgrounds.
_WHITE = 0.97
# A reader's highlight baked into the page: a filled band at least this wide and at most this tall
# (pt, about one line), more than this share of it over text lines.
_HIGHLIGHT_MIN_WIDTH = 20
_HIGHLIGHT_MAX_HEIGHT = 16
_HIGHLIGHT_ON_TEXT = 0.5
# A drawing cluster smaller than this on both sides (pt) is a speck; one covering more than this
# share of the page is a frame or background, not a figure.
_MIN_GRAPHIC = 4
_MAX_GRAPHIC_SHARE = 0.85
# An image this small or smaller on a side (pt) is a spacer or bullet.
_MIN_IMAGE = 2
# A line runs across the page when its direction's cosine is more than this (`line_text`).
_HORIZONTAL = 0.99
# Pieces PyMuPDF splits off one printed line: they overlap vertically by more than this share of
# the shorter piece and sit less than this many font sizes apart.
_ROW_OVERLAP = 0.6
_ROW_MAX_GAP = 3
# ... unless the piece opens a caption set beside another one.
_CAPTION_START = re.compile(r"(Fig|FIG|Table|TABLE)")
# Line numbers in a page's margin: bare integers, at least this many on the page, and this share of
# them greater than the one above.
_LINE_NUMBER = re.compile(r"\d{1,5}")
_MIN_LINE_NUMBERS = 5
_LINE_NUMBERS_RISING = 0.8
# Text lines whose middles lie within this many points of each other are one printed row.
_SAME_ROW = 2

# -- document statistics (`analyse_document`) ----------------------------------------------------
# What a document with no text or no pages is taken to be: 10 pt body text on US Letter paper (pt).
_DEFAULT_BODY_SIZE = 10.0
_DEFAULT_PAGE_WIDTH = 612.0
# Body lines, whose edges give the columns: within this many points of the body size, and wider than
# this share of the page (headings and figure labels are shorter).
_BODY_SIZE_SLACK = 1.0
_MIN_BODY_LINE_WIDTH = 0.25
# Line edges are counted on a grid of this many points, so justified lines a fraction of a point
# apart vote for one edge.
_EDGE_GRID = 2
# A column edge is where at least this share of body lines start (or end); an edge within this
# many points of a stronger one is the same edge.
_MIN_EDGE_SHARE = 0.06
_EDGE_MERGE = 8
# A column is wider than this share of the page (a narrower pair of edges is a table's or a list's).
_MIN_COLUMN_WIDTH = 0.25
# The paper's line pitch is the most common step (to 1 / `_PITCH_STEPS` pt) between the baselines of
# body lines one under the other, counting steps up to this many font sizes (not a paragraph's gap).
_PITCH_STEPS = 2
_MAX_PITCH = 3
# The text area assumed when no column is found: the page less 10% margins on either side.
_FALLBACK_COLUMN = (0.1, 0.9)
# An extent belongs to a column when it lies within this many points of its edges, or when more
# than this share of it lies over the column.
_COLUMN_SLACK = 12
_COLUMN_OVERLAP = 0.8

# -- body text (`classify_page`) -----------------------------------------------------------------
# Text inside a drawing of more than this many times its block's area, with more than this share of
# the block inside it, is framed by the graphic (table rules, a plot's axes).
_FRAME_SIZE = 1.5
_FRAMED_SHARE = 0.8
# A column rule: thinner than this (pt), more than this far inside the block's sides (pt), and
# running along more than this share of its height.
_RULE_WIDTH = 2
_RULE_INSET = 4
_RULE_RUN = 0.8
# Body text is set at the body size: from this much smaller (pt) to this much larger.
_BODY_SMALLER = 0.6
_BODY_LARGER = 1.0
# A size larger than the body's holding at least this share of a paper's characters is a second
# paragraph size (titles and headings hold far less).
_SECOND_PROSE_SHARE = 0.25
# Where a block starts against its column's left edge (pt): a paragraph within `_MAX_INDENT` (first
# lines are indented), a heading within `_EDGE_SLACK`; a block of at least `_MIN_INSET_LINES` lines
# inside the column's edges (give or take `_EDGE_SLACK`) may start further in (a list, a quotation).
_MAX_INDENT = 20
_EDGE_SLACK = 4
_MIN_INSET_LINES = 3
# A full line ends within this many points of the column's right edge and is at least this share of
# the column wide.
_FULL_LINE_END = 6
_FULL_LINE_WIDTH = 0.6
# Most of a column's width: a one-line paragraph (with at least this many words) and each line of
# an indented paragraph is this wide.
_MOST_OF_COLUMN = 0.7
_ONE_LINE_WORDS = 6
# A heading has at most this many words (a one-line heading) or lines (a heading block), and at least
# this many words; it may be set this much smaller than the body (pt) and still bound figures.
_HEADING_MAX_WORDS = 12
_HEADING_MAX_LINES = 3
_HEADING_MIN_WORDS = 2
# ... one of them at least this long.
_HEADING_MIN_WORD = 3
_HEADING_SMALLER = 0.5
# An indented paragraph (abstract, quotation): at least this many lines before its last, which end
# within this many points of one right edge, and at least this share of its words has letters.
_INDENTED_MIN_LINES = 3
_JUSTIFIED = 2
_INDENTED_WORDS = 0.8
# A ragged-right paragraph: this share of its lines before the last is most of the column wide.
_RAGGED_LONG = 0.75
# Prose: at least this share of its words open in lower case.
_PROSE_LOWER = 0.6
_WORD = re.compile(r"[(\[\"“]?[^\W\d_]+(-[^\W\d_]+)*[)\]\"”,.;:]*")
# The first page's abstract may be set a point smaller than the body (pt; the sizes PyMuPDF reports
# for one font vary by a tenth or two).
_FRONT_SMALLER = 1.2
# Footnote marks.
_NOTE_MARKS = "*∗†‡§¶#"
# Two blocks set within this many points of each other are in one size.
_SAME_SIZE = 0.3
# A paragraph wrapped around a figure at one side of the column: at least this many lines before its
# last cut at one wrap edge (within `_JUSTIFIED` points), each at least this share of the column wide,
# the others reaching the column's edge on that side.
_WRAPPED_MIN_LINES = 2
_WRAPPED_WIDTH = 0.3
# Most of those lines (this share; the others end a paragraph inside the block) end at either edge.
_WRAPPED_JUSTIFIED = 0.8

# -- running headers and footers -----------------------------------------------------------------
# The top and bottom bands of a page (shares of its height) where running headers and footers lie.
_TOP_BAND = 0.085
_BOTTOM_BAND = 0.92
# Running graphics (logos, tabs) lie within this share of the page's height from its top (a logo
# reaches lower than a running line), and are thicker than this (pt) both ways (not rules).
_DRESS_TOP = 0.1
_DRESS_RULE = 2
# ... or taller than this share of the page and narrower than this share of its width: a column
# rule or a band masking a gutter (Science's, a bitmap spanning the text height), which no figure
# repeats page after page (a scanned page's image does: it is as wide as the page).
_DRESS_TALL = 0.6
_DRESS_NARROW = 0.05
# Running lines are compared at heights rounded to this many points.
_MARGIN_GRID = 4
# A running line recurs on this many pages (fewer in a document shorter than `_SHORT_DOCUMENT`).
_RUNNING_PAGES = 3
_RUNNING_PAGES_SHORT = 2
_SHORT_DOCUMENT = 4
# The rule under a running header: within this many points under it, thinner than this (pt),
# wider than this share of the page; the header ends this far (pt) under the rule.
_HEADER_RULE_GAP = 8
_HEADER_RULE_HEIGHT = 3
_HEADER_RULE_WIDTH = 0.4
_HEADER_RULE_CLEARANCE = 1.5


@dataclass
class Span:
    text: str
    bbox: BBox
    size: float
    font: str
    bold: bool
    baseline: float = 0.0


@dataclass
class Line:
    """One text line; `block` and `index` locate it in PyMuPDF's block structure."""

    text: str
    bbox: BBox
    size: float
    spans: list[Span]
    block: int
    index: int

    @property
    def x0(self) -> float:
        return self.bbox[0]

    @property
    def y0(self) -> float:
        return self.bbox[1]

    @property
    def x1(self) -> float:
        return self.bbox[2]

    @property
    def y1(self) -> float:
        return self.bbox[3]

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]

    @property
    def baseline(self) -> float:
        """Where the line's text sits: its first span in the line's own size (a superscript's raised
        baseline is not the line's)."""
        return next((s.baseline for s in self.spans if abs(s.size - self.size) <= _SAME_SIZE), self.spans[0].baseline)

    @property
    def ink_bbox(self) -> BBox:
        """The box of the glyphs' bodies (cap height to just under the baseline), as pdffigures2
        measures captions; PyMuPDF's line box adds the font's full ascender and descender."""
        top = min(s.baseline - _CAP_HEIGHT * s.size for s in self.spans)
        bottom = max(s.baseline + _BELOW_BASELINE * s.size for s in self.spans)
        return (self.x0, max(self.y0, top), self.x1, min(self.y1, bottom))


@dataclass
class Block:
    """A PyMuPDF text block (usually a paragraph) and its lines."""

    number: int
    lines: list[Line]

    @property
    def bbox(self) -> BBox:
        return union([line.bbox for line in self.lines])

    @property
    def size(self) -> float:
        return _main_size(self.lines)

    @property
    def text(self) -> str:
        return join_lines([line.text for line in self.lines])


@dataclass(frozen=True)
class PageLayout:
    """What one page holds (`read_page`): text blocks with their glyph runs, and graphics boxes."""

    number: int  # 1-based
    width: float
    height: float
    blocks: list[Block]
    drawings: list[BBox]
    images: list[BBox]
    # Its words as `tables.page_words` splits them, read from the same text page (building one is
    # most of a page's cost), when a line opens like a caption's label: the pages most items are on.
    # None on other pages (held for every page, they would weigh more than the page's text), on a
    # page read by OCR (`scanned` keeps those) or left blank.
    words: list[Word] = field(default_factory=list, kw_only=True)

    @property
    def lines(self) -> list[Line]:
        return [line for block in self.blocks for line in block.lines]

    @property
    def has_text(self) -> bool:
        return any(line.text.strip() for block in self.blocks for line in block.lines)


@dataclass(frozen=True)
class PageFrame:
    """What region search keeps of a page: its size and where the running header and footer lie.

    It holds no text, so the glyph runs of a long paper can be freed page by page.
    """

    number: int
    width: float
    height: float
    header_bottom: float
    footer_top: float


@dataclass(frozen=True)
class ClassifiedPage(PageLayout):
    """A page after `classify_page`: its running header/footer bounds and which blocks are body text.

    Captions, passages and region search take this type, so none of them can run on a page that
    was not classified.
    """

    header_bottom: float
    footer_top: float
    body_blocks: frozenset[int]

    @property
    def frame(self) -> PageFrame:
        return PageFrame(self.number, self.width, self.height, self.header_bottom, self.footer_top)


@dataclass
class DocumentLayout:
    """Statistics over all pages: the body font size and the text columns `[(x0, x1), ...]`."""

    body_size: float
    columns: list[tuple[float, float]]
    running: set[tuple[int, str]] = field(default_factory=set)
    running_graphics: set[tuple[int, int, int, int]] = field(default_factory=set)  # `_graphic_key`s
    # The sizes paragraphs are set in: the body size and any larger size holding a large share of
    # the text (a journal setting its main text larger than the methods, legends and references
    # that outweigh it: those take the body size).
    prose_sizes: tuple[float, ...] = ()
    # The step between the baselines of a paragraph's lines (0 where no paragraph was seen): a
    # manuscript set double spaced steps twice the font size, and PyMuPDF then gives each line its own
    # block (`continues_paragraph`).
    line_pitch: float = 0.0

    def is_prose_size(self, size: float, smaller: float = _BODY_SMALLER) -> bool:
        """`size` is within `smaller` below to `_BODY_LARGER` above one of the paragraph sizes."""
        return any(-smaller <= size - prose <= _BODY_LARGER for prose in self.prose_sizes or (self.body_size,))

    @property
    def text_left(self) -> float:
        return min(c[0] for c in self.columns)

    @property
    def text_right(self) -> float:
        return max(c[1] for c in self.columns)

    def column_of(self, x0: float, x1: float) -> tuple[float, float]:
        """The column a horizontal extent belongs to; the full text width if it crosses a gutter."""
        for left, right in self.columns:
            if x0 >= left - _COLUMN_SLACK and x1 <= right + _COLUMN_SLACK:
                return left, right
        for left, right in self.columns:
            if min(x1, right) - max(x0, left) > _COLUMN_OVERLAP * (x1 - x0):
                return left, right  # slightly past a column edge
        return self.text_left, self.text_right


def join_lines(lines: list[str]) -> str:
    """Join text lines into one string: a hyphen at a line end between lower-case letters joins a
    word split in two ("analo-" + "gies"), and is kept, without a space, anywhere else after a letter:
    a compound's hyphen after a capital ("IO-" + "aware", "JHU-" + "HLTCOE") or before a digit
    ("ResNet-" + "50")."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if out.endswith("-") and len(out) > 1 and out[-2].isalpha():
            out = out[:-1] + line if line[:1].islower() and out[-2].islower() else out + line
        else:
            out = f"{out} {line}" if out else line
    return out


def _is_bold(font: str, flags: int) -> bool:
    return bool(flags & _BOLD_FLAG) or _bold_name(font)


@lru_cache(maxsize=1024)
def _bold_name(font: str) -> bool:
    """A paper sets its many spans in a few fonts: each name is read once."""
    name = font.lower()
    return any(tag in name for tag in _BOLD_NAMES)


def _is_white(color: tuple[float, ...] | None) -> bool:
    return color is None or all(c > _WHITE for c in color)


def _is_visible(path: dict) -> bool:
    """Paths that paint something: plotting tools draw white backgrounds and invisible clip boxes."""
    stroke = path.get("color")
    if stroke is not None and not _is_white(stroke) and (path.get("stroke_opacity") or 1) > 0:
        return True
    fill = path.get("fill")
    return fill is not None and not _is_white(fill) and (path.get("fill_opacity") or 1) > 0


def _clipped_paths(page: pymupdf.Page) -> list[dict]:
    """Vector paths with their boxes cut to the clip paths in force (fully clipped ones dropped).

    Plotting libraries draw bars from the value down to a far baseline and clip them to the axes
    (ViT's Figure 2: bars reaching 300 pt under the plot, through the caption and body text).
    """
    stack: list[tuple[int, BBox]] = []
    out = []
    for item in page.get_drawings(extended=True):
        level = item.get("level", 0)
        while stack and stack[-1][0] >= level:
            stack.pop()
        if item.get("type") in ("clip", "group"):
            scissor = item.get("scissor")
            if scissor is not None:
                box = Box.of(scissor)
                stack.append((level, box.intersection(stack[-1][1]) if stack else box))
            continue
        if stack:
            cut = Box.of(item["rect"]).intersection(stack[-1][1])
            if cut.is_empty:
                continue
            item["rect"] = pymupdf.Rect(*cut)
        out.append(item)
    return out


def _is_highlight(path: dict, lines: list[BBox]) -> bool:
    """A filled band behind a text line: a reader's highlighting baked into the page, not a figure."""
    if path.get("type") != "f":
        return False
    r = path["rect"]
    if r.width < _HIGHLIGHT_MIN_WIDTH or r.height > _HIGHLIGHT_MAX_HEIGHT:
        return False
    box = Box.of(r)
    return sum(box.overlap(ln) for ln in lines) > _HIGHLIGHT_ON_TEXT * box.area


def line_text(spans: list[dict], horizontal: bool) -> str:
    """A line's text from its PyMuPDF spans, less the spaces set where the glyphs on either side
    touch. Some typesetters (NAR's) emit a space glyph at every kerning or letter-spacing point of
    a justified line ("crosso v er", "betw een"): such a space leaves no gap in print, while a word
    space leaves a fair part of a size, the line's other spaces showing how much
    (`tables.glued_space`). Gaps are measured across the page: a line set at an angle keeps its spaces."""
    texts = [s["text"] for s in spans]
    spaces = [i for i in range(1, len(spans) - 1) if horizontal and not texts[i].strip() and texts[i - 1].strip() and texts[i + 1].strip()]
    if spaces:
        gaps = {i: spans[i + 1]["bbox"][0] - spans[i - 1]["bbox"][2] for i in spaces}
        word_gap = median(gaps.values())
        for i in spaces:
            if glued_space(gaps[i], spans[i - 1]["size"], word_gap):
                texts[i] = ""
    return "".join(texts).strip()


def read_page(page: pymupdf.Page, max_image_pixels: int | None = None) -> PageLayout:
    """Parse one page into a `PageLayout` (one text page shared by all text queries); with
    `max_image_pixels`, an image larger than that is `ImageTooLarge` (nothing has decoded it yet)."""
    # PyMuPDF's flags for "dict" less images are its flags for "words": one text page serves both.
    textpage = page.get_textpage(flags=pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES)
    data = page.get_text("dict", textpage=textpage, sort=False)
    read: list[list[Line]] = []
    for raw in data["blocks"]:
        if raw.get("type") != 0:
            continue
        lines: list[Line] = []
        for raw_line in raw["lines"]:
            text = line_text(raw_line["spans"], horizontal=raw_line["dir"][0] > _HORIZONTAL)
            spans = [
                Span(s["text"], tuple(s["bbox"]), s["size"], s["font"], _is_bold(s["font"], s["flags"]), s["origin"][1])
                for s in raw_line["spans"]
                if s["text"].strip()
            ]
            if spans:
                lines.append(Line(text, union([s.bbox for s in spans]), _main_size(spans), spans, 0, 0))
        read.append(lines)
    numbers = _line_numbers([line for lines in read for line in lines], page.rect.width, page.rect.height)
    blocks: list[Block] = []
    for lines in read:
        kept = [replace(line, block=len(blocks), index=i) for i, line in enumerate(ln for ln in lines if id(ln) not in numbers)]
        if kept:
            blocks.append(Block(len(blocks), _merge_rows(kept)))
    rect = page.rect
    page_area = rect.width * rect.height
    raw_lines = [tuple(ln["bbox"]) for b in data["blocks"] if b.get("type") == 0 for ln in b["lines"]]
    visible = [d for d in _clipped_paths(page) if _is_visible(d) and not _is_highlight(d, raw_lines)]
    # final_filter=False keeps hairline clusters: table rules and axis lines have zero width.
    drawings = [
        (r.x0, r.y0, r.x1, r.y1)
        for r in (c & rect for c in page.cluster_drawings(drawings=visible, final_filter=False))
        if max(r.width, r.height) >= _MIN_GRAPHIC and r.width * r.height < _MAX_GRAPHIC_SHARE * page_area
    ]
    images = []
    for info in page.get_image_info():
        if max_image_pixels is not None:
            check_image(page.number + 1, info["width"], info["height"], max_image_pixels)
        r = pymupdf.Rect(info["bbox"]) & rect
        if not r.is_empty and r.width > _MIN_IMAGE and r.height > _MIN_IMAGE:
            images.append(tuple(r))
    labelled = any(parse_caption_label(line.text) is not None for block in blocks for line in block.lines)
    words = page_words(page, textpage) if labelled else []
    return PageLayout(page.number + 1, rect.width, rect.height, blocks, drawings, images, words=words)


def _line_numbers(lines: list[Line], width: float, height: float) -> set[int]:
    """The `id`s of the lines that number the text lines in a page's margin (preprints and
    manuscripts under review): bare integers, at least `_MIN_LINE_NUMBERS` of them, wholly left of
    (or right of) every wide text line between the running header and footer bands, counting up
    down the page. Left in, they join the lines beside them and push the blocks out of their column.
    A table's row numbers lie inside the text area, and a bibliography's numbers one per entry, not
    one per line: neither is taken."""
    inside = [ln for ln in lines if _TOP_BAND * height <= ln.y0 and ln.y1 <= _BOTTOM_BAND * height]
    wide = [ln for ln in inside if ln.width > _MIN_BODY_LINE_WIDTH * width and re.search("[A-Za-z]", ln.text)]
    if not wide:
        return set()
    left, right = min(ln.x0 for ln in wide), max(ln.x1 for ln in wide)
    out: set[int] = set()
    for side in (
        [ln for ln in inside if _LINE_NUMBER.fullmatch(ln.text) and ln.x1 < left],
        [ln for ln in inside if _LINE_NUMBER.fullmatch(ln.text) and ln.x0 > right],
    ):
        values = [int(ln.text) for ln in sorted(side, key=lambda ln: ln.y0)]
        rising = sum(b > a for a, b in pairwise(values))
        if len(values) < _MIN_LINE_NUMBERS or rising < _LINE_NUMBERS_RISING * (len(values) - 1):
            continue
        top, bottom = min(ln.y0 for ln in side), max(ln.y1 for ln in side)
        rows = _rows([ln for ln in inside if re.search("[A-Za-z]", ln.text) and top <= (ln.y0 + ln.y1) / 2 <= bottom])
        if len(values) >= _LINE_NUMBERS_RISING * rows:  # a number on each line, not one per entry (a bibliography's)
            out |= {id(ln) for ln in side}
    return out


def _rows(lines: list[Line]) -> int:
    """How many printed rows `lines` lie on (pieces of one row share its height)."""
    centres = sorted((ln.y0 + ln.y1) / 2 for ln in lines)
    return sum(1 for i, c in enumerate(centres) if i == 0 or c - centres[i - 1] > _SAME_ROW)


def _main_size(runs: Iterable[Span | Line]) -> float:
    """The size (to 0.1 pt) most characters of `runs` are set in; on a tie, the one met first
    (a plain dict: a `Counter` per line is a hot loop's cost)."""
    chars: dict[float, int] = {}
    for run in runs:
        size = round(run.size, 1)
        chars[size] = chars.get(size, 0) + len(run.text)
    return max(chars, key=chars.__getitem__)


def _merge_rows(lines: list[Line]) -> list[Line]:
    """Join pieces PyMuPDF splits off one printed line (justified text with wide word spacing)."""
    merged: list[Line] = []
    for line in lines:
        prev = merged[-1] if merged else None
        if prev is not None:
            overlap = min(prev.y1, line.y1) - max(prev.y0, line.y0)
            gap = line.x0 - prev.x1
            side_by_side = _CAPTION_START.match(line.text) is not None
            if overlap > _ROW_OVERLAP * min(prev.y1 - prev.y0, line.y1 - line.y0) and 0 <= gap < _ROW_MAX_GAP * max(prev.size, line.size) and not side_by_side:
                merged[-1] = Line(
                    f"{prev.text} {line.text}", union([prev.bbox, line.bbox]), prev.size if len(prev.text) >= len(line.text) else line.size,
                    prev.spans + line.spans, prev.block, prev.index,
                )
                continue
        merged.append(Line(line.text, line.bbox, line.size, line.spans, line.block, len(merged)))
    return merged


def analyse_document(pages: Sequence[PageLayout]) -> DocumentLayout:
    """Body font size (most characters) and text columns (most frequent left/right edges of body lines)."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            sizes[round(line.size)] += len(line.text)
    body_size = float(sizes.most_common(1)[0][0]) if sizes else _DEFAULT_BODY_SIZE
    total = sum(sizes.values())
    prose_sizes = tuple(float(size) for size, n in sizes.items() if size > body_size + _BODY_LARGER and n >= _SECOND_PROSE_SHARE * total)
    width = pages[0].width if pages else _DEFAULT_PAGE_WIDTH
    lefts: Counter[int] = Counter()
    rights: Counter[int] = Counter()
    pairs: Counter[tuple[int, int]] = Counter()
    def is_body(line: Line, page: PageLayout) -> bool:
        return any(abs(line.size - size) <= _BODY_SIZE_SLACK for size in (body_size, *prose_sizes)) and line.width > _MIN_BODY_LINE_WIDTH * page.width

    body_lines = [line for page in pages for line in page.lines if is_body(line, page)]
    for line in body_lines:
        left, right = round(line.x0 / _EDGE_GRID) * _EDGE_GRID, round(line.x1 / _EDGE_GRID) * _EDGE_GRID
        lefts[left] += 1
        rights[right] += 1
        pairs[left, right] += 1
    columns = _columns(lefts, rights, pairs, len(body_lines), width)
    return DocumentLayout(
        body_size=body_size, columns=columns, running=running_lines(pages), running_graphics=running_graphics(pages, columns),
        prose_sizes=(body_size, *prose_sizes), line_pitch=_line_pitch(pages, is_body, columns),
    )


def _line_pitch(pages: Sequence[PageLayout], is_body: Callable[[Line, PageLayout], bool], columns: list[tuple[float, float]]) -> float:
    """The most common step between the baselines of body lines one under the other in a column
    of a page."""
    steps: Counter[float] = Counter()
    for page in pages:
        by_column: dict[int, list[Line]] = {}
        for line in page.lines:
            if is_body(line, page):
                column = next((i for i, (left, right) in enumerate(columns) if left - _COLUMN_SLACK <= line.x0 and line.x1 <= right + _COLUMN_SLACK), -1)
                by_column.setdefault(column, []).append(line)
        for lines in by_column.values():
            baselines = sorted(line.baseline for line in lines)
            steps.update(round(_PITCH_STEPS * (b - a)) / _PITCH_STEPS for a, b in pairwise(baselines) if 0 < b - a < _MAX_PITCH * lines[0].size)
    return steps.most_common(1)[0][0] if steps else 0.0


def _columns(
    lefts: Counter[int], rights: Counter[int], pairs: Counter[tuple[int, int]], n: int, width: float
) -> list[tuple[float, float]]:
    """Columns from the edge peaks: each left edge pairs with the right edge most of its lines end
    at, so text wrapped beside a figure (a shorter edge of its own) does not narrow a one-column
    page to its wrapped part."""
    low, high = _FALLBACK_COLUMN
    if not n:
        return [(low * width, high * width)]
    edges_l = _peaks(lefts, _MIN_EDGE_SHARE * n)
    edges_r = _peaks(rights, _MIN_EDGE_SHARE * n)
    columns: list[tuple[float, float]] = []
    for left in edges_l:
        candidates = [r for r in edges_r if r - left > _MIN_COLUMN_WIDTH * width]
        if not candidates:
            continue
        right = max(candidates, key=lambda r: (_lines_between(pairs, left, r), -r))
        if columns and left < columns[-1][1]:
            continue
        columns.append((float(left), float(right)))
    return columns or [(low * width, high * width)]


def _lines_between(pairs: Counter[tuple[int, int]], left: int, right: int) -> int:
    """Body lines starting at the left edge `left` and ending at the right edge `right` (each within
    `_EDGE_MERGE` points: peaks merge the grid cells around them)."""
    return sum(n for (x0, x1), n in pairs.items() if abs(x0 - left) <= _EDGE_MERGE and abs(x1 - right) <= _EDGE_MERGE)


def _peaks(counter: Counter[int], minimum: float) -> list[int]:
    """Positions holding at least `minimum` lines, merged when within `_EDGE_MERGE` of a stronger one."""
    peaks: list[int] = []
    for pos, count in counter.most_common():
        if count < minimum:
            break
        if all(abs(pos - p) > _EDGE_MERGE for p in peaks):
            peaks.append(pos)
    return sorted(peaks)


def classify_page(page: PageLayout, doc: DocumentLayout) -> ClassifiedPage:
    """Find the running header/footer bounds and the body-text blocks (paragraphs that bound figure
    regions); the running graphics (`running_graphics`) are left out of the page's graphics."""
    if doc.running_graphics:
        page = replace(
            page,
            drawings=[b for b in page.drawings if _graphic_key(b) not in doc.running_graphics],
            images=[b for b in page.images if _graphic_key(b) not in doc.running_graphics],
        )
    body = {
        block.number for block in page.blocks
        if is_body_block(block, doc, front=page.number == 1) and not _inside_graphic(block.bbox, page)
    }
    for block in sorted(page.blocks, key=lambda b: b.bbox[1]):
        if block.number not in body and any(_continues(block, page.blocks[n]) for n in body):
            body.add(block.number)
    body |= _paragraph_lines(page, body, doc)
    return ClassifiedPage(
        page.number, page.width, page.height, page.blocks, page.drawings, page.images, words=page.words,
        header_bottom=_header_bottom(page, doc.running), footer_top=_footer_top(page, doc.running),
        body_blocks=frozenset(body),
    )  # fmt: skip


def _paragraph_lines(page: PageLayout, body: set[int], doc: DocumentLayout) -> set[int]:
    """Blocks that go on with a body paragraph or that a body paragraph goes on with
    (`continues_paragraph`), followed from block to block: where PyMuPDF gives each line of a
    double-spaced manuscript its own block, a paragraph's indented first line and its short last
    line are too short or too far in to be body text on their own."""
    if doc.line_pitch <= 0:
        return set()
    blocks = sorted(page.blocks, key=lambda b: b.lines[0].baseline)
    added: set[int] = set()
    changed = True
    while changed:
        changed = False
        for above, below in _pitch_neighbours(blocks, doc.line_pitch + _JUSTIFIED):
            inside = {above.number, below.number} & (body | added)
            if len(inside) == 1 and continues_paragraph(above, below, doc):
                added |= {above.number, below.number} - body
                changed = True
    return added


def _pitch_neighbours(blocks: list[Block], reach: float) -> list[tuple[Block, Block]]:
    """Pairs of blocks (`blocks` sorted by their first baseline) whose second starts at most `reach`
    under the first's last baseline."""
    firsts = [b.lines[0].baseline for b in blocks]
    pairs = []
    for above in blocks:
        last = above.lines[-1].baseline
        start = bisect_right(firsts, last)
        for below in blocks[start : bisect_right(firsts, last + reach)]:
            pairs.append((above, below))
    return pairs


def _continues(block: Block, above: Block) -> bool:
    """`block` is the rest of the paragraph `above` (PyMuPDF cut it in two): its first line comes
    at the paragraph's line pitch under its last, in its size, within its sides, and it reads as
    sentences (a few words at least: an algorithm's numbered steps are set as lines too) and opens
    with no caption label."""
    if len(above.lines) < 2 or abs(block.size - above.size) > _SAME_SIZE:
        return False
    pitch = (above.lines[-1].y0 - above.lines[0].y0) / (len(above.lines) - 1)
    step = block.lines[0].y0 - above.lines[-1].y0
    if not 0 < step <= pitch + _JUSTIFIED:
        return False
    if abs(block.bbox[0] - above.bbox[0]) > _JUSTIFIED or block.bbox[2] > above.bbox[2] + _JUSTIFIED:
        return False
    words = len(block.text.split())
    return words >= _ONE_LINE_WORDS and parse_caption_label(block.lines[0].text) is None and reads_as_prose(block)


def continues_paragraph(above: Block, below: Block, doc: DocumentLayout) -> bool:
    """`below`, the next body block in reading order, goes on with the paragraph `above` ends
    (PyMuPDF gives each line of a double-spaced manuscript its own block): its first line comes at
    the paper's line pitch under `above`'s last, in one column and size, at the paragraph's left
    edge (an indent opens a paragraph), and `above`'s last line runs on to the column's right edge
    (the first word of `below` would not have fitted after it). A heading or a caption never
    continues or is continued."""
    if doc.line_pitch <= 0 or abs(below.size - above.size) > _SAME_SIZE:
        return False
    last, first = above.lines[-1], below.lines[0]
    if not 0 < first.baseline - last.baseline <= doc.line_pitch + _JUSTIFIED:
        return False
    column = doc.column_of(above.bbox[0], above.bbox[2])
    if doc.column_of(below.bbox[0], below.bbox[2]) != column or first.x0 > above.bbox[0] + _EDGE_SLACK:
        return False
    right = max(column[1], above.bbox[2], below.bbox[2])
    if right - last.x1 > _first_word_width(first):
        return False  # the last line stopped short: it ends its paragraph
    if _is_heading_block(above, doc) or _is_heading_block(below, doc) or all(s.bold for s in first.spans):
        return False
    return parse_caption_label(first.text) is None


def _first_word_width(line: Line) -> float:
    """How wide the line's first word is with a space before it (its span's width per character)."""
    span = line.spans[0]
    word = span.text.split()[0] if span.text.split() else span.text
    return (span.bbox[2] - span.bbox[0]) / max(1, len(span.text)) * (len(word) + 1)


def _inside_graphic(box: BBox, page: PageLayout) -> bool:
    """Text framed by a larger vector drawing (table rules, a plot's axes) is not prose."""
    own = area(box)
    height = box[3] - box[1]
    for d in page.drawings:
        if area(d) > _FRAME_SIZE * own and overlap(box, d) > _FRAMED_SHARE * own:
            return True
        crosses = box[0] + _RULE_INSET < d[0] and d[2] < box[2] - _RULE_INSET and d[2] - d[0] < _RULE_WIDTH
        if crosses and min(d[3], box[3]) - max(d[1], box[1]) > _RULE_RUN * height:
            return True  # a vertical column rule runs through the text
    return False


def is_body_block(block: Block, doc: DocumentLayout, front: bool = False) -> bool:
    """Paragraph text: body font size, starting at a column's left edge, running to its right edge.

    Figure-internal text (axis labels, legends, table cells) is smaller, shorter or not aligned to a
    column, which is what separates it from prose here. On the `front` page (the first), the
    abstract may be set a point smaller than the body, and on a page of columns a paragraph may
    run across them all (an abstract or summary over a two-column body, often boxed).
    """
    if _is_heading_block(block, doc):
        return True
    labelled = parse_caption_label(block.lines[0].text) is not None
    abstract = front and not labelled and not _opens_with_note_mark(block)
    if not doc.is_prose_size(block.size, _FRONT_SMALLER if abstract else _BODY_SMALLER):
        return False  # sub-captions and footnotes are set smaller than the body
    # What only the rules for other sizes and shapes admit must read as sentences: author lists,
    # affiliations and bibliographies are set that way too.
    prose = not labelled and reads_as_prose(block)
    if not (prose or -_BODY_SMALLER <= block.size - doc.body_size <= _BODY_LARGER):
        return False
    x0, _, x1, _ = block.bbox
    across = [(doc.text_left, doc.text_right)] if len(doc.columns) > 1 and prose else []
    for left, right in doc.columns + across:
        width = right - left
        if abs(x0 - left) > _MAX_INDENT and not (left - _EDGE_SLACK <= x0 and x1 <= right + _EDGE_SLACK and len(block.lines) >= _MIN_INSET_LINES):
            continue
        if x1 > right + _COLUMN_SLACK and len(doc.columns) > 1 and right < doc.text_right - 1:
            continue
        full = [ln for ln in block.lines if ln.x1 >= right - _FULL_LINE_END and ln.width >= _FULL_LINE_WIDTH * width]
        if len(block.lines) >= 2 and len(full) >= max(1, (len(block.lines) - 1) // 2):
            return True
        if _is_indented_paragraph(block, width) or (prose and _is_ragged_paragraph(block, width)) or _is_wrapped_paragraph(block, left, right):
            return True
        if len(block.lines) == 1:
            line = block.lines[0]
            words = len(line.text.split())
            if line.width >= _MOST_OF_COLUMN * width and words >= _ONE_LINE_WORDS:
                return True
            if abs(x0 - left) <= _MAX_INDENT and words >= _ONE_LINE_WORDS and line.text.rstrip().endswith((".", ":")):
                return True  # a one-sentence paragraph ("Table 9 shows the scores ... tasks.")
            if abs(x0 - left) <= _EDGE_SLACK and words <= _HEADING_MAX_WORDS and _looks_like_heading(line):
                return True
    return False


def _is_indented_paragraph(block: Block, width: float) -> bool:
    """A paragraph set narrower than its column on both sides, as abstracts and quotations are: at
    least four lines justified to one right edge, each most of the column wide, and words rather
    than numbers (figure text is neither that long nor that regular; a table's rows are numbers)."""
    lines = block.lines[:-1]  # a paragraph's last line ends where it ends
    if len(lines) < _INDENTED_MIN_LINES:
        return False
    edge = max(ln.x1 for ln in lines)
    return _mostly_words(block) and all(edge - ln.x1 <= _JUSTIFIED and ln.width >= _MOST_OF_COLUMN * width for ln in lines)


def _is_ragged_paragraph(block: Block, width: float) -> bool:
    """Prose set ragged right (word processors' default, boxed abstracts): at least
    `_INDENTED_MIN_LINES` lines before its last, all starting at one left edge (a first-line indent
    aside), most of them (`_RAGGED_LONG`) most of the column wide, and words rather than numbers."""
    lines = block.lines[:-1]
    if len(lines) < _INDENTED_MIN_LINES or not _mostly_words(block):
        return False
    start = min(ln.x0 for ln in block.lines)
    if any(ln.x0 - start > _MAX_INDENT for ln in block.lines):
        return False
    return sum(ln.width >= _MOST_OF_COLUMN * width for ln in lines) >= _RAGGED_LONG * len(lines)


def is_heading(block: Block, doc: DocumentLayout) -> bool:
    """A section heading: a bold heading block, or one line that is bold or numbered."""
    return _is_heading_block(block, doc) or (len(block.lines) == 1 and _looks_like_heading(block.lines[0]))


def _opens_with_note_mark(block: Block) -> bool:
    """A footnote opens with its mark: a symbol ("∗", "†") or a raised, smaller number."""
    first = block.lines[0].spans[0]
    raised = first.size < block.size - _SAME_SIZE and first.text.strip().isdigit()
    return raised or first.text.strip()[:1] in _NOTE_MARKS


def reads_as_prose(block: Block) -> bool:
    """At least `_PROSE_LOWER` of the block's words open in lower case, as sentences' words do;
    names, affiliations and references are mostly capitalised."""
    words = [token for token in block.text.split() if _WORD.fullmatch(token)]
    return bool(words) and sum(w[0].islower() for w in words) >= _PROSE_LOWER * len(words)


def _mostly_words(block: Block) -> bool:
    """At least `_INDENTED_WORDS` of the block's tokens hold a letter (prose, not a table's numbers)."""
    tokens = block.text.split()
    return sum(any(ch.isalpha() for ch in token) for token in tokens) >= _INDENTED_WORDS * len(tokens)


def _is_wrapped_paragraph(block: Block, left: float, right: float) -> bool:
    """A paragraph whose lines are cut short beside a figure or table (`wrapfigure`): on the
    column's right, they end at one wrap edge instead of the column's right edge; on its left, they
    start at one. Past the figure they run to the column's edges. A caption is never one (it bounds
    its figure as a caption)."""
    lines = block.lines[:-1]  # a paragraph's last line ends where it ends
    if len(lines) < _WRAPPED_MIN_LINES or parse_caption_label(block.lines[0].text) is not None:
        return False
    if not _mostly_words(block) or any(ln.width < _WRAPPED_WIDTH * (right - left) for ln in lines):
        return False
    at_right = [ln.x1 >= right - _FULL_LINE_END for ln in lines]
    at_left = [abs(ln.x0 - left) <= _MAX_INDENT for ln in lines]
    if all(at_left):  # the figure on the right
        return _one_wrap_edge([ln.x1 for ln, full in zip(lines, at_right) if not full], len(lines))
    if all(at_right):  # the figure on the left
        return _one_wrap_edge([ln.x0 for ln, edge in zip(lines, at_left) if not edge], len(lines))
    return False


def _one_wrap_edge(cut: list[float], lines: int) -> bool:
    """The `cut` edges of a wrapped paragraph's short lines (of `lines`) are one edge: at least
    `_WRAPPED_MIN_LINES` of them within `_JUSTIFIED` points, and with the full lines, most lines."""
    if not cut:
        return False
    edge, _ = Counter(round(x / _JUSTIFIED) for x in cut).most_common(1)[0]
    at_edge = sum(abs(x / _JUSTIFIED - edge) <= 1 for x in cut)
    return at_edge >= _WRAPPED_MIN_LINES and lines - len(cut) + at_edge >= _WRAPPED_JUSTIFIED * lines


def _is_heading_block(block: Block, doc: DocumentLayout) -> bool:
    """A section heading (bold, at least body size, at a column's left edge, a few lines at most):
    it bounds figure regions like a paragraph does ("B  Training Hyper-parameters for Deep Models")."""
    if len(block.lines) > _HEADING_MAX_LINES or block.size < doc.body_size - _HEADING_SMALLER:
        return False
    if not all(s.bold for line in block.lines for s in line.spans if s.text.strip()):
        return False
    first, words = block.lines[0], block.text.split()
    if max((len(w) for w in words), default=0) < _HEADING_MIN_WORD:
        return False  # a row of bold panel letters ("F  G  H") over a figure's panels
    return any(abs(first.x0 - left) <= _EDGE_SLACK for left, _ in doc.columns) and len(words) >= _HEADING_MIN_WORDS


def _looks_like_heading(line: Line) -> bool:
    """Section headings ("4.3. Completing a visual analogy", "Abstract") are bold or numbered."""
    first = line.text.split()[0] if line.text.split() else ""
    numbered = bool(first) and (first[0].isdigit() or first.rstrip(".") in {"A", "B", "C", "D", "E"})
    return all(s.bold for s in line.spans) or (numbered and line.text[:1].isdigit() and "." in first[:4])


def _margin_key(line: Line) -> tuple[int, str]:
    """Running headers and footers repeat across pages at the same height, page numbers aside."""
    return round(line.y0 / _MARGIN_GRID), re.sub(r"\d+", "#", line.text.lower())


def _in_top(line: Line, page: PageLayout) -> bool:
    return line.y1 < _TOP_BAND * page.height


def _in_bottom(line: Line, page: PageLayout) -> bool:
    return line.y0 > _BOTTOM_BAND * page.height


def running_lines(pages: Sequence[PageLayout]) -> set[tuple[int, str]]:
    """Keys of lines with letters at the top or bottom of pages that recur on at least two other pages."""
    counts: Counter[tuple[int, str]] = Counter()
    for page in pages:
        counts.update(
            {_margin_key(ln) for ln in page.lines if (_in_top(ln, page) or _in_bottom(ln, page)) and re.search("[A-Za-z]{2}", ln.text)}
        )
    needed = _RUNNING_PAGES if len(pages) >= _SHORT_DOCUMENT else _RUNNING_PAGES_SHORT
    return {key for key, n in counts.items() if n >= needed}


def _graphic_key(box: BBox) -> tuple[int, int, int, int]:
    return round(box[0] / _MARGIN_GRID), round(box[1] / _MARGIN_GRID), round(box[2] / _MARGIN_GRID), round(box[3] / _MARGIN_GRID)


def running_graphics(pages: Sequence[PageLayout], columns: list[tuple[float, float]]) -> set[tuple[int, int, int, int]]:
    """Keys of graphics at the page's edge (inside its top or bottom band, or outside the text
    area's sides, or as tall as the text) that recur at the same place on as many pages as a running
    line does: a journal's logo, a tab on the page's side, a rule under the running header, a rule
    or a mask down a column gutter. They are the page's dress, not a figure's panels."""
    counts: Counter[tuple[int, int, int, int]] = Counter()
    left, right = min(c[0] for c in columns), max(c[1] for c in columns)
    for page in pages:
        counts.update({
            _graphic_key(b) for b in page.drawings + page.images
            if min(b[2] - b[0], b[3] - b[1]) > _DRESS_RULE
            and (b[3] < _DRESS_TOP * page.height or b[1] > _BOTTOM_BAND * page.height or b[2] < left or b[0] > right
                 or (b[3] - b[1] > _DRESS_TALL * page.height and b[2] - b[0] < _DRESS_NARROW * page.width))
        })  # fmt: skip
    needed = _RUNNING_PAGES if len(pages) >= _SHORT_DOCUMENT else _RUNNING_PAGES_SHORT
    return {key for key, n in counts.items() if n >= needed}


def _is_margin_line(line: Line, running: set[tuple[int, str]]) -> bool:
    return _margin_key(line) in running or bool(re.fullmatch(r"(page\s*)?\d{1,4}", line.text.strip(), re.IGNORECASE))


def _header_bottom(page: PageLayout, running: set[tuple[int, str]]) -> float:
    """The lower edge of the running header (repeated text, page number, and a rule just under it)."""
    bottom = 0.0
    for line in page.lines:
        if _in_top(line, page) and _is_margin_line(line, running):
            bottom = max(bottom, line.y1)
    if bottom:
        for box in page.drawings + page.images:
            if box[1] <= bottom + _HEADER_RULE_GAP and (box[3] - box[1]) < _HEADER_RULE_HEIGHT and (box[2] - box[0]) > _HEADER_RULE_WIDTH * page.width:
                bottom = max(bottom, box[3] + _HEADER_RULE_CLEARANCE)
    return bottom


def _footer_top(page: PageLayout, running: set[tuple[int, str]]) -> float:
    """The upper edge of the footer: repeated lines and bare page numbers near the bottom."""
    top = page.height
    for line in page.lines:
        if _in_bottom(line, page) and _is_margin_line(line, running):
            top = min(top, line.y0)
    return top
