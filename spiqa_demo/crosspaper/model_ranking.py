"""Stage 1 with a model: the multimodal model ranks the numbered candidates; fused with the no-LLM ranking.

The model sees the figure (the image, and the words read from it for text-only models), the
question and the candidates numbered in a fixed seeded order (title + abstract; never the stored
order, which leaks the answer), and replies in M3SciQA's format `{"ranking": [...]}`. As many
candidates as fit the model's context are shown, counted with the backend's `count_tokens`:
abstracts are shortened first, then the candidates the no-LLM ranking puts last are left out,
and a note says how many the model saw. The reply is parsed leniently (M3SciQA's own regex first,
then any list after "ranking", numbers or ids); numbers out of range and repeats are skipped.
A reply with no usable entry keeps the no-LLM ranking, with a note.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from retrieval.fusion import zscore
from spiqa_demo.crosspaper.prompts import RANKING_INSTRUCTIONS
from spiqa_demo.crosspaper.ranking import CitationRanker, fuse, ranking_from_scores
from spiqa_demo.crosspaper.types import AnchorFigure, CandidateRanking, CitedCandidate, seeded_order
from spiqa_demo.models.base import Message, ModelBackend

MODEL_WEIGHT = 2.0  # the model's z-scored 1/rank against the no-LLM fusion (models rank better)
MAX_NEW_TOKENS = 400
FIGURE_TEXT_CHARS = 2000
SHORT_ABSTRACT_CHARS = (600, 200, 0)
_OFFICIAL = re.compile(r"\{.*?\"ranking\": \[.*?\].*?\}", re.DOTALL)
_LENIENT = re.compile(r"ranking\W{0,4}\[([^\]]*)\]?", re.DOTALL | re.IGNORECASE)

@dataclass(frozen=True)
class ParsedRanking:
    """Candidate positions (0-based, in the shown order), best first, and what was skipped."""

    positions: list[int]
    note: str = ""


def parse_ranking(reply: str, shown: list[CitedCandidate]) -> ParsedRanking:
    """The ranking in `reply`: numbers 1..len(shown) or candidate ids; bad entries skipped with a note."""
    entries: list[object] | None = None
    official = _OFFICIAL.search(reply)
    if official:
        try:
            value = json.loads(official.group(0)).get("ranking")
            entries = value if isinstance(value, list) else None
        except (json.JSONDecodeError, AttributeError):
            entries = None
    if entries is None:
        lenient = _LENIENT.search(reply)
        if lenient:
            entries = re.findall(r"[0-9a-fA-F]{40}|\d+", lenient.group(1))
    if entries is None:
        return ParsedRanking([], "the model's reply has no ranking list; the no-LLM ranking is kept")
    by_id = {c.id: i for i, c in enumerate(shown)}
    positions: list[int] = []
    skipped = 0
    for entry in entries:
        text = str(entry).strip().strip("[]#")
        if text in by_id:
            position = by_id[text]
        elif text.isdigit() and 1 <= int(text) <= len(shown):
            position = int(text) - 1
        else:
            skipped += 1
            continue
        if position in positions:
            skipped += 1
        else:
            positions.append(position)
    notes = []
    if skipped:
        notes.append(f"{skipped} ranking entries out of range or repeated were skipped")
    if not positions:
        notes.append("the model's ranking names no candidate; the no-LLM ranking is kept")
    return ParsedRanking(positions, "; ".join(notes))


def _listing(candidates: list[CitedCandidate], abstract_chars: int | None) -> str:
    lines = []
    for number, c in enumerate(candidates, 1):
        abstract = c.abstract if abstract_chars is None else c.abstract[:abstract_chars]
        lines.append(f"[{number}] Title: {c.title}")
        if c.key or c.aliases:
            # how the anchor cites it, so markers and names printed in the figure can be matched
            cited_as = [f"cited as {c.key}"] if c.key else []
            lines.append("Note: " + "; ".join(cited_as + ([f"called {', '.join(c.aliases)}"] if c.aliases else [])))
        if abstract:
            lines.append(f"Abstract: {abstract}")
    return "\n".join(lines)


def build_messages(
    question: str, figure: AnchorFigure, figure_text: str, shown: list[CitedCandidate], abstract_chars: int | None, images: bool
) -> list[Message]:
    parts: list = [RANKING_INSTRUCTIONS + "\n\n"]
    if images and figure.image is not None:
        parts += ["Figure:\n", figure.image, "\n"]
    if figure.caption:
        parts.append(f"Caption: {figure.caption}\n")
    if figure_text:
        parts.append(f"Text printed in the figure (OCR): {' '.join(figure_text.split())[:FIGURE_TEXT_CHARS]}\n")
    parts.append(f"\nQuestion: {question}\n\nCited papers:\n{_listing(shown, abstract_chars)}\n\nJSON:")
    return [Message("user", parts)]


def fit_candidates(
    backend: ModelBackend, question: str, figure: AnchorFigure, figure_text: str, by_prior: list[CitedCandidate],
    display_order: list[CitedCandidate], max_new_tokens: int = MAX_NEW_TOKENS,
) -> tuple[list[CitedCandidate], list[Message], str]:
    """The candidates shown (in display order) and the prompt that fits the context, plus a note.

    Shortens abstracts first; then keeps the best `by_prior` candidates, as many as fit.
    """
    budget = backend.context_tokens - max_new_tokens
    images = bool(backend.supports_images)
    for chars in (None, *SHORT_ABSTRACT_CHARS):
        messages = build_messages(question, figure, figure_text, display_order, chars, images)
        used = backend.count_tokens(messages)
        if used <= budget:
            note = "" if chars is None else f"abstracts cut to {chars} characters to fit the model's context"
            return display_order, messages, note
    # Even titles alone do not fit: keep the candidates the no-LLM ranking prefers.
    keep = len(display_order)
    while keep > 1 and used > budget:
        keep = max(1, min(keep - 1, int(keep * budget / used)))
        chosen = {c.id for c in by_prior[:keep]}
        shown = [c for c in display_order if c.id in chosen]
        messages = build_messages(question, figure, figure_text, shown, 0, images)
        used = backend.count_tokens(messages)
    return shown, messages, (
        f"the model saw {len(shown)} of {len(display_order)} candidates (titles only; the context holds no more); "
        "the rest keep their no-LLM order"
    )


class ModelCitationRanker:
    """The no-LLM `CitationRanker` fused with a model's ranking of the candidates."""

    def __init__(self, base: CitationRanker, backend: ModelBackend, model_weight: float = MODEL_WEIGHT, seed: int = 0) -> None:
        self.base = base
        self.backend = backend
        self.model_weight = model_weight
        self.seed = seed

    def rank(self, question: str, figure: AnchorFigure, candidates: list[CitedCandidate]) -> CandidateRanking:
        no_llm = self.base.rank(question, figure, candidates)
        if not no_llm.ranked:
            return no_llm
        notes = list(no_llm.notes)
        cluster, raw, printed = self.base.signals(question, figure, candidates, [])
        prior_order = [r.candidate for r in no_llm.ranked]
        shown, messages, note = fit_candidates(
            self.backend, question, figure, printed, prior_order, seeded_order(list(cluster.candidates), self.seed)
        )
        if note:
            notes.append(note)
        reply = self.backend.generate(messages, max_new_tokens=MAX_NEW_TOKENS)
        parsed = parse_ranking(reply, shown)
        if parsed.note:
            notes.append(parsed.note)
        model = np.zeros(len(cluster.candidates))
        index = {c.id: i for i, c in enumerate(cluster.candidates)}
        for place, position in enumerate(parsed.positions, 1):
            model[index[shown[position].id]] = 1.0 / place
        score = fuse(raw, self.base.weights)
        if parsed.positions:
            score = score + self.model_weight * zscore(model)
        return ranking_from_scores(question, cluster.candidates, score, raw, notes, printed, model=model)
