"""Stage 1 on a real anchor paper: rank its bibliography for a question about one of its figures.

The anchor `Paper` gives what M3SciQA's data lacks: the citation markers inside the figure or table
(a row "VGG-16 [41]"), in the sentences that cite the figure and in their paragraphs (extraction's
citations module links each to `Paper.references`), the words printed in the figure (vector text,
or OCR for a raster figure or a figure given as an image file), and the names the paper prints just
before citing a reference anywhere in its text ("ResNet [11]"), which titles rarely spell out.
The references become `CitedCandidate`s and go through the same ranking core as the benchmark
(`CitationRanker`, or `ModelCitationRanker` with a model); a bibliography gives titles, no abstracts.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from spiqa_demo.crosspaper.model_ranking import ModelCitationRanker
from spiqa_demo.crosspaper.names import distinctive
from spiqa_demo.crosspaper.ranking import CitationRanker
from spiqa_demo.crosspaper.types import AnchorFigure, CitationMark, CitedCandidate, SignalScores
from spiqa_demo.errors import InputError
from spiqa_demo.extraction.citations import CitationIndex
from spiqa_demo.types import Figure, Paper, Reference

# The word just before a marker, allowing an opening parenthesis between them: "BERT (Devlin et al.,".
_NAME_BEFORE = re.compile(r"([A-Za-z][\w\-+.]*[\w+])\s*\(?\s*$")
MAX_ALIASES = 5


@dataclass(frozen=True)
class RankedReference:
    """One reference of the anchor, ranked; `index` is its position in `Paper.references`."""

    reference: Reference
    index: int
    rank: int  # 1-based
    score: float
    signals: SignalScores
    aliases: tuple[str, ...] = ()


@dataclass
class ReferenceRanking:
    """Every reference of the anchor, best first; `notes` say what was unavailable."""

    question: str
    figure: str  # the `Figure.id`, or the image path
    ranked: list[RankedReference]
    notes: list[str] = field(default_factory=list)
    figure_text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _candidate_id(reference: Reference) -> str:
    """A content hash: ties are broken by it, so it must not depend on the bibliography's order."""
    return "ref-" + hashlib.sha256(f"{reference.key}\n{reference.text}\n{reference.title}".encode()).hexdigest()[:16]


def reference_aliases(paper: Paper) -> list[tuple[str, ...]]:
    """Per reference: the names printed just before a citation of it alone, most frequent first."""
    index = CitationIndex.of(paper.references)
    counts: list[Counter[str]] = [Counter() for _ in paper.references]
    texts = [p.text for p in paper.passages] + [f"{item.caption}\n{item.text}" for item in paper.items]
    for text in texts:
        for marker in index.markers(text):
            if len(marker.references) != 1:
                continue  # "[12, 13]": the name before it belongs to neither alone
            m = _NAME_BEFORE.search(text[max(0, marker.start - 40) : marker.start])
            if m and distinctive(m.group(1)):
                counts[marker.references[0]][m.group(1)] += 1
    return [tuple(name for name, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_ALIASES]) for c in counts]


def reference_candidates(paper: Paper, abstracts: Mapping[int, str] | None = None) -> list[CitedCandidate]:
    """The bibliography as candidates (the printed entry stands in for a title that was not parsed);
    `abstracts` gives the abstract of a reference by its index, when the cited paper itself is at hand."""
    if not paper.references:
        raise InputError(
            f"{paper.title or paper.source or 'this paper'}: no bibliography was found, so there are no "
            "cited papers to rank (stage 1 needs the paper's References section)"
        )
    seen: Counter[str] = Counter()
    candidates = []
    abstracts = abstracts or {}
    for index, (reference, aliases) in enumerate(zip(paper.references, reference_aliases(paper))):
        cid = _candidate_id(reference)
        seen[cid] += 1
        if seen[cid] > 1:
            cid = f"{cid}-{seen[cid]}"  # the same entry printed twice: either copy may stand first
        candidates.append(
            CitedCandidate(
                id=cid, title=reference.title or reference.text[:300], abstract=abstracts.get(index, ""), key=reference.key,
                aliases=aliases,
            )
        )  # fmt: skip
    return candidates


def _base(ranker: CitationRanker | ModelCitationRanker) -> CitationRanker:
    return ranker.base if isinstance(ranker, ModelCitationRanker) else ranker


def anchor_figure(paper: Paper, figure: Figure | Path, ranker: CitationRanker, notes: list[str]) -> AnchorFigure:
    """What the paper knows about `figure`: printed words, caption, mentions and citation marks."""
    index = CitationIndex.of(paper.references)
    if isinstance(figure, Figure):
        if paper.get(figure.id) is None:
            raise InputError(f"{figure.id} is not a figure or table of {paper.title or paper.source}")
        image = Path(figure.image) if figure.image and Path(figure.image).is_file() else None
        text = figure.text or ranker.figure_text(AnchorFigure(image=image), notes)
        marks = [CitationMark(paper.references[i].key, "figure") for i in (*figure.citations, *index.cited(text))]
        for mention in figure.mentions:
            marks += [CitationMark(paper.references[i].key, "mention") for i in mention.citations]
            if 0 <= mention.passage < len(paper.passages):
                marks += [CitationMark(paper.references[i].key, "passage") for i in paper.passages[mention.passage].citations]
        return AnchorFigure(
            image=image, caption=figure.caption, text=text,
            mentions=tuple(m.sentence for m in figure.mentions), citations=tuple(dict.fromkeys(marks)), table=figure.table,
        )
    image = Path(figure)
    if not image.is_file():
        raise InputError(f"figure image not found: {image}")
    text = ranker.figure_text(AnchorFigure(image=image), notes)
    return AnchorFigure(image=image, text=text, citations=tuple(CitationMark(paper.references[i].key) for i in index.cited(text)))


def rank_references(
    question: str,
    paper: Paper,
    figure: Figure | Path,
    ranker: CitationRanker | ModelCitationRanker | None = None,
    abstracts: Mapping[int, str] | None = None,
) -> ReferenceRanking:
    """Every reference of `paper`, ranked for `question` about `figure` (a `Figure` of the paper, or
    an image file); `abstracts` as for `reference_candidates`. Raises `InputError` for a paper
    without a bibliography or a figure it lacks."""
    ranker = ranker or CitationRanker()
    candidates = reference_candidates(paper, abstracts)
    notes: list[str] = []
    anchor = anchor_figure(paper, figure, _base(ranker), notes)
    ranking = ranker.rank(question, anchor, candidates)
    position = {c.id: i for i, c in enumerate(candidates)}
    ranked = [
        RankedReference(paper.references[position[r.candidate.id]], position[r.candidate.id], r.rank, r.score, r.signals, r.candidate.aliases)
        for r in ranking.ranked
    ]
    return ReferenceRanking(
        question=question,
        figure=figure.id if isinstance(figure, Figure) else str(figure),
        ranked=ranked,
        notes=list(dict.fromkeys([*notes, *ranking.notes])),
        figure_text=ranking.figure_text or anchor.text,
    )
