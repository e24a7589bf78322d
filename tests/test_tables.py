"""Tables as tables: the structure extraction keeps (header rows, row names, cells) on a real
paper, its Markdown and JSON round trip, and retrieval matching a question's dataset and metric to
a table's headings, its methods to row names and its numbers to cells."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from retrieval_fixtures import embedder, item  # the session's embedder fixture

from retrieval import Embedder, FigureIndex, FusionConfig
from retrieval.fusion import zscore
from retrieval.table_match import values_in
from spiqa_demo.extraction import extract_paper, ocr
from spiqa_demo.extraction.layout import read_page
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.tables import Word, grid_structure, is_number_cell, page_words, table_grid, table_structure
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Paper, TableStructure

STRUCTURE_SPREAD = FusionConfig().structure_spread
LONE_WORD_QUESTION = "How do the embeddings learned by NGCF spread over the users when the graph grows deeper?"
needs_tesseract = pytest.mark.skipif(isinstance(ocr.find_tesseract("eng"), str), reason="Tesseract OCR is not installed")


@pytest.fixture(scope="module")
def bert(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Paper:
    return extract_paper(shared / "papers" / "bert-1810.04805.pdf", image_dir=tmp_path_factory.mktemp("bert"), dpi=72)


def test_words_read_with_a_captioned_page_are_the_pages_own(shared: Path) -> None:
    """Items take the words `read_page` kept from its text page (`PageLayout.words`): they must be
    the words PyMuPDF reads from the page afresh, or the items' text would change."""
    with pymupdf.open(shared / "papers" / "bert-1810.04805.pdf") as doc:
        kept = {i: read_page(doc[i]).words for i in range(doc.page_count)}
        assert not kept[0] and any(kept.values())  # no line of page 1 opens with a caption's label
        for i, words in kept.items():
            if words:
                assert words == page_words(doc[i])


def test_real_table_keeps_spanning_header_sub_headers_row_names_and_cells(bert: Paper) -> None:
    table = next(t for t in bert.tables if t.number == "5")  # ablation over pre-training tasks, three header rows
    assert table.table is not None
    structure = table.table
    assert len(structure.header) == 3  # "Dev Set" over the tasks over their metrics
    assert structure.row_names[:4] == ("BERTBASE", "No NSP", "LTR & No NSP", "+ BiLSTM")
    headings = structure.column_headings()
    assert any("SQuAD" in h and "(F1)" in h for h in headings), headings
    assert any("MNLI-m" in h and "(Acc)" in h for h in headings), headings
    no_nsp = next(r for r in structure.body if r[0] == "No NSP")
    assert "83.9" in no_nsp and "87.9" in no_nsp
    assert table.text == structure.to_markdown()


def test_results_table_without_spanning_header(bert: Paper) -> None:
    glue = next(t for t in bert.tables if t.number == "1")  # GLUE results: tasks over their training sizes, systems as rows
    assert glue.table is not None and len(glue.table.header) == 2  # "392k" under "MNLI-(m/mm)" is a heading, not a result
    assert glue.table.column_headings()[1] == "MNLI-(m/mm) 392k"
    assert any("BERTLARGE" in name for name in glue.table.row_names)


def test_structure_round_trips_through_json(bert: Paper) -> None:
    again = Paper.from_json(bert.to_json())
    assert [t.table for t in again.tables] == [t.table for t in bert.tables]
    assert all(f.table is None for f in again.figures)


def test_markdown_puts_header_rows_above_the_separator() -> None:
    structure = TableStructure(
        header=(("", "Yelp2018", "", "Gowalla", ""), ("Method", "recall", "ndcg", "recall", "ndcg")),
        body=(("NGCF", "0.0579", "0.0477", "0.1570", "0.1327"), ("LightGCN", "0.0649", "0.0530", "0.1830", "0.1554")),
    )
    lines = structure.to_markdown().splitlines()
    assert lines[0] == "|  | Yelp2018 |  | Gowalla |  |"
    assert lines[2] == "|---|---|---|---|---|"
    assert lines[4] == "| LightGCN | 0.0649 | 0.0530 | 0.1830 | 0.1554 |"
    assert structure.column_headings() == ("Method", "Yelp2018 recall", "Yelp2018 ndcg", "Gowalla recall", "Gowalla ndcg")
    assert structure.row_names == ("NGCF", "LightGCN")
    assert TableStructure.from_dict({"header": [list(r) for r in structure.header], "body": structure.body}) == structure
    assert TableStructure().to_markdown() == ""


