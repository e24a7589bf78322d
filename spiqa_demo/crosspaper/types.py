"""The typed boundary of stage 1: which cited paper does a figure question lead to?

A `CitedCandidate` is what any source of cited papers provides (M3SciQA's cluster entries today,
a PDF's parsed references later): an id, title, abstract and, when known, the citation key as
printed. An `AnchorFigure` is the figure or table the question starts from, with whatever is known
about it. A `CandidateRanking` holds every candidate, ranked, with its per-signal scores.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from spiqa_demo.types import TableStructure


@dataclass(frozen=True)
class CitedCandidate:
    """A paper the anchor cites. `id` must be unique within one ranking (it is the stable tie-breaker)."""

    id: str
    title: str
    abstract: str = ""
    key: str = ""  # the citation key as printed ("[12]", "Devlin et al., 2019"), when known
    aliases: tuple[str, ...] = ()  # names the anchor prints before its citation ("VGG-16 [41]")

    @property
    def text(self) -> str:
        return f"{self.title}. {self.abstract}".strip() if self.abstract else self.title


Place = Literal["figure", "mention", "passage"]


@dataclass(frozen=True)
class CitationMark:
    """A citation printed in or around the anchor figure: the key as printed and where it stands.

    `figure`: inside the figure/table or its caption; `mention`: in a sentence that cites the
    figure; `passage`: elsewhere in the paragraph of such a sentence.
    """

    key: str
    place: Place = "figure"


@dataclass(frozen=True)
class AnchorFigure:
    """The figure or table a question starts from.

    `text` is the words printed inside it (vector text from a PDF); when empty and `image` is given,
    the ranker reads the image by OCR. `citations` are the citation markers printed in the
    figure or in the passages that mention it ("[12]", "Devlin et al., 2019"). `table` is a table's
    parsed structure, when extraction read one: its rows and column headings as printed.
    """

    image: Path | None = None
    caption: str = ""
    text: str = ""
    mentions: tuple[str, ...] = ()
    citations: tuple[CitationMark, ...] = ()
    table: TableStructure | None = None


@dataclass(frozen=True)
class SignalScores:
    """Raw per-signal scores of one candidate (before z-scoring); `model` is None without a model.

    - `figure_names`: names printed in the figure that the candidate's title/abstract defines
    - `figure_bm25` / `figure_dense`: the figure's words (and caption) against title + abstract
    - `question_rows`: names printed in the table rows the question points at (by a value, a place, its neighbours)
    - `question_bm25` / `question_dense`: the question against title + abstract
    - `question_names`: names the question itself spells out (comparison points, often not the answer)
    - `question_target`: names and words of the paper the question says it means ("the paper that proposed X"),
      plus the citation printed in the table row it picks ("the lowest top-1 error")
    - `citation`: the candidate's key is cited in the figure (1), in a sentence citing the figure,
      or in that sentence's paragraph (less: `ranking.CITATION_PLACES`)
    - `model`: the model's ranking as a score (1/rank), 0 for candidates it left out
    """

    figure_names: float = 0.0
    figure_bm25: float = 0.0
    figure_dense: float = 0.0
    question_rows: float = 0.0
    question_bm25: float = 0.0
    question_dense: float = 0.0
    question_names: float = 0.0
    question_target: float = 0.0
    citation: float = 0.0
    model: float | None = None


@dataclass(frozen=True)
class RankedCandidate:
    candidate: CitedCandidate
    rank: int  # 1-based
    score: float
    signals: SignalScores


@dataclass
class CandidateRanking:
    """Every candidate, best first; `notes` say what was unavailable (no OCR, an unparsable model reply)."""

    question: str
    ranked: list[RankedCandidate]
    notes: list[str] = field(default_factory=list)
    figure_text: str = ""

    @property
    def ids(self) -> list[str]:
        return [r.candidate.id for r in self.ranked]

    def rank_of(self, candidate_id: str) -> int | None:
        """1-based rank of a candidate, None when it is not in the ranking."""
        for r in self.ranked:
            if r.candidate.id == candidate_id:
                return r.rank
        return None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def seeded_order(candidates: list[CitedCandidate], seed: int) -> list[CitedCandidate]:
    """A fixed pseudo-random order from the seed and the ids alone (never from the input order)."""
    return sorted(candidates, key=lambda c: (hashlib.sha256(f"{seed}:{c.id}".encode()).hexdigest(), c.id))
