"""Across papers by value (issue 29): a question that picks a table row by a superlative over a
column reads that column, among the rows of the block it names, and the paper the winning row cites
ranks first. On hand-made tables (printed lines, and a parsed structure) and on real anchors from
shared/papers whose tables cite a paper per row. No embedder, no network."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spiqa_demo.crosspaper.paper_references import rank_references
from spiqa_demo.crosspaper.ranking import CitationRanker
from spiqa_demo.crosspaper.rows import lower_is_better, parse_table, pointed_rows, structure_table
from spiqa_demo.crosspaper.types import AnchorFigure, CitedCandidate
from spiqa_demo.extraction import load_paper
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Paper, TableStructure

# Blocks by backbone, printed as a line of their own; the lowest error overall is in the other block.
BLOCKS = """Method top-1 top-5
ResNet-50
Baseline [3] 24.1 7.5
SE [5] 23.2 6.9
NL [9] 21.5 6.0
Ours 21.0 5.8
ResNet-101
Baseline [3] 23.4 6.9
SE [5] 22.4 6.2
GC [7] 22.1 6.1
Ours 21.8 5.9"""

CANDIDATES = [
    CitedCandidate("a" * 16, "Deep Residual Learning for Image Recognition", key="[3]"),
    CitedCandidate("b" * 16, "Squeeze-and-Excitation Networks", key="[5]"),
    CitedCandidate("c" * 16, "GCNet: Non-local Networks Meet Squeeze-Excitation Networks and Beyond", key="[7]"),
    CitedCandidate("d" * 16, "Non-local Neural Networks", key="[9]"),
    CitedCandidate("e" * 16, "Adam: A Method for Stochastic Optimization", key="[11]"),
]


def _picked(question: str, text: str = BLOCKS) -> list[str]:
    table = parse_table(text)
    return [row.name for row, weight in zip(table.rows, pointed_rows(question, table)) if weight]


@pytest.mark.parametrize(("question", "row"), [
    ("Which cited paper gives the lowest ResNet-101 top-1 error?", "GC [7]"),
    ("Which cited paper gives the lowest top-1 error?", "NL [9]"),  # no block named: all rows
    ("Which cited paper gives the highest top-5 error with ResNet-50?", "Baseline [3]"),
])
def test_a_superlative_reads_the_named_column_in_the_named_block_among_cited_rows(question: str, row: str) -> None:
    assert _picked(question) == [row]


def test_better_low_is_read_from_the_headings_words() -> None:
    assert all(lower_is_better(h) for h in ("top-1 err.", "Top-1 Error (%)", "MAE ↓", "Params (M)", "Latency (ms)", "GFLOPs", "PPL"))
    assert not any(lower_is_better(h) for h in ("Top-1 Acc (%)", "mAP", "BLEU", "F-measure↑", "Error ↑"))


def test_the_paper_the_winning_row_cites_ranks_first() -> None:
    ranker = CitationRanker()
    for question, gold in [
        ("Which cited paper gives the lowest ResNet-101 top-1 error?", "c"),
        ("Which cited paper gives the lowest top-1 error?", "d"),
    ]:
        ranking = ranker.rank(question, AnchorFigure(text=BLOCKS), CANDIDATES)
        assert ranking.ranked[0].candidate.id == gold * 16, (question, [(r.candidate.key, r.signals) for r in ranking.ranked])


def test_a_parsed_structure_gives_the_columns_by_their_headings() -> None:
    structure = TableStructure(
        header=(("Method", "Params", "Top-1 Acc (%)", "Top-1 Error (%)"),),
        body=(("ResNet-50", "", "", ""), ("PNAS [5]", "5.1M", "72.7", "27.3"), ("DARTS [7]", "4.7M", "73.3", "26.7"),
              ("ResNet-101", "", "", ""), ("MNasNet [3]", "5.2M", "76.7", "23.3"), ("GC [7] + Ours", "5.4M", "76.9", "23.1")),
    )
    table = structure_table(structure)
    assert [(row.cites, row.section) for row in table.rows] == [(("5",), "ResNet-50"), (("7",), "ResNet-50"), (("3",), "ResNet-101"), ((), "ResNet-101")]
    anchor = AnchorFigure(text="", table=structure)
    ranker = CitationRanker()
    for question, key in [
        ("Which compared method has the best Top-1 Acc?", "[3]"),
        ("Which cited model has the fewest parameters?", "[7]"),
        ("Which cited paper gives the best top-1 error with ResNet-50?", "[7]"),  # an error is best low
    ]:
        assert ranker.rank(question, anchor, CANDIDATES).ranked[0].candidate.key == key, question


@pytest.fixture(scope="module")
def anchors(shared: Path) -> dict[str, Paper]:
    names = ("cbam-eccv2018.pdf", "resnet-1512.03385.pdf")
    return {name.split("-")[0]: load_paper(shared / "papers" / name, get_settings().extraction) for name in names}


@pytest.mark.parametrize(("paper", "label", "question", "key"), [
    # Table 4 prints blocks per backbone: "ResNet101 [5]", "ResNet101 [5] + SE [28]", "ResNet101 [5] + CBAM" (the paper's own).
    ("cbam", "Table 4", "Which cited paper gives the lowest ResNet101 top-1 error in Table 4?", "28"),
    ("cbam", "Table 4", "Which cited paper gives the highest ResNeXt50 top-5 error in Table 4?", "7"),
    # Rows without a citation ("ResNet-34 B") are the paper's own; PReLU-net [13] has the lowest cited top-5 error.
    ("resnet", "Table 4", "Which cited method has the lowest top-5 error in Table 4?", "13"),
    ("resnet", "Table 4", "Which cited paper has the highest top-1 error in Table 4?", "41"),
])
def test_on_a_real_anchor_the_winning_rows_paper_ranks_first(anchors: dict[str, Paper], paper: str, label: str, question: str, key: str) -> None:
    anchor = anchors[paper]
    item = next(i for i in anchor.items if i.title == label)
    ranking = rank_references(question, anchor, item)
    assert re.sub(r"\D", "", ranking.ranked[0].reference.key) == key, [r.reference.key for r in ranking.ranked[:5]]
