"""Words inside figures and the table row a question points at.

RapidOCR runs for real on small images the tests draw (its models ship in its wheel); the row
cues are checked on hand-made table text and on OCR boxes built by hand, and through the ranker
with hand-made candidates (no embedder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evalsuite.drawn_text import draw_lines
from spiqa_demo.crosspaper import ocr
from spiqa_demo.crosspaper.ranking import CitationRanker
from spiqa_demo.crosspaper.rows import parse_table, pointed_names, pointed_rows
from spiqa_demo.crosspaper.types import AnchorFigure, CitedCandidate
from spiqa_demo.errors import InputError
from spiqa_demo.extraction.ocr import OcrWord, RapidOcr, TextBox, boxes_to_words, find_engine, words_text

TABLE = """Results on MOSI and MOSEI
Method Acc-7 Acc-5 MAE
TFN* (Zadeh et al., 2017) 34.9 - 0.901
LMF* 33.2 - 0.917
MulT 40.0 42.68 0.871
Self-MM† 45.79 53.47 0.712
ALMT (ours) 49.42 56.41 0.683"""

CANDIDATES = [
    CitedCandidate("a" * 40, "Tensor Fusion Network for Multimodal Sentiment Analysis", "We introduce the Tensor Fusion Network (TFN)."),
    CitedCandidate("b" * 40, "Efficient Low-rank Multimodal Fusion with Modality-Specific Factors", "Low-rank Multimodal Fusion (LMF)."),
    CitedCandidate("c" * 40, "Multimodal Transformer for Unaligned Multimodal Language Sequences", "The Multimodal Transformer (MulT)."),
    CitedCandidate("d" * 40, "Learning Modality-Specific Representations with Self-Supervised Multi-Task Learning", "Self-MM learns."),
    *(CitedCandidate(str(n) * 40, title) for n, title in enumerate(["Visualizing Data using t-SNE", "Adam: A Method for Stochastic Optimization",
                                                                     "Deep Residual Learning for Image Recognition", "Layer Normalization"])),
]


def _pointed(question: str, text: str = TABLE) -> list[str]:
    table = parse_table(text)
    return [row.label for row, weight in zip(table.rows, pointed_rows(question, table)) if weight]


def test_rows_are_lines_with_a_name_then_values_and_the_header_is_above() -> None:
    table = parse_table(TABLE)
    assert [row.label for row in table.rows] == ["TFN", "LMF", "MulT", "Self MM", "ALMT (ours)"]
    assert table.rows[0].values == ("34.9", "-", "0.901")  # the citation's year is part of the name
    assert [t.text for t in table.header[1]] == ["Method", "Acc-7", "Acc-5", "MAE"]
    assert parse_table("Figure 3: accuracy rises with data\nLLaMA-7B Alpaca StarCoder").rows == ()


@pytest.mark.parametrize(
    ("question", "rows"),
    [
        ("Which method exhibits a score of 34.9 in the Acc-7 metric?", ["TFN"]),
        ("Which method corresponds to the first row of the table?", ["TFN"]),
        ("Which method is shown on the penultimate line of the table?", ["Self MM"]),
        ("Which model is placed third in the table?", ["MulT"]),
        ("Which method is placed directly above MulT in the table?", ["LMF"]),
        ("Which method has a lower Acc-7 than MulT but higher than TFN?", ["LMF"]),
        ("Which method has the highest Acc-7 score?", ["Self MM"]),  # "ours" is the citing paper's own
        ("Which method has the second lowest Acc-7 score?", ["TFN"]),
        ("Which method has the best MAE?", ["Self MM"]),  # lower is better for an error
        ("Which method is discussed in the paper?", []),
    ],
)
def test_a_question_points_at_a_row_by_value_place_neighbours_or_rank(question: str, rows: list[str]) -> None:
    assert _pointed(question) == rows


def _word(text: str, left: float, top: float, line: int) -> OcrWord:
    return OcrWord(text, (left, top, left + 10.0 * len(text), top + 20.0), 90.0, 1, 1, line)


def test_with_boxes_a_column_is_the_cells_under_its_header_word() -> None:
    # Row 2 has no Acc-5 value: by position alone its MAE would be read as its Acc-5.
    words = [
        _word("MOSI", 200, 0, 1), _word("CH-SIMS", 400, 0, 1),
        _word("Method", 0, 30, 2), _word("Acc-5", 200, 30, 2), _word("MAE", 300, 30, 2), _word("Acc-5", 400, 30, 2),
        _word("TFN", 0, 60, 3), _word("44.2", 200, 60, 3), _word("0.90", 300, 60, 3), _word("41.0", 400, 60, 3),
        _word("LMF", 0, 90, 4), _word("0.95", 300, 90, 4), _word("47.5", 400, 90, 4),
        _word("MulT", 0, 120, 5), _word("43.1", 200, 120, 5), _word("0.85", 300, 120, 5), _word("45.2", 400, 120, 5),
    ]
    table = parse_table(words_text(words), words)
    highest = pointed_rows("Which method has the highest Acc-5 on MOSI?", table)
    assert [row.label for row, w in zip(table.rows, highest) if w] == ["TFN"]
    on_sims = pointed_rows("Which method has the highest Acc-5 on CH-SIMS?", table)
    assert [row.label for row, w in zip(table.rows, on_sims) if w] == ["LMF"]


def test_a_value_in_a_row_the_question_names_points_at_the_header_over_it() -> None:
    # Datasets as rows, methods as columns: "61.2 on BoolQ" names the method over 61.2.
    words = [
        _word("Dataset", 0, 0, 1), _word("PT", 200, 0, 1), _word("SPoT", 300, 0, 1), _word("MPT", 400, 0, 1),
        _word("BoolQ", 0, 30, 2), _word("55.8", 200, 30, 2), _word("61.2", 300, 30, 2), _word("62.2", 400, 30, 2),
        _word("CB", 0, 60, 3), _word("65.4", 200, 60, 3), _word("71.4", 300, 60, 3), _word("73.6", 400, 60, 3),
    ]
    table = parse_table(words_text(words), words)
    assert pointed_names("Which method has a score of 61.2 in the BoolQ dataset?", table) == [("SPoT", 1.0)]
    assert pointed_names("Which dataset has a PT score of 65.4?", table) == [("CB", 1.0)]


def test_the_ranker_puts_the_pointed_rows_paper_first() -> None:
    ranker = CitationRanker()
    for question, gold in [
        ("Which method exhibits a score of 34.9 in the Acc-7 metric?", "a"),
        ("Which method has the highest Acc-5 score?", "d"),  # Self-MM†: the ranker matches Self-MM
        ("Which method is placed directly above MulT in the table?", "b"),
    ]:
        ranking = ranker.rank(question, AnchorFigure(text=TABLE), CANDIDATES)
        assert ranking.ranked[0].candidate.id == gold * 40, (question, [(r.candidate.title[:20], r.signals) for r in ranking.ranked])
        assert ranking.ranked[0].signals.question_rows > 0


def test_text_boxes_become_words_in_printed_lines() -> None:
    boxes = [
        TextBox("0.901", (300, 62, 360, 80), 99.0), TextBox("Tensor Fusion", (0, 60, 130, 82), 98.0),
        TextBox("Method", (0, 10, 70, 30), 97.0), TextBox("MAE", (300, 12, 340, 29), 96.0),
    ]
    words = boxes_to_words(boxes, scale=0.5, origin=(10.0, 20.0))
    assert words_text(words) == "Method MAE\nTensor Fusion 0.901"
    tensor, fusion = words[2], words[3]
    assert (tensor.text, fusion.text) == ("Tensor", "Fusion")
    assert tensor.bbox[0] == 10.0 and tensor.bbox[2] < fusion.bbox[0] <= 10.0 + 65.0
    assert tensor.bbox[1] == 20.0 + 30.0


def _drawn(path: Path, lines: list[str]) -> Path:
    return draw_lines(path, lines, width=640, line_px=56, font_px=34, left=20, top=15)


def test_rapidocr_reads_a_drawn_table_into_rows_and_caches_it(tmp_path: Path) -> None:
    engine = find_engine("rapidocr", "eng")
    assert isinstance(engine, RapidOcr), engine  # pinned in requirements: it must load, offline
    image = _drawn(tmp_path / "table.png", ["Method    Acc-7", "TFN        34.9", "StarCoder  41.2"])
    reading = ocr.FigureReading("rapidocr", cache_dir=tmp_path / "ocr")
    words = ocr.ocr_words(image, reading)
    text = words_text(words)
    assert [row.label for row in parse_table(text, words).rows] == ["TFN", "StarCoder"], text
    assert all(w.bbox[2] <= 640 and w.bbox[3] <= 56 * 3 + 30 for w in words)  # boxes in image pixels
    (cached,) = (tmp_path / "ocr").glob("*-rapidocr-*.json")
    again = ocr.ocr_words(image, reading)  # from the cache
    assert [(w.text, w.bbox, w.line) for w in again] == [(w.text, w.bbox, w.line) for w in words]
    assert ocr.image_key(image, ocr.FigureReading("tesseract")) != ocr.image_key(image, reading)
    assert cached.is_file()


def test_an_unreadable_image_is_a_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not an image")
    with pytest.raises(InputError, match="cannot be read by OCR"):
        ocr.ocr_words(broken, ocr.FigureReading("rapidocr"))
