"""Text inside a region: plain words for figures, a table's structure (and its Markdown) for tables.

Table cells are rebuilt from the words already read for the page (rows by baseline, columns by
the vertical gaps that run through every row, or through every body row under a header; see
`table_grid`); a row that is one line of text (a footnote, a title over the columns) rules no
column and goes whole to the first column it reaches over. The header is the rows above the first
row of numbers in the numeric columns (a spanning row of datasets above a row of metrics is two
header rows), counting a row whose numbers are printed unlike those below it ("5%" over "0.3090")
as headings, and a heading wrapped over two lines as one; each body row's first cell is its name
(`spiqa_demo.types.TableStructure`). PyMuPDF's `find_tables` and pdfplumber's
`extract_tables` were measured against it on every table of the shared papers
(`benchmarks/table_text.py`): with ruling lines they find almost none of the booktabs tables
papers print; aligned by text, PyMuPDF reorders digits ("0.1952" -> "01952.") and both split
words across cells ("super. IN-1M", superscripts), and each parses the page again. The grid here
matches more hand-checked cells at a small fraction of the cost.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import replace
from itertools import pairwise
from operator import attrgetter
from statistics import median
from typing import NamedTuple

from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.types import BBox, TableStructure, round_bbox

# A word is inside a box when its centre is within this many points of it (words on the edge).
_WORD_SLACK = 1
# A space between glyphs closer than this share of the font size, and than this share of the line's
# median space, is a kerning point, not a word break (`glued_space`): word spaces are a quarter of a
# size or more, and a kerned pair overlaps.
_GLUED_EM = 0.08
_GLUED_SHARE = 0.5
# Words are on one row when their centres are within this share of a word's height of the row's.
_SAME_ROW = 0.45
# Columns are apart where a gap wider than this share of the median word height (wider than a
# space) runs through every row.
_COLUMN_GAP = 0.8
# A font whose word boxes are tall for its size makes that gap too wide: it is also at most this
# many of the table's spaces (their median, gaps under `_SPACE_AT_MOST` of a height, when there are
# `_MIN_SPACES`), and at least `_MIN_COLUMN_GAP` of a height.
_SPACES_APART = 2.5
_SPACE_AT_MOST = 0.5
_MIN_SPACES = 5
_MIN_COLUMN_GAP = 0.4
# Numbers are aligned in a column when their left (or right) edges are within this many points.
_ALIGNED = 1.0
# More rows than this above the first row of numbers are not all headings (a table of text, a
# table whose numbers start late): then only the first row is the header; unless at most one of
# them names a row (headings wrapped over many lines beside one centred on them, "Network").
_MAX_HEADER_ROWS = 3
# A run of this many lower-case words or more is prose (`_is_prose`), and rows with one rule no
# columns when they are at most one in this many of the ruling rows and leave this many.
_PROSE_WORDS = 3
_MAX_PROSE_SHARE = 4
_MIN_RULING = 3
_LOWER_WORD = re.compile(r"[a-z][a-z-]*[.,;:]?")
# A value printed alone: a number or a range of two, a unit of up to three letters or "%" or "×"
# right after it, marks of notes ("36.77", "16-18ms", "1.2×", "0.3*").
_BARE_VALUE = re.compile(r"[-+\u2212]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[-\u2013]\d[\d,]*(?:\.\d+)?)?(?:%|×|[A-Za-zµμ]{1,3})?[*†‡§¶]*")
# A number whose thousands are set apart by a space ("52 643"): one value.
_GROUPED = re.compile(r"\d{1,3} \d{3}(?:\.\d+)?")
_NUMBER = re.compile(r"[-+\u2212]?\d+(?:[.,]\d+)*")
# A cell that says "no result" where a number would be.
_NO_VALUE = re.compile(r"^(?:[-\u2010-\u2015\u2212/]+|n/?a)$", re.IGNORECASE)
# What may sit around a number in a cell: signs, spreads, units, marks of best results and notes.
_NUMBER_DECOR = re.compile(r"[\s%±()\[\]*†‡§¶/~<>=≈×x✓✗-]")


class Word(NamedTuple):
    """A word on the page (PyMuPDF's `get_text("words")` order: box, then text)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


def page_words(page: pymupdf.Page, textpage: pymupdf.TextPage | None = None) -> list[Word]:
    """The words of `page` as PyMuPDF reads them from its text layer; from `textpage` when given
    (one made with PyMuPDF's flags for words, which `layout.read_page` has at hand), with a sign
    that a symbol font maps to a digit read as the sign (`_symbol_signs`)."""
    words = _glued(page.get_text("words", textpage=textpage))
    suspects = [
        i for i in range(1, len(words) - 1)
        if len(words[i].text) == 1 and words[i].text.isdigit() and all(_NUMBER.fullmatch(words[j].text) and _same_line(words[i], words[j]) for j in (i - 1, i + 1))
    ]  # fmt: skip
    return _symbol_signs(page, textpage, words, suspects) if suspects else words


def _glued(raw: list[tuple]) -> list[Word]:
    """PyMuPDF's words, each run of them whose glyphs touch across a space joined into one: a
    typesetter's space at a kerning point ("e x ert"), as `layout.line_text` reads lines (the word
    box's height, a little more than the font size, stands for the size). Only words that follow
    each other along a row are joined: a line set at an angle keeps its spaces."""
    by_line: dict[tuple[int, int], list[tuple]] = {}
    for w in raw:
        by_line.setdefault((w[5], w[6]), []).append(w)
    out: list[Word] = []
    for line in by_line.values():
        gaps = [b[0] - a[2] for a, b in pairwise(line)]
        word_gap = median(gaps) if gaps else 0.0
        merged = [Word._make(line[0][:5])]
        for gap, w in zip(gaps, line[1:], strict=True):
            last = merged[-1]
            on_row = min(last.y1, w[3]) - max(last.y0, w[1]) > (w[3] - w[1]) / 2 and (w[0] + w[2]) / 2 > last.x1
            if on_row and glued_space(gap, w[3] - w[1], word_gap):
                merged[-1] = Word(last.x0, min(last.y0, w[1]), w[2], max(last.y1, w[3]), last.text + w[4])
            else:
                merged.append(Word._make(w[:5]))
        out += merged
    return out


def glued_space(gap: float, size: float, word_gap: float) -> bool:
    """A space whose neighbouring glyphs are `gap` apart (pt) separates no words: under
    `_GLUED_EM` of the font's `size` and under `_GLUED_SHARE` of the line's median space
    (`word_gap`)."""
    return gap < _GLUED_EM * size and gap < _GLUED_SHARE * word_gap


def _same_line(a: Word, b: Word) -> bool:
    return min(a.y1, b.y1) > max(a.y0, b.y0)


def _symbol_signs(page: pymupdf.Page, textpage: pymupdf.TextPage | None, words: list[Word], suspects: list[int]) -> list[Word]:
    """A lone digit between two numbers, set in another font than both, and in a font that prints
    no other digit on the page, is a "±" (a mean and its spread) of a symbol font whose glyphs the
    PDF maps to the wrong characters (Elsevier's "1398 5 428", "39.2 6 3"); a digit in the numbers'
    own font, or in a bold one that prints other numbers too, is a number."""
    spans = [
        (span["bbox"], span["font"], span["text"]) for block in page.get_text("dict", textpage=textpage)["blocks"]
        for line in block.get("lines", []) for span in line["spans"]
    ]  # fmt: skip
    digits: dict[str, set[str]] = {}
    for _, font, text in spans:
        digits.setdefault(font, set()).update(c for c in text if c.isdigit())

    def font_at(w: Word) -> str | None:
        return next((font for (x0, y0, x1, y1), font, _ in spans if x0 <= w.cx <= x1 and y0 <= w.cy <= y1), None)

    out = list(words)
    for i in suspects:
        sign = font_at(words[i])
        if sign is not None and digits[sign] == {words[i].text} and sign not in (font_at(words[i - 1]), font_at(words[i + 1])):
            out[i] = words[i]._replace(text="±")
    return out


def words_in(words: list[Word], bbox: BBox) -> list[Word]:
    """Words whose centre lies inside `bbox`."""
    x0, y0, x1, y1 = bbox
    return [w for w in words if x0 - _WORD_SLACK <= w.cx <= x1 + _WORD_SLACK and y0 - _WORD_SLACK <= w.cy <= y1 + _WORD_SLACK]


def _rows(words: list[Word]) -> list[list[Word]]:
    rows: list[list[Word]] = []
    for w in sorted(words, key=lambda w: (w.cy, w.x0)):
        yc = w.cy
        if rows and abs(yc - sum(r.cy for r in rows[-1]) / len(rows[-1])) < _SAME_ROW * (w.y1 - w.y0):
            rows[-1].append(w)
        else:
            rows.append([w])
    return [sorted(r, key=lambda w: w.x0) for r in rows]


def figure_text(words: list[Word]) -> str:
    """Words of a figure (axis labels, legends) in reading order, one line per text row."""
    return "\n".join(" ".join(w.text for w in row) for row in _rows(words))


def region_words(words: list[Word], bbox: BBox, caption_bbox: BBox | None) -> list[Word]:
    """Words inside a figure/table region, less those of its caption (a region may reach into it)."""
    inside = words_in(words, bbox)
    if caption_bbox is None:
        return inside
    cx0, cy0, cx1, cy1 = caption_bbox
    return [
        w for w in inside
        if not (cy0 - _WORD_SLACK <= w.cy <= cy1 + _WORD_SLACK and cx0 - _WORD_SLACK <= w.x0 <= cx1 + _WORD_SLACK)
    ]  # fmt: skip


def table_grid(words: list[Word]) -> list[list[str]]:
    """The cells of a table region, row by row (every row as wide as the widest).

    Columns are first split by the gaps through every row; when that finds header rows above the
    numbers, the gaps through the body rows alone split them again, and header words go to the
    column of their centre: a heading spanning several columns (a dataset over its metrics) crosses
    the gaps between them and would otherwise join their cells.
    """
    return [[" ".join(w.text for w in cell) for cell in row] for row in _grid_words(words)]


def _union(words: list[Word]) -> BBox | None:
    if not words:
        return None
    return (min(w.x0 for w in words), min(w.y0 for w in words), max(w.x1 for w in words), max(w.y1 for w in words))


def _grid_words(words: list[Word]) -> list[list[list[Word]]]:
    """The words of each cell, row by row (see `table_grid`)."""
    rows = _rows(words)
    grid = _cells(rows, _layout(rows), 0)
    texts = [[" ".join(w.text for w in cell) for cell in row] for row in grid]
    header = _header_rows(texts)
    if 0 < header < len(rows):
        layout = _layout(rows[header:])
        grid = _cells(rows, layout, 0)
        texts = [[" ".join(w.text for w in cell) for cell in row] for row in grid]
        columns = _numeric_columns(texts)
        above = next((i for i, row in enumerate(texts) if _is_number_row(row, columns)), 0)  # none in a table of text
        if above:
            grid = _cells(rows, layout, above)
        grid = _join_wrapped_headings(grid, [_spans(row, layout) for row in rows[:header]])
    return _split_packed(grid)


def _split_packed(grid: list[list[list[Word]]]) -> list[list[list[Word]]]:
    """Each column whose body cells are two values set closer than a space apart ("36.77 36.82",
    "33.90 -", "24 16-18ms" in a table scaled down to fit) split in two at the line between them
    (`_packed_line`), its heading words by the side of their centre: numbers beside numbers are
    other columns' however tight, and no gap as wide as `_COLUMN_GAP` runs between them."""
    top = _header_rows([[" ".join(w.text for w in cell) for cell in row] for row in grid])
    j = 1
    while j < max((len(row) for row in grid), default=0):
        line = _packed_line([row[j] for row in grid[top:] if j < len(row)])
        if line is not None:
            grid = [[*row[:j], [w for w in row[j] if w.cx < line], [w for w in row[j] if w.cx >= line], *row[j + 1 :]] if j < len(row) else row
                    for row in grid]  # fmt: skip
        j += 1
    return grid


def _packed_line(cells: list[list[Word]]) -> float | None:
    """The x position between the first and second values of a column's body cells, when every
    cell is values only (`_BARE_VALUE`: no spread in brackets, no "±"), half of them or more (two
    at least) hold two or more, a vertical line runs between their first two, and no value of
    another cell crosses it; not digits grouped by a space ("52 643")."""
    filled = [c for c in cells if c]
    if not all(_BARE_VALUE.fullmatch(w.text) or _NO_VALUE.match(w.text) for c in filled for w in c):
        return None
    packed = [c for c in filled if len(c) > 1]
    if len(packed) < 2 or 2 * len(packed) < len(filled) or any(_GROUPED.fullmatch(f"{c[0].text} {c[1].text}") for c in packed):
        return None
    left, right = max(c[0].x1 for c in packed), min(c[1].x0 for c in packed)
    line = (left + right) / 2
    return line if left < right and not any(w.x0 < line < w.x1 for c in filled for w in c) else None


def _join_wrapped_headings(grid: list[list[list[Word]]], spanning: list[bool]) -> list[list[list[Word]]]:
    """The header with a heading wrapped over two lines read as one ("23S rRNA" over "position"):
    a header line of several headings that spans no columns (`spanning`), each of whose headings
    sits over one of the line below, is joined to it when it leaves a column empty over a heading
    below (which `TableStructure.column_headings` would read as under the spanning heading to its
    left). One heading alone on its line is a title over the columns below ("Dev Set"), and
    headings over the first of sub-headings the line below repeats are datasets over their metrics:
    both kept."""
    i = 0
    while i + 1 < len(spanning):
        line, below = grid[i], grid[i + 1]
        filled = [bool(c) for c in line]
        over = all(below[j] for j, f in enumerate(filled) if f)
        under = [" ".join(w.text for w in below[j]) for j, f in enumerate(filled) if not f and below[j] and any(filled[:j])]
        repeated = [" ".join(w.text for w in c) for c in below]
        metrics = any(repeated.count(text) > 1 for text in under)  # "recall ndcg recall ndcg": datasets over their metrics
        if not spanning[i] and sum(filled) > 1 and over and under and not metrics:
            grid[i + 1] = [a + b for a, b in zip(line, below, strict=True)]
            del grid[i], spanning[i]
        else:
            i += 1
    return grid


class _Layout(NamedTuple):
    """Where a table's columns lie: the x positions between them, the x extent of the words of each
    column in the rows that ruled them, and the gap wider than a space."""

    boundaries: list[float]
    extents: list[tuple[float, float] | None]
    min_gap: float


def _runs(row: list[Word], min_gap: float) -> list[list[Word]]:
    """A row's words (left to right) in runs no wider gap than a space parts: one cell's words, or
    a line of text that crosses columns."""
    runs: list[list[Word]] = []
    for w in row:
        if runs and w.x0 - runs[-1][-1].x1 <= min_gap:
            runs[-1].append(w)
        else:
            runs.append([w])
    return runs


def _layout(rows: list[list[Word]]) -> _Layout:
    """The columns of `rows`, ruled by the rows of more than one run: a row that is one line of text
    (a footnote, a heading spanning every column) has no gap to give and would block those of all
    the others. A one-run row beside all their columns (a group's name left of the row names)
    rules too: it is a column of its own."""
    words = [w for row in rows for w in row]
    if not words:
        return _Layout([], [], 0.0)
    height = sorted(w.y1 - w.y0 for w in words)[len(words) // 2]
    spaces = sorted(g for row in rows for a, b in pairwise(row) if 0 < (g := b.x0 - a.x1) < _SPACE_AT_MOST * height)
    min_gap = _COLUMN_GAP * height
    if len(spaces) >= _MIN_SPACES:
        min_gap = min(min_gap, max(_SPACES_APART * spaces[len(spaces) // 2], _MIN_COLUMN_GAP * height))
    ruling = [row for row in rows if len(_runs(row, min_gap)) > 1] or rows
    # A few rows with a run of prose across the columns (a footnote's formula beside its text, a
    # row "(E) positional embedding instead of sinusoids" over five columns) would close the gaps
    # all the other rows leave open; many such rows are a table of text, whose cells they are.
    prose = [row for row in ruling if any(_is_prose(run) for run in _runs(row, min_gap))]
    if prose and _MAX_PROSE_SHARE * len(prose) <= len(ruling) and len(ruling) - len(prose) >= _MIN_RULING:
        ruling = [row for row in ruling if row not in prose]
    spread = [w for row in ruling for w in row]
    left, right = min(w.x0 for w in spread), max(w.x1 for w in spread)
    ruling += [row for row in rows if row not in ruling and (row[-1].x1 < left or row[0].x0 > right)]
    boundaries = _column_boundaries(ruling, min_gap)
    extents: list[tuple[float, float] | None] = [None] * (len(boundaries) + 1)
    for row in ruling:
        for w in row:
            j = _column_of(w, boundaries)
            extent = extents[j]
            extents[j] = (w.x0, w.x1) if extent is None else (min(extent[0], w.x0), max(extent[1], w.x1))
    return _Layout(boundaries, extents, min_gap)


def _is_prose(run: list[Word]) -> bool:
    """A run of words that reads as a sentence: `_PROSE_WORDS` lower-case words or more ("of",
    "instead", "non-local"), not a name or a heading ("Cell Signaling Technology, USA")."""
    return sum(1 for w in run if _LOWER_WORD.fullmatch(w.text)) >= _PROSE_WORDS


def _prose_across(run: list[Word], boundaries: list[float]) -> bool:
    """A run of prose (`_is_prose`, which `_layout` let rule no column) with words on both sides of
    a boundary is one cell's text; not a long row name a space before its number ("+ spatial (1x1
    conv, k=3) 28.10M")."""
    return _is_prose(run) and any(
        b < right.x0 and not is_number_cell(right.text) for left, right in pairwise(run) for b in boundaries if left.x1 < b
    )


def _covered(run: list[Word], layout: _Layout) -> list[int]:
    """The columns whose words (in the rows that ruled them) a run reaches over."""
    x0, x1 = run[0].x0, max(w.x1 for w in run)
    return [j for j, e in enumerate(layout.extents) if e is not None and x0 < e[1] and e[0] < x1]


def _spans(row: list[Word], layout: _Layout) -> bool:
    """Some run of the row reaches over the words of several columns (a spanning heading)."""
    return any(len(_covered(run, layout)) > 1 for run in _runs(row, layout.min_gap))


def _column_of(word: Word, boundaries: list[float]) -> int:
    return sum(1 for b in boundaries if word.cx > b)


def _cells(rows: list[list[Word]], layout: _Layout, above: int) -> list[list[list[Word]]]:
    """Each row's words in the columns of `layout`, run by run (`_runs`): a run over the words of
    one column goes whole to it (a heading wider than its numbers); a run over the words of several
    with a word across a boundary (a heading spanning them, a footnote) goes whole to the first of
    them, where a spanning heading is read from (`TableStructure.column_headings`); any other word
    goes to the column of its centre. `above`: how many rows are above the first row of numbers
    (0 when not known yet, or for a table of text)."""
    grid = []
    filled = Counter(j for row in rows[above:] for j in {_column_of(w, layout.boundaries) for w in row})
    groups = {j for j in filled if 2 * filled[j] < len(rows) - above}  # names printed once for a group of rows
    for i, row in enumerate(rows):
        cells: list[list[Word]] = [[] for _ in range(len(layout.boundaries) + 1)]
        for run in _runs(row, layout.min_gap):
            covered = _covered(run, layout)
            across = any(w.x0 < b < w.x1 for w in run for b in layout.boundaries) or _prose_across(run, layout.boundaries)
            # Above the rows of numbers, a run with a heading over each column it covers is headings
            # set tight, read word by word (a footnote below them is one line of text). A heading
            # closes the brackets it opens: a title over the columns is one ("Systems (Dec 10th,
            # 2018)"). Nor from over a column of group names: a heading spanning them and the row
            # names beside them ("Model (Base, 16L)" over "post-norm | Transformer").
            pieces = {j: " ".join(w.text for w in run if _column_of(w, layout.boundaries) == j) for j in covered}
            tight = (
                i < above and len(covered) > 1 and covered[0] not in groups
                and all(p and _balanced(p) for p in pieces.values())
            )  # fmt: skip
            whole = covered[0] if len(covered) == 1 or (covered and across and not tight) else None
            for w in run:
                cells[_column_of(w, layout.boundaries) if whole is None else whole].append(w)
        grid.append(cells)
    return grid


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")") and text.count("[") == text.count("]")


def is_number_cell(cell: str) -> bool:
    """Whether a cell holds a figure ("0.81", "78.5%", "12.3 ± 0.4", "**91.2**", "1.2M"): numbers,
    with at most one letter (a unit) besides the signs and marks around them."""
    if not _NUMBER.search(cell):
        return False
    rest = _NUMBER_DECOR.sub("", _NUMBER.sub("", cell))
    return len(rest) <= 1


def _shape(cell: str) -> tuple[bool, int, bool]:
    """How a number cell is printed: letters beside the number ("S1", "k=3"), the number's decimals,
    a percent sign."""
    number = _NUMBER.search(cell)
    decimals = len(number[0].rpartition(".")[2]) if number is not None and "." in number[0] else 0
    return any(c.isalpha() for c in _NUMBER.sub("", cell)), decimals, "%" in cell


def _numeric_columns(grid: list[list[str]]) -> list[int]:
    """The columns (past the row names) whose cells are mostly numbers; every one past the first
    when none is (a small grid)."""
    width = max((len(r) for r in grid), default=0)
    columns = []
    for j in range(1, width):
        cells = [r[j] for r in grid if j < len(r) and r[j] and not _NO_VALUE.match(r[j])]
        numbers = sum(is_number_cell(c) for c in cells)
        if numbers >= 2 and 2 * numbers >= len(cells):
            columns.append(j)
    return columns or list(range(1, width))


def _is_number_row(row: list[str], columns: list[int]) -> bool:
    """Half its cells in `columns` are numbers, a dash for "no result" ("—", "-", "n/a") not counted;
    or all of them are such dashes (a row of results not reported)."""
    printed = [row[j] for j in columns if j < len(row) and row[j]]
    cells = [c for c in printed if not _NO_VALUE.match(c)]
    if printed and not cells:
        return True
    return bool(cells) and 2 * sum(is_number_cell(c) for c in cells) >= len(cells)


def _prints_labels(grid: list[list[str]], i: int, columns: list[int]) -> bool:
    """Row `i`'s numbers are printed unlike the numbers of their columns below ("5%" over "0.3090",
    "S1" over "13.2", "36" over "768.1", "F1" over "81.2"), and are not one value repeated ("50" for
    chance): headings (training shares, songs, sizes), not results."""
    differs, printed = [], []
    for j in columns:
        cell = grid[i][j] if j < len(grid[i]) else ""
        if not is_number_cell(cell):
            continue
        printed.append(cell)
        below = Counter(_shape(r[j]) for r in grid[i + 1:] if j < len(r) and is_number_cell(r[j]))
        total = sum(below.values())
        if total < 2:
            continue
        usual, count = below.most_common(1)[0]
        if 2 * count >= total:  # the column prints its values one way: a row printed otherwise stands out
            differs.append(usual != _shape(cell))
    return bool(differs) and all(differs) and (len(printed) == 1 or len(set(printed)) > 1)


def _header_rows(grid: list[list[str]]) -> int:
    """How many rows of `grid` are headings: those above the first row of numbers in the numeric
    columns, less a row whose numbers are printed as headings (`_prints_labels`; see module docstring)."""
    columns = _numeric_columns(grid)
    numbered = [i for i, row in enumerate(grid) if _is_number_row(row, columns)]
    first = next(iter(numbered), None)
    for i in numbered[1:]:
        if first is None or first >= _MAX_HEADER_ROWS or not _prints_labels(grid, first, columns):
            break
        first = i
    if first is None and _spans_subheadings(grid):
        return 2
    if first is None or (first > _MAX_HEADER_ROWS and sum(1 for row in grid[:first] if row and row[0]) > 1):
        return min(1, len(grid))
    if first > 1 and grid[first - 1][0] and not any(grid[first - 1][1:]):
        return first - 1  # a group's name over its rows ("Reagents", "Data Collection") is the body's first row
    return first


def _spans_subheadings(grid: list[list[str]]) -> bool:
    """A table of text whose first row has a heading over several columns (the empty cells right of
    it filled in the row below): that row holds their sub-headings ("Optimization Domain" over
    "Atoms A | D = conv(A)"), a second header row."""
    if len(grid) < 3:
        return False
    top, below = grid[0], grid[1]
    return any(not top[j] and top[j - 1] and below[j] and below[j - 1] for j in range(1, min(len(top), len(below))))


def grid_structure(grid: list[list[str]]) -> TableStructure:
    """The header and body of `grid`; no header when it starts with numbers."""
    header = _header_rows(grid)
    return TableStructure(header=tuple(tuple(r) for r in grid[:header]), body=tuple(tuple(r) for r in grid[header:]))


def table_structure(words: list[Word]) -> TableStructure:
    """The structure of a table from the words of its region, with where each cell is printed."""
    cells = _grid_words(words)
    structure = grid_structure([[" ".join(w.text for w in cell) for cell in row] for row in cells])
    boxes = [[_union(cell) for cell in row] for row in cells]
    return replace(structure, boxes=tuple(tuple(None if b is None else round_bbox(b) for b in row) for row in boxes))


def _column_boundaries(rows: list[list[Word]], min_gap: float) -> list[float]:
    """x positions of gaps wider than `min_gap` (a space) that no word of any row crosses, and the
    edges of columns of numbers that long row names reach up to (`_number_edges`)."""
    spans = sorted((w.x0, w.x1) for row in rows for w in row)
    if not spans:
        return []
    boundaries = []
    end = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - end > min_gap:
            boundaries.append((x0 + end) / 2)
        end = max(end, x1)
    words = sorted(w.cx for row in rows for w in row)
    # A boundary is known by the words left of it; none or all of them is no boundary.
    apart = {0, len(words)} | {bisect.bisect(words, b) for b in boundaries}
    for edge in _number_edges(rows, min_gap):
        if bisect.bisect(words, edge) not in apart:
            apart.add(bisect.bisect(words, edge))
            boundaries.append(edge)
    return sorted(boundaries)


def _number_edges(rows: list[list[Word]], min_gap: float) -> list[float]:
    """Left edges of columns of numbers that the row names of some rows reach up to, a space away
    ("WideResNet18 (widen=1.5) + SE 26.07M" over "ResNet18 11.69M"): a line just before numbers
    aligned (left or right) in half the rows or more, that crosses no word of any row, with a gap
    wider than a space before two or more of those numbers, and a name, not part of the number
    ("2.3 · 1019"), a space before the others. A number a space after a name in every row
    ("Layer 1", "Layer 2") has no such gap: it stays part of the name."""
    edges = []
    found = [(i, w) for i, row in enumerate(rows) for w in row if is_number_cell(w.text)]
    for edge in (attrgetter("x0"), attrgetter("x1")):  # numbers set left, numbers set right
        numbers = sorted(found, key=lambda n: edge(n[1]))
        at = [edge(w) for _, w in numbers]
        seen: set[tuple[int, int]] = set()  # groups already weighed
        for x in at:
            span = (bisect.bisect_left(at, x - _ALIGNED), bisect.bisect_right(at, x + _ALIGNED))
            group = numbers[span[0] : span[1]]
            if span in seen or 2 * len({i for i, _ in group}) < len(rows):
                continue
            seen.add(span)
            line = min(w.x0 for _, w in group)
            if any(w.x0 < line < w.x1 for row in rows for w in row):
                continue
            before = [_runs([v for v in rows[i] if v.x1 <= line], min_gap)[-1:] for i, _ in group]
            near = [run[0] + [w] for run, (_, w) in zip(before, group, strict=True) if run and w.x0 - run[0][-1].x1 <= min_gap]
            if len(group) - len(near) >= 2 and not any(is_number_cell(" ".join(v.text for v in cell)) for cell in near):
                edges.append((max((run[0][-1].x1 for run in before if run), default=line) + line) / 2)
    return edges
