"""The answer without a model: the sentence(s) of the shortlisted passages that best answer the
question, quoted with their page, next to the best figure or table.

Sentences are ranked by BM25 against the question among the sentences of the shortlisted passages,
plus the passage's own rank (a sentence of a better passage wins a near tie); a second sentence is
quoted when it follows the first in the same paragraph and scores nearly as well, since a fact is
often stated across two sentences ("We use Adam. The learning rate is ...").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from spiqa_demo.conversation.evidence import sentences_of
from spiqa_demo.conversation.types import Evidence

PASSAGE_WEIGHT = 0.3  # share of a sentence's score that comes from its passage's rescaled score
SECOND_SENTENCE = 0.6  # a following sentence is quoted too when it scores this share of the best


@dataclass(frozen=True)
class Quote:
    """A sentence of a shortlisted passage: `evidence` is the passage, `score` its rank score."""

    evidence: Evidence
    sentence: str
    position: int
    score: float


def best_quotes(question: str, evidence: Sequence[Evidence]) -> list[Quote]:
    """The quote(s) that best answer `question`: the best sentence, and the next one of the same
    paragraph when it scores nearly as well (see the module docstring); empty without passages."""
    from retrieval.lexical import BM25Index

    quotes = [
        Quote(e, sentence, i, 0.0)
        for e in evidence
        if e.passage is not None
        for i, sentence in enumerate(sentences_of(e.passage))
        if sentence
    ]
    if not quotes:
        return []
    lexical = BM25Index([q.sentence for q in quotes]).scores(question)
    top = float(lexical.max()) or 1.0
    scored = [replace(q, score=(1 - PASSAGE_WEIGHT) * float(s) / top + PASSAGE_WEIGHT * q.evidence.score) for q, s in zip(quotes, lexical)]
    best = max(scored, key=lambda q: (q.score, q.evidence.score, -q.evidence.page, -q.position))
    chosen = [best]
    following = next((q for q in scored if q.evidence is best.evidence and q.position == best.position + 1), None)
    if following is not None and following.score >= SECOND_SENTENCE * best.score:
        chosen.append(following)
    return chosen


def extractive_answer(question: str, evidence: Sequence[Evidence]) -> tuple[str, list[Evidence]]:
    """The quoted answer and the evidence with what it cites marked (`cited`, the passage's `quotes`)."""
    quotes = best_quotes(question, evidence)
    best_item = next((e for e in evidence if e.figure is not None), None)
    marked = list(evidence)
    parts: list[str] = []
    if quotes:
        source = quotes[0].evidence
        text = " ".join(q.sentence for q in quotes)
        parts.append(f"“{text}” [p. {source.page}]")
        marked = [replace(e, cited=True, quotes=tuple(q.sentence for q in quotes)) if e is source else e for e in marked]
    if best_item is not None:
        parts.append(f"See also {best_item.citation()} (page {best_item.page}).")
        marked = [replace(e, cited=True) if e is best_item else e for e in marked]
    return " ".join(parts), marked
