"""`IndexStore`: the one place a process gets its retrieval indexes, each built once.

A paper's figure/table index embeds its items' texts, most of what a paper's first question costs;
a set of papers' passage index tokenizes every paragraph. Both are asked for again and again (each
question of a chat, each question across a library, another visitor opening the same paper), so
the store keeps them: in memory (the last few, keyed by what they index, so an equal copy of a
paper shares its index), then in the folder the caller names (a saved figure index loads without
embedding, in another process or a later run), else built (and saved there).

Folders are the caller's: retrieval knows nothing of the extraction cache, beside whose entry the
library (`spiqa_demo.library.open_paper`) has a paper's index saved.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np

from retrieval import dense as dense_ops
from retrieval.embedder import Embedder, get_embedder
from retrieval.index import FigureIndex, content_key
from retrieval.lexical import BM25Index
from retrieval.passage_index import PassageIndex
from spiqa_demo.types import Paper

FIGURE_INDEXES = 8  # papers whose figure indexes stay in memory
PASSAGE_INDEXES = 8  # sets of papers whose passage indexes stay in memory
# Where each paper's index was saved, kept far longer than the indexes themselves (a path is small):
# a question about a paper whose index has left memory loads it from there instead of embedding.
SAVED_FOLDERS = 4096

V = TypeVar("V")


class _Recent(Generic[V]):
    """The `capacity` most recently used values by key; the least recently used goes first."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._values: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> V | None:
        with self._lock:
            if key not in self._values:
                return None
            self._values.move_to_end(key)
            return self._values[key]

    def put(self, key: str, value: V) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.capacity:
                self._values.popitem(last=False)


def passages_key(papers: Mapping[str, Paper]) -> str:
    """What a passage index of `papers` holds: each paper key with its passages, in order."""
    payload = [[key, [asdict(p) for p in paper.passages]] for key, paper in papers.items()]
    return hashlib.sha256(json.dumps(payload, default=str).encode("utf-8")).hexdigest()


class IndexStore:
    """Figure/table indexes of single papers and passage indexes of sets of papers, each built once
    (see the module docstring); `embedder` encodes every figure index the store builds."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder or get_embedder()
        self._figures: _Recent[FigureIndex] = _Recent(FIGURE_INDEXES)
        self._folders: _Recent[Path] = _Recent(SAVED_FOLDERS)
        self._passages: _Recent[PassageIndex] = _Recent(PASSAGE_INDEXES)

    def warm(self) -> None:
        """Load the encoder and the libraries the indexes are built and searched with (FAISS, bm25s and
        its stemmer, imported on first use so that importing retrieval stays light), so that a process's
        first paper or question waits for none of them."""
        self.embedder.load()
        dense_ops.build_faiss(np.zeros((1, self.embedder.dim), dtype=np.float32))
        BM25Index(["warm"])

    def figures(self, paper: Paper, folder: Path | None = None) -> FigureIndex:
        """The paper's figure/table index, answering with this `Paper`'s own items: from memory (an
        index built for an equal copy, rebound), else saved in `folder` (or wherever an earlier call
        named for this paper), else built (and saved there)."""
        key = content_key(paper, self.embedder.signature)
        if folder is not None:
            self._folders.put(key, folder)
        found = self._figures.get(key)
        if found is not None:
            return found.over(list(paper.items))
        index = FigureIndex.load_or_build(paper, self._folders.get(key), self.embedder)
        self._figures.put(key, index)
        return index

    def passages(self, papers: Mapping[str, Paper]) -> PassageIndex:
        """BM25 over the passages of `papers` ({key: paper}), searched whole or per paper; the BM25
        statistics are those of these papers together. Nothing is embedded, so nothing is saved."""
        key = passages_key(papers)
        found = self._passages.get(key)
        if found is None:
            pairs = [(paper_key, passage) for paper_key, paper in papers.items() for passage in paper.passages]
            found = PassageIndex(list(papers), [paper_key for paper_key, _ in pairs], [passage for _, passage in pairs])
            self._passages.put(key, found)
        return found


def get_store(embedder: Embedder | None = None) -> IndexStore:
    """The process's store for `embedder` (default: `get_embedder()`): the app, the CLI and the
    library share it, so an index one of them built serves the others."""
    return _store_for(embedder or get_embedder())


@lru_cache(maxsize=4)
def _store_for(embedder: Embedder) -> IndexStore:
    return IndexStore(embedder)
