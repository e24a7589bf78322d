"""The default shortlist: the `retrieval` package's ranking of a paper's figures and tables.

`paper_index` is the one way to a paper's `FigureIndex`: kept in memory (the last few papers, keyed
by the PDF's hash and its items' texts), so follow-up questions cost one query embedding, and saved
beside the paper's extraction cache entry, so another process or a later run loads it instead of
embedding again. The chat, the cross-paper answer and `search` all get it here.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.qa.answer import Candidate
from spiqa_demo.types import Paper

if TYPE_CHECKING:  # at run time retrieval is imported on the first search, so importing QA stays light
    from retrieval.index import FigureIndex

MAX_INDEXES = 8

_indexes: OrderedDict[str, FigureIndex] = OrderedDict()
_lock = threading.Lock()


def retrieval_shortlist(paper: Paper, question: str, k: int) -> list[Candidate]:
    """The `k` best figures/tables for `question`, with the fused score and each signal's score."""
    return [Candidate(figure=hit.item, score=hit.score, scores=hit.scores) for hit in paper_index(paper).search(question, k)]


def build_index(paper: Paper) -> None:
    """Build (or load) the paper's index now, so its first question costs one query embedding."""
    paper_index(paper)


def _key(paper: Paper) -> str:
    texts = [(f.id, f.caption, f.text, [m.sentence for m in f.mentions]) for f in paper.items]
    return hashlib.sha256(repr((paper.sha256, texts)).encode("utf-8")).hexdigest()


def _saved_in(paper: Paper) -> Path | None:
    """Where the index is saved: beside the paper's extraction cache entry; None for a paper not
    extracted into the cache (a SPIQA entry built from its JSON)."""
    if not paper.sha256:
        return None
    from spiqa_demo.extraction.cache import paper_cache_dir

    entry = paper_cache_dir(paper)
    return entry / "retrieval" if (entry / "paper.json").is_file() else None


def paper_index(paper: Paper) -> FigureIndex:
    """The paper's index, answering with this `Paper`'s own items: from memory (an index built for an
    equal copy, rebound), else saved beside its extraction cache, else built (and saved)."""
    from retrieval.index import FigureIndex

    key = _key(paper)
    with _lock:
        if key in _indexes:
            _indexes.move_to_end(key)
            return _indexes[key].over(list(paper.items))
    index = FigureIndex.load_or_build(paper, _saved_in(paper))
    with _lock:
        _indexes[key] = index
        while len(_indexes) > MAX_INDEXES:
            _indexes.popitem(last=False)
    return index
