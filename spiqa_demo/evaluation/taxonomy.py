"""SPIQA's error taxonomy: did the model pick the right figure, and did it answer right?

CoT replies name the figure the model chose, and the files name the ground-truth figures, so every
question falls in one cell of a two-by-two table: right figure and right answer; right figure but a
wrong answer (a reasoning or reading error); wrong figure but a right answer; wrong figure and a
wrong answer (a retrieval error). The SPIQA paper discusses this table in prose; here it is counted
per model and per figure type. Answers whose figure cannot be told (a run that picks none) are
counted apart, so the cells always sum to the questions where it can.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

Cell = Literal["right_figure_right_answer", "right_figure_wrong_answer", "wrong_figure_right_answer", "wrong_figure_wrong_answer"]
CELLS: tuple[Cell, ...] = ("right_figure_right_answer", "right_figure_wrong_answer", "wrong_figure_right_answer",
                           "wrong_figure_wrong_answer")
CELL_NAMES: dict[Cell, str] = {
    "right_figure_right_answer": "right figure, right answer",
    "right_figure_wrong_answer": "right figure, wrong answer (reasoning)",
    "wrong_figure_right_answer": "wrong figure, right answer",
    "wrong_figure_wrong_answer": "wrong figure, wrong answer (retrieval)",
}
CELL_SHORT: dict[Cell, str] = {  # for chart axes
    "right_figure_right_answer": "figure ✓ answer ✓",
    "right_figure_wrong_answer": "figure ✓ answer ✗",
    "wrong_figure_right_answer": "figure ✗ answer ✓",
    "wrong_figure_wrong_answer": "figure ✗ answer ✗",
}
UNKNOWN_TYPE = "unknown"


def cell(figure_right: bool | None, answer_right: bool) -> Cell | None:
    """The taxonomy cell of one answer; None when the chosen figure cannot be told."""
    if figure_right is None:
        return None
    return CELLS[(0 if figure_right else 2) + (0 if answer_right else 1)]


@dataclass
class Taxonomy:
    """Counts per cell, overall and per figure type, and the answers whose figure cannot be told."""

    counts: dict[Cell, int] = field(default_factory=lambda: dict.fromkeys(CELLS, 0))
    by_figure_type: dict[str, dict[Cell, int]] = field(default_factory=dict)
    figure_unknown: int = 0

    @property
    def told(self) -> int:
        return sum(self.counts.values())

    def to_dict(self) -> dict[str, int]:
        """The four counts by cell name (the `compare --json` object's `taxonomy`)."""
        return {name: count for name, count in self.counts.items()}


def taxonomy(figure_right: Sequence[bool | None], answer_right: Sequence[bool], figure_types: Sequence[str]) -> Taxonomy:
    """The taxonomy of a file's answers: per answer, whether its figure and its answer are right, and its figure's type."""
    result = Taxonomy()
    for figure, answer, kind in zip(figure_right, answer_right, figure_types, strict=True):
        found = cell(figure, answer)
        if found is None:
            result.figure_unknown += 1
            continue
        result.counts[found] += 1
        result.by_figure_type.setdefault(kind or UNKNOWN_TYPE, dict.fromkeys(CELLS, 0))[found] += 1
    return result
