"""The answer without a model: the sentence(s) of the shortlisted passages that best answer the
question, quoted with their page, next to the best figure or table.

A fact is often stated across two sentences ("We used the Adam optimizer ... We varied the learning
rate ..."), so the candidates are every sentence of the shortlisted passages and every pair of
adjacent sentences of one paragraph; BM25 ranks them against the question (its length
normalisation keeps a pair from winning on length alone), and the passage's own rank breaks near ties.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np

from spiqa_demo.conversation.evidence import sentences_of
from spiqa_demo.conversation.types import Evidence

PASSAGE_WEIGHT = 0.2  # share of a candidate's score that comes from its passage's rescaled score


@dataclass(frozen=True)
class Quote:
    """One or two adjacent sentences of a shortlisted passage (`evidence`), with their rank score."""

    evidence: Evidence
    sentences: tuple[str, ...]
    position: int
    score: float = 0.0

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


def best_quote(question: str, evidence: Sequence[Evidence], focus: str = "") -> Quote | None:
    """The sentence or adjacent pair of sentences that best answers `question` (see the module
    docstring), a follow-up's `focus` weighing as much as the whole question (as in retrieval);
    None without passages or when no sentence shares a word with the question."""
    from retrieval.lexical import BM25Index

    quotes: list[Quote] = []
    for e in evidence:
        if e.passage is None:
            continue
        sentences = [s for s in sentences_of(e.passage) if s]
        quotes += [Quote(e, (s,), i) for i, s in enumerate(sentences)]
        quotes += [Quote(e, (a, b), i) for i, (a, b) in enumerate(pairwise(sentences))]
    if not quotes:
        return None
    index = BM25Index([q.text for q in quotes])
    lexical = np.zeros(len(quotes))
    for query in (question, focus) if focus.strip() else (question,):
        scores = index.scores(query)
        lexical += scores / scores.max() if scores.max() > 0 else scores
    top = float(lexical.max())
    if top <= 0:
        return None
    scored = [replace(q, score=(1 - PASSAGE_WEIGHT) * float(s) / top + PASSAGE_WEIGHT * q.evidence.score) for q, s in zip(quotes, lexical)]
    return max(scored, key=lambda q: (q.score, -len(q.sentences), q.evidence.score, -q.evidence.page, -q.position))


def extractive_answer(question: str, evidence: Sequence[Evidence], focus: str = "") -> tuple[str, list[Evidence]]:
    """The quoted answer and the evidence with what it cites marked (`cited`, the passage's `quotes`)."""
    quote = best_quote(question, evidence, focus)
    best_item = next((e for e in evidence if e.figure is not None), None)
    marked = list(evidence)
    parts: list[str] = []
    if quote is not None:
        parts.append(f"“{quote.text}” [p. {quote.evidence.page}]")
        marked = [replace(e, cited=True, quotes=quote.sentences) if e is quote.evidence else e for e in marked]
    if best_item is not None:
        parts.append(f"See also {best_item.citation()} (page {best_item.page}).")
        marked = [replace(e, cited=True) if e is best_item else e for e in marked]
    return " ".join(parts), marked