@pytest.mark.parametrize(
    ("grid", "header_rows"),
    [
        ([["", "A", "", "B", ""], ["Method", "P", "R", "P", "R"], ["x", "1.0", "2.0", "3.0", "4.0"]], 2),
        ([["Method", "Acc"], ["x", "91.2"], ["y", "**93.4**"]], 1),
        ([["1", "2"], ["3", "4"]], 0),  # numbers from the first row: no header
        ([["Term", "Meaning"], ["a", "first"], ["b", "second"]], 1),  # a table of words: its first row
    ],
)
def test_header_ends_at_the_first_row_of_numbers(grid: list[list[str]], header_rows: int) -> None:
    assert len(grid_structure(grid).header) == header_rows


@pytest.mark.parametrize(
    ("cell", "number"),
    [("0.81", True), ("78.5%", True), ("12.3 ± 0.4", True), ("**91.2**", True), ("1.2M", True), ("8.43†", True),
     ("ResNet-50", False), ("top-1 err.", False), ("", False)],
)  # fmt: skip
def test_number_cells(cell: str, number: bool) -> None:
    assert is_number_cell(cell) is number


def test_question_values_ignore_numbers_inside_words() -> None:
    assert values_in("Which method is best on Yelp2018 in ndcg@20 with 0.0649 and 1,000 users?") == {20.0, 0.0649, 1000.0}


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which model size gives the best MRPC accuracy on the dev set?", "table-6"),  # dataset + metric headings
        ("How does No NSP compare to BERTBASE on QNLI?", "table-5"),  # row names + a heading
        ("Which system scores 80.5 on the GLUE average?", "table-1"),  # a cell
    ],
)
def test_real_paper_questions_find_their_table(bert: Paper, embedder: Embedder, question: str, expected: str) -> None:
    hits = FigureIndex.build(bert, embedder).search(question, k=3)
    assert hits[0].item.id == expected, [h.explain() for h in hits]
    assert hits[0].scores.table > 0


def _recommender_paper() -> Paper:
    """The issue's case: a plot whose axis says "ndcg on Yelp2018" beside the results table whose
    spanning header holds the datasets and whose sub-header holds the metrics."""
    results = TableStructure(
        header=(("", "Yelp2018", "", "Amazon-Book", ""), ("Method", "recall@20", "ndcg@20", "recall@20", "ndcg@20")),
        body=(
            ("NGCF", "0.0579", "0.0477", "0.0344", "0.0263"),
            ("Mult-VAE", "0.0584", "0.0450", "0.0407", "0.0315"),
            ("LightGCN", "0.0649", "0.0530", "0.0411", "0.0315"),
        ),
    )
    statistics = TableStructure(
        header=(("Dataset", "User #", "Item #", "Interaction #"),),
        body=(("Yelp2018", "31,668", "38,048", "1,561,406"), ("Amazon-Book", "52,643", "91,599", "2,984,108")),
    )
    items = [
        item("figure", "3", "Figure 3: Results of LightGCN and NGCF with different layers.",
             text="ndcg on Yelp2018\nrecall on Yelp2018\nLayer number"),
        item("table", "2", "Table 2: Statistics of the experimented data.", text=statistics.to_markdown()),
        item("table", "3", "Table 3: Overall performance comparison.", text=results.to_markdown()),
        item("figure", "4", "Figure 4: Performance of LightGCN w.r.t. different regularization coefficients on Yelp2018.",
             text="ndcg@20 on Yelp2018\nregularization"),
    ]  # fmt: skip
    items[1] = replace(items[1], table=statistics)
    items[2] = replace(items[2], table=results)
    return Paper(sha256="t", source="t", title="t", arxiv_id=None, page_sizes=[(612.0, 792.0)], items=items)


@pytest.mark.parametrize(
    "question",
    [
        "Which method is best on Yelp2018 in ndcg@20?",  # dataset in the spanning header, metric below it
        "How does Mult-VAE compare to NGCF on Amazon-Book?",  # methods are row names
        "Which method reaches 0.0649?",  # a number of the question is a cell
    ],
)
def test_question_finds_the_table_whose_structure_holds_it(embedder: Embedder, question: str) -> None:
    index = FigureIndex.build(_recommender_paper(), embedder)
    hits = index.search(question, k=4)
    assert hits[0].item.id == "table-3", [h.explain() for h in hits]
    assert hits[0].scores.table > max(h.scores.table for h in hits[1:])


