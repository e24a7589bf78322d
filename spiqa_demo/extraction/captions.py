"""Caption detection: which text blocks start with "Figure 3:", "Fig. 3.", "TABLE II", ...

A caption must open its block (running text such as "Figure 3 shows ..." sits mid-paragraph or
lacks the label punctuation/typography captions have), and its extent is the rest of that block up
to a change of font size or an unusually large line gap.
"""

from __future__ import annotations

from dataclasses import dataclass

from spiqa_demo.extraction.geometry import union
from spiqa_demo.extraction.layout import ClassifiedPage, DocumentLayout, Line, PageLayout, join_lines
from spiqa_demo.paper_text import parse_caption_label, roman_to_int
from spiqa_demo.types import BBox, Kind

# The caption words that IEEE-style roman numbers follow ("TABLE IV", "Table II"); after the others
# ("Fig.", "Tab.") a roman-looking word is not a label.
_ROMAN_WORDS = ("TABLE", "Table", "FIGURE", "FIG.")


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


def _label_stands_out(line: Line, label: str) -> bool:
    """The label is typeset differently from the text after it (bold/italic/small caps)."""
    first = line.spans[0]
    if len(line.spans) == 1:
        return False
    rest = next((s for s in line.spans[1:] if s.text.strip()), None)
    return rest is not None and label.startswith(first.text.strip()[:3]) and (
        first.font != rest.font or first.bold != rest.bold
    )


def match_caption_line(line: Line) -> tuple[Kind, str, str, float] | None:
    """(kind, printed label, number, confidence) when the line opens like a caption, else None."""
    found = parse_caption_label(line.text)
    if found is None:
        return None
    word, delim, rest = found.word, found.delimiter, found.rest
    if roman_to_int(found.printed_number) is not None and word not in _ROMAN_WORDS:
        return None
    score = 0.0
    if delim in (":", ".", "|", "\u2013", "\u2014"):
        score += 2.0
    elif delim == "-":
        score += 1.0
    if _label_stands_out(line, found.label):
        score += 2.0
    if word.isupper():
        score += 1.0
    if not rest and (word.isupper() or score >= 2.0):
        score += 1.0  # IEEE "TABLE II" alone on its line, caption below (a plain "Table 9" is a cell)
    if found.is_running_text:
        score -= 3.0  # "Figure 3 shows ..."
    if score < 1.0:
        return None
    return found.kind, found.label, found.number, score


def find_captions(page: ClassifiedPage, doc: DocumentLayout) -> list[Caption]:
    """Captions on a page: blocks whose first line matches, cut where the caption paragraph ends."""
    starts = []
    for block in page.blocks:
        for i, line in enumerate(block.lines):
            found = match_caption_line(line)
            if not found:
                continue
            if i > 0 and block.number in page.body_blocks and not _starts_new_paragraph(block.lines[i - 1], line):
                continue  # "... shown in\nTable 2. Next ..." inside a paragraph
            starts.append((line, found))
            break
    captions = []
    for line, found in starts:
        right_edge = doc.column_of(line.x0, line.x1)[1]
        band = (line.y0, line.y1 + 2 * line.size)
        beside = [o.x0 for o in page.lines if o.x0 > line.x1 + 2 and min(o.y1, band[1]) > max(o.y0, band[0])]
        if beside:
            right_edge = min(right_edge, min(beside) - 4)  # side-by-side minipages: each fills its own part
        kind, label, number, score = found
        lines = _caption_lines(page, line, right_edge)
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


def _starts_new_paragraph(previous: Line, line: Line) -> bool:
    """A caption inside a PyMuPDF block: after a short line or a clearly larger gap."""
    gap = line.y0 - previous.y1
    return gap > 0.8 * line.size or previous.x1 < line.x1 - 0.3 * (line.x1 - line.x0) or abs(previous.size - line.size) > 0.8


def _caption_lines(page: PageLayout, first: Line, right_edge: float) -> list[Line]:
    """The caption paragraph opened by `first`: following rows of the same size right below it.

    Rows are gathered across PyMuPDF blocks, which often split a caption after its first line. A
    new row continues the paragraph only when the row above was filled to the column's right edge
    (`right_edge`): a table row right under a one-line caption is not part of it.
    """
    size = max(s.size for s in first.spans)
    lines = [first]
    box = first.bbox
    row_right = first.x1
    # IEEE style: "TABLE II" alone on its line, the caption centred on the lines below it.
    opening = parse_caption_label(first.text)
    centred = opening is not None and not opening.rest
    centre = (first.x0 + first.x1) / 2
    candidates = sorted((ln for ln in page.lines if ln is not first and ln.y1 > first.y0), key=lambda ln: (ln.y0, ln.x0))
    for line in candidates:
        row_overlap = min(line.y1, box[3]) - max(line.y0, box[3] - (line.y1 - line.y0))
        same_row = (
            row_overlap > 0.5 * (line.y1 - line.y0) and line.x0 >= box[0] - 2 and line.x1 <= right_edge + 3
            and (line.block == first.block or line.x0 - box[2] < size) and not match_caption_line(line)
        )  # fmt: skip
        next_row = box[3] - 2 <= line.y0 <= box[3] + max(4.0, 0.9 * size)
        x_overlap = min(line.x1, box[2]) - max(line.x0, box[0])
        on_centre = centred and abs((line.x0 + line.x1) / 2 - centre) < 2 * size
        if not (same_row or (next_row and (x_overlap > 0.5 * line.width or on_centre))):
            continue
        size_ok = any(abs(s.size - size) <= 1.2 for s in line.spans)
        if not size_ok:
            continue  # sub/superscripts and fraction parts set on their own line
        filled = on_centre if centred else row_right >= right_edge - 3 * size or _continues(lines[-1], line, first)
        if next_row and (not filled or match_caption_line(line)):
            break
        row_right = line.x1 if next_row else max(row_right, line.x1)
        lines.append(line)
        box = union([box, line.bbox])
    return lines


def _continues(previous: Line, line: Line, first: Line) -> bool:
    """The text runs on: a hyphenated break, or a lowercase start after an unfinished sentence at
    the paragraph's left edge (a caption in a minipage narrower than its column)."""
    if previous.text.endswith("-"):
        return True
    return line.text[:1].islower() and not previous.text.rstrip().endswith(".") and abs(line.x0 - first.x0) < 3
