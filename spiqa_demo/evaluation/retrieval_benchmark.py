"""Retrieval alone on SPIQA: does the top-k contain a question's reference figure?

Each paper's figures/tables are the candidates and the question's reference figure(s) the
target (a hit on any reference counts). Documents come from what the file has: captions
(test-A/train/val), captions plus the passages' citing sentences (test-B, test-C full text).
Reported: top-1/3/5 accuracy, mean candidates per paper, the random-choice baseline (expected
accuracy of a uniformly random ranking), per SPIQA figure category (of the question's first
reference), and speed (index build per paper, search per question, model load excluded).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from math import comb

import numpy as np

from retrieval.embedder import Embedder, MemoEmbedder, get_embedder
from retrieval.fusion import FusionConfig
from retrieval.index import FigureIndex
from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.spiqa.convert import to_paper
from spiqa_demo.evaluation.spiqa.figure_types import FIGURE_TYPES
from spiqa_demo.evaluation.spiqa.model import SpiqaDataset

KS = (1, 3, 5)

# Fusion with no priors: no results-table or kind-word boost, no label hits.
_PLAIN = FusionConfig(results_table=0.0, kind_word=0.0, labels=False)
# Each row adds one thing to the row above (the last row is the default configuration).
ABLATIONS: dict[str, FusionConfig] = {
    "dense: caption cosine (plain MiniLM)": replace(_PLAIN, bm25=0.0, dense_views=False),
    "dense: + best caption sentence / mention": replace(_PLAIN, bm25=0.0),
    "BM25 alone (stemmed words + bigrams)": replace(_PLAIN, dense=0.0),
    "dense + BM25, reciprocal-rank fusion": replace(_PLAIN, method="rrf"),
    "dense + BM25, z-scored weighted sum": _PLAIN,
    "+ kind prior": FusionConfig(labels=False),
    "+ label hits (default)": FusionConfig(),
}


@dataclass
class Tally:
    """Hit counts for a group of questions."""

    questions: int = 0
    hits: dict[int, int] = field(default_factory=lambda: {k: 0 for k in KS})
    random: dict[int, float] = field(default_factory=lambda: {k: 0.0 for k in KS})

    def add(self, first_hit_rank: int, candidates: int, references: int) -> None:
        self.questions += 1
        for k in KS:
            self.hits[k] += first_hit_rank < k
            self.random[k] += random_top_k(candidates, references, k)

    def row(self) -> dict[str, float | int]:
        n = max(self.questions, 1)
        out: dict[str, float | int] = {"questions": self.questions}
        out.update({f"top{k}": round(self.hits[k] / n, 4) for k in KS})
        out.update({f"random_top{k}": round(self.random[k] / n, 4) for k in KS})
        return out


def random_top_k(candidates: int, references: int, k: int) -> float:
    """Chance that a uniformly random ranking puts one of `references` among the first `k`."""
    if candidates <= 0 or references <= 0:
        return 0.0
    k = min(k, candidates)
    return 1.0 - comb(candidates - references, k) / comb(candidates, k)


@dataclass
class RetrievalReport:
    """The benchmark's result: overall and per figure category, plus speed."""

    dataset: str
    split: str
    shape: str
    documents: str
    overall: Tally
    by_type: dict[str, Tally]
    papers: int
    candidates: int
    build_s: float
    search_s: float
    skipped: int

    def summary(self) -> dict[str, object]:
        """The JSON summary (the command's last line)."""
        overall = self.overall.row()
        return {
            "dataset": self.dataset,
            "split": self.split,
            "documents": self.documents,
            "questions": overall["questions"],
            "top1": overall["top1"],
            "top3": overall["top3"],
            "top5": overall["top5"],
            "mean_candidates": round(self.candidates / max(self.papers, 1), 2),
            "random_top1": overall["random_top1"],
            "random_top3": overall["random_top3"],
            "random_top5": overall["random_top5"],
            "by_figure_type": {name: tally.row() for name, tally in self.by_type.items() if tally.questions},
            "build_ms_per_paper": round(1000 * self.build_s / max(self.papers, 1), 1),
            "search_ms_per_question": round(1000 * self.search_s / max(self.overall.questions, 1), 2),
            "skipped_questions": self.skipped,
        }

    def table(self) -> str:
        """A readable table: one row overall, one per figure category."""
        lines = [f"{'':16s} {'questions':>9s} {'top-1':>6s} {'top-3':>6s} {'top-5':>6s} {'random@1':>9s}"]
        rows = [("all", self.overall)] + [(name, t) for name, t in self.by_type.items() if t.questions]
        for name, tally in rows:
            r = tally.row()
            lines.append(f"{name:16s} {r['questions']:>9d} {r['top1']:>6.3f} {r['top3']:>6.3f} {r['top5']:>6.3f} {r['random_top1']:>9.3f}")
        return "\n".join(lines)


