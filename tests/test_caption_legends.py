"""A figure's caption is its whole legend (title and panels) across journal layouts, and no more.

Small synthetic pages built with PyMuPDF, one layout each: a legend whose title sits on a row of its
own above the panels' descriptions, a ragged side caption in a narrow column, a title set a
paragraph gap above its panels, a double-spaced manuscript legend, panel letters hung in the
margin; and what must stay out: body text a float's gap below, a table's first row under its rule,
a figure's own panel title under a page heading.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from spiqa_demo.extraction import extract_paper
from spiqa_demo.extraction.captions import Caption
from spiqa_demo.extraction.legends import _legend_of
from spiqa_demo.paper_text import parse_caption_label
from spiqa_demo.types import Figure, Paper

BODY = (
    "The assay was repeated for each strain and condition, and the counts were compared between groups "
    "with the tests named in the methods; every replicate is shown in the supplement."
)


def _body(page: pymupdf.Page, top: float, bottom: float, left: float = 72, right: float = 540, size: float = 10, pitch: float = 12) -> None:
    """Body text in lines from `top` to `bottom`: the paper's most common size is the body's."""
    words, y = BODY.split(), top
    while y < bottom:
        line: list[str] = []
        i = 0
        while pymupdf.get_text_length(" ".join([*line, words[i % len(words)]]), fontsize=size) < right - left:
            line.append(words[i % len(words)])
            i += 1
        page.insert_text((left, y), " ".join(line), fontsize=size)
        words = words[i % len(words) :] + words[: i % len(words)]
        y += pitch


def _figure(page: pymupdf.Page, rect: pymupdf.Rect) -> None:
    """Bars and axes: a graphic with no words."""
    for i in range(4):
        x = rect.x0 + 20 + i * (rect.width - 40) / 4
        page.draw_rect(pymupdf.Rect(x, rect.y1 - (i + 1) * rect.height / 5, x + 20, rect.y1), color=(0, 0, 0), fill=(0.3, 0.4, 0.8))
    page.draw_line(rect.bl, rect.br)
    page.draw_line(rect.bl, rect.tl)


def _save(doc: pymupdf.Document, path: Path) -> Paper:
    doc.save(path)
    return extract_paper(path)


def _figure_item(paper: Paper, number: str) -> Figure:
    [item] = [f for f in paper.items if f.kind == "figure" and f.number == number]
    return item


# (x, baseline, text, size, bold) rows under a figure, and what the caption must end with.
Row = tuple[float, float, str, float, bool]
TITLE_THEN_PANELS: dict[str, tuple[list[Row], str]] = {
    # Cell Press: a short bold title, then "(A) ..." a point smaller, across the page.
    "title row": (
        [
            (72, 320, "Figure 4. Genome localization using DNA FISH", 7.5, True),
            (72, 330, "(A) Zoospores from the two strains were fixed and stained with DNA probes targeting the viral genome", 7, False),
            (72, 339, "and imaged with the same settings for both strains. Scale bars: 5 mm.", 7, False),
            (72, 348, "(B) Quantification of hybridization signal spots per cell.", 7, False),
        ],
        "(B) Quantification of hybridization signal spots per cell.",
    ),
    # Panel letters hung in the margin of their descriptions.
    "hung letters": (
        [
            (72, 320, "Fig 4. Aggregates form with the mutant protein.", 10, True),
            (72, 334, "A", 10, False),
            (110, 334, "Staining of the immunoprecipitated complexes from cells.", 10, False),
            (72, 348, "B", 10, False),
            (110, 348, "Western blots of the same complexes.", 10, False),
        ],
        "B Western blots of the same complexes.",
    ),
}


@pytest.mark.parametrize("layout", list(TITLE_THEN_PANELS))
def test_a_legend_title_on_its_own_row_keeps_the_panels_under_it(layout: str, tmp_path: Path) -> None:
    rows, ending = TITLE_THEN_PANELS[layout]
    doc = pymupdf.open()
    page = doc.new_page()
    _figure(page, pymupdf.Rect(72, 60, 540, 300))
    for x, y, text, size, bold in rows:
        page.insert_text((x, y), text, fontsize=size, fontname="hebo" if bold else "helv")
    _body(page, 390, 740)
    caption = _figure_item(_save(doc, tmp_path / "legend.pdf"), "4").caption
    assert caption.startswith(rows[0][2]) and caption.endswith(ending)


def test_a_ragged_side_caption_is_read_to_its_end(tmp_path: Path) -> None:
    """Science and Springer: the legend in a narrow column beside the figure, lines of any length."""
    doc = pymupdf.open()
    page = doc.new_page()
    rows = [
        "Fig. 2. Elimination of the",
        "specific T cells.",
        "(A) Contour plots showing",
        "bound cells before and",
        "after enrichment.",
        "(B) Summary of the number",
        "of cells on day 6.",
    ]
    for i, row in enumerate(rows):
        page.insert_text((72, 80 + 10 * i), row, fontsize=8, fontname="hebo" if i < 2 else "helv")
    _figure(page, pymupdf.Rect(200, 60, 540, 400))
    _body(page, 440, 740)
    caption = _figure_item(_save(doc, tmp_path / "side.pdf"), "2").caption
    assert caption == " ".join(rows)


def test_panels_a_paragraph_gap_under_the_title_belong_to_it_but_body_text_a_float_gap_under_does_not(tmp_path: Path) -> None:
    """EMBO: the title, a paragraph gap, then "(A) ..."; the body text starts a float's gap below."""
    doc = pymupdf.open()
    page = doc.new_page()
    _figure(page, pymupdf.Rect(72, 60, 540, 300))
    page.insert_text((72, 318), "Figure 1. Mutants are more sensitive to drought stress.", fontsize=7, fontname="hebo")
    page.insert_text((72, 332), "(A) Schematic representation of the locus. Insertions are marked with triangles.", fontsize=7)
    page.insert_text((72, 341), "(B) Root length of seedlings shown in (A).", fontsize=7)
    _body(page, 372, 740, size=7, pitch=9)  # body text at the legend's size: only the gap tells them apart
    caption = _figure_item(_save(doc, tmp_path / "embo.pdf"), "1").caption
    assert caption.endswith("(B) Root length of seedlings shown in (A).")
    assert "assay" not in caption


