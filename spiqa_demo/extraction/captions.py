"""Caption detection: which text blocks start with "Figure 3:", "Fig. 3.", "TABLE II", ...

A caption must open its block (running text such as "Figure 3 shows ..." sits mid-paragraph or
lacks the label punctuation/typography captions have), and its extent is the rest of that block up
to a change of font size or an unusually large line gap.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from itertools import pairwise
from statistics import median

from spiqa_demo.extraction.geometry import union
from spiqa_demo.extraction.layout import ClassifiedPage, DocumentLayout, Line, PageLayout, Span, join_lines
from spiqa_demo.paper_text import parse_caption_label, roman_to_int
from spiqa_demo.types import BBox, Kind

# The caption words that IEEE-style roman numbers follow ("TABLE IV", "Table II"); after the others
# ("Fig.", "Tab.") a roman-looking word is not a label.
_ROMAN_WORDS = ("TABLE", "Table", "FIGURE", "FIG.")

# -- is this line a caption's first (`match_caption_line`): evidence, in points of score -----------
# Label punctuation after the number (":", ".", "|", a dash); a hyphen is weaker evidence.
_DELIMITER = 2.0
_HYPHEN = 1.0
# The label set apart by its typography (bold, italic, small capitals), and an upper-case word.
_STANDS_OUT = 2.0
_UPPER_CASE = 1.0
# A label alone on its line (IEEE "TABLE II", caption below) when upper case or already this sure (a
# plain "Table 9" alone is a table cell).
_ALONE = 1.0
_SURE = 2.0
# "Figure 3 shows ...": running text, not a caption.
_RUNNING_TEXT = 3.0
# A line after one ending so continues a sentence or a list ("Figure S1: Abundance;"): no caption opens it.
_LIST_GOES_ON = (",", ";")
# A table headed "KEY RESOURCES TABLE": one to three words, then "table"; as sure as a delimited label.
_HEADING_TABLE = re.compile(r"^(?:[A-Za-z][\w-]*\s+){1,3}table$", re.IGNORECASE)
_HEADING_SCORE = 2.0
# A line scoring less than this is not a caption.
_MIN_SCORE = 1.0
# The label's first span holds at least its first this many characters when the label is typeset apart.
_LABEL_PREFIX = 3

# A legend's second column (`_next_column`) opens within this many font sizes of its first line's
# top, and within this many font sizes right of its first column.
_LEVEL = 0.5
_NEXT_COLUMN_GUTTER = 3
# Both columns of such a legend are paragraphs of at least this many rows.
_COLUMN_ROWS = 3

# -- where a caption paragraph ends (`find_captions`, `_caption_lines`) ---------------------------
# Text to the right of the first line (more than this many points past it, within this many font
# sizes under its top) is a side-by-side minipage: the caption ends this far (pt) before it.
_BESIDE_GAP = 2
_BESIDE_BAND = 2
_MINIPAGE_GUTTER = 4
# A caption starts a new paragraph inside a block after a gap of more than this many font sizes, a
# line shorter by more than this share of the caption's first line, or a change of font size
# (more than this many points).
_PARAGRAPH_GAP = 0.8
_SHORT_LINE = 0.3
_SIZE_CHANGE = 0.8
# A piece on the same row overlaps it by more than this share of its height and lies within its
# left edge and the right edge give or take these many points.
_SAME_ROW_OVERLAP = 0.5
_LEFT_SLACK = 2
_RIGHT_SLACK = 3
# The next row starts from this many points above the caption's bottom to this many font sizes
# (at least this many points) under it, and overlaps it by more than this share of its width.
_ROW_ABOVE = 2
_LEADING = 0.9
_MIN_LEADING = 4.0
_ROW_OVERLAP = 0.5
# A centred caption's row is centred on the label within this many font sizes.
_CENTRED = 2
# Caption rows are set at the first line's size give or take this much (pt); sub- and superscripts
# on their own rows are not.
_SIZE_SLACK = 1.2
# Words of a line further apart than this many font sizes are cells of a table row.
_CELL_GAP = 1.5
# A row is filled when it ends within this many font sizes of the right edge; a lowercase row
# continues an unfinished sentence when it starts within this many points of the first line.
_FILLED = 3
_SAME_START = 3
# A row at the caption's left edge continues it after a short row (`_under_left_edge`) when its
# ink is no further under the caption's than this many font sizes (a line gap in print: 0.3-0.65;
# a paragraph's or a float's is more), or the page's usual line gap (`_line_spacing`) and this
# slack, whichever is more; a row opening a panel's description ("(A)", "b)") may be this much
# further still (a legend's title set apart from its panels). A row overlapping the last by more
# than this share of a size is on the same row.
_TIGHT_GAP = 0.8
_SPACING_SLACK = 0.3
_PANEL_GAP = 0.6
_INK_OVERLAP = 0.1
_PANEL_LETTER = re.compile(r"\(?[A-Za-z]\)?[.:]?")
_PANEL = re.compile(r"\(?[A-Za-z](?:\s*(?:,|and|to|[-\u2013\u2014])\s*[A-Za-z])*\)|[A-Z]\.\s")
# `_line_spacing` pairs lines starting within this many points of each other, sizes within this
# many points, gaps under this many sizes (more is a paragraph or a figure between).
_SAME_LEFT = 1.0
_SAME_SIZE = 0.5
_MAX_SPACING = 2.5


@dataclass(frozen=True)
class Caption:
    """A detected caption: its label, normalised number, text and box (hashable: region search keys by it)."""

    kind: Kind
    label: str
    number: str
    page: int
    text: str
    bbox: BBox
    score: float


def _style(span: Span) -> tuple[str, bool]:
    return span.font, span.bold


def _label_stands_out(line: Line, label: str, following: Line | None) -> bool:
    """The label is typeset apart: in another font or weight than the text the line ends with (a
    bold "Figure 3:" before roman text; "Fig. 2 Title." in a bold face, then the legend in roman;
    the `following` line of its block when the title fills the first), or bold and alone on its
    line ("Fig. 1" above its legend). Label and title often come in many spans of one font (a span
    per word), so the label's spans are found by their characters."""
    first = line.spans[0]
    if not label.startswith(first.text.strip()[:_LABEL_PREFIX]):
        return False
    wanted, seen, last_of_label = len("".join(label.split())), 0, 0
    for i, span in enumerate(line.spans):
        seen += len("".join(span.text.split()))
        last_of_label = i
        if seen >= wanted:
            break
    style, ending = _style(line.spans[last_of_label]), _style(line.spans[-1])
    if seen == wanted and last_of_label == len(line.spans) - 1 and all(s.bold for s in line.spans):
        return True
    if ending == style and following is not None:
        ending = _style(following.spans[-1])
    return ending != style


