"""The default shortlist: the `retrieval` package's ranking of a paper's figures and tables.

`paper_index` gets a paper's `FigureIndex` from the process's `retrieval.store.IndexStore`, which
keeps the last few in memory (so follow-up questions cost one query embedding) and saves them
beside the paper's extraction cache entry (so another process or a later run loads it instead of
embedding again). The chat, the cross-paper answer and `search` all get it here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.qa.answer import Candidate
from spiqa_demo.types import Paper

if TYPE_CHECKING:  # at run time retrieval is imported on the first search, so importing QA stays light
    from retrieval.index import FigureIndex


def retrieval_shortlist(paper: Paper, question: str, k: int) -> list[Candidate]:
    """The `k` best figures/tables for `question`, with the fused score and each signal's score."""
    return [Candidate(figure=hit.item, score=hit.score, scores=hit.scores) for hit in paper_index(paper).search(question, k)]


def build_index(paper: Paper) -> None:
    """Build (or load) the paper's index now, so its first question costs one query embedding."""
    paper_index(paper)


def _saved_in(paper: Paper) -> Path | None:
    """Where the index is saved: beside the paper's extraction cache entry; None for a paper not
    extracted into the cache (a SPIQA entry built from its JSON)."""
    if not paper.sha256:
        return None
    from spiqa_demo.extraction.cache import paper_cache_dir

    entry = paper_cache_dir(paper)
    return entry / "retrieval" if (entry / "paper.json").is_file() else None


def paper_index(paper: Paper) -> FigureIndex:
    """The paper's index from the process's store, answering with this `Paper`'s own items."""
    from retrieval.store import get_store

    return get_store().figures(paper, _saved_in(paper))