def test_a_double_spaced_legend_is_read_line_after_line(tmp_path: Path) -> None:
    """A bioRxiv manuscript: legends double spaced like its text, each line a block of its own."""
    doc = pymupdf.open()
    text = doc.new_page()
    _body(text, 80, 740, size=12, pitch=29)
    page = doc.new_page()
    _figure(page, pymupdf.Rect(72, 60, 540, 500))
    rows = [
        "Fig 1. Stages of gene emergence. (A) Events required for the birth of proto-",
        "genes (shaded area) and new genes, and examples of the methods that can",
        "identify these events. (B) Ways in which a region can become a gene.",
    ]
    for i, row in enumerate(rows):
        page.insert_text((72, 560 + 29 * i), row, fontsize=12, fontname="hebo" if i == 0 else "helv")
    caption = _figure_item(_save(doc, tmp_path / "manuscript.pdf"), "1").caption
    assert caption.endswith("(B) Ways in which a region can become a gene.")


def test_a_side_caption_stops_where_its_rows_run_on_under_the_figure(tmp_path: Path) -> None:
    """A legend beside its figure that runs on across the column under it: its box would hold the
    figure, which would lose its label; the caption keeps the rows beside the figure."""
    doc = pymupdf.open()
    page = doc.new_page()
    rows = ["Fig. 2. The protein is", "found on membranes.", "(A) Enrichment in the", "membrane fractions.", "(B) Golgi membranes", "were treated with", "trypsin and then"]
    for i, row in enumerate(rows):
        page.insert_text((72, 80 + 10 * i), row, fontsize=9, fontname="hebo" if i == 0 else "helv")
    _figure(page, pymupdf.Rect(190, 70, 540, 142))
    page.insert_text((72, 150), "analysed by western blotting for the presence of the protein in each fraction.", fontsize=9)
    _body(page, 200, 740)
    item = _figure_item(_save(doc, tmp_path / "wrapped.pdf"), "2")
    assert item.caption == " ".join(rows)
    assert item.bbox[0] >= 180 and item.bbox[3] >= 141


