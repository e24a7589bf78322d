"""One shortlist over a paper's figures, tables and passages for a (standalone) question.

Figures and tables are ranked by the paper's figure index (dense + BM25 + labels, `qa.shortlist`),
passages by BM25 over the paper's paragraphs (the store's passage index). The two scores live on
different scales, so each kind's scores are rescaled to 0..1 (the best of the kind is 1) before the
lists are merged: the reader always sees the best figure or table and the best passage on top.
Evidence of the previous turn can be kept in the shortlist (a follow-up like "why?" is about it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from spiqa_demo.conversation.types import Evidence
from spiqa_demo.paper_text import split_sentences
from spiqa_demo.settings import QASettings, RetrievalSettings
from spiqa_demo.types import Figure, Paper, Passage

KEEP_BONUS = 0.25  # added to the rescaled score of the previous turn's evidence when it is kept
MIN_PASSAGE_WORDS = 6  # shorter paragraphs are headings or page-break fragments, no answer on their own
_KIND_ORDER = {"table": 0, "figure": 0, "passage": 1}


def rank_evidence(
    paper: Paper,
    question: str,
    settings: QASettings,
    retrieval: RetrievalSettings | None = None,
    keep: Iterable[Evidence] = (),
) -> list[Evidence]:
    """The best `settings.reader_items` figures/tables and `settings.reader_passages` passages for
    `question`, merged best first (see the module docstring); `keep` gets `KEEP_BONUS`."""
    items = _figure_evidence(paper, question, settings.reader_items, retrieval)
    passages = _passage_evidence(paper, question, settings.reader_passages, retrieval)
    kept = {e.key for e in keep}
    merged = [replace(e, score=e.score + KEEP_BONUS) if e.key in kept else e for e in items + passages]
    return sorted(merged, key=lambda e: (-e.score, _KIND_ORDER[e.kind], e.page, e.box[1] if e.box else 0.0))


def figure_evidence(item: Figure, score: float) -> Evidence:
    return Evidence(kind=item.kind, page=item.page, label=item.title, text=item.caption, score=score, box=item.bbox, item=item)


def passage_evidence(passage: Passage, score: float) -> Evidence:
    return Evidence(kind="passage", page=passage.page, label="", text=passage.text, score=score, box=passage.bbox, item=passage)


def _figure_evidence(paper: Paper, question: str, k: int, retrieval: RetrievalSettings | None) -> list[Evidence]:
    if not paper.items:
        return []
    from spiqa_demo.qa.shortlist import paper_index

    hits = paper_index(paper, retrieval).search(question, len(paper.items))
    scores = _rescaled(np.array([h.score for h in hits]), floor=True)
    labelled = [h.scores.label for h in hits]
    return [
        figure_evidence(h.item, 1.0 if named else float(s))
        for h, s, named in zip(hits[:k], scores[:k], labelled[:k])
    ]


def _passage_evidence(paper: Paper, question: str, k: int, retrieval: RetrievalSettings | None) -> list[Evidence]:
    if not paper.passages:
        return []
    from retrieval.embedder import get_embedder
    from retrieval.store import get_store

    index = get_store(get_embedder(retrieval)).passages({paper.sha256: paper})
    hits = [h for h in index.search(question, len(index)) if len(h.passage.text.split()) >= MIN_PASSAGE_WORDS][:k]
    if not hits:
        return []
    scores = _rescaled(np.array([h.score for h in hits]), floor=False)
    return [passage_evidence(h.passage, float(s)) for h, s in zip(hits, scores)]


def _rescaled(scores: np.ndarray, floor: bool) -> np.ndarray:
    """Scores as fractions of the best one; `floor`: from the worst one up (fused scores can be negative)."""
    if scores.size == 0:
        return scores
    low = float(scores.min()) if floor else 0.0
    span = float(scores.max()) - low
    return (scores - low) / span if span > 1e-9 else np.ones_like(scores)


def sentences_of(passage: Passage) -> list[str]:
    """The passage's sentences, whitespace collapsed."""
    return [" ".join(s.split()) for s in split_sentences(passage.text)]
