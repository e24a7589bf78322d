"""`PassageIndex`: BM25 over the body-text paragraphs of many papers, searched whole or per paper.

A question across papers is answered by paragraphs of the cited papers rather than by a figure.
Passages are matched lexically only: embedding every paragraph of ten papers costs more than
extracting them, and a paragraph's own words (method names, datasets, numbers) are what BM25
matches well. BM25 statistics are those of all the indexed papers together.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from retrieval.hits import PassageHit
from retrieval.lexical import BM25Index
from retrieval.paper_rows import PaperRows
from spiqa_demo.types import Passage


class PassageIndex:
    """The passages of many papers; `keys[i]` is the paper key of `passages[i]`."""

    def __init__(self, papers: Sequence[str], keys: Sequence[str], passages: Sequence[Passage]) -> None:
        self.keys = list(keys)
        self.passages = list(passages)
        self._rows = PaperRows(papers, self.keys)
        self._bm25 = BM25Index([" ".join(p.text.split()) for p in self.passages])

    def __len__(self) -> int:
        return len(self.passages)

    def search(self, question: str, k: int, papers: Iterable[str] | None = None) -> list[PassageHit]:
        """The `k` passages that share most with `question` (BM25 > 0), over all papers or `papers` only."""
        scores = self._bm25.scores(question)
        chosen = np.arange(len(self.passages)) if papers is None else self._rows.rows(papers)
        chosen = chosen[scores[chosen] > 0]
        best = chosen[np.argsort(-scores[chosen], kind="stable")[:k]]
        return [
            PassageHit(passage=self.passages[i], paper=self.keys[i], rank=rank, score=float(scores[i]))
            for rank, i in enumerate(best.tolist(), start=1)
        ]