def test_a_table_row_under_its_caption_and_rule_is_not_caption(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    _body(page, 80, 300)
    page.insert_text((72, 330), "Table 2: Results on the test set.", fontsize=9)
    page.draw_line((72, 334), (540, 334))
    page.insert_text((72, 343), "Method", fontsize=9)
    page.insert_text((72, 354), "Baseline 71.2", fontsize=9)
    page.insert_text((72, 365), "Ours 74.5", fontsize=9)
    page.draw_line((72, 369), (540, 369))
    _body(page, 400, 740)
    [table] = [f for f in _save(doc, tmp_path / "table.pdf").items if f.kind == "table"]
    assert table.caption == "Table 2: Results on the test set."


def _caption(text: str, page: int) -> Caption:
    found = parse_caption_label(text)
    assert found is not None
    return Caption(kind=found.kind, label=found.label, number=found.number, page=page, text=text, bbox=(72, 50, 540, 60), score=2.0)


def test_a_figure_page_heading_or_note_stands_for_the_legend_printed_elsewhere() -> None:
    """A figure page headed "Figure 1 - title" whose legend, opening with that title, is printed on
    another page, and a figure noted "(See legend on previous page.)": the item reads the legend."""
    legend = _caption("Figure 1 - Substrate stiffness regulates proliferation arrest. (a) Workflow. (b) Cells.", 6)
    heading = _caption("Figure 1 - Stiffness regulates proliferation arrest", 5)
    assert _legend_of(heading, [heading, legend]) is legend
    note = _caption("Fig. 6 (See legend on previous page.)", 12)
    assert _legend_of(note, [_caption("Fig. 6 Additive stimulation by the fusions. A HDR efficiencies.", 11), note]) is not None
    # A caption of its own is kept, whatever else shares its label (running text read as a caption).
    own = _caption("Figure 3: Left: runtime of forward and backward pass. Right: attention memory usage.", 9)
    other = _caption("Figure 3 (left) reports the runtime in milliseconds of the forward and backward pass of many methods.", 10)
    assert _legend_of(own, [own, other]) is None


def test_a_frame_drawn_around_paragraphs_is_no_figure(tmp_path: Path) -> None:
    """A boxed summary or a page's rules around its text: the reader is shown no unlabelled item."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_line((64, 40), (64, 760), width=0.5)  # Science's page: a rule down the column, a badge
    page.draw_rect(pymupdf.Rect(64, 40, 200, 56), color=(0.6, 0.1, 0.1), fill=(0.6, 0.1, 0.1))
    page.draw_line((64, 760), (300, 760), width=0.5)
    _body(page, 100, 410)
    _body(page, 460, 740)
    assert _save(doc, tmp_path / "frame.pdf").items == []


def test_a_legend_in_two_columns_under_a_page_wide_figure_is_one_caption_and_one_figure(tmp_path: Path) -> None:
    """Science: the figure as wide as the page, its legend in two columns under it down to the page's
    foot; the second column opens level with the label. One caption, and the figure whole."""
    doc = pymupdf.open()
    page = doc.new_page()
    _figure(page, pymupdf.Rect(72, 60, 300, 600))
    _figure(page, pymupdf.Rect(312, 60, 540, 600))  # the right half's panels, with no words
    left = ["Fig. 1. Engineered bacteria express the model antigen.", "(A) Experimental approach, colonizing the mice with",
            "the strain, then eliciting the specific T cells. (B) The", "schematic of the genetic system developed for this",
            "strain, and the two methods used to transform it"]  # fmt: skip
    right = ["with the plasmid. (C) Tree of the strains", "and their transformation success.", "(D) Constructs expressed",
             "in the strain, and their placement."]  # fmt: skip
    for i, row in enumerate(left):
        page.insert_text((72, 640 + 10 * i), row, fontsize=8, fontname="hebo" if i == 0 else "helv")
    for i, row in enumerate(right):
        page.insert_text((296, 640 + 10 * i), row, fontsize=8)
    _body(doc.new_page(), 72, 740)  # the article's text, in a larger size than its legends
    paper = _save(doc, tmp_path / "two-column-legend.pdf")
    figure = _figure_item(paper, "1")
    assert figure.caption.endswith("in the strain, and their placement.")
    assert figure.bbox[0] < 80 and figure.bbox[2] > 530
    assert all(f.number for f in paper.items)

