"""The result type of every search: one ranked item with the scores that explain its rank."""

from __future__ import annotations

from dataclasses import dataclass

from spiqa_demo.types import Figure


@dataclass(frozen=True)
class Hit:
    """A retrieved figure/table.

    `score` is the fused score that orders hits; `dense` (cosine, -1..1), `bm25` (raw BM25) and
    `label` (the question names this item) are the signals behind it, `prior` the kind prior
    added from the question's wording. `paper` is the paper key in corpus searches, else "".
    """

    item: Figure
    rank: int
    score: float
    dense: float
    bm25: float
    label: bool
    prior: float = 0.0
    paper: str = ""

    def explain(self) -> str:
        """One line for people: "Table 3  score 2.41 (dense 0.62, bm25 7.1, label match)"."""
        parts = [f"dense {self.dense:.2f}", f"bm25 {self.bm25:.1f}"]
        if self.prior:
            parts.append(f"kind prior {self.prior:+.1f}")
        if self.label:
            parts.append("label match")
        return f"{self.item.title}  score {self.score:.2f} ({', '.join(parts)})"