def match_caption_line(line: Line, following: Line | None = None) -> tuple[Kind, str, str, float] | None:
    """(kind, printed label, number, confidence) when the line opens like a caption, else None;
    `following`: the next line of its block, if any."""
    found = parse_caption_label(line.text)
    if found is None:
        return _heading_table(line)
    word, delim, rest = found.word, found.delimiter, found.rest
    if roman_to_int(found.printed_number) is not None and word not in _ROMAN_WORDS:
        return None
    score = 0.0
    if delim in (":", ".", "|", "\u2013", "\u2014"):
        score += _DELIMITER
    elif delim == "-":
        score += _HYPHEN
    if _label_stands_out(line, found.label, following):
        score += _STANDS_OUT
    if word.isupper():
        score += _UPPER_CASE
    if not rest and (word.isupper() or score >= _SURE):
        score += _ALONE
    if found.is_running_text:
        score -= _RUNNING_TEXT
    if score < _MIN_SCORE:
        return None
    return found.kind, found.label, found.number, score


def _heading_table(line: Line) -> tuple[Kind, str, str, float] | None:
    """A table captioned by a heading instead of a numbered label ("KEY RESOURCES TABLE", "Key
    resources table"): a short line whose last word is "table", set in bold or capitals. Its label
    is the heading; it has no number."""
    text = line.text.strip()
    if text[-5:].lower() != "table":  # most lines end otherwise: no regex to run
        return None
    if not _HEADING_TABLE.match(text) or not (text.isupper() or all(s.bold for s in line.spans)):
        return None
    return "table", text, "", _HEADING_SCORE