def run_ablation(
    dataset: SpiqaDataset, embedder: Embedder | None = None, passages: bool | None = None
) -> dict[str, RetrievalReport]:
    """The benchmark under every configuration of `ABLATIONS` (what each signal adds)."""
    embedder = MemoEmbedder(embedder or get_embedder())  # every configuration embeds the same texts
    return {name: run_retrieval_benchmark(dataset, embedder, config, passages) for name, config in ABLATIONS.items()}


def ablation_table(reports: dict[str, RetrievalReport]) -> str:
    """The ablation as a Markdown table (top-1/3/5 per configuration)."""
    first = next(iter(reports.values()))
    lines = [
        f"{first.split} ({first.documents}, {first.overall.questions} questions)",
        "| configuration | top-1 | top-3 | top-5 |",
        "|---|---|---|---|",
    ]
    for name, report in reports.items():
        r = report.overall.row()
        lines.append(f"| {name} | {r['top1']:.3f} | {r['top3']:.3f} | {r['top5']:.3f} |")
    return "\n".join(lines)


def _encoded_once(embedder: Embedder, texts: list[str]) -> MemoEmbedder:
    """`embedder` remembering `texts`, encoded in one pass: sorted by length over every paper, the
    batches pad far less than one paper's texts at a time (the vectors are the same)."""
    memo = embedder if isinstance(embedder, MemoEmbedder) else MemoEmbedder(embedder)
    memo.encode(texts)
    return memo


def run_retrieval_benchmark(
    dataset: SpiqaDataset,
    embedder: Embedder | None = None,
    config: FusionConfig | None = None,
    passages: bool | None = None,
) -> RetrievalReport:
    """Retrieval accuracy on every question of `dataset` (see module docstring).

    `passages=None` uses the passages when the file has them; False gives captions only.
    """
    use_passages = any(p.passages for p in dataset.papers) if passages is None else passages
    converted = [(spiqa_paper, *to_paper(spiqa_paper, passages=use_passages)) for spiqa_paper in dataset.papers]
    started = time.perf_counter()
    embedder = _encoded_once(embedder or get_embedder(), [t for _, paper, _ in converted for t in FigureIndex.texts(paper)])
    build_s = time.perf_counter() - started
    overall = Tally()
    by_type: dict[str, Tally] = {name: Tally() for name in FIGURE_TYPES}
    search_s = 0.0
    papers = candidates = skipped = 0
    for spiqa_paper, paper, by_file in converted:
        questions = [q for q in spiqa_paper.questions if q.question and any(spiqa_paper.figure(r) for r in q.references)]
        skipped += len(spiqa_paper.questions) - len(questions)
        if not questions or not paper.items:
            continue
        started = time.perf_counter()
        index = FigureIndex.build(paper, embedder, config)
        build_s += time.perf_counter() - started
        papers += 1
        candidates += len(paper.items)
        started = time.perf_counter()
        vectors = embedder.encode([q.question for q in questions])
        positions = {file: i for i, file in enumerate(by_file)}  # items keep the SPIQA file order
        for question, vector in zip(questions, vectors):
            order = index.signals(question.question, vector).order()
            references = [f for r in question.references if (f := spiqa_paper.figure(r))]
            targets = {positions[f.file] for f in references}
            first = int(np.flatnonzero(np.isin(order, list(targets)))[0])
            overall.add(first, len(paper.items), len(targets))
            by_type[references[0].figure_type].add(first, len(paper.items), len(targets))
        search_s += time.perf_counter() - started
    if not overall.questions:
        raise PaperError(f"{dataset.source or dataset.split}: no question has a reference figure among its paper's figures")
    return RetrievalReport(
        dataset=dataset.source,
        split=dataset.split,
        shape=dataset.shape,
        documents="captions + mentions" if use_passages else "captions",
        overall=overall,
        by_type=by_type,
        papers=papers,
        candidates=candidates,
        build_s=build_s,
        search_s=search_s,
        skipped=skipped,
    )
