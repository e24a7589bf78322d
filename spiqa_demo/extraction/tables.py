"""Text inside a region: plain words for figures, a Markdown grid for tables.

Table cells are rebuilt from word positions (rows by baseline, columns by the vertical gaps that
run through every row), which keeps numbers such as "0.81" intact where line-based table finders
split them, and costs well under a millisecond per table.
"""

from __future__ import annotations

from spiqa_demo.types import BBox

Word = tuple[float, float, float, float, str]


def words_in(words: list[Word], bbox: BBox) -> list[Word]:
    """Words whose centre lies inside `bbox`."""
    x0, y0, x1, y1 = bbox
    return [w for w in words if x0 - 1 <= (w[0] + w[2]) / 2 <= x1 + 1 and y0 - 1 <= (w[1] + w[3]) / 2 <= y1 + 1]


def _rows(words: list[Word]) -> list[list[Word]]:
    rows: list[list[Word]] = []
    for w in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        yc = (w[1] + w[3]) / 2
        if rows and abs(yc - sum((r[1] + r[3]) / 2 for r in rows[-1]) / len(rows[-1])) < 0.45 * (w[3] - w[1]):
            rows[-1].append(w)
        else:
            rows.append([w])
    return [sorted(r, key=lambda w: w[0]) for r in rows]


def figure_text(words: list[Word]) -> str:
    """Words of a figure (axis labels, legends) in reading order, one line per text row."""
    return "\n".join(" ".join(w[4] for w in row) for row in _rows(words))


def table_markdown(words: list[Word]) -> str:
    """A Markdown table from the words of a table region (first row as the header)."""
    rows = _rows(words)
    if not rows:
        return ""
    boundaries = _column_boundaries(rows)
    grid = []
    for row in rows:
        cells = [""] * (len(boundaries) + 1)
        for w in row:
            col = sum(1 for b in boundaries if (w[0] + w[2]) / 2 > b)
            cells[col] = f"{cells[col]} {w[4]}".strip()
        grid.append([c.replace("|", "\\|") for c in cells])
    width = len(grid[0])
    lines = ["| " + " | ".join(grid[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in grid[1:]]
    return "\n".join(lines)


def _column_boundaries(rows: list[list[Word]]) -> list[float]:
    """x positions of gaps wider than a space that no word crosses in most rows."""
    spans = sorted((w[0], w[2]) for row in rows for w in row)
    if not spans:
        return []
    height = sorted(w[3] - w[1] for row in rows for w in row)[len(spans) // 2]
    min_gap = 0.8 * height
    boundaries = []
    end = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - end > min_gap:
            boundaries.append((x0 + end) / 2)
        end = max(end, x1)
    return boundaries
