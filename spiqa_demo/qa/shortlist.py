"""The default shortlist: the `retrieval` package's ranking of a paper's figures and tables.

`paper_index` gets a paper's `FigureIndex` from the process's `retrieval.store.IndexStore`. Opening
the paper (`spiqa_demo.library.open_paper`) put it there and named the folder it is saved in, so a
question costs one query embedding, and still no embedding of the paper once its index has left
memory. A paper no one opened (a SPIQA entry built from its JSON) gets an index built in memory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from spiqa_demo.qa.answer import Candidate
from spiqa_demo.settings import RetrievalSettings
from spiqa_demo.types import Paper

if TYPE_CHECKING:  # at run time retrieval is imported on the first search, so importing QA stays light
    from retrieval.index import FigureIndex


def retrieval_shortlist(settings: RetrievalSettings | None = None) -> Callable[[Paper, str, int], list[Candidate]]:
    """The shortlist over the process's store for `settings`' sentence encoder, the store `open_paper`
    put the paper's index in: the `k` best figures/tables for a question, with the fused score and
    each signal's score."""

    def shortlist(paper: Paper, question: str, k: int) -> list[Candidate]:
        hits = paper_index(paper, settings).search(question, k)
        return [Candidate(figure=hit.item, score=hit.score, scores=hit.scores) for hit in hits]

    return shortlist


def paper_index(paper: Paper, settings: RetrievalSettings | None = None) -> FigureIndex:
    """The paper's index from the process's store for `settings`' encoder, answering with this `Paper`'s own items."""
    from retrieval.embedder import get_embedder
    from retrieval.store import get_store

    return get_store(get_embedder(settings)).figures(paper)