def test_the_structure_match_is_the_share_of_the_question_a_table_holds(embedder: Embedder) -> None:
    """A table whose row names hold one word of a long question ("NGCF") matches a small share of it,
    one whose headings hold its dataset and metric and whose rows its methods a large one."""
    index = FigureIndex.build(_recommender_paper(), embedder)
    ids = [i.id for i in index.items]
    lone = index.signals(LONE_WORD_QUESTION).structure
    whole = index.signals("Which method is best on Yelp2018 in ndcg@20, LightGCN or NGCF?").structure
    assert lone is not None and whole is not None
    assert 0 < lone[ids.index("table-3")] < STRUCTURE_SPREAD < whole[ids.index("table-3")]
    assert lone[ids.index("figure-3")] == whole[ids.index("figure-3")] == 0.0


def test_a_lone_small_structure_match_is_not_spread_to_a_whole_ones_weight() -> None:
    """Z-scored by its own spread, a table holding a hundredth of the question among items holding
    none got the same boost as one holding most of it; with the least spread it gets a tenth of it."""
    small, whole = np.array([0.0, 0.0, 0.0, 0.01]), np.array([0.0, 0.0, 0.0, 0.8])
    assert zscore(small)[3] == pytest.approx(zscore(whole)[3])
    assert zscore(small, STRUCTURE_SPREAD)[3] < 0.1 * zscore(whole, STRUCTURE_SPREAD)[3]
    assert zscore(whole, STRUCTURE_SPREAD).tolist() == zscore(whole).tolist()


def test_dataset_and_metric_question_ranks_table_first_only_with_the_structure_signal(embedder: Embedder) -> None:
    """Without the structure signal the plot whose axis names the dataset and metric wins (the issue's case)."""
    paper = _recommender_paper()
    question = "Which method is best on Yelp2018 in ndcg@20?"
    without = FigureIndex.build(paper, embedder, FusionConfig(table_structure=0.0)).search(question, k=1)
    assert without[0].item.id != "table-3"
    assert FigureIndex.build(paper, embedder).search(question, k=1)[0].item.id == "table-3"


def test_items_without_structure_leave_the_ranking_as_before(embedder: Embedder) -> None:
    paper = _recommender_paper()
    plain = replace(paper, items=[replace(i, table=None) for i in paper.items])
    question = "Which method is best on Yelp2018 in ndcg@20?"
    signals = FigureIndex.build(plain, embedder).signals(question)
    off = FigureIndex.build(plain, embedder, FusionConfig(table_structure=0.0)).signals(question)
    assert signals.structure is None
    assert signals.fused.tolist() == off.fused.tolist()


def _raster_table_pdf(path: Path) -> Path:
    """A page whose Table 1 is a bitmap (no text layer), its caption above it."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (1000, 420), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=40)
    rows = [("Method", "Yelp2018", "Gowalla"), ("NGCF", "0.0579", "0.1570"), ("LightGCN", "0.0649", "0.1830")]
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            draw.text((40 + c * 330, 30 + r * 95), cell, font=font, fill=0)
    draw.line([(20, 100), (980, 100)], fill=0, width=3)
    png = io.BytesIO()
    image.save(png, format="PNG")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 90), "A study of recommenders", fontsize=16)
    for n, y in enumerate(range(130, 300, 14)):
        page.insert_text((72, y), f"Body text line {n} of the paper describes the experiments in words.", fontsize=10)
    page.insert_text((106, 330), "Table 1: Recall of the methods on the two datasets.", fontsize=10)
    page.insert_image(pymupdf.Rect(106, 340, 506, 508), stream=png.getvalue())
    doc.save(path)
    return path


@needs_tesseract
def test_a_raster_table_is_laid_out_from_its_ocr_words(tmp_path: Path) -> None:
    pdf = _raster_table_pdf(tmp_path / "raster-table.pdf")
    assert extract_paper(pdf).tables[0].table is None  # no text layer: nothing to lay out
    [table] = extract_paper(pdf, settings=get_settings().extraction.with_overrides(ocr_figures=True)).tables
    assert table.table is not None
    assert table.table.header == (("Method", "Yelp2018", "Gowalla"),)
    assert table.table.row_names == ("NGCF", "LightGCN")
    assert ("LightGCN", "0.0649", "0.1830") in table.table.body


def _line(y: float, *cells: tuple[float, str]) -> list[Word]:
    """Words of one printed line: each (x, text) cell's words 5 points a letter, a space of 2."""
    words = []
    for x, text in cells:
        for part in text.split():
            words.append(Word(x, y, x + 5 * len(part), y + 8, part))
            x += 5 * len(part) + 2
    return words


