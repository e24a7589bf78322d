"""Passages of journal layouts the body-text rules once dropped, on synthetic pages built here: an
abstract across a two-column body, an abstract set a point smaller than the body, a main text set
larger than the methods and references that outweigh it, ragged-right prose, a preprint's line
numbers, a paragraph PyMuPDF cut in two blocks, and a double-spaced manuscript's lines joined into its
paragraphs. Each case also checks what must stay out (names, a footnote, a bibliography's numbers, a
caption, an algorithm's step, the first page's affiliations, a publisher's notice, the bibliography's
entries)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from spiqa_demo.extraction.layout import (
    Block,
    ClassifiedPage,
    DocumentLayout,
    Line,
    PageLayout,
    Span,
    analyse_document,
    classify_page,
    join_lines,
    read_page,
)
from spiqa_demo.extraction.passages import outside_bibliography, page_passages
from spiqa_demo.types import Passage, Reference

PROSE = (
    "the cells were grown in rich medium for two days and then moved to a fresh plate where the "
    "growth of each strain was followed over time with a plate reader that measured the optical density "
)
NAMES = "Alice Baker, Carlos Diaz, Emma Fischer, George Hansen, Irene Jansen, Karl Larsen and Maria Nilsen " * 3
JUSTIFY = pymupdf.TEXT_ALIGN_JUSTIFY


def _box(page: pymupdf.Page, rect: tuple[float, float, float, float], text: str, size: float, align: int = JUSTIFY) -> None:
    """`text` set in `rect`, which must hold it (MuPDF writes nothing where it does not fit)."""
    assert page.insert_textbox(pymupdf.Rect(*rect), text, fontsize=size, fontname="helv", align=align) >= 0, rect


def _two_columns(page: pymupdf.Page, top: float, tag: str) -> None:
    for x0, x1 in ((50, 290), (310, 550)):
        _box(page, (x0, top, x1, top + 300), f"{tag} {PROSE * 3}", 10)


def _passages(path: Path) -> list[Passage]:
    with pymupdf.open(path) as doc:
        pages = [read_page(page) for page in doc]
    layout = analyse_document(pages)
    return [p for page in pages for p in page_passages(classify_page(page, layout), layout)]


def _save(doc: pymupdf.Document, tmp_path: Path) -> Path:
    path = tmp_path / "paper.pdf"
    doc.save(path)
    doc.close()
    return path


def test_an_abstract_across_a_two_column_body_is_a_passage_and_the_author_list_is_not(tmp_path: Path) -> None:
    doc = pymupdf.open()
    first = doc.new_page()
    _box(first, (50, 60, 550, 120), NAMES, 10)
    _box(first, (50, 140, 550, 260), f"abstractmark {PROSE * 3}", 10)
    _two_columns(first, 290, "bodyone")
    _two_columns(doc.new_page(), 80, "bodytwo")
    passages = _passages(_save(doc, tmp_path))
    assert any(p.text.startswith("abstractmark") and p.page == 1 for p in passages)
    assert any(p.text.startswith("bodytwo") for p in passages)
    assert not any("Carlos Diaz" in p.text for p in passages)


@pytest.mark.parametrize("page_number, kept", [(1, True), (2, False)])
def test_a_paragraph_a_point_smaller_than_the_body_is_a_passage_on_the_first_page_only(tmp_path: Path, page_number: int, kept: bool) -> None:
    doc = pymupdf.open()
    for number in (1, 2):
        page = doc.new_page()
        if number == page_number:
            _box(page, (150, 80, 550, 200), f"smallmark {PROSE * 2}", 9)
            _two_columns(page, 230, "body")
        else:
            _two_columns(page, 80, "body")
    passages = _passages(_save(doc, tmp_path))
    assert any(p.text.startswith("smallmark") for p in passages) is kept


def test_a_main_text_set_larger_than_the_text_that_outweighs_it_is_passages(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for number in range(3):
        page = doc.new_page()
        if number == 0:
            _box(page, (50, 60, 550, 130), NAMES, 10)
        _box(page, (50, 150, 290, 700), f"mainmark {PROSE * 4}", 10)
        _box(page, (310, 150, 550, 700), f"smallmethods {PROSE * 7}", 8)
    passages = _passages(_save(doc, tmp_path))
    assert sum(p.text.startswith("mainmark") for p in passages) == 3
    assert not any("Carlos Diaz" in p.text for p in passages)


def test_ragged_right_prose_is_passages(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for _ in range(2):
        page = doc.new_page()
        for top in (80, 300, 520):
            _box(page, (72, top, 540, top + 200), f"raggedmark {PROSE * 4}", 11, pymupdf.TEXT_ALIGN_LEFT)
    passages = _passages(_save(doc, tmp_path))
    assert sum(p.text.startswith("raggedmark") for p in passages) == 6


def _numbered_lines(page: pymupdf.Page, texts: list[str], first: int, every: int) -> None:
    """`texts` as lines from the top, and the numbers `first`, `first + 1`, ... in the left margin
    beside every `every`-th line."""
    for i, text in enumerate(texts):
        y = 90 + 24 * i
        page.insert_text((72, y), text, fontsize=12, fontname="helv")
        if i % every == 0:
            page.insert_text((40, y), str(first + i // every), fontsize=11, fontname="helv")


def test_a_preprints_line_numbers_are_left_out_and_its_text_is_passages(tmp_path: Path) -> None:
    doc = pymupdf.open()
    line = "the cells were grown in rich medium for two days and then moved to a fresh plate"
    for page_number in range(2):
        _numbered_lines(doc.new_page(), [line] * 25, 1 + 25 * page_number, every=1)
    passages = _passages(_save(doc, tmp_path))
    assert passages, "the numbered text gave no passage"
    assert all(line in p.text for p in passages)
    assert not any(token.isdigit() for p in passages for token in p.text.split())


def test_a_bibliographys_numbers_are_kept(tmp_path: Path) -> None:
    doc = pymupdf.open()
    entry = ["Baker, A. and Diaz, C. Growth of cells in rich medium over two days and", "what the plate reader measured of them.", "Journal of Cells 12, 3-4 (2020)."]
    _numbered_lines(doc.new_page(), entry * 8, 1, every=3)
    with pymupdf.open(_save(doc, tmp_path)) as pdf:
        lines = [ln.text for ln in read_page(pdf[0]).lines]
    assert sum(text.strip().isdigit() or text.split()[0].isdigit() for text in lines) == 8


def test_a_footnote_on_the_first_page_is_no_abstract(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    _box(page, (150, 60, 550, 180), f"smallmark {PROSE * 2}", 9)
    _two_columns(page, 200, "body")
    _box(page, (50, 700, 550, 780), f"*notemark {PROSE * 2}", 9)
    passages = _passages(_save(doc, tmp_path))
    assert any(p.text.startswith("smallmark") for p in passages)
    assert not any("notemark" in p.text for p in passages)


def _block(number: int, top: float, texts: list[str], size: float = 10, pitch: float = 12) -> Block:
    lines = []
    for i, text in enumerate(texts):
        box = (72.0, top + pitch * i, 72.0 + 5.0 * len(text), top + pitch * i + size)
        lines.append(Line(text, box, size, [Span(text, box, size, "Helvetica", False, box[3] - 2)], number, i))
    return Block(number, lines)


@pytest.mark.parametrize(
    "rest, joined",
    [
        (["and what it measured of the plates over"], True),
        (["Figure 2: growth of all the strains"], False),
        (["11: On chip, compute"], False),
    ],
)
def test_the_rest_of_a_paragraph_cut_off_its_block_is_body_text(rest: list[str], joined: bool) -> None:
    """PyMuPDF sometimes cuts a paragraph in two blocks; the rest, at the paragraph's line pitch
    under it and within its sides, reads as its sentences (not a caption, not an algorithm's step)."""
    line = "the cells were grown in rich medium for two days and then moved to a plate"
    paragraph = _block(0, 100, [line] * 4)
    page = PageLayout(2, 612, 792, [paragraph, _block(1, 148, rest)], [], [])
    layout = DocumentLayout(body_size=10, columns=[(72, 450)])
    assert (1 in classify_page(page, layout).body_blocks) is joined


@pytest.mark.parametrize(
    "lines, joined",
    [
        (["a word split by analo-", "gies across lines"], "a word split by analogies across lines"),
        (["attention made IO-", "aware"], "attention made IO-aware"),
        (["the ResNet-", "50 backbone"], "the ResNet-50 backbone"),
    ],
)
def test_a_line_end_hyphen_joins_a_split_word_and_keeps_a_compounds(lines: list[str], joined: str) -> None:
    assert join_lines(lines) == joined


def _double_spaced(page: pymupdf.Page, paragraphs: list[str], top: float = 90, pitch: float = 27.5) -> None:
    """`paragraphs` set ragged right a line at a time, `pitch` points apart with no gap between
    paragraphs (a manuscript's double spacing: PyMuPDF gives each line its own block), each opening
    with a 36-pt indent."""
    y = top
    for text in paragraphs:
        words, x0 = text.split(), 108.0
        while words:
            line: list[str] = []
            while words and pymupdf.get_text_length(" ".join([*line, words[0]]), fontname="helv", fontsize=12) <= 540 - x0:
                line.append(words.pop(0))
            page.insert_text((x0, y), " ".join(line), fontsize=12, fontname="helv")
            y, x0 = y + pitch, 72.0


def test_a_double_spaced_manuscripts_lines_are_joined_into_its_paragraphs(tmp_path: Path) -> None:
    """Each paragraph is one passage, its indented first line and short last line included; the
    indent after a short line opens the next."""
    doc = pymupdf.open()
    first, second = f"firstmark {PROSE * 2}ends here.", f"secondmark {PROSE * 2}closes it."
    for _ in range(2):
        _double_spaced(doc.new_page(), [first, second])
    passages = _passages(_save(doc, tmp_path))
    assert [p.text for p in passages] == [first.replace("  ", " ").strip(), second.replace("  ", " ").strip()] * 2


def test_a_larger_gap_than_the_line_pitch_ends_a_paragraph(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    _double_spaced(page, [f"firstmark {PROSE * 2}"], top=90)
    _double_spaced(page, [f"secondmark {PROSE * 2}"], top=90 + 27.5 * 7 + 14)
    passages = _passages(_save(doc, tmp_path))
    assert sum(p.text.startswith(("firstmark", "secondmark")) for p in passages) == 2


def test_the_first_pages_affiliations_set_a_line_each_are_no_passages(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    affiliations = [
        "1 Department of Cell Biology, Harvard Medical School, Boston, Massachusetts 02115, USA.",
        "2 Laboratory of Molecular Genetics, Institute for Quantitative Biosciences, Tokyo, Japan.",
    ]
    for i, text in enumerate(affiliations):
        page.insert_text((72, 80 + 27.5 * i), text, fontsize=12, fontname="helv")
    _double_spaced(page, [f"firstmark {PROSE * 2}"], top=200)
    _double_spaced(doc.new_page(), [f"secondmark {PROSE * 2}"])
    passages = _passages(_save(doc, tmp_path))
    assert any(p.text.startswith("firstmark") for p in passages)
    assert not any("Department" in p.text or "Laboratory" in p.text for p in passages)


@pytest.mark.parametrize(
    "text, notice",
    [
        ("Open Access This article is licensed under a Creative Commons Attribution 4.0 International License, which permits use.", True),
        ("This is an open access article under the CC BY-NC-ND license (http://creativecommons.org/licenses/by-nc-nd/4.0/).", True),
        ("Peer review information Nature Communications thanks the anonymous reviewers for their contribution to the peer review of this work.", True),
        ("The cells were grown in rich medium. The dataset is released under a Creative Commons licence.", False),
    ],
)
def test_a_publishers_notice_is_no_passage(text: str, notice: bool) -> None:
    """Its first sentence states the licence or the peer review; a sentence further on that names a
    licence is the paper's own."""
    line = Line(text, (72, 100, 540, 112), 10, [Span(text, (72, 100, 540, 112), 10, "Helvetica", False, 110)], 0, 0)
    page = ClassifiedPage(2, 612, 792, [Block(0, [line])], [], [], header_bottom=0, footer_top=792, body_blocks=frozenset({0}))
    passages = page_passages(page, DocumentLayout(body_size=10, columns=[(72, 540)]))
    assert (not passages) is notice


def test_the_bibliographys_entries_are_no_passages_and_a_heading_a_title_says_stays() -> None:
    entries = [
        Reference(key="1.", text="Baker, A. & Diaz, C. Growth of cells in rich medium. J. Cells 12, 3-4 (2020).", title="Growth of cells in rich medium"),
        Reference(key="2.", text="Fischer, E. Plate readers measure optical density. Anal. Chem. 8, 1-9 (2019).", title="Plate readers measure optical density"),
    ]
    passages = [
        Passage("1. Baker, A. & Diaz, C. Growth of cells in rich medium. J. Cells 12, 3-4 (2020). 2. Fischer, E. Plate", 9, (0, 0, 1, 1)),
        Passage("Growth of cells in rich medium", 3, (0, 0, 1, 1)),
        Passage("We followed the growth of cells in rich medium as Baker and Diaz did, then measured them.", 4, (0, 0, 1, 1)),
    ]
    assert [p.page for p in outside_bibliography(passages, entries)] == [3, 4]


def _spans(pieces: list[tuple[str, float, float]], size: float = 7.5) -> list[dict]:
    return [{"text": text, "bbox": (x0, 0.0, x1, size), "size": size} for text, x0, x1 in pieces]


def test_a_space_between_touching_glyphs_is_no_word_break() -> None:
    """NAR's typesetter puts a space glyph at each kerning point of a justified line ("e x ert",
    "tw o"): glyphs that touch across it are one word; the line's word spaces, a fair part of a
    size wide, stay, and so does every space of a line set at an angle."""
    from spiqa_demo.extraction.layout import line_text
    from spiqa_demo.extraction.tables import _glued

    pieces = [("can", 0, 12), (" ", 12, 14), ("e", 14, 17), (" ", 17, 17), ("x", 16.9, 20), (" ", 20, 20),
              ("ert", 19.9, 30), (" ", 30, 32), ("its", 32, 40), (" ", 40, 42), ("tw", 42, 50), (" ", 50, 50), ("o", 49.9, 53)]  # fmt: skip
    assert line_text(_spans(pieces), horizontal=True) == "can exert its two"
    assert line_text(_spans(pieces), horizontal=False) == "can e x ert its tw o"
    words = [(x0, 0.0, x1, 9.0, text, 0, 0, n) for n, (text, x0, x1) in enumerate(p for p in pieces if p[0].strip())]
    assert [w.text for w in _glued(words)] == ["can", "exert", "its", "two"]
