"""Synthetic paper PDFs with known ground truth, for the extraction tests and benchmark.

Each builder writes a realistic-looking paper with PyMuPDF and returns a `SyntheticPaper`: the PDF
path plus the items an extractor must find (kind, number, printed label, page, region box, caption
box, caption text) and the running-text citations it must treat as mentions, never as captions.

What the papers contain, on purpose: justified Times body text in one or two columns (words placed
with TJ offsets like pdfTeX output, long words hyphenated at line ends), citations in running text
("Figure 3 shows ...", "as shown in Fig. 2(b)", "Tables 2 and 3", "Table II", some starting a line
exactly where a caption would), vector plots drawn with paths (axes, ticks, tick labels, curves,
legend), bar charts and box-and-arrow diagrams, embedded raster images made with PIL, multi-panel
figures with "(a) ..." sub-captions, figures spanning both columns, figures side by side, booktabs
tables (caption above), caption styles "Figure 1:", "Figure 1.", "Fig. 1.", "FIGURE 1", "Table 2:",
"TABLE II", multi-line captions, appendix figures, an uncaptioned figure, an arXiv margin stamp and
page numbers. Bad inputs too: not a PDF, empty, truncated, encrypted, zero pages, scanned (page
images only), no figures, and a 300-page paper.

Ground-truth boxes are the ink inside the area each element was given (`extraction_gold.ink_bbox`),
the same convention as the pdffigures2 gold set, so they are exact whatever font metrics an extractor uses.
Coordinates: PDF points, origin top-left, `(x0, y0, x1, y1)`. Everything is deterministic per seed.
"""

from __future__ import annotations

import io
import math
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf
from PIL import Image

from evalsuite.extraction_gold import GoldDocument, GoldItem, ink_bbox
from spiqa_demo.paper_text import PART_PREFIX

BBox = tuple[float, float, float, float]
Color = tuple[float, float, float]

LETTER = (612.0, 792.0)
BLACK: Color = (0.0, 0.0, 0.0)
GRAY: Color = (0.5, 0.5, 0.5)
LIGHT: Color = (0.85, 0.85, 0.85)
HIGHLIGHT: Color = (1.0, 0.93, 0.45)
PALETTE: list[Color] = [(0.12, 0.47, 0.71), (0.85, 0.37, 0.0), (0.17, 0.55, 0.17), (0.75, 0.1, 0.12), (0.45, 0.3, 0.6)]

# Resource name -> base-14 font (Times for text, Helvetica inside plots, as most LaTeX papers).
FONTS = {"rm": "tiro", "bf": "tibo", "it": "tiit", "sf": "helv"}
SOFT_HYPHEN = "\u00ad"
# Advance widths (per point of font size) of the characters the papers use: a table lookup instead
# of a font call per character, which matters for the 300-page paper.
_ADVANCE = {
    key: {chr(c): pymupdf.Font(name).glyph_advance(c) for c in [*range(32, 127), 0x2003]} for key, name in FONTS.items()
}


def text_width(text: str, font: str = "rm", size: float = 10.0) -> float:
    advance = _ADVANCE[font]
    return sum(advance[ch] for ch in text) * size


# ---------------------------------------------------------------------------------------------
# Canvas: one page's drawing operators, written as a single content stream (cheap for long papers)
# ---------------------------------------------------------------------------------------------


class Canvas:
    """Draws on one page in top-left coordinates; `flush()` writes the collected operators."""

    def __init__(self, doc: pymupdf.Document, page: pymupdf.Page):
        # Keep numbers, not the Page: PyMuPDF invalidates Page objects when pages are added.
        self.doc, self.pno, self.xref, self.height = doc, page.number, page.xref, page.rect.height
        self.ops: list[str] = []
        for name in FONTS.values():
            page.insert_font(fontname=name)

    def text(
        self,
        x: float,
        baseline: float,
        runs: list[tuple[str, str]],
        size: float,
        *,
        gap: float = 0.0,
        color: Color = BLACK,
        rotate: bool = False,
    ) -> None:
        """Text runs `(text, font)` from (x, baseline); `gap` widens each space (justification)."""
        matrix = f"0 1 -1 0 {x:.2f} {self.height - baseline:.2f}" if rotate else f"1 0 0 1 {x:.2f} {self.height - baseline:.2f}"
        ops = [f"BT {_rgb(color)} rg {matrix} Tm"]
        font, parts = None, []
        for text, run_font in runs:
            if run_font != font:
                if parts:
                    ops.append("[" + " ".join(parts) + "] TJ")
                    parts = []
                ops.append(f"/{FONTS[run_font]} {size:g} Tf")
                font = run_font
            for i, piece in enumerate(text.split(" ")):
                if i:
                    parts.append(f"({_escape(' ')})")
                    if gap:
                        parts.append(f"{-gap * 1000 / size:.1f}")
                if piece:
                    parts.append(f"({_escape(piece)})")
        if parts:
            ops.append("[" + " ".join(parts) + "] TJ")
        ops.append("ET")
        self.ops.append(" ".join(ops))

    def centered(self, cx: float, baseline: float, text: str, size: float, font: str = "sf", color: Color = BLACK) -> None:
        self.text(cx - text_width(text, font, size) / 2, baseline, [(text, font)], size, color=color)

    def polyline(
        self, points: list[tuple[float, float]], *, color: Color = BLACK, width: float = 0.5, dash: str = ""
    ) -> None:
        path = " ".join(
            f"{x:.2f} {self.height - y:.2f} {'m' if i == 0 else 'l'}" for i, (x, y) in enumerate(points)
        )
        self.ops.append(f"q {width:g} w {_rgb(color)} RG [{dash}] 0 d 1 J {path} S Q")

    def line(self, x0: float, y0: float, x1: float, y1: float, **style) -> None:
        self.polyline([(x0, y0), (x1, y1)], **style)

    def rect(self, box: BBox, *, fill: Color | None = None, stroke: Color | None = None, width: float = 0.5) -> None:
        x0, y0, x1, y1 = box
        shape = f"{x0:.2f} {self.height - y1:.2f} {x1 - x0:.2f} {y1 - y0:.2f} re"
        paint = "B" if fill and stroke else ("f" if fill else "S")
        colors = (f"{_rgb(fill)} rg " if fill else "") + (f"{_rgb(stroke)} RG " if stroke else "")
        self.ops.append(f"q {width:g} w {colors}{shape} {paint} Q")

    def polygon(self, points: list[tuple[float, float]], fill: Color) -> None:
        path = " ".join(f"{x:.2f} {self.height - y:.2f} {'m' if i == 0 else 'l'}" for i, (x, y) in enumerate(points))
        self.ops.append(f"q {_rgb(fill)} rg {path} h f Q")

    def image(self, box: BBox, png: bytes) -> None:
        self.doc[self.pno].insert_image(pymupdf.Rect(box), stream=png, keep_proportion=False)

    def flush(self) -> None:
        xref = self.doc.get_new_xref()
        self.doc.update_object(xref, "<<>>")
        self.doc.update_stream(xref, "\n".join(self.ops).encode("latin-1"))
        kind, value = self.doc.xref_get_key(self.xref, "Contents")
        if kind == "xref":
            self.doc.xref_set_key(self.xref, "Contents", f"[{value} {xref} 0 R]")
        elif kind == "array":
            self.doc.xref_set_key(self.xref, "Contents", value[:-1] + f" {xref} 0 R]")
        else:
            self.doc.xref_set_key(self.xref, "Contents", f"{xref} 0 R")
        self.ops = []


def _rgb(c: Color) -> str:
    return f"{c[0]:.3f} {c[1]:.3f} {c[2]:.3f}"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


# ---------------------------------------------------------------------------------------------
# Words and lines: greedy line breaking with TeX-like hyphenation at soft hyphens
# ---------------------------------------------------------------------------------------------


@dataclass
class Token:
    """A word as laid out; `sentence` says which sentence of a paragraph it opens (or -1)."""

    text: str
    font: str = "rm"
    opens_sentence: int = -1


def hyphenate(text: str) -> str:
    """Insert a soft hyphen into each long plain word (between a vowel and a consonant, near its middle)."""

    def one(word: str) -> str:
        if len(word) < 9 or not word.isalpha():
            return word
        mid = len(word) // 2
        for i in sorted(range(3, len(word) - 3), key=lambda i: abs(i - mid)):
            if word[i - 1] in "aeiouy" and word[i] not in "aeiouy":
                return word[:i] + SOFT_HYPHEN + word[i:]
        return word

    return re.sub(r"[A-Za-z]+", lambda m: one(m.group(0)), text)


def tokenize(text: str, font: str = "rm") -> list[Token]:
    return [Token(w, font) for w in hyphenate(text).split()]