def test_a_footnote_across_the_table_leaves_its_columns_apart() -> None:
    words = [*_line(0, (0, "Cell"), (60, "Stiffness")), *_line(12, (0, "U87"), (60, "789")), *_line(24, (0, "IHA"), (60, "1398")),
             *_line(36, (0, "a No significant difference between cells."))]
    structure = table_structure(words)
    assert structure.column_headings() == ("Cell", "Stiffness")
    assert structure.body[:2] == (("U87", "789"), ("IHA", "1398"))
    assert structure.body[2] == ("a No significant difference between cells.", "")


def test_a_heading_spanning_two_columns_heads_both_and_numbers_printed_as_headings_are_a_header_row() -> None:
    words = [*_line(0, (0, "Dataset"), (75, "AWA-10")), *_line(12, (0, "k"), (70, "1"), (110, "3")),  # AWA-10 centred over both
             *_line(24, (0, "LME"), (60, "36.00"), (100, "52.00")), *_line(36, (0, "ASE"), (60, "64.00"), (100, "88.00"))]
    structure = table_structure(words)
    assert structure.column_headings() == ("Dataset k", "AWA-10 1", "AWA-10 3")
    assert structure.row_names == ("LME", "ASE")


@pytest.mark.parametrize(
    ("grid", "header_rows"),
    [
        ([["Metric", "5%", "10%"], ["PTE", "0.1702", "0.3388"], ["LINE", "0.2245", "0.4629"]], 1),  # shares over results
        ([["Eval", "S1", "S2"], ["SDR", "13.2", "13.4"], ["SIR", "17.8", "18.0"]], 1),
        ([["Model", "Top-1"], ["SIFT", "—"], ["CNN", "40.7%"], ["CNNs", "38.1%"]], 1),  # a dash is no heading
        ([["Model", "Acc", "F1"], ["Random", "50", "50"], ["Ours", "85.3", "81.2"], ["Base", "80.1", "79.9"]], 1),
        ([["Pos.", "Mod.", "Dist.", "Enzyme"], ["2069", "m7G", "23.9", "RlmKL"], ["2503", "m2A", "18.6", "RlmN"]], 1),
    ],
)  # fmt: skip
def test_the_header_ends_at_the_first_row_of_results(grid: list[list[str]], header_rows: int) -> None:
    assert len(grid_structure(grid).header) == header_rows


def test_a_heading_wrapped_over_two_lines_is_read_as_one() -> None:
    words = [*_line(0, (0, "23S rRNA"), (140, "Distance to")), *_line(10, (0, "position"), (60, "Modification"), (140, "A2451 (Å)"), (210, "Enzyme")),
             *_line(22, (0, "2069"), (65, "m7G"), (150, "23.9"), (210, "RlmKL")), *_line(34, (0, "2503"), (65, "m2A"), (150, "18.6"), (210, "RlmN"))]
    assert table_structure(words).column_headings() == ("23S rRNA position", "Modification", "Distance to A2451 (Å)", "Enzyme")
    datasets = [*_line(0, (62, "Yelp"), (142, "Gowalla")), *_line(10, (0, "Method"), (60, "recall"), (100, "ndcg"), (140, "recall"), (180, "ndcg")),
                *_line(22, (0, "NGCF"), (60, "0.0579"), (100, "0.0477"), (140, "0.1570"), (180, "0.1327"))]
    assert table_structure(datasets).column_headings() == ("Method", "Yelp recall", "Yelp ndcg", "Gowalla recall", "Gowalla ndcg")


