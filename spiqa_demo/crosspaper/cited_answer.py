"""Answer a question about an anchor paper's figure from the papers it cites.

The anchor figure is the one single-paper retrieval ranks first for the question (or the one given);
stage 1 (`paper_references.rank_references`) ranks every reference of the anchor for the question
about that figure; the top-k ranked references that are in the library give their best passages
(BM25 over those cited papers' full text, so each passage keeps its page and box for display; the
library's index store keeps that index for the next question about the same papers); a model
answers from those passages only, citing them by number, or says "I don't know". Without a
model the ranked references and their passages are the result. When no ranked reference is in the
library there is nothing to answer from: the ranking says which cited papers to add, and no model is
asked (a bibliography gives titles only, from which a model could only guess).
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.crosspaper.paper_references import RankedReference, ReferenceRanking, rank_references
from spiqa_demo.crosspaper.prompts import CITED_ANSWER_PROMPT, CROSSPAPER_PROMPT_VERSION
from spiqa_demo.crosspaper.replies import clean_answer, is_abstention
from spiqa_demo.errors import InputError
from spiqa_demo.library import PaperLibrary
from spiqa_demo.library.records import Availability
from spiqa_demo.models.base import Message, ModelBackend, Part, closed_after
from spiqa_demo.settings import QASettings
from spiqa_demo.types import BBox, Figure, Paper

if TYPE_CHECKING:
    from retrieval.embedder import Embedder
    from retrieval.index import FigureIndex
    from spiqa_demo.crosspaper.ocr import FigureReading
    from spiqa_demo.crosspaper.ranking import CitationRanker

PASSAGES_PER_PAPER = 2
MAX_NEW_TOKENS = 256  # one or two sentences with their citations, with room to spare
ANCHOR_TEXT_CHARS = 1500  # a table's text (its cells) is read whole up to about a page column
ABSTRACT_CHARS = 1500  # about an abstract's length: more of the first page is author lists and introduction


@dataclass(frozen=True)
class CitedPaper:
    """One ranked reference of the anchor; `source` is the library file holding it, None when not provided."""

    key: str
    title: str
    source: str | None
    score: float
    why: str  # one line for people: which signals put it there


@dataclass(frozen=True)
class CitedPassage:
    """A passage of a cited paper: `page` is 1-based, `bbox` in PDF points on that page."""

    source: str
    paper_title: str
    page: int
    text: str
    bbox: BBox | None


@dataclass
class CitedAnswer:
    """The answer from the cited papers: the anchor figure, the ranked references, the supporting
    passages (best first), the model's text ("" without a model) and notes for people; `prompt_version`
    names the cross-paper prompts' version when a model was asked ("" otherwise)."""

    question: str
    anchor_figure: Figure | None
    cited_papers: list[CitedPaper]
    passages: list[CitedPassage]
    text: str
    messages: list[str] = field(default_factory=list)
    prompt_version: str = ""


def ask_cited(
    library: PaperLibrary,
    question: str,
    backend: ModelBackend | None = None,
    *,
    figure: Figure | None = None,
    k: int | None = None,
    settings: QASettings | None = None,
) -> CitedAnswer:
    """The answer from the top-`k` available cited papers (see the module docstring)."""
    result: CitedAnswer | None = None
    for part in ask_cited_stream(library, question, backend, figure=figure, k=k, settings=settings):
        if isinstance(part, CitedAnswer):
            result = part
    assert result is not None  # the stream always ends with the answer
    return result


