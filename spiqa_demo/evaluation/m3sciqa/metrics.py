"""M3SciQA stage-1 scores, as its evaluation defines them (one relevant paper per question).

With r the 1-based rank of the gold paper in the returned list (None when absent):
RR = 1/r (0 if absent); Recall@k = 1[r <= k]; nDCG@k = 1/log2(r + 1) if r <= k else 0 (IDCG = 1).
Each is averaged over questions. The random baseline is the exact expectation of each score under
a uniformly random order of the whole cluster.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

KS = (1, 3, 5)
NDCG_K = 3


def reciprocal_rank(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / rank


def recall_at(rank: int | None, k: int) -> float:
    return float(rank is not None and rank <= k)


def ndcg_at(rank: int | None, k: int) -> float:
    return 1.0 / math.log2(rank + 1) if rank is not None and rank <= k else 0.0


@dataclass(frozen=True)
class Scores:
    """Mean scores over `questions` questions."""

    questions: int
    mrr: float
    recall: dict[int, float]
    ndcg3: float

    def as_dict(self, prefix: str = "") -> dict[str, float | int]:
        out: dict[str, float | int] = {f"{prefix}mrr": round(self.mrr, 4)}
        out.update({f"{prefix}recall@{k}": round(v, 4) for k, v in self.recall.items()})
        out[f"{prefix}ndcg@{NDCG_K}"] = round(self.ndcg3, 4)
        return out


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def score_ranks(ranks: Iterable[int | None]) -> Scores:
    """Scores of the gold ranks of a set of questions."""
    ranks = list(ranks)
    return Scores(
        questions=len(ranks),
        mrr=_mean([reciprocal_rank(r) for r in ranks]),
        recall={k: _mean([recall_at(r, k) for r in ranks]) for k in KS},
        ndcg3=_mean([ndcg_at(r, NDCG_K) for r in ranks]),
    )


def expected_random(cluster_sizes: Iterable[int]) -> Scores:
    """The expected scores of a uniformly random ranking of clusters of these sizes."""
    sizes = list(cluster_sizes)

    def expect(score: Callable[[int], float], n: int) -> float:
        return sum(score(r) for r in range(1, n + 1)) / n

    return Scores(
        questions=len(sizes),
        mrr=_mean([expect(reciprocal_rank, n) for n in sizes]),
        recall={k: _mean([expect(partial(recall_at, k=k), n) for n in sizes]) for k in KS},
        ndcg3=_mean([expect(partial(ndcg_at, k=NDCG_K), n) for n in sizes]),
    )