def test_headings_set_tight_are_read_word_by_word_and_numbers_a_space_after_a_long_name_are_their_own_column() -> None:
    words = [*_line(0, (0, "Architecture"), (104, "Param. GFLOPs Top-1")),  # no gap wider than a space between headings
             *_line(12, (0, "ResNet18"), (104, "11.69M"), (145, "1.814"), (180, "29.60")),
             *_line(24, (0, "ResNet34"), (104, "21.80M"), (145, "3.664"), (180, "26.69")),
             *_line(36, (0, "WideResNet18 + SE [28]"), (104, "11.78M"), (145, "1.814"), (180, "29.41"))]  # a space before 11.78M
    structure = table_structure(words)
    assert structure.column_headings() == ("Architecture", "Param.", "GFLOPs", "Top-1")
    assert structure.body[2] == ("WideResNet18 + SE [28]", "11.78M", "1.814", "29.41")


def test_a_heading_over_group_names_and_a_title_line_stay_whole() -> None:
    groups = [*_line(0, (30, "Model (Base, 16L)"), (150, "BLEU")),  # "Model" over the groups, "(Base, 16L)" over the names
              *_line(12, (0, "post-norm"), (60, "Transformer"), (150, "28.1")), *_line(24, (60, "DLCL"), (150, "28.4")),
              *_line(36, (60, "Big"), (150, "28.9")), *_line(48, (0, "pre-norm"), (60, "Transformer"), (150, "28.0")),
              *_line(60, (60, "DLCL"), (150, "28.2")), *_line(72, (60, "Big"), (150, "29.0"))]
    assert table_structure(groups).header[0] == ("Model (Base, 16L)", "", "BLEU")
    title = [*_line(0, (0, "System"), (100, "Dev"), (140, "Test")), *_line(12, (20, "Top Systems (Dec 10th, 2018)")),
             *_line(24, (0, "Human"), (100, "82.3"), (140, "91.2")), *_line(36, (0, "Ensemble"), (100, "86.0"), (140, "91.7"))]
    assert table_grid(title)[1] == ["Top Systems (Dec 10th, 2018)", "", ""]


def test_a_table_as_wide_as_the_text_beside_its_caption_in_the_first_column_is_found(shared: Path, tmp_path: Path) -> None:
    # Springer's layout: "Table 1 | Source of reagents and antibodies" in the left column's margin, the table right of it across both columns.
    paper = extract_paper(shared / "papers" / "litqa" / "10.1007_s00125-024-06103-w.pdf", image_dir=tmp_path, dpi=72)
    table = next(i for i in paper.items if i.kind == "table")
    assert (table.number, table.page) == ("1", 3)
    assert table.table is not None
    assert (table.table.body[3][0], table.table.body[3][-1]) == ("Diazoxide", "Sigma-Aldrich, UK")


def test_a_five_in_a_symbol_font_between_two_numbers_is_a_plus_minus() -> None:
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((100, 100), "1398 ", fontname="helv", fontsize=8)  # the PDF maps the symbol font's "±" to "5"
        page.insert_text((122, 100), "5", fontname="symb", fontsize=8)
        page.insert_text((128, 100), " 428", fontname="helv", fontsize=8)
        page.insert_text((100, 120), "1398 5 428", fontname="helv", fontsize=8)  # a 5 in the numbers' own font is a number
        assert [w.text for w in page_words(page)] == ["1398", "\u00b1", "428", "1398", "5", "428"]


def test_a_table_of_text_with_a_heading_over_two_columns_has_their_sub_headings_as_a_second_header_row() -> None:
    grid = [["X", "Optimization Domain", "", "Cost"], ["", "Atoms", "Domain", "Complexity"],
            ["Rn", "Sparse vectors", "l1-ball", "O(n)"], ["Rn", "Sign-vectors", "linf-ball", "O(n)"]]
    assert len(grid_structure(grid).header) == 2
    assert len(grid_structure([["Gene", "Location"], ["PLSCR1", "chr3"], ["PLSCR2", "chr3"]]).header) == 1


def test_a_row_of_prose_across_columns_leaves_them_apart_and_is_one_cell() -> None:
    words = [*_line(0, (0, "Model"), (60, "N"), (90, "dk"), (120, "BLEU")), *_line(12, (0, "base"), (60, "6"), (90, "64"), (120, "25.8")),
             *_line(24, (0, "big"), (60, "6"), (90, "128"), (120, "26.4")), *_line(36, (0, "small"), (60, "2"), (90, "32"), (120, "23.0")),
             *_line(48, (0, "(E)"), (55, "as in base"), (120, "25.7"))]  # "as in base" crosses the gap between N and dk
    structure = table_structure(words)
    assert structure.column_headings() == ("Model", "N", "dk", "BLEU")
    assert structure.body[0] == ("base", "6", "64", "25.8")
    assert structure.body[3] == ("(E)", "as in base", "", "25.7")


