"""Which provided paper holds which reference of the anchor.

A reference whose arXiv id is printed matches the provided paper with that id (versions ignored);
otherwise titles are compared (`titles`). Each reference takes its best match: an arXiv match
first, then the most similar title; among equals the most complete copy (more pages, then more
text: MuPDF repairs a truncated download into its first pages, with the same title), and last the
paper's sha256, so the order in which papers were added never decides. A paper may hold several
references (bibliographies list some papers twice, e.g. as preprint and as proceedings).
"""

from __future__ import annotations

from collections.abc import Sequence

from spiqa_demo.library.records import Availability, LibraryPaper
from spiqa_demo.library.titles import TITLE_THRESHOLD, title_similarity
from spiqa_demo.paper_text import normalise_arxiv_id
from spiqa_demo.types import Reference


def _candidate(reference: Reference, entry: LibraryPaper) -> tuple[int, float] | None:
    """(1 for an arXiv match else 0, similarity) when `entry` may be `reference`, else None."""
    ref_id, paper_id = normalise_arxiv_id(reference.arxiv_id), normalise_arxiv_id(entry.paper.arxiv_id)
    if ref_id and paper_id and ref_id == paper_id:
        return 1, 100.0
    similarity = title_similarity(reference.title, entry.paper.title)
    return (0, similarity) if similarity >= TITLE_THRESHOLD else None


def _completeness(entry: LibraryPaper) -> tuple[int, int]:
    return entry.paper.page_count, sum(len(p.text) for p in entry.paper.passages)


def match_references(references: Sequence[Reference], papers: Sequence[LibraryPaper]) -> list[Availability]:
    """One `Availability` per reference, in the bibliography's order."""
    out = []
    for index, reference in enumerate(references):
        scored = [(found, entry) for entry in papers if (found := _candidate(reference, entry)) is not None]
        best = max(scored, key=lambda pair: (pair[0], _completeness(pair[1]), pair[1].key), default=None)
        if best is None:
            out.append(Availability(index, reference.key, reference.title))
            continue
        (by_arxiv, similarity), entry = best
        out.append(
            Availability(
                index, reference.key, reference.title, source=entry.origin, paper=entry.key,
                matched_by="arxiv" if by_arxiv else "title", similarity=round(similarity, 1),
            )
        )  # fmt: skip
    return out
