"""Stage 1 without an LLM: rank an anchor's cited papers for a question about one of its figures.

The answer to a figure question is almost always something the figure prints (a row of a table,
a line of a chart), so the figure's own words carry most of the signal: names it prints that a
candidate's title or abstract defines (`names`), and BM25 / dense similarity between the figure's
words and each title + abstract. The question adds its own similarity, and the names it spells out
itself are comparison points ("better than X"), which the default weight counts against, except the
one it says it means ("the paper that proposed X": `target`). Citation markers printed in or
around the figure, when known, point at their references directly.
Each signal is z-scored over the candidates and summed with `RankWeights`. A question that names
the paper it means has said which one it wants, so the evidence for that name orders the
candidates first and the fused score only among equals (`ordering`); so does a table row the question picks (by its value
in a column, its place) that prints its citation. Ties are broken by the candidate id, never by
input order.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, fields, replace

import numpy as np

from retrieval.embedder import Embedder
from retrieval.fusion import zscore
from retrieval.lexical import BM25Index
from spiqa_demo.crosspaper.names import NameMatcher, normalise
from spiqa_demo.crosspaper.ocr import FigureReading, ocr_words
from spiqa_demo.crosspaper.rows import Table, parse_table, pointed_names, pointed_rows, structure_table
from spiqa_demo.crosspaper.target import NamedTarget, named_target, without_target
from spiqa_demo.crosspaper.types import (
    AnchorFigure,
    CandidateRanking,
    CitationMark,
    CitedCandidate,
    RankedCandidate,
    SignalScores,
)
from spiqa_demo.errors import InputError
from spiqa_demo.extraction.ocr import OcrWord, words_text

FUSED = ("figure_names", "figure_bm25", "figure_dense", "question_rows", "question_bm25", "question_dense", "question_names", "citation")
SIGNALS = (*FUSED, "question_target")


@dataclass(frozen=True)
class RankWeights:
    """Weight of each z-scored signal (0 switches it off; the ablation uses that).

    Points of a grid (`evaluation.m3sciqa.benchmark.GRID`) are scored on M3SciQA's shared half by
    anchor-level 5-fold cross-validation (weights chosen on the other folds' anchors), which is what
    unseen anchors can expect. The row a question points at in a table (`question_rows`) is the
    strongest evidence there, the figure's names next; names the question spells out count against
    a candidate. The grid's best point there drops the question's BM25, which only M3SciQA can
    afford (every question has a figure to read): it is kept, so that a question about a figure
    with no readable text still ranks by its own words (docs/benchmarks.md gives both scores). Citation
    markers are not in M3SciQA; when a figure prints them they name the reference outright, hence
    the large weight. The paper a question names has no weight: it orders the candidates before the
    fused score does (`ordering`).
    """

    figure_names: float = 1.0
    figure_bm25: float = 0.0
    figure_dense: float = 0.5
    question_rows: float = 1.0
    question_bm25: float = 0.25
    question_dense: float = 0.0
    question_names: float = -1.0
    citation: float = 2.0

    def only(self, *signals: str) -> RankWeights:
        """These weights with every other signal switched off."""
        return replace(self, **{f.name: 0.0 for f in fields(self) if f.name not in signals})


@dataclass(frozen=True)
class RawSignals:
    """Each signal's raw score per candidate, in the cluster's id order (`SIGNALS` names the fields)."""

    figure_names: np.ndarray
    figure_bm25: np.ndarray
    figure_dense: np.ndarray
    question_rows: np.ndarray
    question_bm25: np.ndarray
    question_dense: np.ndarray
    question_names: np.ndarray
    citation: np.ndarray
    question_target: np.ndarray

    def of(self, name: str) -> np.ndarray:
        return np.asarray(getattr(self, name))


@dataclass(frozen=True)
class _Cluster:
    """What is computed once per set of candidates (one anchor's cluster)."""

    candidates: tuple[CitedCandidate, ...]
    names: NameMatcher
    bm25: BM25Index
    titles: BM25Index
    vectors: np.ndarray | None


MAX_CLUSTERS = 64  # clusters (one per anchor's reference list) a ranker keeps their vectors for


class CitationRanker:
    """Ranks candidates for (question, anchor figure); reuses per-cluster work across questions.

    `embedder` is a `retrieval.Embedder` (None: no dense signals); `reading` how figure images are
    read by OCR (default: English, no disk cache).
    """

    def __init__(self, embedder: Embedder | None = None, weights: RankWeights | None = None, reading: FigureReading | None = None) -> None:
        self.embedder = embedder
        self.weights = weights or RankWeights()
        self.reading = reading or FigureReading()
        # The most recently used clusters: one ranker serves a long-running app's many papers.
        self._clusters: OrderedDict[tuple[CitedCandidate, ...], _Cluster] = OrderedDict()
        self._lock = threading.Lock()

    def _cluster(self, candidates: list[CitedCandidate]) -> _Cluster:
        ordered = tuple(sorted(candidates, key=lambda c: c.id))  # per-cluster work never sees input order
        if len({c.id for c in ordered}) != len(ordered):
            raise InputError("candidate ids must be unique within one ranking")
        with self._lock:
            if ordered in self._clusters:
                self._clusters.move_to_end(ordered)
                return self._clusters[ordered]
        vectors = self.embedder.encode([c.text for c in ordered]) if self.embedder is not None else None
        cluster = _Cluster(
            ordered, NameMatcher.build(list(ordered)), BM25Index([c.text for c in ordered]), BM25Index([c.title for c in ordered]), vectors
        )
        with self._lock:
            self._clusters[ordered] = cluster
            while len(self._clusters) > MAX_CLUSTERS:
                self._clusters.popitem(last=False)
        return cluster

    def figure_words(self, figure: AnchorFigure, notes: list[str]) -> tuple[str, list[OcrWord]]:
        """The figure's printed words: given text (no boxes), else OCR of its image, with their
        boxes (a note when OCR fails)."""
        if figure.text or figure.image is None:
            return figure.text, []
        try:
            words = ocr_words(figure.image, self.reading)
        except InputError as exc:
            notes.append(str(exc))
            return "", []
        return words_text(words), words

    def figure_text(self, figure: AnchorFigure, notes: list[str]) -> str:
        """The figure's printed words as text (`figure_words`)."""
        return self.figure_words(figure, notes)[0]

    def signals(self, question: str, figure: AnchorFigure, candidates: list[CitedCandidate], notes: list[str]) -> tuple[_Cluster, RawSignals, str]:
        """Raw per-signal scores, in the cluster's id order, and the figure text used."""
        cluster = self._cluster(candidates)
        printed, boxes = self.figure_words(figure, notes)
        around = " ".join([figure.caption, *figure.mentions])
        figure_words = f"{printed}\n{around}".strip()
        n = len(cluster.candidates)
        target = named_target(question)
        figure_dense, question_dense = np.zeros(n), np.zeros(n)
        if cluster.vectors is not None and self.embedder is not None:
            queries = self.embedder.encode([figure_words, question])
            figure_dense = cluster.vectors @ queries[0] if figure_words else np.zeros(n)
            question_dense = cluster.vectors @ queries[1]
        table = _table(figure, printed, boxes)
        raw = RawSignals(
            figure_names=np.asarray(cluster.names.scores(figure_words), dtype=np.float64),
            figure_bm25=cluster.bm25.scores(figure_words).astype(np.float64) if figure_words else np.zeros(n),
            figure_dense=figure_dense,
            question_rows=_pointed_row_scores(cluster, question, table),
            question_bm25=cluster.bm25.scores(question).astype(np.float64),
            question_dense=question_dense,
            question_names=np.asarray(cluster.names.scores(without_target(question, target)), dtype=np.float64),
            citation=_citation_hits(cluster.candidates, figure.citations),
            question_target=(_target_scores(cluster, target) if target else np.zeros(n)) + _picked_citations(cluster, question, table),
        )
        return cluster, raw, printed

    def rank(self, question: str, figure: AnchorFigure, candidates: list[CitedCandidate]) -> CandidateRanking:
        """Every candidate, ranked (see module docstring)."""
        notes: list[str] = []
        if not candidates:
            return CandidateRanking(question=question, ranked=[], notes=["no cited papers to rank"])
        cluster, raw, printed = self.signals(question, figure, candidates, notes)
        if self.embedder is None:
            notes.append("no embedder: dense signals off")
        score = fuse(raw, self.weights)
        return ranking_from_scores(question, cluster.candidates, score, raw, notes, printed)


def _table(figure: AnchorFigure, printed: str, boxes: list[OcrWord]) -> Table:
    """The anchor's rows: from its parsed structure when extraction read one with rows, else from
    its printed lines."""
    if figure.table is not None:
        table = structure_table(figure.table)
        if table.rows:
            return table
    return parse_table(printed, boxes)


def _picked_citations(cluster: _Cluster, question: str, table: Table) -> np.ndarray:
    """Per candidate: how strongly the question points at a row that prints the candidate's citation
    (`TableRow.cites`): the row picked by its value in a column ("the lowest top-1 error") names its
    paper outright, as a question naming the paper does, so it orders the candidates first."""
    keys = [normalise(c.key) for c in cluster.candidates]
    out = np.zeros(len(keys))
    for weight, row in zip(pointed_rows(question, table), table.rows):
        for cited in row.cites if weight else ():
            out += weight * np.array([bool(key) and key == cited for key in keys], dtype=np.float64)
    return out


def _pointed_row_scores(cluster: _Cluster, question: str, table: Table) -> np.ndarray:
    """Per candidate: the names it defines among those the question points at in the table, by how
    strongly it points at each (`rows.pointed_names`)."""
    total = np.zeros(len(cluster.candidates))
    for name, weight in pointed_names(question, table):
        total += weight * _label_scores(cluster, name)
    return total


def _label_scores(cluster: _Cluster, label: str) -> np.ndarray:
    """The candidates' scores for the names a row label prints; when none matches, for the label
    without a last letter OCR may have read from a mark ("Self-MM†" read as "Self-MMt")."""
    scores = np.asarray(cluster.names.scores(label), dtype=np.float64)
    if not scores.any() and re.search(r"[A-Za-z]{2}[tf]$", label):
        scores = np.asarray(cluster.names.scores(label[:-1]), dtype=np.float64)
    return scores


# A title sharing the target's words is weaker evidence than a definition of its name: it weighs
# as a name an abstract merely mentions.
TITLE_WORDS = 0.5


def _target_scores(cluster: _Cluster, target: NamedTarget) -> np.ndarray:
    """The names the target phrase prints that a candidate defines or spells out (not those its
    abstract merely mentions, as a paper's abstract names its baselines), plus the phrase's name words
    in the candidate's title (BM25 over titles alone, relative to the best candidate, for a name no
    title abbreviates: "the non-local block"; an abstract's length must not count against its paper)."""
    names = np.asarray(cluster.names.defined_scores(target.text), dtype=np.float64)
    words = cluster.titles.scores(target.names).astype(np.float64)
    best = words.max() if words.size else 0.0
    return names + TITLE_WORDS * (words / best if best > 0 else words)


def fuse(raw: RawSignals, weights: RankWeights) -> np.ndarray:
    """Weighted sum of z-scored signals."""
    total = np.zeros(len(raw.citation))
    for name in FUSED:
        weight = getattr(weights, name)
        if weight:
            total += weight * zscore(raw.of(name))
    return total


def ranking_from_scores(
    question: str,
    candidates: tuple[CitedCandidate, ...],
    score: np.ndarray,
    raw: RawSignals,
    notes: list[str],
    figure_text: str = "",
    model: np.ndarray | None = None,
) -> CandidateRanking:
    """Candidates in `ordering`."""
    order = ordering(score, raw.question_target, [c.id for c in candidates])
    ranked = [
        RankedCandidate(
            candidate=candidates[i],
            rank=position,
            score=round(float(score[i]), 6),
            signals=SignalScores(
                **{name: round(float(raw.of(name)[i]), 6) for name in SIGNALS},
                model=None if model is None else round(float(model[i]), 6),
            ),
        )
        for position, i in enumerate(order, 1)
    ]
    return CandidateRanking(question=question, ranked=ranked, notes=notes, figure_text=figure_text)


def ordering(score: np.ndarray, target: np.ndarray, ids: list[str]) -> list[int]:
    """Candidate positions best first: by the evidence for the paper the question names (rounded:
    equal evidence summed in another order must tie, so the fused score decides), then by the fused
    score, then by id (stable over any input order)."""
    return sorted(range(len(ids)), key=lambda i: (-round(float(target[i]), 9), -float(score[i]), ids[i]))


# A marker inside the figure names a row or a line of it; the sentence that cites the figure often
# names what it is compared with; the rest of that paragraph cites more loosely.
CITATION_PLACES = {"figure": 1.0, "mention": 0.6, "passage": 0.3}


def _citation_hits(candidates: tuple[CitedCandidate, ...], marks: tuple[CitationMark, ...]) -> np.ndarray:
    """Per candidate: the strongest place its key is cited in (0 when not cited)."""
    strength: dict[str, float] = {}
    for mark in marks:
        key = normalise(mark.key)
        if key:
            strength[key] = max(strength.get(key, 0.0), CITATION_PLACES[mark.place])
    return np.array([strength.get(normalise(c.key), 0.0) if c.key else 0.0 for c in candidates])
