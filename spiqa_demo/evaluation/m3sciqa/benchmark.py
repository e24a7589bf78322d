"""The M3SciQA stage-1 benchmark: rank every locality question's whole cluster and score it.

Rows: overall, per modal (figure/table) and per reasoning type, beside the file-order baseline
(the stored order, which leaks the answer) and the expected score of a random order. The ablation
scores each signal alone, the fusion without each signal, and the fusion; weights chosen on a
grid are also scored by anchor-level cross-validation (weights picked on the other anchors'
questions), which is what unseen anchors can expect.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from spiqa_demo.crosspaper.ocr import FigureReading, find_engine
from spiqa_demo.crosspaper.ranking import FUSED, CitationRanker, RankWeights, RawSignals, fuse, ordering
from spiqa_demo.crosspaper.types import AnchorFigure, CandidateRanking
from spiqa_demo.evaluation.m3sciqa.combined import CombinedQuestion
from spiqa_demo.evaluation.m3sciqa.data import LocalityData, LocalityQuestion
from spiqa_demo.evaluation.m3sciqa.metrics import Scores, expected_random, score_ranks
from spiqa_demo.settings import Settings

Ranker = Callable[[LocalityQuestion], CandidateRanking]


@dataclass
class BenchmarkReport:
    questions: list[LocalityQuestion]
    ranks: list[int | None]
    file_order_ranks: list[int | None]
    cluster_sizes: list[int]
    seconds: float
    notes: list[str] = field(default_factory=list)

    def _rows(self) -> list[tuple[str, list[int]]]:
        rows = [("all", list(range(len(self.questions))))]
        for attr in ("modal", "reasoning_type"):
            for value in sorted({getattr(q, attr) for q in self.questions}):
                rows.append((f"{attr.replace('_', ' ')}={value}", [i for i, q in enumerate(self.questions) if getattr(q, attr) == value]))
        return rows

    def scores(self) -> Scores:
        return score_ranks(self.ranks)

    def table(self) -> str:
        head = f"{'rows':34s} {'n':>4s} {'MRR':>6s} {'R@1':>6s} {'R@3':>6s} {'R@5':>6s} {'nDCG@3':>7s} | {'file MRR':>8s} {'rand MRR':>8s}"
        lines = [head, "-" * len(head)]
        for name, idx in self._rows():
            s = score_ranks(self.ranks[i] for i in idx)
            f = score_ranks(self.file_order_ranks[i] for i in idx)
            r = expected_random(self.cluster_sizes[i] for i in idx)
            lines.append(
                f"{name:34s} {s.questions:4d} {s.mrr:6.3f} {s.recall[1]:6.3f} {s.recall[3]:6.3f} {s.recall[5]:6.3f} "
                f"{s.ndcg3:7.3f} | {f.mrr:8.3f} {r.mrr:8.3f}"
            )
        return "\n".join(lines)

    def summary(self) -> dict[str, object]:
        s = self.scores()
        first20 = [r for r, q in zip(self.ranks, self.questions) if q.in_first_20]
        return {
            "questions": s.questions,
            **s.as_dict(),
            **score_ranks(self.file_order_ranks).as_dict("file_order_"),
            **expected_random(self.cluster_sizes).as_dict("random_"),
            "gold_in_first_20": len(first20),
            "mean_cluster_size": round(float(np.mean(self.cluster_sizes)), 1) if self.cluster_sizes else 0.0,
            "per_modal": {name: score_ranks(self.ranks[i] for i in idx).as_dict() | {"questions": len(idx)}
                          for name, idx in self._rows() if name.startswith("modal=")},
            "per_reasoning_type": {name.split("=", 1)[1]: score_ranks(self.ranks[i] for i in idx).as_dict() | {"questions": len(idx)}
                                   for name, idx in self._rows() if name.startswith("reasoning type=")},
            "seconds": round(self.seconds, 1),
            "seconds_per_question": round(self.seconds / max(len(self.questions), 1), 3),
        }


def figure_of(question: LocalityQuestion | CombinedQuestion) -> AnchorFigure:
    """M3SciQA gives the anchor figure as an image only."""
    return AnchorFigure(image=question.image)


def benchmark_ranker(embedder: str | None, settings: Settings) -> tuple[CitationRanker, list[str]]:
    """The stage-1 ranker both M3SciQA benchmarks run (embeddings memoised over a run, OCR cached
    on disk), and its warnings (the OCR engine missing)."""
    from retrieval.embedder import MemoEmbedder, get_embedder

    reading = FigureReading.from_settings(settings.extraction)
    engine = find_engine(reading)
    warnings = [engine] if isinstance(engine, str) else []
    retrieval = settings.retrieval.with_overrides(embedder=embedder) if embedder else settings.retrieval
    return CitationRanker(MemoEmbedder(get_embedder(retrieval)), reading=reading), warnings


def run_benchmark(data: LocalityData, rank: Ranker, questions: Iterable[LocalityQuestion] | None = None) -> BenchmarkReport:
    """Rank and score every question (the ranker sees the seeded shuffled cluster)."""
    chosen = list(data.questions if questions is None else questions)
    started = time.perf_counter()
    ranks, notes = [], []
    for q in chosen:
        ranking = rank(q)
        if len(ranking.ranked) != len(data.clusters[q.anchor_id]):
            notes.append(f"line {q.line}: {len(ranking.ranked)} of {len(data.clusters[q.anchor_id])} candidates ranked")
        ranks.append(ranking.rank_of(q.gold_id))
        notes.extend(f"line {q.line}: {n}" for n in ranking.notes)
    seconds = time.perf_counter() - started
    return BenchmarkReport(
        questions=chosen,
        ranks=ranks,
        file_order_ranks=[data.file_order[q.anchor_id].index(q.gold_id) + 1 for q in chosen],
        cluster_sizes=[len(data.clusters[q.anchor_id]) for q in chosen],
        seconds=seconds,
        notes=notes,
    )


# --- ablation and cross-validated weights (raw signals computed once, fused many times) ---


@dataclass
class CollectedSignals:
    question: LocalityQuestion
    raw: RawSignals
    gold_index: int  # position of the gold in the ranker's id order
    ids: list[str]


def collect(data: LocalityData, ranker: CitationRanker, questions: Iterable[LocalityQuestion] | None = None) -> list[CollectedSignals]:
    out = []
    for q in data.questions if questions is None else questions:
        cluster, raw, _ = ranker.signals(q.question, figure_of(q), data.clusters[q.anchor_id], [])
        ids = [c.id for c in cluster.candidates]
        out.append(CollectedSignals(q, raw, ids.index(q.gold_id), ids))
    return out


def gold_rank(item: CollectedSignals, weights: RankWeights) -> int:
    """1-based rank of the gold under `weights`, in the ranker's `ordering`."""
    return ordering(fuse(item.raw, weights), item.raw.question_target, item.ids).index(item.gold_index) + 1