def test_two_columns_of_values_set_a_space_apart_are_two_columns() -> None:
    words = [*_line(0, (0, "Method"), (50, "w2v"), (80, "glo")), *_line(12, (0, "Akata"), (50, "33.90 30.34")),
             *_line(24, (0, "SCoRe"), (50, "26.38"), (81, "-")), *_line(36, (0, "Ours"), (50, "36.77 36.82"))]
    structure = table_structure(words)
    assert structure.column_headings() == ("Method", "w2v", "glo")
    assert structure.body == (("Akata", "33.90", "30.34"), ("SCoRe", "26.38", "-"), ("Ours", "36.77", "36.82"))
    spread = [*_line(0, (0, "Method"), (50, "Acc")), *_line(12, (0, "A"), (50, "12.3 ± 0.4")), *_line(24, (0, "B"), (50, "11.9 ± 0.2"))]
    assert table_structure(spread).body == (("A", "12.3 ± 0.4"), ("B", "11.9 ± 0.2"))
    grouped = [*_line(0, (0, "Dataset"), (50, "Users")), *_line(12, (0, "Yelp"), (50, "52 643")), *_line(24, (0, "Gowalla"), (50, "29 858"))]
    assert table_structure(grouped).body == (("Yelp", "52 643"), ("Gowalla", "29 858"))


def test_columns_a_few_spaces_apart_in_a_table_of_words_are_apart() -> None:
    # The gap between "Catalogue no." and "Concentration" is under a word's height but three spaces wide.
    words = [*_line(0, (0, "Reagent"), (60, "Catalogue no."), (128, "Concentration and buffer")),
             *_line(12, (0, "Diazoxide"), (60, "D9035"), (128, "NA")), *_line(24, (0, "IgG"), (60, "A112-036"), (128, "0.8 mg/ml in PBS")),
             *_line(36, (0, "Tubulin"), (60, "T2144"), (128, "29 μg/ml in PBS"))]
    structure = table_structure(words)
    assert structure.column_headings() == ("Reagent", "Catalogue no.", "Concentration and buffer")
    assert structure.body[1] == ("IgG", "A112-036", "0.8 mg/ml in PBS")


def test_headings_wrapped_over_more_than_three_lines_beside_one_row_name_are_the_header() -> None:
    grid = [["", "ZSD", "", "ZST", ""], ["Network", "", "", "", ""], ["", "Ours", "Ours", "Ours", "Ours"], ["", "(a)", "(b)", "(a)", "(b)"],
            ["R+w2v", "12.7", "15.0", "23.3", "27.5"], ["V+glo", "9.0", "10.8", "20.3", "22.9"]]
    assert len(grid_structure(grid).header) == 4
    late = [["Model", "Path-X"], ["Transformer", ""], ["Linformer", ""], ["Reformer", ""], ["Performer", ""], ["FlashAttention", "61.4"]]
    assert len(grid_structure(late).header) == 1  # rows whose numbers are not reported name themselves: a body


def test_a_lone_digit_in_a_font_that_prints_no_other_digit_between_two_numbers_is_a_plus_minus() -> None:
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((100, 100), "39.2 ", fontname="helv", fontsize=8)
        page.insert_text((118, 100), "6", fontname="symb", fontsize=8)  # another journal maps the "±" to "6"
        page.insert_text((124, 100), " 3", fontname="helv", fontsize=8)
        bold = doc.new_page()
        bold.insert_text((100, 100), "12 ", fontname="helv", fontsize=8)
        bold.insert_text((112, 100), "3", fontname="hebo", fontsize=8)  # a bold best value: its font prints other numbers
        bold.insert_text((118, 100), " 45", fontname="helv", fontsize=8)
        bold.insert_text((100, 120), "3.75", fontname="hebo", fontsize=8)
        assert [w.text for w in page_words(doc[0])] == ["39.2", "\u00b1", "3"]
        assert [w.text for w in page_words(doc[1])][:3] == ["12", "3", "45"]
