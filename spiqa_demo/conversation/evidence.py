"""One shortlist over a paper's figures, tables and passages for a (standalone) question.

Figures and tables are ranked by the paper's figure index (dense + BM25 + labels, `qa.shortlist`),
passages by BM25 over the paper's paragraphs (the store's passage index). The two scores live on
different scales, so each kind's scores are rescaled to 0..1 (the best of the kind is 1) before the
lists are merged: the reader always sees the best figure or table and the best passage on top.
Passages lying inside a figure's or table's caption box are its caption, not paragraphs, and are
left out.
A figure or table the question names by its label ("What does Figure 3 show?", "Table II in the
supplement": read by the index as `search` reads it) comes first whatever the scores: rescaled,
another item and the best passage score 1.0 as well, and a tie must not hand the reader Figure 1.
Evidence of the previous turn can be kept in the shortlist (a follow-up like "why?" is about it; a
kept figure or table takes the place of the lowest other one when it ranks below the shortlist), and
the figures and tables whose captions cross-reference a kept one ("These correspond to Figure 5",
"see also Fig. 5") are raised a little: they are where a reader's "where are the detailed numbers?"
or "how many of them are stacked?" usually leads.
A follow-up's `focus` (the words it brought: "and on CIFAR-10?") is searched on its own as well and
its rescaled scores added: the completed question still holds the previous question's words, which
pull toward the previous answer's table, while what the reader just said is what changed. The item
where the focus and the rest of the question meet inside it (`meeting`: table headings and row
names, a plot's printed words; not its caption) is raised by up to `MEET_WEIGHT`, when the focus
replaced part of the question, and the item where the replaced words ("ImageNet") meet the rest
without the focus is lowered as much: it answered the previous question, and a caption naming the
new words ("the CIFAR-10 results follow the same trend") would otherwise keep it on top. The own
words of a follow-up that points back ("its training curves") ask for something else than where
they meet the previous question.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from spiqa_demo.conversation.citations import parse_citations
from spiqa_demo.conversation.meeting import left_scores, meeting_scores
from spiqa_demo.conversation.per_paper import per_paper
from spiqa_demo.conversation.types import Evidence
from spiqa_demo.extraction.geometry import area, overlap
from spiqa_demo.settings import QASettings, RetrievalSettings
from spiqa_demo.types import BBox, Figure, Paper, Passage

if TYPE_CHECKING:
    from retrieval.sentence_index import SentenceIndex

FOCUS_WEIGHT = 1.0  # the focus's rescaled score counts as much as the whole question's
MEET_WEIGHT = 0.5  # added to an item holding all of the focus and of the rest of the question
KEEP_BONUS = 0.25  # added to the rescaled score of the previous turn's evidence when it is kept
RELATED_BONUS = 0.15  # added to a figure or table whose caption cites a kept one, or is cited by it
MIN_PASSAGE_WORDS = 6  # shorter paragraphs are headings or page-break fragments, no answer on their own
_KIND_ORDER = {"table": 0, "figure": 0, "passage": 1}


def rank_evidence(
    paper: Paper,
    question: str,
    settings: QASettings,
    retrieval: RetrievalSettings | None = None,
    keep: Iterable[Evidence] = (),
    focus: str = "",
    avoid: Iterable[Evidence] = (),
    meet: bool = False,
    replaced: str = "",
) -> list[Evidence]:
    """The best `settings.reader_items` figures/tables and `settings.reader_passages` passages for
    `question` (and its `focus`), merged best first (see the module docstring); `keep` gets
    `KEEP_BONUS`, `avoid` loses as much; `meet`: the focus replaced part of the question ("and on
    X?"), so the item where it meets the rest is raised, and the one where the `replaced` words do
    and the focus does not is lowered as much."""
    kept, avoided = {e.key for e in keep}, {e.key for e in avoid}
    items = _figure_evidence(paper, question, focus, settings.reader_items, retrieval, meet, replaced, kept)
    passages = _passage_evidence(paper, question, focus, settings.reader_passages, retrieval)
    related = _cross_referenced([e.figure for e in keep if e.figure is not None], paper.items)
    merged = [replace(e, score=e.score + _bonus(e, kept, related) - KEEP_BONUS * (e.key in avoided)) for e in items + passages]
    return sorted(merged, key=lambda e: (not e.named, -e.score, _KIND_ORDER[e.kind], e.page, e.box[1] if e.box else 0.0))


def _bonus(e: Evidence, kept: set[str], related: set[str]) -> float:
    return KEEP_BONUS if e.key in kept else RELATED_BONUS if e.key in related else 0.0


def _cross_referenced(kept: Sequence[Figure], items: Sequence[Figure]) -> set[str]:
    """The ids of the items whose caption cites one of `kept`, or that one of `kept` cites."""
    if not kept:
        return set()
    kept_labels = {(k.kind, k.number) for k in kept if k.number}
    cited = set().union(*(parse_citations(k.caption).labels for k in kept))
    return {
        i.id for i in items
        if i.number and i not in kept and ((i.kind, i.number) in cited or kept_labels & parse_citations(i.caption).labels)
    }


def figure_evidence(item: Figure, score: float, named: bool = False) -> Evidence:
    return Evidence(kind=item.kind, page=item.page, label=item.title, text=item.caption, score=score, box=item.bbox,
                    item=item, named=named)


def passage_evidence(passage: Passage, score: float) -> Evidence:
    return Evidence(kind="passage", page=passage.page, label="", text=passage.text, score=score, box=passage.bbox, item=passage)


def _figure_evidence(paper: Paper, question: str, focus: str, k: int, retrieval: RetrievalSettings | None, meet: bool,
                     replaced: str, kept: set[str]) -> list[Evidence]:
    if not paper.items:
        return []
    from spiqa_demo.qa.shortlist import paper_index

    index = paper_index(paper, retrieval)
    scores: dict[str, float] = {}
    named: set[str] = set()
    for query, weight in _queries(question, focus):
        hits = index.search(query, len(paper.items))
        named.update(h.item.id for h in hits if h.scores.label)
        for h, s in zip(hits, _rescaled(np.array([h.score for h in hits]), floor=True)):
            scores[h.item.id] = scores.get(h.item.id, 0.0) + weight * float(s)
    total = sum(w for _, w in _queries(question, focus))
    for item, share, left in zip(paper.items, meeting_scores(paper.items, question, focus if meet else ""),
                                 left_scores(paper.items, question, focus if meet else "", replaced)):
        scores[item.id] += MEET_WEIGHT * total * (share - left)
    shown = [i for i in paper.items if _says_anything(i)]
    ranked = sorted(shown, key=lambda i: (i.id not in named, -scores[i.id], i.page, i.bbox[1]))
    chosen = _keeping(ranked, k, kept | named)
    return [figure_evidence(i, 1.0, named=True) if i.id in named else figure_evidence(i, scores[i.id] / total) for i in chosen]


def _keeping(ranked: Sequence[Figure], k: int, kept: set[str]) -> list[Figure]:
    """The first `k` of `ranked`, where a kept item ranked lower takes the place of the lowest one
    not kept: the item a follow-up is about stays in the shortlist ("and in mice?" after "What does
    Figure 1 show?" is read as a question about the paper, and Figure 1 may score low for it)."""
    chosen = list(ranked[:k])
    for item in ranked[k:]:
        if item.id not in kept:
            continue
        free = [n for n, c in enumerate(chosen) if c.id not in kept]
        if not free:
            break
        chosen[free[-1]] = item
    return sorted(chosen, key=ranked.index)


def _says_anything(item: Figure) -> bool:
    """An item with no label, no caption and no printed word (a journal's logo, a wordless graphical
    abstract) holds nothing a question could be answered from: the gallery keeps it, the evidence
    does not (it was shown first where every other item scored below its flat score)."""
    return bool(item.number or item.caption.strip() or item.text.strip())


def first_passages(paper: Paper, question: str, settings: QASettings, retrieval: RetrievalSettings | None = None) -> list[Evidence]:
    """The passages `rank_evidence` shortlists for `question` asked first (no earlier turn): the
    overview checks a suggested question against them without building the figure index."""
    return _passage_evidence(paper, question, "", settings.reader_passages, retrieval)


def more_passages(
    paper: Paper, question: str, focus: str, shown: Sequence[Evidence], settings: QASettings, retrieval: RetrievalSettings | None = None,
) -> list[Evidence]:
    """The passages ranked next after those `shown`, up to `settings.reader_quote_passages` in all:
    the no-model answer chooses its sentence among these as well (a sentence scores the same
    whatever is read beside it, `sentence_index`), since the passage that answers is often ranked
    just below the shortlist."""
    shown_keys = {_key(e.passage) for e in shown if e.passage is not None}
    ranked = _passage_evidence(paper, question, focus, settings.reader_quote_passages, retrieval)
    return [e for e in ranked if e.passage is not None and _key(e.passage) not in shown_keys]


def _passage_evidence(paper: Paper, question: str, focus: str, k: int, retrieval: RetrievalSettings | None) -> list[Evidence]:
    if not paper.passages:
        return []
    from retrieval.embedder import get_embedder
    from retrieval.store import get_store

    index = get_store(get_embedder(retrieval)).passages({paper.sha256: paper})
    inside = _inside_items(paper)
    scores: dict[tuple[int, BBox, str], float] = {}
    for query, weight in _queries(question, focus):
        hits = [h for h in index.search(query, len(index))
                if len(h.passage.text.split()) >= MIN_PASSAGE_WORDS and _key(h.passage) not in inside]
        for h, s in zip(hits, _rescaled(np.array([h.score for h in hits]), floor=False)):
            scores[_key(h.passage)] = scores.get(_key(h.passage), 0.0) + weight * float(s)
    total = sum(w for _, w in _queries(question, focus))
    # The store may hold the index of an equal copy of the paper: its passages are matched by content.
    found = [p for p in paper.passages if _key(p) in scores]
    ranked = sorted(found, key=lambda p: (-scores[_key(p)], p.page, p.bbox[1]))
    return [passage_evidence(p, scores[_key(p)] / total) for p in ranked[:k]]


def _inside_items(paper: Paper) -> set[tuple[int, BBox, str]]:
    """The passages lying mostly inside a figure's or table's caption box: extraction read them as
    paragraphs, but they are the item's caption, shown with the item, and as passages they crowd out
    the paragraphs that answer. A region box is not used: a region drawn too large (an unlabelled
    figure over a page's text) would take real paragraphs away."""
    boxes = [(item.page, item.caption_bbox) for item in paper.items if item.caption_bbox is not None]
    return {_key(p) for p in paper.passages if any(page == p.page and _mostly_inside(p.bbox, box) for page, box in boxes)}


def _mostly_inside(inner: BBox, outer: BBox) -> bool:
    """More than half of `inner`'s area lies inside `outer`."""
    return overlap(inner, outer) > 0.5 * area(inner) > 0


def _key(passage: Passage) -> tuple[int, BBox, str]:
    return passage.page, passage.bbox, passage.text


def _queries(question: str, focus: str) -> list[tuple[str, float]]:
    return [(question, 1.0), (focus, FOCUS_WEIGHT)] if focus.strip() else [(question, 1.0)]


def _rescaled(scores: np.ndarray, floor: bool) -> np.ndarray:
    """Scores as fractions of the best one; `floor`: from the worst one up (fused scores can be negative)."""
    if scores.size == 0:
        return scores
    low = float(scores.min()) if floor else 0.0
    span = float(scores.max()) - low
    return (scores - low) / span if span > 1e-9 else np.ones_like(scores)


def sentences_of(passage: Passage) -> list[str]:
    """The passage's sentences, whitespace collapsed (as the paper's `sentence_index` reads them)."""
    from retrieval.sentence_index import passage_sentences

    return passage_sentences(passage)


def sentence_index(paper: Paper, retrieval: RetrievalSettings | None = None) -> SentenceIndex:
    """The paper's sentences and adjacent pairs, scored with the whole paper's word weights and
    reranked by `retrieval`'s sentence encoder (`retrieval.sentence_index`), built once per paper: a
    sentence's score for a question does not depend on which passages are read beside it."""
    from retrieval.embedder import get_embedder
    from retrieval.sentence_index import SentenceIndex

    embedder = get_embedder(retrieval)
    return per_paper(f"sentence-index {embedder.signature}", paper, lambda p: SentenceIndex(p.passages, embedder))