def mrr_of(items: list[CollectedSignals], weights: RankWeights) -> float:
    return score_ranks(gold_rank(i, weights) for i in items).mrr


# Candidate weights per signal for the grid (the fusion's default is one of the grid points).
GRID = {
    "figure_names": (1.0,),
    "figure_bm25": (0.0, 0.5),
    "figure_dense": (0.0, 0.25, 0.5, 1.0),
    "question_bm25": (0.0, 0.25, 0.5),
    "question_dense": (0.0, 0.25, 0.5),
    "question_names": (-1.0, -0.5, 0.0, 0.5),
    "question_rows": (0.0, 1.0, 2.0),
}


def grid_weights(base: RankWeights | None = None) -> list[RankWeights]:
    base = base or RankWeights()
    keys = list(GRID)
    return [replace(base, **dict(zip(keys, values))) for values in itertools.product(*(GRID[k] for k in keys))]


def best_weights(items: list[CollectedSignals], grid: list[RankWeights]) -> RankWeights:
    """The grid point with the best MRR (the first of equals, in grid order)."""
    return max(grid, key=lambda w: mrr_of(items, w))


def cross_validated(items: list[CollectedSignals], grid: list[RankWeights], folds: int = 5) -> tuple[list[int], list[RankWeights]]:
    """Gold ranks where each anchor's questions are ranked with weights chosen on the other folds' anchors."""
    anchors = sorted({i.question.anchor_id for i in items})
    fold_of = {a: k % folds for k, a in enumerate(anchors)}
    ranks: dict[int, int] = {}
    chosen = []
    for fold in range(folds):
        train = [i for i in items if fold_of[i.question.anchor_id] != fold]
        weights = best_weights(train, grid)
        chosen.append(weights)
        for n, item in enumerate(items):
            if fold_of[item.question.anchor_id] == fold:
                ranks[n] = gold_rank(item, weights)
    return [ranks[n] for n in range(len(items))], chosen


def ablation(items: list[CollectedSignals], weights: RankWeights) -> list[tuple[str, Scores]]:
    """Each signal alone, the fusion without each signal, and the full fusion (signals that are
    zero for every question, such as citations on image-only data, get no rows)."""
    rows = []
    present = [name for name in FUSED if getattr(weights, name) and any(i.raw.of(name).any() for i in items)]
    for name in present:
        sign = 1.0 if getattr(weights, name) > 0 else -1.0
        rows.append((f"{name} alone", score_ranks(gold_rank(i, replace(weights.only(name), **{name: sign})) for i in items)))
    for name in present:
        rows.append((f"fusion without {name}", score_ranks(gold_rank(i, replace(weights, **{name: 0.0})) for i in items)))
    rows.append(("fusion", score_ranks(gold_rank(i, weights) for i in items)))
    return rows


def ablation_table(rows: list[tuple[str, Scores]]) -> str:
    head = f"{'signals':40s} {'MRR':>6s} {'R@1':>6s} {'R@3':>6s} {'nDCG@3':>7s}"
    return "\n".join([head, "-" * len(head)] + [
        f"{name:40s} {s.mrr:6.3f} {s.recall[1]:6.3f} {s.recall[3]:6.3f} {s.ndcg3:7.3f}" for name, s in rows
    ])