def ask_cited_stream(
    library: PaperLibrary,
    question: str,
    backend: ModelBackend | None = None,
    *,
    figure: Figure | None = None,
    k: int | None = None,
    settings: QASettings | None = None,
) -> Generator[str | CitedAnswer, None, None]:
    """Text chunks of the model's answer as they come, then the `CitedAnswer`."""
    from spiqa_demo.questions import check_k, check_question

    settings = settings or library.settings.qa
    k = check_k(settings.cited_k if k is None else k, "k (the number of cited papers to read)")
    checked = check_question(question, settings)
    question = checked.text
    chosen = figure or anchor_figure_for(library.anchor, library.store.figures(library.anchor), question)
    availability = library.availability()
    ranking = rank_references(question, library.anchor, chosen, _ranker(library), library_abstracts(library, availability))
    cited = [_cited_paper(r, availability[r.index]) for r in ranking.ranked]
    messages = list(ranking.notes) + checked.notes
    passages = best_passages(library, question, ranking, availability, k)
    if not passages:
        messages.append(_nothing_to_read(cited, k))
    elif backend is None:
        messages.append("no model: the cited papers ranked for the question and their best passages (retrieval only)")
    if backend is None or not passages:
        yield CitedAnswer(question, chosen, cited, passages, "", messages)
        return
    request = answer_request(question, passages, chosen, backend.supports_images)
    pieces: list[str] = []
    try:
        with closed_after(backend.stream([request], max_new_tokens=MAX_NEW_TOKENS)) as stream:
            for piece in stream:
                pieces.append(piece)
                yield piece
    except Exception as exc:  # a failing model must leave the retrieved passages to the reader
        messages.append(f"the model failed to answer ({type(exc).__name__}: {exc}); the passages below are retrieval only")
        yield CitedAnswer(question, chosen, cited, passages, "", messages, CROSSPAPER_PROMPT_VERSION)
        return
    text = clean_answer("".join(pieces))
    cited_numbers = _cited_numbers(text, len(passages))
    messages += _format_notes(text, cited_numbers)
    yield CitedAnswer(question, chosen, cited, _cited_first(passages, cited_numbers), text, messages, CROSSPAPER_PROMPT_VERSION)


_CITE = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def answer_request(question: str, passages: Sequence[CitedPassage], anchor: Figure | None, images: bool) -> Message:
    """The model's request: the citing paper's figure or table the question is about (its crop when the
    model reads images, its caption and text), then the numbered passages and the question. Without
    the anchor, a question like "how does this compare?" would reach the model with nothing to compare."""
    parts: list[Part] = []
    if anchor is not None:
        parts.append(f"The question is about {anchor.title} (page {anchor.page}) of the citing paper:")
        if images and anchor.image and Path(anchor.image).is_file():
            parts.append(Path(anchor.image))
        described = [f"Caption: {' '.join(anchor.caption.split())}" if anchor.caption else "",
                     f"Its text: {' '.join(anchor.text.split())[:ANCHOR_TEXT_CHARS]}" if anchor.text else ""]
        parts.append(" " + " ".join(d for d in described if d) + "\n\n")
    parts.append(answer_prompt(question, passages))
    return Message("user", parts)


def answer_prompt(question: str, passages: Sequence[CitedPassage]) -> str:
    listed = "\n\n".join(f"[{i}] {p.paper_title}, page {p.page}:\n{p.text}" for i, p in enumerate(passages, 1))
    return CITED_ANSWER_PROMPT.format(passages=listed, question=question)


def _cited_numbers(text: str, count: int) -> list[int]:
    """The passage numbers the answer cites, in order of first citation (numbers beyond `count` dropped)."""
    numbers = [int(n) for group in _CITE.findall(text) for n in group.split(",")]
    return list(dict.fromkeys(n for n in numbers if 1 <= n <= count))


def _format_notes(text: str, cited_numbers: list[int]) -> list[str]:
    """What a reader should know when the model did not answer as asked."""
    if not text:
        return ["the model gave no answer; the passages below are retrieval only"]
    if is_abstention(text):
        return ["the model found no answer in the passages (it said it does not know)"]
    if not cited_numbers:
        return ["the model's answer cites none of the passages: check it against them before trusting it"]
    return []


def _cited_first(passages: list[CitedPassage], cited_numbers: list[int]) -> list[CitedPassage]:
    """The passages the answer cites first (in its order), then the others in retrieval order."""
    first = [passages[n - 1] for n in cited_numbers]
    return first + [p for p in passages if p not in first]


