"""The default shortlist: the `retrieval` package's ranking of a paper's figures and tables.

`paper_index` gets a paper's `FigureIndex` from the process's `retrieval.store.IndexStore`. Opening
the paper (`spiqa_demo.library.open_paper`) put it there and named the folder it is saved in, so a
question costs one query embedding, and still no embedding of the paper once its index has left
memory. A paper no one opened (a SPIQA entry built from its JSON) gets an index built in memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spiqa_demo.qa.answer import Candidate
from spiqa_demo.types import Paper

if TYPE_CHECKING:  # at run time retrieval is imported on the first search, so importing QA stays light
    from retrieval.index import FigureIndex


def retrieval_shortlist(paper: Paper, question: str, k: int) -> list[Candidate]:
    """The `k` best figures/tables for `question`, with the fused score and each signal's score."""
    return [Candidate(figure=hit.item, score=hit.score, scores=hit.scores) for hit in paper_index(paper).search(question, k)]


def paper_index(paper: Paper) -> FigureIndex:
    """The paper's index from the process's store, answering with this `Paper`'s own items."""
    from retrieval.store import get_store

    return get_store().figures(paper)
