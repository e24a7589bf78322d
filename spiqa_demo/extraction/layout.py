"""Page layout: text lines, graphics, columns and body text, from one PyMuPDF parse per page.

Everything later stages need from the PDF is read here once per page (`get_text("dict")`,
drawings and image boxes), so the rest of extraction is pure geometry on
small dataclasses. The document-level statistics (body font size, column edges) come from a first
pass over all pages because a single page is too small a sample (a page full of figures has
almost no body text).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from spiqa_demo.extraction.geometry import Box, area, overlap, union
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.types import BBox

# A line is "bold" when PyMuPDF flags it or the font name says so (Type 1 LaTeX fonts such as
# CMBX carry no flag).
_BOLD_FLAG = 16
_BOLD_NAMES = ("bold", "cmbx", "black", "heavy", "semibold", ".b", "-b")


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
    def ink_bbox(self) -> BBox:
        """The box of the glyphs' bodies (cap height to just under the baseline), as pdffigures2
        measures captions; PyMuPDF's line box adds the font's full ascender and descender."""
        top = min(s.baseline - 0.72 * s.size for s in self.spans)
        bottom = max(s.baseline + 0.1 * s.size for s in self.spans)
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
        sizes: Counter[float] = Counter()
        for line in self.lines:
            sizes[round(line.size, 1)] += len(line.text)
        return sizes.most_common(1)[0][0]

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

    @property
    def text_left(self) -> float:
        return min(c[0] for c in self.columns)

    @property
    def text_right(self) -> float:
        return max(c[1] for c in self.columns)

    def column_of(self, x0: float, x1: float) -> tuple[float, float]:
        """The column a horizontal extent belongs to; the full text width if it crosses a gutter."""
        for left, right in self.columns:
            if x0 >= left - 12 and x1 <= right + 12:
                return left, right
        for left, right in self.columns:
            if min(x1, right) - max(x0, left) > 0.8 * (x1 - x0):
                return left, right  # slightly past a column edge
        return self.text_left, self.text_right


def join_lines(lines: list[str]) -> str:
    """Join text lines into one string: a hyphen at a line end after a letter joins a word split in
    two ("analo-" + "gies"), and is kept, without a space, before anything else ("JHU-" + "HLTCOE",
    "ResNet-" + "50")."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if out.endswith("-") and len(out) > 1 and out[-2].isalpha():
            out = out[:-1] + line if line[:1].islower() else out + line
        else:
            out = f"{out} {line}" if out else line
    return out


def _is_bold(font: str, flags: int) -> bool:
    name = font.lower()
    return bool(flags & _BOLD_FLAG) or any(tag in name for tag in _BOLD_NAMES)


def _is_white(color: tuple[float, ...] | None) -> bool:
    return color is None or all(c > 0.97 for c in color)


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
    if r.width < 20 or r.height > 16:
        return False
    box = Box.of(r)
    return sum(box.overlap(ln) for ln in lines) > 0.5 * box.area


def read_page(page: pymupdf.Page) -> PageLayout:
    """Parse one page into a `PageLayout` (one text page shared by all text queries)."""
    textpage = page.get_textpage(flags=pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES)
    data = page.get_text("dict", textpage=textpage, sort=False)
    blocks: list[Block] = []
    for raw in data["blocks"]:
        if raw.get("type") != 0:
            continue
        lines: list[Line] = []
        for raw_line in raw["lines"]:
            text = "".join(s["text"] for s in raw_line["spans"]).strip()
            spans = [
                Span(s["text"], tuple(s["bbox"]), s["size"], s["font"], _is_bold(s["font"], s["flags"]), s["origin"][1])
                for s in raw_line["spans"]
                if s["text"].strip()
            ]
            if not spans:
                continue
            size = Counter({round(s.size, 1): 0 for s in spans})
            for s in spans:
                size[round(s.size, 1)] += len(s.text)
            lines.append(
                Line(text, union([s.bbox for s in spans]), size.most_common(1)[0][0], spans, len(blocks), len(lines))
            )
        if lines:
            blocks.append(Block(len(blocks), _merge_rows(lines)))
    rect = page.rect
    page_area = rect.width * rect.height
    raw_lines = [tuple(ln["bbox"]) for b in data["blocks"] if b.get("type") == 0 for ln in b["lines"]]
    visible = [d for d in _clipped_paths(page) if _is_visible(d) and not _is_highlight(d, raw_lines)]
    # final_filter=False keeps hairline clusters: table rules and axis lines have zero width.
    drawings = [
        (r.x0, r.y0, r.x1, r.y1)
        for r in (c & rect for c in page.cluster_drawings(drawings=visible, final_filter=False))
        if max(r.width, r.height) >= 4 and r.width * r.height < 0.85 * page_area
    ]
    images = []
    for info in page.get_image_info():
        r = pymupdf.Rect(info["bbox"]) & rect
        if not r.is_empty and r.width > 2 and r.height > 2:
            images.append(tuple(r))
    return PageLayout(page.number + 1, rect.width, rect.height, blocks, drawings, images)


