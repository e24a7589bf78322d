"""The one typed model every SPIQA split is normalised into.

`SpiqaDataset` -> `SpiqaPaper` (figures by file name, questions, passages) -> `SpiqaQuestion`
(ground-truth answer and reference figure files). Loaders (`spiqa_demo.evaluation.spiqa.loaders`) build it
from test-A/train/val, test-B and test-C files; metrics, evaluation and retrieval benchmarks read
only these classes, never the raw JSON.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from spiqa_demo.evaluation.spiqa.figure_types import FigureType
from spiqa_demo.paper_text import normalise_arxiv_id

Shape = Literal["test-A", "test-B", "test-C", "test-C-derived"]


@dataclass
class SpiqaFigure:
    """One figure or table image of a SPIQA paper."""

    file: str  # the key SPIQA uses, folder prefix included ("abc/4-Figure2-1.png")
    caption: str
    kind: Literal["figure", "table"]  # as printed (from the file name), even if it looks like the other
    number: str  # normalised from the file name ("2" for TableII); "" when the name is unusual
    page: int | None  # page hint from the file name (test-B/test-C), else None
    figure_type: FigureType  # SPIQA Table 6 category; test-C has no labels: tables "table", figures "other"

    @property
    def label(self) -> str:
        """"Figure 3" / "Table 2" as a reader would name it ("" when the number is unknown)."""
        return f"{self.kind.capitalize()} {self.number}" if self.number else ""


@dataclass
class SpiqaQuestion:
    """A question with its ground truth: the answer and the figure file(s) that support it."""

    key: str  # stable within the paper: SPIQA's question_key, or the question's index
    question: str
    answer: str  # "" when the file gives none (e.g. an unanswerable test-C question)
    references: list[str]  # figure files, duplicates removed, order kept
    explanation: str = ""  # test-A/train/val rationale
    question_type: str = ""  # test-B ("Shallow question", ...)


@dataclass
class SpiqaPaper:
    """A SPIQA paper: its figures (by file), questions and, where the split has it, its text."""

    paper_id: str  # arXiv id without version ("1611.05742")
    source_id: str  # the key in the SPIQA file ("1611.05742v3", "1804.06655")
    title: str
    figures: dict[str, SpiqaFigure]
    questions: list[SpiqaQuestion]
    passages: list[str] = field(default_factory=list)  # test-B passages / test-C full text paragraphs
    split: str = ""

    def figure(self, file: str) -> SpiqaFigure | None:
        """The figure with this file name; also found by base name when folders differ."""
        if file in self.figures:
            return self.figures[file]
        base = file.rsplit("/", 1)[-1]
        return next((f for name, f in self.figures.items() if name.rsplit("/", 1)[-1] == base), None)


@dataclass
class SpiqaDataset:
    """A loaded SPIQA file: its split name, detected shape and papers in file order."""

    split: str  # "test-A", "test-B", "test-C", "train", "val", or the caller's name
    shape: Shape
    papers: list[SpiqaPaper]
    source: str = ""  # the file it was read from
    warnings: list[str] = field(default_factory=list)  # entries skipped or repaired while loading

    def __len__(self) -> int:
        return len(self.papers)

    def paper(self, paper_id: str) -> SpiqaPaper | None:
        """The paper with this arXiv id (version optional) or source key."""
        wanted = normalise_arxiv_id(paper_id) or paper_id
        return next((p for p in self.papers if p.paper_id == wanted or p.source_id == paper_id), None)

    def questions(self) -> Iterator[tuple[SpiqaPaper, SpiqaQuestion]]:
        """Every (paper, question) pair in file order."""
        for paper in self.papers:
            for question in paper.questions:
                yield paper, question

    @property
    def question_count(self) -> int:
        return sum(len(p.questions) for p in self.papers)