def find_captions(page: ClassifiedPage, doc: DocumentLayout) -> list[Caption]:
    """Captions on a page: blocks whose first line matches, cut where the caption paragraph ends."""
    starts = []
    for block in page.blocks:
        for i, line in enumerate(block.lines):
            found = match_caption_line(line, block.lines[i + 1] if i + 1 < len(block.lines) else None)
            if not found:
                continue
            if i > 0 and block.number in page.body_blocks and not _starts_new_paragraph(block.lines[i - 1], line):
                continue  # "... shown in\nTable 2. Next ..." inside a paragraph
            if i > 0 and block.lines[i - 1].text.endswith(_LIST_GOES_ON):
                continue  # "...; Figure S2: Abundance;\nFigure S3: ..." in a list of supplementary files
            starts.append((line, found))
            break
    captions = []
    # Text or a graphic to the right of a caption's first line: side-by-side minipages, or a caption
    # set beside its figure; either way the caption fills only its own part.
    boxes = [o.bbox for o in page.lines] + page.drawings + page.images
    for line, found in starts:
        right_edge = doc.column_of(line.x0, line.x1)[1]
        band = (line.y0, line.y1 + _BESIDE_BAND * line.size)
        beside = [b[0] for b in boxes if b[0] > line.x1 + _BESIDE_GAP and min(b[3], band[1]) > max(b[1], band[0])]
        if beside:
            right_edge = min(right_edge, min(beside) - _MINIPAGE_GUTTER)
        kind, label, number, score = found
        lines = _caption_lines(page, line, right_edge)
        lines += _next_column(page, lines, doc)
        captions.append(
            Caption(
                kind=kind,
                label=label,
                number=number,
                page=page.number,
                text=join_lines([ln.text for ln in lines]),
                bbox=union([ln.ink_bbox for ln in lines]),
                score=score,
            )
        )
    return captions


def _next_column(page: ClassifiedPage, lines: list[Line], doc: DocumentLayout) -> list[Line]:
    """The rest of a legend set in two columns under a figure as wide as the page (Science): its
    first part fills its column down to the foot of the text, and the rest opens level with its
    first line, a gutter to its right, in the caption's size and outside the body text. Such a
    line was what cut the first part short there (`find_captions`' text beside the first line)."""
    first = lines[0]
    if len(lines) < _COLUMN_ROWS:
        return []  # a label and a title beside a table's header ("Table 1 Source of reagents")
    box = union([ln.bbox for ln in lines])
    size = max(s.size for s in first.spans)
    under = [
        ln for ln in page.lines
        if ln.y0 > box[3] and ln.y1 <= page.footer_top and min(ln.x1, box[2]) > max(ln.x0, box[0])
    ]  # fmt: skip
    if under:
        return []  # the first part stops short of the foot: a paragraph under it, not a second column
    level = [
        ln for ln in page.lines
        if ln.block not in page.body_blocks and abs(ln.y0 - first.y0) < _LEVEL * size
        and 0 < ln.x0 - box[2] <= _NEXT_COLUMN_GUTTER * size
        and any(abs(s.size - size) <= _SIZE_SLACK for s in ln.spans) and not match_caption_line(ln)
    ]  # fmt: skip
    if not level:
        return []
    start = min(level, key=lambda ln: ln.x0)
    right = doc.column_of(start.x0, start.x1)[1]
    rest = _caption_lines(page, start, right)
    in_order = sorted(page.lines, key=lambda ln: ln.y0)
    if len(rest) < _COLUMN_ROWS or _is_table_row(start, in_order, start.x0, right):
        return []
    return rest


