"""The default shortlist: the `retrieval` package's ranking of a paper's figures and tables.

One `FigureIndex` per paper is kept in memory (the last few papers, keyed by the PDF's hash and
its items' texts), so follow-up questions about a paper cost one query embedding, not a rebuild.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

from spiqa_demo.qa.answer import Candidate
from spiqa_demo.types import Paper

MAX_INDEXES = 8

_indexes: OrderedDict[str, Any] = OrderedDict()
_lock = threading.Lock()


def retrieval_shortlist(paper: Paper, question: str, k: int) -> list[Candidate]:
    """The `k` best figures/tables for `question`, with the fused score and each signal's score."""
    index = _index(paper)
    position = {id(item): i for i, item in enumerate(index.items)}
    return [
        Candidate(
            figure=paper.items[position[id(hit.item)]],  # this Paper's object, not the indexed copy
            score=hit.score,
            scores={"dense": hit.dense, "bm25": hit.bm25, "label": float(hit.label), "prior": hit.prior},
        )
        for hit in index.search(question, k)
    ]


def build_index(paper: Paper) -> None:
    """Build the paper's index now (kept in memory), so its first question costs one query embedding."""
    _index(paper)


def _key(paper: Paper) -> str:
    texts = [(f.id, f.caption, f.text, [m.sentence for m in f.mentions]) for f in paper.items]
    return hashlib.sha256(repr((paper.sha256, texts)).encode("utf-8")).hexdigest()


def _index(paper: Paper) -> Any:
    from retrieval.index import FigureIndex

    key = _key(paper)
    with _lock:
        if key in _indexes:
            _indexes.move_to_end(key)
            return _indexes[key]
    index = FigureIndex.build(paper)
    with _lock:
        _indexes[key] = index
        while len(_indexes) > MAX_INDEXES:
            _indexes.popitem(last=False)
    return index