def _merge_rows(lines: list[Line]) -> list[Line]:
    """Join pieces PyMuPDF splits off one printed line (justified text with wide word spacing)."""
    merged: list[Line] = []
    for line in lines:
        prev = merged[-1] if merged else None
        if prev is not None:
            overlap = min(prev.y1, line.y1) - max(prev.y0, line.y0)
            gap = line.x0 - prev.x1
            side_by_side = re.match(r"(Fig|FIG|Table|TABLE)", line.text) is not None
            if overlap > 0.6 * min(prev.y1 - prev.y0, line.y1 - line.y0) and 0 <= gap < 3 * max(prev.size, line.size) and not side_by_side:
                merged[-1] = Line(
                    f"{prev.text} {line.text}", union([prev.bbox, line.bbox]), prev.size if len(prev.text) >= len(line.text) else line.size,
                    prev.spans + line.spans, prev.block, prev.index,
                )
                continue
        merged.append(Line(line.text, line.bbox, line.size, line.spans, line.block, len(merged)))
    return merged


def analyse_document(pages: list[PageLayout]) -> DocumentLayout:
    """Body font size (most characters) and text columns (most frequent left/right edges of body lines)."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            sizes[round(line.size)] += len(line.text)
    body_size = float(sizes.most_common(1)[0][0]) if sizes else 10.0
    width = pages[0].width if pages else 612.0
    lefts: Counter[int] = Counter()
    rights: Counter[int] = Counter()
    body_lines = [
        line
        for page in pages
        for line in page.lines
        if abs(line.size - body_size) <= 1.0 and line.width > 0.25 * page.width
    ]
    for line in body_lines:
        lefts[round(line.x0 / 2) * 2] += 1
        rights[round(line.x1 / 2) * 2] += 1
    columns = _columns(lefts, rights, len(body_lines), width)
    return DocumentLayout(body_size=body_size, columns=columns, running=running_lines(pages))


def _columns(lefts: Counter[int], rights: Counter[int], n: int, width: float) -> list[tuple[float, float]]:
    if not n:
        return [(0.1 * width, 0.9 * width)]
    edges_l = _peaks(lefts, 0.06 * n)
    edges_r = _peaks(rights, 0.06 * n)
    columns: list[tuple[float, float]] = []
    for left in edges_l:
        candidates = [r for r in edges_r if r - left > 0.25 * width]
        if not candidates:
            continue
        right = min(candidates)
        if columns and left < columns[-1][1]:
            continue
        columns.append((float(left), float(right)))
    return columns or [(0.1 * width, 0.9 * width)]


def _peaks(counter: Counter[int], minimum: float) -> list[int]:
    """Positions holding at least `minimum` lines, merged when within 8 pt of a stronger one."""
    peaks: list[int] = []
    for pos, count in counter.most_common():
        if count < minimum:
            break
        if all(abs(pos - p) > 8 for p in peaks):
            peaks.append(pos)
    return sorted(peaks)


def classify_page(page: PageLayout, doc: DocumentLayout) -> ClassifiedPage:
    """Find the running header/footer bounds and the body-text blocks (paragraphs that bound figure regions)."""
    body = frozenset(
        block.number for block in page.blocks if is_body_block(block, doc) and not _inside_graphic(block.bbox, page)
    )
    return ClassifiedPage(
        page.number, page.width, page.height, page.blocks, page.drawings, page.images,
        header_bottom=_header_bottom(page, doc.running), footer_top=_footer_top(page, doc.running), body_blocks=body,
    )  # fmt: skip


def _inside_graphic(box: BBox, page: PageLayout) -> bool:
    """Text framed by a larger vector drawing (table rules, a plot's axes) is not prose."""
    own = area(box)
    height = box[3] - box[1]
    for d in page.drawings:
        if area(d) > 1.5 * own and overlap(box, d) > 0.8 * own:
            return True
        crosses = box[0] + 4 < d[0] and d[2] < box[2] - 4 and d[2] - d[0] < 2
        if crosses and min(d[3], box[3]) - max(d[1], box[1]) > 0.8 * height:
            return True  # a vertical column rule runs through the text
    return False


def is_body_block(block: Block, doc: DocumentLayout) -> bool:
    """Paragraph text: body font size, starting at a column's left edge, running to its right edge.

    Figure-internal text (axis labels, legends, table cells) is smaller, shorter or not aligned to a
    column, which is what separates it from prose here.
    """
    if _is_heading_block(block, doc):
        return True
    if not -0.6 <= block.size - doc.body_size <= 1.0:
        return False  # sub-captions and footnotes are set smaller than the body
    x0, _, x1, _ = block.bbox
    for left, right in doc.columns:
        width = right - left
        if abs(x0 - left) > 20 and not (left - 4 <= x0 and x1 <= right + 4 and len(block.lines) >= 3):
            continue
        if x1 > right + 12 and len(doc.columns) > 1 and right < doc.text_right - 1:
            continue
        full = [ln for ln in block.lines if ln.x1 >= right - 6 and ln.width >= 0.6 * width]
        if len(block.lines) >= 2 and len(full) >= max(1, (len(block.lines) - 1) // 2):
            return True
        if _is_indented_paragraph(block, width):
            return True
        if len(block.lines) == 1:
            line = block.lines[0]
            words = len(line.text.split())
            if line.width >= 0.7 * width and words >= 6:
                return True
            if abs(x0 - left) <= 20 and words >= 6 and line.text.rstrip().endswith((".", ":")):
                return True  # a one-sentence paragraph ("Table 9 shows the scores ... tasks.")
            if abs(x0 - left) <= 4 and words <= 12 and _looks_like_heading(line):
                return True
    return False


def _is_indented_paragraph(block: Block, width: float) -> bool:
    """A paragraph set narrower than its column on both sides, as abstracts and quotations are: at
    least four lines justified to one right edge, each most of the column wide, and words rather
    than numbers (figure text is neither that long nor that regular; a table's rows are numbers)."""
    lines = block.lines[:-1]  # a paragraph's last line ends where it ends
    if len(lines) < 3:
        return False
    edge = max(ln.x1 for ln in lines)
    tokens = block.text.split()
    words = sum(any(ch.isalpha() for ch in token) for token in tokens)
    return words >= 0.8 * len(tokens) and all(edge - ln.x1 <= 2 and ln.width >= 0.7 * width for ln in lines)


def _is_heading_block(block: Block, doc: DocumentLayout) -> bool:
    """A section heading (bold, at least body size, at a column's left edge, at most 3 lines):
    it bounds figure regions like a paragraph does ("B  Training Hyper-parameters for Deep Models")."""
    if len(block.lines) > 3 or block.size < doc.body_size - 0.5:
        return False
    if not all(s.bold for line in block.lines for s in line.spans if s.text.strip()):
        return False
    first = block.lines[0]
    return any(abs(first.x0 - left) <= 4 for left, _ in doc.columns) and len(block.text.split()) >= 2


def _looks_like_heading(line: Line) -> bool:
    """Section headings ("4.3. Completing a visual analogy", "Abstract") are bold or numbered."""
    first = line.text.split()[0] if line.text.split() else ""
    numbered = bool(first) and (first[0].isdigit() or first.rstrip(".") in {"A", "B", "C", "D", "E"})
    return all(s.bold for s in line.spans) or (numbered and line.text[:1].isdigit() and "." in first[:4])


def _margin_key(line: Line) -> tuple[int, str]:
    """Running headers and footers repeat across pages at the same height, page numbers aside."""
    return round(line.y0 / 4), re.sub(r"\d+", "#", line.text.lower())


def _in_top(line: Line, page: PageLayout) -> bool:
    return line.y1 < 0.085 * page.height


def _in_bottom(line: Line, page: PageLayout) -> bool:
    return line.y0 > 0.92 * page.height


def running_lines(pages: list[PageLayout]) -> set[tuple[int, str]]:
    """Keys of lines with letters at the top or bottom of pages that recur on at least two other pages."""
    counts: Counter[tuple[int, str]] = Counter()
    for page in pages:
        counts.update(
            {_margin_key(ln) for ln in page.lines if (_in_top(ln, page) or _in_bottom(ln, page)) and re.search("[A-Za-z]{2}", ln.text)}
        )
    needed = 3 if len(pages) >= 4 else 2
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
            if box[1] <= bottom + 8 and (box[3] - box[1]) < 3 and (box[2] - box[0]) > 0.4 * page.width:
                bottom = max(bottom, box[3] + 1.5)
    return bottom


def _footer_top(page: PageLayout, running: set[tuple[int, str]]) -> float:
    """The upper edge of the footer: repeated lines and bare page numbers near the bottom."""
    top = page.height
    for line in page.lines:
        if _in_bottom(line, page) and _is_margin_line(line, running):
            top = min(top, line.y0)
    return top