def _starts_new_paragraph(previous: Line, line: Line) -> bool:
    """A caption inside a PyMuPDF block: after a short line or a clearly larger gap."""
    gap = line.y0 - previous.y1
    return (
        gap > _PARAGRAPH_GAP * line.size or previous.x1 < line.x1 - _SHORT_LINE * (line.x1 - line.x0)
        or abs(previous.size - line.size) > _SIZE_CHANGE
    )  # fmt: skip


def _caption_lines(page: PageLayout, first: Line, right_edge: float) -> list[Line]:
    """The caption paragraph opened by `first`: following rows of the same size right below it.

    Rows are gathered across PyMuPDF blocks, which often split a caption after its first line. A
    new row continues the paragraph when the row above was filled to the column's right edge
    (`right_edge`): a table row right under a one-line caption is not part of it; or when it is
    set at the caption's left edge a line gap under it (`_under_left_edge`): a legend's title on
    a row of its own, its panels' descriptions, ragged-right text; not a row running on under a
    graphic set beside the caption (the caption's box would hold its figure).
    """
    size = max(s.size for s in first.spans)
    lines = [first]
    box = first.bbox
    ink_bottom = first.ink_bbox[3]
    row_right = first.x1
    # IEEE style: "TABLE II" alone on its line, the caption centred on the lines below it.
    opening = parse_caption_label(first.text)
    centred = opening is not None and not opening.rest
    centre = (first.x0 + first.x1) / 2
    candidates = sorted((ln for ln in page.lines if ln is not first and ln.y1 > first.y0), key=lambda ln: (ln.y0, ln.x0))
    # Rows in the order of their ink: a line boxed taller by a symbol font starts above the row before it.
    in_order = sorted(candidates, key=lambda ln: (ln.ink_bbox[1], ln.x0))
    spacing = _line_spacing(page)
    # Graphics the caption does not touch: no row across one of them continues it.
    apart = [g for g in page.drawings + page.images if not _overlaps(g, first.bbox)]
    for line in in_order:
        row_overlap = min(line.y1, box[3]) - max(line.y0, box[3] - (line.y1 - line.y0))
        same_row = (
            row_overlap > _SAME_ROW_OVERLAP * (line.y1 - line.y0) and line.x0 >= box[0] - _LEFT_SLACK and line.x1 <= right_edge + _RIGHT_SLACK
            and (line.block == first.block or line.x0 - box[2] < size) and not match_caption_line(line)
        )  # fmt: skip
        next_row = box[3] - _ROW_ABOVE <= line.y0 <= box[3] + max(_MIN_LEADING, _LEADING * size)
        x_overlap = min(line.x1, box[2]) - max(line.x0, box[0])
        on_centre = centred and abs((line.x0 + line.x1) / 2 - centre) < _CENTRED * size
        under = not (same_row or centred) and _under_left_edge(line, first, ink_bottom, spacing) and not _under_graphic(line, box, apart)
        if not (same_row or under or (next_row and (x_overlap > _ROW_OVERLAP * line.width or on_centre))):
            continue
        size_ok = any(abs(s.size - size) <= _SIZE_SLACK for s in line.spans)
        if not size_ok:
            continue  # sub/superscripts and fraction parts set on their own line
        filled = on_centre if centred else (
            row_right >= right_edge - _FILLED * size or _continues(lines[-1], line, first)
            or (under and not any(_between(g, ink_bottom, line) for g in apart))
        )  # fmt: skip
        below = next_row or under
        if below and (not filled or match_caption_line(line) or _is_table_row(line, candidates, box[0], right_edge)):
            break
        row_right = line.x1 if below else max(row_right, line.x1)
        lines.append(line)
        box = union([box, line.bbox])
        ink_bottom = max(ink_bottom, line.ink_bbox[3])
    return lines


