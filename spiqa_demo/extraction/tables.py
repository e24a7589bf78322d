"""Text inside a region: plain words for figures, a table's structure (and its Markdown) for tables.

Table cells are rebuilt from the words already read for the page (rows by baseline, columns by
the vertical gaps that run through every row, or through every body row under a header; see
`table_grid`). The header is the rows above the first row of
numbers (a spanning row of datasets above a row of metrics is two header rows); each body row's
first cell is its name (`spiqa_demo.types.TableStructure`). PyMuPDF's `find_tables` and pdfplumber's
`extract_tables` were measured against it on every table of the shared papers
(`benchmarks/table_text.py`): with ruling lines they find almost none of the booktabs tables
papers print; aligned by text, PyMuPDF reorders digits ("0.1952" -> "01952.") and both split
words across cells ("super. IN-1M", superscripts), and each parses the page again. The grid here
matches more hand-checked cells at a small fraction of the cost.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import NamedTuple

from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.types import BBox, TableStructure, round_bbox

# A word is inside a box when its centre is within this many points of it (words on the edge).
_WORD_SLACK = 1
# Words are on one row when their centres are within this share of a word's height of the row's.
_SAME_ROW = 0.45
# Columns are apart where a gap wider than this share of the median word height (wider than a
# space) runs through every row.
_COLUMN_GAP = 0.8
# More rows than this above the first row of numbers are not all headings (a table of text, a
# table whose numbers start late): then only the first row is the header.
_MAX_HEADER_ROWS = 3
_NUMBER = re.compile(r"[-+\u2212]?\d+(?:[.,]\d+)*")
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
    (one made with PyMuPDF's flags for words, which `layout.read_page` has at hand)."""
    return [Word._make(w[:5]) for w in page.get_text("words", textpage=textpage)]


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
    grid = _cells(rows, _column_boundaries(rows))
    header = _header_rows([[" ".join(w.text for w in cell) for cell in row] for row in grid])
    if 0 < header < len(rows):
        grid = _cells(rows, _column_boundaries(rows[header:]))
    return grid


def _cells(rows: list[list[Word]], boundaries: list[float]) -> list[list[list[Word]]]:
    grid = []
    for row in rows:
        cells: list[list[Word]] = [[] for _ in range(len(boundaries) + 1)]
        for w in row:
            cells[sum(1 for b in boundaries if w.cx > b)].append(w)
        grid.append(cells)
    return grid


def is_number_cell(cell: str) -> bool:
    """Whether a cell holds a figure ("0.81", "78.5%", "12.3 ± 0.4", "**91.2**", "1.2M"): numbers,
    with at most one letter (a unit) besides the signs and marks around them."""
    if not _NUMBER.search(cell):
        return False
    rest = _NUMBER_DECOR.sub("", _NUMBER.sub("", cell))
    return len(rest) <= 1


def _is_number_row(row: list[str]) -> bool:
    cells = [c for c in row[1:] if c]
    return bool(cells) and 2 * sum(is_number_cell(c) for c in cells) >= len(cells)


def _header_rows(grid: list[list[str]]) -> int:
    """How many rows of `grid` are headings: those above the first row of numbers (see module docstring)."""
    first_numbers = next((i for i, row in enumerate(grid) if _is_number_row(row)), None)
    if first_numbers is None or first_numbers > _MAX_HEADER_ROWS:
        return min(1, len(grid))
    return first_numbers


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


def _column_boundaries(rows: list[list[Word]]) -> list[float]:
    """x positions of gaps wider than a space that no word of any row crosses."""
    spans = sorted((w.x0, w.x1) for row in rows for w in row)
    if not spans:
        return []
    height = sorted(w.y1 - w.y0 for row in rows for w in row)[len(spans) // 2]
    min_gap = _COLUMN_GAP * height
    boundaries = []
    end = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - end > min_gap:
            boundaries.append((x0 + end) / 2)
        end = max(end, x1)
    return boundaries