def break_lines(tokens: list[Token], width: float, size: float) -> tuple[list[list[Token]], bool]:
    """Greedy lines no wider than `width`; a word that does not fit is split at its soft hyphen
    when its first part (with "-") fits. Returns the lines and whether any word was split."""
    lines: list[list[Token]] = [[]]
    used, hyphenated = 0.0, False
    queue = list(tokens)
    while queue:
        tok = queue.pop(0)
        visible = tok.text.replace(SOFT_HYPHEN, "")
        space = text_width(" ", tok.font, size) if lines[-1] else 0.0
        w = text_width(visible, tok.font, size)
        if used + space + w <= width or not lines[-1]:
            lines[-1].append(Token(visible, tok.font, tok.opens_sentence))
            used += space + w
            continue
        if SOFT_HYPHEN in tok.text:
            head, tail = tok.text.split(SOFT_HYPHEN, 1)
            if used + space + text_width(head + "-", tok.font, size) <= width:
                lines[-1].append(Token(head + "-", tok.font, tok.opens_sentence))
                queue.insert(0, Token(tail, tok.font))
                hyphenated = True
                lines.append([])
                used = 0.0
                continue
        lines.append([])
        used = 0.0
        queue.insert(0, tok)
    return [line for line in lines if line], hyphenated


def natural_width(line: list[Token], size: float) -> float:
    words = sum(text_width(t.text, t.font, size) for t in line)
    return words + sum(text_width(" ", t.font, size) for t in line[1:])


def draw_line(canvas: Canvas, line: list[Token], x: float, baseline: float, width: float, size: float, align: str) -> BBox:
    """Draw one line aligned "justify" / "left" / "center" in [x, x + width]; returns its box."""
    natural = natural_width(line, size)
    gap = 0.0
    if align == "justify" and len(line) > 1:
        gap = (width - natural) / (len(line) - 1)
        natural = width
    elif align == "center":
        x += (width - natural) / 2
    runs: list[tuple[str, str]] = []
    for i, tok in enumerate(line):
        text = (" " if i else "") + tok.text
        if runs and runs[-1][1] == tok.font:
            runs[-1] = (runs[-1][0] + text, tok.font)
        else:
            runs.append((text, tok.font))
    canvas.text(x, baseline, runs, size, gap=gap)
    return (x, baseline - 0.75 * size, x + natural, baseline + 0.25 * size)


def join_line_text(lines: list[list[Token]]) -> str:
    """The text of laid-out lines as a reader would copy it: hyphenated breaks joined back."""
    out = ""
    for line in lines:
        text = " ".join(t.text for t in line)
        if out.endswith("-") and out[-2:-1].isalpha() and not out.endswith("--"):
            out = out[:-1] + text
        else:
            out = (out + " " + text).strip()
    return out


# ---------------------------------------------------------------------------------------------
# Graphics: each has a natural size for a given width and draws inside the box it is given
# ---------------------------------------------------------------------------------------------


class Graphic:
    """Something drawn in a figure or table body; `draw` returns the words it printed."""

    aspect = 0.7

    def size(self, max_width: float) -> tuple[float, float]:
        return max_width, max_width * self.aspect

    def draw(self, canvas: Canvas, box: BBox) -> list[str]:
        raise NotImplementedError