def _under_left_edge(line: Line, first: Line, ink_bottom: float, spacing: float) -> bool:
    """`line` starts at the caption's left edge, under its last row by no more than a line gap
    (the page's own, `spacing`, in a double-spaced manuscript), or by a paragraph gap when it
    opens a panel's description ("(A) ...", "b) ..."). Such a row continues the caption however
    short the row above (pdffigures2's left-aligned rule): a legend's title on its own row, then
    the panels; a paragraph per panel; ragged-right text in a narrow column beside the figure."""
    size = max(s.size for s in first.spans)
    if abs(line.x0 - first.x0) >= _SAME_START:
        return False
    reach = max(_TIGHT_GAP, spacing + _SPACING_SLACK) + (_PANEL_GAP if _PANEL.match(line.text) else 0.0)
    return -_INK_OVERLAP < (line.ink_bbox[1] - ink_bottom) / size <= reach


def _line_spacing(page: PageLayout) -> float:
    """The page's usual gap from a line to the next one under it at the same left edge, ink to ink,
    in font sizes: about half a size in print, more than one in a double-spaced manuscript."""
    stacked = sorted(page.lines, key=lambda ln: (round(ln.x0), ln.y0))
    gaps = [
        gap for a, b in pairwise(stacked)
        if abs(a.x0 - b.x0) < _SAME_LEFT and abs(a.size - b.size) < _SAME_SIZE
        and 0 < (gap := (b.ink_bbox[1] - a.ink_bbox[3]) / a.size) < _MAX_SPACING
    ]  # fmt: skip
    return median(gaps) if gaps else 0.0


def _under_graphic(line: Line, box: BBox, graphics: list[BBox]) -> bool:
    """`line` reaches under one of `graphics` set beside the caption's rows so far (`box`)."""
    return any(g[0] >= box[2] - _RIGHT_SLACK and g[1] < box[3] and g[3] > box[1] and line.x1 > g[0] for g in graphics)


def _between(graphic: BBox, ink_bottom: float, line: Line) -> bool:
    """`graphic` lies between the caption's last row and `line` (a rule has no height), across it."""
    return graphic[1] <= line.ink_bbox[1] and graphic[3] >= ink_bottom and min(graphic[2], line.x1) > max(graphic[0], line.x0)


def _overlaps(a: BBox, b: BBox) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def _is_table_row(line: Line, lines: list[Line], left: float, right: float) -> bool:
    """The row of `line` (its pieces between `left` and `right`) holds words set apart by more than
    `_CELL_GAP` font sizes: a table's header or row of cells right under its caption
    ("Amazon-Book    Last-FM"), not a line of the caption's sentence. `lines` are in order of
    their tops: none from the first that starts below `line` shares its row."""
    below = bisect_left(lines, line.y1, key=lambda ln: ln.y0)
    row = [
        s for ln in lines[:below]
        if min(ln.y1, line.y1) - max(ln.y0, line.y0) > _SAME_ROW_OVERLAP * (line.y1 - line.y0)
        and ln.x0 >= left - _LEFT_SLACK and ln.x1 <= right + _RIGHT_SLACK
        for s in ln.spans
    ]  # fmt: skip
    row.sort(key=lambda s: s.bbox[0])
    wide = [i for i, (a, b) in enumerate(pairwise(row)) if b.bbox[0] - a.bbox[2] > _CELL_GAP * line.size]
    if wide == [0] and _PANEL_LETTER.fullmatch(row[0].text.strip()) and abs(row[0].size - line.size) <= _SIZE_SLACK:
        return False  # a panel's letter hung in the margin of its description ("A     CBB staining of ...")
    return bool(wide)


def _continues(previous: Line, line: Line, first: Line) -> bool:
    """The text runs on: a hyphenated break, or a lowercase start after an unfinished sentence at
    the paragraph's left edge (a caption in a minipage narrower than its column)."""
    if previous.text.endswith("-"):
        return True
    return line.text[:1].islower() and not previous.text.rstrip().endswith(".") and abs(line.x0 - first.x0) < _SAME_START
