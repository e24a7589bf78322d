"""The result types of searches: a ranked figure/table with the scores that explain its rank, and a
ranked passage."""

from __future__ import annotations

from dataclasses import dataclass

from spiqa_demo.types import Figure, Passage, RetrievalScores


@dataclass(frozen=True)
class Hit:
    """A retrieved figure/table.

    `score` is the fused score that orders hits; `scores` are the signals behind it (QA and the UI
    carry them on with the item).
    """

    item: Figure
    rank: int
    score: float
    scores: RetrievalScores

    def explain(self) -> str:
        """One line for people: "Table 3  score 2.41 (dense 0.62, bm25 7.1, label match)"."""
        scores = self.scores
        parts = [f"dense {scores.dense:.2f}", f"bm25 {scores.bm25:.1f}"]
        if scores.prior:
            parts.append(f"kind prior {scores.prior:+.1f}")
        if scores.table:
            parts.append(f"table match {scores.table:.1f}")
        if scores.label:
            parts.append("label match")
        return f"{self.item.title}  score {self.score:.2f} ({', '.join(parts)})"


@dataclass(frozen=True)
class PassageHit:
    """A retrieved paragraph of body text: `paper` is its paper key, `score` its BM25 score."""

    passage: Passage
    paper: str
    rank: int
    score: float