def _nothing_to_read(cited: list[CitedPaper], k: int) -> str:
    if not cited:
        return "the paper has no references to read"
    top = "; ".join(f"{c.key} {c.title[:80]}" for c in cited[:k])
    return (f"none of the top {k} cited papers for this question is in the library, so there is no passage to answer "
            f"from: add their PDFs (best first: {top})")  # fmt: skip


def anchor_figure_for(anchor: Paper, index: FigureIndex, question: str) -> Figure:
    """The anchor's figure or table that single-paper retrieval (`index`, the anchor's) ranks first for `question`."""
    hits = index.search(question, 1)
    if not hits:
        raise InputError(f"{anchor.title or anchor.source}: no figures or tables were found to ask about")
    return hits[0].item


def opening_text(paper: Paper, limit: int = ABSTRACT_CHARS) -> str:
    """A paper's abstract as far as extraction knows it: its first page's text from the passage that
    starts with "Abstract" (or from the first passage), cut to `limit` characters."""
    first = [p.text for p in paper.passages if p.page == min(q.page for q in paper.passages)] if paper.passages else []
    start = next((i for i, text in enumerate(first) if text.lstrip().lower().startswith("abstract")), 0)
    return " ".join(" ".join(first[start:]).split())[:limit]


def library_abstracts(library: PaperLibrary, availability: list[Availability]) -> dict[int, str]:
    """The abstract of each reference held in the library, by its index in the bibliography: a cited
    paper at hand is known by what it says of itself, not only by the title the anchor prints."""
    held = {p.key: p.paper for p in library.papers}
    return {a.reference: opening_text(held[a.paper]) for a in availability if a.paper is not None and a.paper in held}


def _ranker(library: PaperLibrary) -> CitationRanker:
    """The process's ranker for the library's encoder and OCR: a library's next question reuses its
    references' vectors instead of embedding them again."""
    from spiqa_demo.crosspaper.ocr import FigureReading

    return _shared_ranker(library.store.embedder, FigureReading.from_settings(library.settings.extraction))


@lru_cache(maxsize=4)
def _shared_ranker(embedder: Embedder, reading: FigureReading) -> CitationRanker:
    from spiqa_demo.crosspaper.ranking import CitationRanker

    return CitationRanker(embedder, reading=reading)


def _cited_paper(ranked: RankedReference, available: Availability) -> CitedPaper:
    reference = ranked.reference
    return CitedPaper(
        key=reference.key,
        title=reference.title or reference.text[:300],
        source=available.source,
        score=ranked.score,
        why=why(ranked),
    )


def why(ranked: RankedReference) -> str:
    """Which signals put a reference where it is, in words."""
    s = ranked.signals
    reasons = []
    if s.citation >= 1.0:
        reasons.append("cited inside the figure")
    elif s.citation > 0:
        reasons.append("cited where the paper discusses the figure")
    if s.figure_names > 0:
        reasons.append("a name it defines is printed in the figure")
    if s.question_target > 0:
        reasons.append("the question names it as the paper it means")
    if ranked.aliases:
        reasons.append(f"called {', '.join(repr(a) for a in ranked.aliases[:2])} in the paper")
    return "; ".join(reasons) or "closest in words to the question and the figure"


def best_passages(
    library: PaperLibrary, question: str, ranking: ReferenceRanking, availability: list[Availability], k: int
) -> list[CitedPassage]:
    """The best passages of the top-`k` ranked references held in the library, paper by paper in rank order."""
    chosen: list[str] = []
    for ranked in ranking.ranked:
        key = availability[ranked.index].paper
        if key is not None and key not in chosen:
            chosen.append(key)
        if len(chosen) == k:
            break
    if not chosen:
        return []
    # BM25 statistics of the chosen papers alone: the passages shown do not change when the library
    # gains a paper this question does not lead to.
    index = library.passages(chosen)
    held = {p.key: p for p in library.papers}
    out: list[CitedPassage] = []
    for key in chosen:
        entry = held[key]
        for hit in index.search(question, PASSAGES_PER_PAPER, [key]):
            p = hit.passage
            out.append(CitedPassage(entry.origin, entry.paper.title or Path(entry.origin).name, p.page, p.text, p.bbox))
    return out