@dataclass
class LinePlot(Graphic):
    """A vector line plot: framed axes, ticks and tick labels, axis labels, curves, legend."""

    seed: int = 0
    series: tuple[str, ...] = ("Baseline", "Ours")
    xlabel: str = "Epochs"
    ylabel: str = "Error"
    aspect: float = 0.72

    def draw(self, canvas: Canvas, box: BBox) -> list[str]:
        rng = random.Random(self.seed)
        x0, y0, x1, y1 = box
        # Inner plot area: room left of it for tick labels and the rotated axis label, below it for
        # tick labels and the axis label, right of it for half the last tick label.
        left, right, top, bottom = x0 + 26, x1 - 8, y0 + 3, y1 - 20
        canvas.rect((left, top, right, bottom), stroke=BLACK, width=0.6)
        x_max = rng.choice([50, 100, 200])
        for i in range(5):
            x = left + i * (right - left) / 4
            canvas.line(x, bottom, x, bottom - 3, width=0.5)
            canvas.line(x, top, x, bottom, color=LIGHT, width=0.3, dash="1 2")
            canvas.centered(x, bottom + 8, str(x_max * i // 4), 6)
            y = bottom - i * (bottom - top) / 4
            canvas.line(left, y, left + 3, y, width=0.5)
            label = f"{i * 0.25:.2f}"
            canvas.text(left - 3 - text_width(label, "sf", 6), y + 2, [(label, "sf")], 6)
        canvas.centered((left + right) / 2, y1 - 2, self.xlabel, 7)
        canvas.text(x0 + 7, (top + bottom) / 2 + text_width(self.ylabel, "sf", 7) / 2, [(self.ylabel, "sf")], 7, rotate=True)
        for k, _name in enumerate(self.series):
            start, rate = rng.uniform(0.7, 0.95), rng.uniform(2.0, 5.0)
            floor = rng.uniform(0.05, 0.3)
            points = []
            for i in range(41):
                t = i / 40
                value = floor + (start - floor) * math.exp(-rate * t) + rng.uniform(-0.015, 0.015)
                points.append((left + t * (right - left), bottom - value * (bottom - top)))
            canvas.polyline(points, color=PALETTE[k % len(PALETTE)], width=1.0, dash="" if k % 2 == 0 else "3 1.5")
        legend_w = max(text_width(s, "sf", 6) for s in self.series) + 22
        lx0, ly0 = right - legend_w - 4, top + 4
        canvas.rect((lx0, ly0, right - 4, ly0 + 4 + 8 * len(self.series)), fill=(1, 1, 1), stroke=BLACK, width=0.4)
        for k, name in enumerate(self.series):
            y = ly0 + 7 + 8 * k
            canvas.line(lx0 + 3, y, lx0 + 15, y, color=PALETTE[k % len(PALETTE)], width=1.0)
            canvas.text(lx0 + 18, y + 2, [(name, "sf")], 6)
        return [*self.series, self.xlabel]


@dataclass
class BarChart(Graphic):
    """A vector bar chart with category labels under the bars."""

    seed: int = 0
    categories: tuple[str, ...] = ("ResNet", "ViT", "MLP", "Ours")
    aspect: float = 0.62

    def draw(self, canvas: Canvas, box: BBox) -> list[str]:
        rng = random.Random(self.seed)
        x0, y0, x1, y1 = box
        left, right, top, bottom = x0 + 22, x1 - 2, y0 + 3, y1 - 12
        canvas.line(left, top, left, bottom, width=0.6)
        canvas.line(left, bottom, right, bottom, width=0.6)
        for i in range(5):
            y = bottom - i * (bottom - top) / 4
            canvas.line(left - 2, y, left, y, width=0.5)
            canvas.text(left - 4 - text_width(str(20 * i), "sf", 6), y + 2, [(str(20 * i), "sf")], 6)
        slot = (right - left) / len(self.categories)
        for k, name in enumerate(self.categories):
            height = rng.uniform(0.35, 0.95) * (bottom - top)
            bx = left + k * slot + slot * 0.2
            canvas.rect((bx, bottom - height, bx + slot * 0.6, bottom), fill=PALETTE[k % len(PALETTE)])
            canvas.centered(left + (k + 0.5) * slot, y1 - 2, name, 6)
        return list(self.categories)


@dataclass
class Diagram(Graphic):
    """A box-and-arrow architecture sketch (vector paths with text inside the boxes)."""

    stages: tuple[str, ...] = ("Input", "Encoder", "Attention", "Decoder", "Output")
    aspect: float = 0.12

    def draw(self, canvas: Canvas, box: BBox) -> list[str]:
        x0, y0, x1, y1 = box
        n = len(self.stages)
        slot = (x1 - x0) / n
        cy = (y0 + y1) / 2
        bh = y1 - y0 - 1
        for k, name in enumerate(self.stages):
            bx0, bx1 = x0 + k * slot + (0 if k == 0 else slot * 0.12), x0 + (k + 1) * slot - (0 if k == n - 1 else slot * 0.12)
            canvas.rect((bx0, cy - bh / 2, bx1, cy + bh / 2), fill=(0.85, 0.9, 0.97), stroke=BLACK, width=0.7)
            canvas.centered((bx0 + bx1) / 2, cy + 2.5, name, 7)
            if k < n - 1:
                ax0, ax1 = bx1, x0 + (k + 1) * slot + slot * 0.12
                canvas.line(ax0, cy, ax1 - 3, cy, width=0.8)
                canvas.polygon([(ax1, cy), (ax1 - 4, cy - 2), (ax1 - 4, cy + 2)], fill=BLACK)
        return list(self.stages)


@dataclass
class RasterImage(Graphic):
    """An embedded PNG (PIL-made, photo-like: smooth colour fields with blobs, no white margin)."""

    seed: int = 0
    pixels: tuple[int, int] = (240, 180)

    @property
    def aspect(self) -> float:
        return self.pixels[1] / self.pixels[0]

    def png(self) -> bytes:
        rng = random.Random(self.seed)
        w, h = self.pixels
        fx, fy, phase = rng.uniform(2, 6), rng.uniform(2, 6), rng.uniform(0, 6)
        img = Image.new("RGB", (w, h))
        px = img.load()
        for y in range(h):
            for x in range(w):
                v = 0.5 + 0.25 * math.sin(fx * x / w * 6.28 + phase) + 0.25 * math.cos(fy * y / h * 6.28)
                px[x, y] = (int(30 + 140 * v), int(20 + 90 * (1 - v)), int(60 + 110 * v * (1 - v) * 4))
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        return buf.getvalue()

    def draw(self, canvas: Canvas, box: BBox) -> list[str]:
        canvas.image(box, self.png())
        return []


@dataclass
class Panels(Graphic):
    """Several graphics in a grid, each with a "(a) ..." sub-caption under it: ONE figure."""

    panels: list[tuple[Graphic, str]]
    columns: int = 0
    gap: float = 10.0
    sub_size: float = 8.0

    def _grid(self, max_width: float) -> tuple[int, float, list[float]]:
        cols = self.columns or len(self.panels)
        cell_w = (max_width - self.gap * (cols - 1)) / cols
        rows = [self.panels[i : i + cols] for i in range(0, len(self.panels), cols)]
        heights = [max(g.size(cell_w)[1] + 4 + 10 for g, _ in row) for row in rows]
        return cols, cell_w, heights

    def size(self, max_width: float) -> tuple[float, float]:
        _, _, heights = self._grid(max_width)
        return max_width, sum(heights) + self.gap * (len(heights) - 1)

    def draw(self, canvas: Canvas, box: BBox) -> list[str]:
        cols, cell_w, heights = self._grid(box[2] - box[0])
        words: list[str] = []
        y = box[1]
        for r, row_h in enumerate(heights):
            for c, (graphic, sub) in enumerate(self.panels[r * cols : (r + 1) * cols]):
                x = box[0] + c * (cell_w + self.gap)
                _, gh = graphic.size(cell_w)
                words += graphic.draw(canvas, (x, y, x + cell_w, y + gh))
                label = f"({chr(ord('a') + r * cols + c)}) {sub}"
                canvas.centered(x + cell_w / 2, y + gh + 4 + self.sub_size * 0.8, label, self.sub_size, font="rm")
                words.append(label)
            y += row_h + self.gap
        return words


@dataclass
class Table(Graphic):
    """A booktabs table: text cells between a top rule, a rule under the header and a bottom rule."""

    rows: list[list[str]]
    size_pt: float = 9.0
    row_h: float = 11.0

    def _widths(self) -> list[float]:
        return [max(text_width(row[c], "rm", self.size_pt) for row in self.rows) + 12 for c in range(len(self.rows[0]))]

    def size(self, max_width: float) -> tuple[float, float]:
        width = sum(self._widths())
        if width > max_width:
            raise ValueError(f"table is {width:.0f} pt wide, more than the {max_width:.0f} pt available")
        return width, len(self.rows) * self.row_h + 8

    def draw(self, canvas: Canvas, box: BBox) -> list[str]:
        x0, y0, x1, y1 = box
        canvas.line(x0, y0 + 0.4, x1, y0 + 0.4, width=0.8)
        y = y0 + 3
        for r, row in enumerate(self.rows):
            x = x0
            for c, (cell, w) in enumerate(zip(row, self._widths())):
                cw = text_width(cell, "rm", self.size_pt)
                cx = x + 6 if c == 0 else x + (w - cw) / 2
                canvas.text(cx, y + 8, [(cell, "rm")], self.size_pt)
                x += w
            y += self.row_h
            if r == 0:
                canvas.line(x0, y + 1, x1, y + 1, width=0.5)
                y += 2
        canvas.line(x0, y1 - 0.4, x1, y1 - 0.4, width=0.8)
        return [cell for row in self.rows for cell in row]


# ---------------------------------------------------------------------------------------------
# Captions
# ---------------------------------------------------------------------------------------------

ROMAN = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"]


@dataclass
class Caption:
    """A caption as printed: `style` formats the label ({n} number, {R} roman), e.g. "Fig. {n}."."""

    kind: str
    number: str
    text: str
    style: str = "Figure {n}:"
    bold_label: bool = False
    label_line: bool = False  # IEEE tables: "TABLE II" centred on its own line, text below

    @property
    def printed_label(self) -> str:
        roman = ROMAN[int(self.number)] if self.number.isdigit() and int(self.number) < len(ROMAN) else self.number
        return self.style.format(n=self.number, R=roman)

    @property
    def label(self) -> str:
        """The label without its punctuation, as `Figure.label` keeps it: "Fig. 3", "TABLE II"."""
        return self.printed_label.rstrip(":.")

    @property
    def full_text(self) -> str:
        return f"{self.printed_label} {self.text}"

    def layout(self, width: float, size: float) -> tuple[list[tuple[list[Token], str]], bool]:
        """Lines with their alignment, and whether a word was hyphenated across lines."""
        label = [Token(w, "bf" if self.bold_label else "rm") for w in self.printed_label.split()]
        body = tokenize(self.text)
        if self.label_line:
            lines, hyph = break_lines(body, width, size)
            return [(label, "center")] + [(line, "center") for line in lines], hyph
        lines, hyph = break_lines(label + body, width, size)
        if len(lines) == 1:
            return [(lines[0], "center")], hyph
        return [(line, "justify") for line in lines[:-1]] + [(lines[-1], "left")], hyph


# ---------------------------------------------------------------------------------------------
# The ground truth a builder returns
# ---------------------------------------------------------------------------------------------


@dataclass
class ExpectedItem:
    """A figure/table the extractor must return (`number == ""`: an uncaptioned figure)."""

    kind: str
    number: str
    label: str
    page: int
    bbox: BBox
    caption_bbox: BBox | None
    caption: str
    case: str
    words: list[str] = field(default_factory=list)
    cells: list[list[str]] = field(default_factory=list)
    hyphenated: bool = False

    @property
    def key(self) -> tuple[str, str]:
        return self.kind, self.number

    def as_gold(self) -> GoldItem:
        return GoldItem(self.kind, self.number, self.page, self.bbox, self.caption_bbox, self.caption, self.label)


@dataclass
class Reference:
    """A citation in running text ("Tables 2 and 3"): a mention of each cited item, never a caption.

    `line_bbox` is set when the citation opens a printed line, where a caption label would be.
    """

    kind: str
    numbers: list[str]
    printed: str
    sentence: str
    page: int
    line_bbox: BBox | None = None


@dataclass
class SyntheticPaper:
    path: Path
    items: list[ExpectedItem]
    references: list[Reference]
    page_count: int
    title: str = ""
    arxiv_id: str | None = None

    def item(self, kind: str, number: str) -> ExpectedItem:
        return next(i for i in self.items if i.key == (kind, number))

    def gold(self) -> GoldDocument:
        return GoldDocument(self.path.stem, self.path, [i.as_gold() for i in self.items if i.number])


class Cite(str):
    """A sentence of body text that cites items: `Cite("Tables 2 and 3 list ...", "table", "2", "3")`."""

    kind: str
    numbers: list[str]
    printed: str

    def __new__(cls, sentence: str, kind: str, *numbers: str, printed: str = "") -> Cite:
        self = super().__new__(cls, sentence)
        self.kind, self.numbers = kind, list(numbers)
        self.printed = printed or _guess_printed(sentence)
        return self


def _guess_printed(sentence: str) -> str:
    m = re.search(r"(Figures?|Figs?\.|Tables?|TABLE)\s+[0-9A-Z]+(\([a-z]\))?(\s+and\s+[0-9A-Z]+)?", sentence)
    if not m:
        raise ValueError(f"no citation in {sentence!r}")
    return m.group(0)


# ---------------------------------------------------------------------------------------------
# The writer: a tiny LaTeX-like page builder (columns, floats, captions, flowing paragraphs)
# ---------------------------------------------------------------------------------------------


@dataclass
class _Pending:
    item: ExpectedItem
    region: BBox
    caption_area: BBox | None


class PaperWriter:
    """Lays out a paper page by page. Floats go "here" in the current column (moving on when they do
    not fit), or span the text width at the top of a page (`span=True`, like LaTeX's figure*)."""

    def __init__(
        self,
        *,
        columns: int = 2,
        page_size: tuple[float, float] = LETTER,
        side_margin: float = 54.0,
        top_margin: float = 72.0,
        gutter: float = 18.0,
        font_size: float = 10.0,
        leading: float = 12.0,
        caption_size: float = 9.0,
    ):
        self.doc = pymupdf.open()
        self.columns, self.page_size = columns, page_size
        self.side, self.top, self.gutter = side_margin, top_margin, gutter
        self.bottom = page_size[1] - top_margin
        self.size, self.leading, self.caption_size = font_size, leading, caption_size
        self.canvases: list[Canvas] = []
        self.pending: list[_Pending] = []
        self.references: list[Reference] = []
        self.title_text, self.arxiv_id = "", None
        self.indent_next = False
        self.part = ""  # set by `start_part`: a part numbering its figures and tables from 1 again
        self.new_page()

    # -- geometry -----------------------------------------------------------------------------
    @property
    def text_width(self) -> float:
        return self.page_size[0] - 2 * self.side

    @property
    def column_width(self) -> float:
        return (self.text_width - self.gutter * (self.columns - 1)) / self.columns

    def column_x(self, col: int) -> tuple[float, float]:
        x0 = self.side + col * (self.column_width + self.gutter)
        return x0, x0 + self.column_width

    @property
    def canvas(self) -> Canvas:
        return self.canvases[-1]

    @property
    def page_number(self) -> int:
        return len(self.canvases)

    # -- pages and columns --------------------------------------------------------------------
    def new_page(self) -> None:
        page = self.doc.new_page(width=self.page_size[0], height=self.page_size[1])
        self.canvases.append(Canvas(self.doc, page))
        number = str(len(self.canvases))
        self.canvas.centered(self.page_size[0] / 2, self.page_size[1] - 40, number, self.size, font="rm")
        self.col, self.col_top = 0, self.top
        self.y = self.top
        self.page_has_text = False

    def next_column(self) -> None:
        if self.col + 1 < self.columns:
            self.col += 1
            self.y = self.col_top
        else:
            self.new_page()

    def _make_room(self, height: float) -> None:
        if self.y + height > self.bottom and self.y > self.col_top:
            self.next_column()

    # -- text ---------------------------------------------------------------------------------
    def title(self, title: str, authors: str, arxiv_id: str | None = None, affiliations: tuple[str, ...] = ()) -> None:
        """A centred title block spanning the text width (page 1), and an arXiv margin stamp."""
        self.title_text, self.arxiv_id = title, arxiv_id
        y = self.top + 8
        for line in break_lines(tokenize(title, "bf"), self.text_width * 0.8, 14)[0]:
            draw_line(self.canvas, line, self.side, y + 11, self.text_width, 14, "center")
            y += 17
        for line in break_lines(tokenize(authors), self.text_width, 11)[0]:
            draw_line(self.canvas, line, self.side, y + 12, self.text_width, 11, "center")
        for affiliation in affiliations:
            y += 12
            draw_line(self.canvas, [Token(w) for w in affiliation.split()], self.side, y + 12, self.text_width, 10, "center")
        self.col_top = self.y = y + 30
        if arxiv_id:
            stamp = f"arXiv:{arxiv_id}  [cs.CV]  4 Jan 2021"
            self.canvas.text(32, 560, [(stamp, "rm")], 20, color=GRAY, rotate=True)

    def heading(self, text: str) -> None:
        self._make_room(self.leading * 3)
        if self.y > self.col_top:
            self.y += 6
        x0, x1 = self.column_x(self.col)
        line = [Token(word, "bf") for word in text.split()]
        draw_line(self.canvas, line, x0, self.y + 0.8 * self.size, x1 - x0, self.size, "left")
        self.y += self.leading + 3
        self.indent_next = False

    def equation(self, fractions: list[tuple[str, str]], number: int) -> None:
        """A displayed equation of fractions joined by "=": italic numerators over denominators with
        fraction bars drawn as rules (as TeX does), its number at the right margin."""
        size = self.size
        self._make_room(size * 3 + 12)
        x0, x1 = self.column_x(self.col)
        widths = [max(text_width(n, "it", size), text_width(d, "it", size)) + 2 for n, d in fractions]
        eq = text_width(" = ", "rm", size)
        x = x0 + (x1 - x0 - sum(widths) - eq * (len(fractions) - 1)) / 2
        bar = self.y + 6 + size * 1.1
        for k, ((num, den), w) in enumerate(zip(fractions, widths)):
            if k:
                self.canvas.text(x, bar + 3, [(" = ", "rm")], size)
                x += eq
            self.canvas.text(x + (w - text_width(num, "it", size)) / 2, bar - 2.5, [(num, "it")], size)
            self.canvas.line(x, bar, x + w, bar, width=0.4)
            self.canvas.text(x + (w - text_width(den, "it", size)) / 2, bar + 2 + 0.75 * size, [(den, "it")], size)
            x += w
        label = f"({number})"
        self.canvas.text(x1 - text_width(label, "rm", size), bar + 3, [(label, "rm")], size)
        self.y = bar + size * 1.3 + 10
        self.indent_next = False

    def paragraph(self, sentences: list[str] | str, *, highlight: bool = False) -> None:
        """Flow justified lines through columns and pages; records the citations in `sentences`.

        `highlight` paints a reader's yellow marker under every line (baked into the page, as in
        PDFs saved from annotating viewers)."""
        sentences = [sentences] if isinstance(sentences, str) else sentences
        tokens: list[Token] = []
        for s, sentence in enumerate(sentences):
            words = tokenize(sentence)
            words[0].opens_sentence = s
            tokens += words
        indent = 10.0 if self.indent_next else 0.0
        lines, _ = break_lines([Token("\u2003", "rm")] + tokens if indent else tokens, self.column_width, self.size)
        if indent:  # the em space only reserved the indent; draw the line without it
            lines[0] = lines[0][1:]
        placed: list[tuple[int, BBox, list[Token]]] = []
        for i, line in enumerate(lines):
            self._make_room(self.leading)
            x0, x1 = self.column_x(self.col)
            shift = indent if i == 0 else 0.0
            align = "left" if i == len(lines) - 1 else "justify"
            baseline = self.y + 0.8 * self.size
            box = draw_line(self.canvas, line, x0 + shift, baseline, x1 - x0 - shift, self.size, align)
            if highlight:  # the marker goes under the text: insert it before the line's operators
                text_op = self.canvas.ops.pop()
                self.canvas.rect((box[0], box[1] - 1.5, box[2], box[3] + 1), fill=HIGHLIGHT)
                self.canvas.ops.append(text_op)
            placed.append((self.page_number, box, line))
            self.y += self.leading
            self.page_has_text = True
        self.indent_next = True
        self._record_citations(sentences, placed)

    def _record_citations(self, sentences: list[str], placed: list[tuple[int, BBox, list[Token]]]) -> None:
        for s, sentence in enumerate(sentences):
            if not isinstance(sentence, Cite):
                continue
            for page, box, line in placed:
                hit = next((k for k, t in enumerate(line) if t.opens_sentence == s), None)
                if hit is not None:
                    opens_line = hit == 0 and sentence.startswith(sentence.printed)
                    # Inside a part numbering from 1 again, "Table 1" cites the part's Table 1.
                    numbers = [PART_PREFIX + n if self.part and n.isdigit() else n for n in sentence.numbers]
                    self.references.append(
                        Reference(sentence.kind, numbers, sentence.printed, str(sentence), page, box if opens_line else None)
                    )
                    break

    # -- floats -------------------------------------------------------------------------------
    def _float_area(self, height: float, span: bool) -> tuple[float, float, float]:
        """Reserve `height` points for a float; returns (x0, x1, y0) of its area."""
        if span and self.columns > 1:
            if self.page_has_text or self.y > self.col_top:
                self.new_page()
            y0 = self.col_top
            self.col_top = self.y = y0 + height + 14
            return self.side, self.side + self.text_width, y0
        if self.y + height > self.bottom:
            self.next_column()
        x0, x1 = self.column_x(self.col) if self.columns > 1 else (self.side, self.side + self.text_width)
        y0 = self.y + (4 if self.y > self.col_top else 0)
        self.y = y0 + height + 14
        return x0, x1, y0

    def _caption_block(self, caption: Caption, x0: float, width: float, y: float) -> tuple[BBox, bool]:
        lines, hyph = caption.layout(width, self.caption_size)
        line_h = self.caption_size + 2
        top = y
        for line, align in lines:
            draw_line(self.canvas, line, x0, y + 0.8 * self.caption_size, width, self.caption_size, align)
            y += line_h
        return (x0, top, x0 + width, y), hyph

    def _caption_height(self, caption: Caption | None, width: float) -> float:
        if caption is None:
            return 0.0
        return len(caption.layout(width, self.caption_size)[0]) * (self.caption_size + 2)

    def figure(
        self,
        graphic: Graphic,
        caption: Caption | None,
        *,
        case: str,
        span: bool = False,
        scale: float = 0.92,
        caption_gap: float = 8.0,
    ) -> None:
        """A figure: graphic centred, caption `caption_gap` pt below it (column or page width)."""
        width = self.text_width if span or self.columns == 1 else self.column_width
        gw, gh = graphic.size(width * scale)
        cap_h = self._caption_height(caption, width)
        x0, x1, y0 = self._float_area(gh + (caption_gap + cap_h if caption else 0), span)
        gx = x0 + (x1 - x0 - gw) / 2
        region = (gx, y0, gx + gw, y0 + gh)
        words = graphic.draw(self.canvas, region)
        cap_area, hyph = self._caption_block(caption, x0, x1 - x0, y0 + gh + caption_gap) if caption else (None, False)
        self._expect(caption, "figure", region, cap_area, case, words, hyph)

    def table(
        self, table: Table, caption: Caption, *, case: str, span: bool = False, caption_below: bool = False, caption_gap: float = 6.0
    ) -> None:
        """A table: caption above (most styles) or below (ACL, ICML), body centred, `caption_gap` pt apart."""
        width = self.text_width if span or self.columns == 1 else self.column_width
        tw, th = table.size(width)
        cap_h = self._caption_height(caption, width)
        x0, x1, y0 = self._float_area(cap_h + caption_gap + th, span)
        tx = x0 + (x1 - x0 - tw) / 2
        if caption_below:
            region = (tx, y0, tx + tw, y0 + th)
            cap_area, hyph = self._caption_block(caption, x0, x1 - x0, y0 + th + caption_gap)
        else:
            cap_area, hyph = self._caption_block(caption, x0, x1 - x0, y0)
            region = (tx, y0 + cap_h + caption_gap, tx + tw, y0 + cap_h + caption_gap + th)
        words = table.draw(self.canvas, region)
        self._expect(caption, "table", region, cap_area, case, words, hyph, cells=table.rows)

    def side_by_side(self, figures: list[tuple[Graphic, Caption]], *, case: str, span: bool = True) -> None:
        """Figures next to each other (LaTeX minipages), each with its own caption under it."""
        width = self.text_width if span or self.columns == 1 else self.column_width
        gap = 16.0
        cell = (width - gap * (len(figures) - 1)) / len(figures)
        sizes = [g.size(cell * 0.95) for g, _ in figures]
        gh = max(h for _, h in sizes)
        cap_h = max(self._caption_height(c, cell) for _, c in figures)
        x0, _, y0 = self._float_area(gh + 8 + cap_h, span)
        for k, ((graphic, caption), (w, h)) in enumerate(zip(figures, sizes)):
            cx = x0 + k * (cell + gap)
            gx, gy = cx + (cell - w) / 2, y0 + (gh - h)
            region = (gx, gy, gx + w, gy + h)
            words = graphic.draw(self.canvas, region)
            cap_area, hyph = self._caption_block(caption, cx, cell, y0 + gh + 8)
            self._expect(caption, "figure", region, cap_area, case, words, hyph)

    def tables_side_by_side(self, tables: list[tuple[Table, Caption]], *, case: str, span: bool = True) -> None:
        """Tables next to each other (minipages, vertically centred on each other as LaTeX does),
        each with its own caption above it."""
        width = self.text_width if span or self.columns == 1 else self.column_width
        gap = 16.0
        cell = (width - gap * (len(tables) - 1)) / len(tables)
        blocks = [(t.size(cell), self._caption_height(c, cell)) for t, c in tables]
        row_h = max(cap_h + 6 + h for (_, h), cap_h in blocks)
        x0, _, y0 = self._float_area(row_h, span)
        for k, ((table, caption), ((w, h), cap_h)) in enumerate(zip(tables, blocks)):
            cx, top = x0 + k * (cell + gap), y0 + (row_h - cap_h - 6 - h) / 2
            cap_area, hyph = self._caption_block(caption, cx, cell, top)
            region = (cx + (cell - w) / 2, top + cap_h + 6, cx + (cell + w) / 2, top + cap_h + 6 + h)
            words = table.draw(self.canvas, region)
            self._expect(caption, "table", region, cap_area, case, words, hyph, cells=table.rows)

    def start_part(self, heading: str, part: str) -> None:
        """A new page opening a part (a supplement) that numbers its figures and tables from 1 again:
        its items are expected as the extractor names them (`Figure.part`, "S1", "Fig. 1 (supplement)")."""
        self.new_page()
        self.heading(heading)
        self.part = part

    def wrapped_figure(
        self, graphic: Graphic, caption: Caption, sentences: list[str], *, case: str, share: float = 0.45, side: str = "right"
    ) -> None:
        """A figure at the `side` of a one-column page, its caption under it, and a paragraph wrapped
        beside it (LaTeX's wrapfigure) that runs full width once past the figure."""
        x0, x1 = self.column_x(self.col)
        fw = (x1 - x0) * share
        gw, gh = graphic.size(fw)
        height = gh + 8 + self._caption_height(caption, fw)
        self._make_room(height + 4)
        y0, fx0 = self.y + 4, (x1 - fw if side == "right" else x0)
        self.y = y0
        region = (fx0 + (fw - gw) / 2, y0, fx0 + (fw + gw) / 2, y0 + gh)
        words = graphic.draw(self.canvas, region)
        cap_area, hyph = self._caption_block(caption, fx0, fw, y0 + gh + 8)
        self._expect(caption, "figure", region, cap_area, case, words, hyph)
        tokens = [t for sentence in sentences for t in tokenize(sentence)]
        narrow_width = x1 - x0 - fw - 12
        text_x = x0 if side == "right" else x0 + fw + 12
        narrow_lines = int(height // self.leading) + 1
        narrow = break_lines(tokens, narrow_width, self.size)[0][:narrow_lines]
        rest = tokens[sum(len(line) for line in narrow) :]
        lines = [(line, text_x, narrow_width) for line in narrow] + [(line, x0, x1 - x0) for line in break_lines(rest, x1 - x0, self.size)[0]]
        for i, (line, x, width) in enumerate(lines):
            align = "left" if i == len(lines) - 1 else "justify"
            draw_line(self.canvas, line, x, self.y + 0.8 * self.size, width, self.size, align)
            self.y += self.leading
        self.y = max(self.y, y0 + height + 14)
        self.page_has_text = True

    def side_captioned(self, content: Graphic, caption: Caption, *, case: str, caption_side: str = "left") -> None:
        """A figure or table with its caption set beside it, top-aligned (LNCS's sidecaption)."""
        x0, x1 = self.column_x(self.col)
        cw, gap = (x1 - x0) * 0.32, 12.0
        room = x1 - x0 - cw - gap
        gw, gh = content.size(room)
        height = max(gh, self._caption_height(caption, cw))
        _, _, y0 = self._float_area(height, span=False)
        if caption_side == "left":
            cx, gx = x0, x0 + cw + gap
        else:
            gx, cx = x0, x0 + room + gap
        kind = "table" if isinstance(content, Table) else "figure"
        region = (gx, y0, gx + gw, y0 + gh)
        words = content.draw(self.canvas, region)
        cap_area, hyph = self._caption_block(caption, cx, cw, y0)
        self._expect(caption, kind, region, cap_area, case, words, hyph, cells=content.rows if isinstance(content, Table) else None)

    def _expect(
        self,
        caption: Caption | None,
        kind: str,
        region: BBox,
        cap_area: BBox | None,
        case: str,
        words: list[str],
        hyphenated: bool,
        cells: list[list[str]] | None = None,
    ) -> None:
        part = f" ({self.part})" if self.part and caption else ""
        item = ExpectedItem(
            kind=kind,
            number=(PART_PREFIX if part else "") + caption.number if caption else "",
            label=caption.label + part if caption else "",
            page=self.page_number,
            bbox=region,
            caption_bbox=cap_area,
            caption=caption.full_text.replace(SOFT_HYPHEN, "") if caption else "",
            case=case,
            words=words,
            cells=cells or [],
            hyphenated=hyphenated,
        )
        self.pending.append(_Pending(item, region, cap_area))

    # -- output -------------------------------------------------------------------------------
    def save(self, path: Path) -> SyntheticPaper:
        """Write the PDF; ground-truth boxes become the ink inside each element's area."""
        for canvas in self.canvases:
            canvas.flush()
        self.doc.set_metadata({"title": self.title_text, "producer": "pdf_factory"})
        path.parent.mkdir(parents=True, exist_ok=True)
        self.doc.save(path, garbage=3, deflate=True)
        page_count = self.doc.page_count
        self.doc.close()
        items = []
        with pymupdf.open(path) as doc:
            for p in self.pending:
                page = doc[p.item.page - 1]
                p.item.bbox = _rounded(ink_bbox(page, p.region) or p.region)
                if p.caption_area is not None:
                    p.item.caption_bbox = _rounded(ink_bbox(page, p.caption_area) or p.caption_area)
                items.append(p.item)
        return SyntheticPaper(path, items, self.references, page_count, self.title_text, self.arxiv_id)


def _rounded(box: BBox) -> BBox:
    return tuple(round(v, 2) for v in box)


# ---------------------------------------------------------------------------------------------
# Body text
# ---------------------------------------------------------------------------------------------

_TEMPLATES = [
    "We train all models for {n} epochs with a batch size of {b} and a cosine learning-rate schedule.",
    "The encoder maps an input sequence of symbol representations to a sequence of continuous representations.",
    "Our method improves over the strongest baseline by {p} points while using {k}x fewer parameters.",
    "Unlike previous approaches, we do not rely on handcrafted features or on external supervision.",
    "We report the mean and standard deviation over {k} independent runs with different random seeds.",
    "The attention weights are normalized with a softmax over all positions inside the local window.",
    "This reduces the memory footprint from quadratic to linear in the sequence length.",
    "All experiments were conducted on a single machine with {k} accelerators and {b} GB of memory.",
    "We observe that deeper networks converge considerably faster when residual connections are used.",
    "The remaining hyper-parameters follow the settings of the original implementation.",
    "Data augmentation consists of random resized crops, horizontal flips and color jittering.",
    "A linear classifier trained on frozen features reaches {p} percent top-1 accuracy.",
    "The learning rate is warmed up linearly during the first {n} iterations and decayed afterwards.",
    "These results suggest that the representation generalizes beyond the pretraining distribution.",
    "We further ablate the contribution of each component of the architecture in isolation.",
    "Statistical significance is assessed with a paired bootstrap test over the evaluation examples.",
    "In contrast, convolutional architectures aggregate information only within a fixed receptive field.",
    "Regularization with dropout and label smoothing turned out to be essential for the smaller datasets.",
    "The computational overhead of the proposed module is negligible compared to the backbone network.",
    "Throughout the paper, bold numbers denote the best result in each column.",
]


class Prose:
    """Plausible machine-learning paper sentences, deterministic per seed."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def sentence(self) -> str:
        template = self.rng.choice(_TEMPLATES)
        return template.format(
            n=self.rng.choice([10, 30, 90, 300]),
            b=self.rng.choice([16, 32, 64, 256]),
            p=f"{self.rng.uniform(0.4, 4.8):.1f}",
            k=self.rng.choice([2, 3, 4, 5, 8]),
        )

    def sentences(self, n: int) -> list[str]:
        return [self.sentence() for _ in range(n)]


# ---------------------------------------------------------------------------------------------
# The papers
# ---------------------------------------------------------------------------------------------

_TABLE_RESULTS = [
    ["Method", "Params", "Top-1", "Top-5"],
    ["ResNet-50", "25.6M", "76.1", "92.9"],
    ["ResNet-101", "44.5M", "77.4", "93.5"],
    ["ViT-B/16", "86.6M", "77.9", "93.8"],
    ["Ours", "24.9M", "79.3", "94.6"],
]
_TABLE_ABLATION = [
    ["Variant", "mAP", "AP50"],
    ["w/o attention", "38.2", "58.1"],
    ["w/o residual", "39.0", "59.4"],
    ["full model", "41.7", "62.3"],
]
_TABLE_HPARAMS = [
    ["Setting", "Value"],
    ["optimizer", "AdamW"],
    ["learning rate", "0.001"],
    ["weight decay", "0.05"],
    ["warmup steps", "10000"],
]
_TABLE_WIDE = [
    ["Model", "BLEU", "METEOR", "ROUGE-L", "CIDEr", "Latency (ms)"],
    ["Transformer", "27.3", "29.1", "55.2", "112.4", "41"],
    ["LSTM + attention", "24.9", "27.8", "53.0", "101.7", "63"],
    ["Ours (small)", "28.1", "29.9", "56.0", "116.2", "25"],
    ["Ours (large)", "29.4", "30.6", "57.1", "120.8", "48"],
]


def two_column_paper(path: Path) -> SyntheticPaper:
    """CVPR-like: two columns, "Figure 1." / "Table 1.", a spanning figure, a 2-panel figure, figures
    side by side across the columns, citations opening lines, an appendix figure, an uncaptioned one."""
    w, prose = PaperWriter(columns=2), Prose(1)
    w.title("Residual Attention Networks for Efficient Visual Recognition", "Anonymous Authors", arxiv_id="2101.00001v1")
    w.heading("Abstract")
    w.paragraph(prose.sentences(6))
    w.heading("1. Introduction")
    w.paragraph(prose.sentences(4) + [Cite("Figure 1 illustrates the error of our model during training.", "figure", "1")] + prose.sentences(3))
    w.figure(
        LinePlot(seed=1, series=("ResNet-34", "Ours-34")),
        Caption("figure", "1", "Training error on ImageNet. Thin curves denote training error and bold curves denote validation error of the center crops.", "Figure {n}."),
        case="vector plot in a column, caption below",
    )
    w.paragraph(prose.sentences(7))
    w.table(
        Table(_TABLE_HPARAMS),
        Caption("table", "1", "Hyper-parameters used for all experiments.", "Table {n}."),
        case="booktabs table in a column, caption above",
    )
    w.paragraph(prose.sentences(12))
    w.paragraph(prose.sentences(10))
    w.figure(
        Diagram(),
        Caption("figure", "2", "Overview of the architecture. Every stage refines the representation produced by the previous stage with a residual attention block.", "Figure {n}."),
        case="diagram spanning both columns",
        span=True,
        scale=0.8,
    )
    w.paragraph(prose.sentences(5) + [Cite("As shown in Fig. 2, the decoder attends to every encoder stage.", "figure", "2")] + prose.sentences(4))
    w.heading("3.1. Analysis")
    w.paragraph([Cite("Figure 3 shows the validation accuracy as a function of network depth.", "figure", "3")] + prose.sentences(5))
    w.figure(
        Panels([(RasterImage(seed=3), "input image"), (LinePlot(seed=4, series=("depth 18", "depth 34"), aspect=0.8), "accuracy")]),
        Caption("figure", "3", "Qualitative and quantitative analysis. (a) An input image from the validation set. (b) Accuracy for two network depths.", "Figure {n}."),
        case="two-panel figure (raster + vector) with sub-captions",
    )
    w.paragraph(
        prose.sentences(3)
        + [Cite("The gap between the two depths in Figure 3(b) widens during training.", "figure", "3")]
        + prose.sentences(2)
        + [Cite("Fig. 3 also shows that the attention maps focus on the object.", "figure", "3")]
        + prose.sentences(6)
    )
    w.table(
        Table(_TABLE_RESULTS),
        Caption("table", "2", "Comparison with state-of-the-art methods on the validation set of ImageNet.", "Table {n}."),
        case="booktabs table, second column",
    )
    w.paragraph([Cite("Tables 2 and 3 report the results on the two benchmarks.", "table", "2", "3")] + prose.sentences(8))
    w.new_page()
    w.figure(
        LinePlot(seed=5, series=("SGD", "Adam", "Ours")),
        Caption("figure", "4", "Loss curves of three optimizers.", "Figure {n}."),
        case="figure at the top of the left column, caption tight under the axis label (as in ResNet)",
        caption_gap=0.0,
    )
    w.paragraph(prose.sentences(14))
    w.next_column()
    w.figure(RasterImage(seed=6, pixels=(300, 200)), Caption("figure", "5", "Example detections on the test set.", "Figure {n}."), case="raster figure at the top of the right column (side by side with Figure 4)")
    w.paragraph(prose.sentences(4))
    w.table(
        Table(_TABLE_ABLATION),
        Caption("table", "3", "Ablation study of the components of our model. Each row removes one component from the full model and reports detection accuracy.", "Table {n}."),
        case="multi-line table caption",
    )
    w.paragraph(prose.sentences(6))
    w.new_page()
    w.heading("Appendix")
    w.paragraph(prose.sentences(4))
    w.figure(
        BarChart(seed=7),
        Caption("figure", "6", "Accuracy of each backbone on the held-out split, averaged over five seeds.", "Figure {n}."),
        case="appendix figure numbered after the main text",
    )
    w.paragraph(prose.sentences(4))
    w.figure(Diagram(stages=("Crop", "Resize", "Normalize")), None, case="figure without a caption")
    w.paragraph(prose.sentences(6))
    return w.save(path)


def one_column_paper(path: Path) -> SyntheticPaper:
    """NeurIPS-like: one column, "Figure 1:" / "Table 1:", long hyphenated captions, two figures side
    by side, a 2x2 multi-panel figure, and an appendix "Figure A1"."""
    w, prose = PaperWriter(columns=1, side_margin=108.0), Prose(2)
    w.title("Scaling Laws for Sparse Mixture Models", "Anonymous Authors")
    w.heading("Abstract")
    w.paragraph(prose.sentences(5))
    w.heading("1  Introduction")
    w.paragraph(prose.sentences(6))
    w.figure(
        Diagram(stages=("Tokens", "Router", "Experts", "Combine", "Logits")),
        Caption(
            "figure",
            "1",
            "Architecture of the sparse mixture model. The router assigns every token to a small number of experts; "
            "their outputs are combined with the routing probabilities, which keeps the computational requirements "
            "independent of the total number of experts and parameters.",
            "Figure {n}:",
        ),
        case="long multi-line caption with hyphenation",
        scale=0.85,
    )
    w.paragraph(prose.sentences(3) + [Cite("The routing probabilities concentrate on few experts, as shown in Fig. 2(b) for the largest model.", "figure", "2")] + prose.sentences(5))
    w.side_by_side(
        [
            (LinePlot(seed=21, series=("dense", "sparse")), Caption("figure", "2", "Validation loss as a function of training compute for dense and sparse models.", "Figure {n}:")),
            (BarChart(seed=22, categories=("8", "16", "32", "64")), Caption("figure", "3", "Throughput in tokens per second for different numbers of experts.", "Figure {n}:")),
        ],
        case="two figures side by side",
    )
    w.paragraph(prose.sentences(10))
    w.table(
        Table(_TABLE_WIDE),
        Caption("table", "1", "Results on the translation and captioning benchmarks. Latency is measured on a single accelerator with a batch size of one.", "Table {n}:"),
        case="wide table, two-line caption above",
    )
    w.paragraph([Cite("Table 1 lists the results on all benchmarks.", "table", "1")] + prose.sentences(8))
    w.tables_side_by_side(
        [
            (
                Table([["Length", "512", "1024", "2048"], ["MIMIC", "52.8", "50.7", "51.7"], ["ECtHR", "72.2", "74.3", "77.1"]]),
                Caption("table", "2", "Long document performance (micro F1) at different sequence lengths using our memory-efficient attention.", "Table {n}:"),
            ),
            (
                Table(
                    [
                        ["Model", "Path-X", "Path-256"],
                        ["Transformer", "fail", "fail"],
                        ["Linformer", "fail", "fail"],
                        ["Performer", "fail", "fail"],
                        ["Ours", "61.4", "fail"],
                        ["Ours (sparse)", "56.0", "63.1"],
                    ]
                ),
                Caption("table", "3", "We report the first Transformer model that can achieve non-random performance on Path-X and Path-256.", "Table {n}:"),
            ),
        ],
        case="two tables side by side, each with a three-line caption above (as in FlashAttention)",
    )
    w.paragraph(prose.sentences(4))
    w.figure(
        Panels(
            [
                (LinePlot(seed=31, aspect=0.6), "small"),
                (LinePlot(seed=32, aspect=0.6), "medium"),
                (LinePlot(seed=33, aspect=0.6), "large"),
                (LinePlot(seed=34, aspect=0.6), "extra large"),
            ],
            columns=2,
        ),
        Caption("figure", "4", "Learning curves for four model sizes.", "Figure {n}:"),
        case="2x2 multi-panel figure",
        scale=0.8,
    )
    w.paragraph(prose.sentences(8))
    w.new_page()
    w.heading("A  Additional experiments")
    w.paragraph(prose.sentences(5))
    w.figure(
        LinePlot(seed=41, series=("top-1", "top-2")),
        Caption("figure", "A1", "Load balancing loss during training with top-1 and top-2 routing.", "Figure {n}:"),
        case="appendix figure A1",
        scale=0.7,
    )
    w.paragraph([Cite("Figure A1 confirms that the auxiliary loss keeps the experts balanced.", "figure", "A1")] + prose.sentences(6))
    return w.save(path)


def lncs_paper(path: Path) -> SyntheticPaper:
    """LNCS-like, one column: "Fig. 1." below figures and "Table 1." above tables, a figure wrapped
    by a paragraph, captions set beside their figure and table, a table sharing the column with a
    figure, and a supplement after the paper that numbers its figures and tables from 1 again."""
    w, prose = PaperWriter(columns=1, side_margin=100.0), Prose(8)
    w.title("Zero-Shot Detection of Unseen Object Categories", "Anonymous Authors")
    w.heading("1  Introduction")
    w.paragraph(prose.sentences(6))
    w.wrapped_figure(
        LinePlot(seed=81, series=("seen", "unseen")),
        Caption("figure", "1", "Recall of unseen classes against the number of proposals.", "Fig. {n}.", bold_label=True),
        prose.sentences(12),
        case="figure at the right of the column, a paragraph wrapped beside it",
    )
    w.paragraph(prose.sentences(5))
    w.wrapped_figure(
        BarChart(seed=85, categories=("VGG", "ResNet")),
        Caption("figure", "4", "Recall per backbone.", "Fig. {n}.", bold_label=True),
        prose.sentences(12),
        case="figure at the left of the column, a paragraph wrapped beside it",
        side="left",
    )
    w.side_captioned(
        RasterImage(seed=82, pixels=(300, 140)),
        Caption("figure", "2", "Embeddings of the seen and unseen classes projected to two dimensions with t-SNE.", "Fig. {n}.", bold_label=True),
        case="caption set beside its figure, on the left",
    )
    w.paragraph(prose.sentences(6))
    w.side_captioned(
        Table(_TABLE_RESULTS),
        Caption("table", "1", "Top-1 accuracy of the unseen classes on the bird data set.", "Table {n}.", bold_label=True),
        case="caption set beside its table, on the right",
        caption_side="right",
    )
    w.paragraph(prose.sentences(5))
    w.table(Table(_TABLE_ABLATION), Caption("table", "2", "Ablation of the loss terms.", "Table {n}.", bold_label=True), case="table above a figure in one column")
    w.figure(BarChart(seed=83, categories=("a", "b", "c")), Caption("figure", "3", "Average precision per meta class.", "Fig. {n}.", bold_label=True), case="figure under a table in one column", scale=0.5)
    w.paragraph(prose.sentences(8))
    w.start_part("Supplementary Material", "supplement")
    w.paragraph([Cite("Table 1 lists the meta class of every category.", "table", "1")] + prose.sentences(4))
    w.table(Table(_TABLE_HPARAMS), Caption("table", "1", "Meta classes and their categories.", "Table {n}.", bold_label=True), case="supplement table numbered from 1 again")
    w.paragraph(prose.sentences(6))
    w.figure(LinePlot(seed=84, series=("train", "test")), Caption("figure", "1", "Long-tail distribution of the training set.", "Fig. {n}.", bold_label=True), case="supplement figure numbered from 1 again", scale=0.6)
    w.paragraph(prose.sentences(6))
    return w.save(path)


def dense_paper(path: Path) -> SyntheticPaper:
    """A dense two-column results page: three tables side by side under captions above them, the
    middle caption crossing the gutter, header rows right under short captions; then a table and a
    figure sharing one column."""
    w, prose = PaperWriter(columns=2, side_margin=54.0, gutter=18.0), Prose(9)
    w.title("Knowledge Graph Attention for Recommendation", "Anonymous Authors")
    w.paragraph(prose.sentences(14))
    w.tables_side_by_side(
        [
            (
                Table([["", "Amazon", "Last-FM"], ["", "recall", "ndcg"], ["GCN", "0.1381", "0.0931"], ["Sage", "0.1372", "0.0929"]]),
                Caption("table", "4", "Effect of aggregators.", "Table {n}:"),
            ),
            (
                Table([["", "Amazon-Book", "Last-FM"], ["w/o K", "0.1393", "0.0877"], ["w/o A", "0.1401", "0.0891"]]),
                Caption("table", "5", "Effect of knowledge graph embedding and attention mechanism.", "Table {n}:"),
            ),
            (
                Table([["Depth", "Yelp2018", "Last-FM"], ["1", "0.0641", "0.0870"], ["2", "0.0651", "0.0875"], ["3", "0.0654", "0.0877"]]),
                Caption("table", "6", "Effect of embedding propagation layer numbers.", "Table {n}:"),
            ),
        ],
        case="three tables side by side, the middle caption crossing the gutter (as in KGAT)",
    )
    w.paragraph(prose.sentences(40))
    w.table(Table(_TABLE_ABLATION), Caption("table", "7", "Ablation of the attention terms.", "Table {n}:"), case="table right above a figure in one column")
    w.figure(LinePlot(seed=91, series=("KGAT", "NFM")), Caption("figure", "1", "Recall as the training proceeds.", "Figure {n}:"), case="figure right under a table in one column")
    w.paragraph(prose.sentences(40))
    w.paragraph(prose.sentences(40))
    return w.save(path)


def stacked_paper(path: Path) -> SyntheticPaper:
    """A two-column results page (KDD-like): three tables stacked in one column with captions above
    them, a caption filling its line right over a two-row header ("Amazon-Book  Last-FM" over
    "recall  ndcg"), and a figure right under the last table, its caption below it."""
    w, prose = PaperWriter(columns=2, side_margin=54.0, gutter=24.0), Prose(11)
    w.title("Knowledge-aware Recommendation with Graph Attention", "Anonymous Authors")
    w.paragraph(prose.sentences(12))
    w.next_column()
    tables = [
        (
            [["", "Amazon-Book", "", "Last-FM", ""], ["", "recall", "ndcg", "recall", "ndcg"],
             ["FM", "0.1345", "0.0886", "0.0778", "0.1181"], ["NFM", "0.1366", "0.0913", "0.0829", "0.1214"],
             ["KGAT", "0.1489", "0.1006", "0.0870", "0.1325"]],
            "Overall performance comparison of the knowledge-aware recommenders on both data sets, in recall and ndcg at 20.",
        ),
        (
            [["", "Amazon-Book", "", "Last-FM", ""], ["", "recall", "ndcg", "recall", "ndcg"],
             ["GCN", "0.1381", "0.0931", "0.0879", "0.1316"], ["Sage", "0.1372", "0.0929", "0.0822", "0.1268"]],
            "Effect of the aggregators on both data sets (recall, ndcg).",
        ),
        (
            [["Depth", "Amazon-Book", "Last-FM"], ["1", "0.1393 (-6.4%)", "0.0877 (+0.8%)"], ["2", "0.1401 (-5.9%)", "0.0891 (+2.4%)"],
             ["3", "0.1489", "0.0870"]],
            "Effect of the number of propagation layers.",
        ),
    ]  # fmt: skip
    for number, (rows, text) in enumerate(tables, start=1):
        w.table(Table(rows), Caption("table", str(number), text, "Table {n}:"), case="tables stacked in one column (as in KGAT)", caption_gap=2.0)
        w.y -= 8  # floats set close together, as LaTeX stacks them at the top of a column
    w.figure(
        BarChart(seed=111, categories=("FM", "NFM", "CKE", "KGAT")),
        Caption("figure", "1", "Recall of each model on users grouped by sparsity.", "Figure {n}:"),
        case="figure right under stacked tables",
        scale=0.8,
    )
    w.paragraph(prose.sentences(10))
    return w.save(path)


def ieee_paper(path: Path) -> SyntheticPaper:
    """IEEE-like: two columns, "Fig. 1." captions, "TABLE I" labels in roman on their own line."""
    w, prose = PaperWriter(columns=2, side_margin=45.0, gutter=14.0), Prose(3)
    w.title("Robust Speaker Verification with Channel Attention", "Anonymous Authors")
    w.paragraph(prose.sentences(6))
    w.figure(RasterImage(seed=51, pixels=(260, 160)), Caption("figure", "1", "Spectrogram of an utterance with background noise.", "Fig. {n}."), case="raster figure, IEEE 'Fig.' caption")
    w.paragraph(prose.sentences(6))
    w.table(Table(_TABLE_ABLATION), Caption("table", "1", "Ablation on the development set", "TABLE {R}", label_line=True), case="IEEE roman table label on its own line")
    w.paragraph(prose.sentences(12))
    w.table(Table(_TABLE_WIDE), Caption("table", "2", "Comparison with prior systems on the evaluation set", "TABLE {R}", label_line=True), case="IEEE table spanning both columns", span=True)
    w.heading("IV. Results")
    w.paragraph([Cite("Table II compares our system with prior work.", "table", "2")] + prose.sentences(6))
    w.figure(LinePlot(seed=52, series=("EER", "minDCF"), xlabel="SNR (dB)"), Caption("figure", "2", "Equal error rate and minimum detection cost under additive noise.", "Fig. {n}."), case="vector plot, IEEE caption")
    w.paragraph(prose.sentences(4) + [Cite("The attention weights in Fig. 3 are averaged over all test utterances.", "figure", "3")] + prose.sentences(5))
    w.figure(BarChart(seed=53, categories=("clean", "babble", "music", "reverb")), Caption("figure", "3", "Relative improvement per noise type.", "Fig. {n}."), case="bar chart, IEEE caption")
    w.paragraph(prose.sentences(10))
    w.table(Table(_TABLE_HPARAMS), Caption("table", "3", "Training configuration", "TABLE {R}", label_line=True), case="IEEE table III")
    w.paragraph(prose.sentences(6))
    w.table(Table(_TABLE_RESULTS), Caption("table", "4", "Results with different backbones", "TABLE {R}", label_line=True), case="IEEE table IV")
    w.paragraph(prose.sentences(8))
    return w.save(path)


def journal_paper(path: Path) -> SyntheticPaper:
    """Journal-like: one column, bold "FIGURE 1" labels and "Table 1." captions."""
    w, prose = PaperWriter(columns=1, side_margin=90.0), Prose(4)
    w.title("Graph Embeddings for Heterogeneous Networks", "Anonymous Authors")
    w.paragraph(prose.sentences(8))
    w.figure(LinePlot(seed=61, series=("node2vec", "ours")), Caption("figure", "1", "Link prediction accuracy versus embedding dimension.", "FIGURE {n}", bold_label=True), case="bold 'FIGURE 1' caption", scale=0.6)
    w.paragraph(prose.sentences(5) + [Cite("FIGURE 1 shows that larger embeddings help up to a point.", "figure", "1", printed="FIGURE 1")] + prose.sentences(4))
    w.table(Table(_TABLE_RESULTS), Caption("table", "1", "Node classification results.", "Table {n}.", bold_label=True), case="bold 'Table 1.' caption")
    w.paragraph(prose.sentences(9))
    w.figure(RasterImage(seed=62, pixels=(320, 160)), Caption("figure", "2", "Embedding of the author network projected to two dimensions.", "FIGURE {n}", bold_label=True), case="raster, bold 'FIGURE 2'", scale=0.7)
    w.paragraph(prose.sentences(8))
    return w.save(path)


def acl_paper(path: Path) -> SyntheticPaper:
    """ACL-like, A4: a teaser figure right under the author block, tables with the caption BELOW,
    one preceded by an appendix heading and a displayed equation, one followed directly by a section
    heading, and reader highlights baked into the text right under a figure caption."""
    w, prose = PaperWriter(columns=2, page_size=(595.0, 842.0), side_margin=70.0, gutter=17.0), Prose(7)
    w.title(
        "Learning Deep Transformer Models for Translation",
        "Anonymous Author One    Anonymous Author Two",
        affiliations=("Natural Language Processing Lab, Some University", "first.author@example.edu"),
    )
    w.col_top = w.y = w.y - 12  # teaser figures sit close under the affiliations
    w.figure(
        Panels([(LinePlot(seed=71, aspect=0.5), "pre-norm"), (LinePlot(seed=72, aspect=0.5), "post-norm")]),
        Caption("figure", "1", "Training loss of pre-norm and post-norm Transformers with 6 to 30 encoder layers.", "Figure {n}:"),
        case="teaser figure right under the author block",
        span=True,
        scale=0.75,
    )
    w.paragraph(prose.sentences(8))
    w.figure(
        LinePlot(seed=73, series=("BLEU", "chrF")),
        Caption("figure", "2", "Translation quality as a function of encoder depth.", "Figure {n}:"),
        case="figure followed by highlighted body text",
    )
    w.paragraph(prose.sentences(4), highlight=True)
    w.paragraph(prose.sentences(5))
    w.table(
        Table(_TABLE_ABLATION),
        Caption("table", "1", "Ablation of the layer aggregation.", "Table {n}:"),
        case="table with the caption below, a section heading right after it",
        caption_below=True,
    )
    w.heading("3  Experiments")
    w.paragraph(prose.sentences(9))
    w.new_page()
    w.paragraph(prose.sentences(3))
    w.equation([("dE", "dx_l"), ("dE", "dx_L"), ("dF(x_k)", "dx_l")], 22)
    w.heading("B  Training Hyper-parameters for Deep Models")
    w.table(
        Table(_TABLE_HPARAMS),
        Caption("table", "2", "Hyper-parameters of the deep models.", "Table {n}:"),
        case="caption-below table under an appendix heading under a displayed equation (vector fraction bars)",
        caption_below=True,
    )
    w.paragraph(prose.sentences(8))
    return w.save(path)


def no_figures_paper(path: Path) -> SyntheticPaper:
    """Two pages of text only; its citations point to other papers' figures (no items here)."""
    w, prose = PaperWriter(columns=2), Prose(5)
    w.title("A Note on Convergence Rates", "Anonymous Authors")
    w.paragraph(prose.sentences(10))
    w.heading("2. Related work")
    w.paragraph([Cite("Figure 2 of the original paper reports a similar trend on smaller datasets.", "figure", "2")] + prose.sentences(20))
    w.paragraph([Cite("Table 3 in their appendix lists the exact hyper-parameters.", "table", "3")] + prose.sentences(25))
    return w.save(path)


def long_paper(path: Path, pages: int = 300) -> SyntheticPaper:
    """A thesis-length one-column paper: `pages` pages of text with a figure or table every 25."""
    w, prose = PaperWriter(columns=1, side_margin=90.0), Prose(6)
    w.title("A Very Long Technical Report", "Anonymous Authors")
    floats_on: set[int] = set()
    # Stop while the last page still has room for a whole paragraph, so exactly `pages` pages.
    while w.page_number < pages or w.y < w.bottom - 15 * w.leading:
        page = w.page_number
        if page % 25 == 1 and page not in floats_on:
            floats_on.add(page)
            n = str((len(floats_on) + 1) // 2)
            if page % 50 == 1:
                w.figure(LinePlot(seed=100 + page), Caption("figure", n, f"Training curves for configuration {n}.", "Figure {n}:"), case="figure in a long paper", scale=0.6)
            else:
                w.table(Table(_TABLE_RESULTS), Caption("table", n, f"Results for setting {n}.", "Table {n}:"), case="table in a long paper")
        w.paragraph(prose.sentences(6))
    return w.save(path)


# ---------------------------------------------------------------------------------------------
# Bad inputs
# ---------------------------------------------------------------------------------------------


def scanned_pdf(path: Path, source: Path, pages: int = 2, dpi: int = 100) -> Path:
    """Pages that are only a full-page grayscale image of `source` (no text layer), like a scan."""
    out = pymupdf.open()
    with pymupdf.open(source) as src:
        for page in list(src)[:pages]:
            pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
            new = out.new_page(width=page.rect.width, height=page.rect.height)
            new.insert_image(new.rect, stream=pix.tobytes("png"))
    out.save(path, garbage=3, deflate=True)
    out.close()
    return path


def not_a_pdf(path: Path) -> Path:
    """Plain text bytes saved with a .pdf name (a user's most common mistake)."""
    path.write_text("These are my notes about the paper, not the paper itself.\n" * 20)
    return path


def empty_file(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def truncated_pdf(path: Path, source: Path, keep: float = 0.4) -> Path:
    """The first `keep` of `source`'s bytes, like an interrupted download: no xref, no trailer."""
    data = source.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def encrypted_pdf(path: Path, source: Path) -> Path:
    """`source` saved with AES-256 encryption and a user password (it cannot be opened without it)."""
    with pymupdf.open(source) as doc:
        doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="reader", owner_pw="owner")
    return path


def zero_page_pdf(path: Path) -> Path:
    """A valid PDF whose page tree is empty, written by hand (PyMuPDF refuses to save one)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


# ---------------------------------------------------------------------------------------------
# Everything at once (the tests' session fixture)
# ---------------------------------------------------------------------------------------------

PAPERS = {
    "two_column": two_column_paper,
    "one_column": one_column_paper,
    "ieee": ieee_paper,
    "journal": journal_paper,
    "acl": acl_paper,
    "lncs": lncs_paper,
    "dense": dense_paper,
    "stacked": stacked_paper,
}


@dataclass
class Corpus:
    """Every synthetic paper (`papers`) plus the special inputs (`no_figures`, `scanned`, `bad`)."""

    papers: dict[str, SyntheticPaper]
    no_figures: SyntheticPaper
    scanned: Path
    bad: dict[str, Path]


def build_corpus(root: Path) -> Corpus:
    """Write all synthetic papers and bad inputs under `root` (cheap enough to build per test session)."""
    root.mkdir(parents=True, exist_ok=True)
    papers = {name: build(root / f"{name}.pdf") for name, build in PAPERS.items()}
    source = papers["two_column"].path
    bad = {
        "not_a_pdf": not_a_pdf(root / "notes.pdf"),
        "empty": empty_file(root / "empty.pdf"),
        "truncated": truncated_pdf(root / "truncated.pdf", source),
        "encrypted": encrypted_pdf(root / "encrypted.pdf", source),
        "zero_pages": zero_page_pdf(root / "zero_pages.pdf"),
    }
    return Corpus(papers, no_figures_paper(root / "no_figures.pdf"), scanned_pdf(root / "scanned.pdf", source), bad)
