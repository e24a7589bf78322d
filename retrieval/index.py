"""`FigureIndex`: find the figure or table of one paper that answers a question.

Build it from a `Paper` (or its items) once — embedding each item's texts and indexing them for
BM25 — then `search(question, k)` returns ranked `Hit`s with their per-signal scores. It saves
to and loads from a folder (the app keeps it beside the paper's extraction cache); a saved index
whose model or item texts no longer match is ignored and rebuilt.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from retrieval import dense as dense_ops
from retrieval.documents import ItemDocument, item_document
from retrieval.embedder import Embedder, get_embedder
from retrieval.fusion import FusionConfig, fuse, kind_prior
from retrieval.hits import Hit
from retrieval.lexical import BM25Index, WordShare, single_words, tokenize
from retrieval.table_match import TableMatcher, TableTerms
from spiqa_demo.files import write_whole
from spiqa_demo.paper_text import find_label_refs, part_qualified
from spiqa_demo.questions import check_k, check_question
from spiqa_demo.types import Figure, Paper, Passage, RetrievalScores

if TYPE_CHECKING:
    import faiss

SCHEMA_VERSION = 1
INDEX_FILE = "index.faiss"
META_FILE = "meta.json"


def check_query(question: str, k: int) -> str:
    """The checked question's text (`spiqa_demo.questions`); `InputError` when it is empty or `k` < 1."""
    text = check_question(question).text
    check_k(k)
    return text


def fingerprint(documents: list[ItemDocument], embedder_signature: str) -> str:
    """Identifies the indexed texts and embedder: a saved index is reused only when this matches."""
    payload = json.dumps([embedder_signature, SCHEMA_VERSION, [(d.main, d.views, d.lexical) for d in documents]])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def content_key(paper: Paper | list[Figure], embedder_signature: str) -> str:
    """Identifies an index of `paper` by what it holds (its items' ids and indexed texts, and the
    embedder): papers with equal keys can share one index, each answering with its own items."""
    items, passages = _items_and_passages(paper)
    documents = [item_document(item, passages) for item in items]
    payload = json.dumps([[item.id for item in items], fingerprint(documents, embedder_signature)])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Signals:
    """Every signal for every candidate of one question (arrays aligned with the candidates)."""

    dense: np.ndarray
    bm25: np.ndarray
    prior: np.ndarray
    labelled: np.ndarray  # the question names this item ("Table 3"); always False with labels off
    fused: np.ndarray
    structure: np.ndarray | None = None  # the table-structure match; None when no item has a structure
    own: np.ndarray | None = None  # the own-words share (`retrieval.lexical.WordShare`); None: not measured

    def order(self) -> np.ndarray:
        """Candidate positions best first: label hits, then by fused score (ties keep input order)."""
        return np.lexsort((np.arange(len(self.fused)), -self.fused, ~self.labelled))


def score_candidates(
    question: str,
    items: list[Figure],
    dense: np.ndarray,
    bm25: np.ndarray,
    config: FusionConfig,
    structure: np.ndarray | None = None,
    own: np.ndarray | None = None,
) -> Signals:
    """Label hits, kind prior and fusion over one question's candidate items."""
    present = {(i.kind, i.number) for i in items}
    refs = set(part_qualified(find_label_refs(question), present)) if config.labels else set()
    labelled = np.array([bool(i.number) and (i.kind, i.number) in refs for i in items], dtype=bool)
    prior = kind_prior(question, [i.kind for i in items], config)
    return Signals(dense, bm25, prior, labelled, fuse(dense, bm25, prior, config, structure, own), structure, own)


def ranked_hits(items: list[Figure], signals: Signals, k: int) -> list[Hit]:
    """The top `k` candidates as `Hit`s (ties keep the candidates' order)."""
    order = signals.order()[:k]
    return [
        Hit(
            item=items[i],
            rank=rank,
            score=float(signals.fused[i]),
            scores=RetrievalScores(
                dense=float(signals.dense[i]),
                bm25=float(signals.bm25[i]),
                label=bool(signals.labelled[i]),
                prior=float(signals.prior[i]),
                table=0.0 if signals.structure is None else float(signals.structure[i]),
            ),
        )
        for rank, i in enumerate(order, start=1)
    ]


class FigureIndex:
    """Dense (FAISS) + BM25 + label retrieval over the items of one paper."""

    def __init__(
        self,
        items: list[Figure],
        documents: list[ItemDocument],
        faiss_index: faiss.Index | None,
        owners: np.ndarray,
        main_rows: np.ndarray,
        embedder: Embedder,
        config: FusionConfig | None = None,
    ) -> None:
        self.items = items
        self.documents = documents
        self.embedder = embedder
        self.config = config or FusionConfig()
        self._faiss = faiss_index
        self._owners = owners
        self._main_rows = main_rows
        self._bm25 = BM25Index([d.lexical for d in documents])
        self._tables = TableMatcher([TableTerms.of(item.table) for item in items], [d.lexical for d in documents])
        # Off where no item prints words (SPIQA's captions): see `retrieval.fusion`.
        self._own = WordShare([d.own for d in documents]) if any(item.text.strip() for item in items) else None

    def __len__(self) -> int:
        return len(self.items)

    @classmethod
    def build(cls, paper: Paper | list[Figure], embedder: Embedder | None = None, config: FusionConfig | None = None) -> FigureIndex:
        """Index a paper's figures and tables (embeds their texts once; `load_or_build` caches them)."""
        items, passages = _items_and_passages(paper)
        embedder = embedder or get_embedder()
        documents = [item_document(item, passages) for item in items]
        texts, owners, main_rows = _vector_texts(documents)
        vectors = encode_unique(embedder, texts)
        faiss_index = dense_ops.build_faiss(vectors) if texts else None
        return cls(items, documents, faiss_index, owners, main_rows, embedder, config)

    @staticmethod
    def texts(paper: Paper | list[Figure]) -> list[str]:
        """The texts `build` embeds for `paper`: callers indexing many papers encode them in one pass."""
        items, passages = _items_and_passages(paper)
        return _vector_texts([item_document(item, passages) for item in items])[0]

    def signals(self, question: str, query_vector: np.ndarray | None = None) -> Signals:
        """All signals for every item (for explanations, benchmarks and ablations).

        `query_vector` is the question's embedding when the caller encoded questions in a batch.
        """
        question = check_query(question, 1)
        if not self.items:
            empty = np.zeros(0)
            return Signals(empty, empty, empty, np.zeros(0, bool), empty)
        query = self.embedder.encode([question])[0] if query_vector is None else query_vector
        assert self._faiss is not None  # every item has a main text, so there are vectors when there are items
        vector_scores = dense_ops.all_scores(self._faiss, query)
        dense = dense_ops.item_scores(vector_scores, self._owners, self._main_rows, len(self.items), self.config.dense_views)
        tokens = tokenize([question])[0]
        structure = self._tables.scores(question, tokens) if self._tables.active else None
        own = None if self._own is None else self._own.shares(single_words(tokens), unseen=True)
        return score_candidates(question, self.items, dense, self._bm25.token_scores(tokens), self.config, structure, own)

    def search(self, question: str, k: int = 5, query_vector: np.ndarray | None = None) -> list[Hit]:
        """The `k` items most likely to answer `question`, best first (fewer if the paper has fewer)."""
        check_query(question, k)
        return ranked_hits(self.items, self.signals(question, query_vector), k)

    def over(self, items: list[Figure]) -> FigureIndex:
        """This index answering with `items`: the indexed items (same ids, in order) as another copy
        of the paper holds them, whose crops may lie elsewhere (another cache folder, annotations kept)."""
        if [item.id for item in items] != [item.id for item in self.items]:
            raise ValueError("these are not the indexed items")
        bound = copy.copy(self)
        bound.items = list(items)
        return bound

    def save(self, folder: Path) -> None:
        """Write the index to `folder` (atomically: a crash leaves the previous copy intact)."""
        folder.mkdir(parents=True, exist_ok=True)
        meta = {
            "schema_version": SCHEMA_VERSION,
            "model": self.embedder.model_name,
            "fingerprint": fingerprint(self.documents, self.embedder.signature),
            "owners": self._owners.tolist(),
            "main_rows": self._main_rows.tolist(),
            "has_vectors": self._faiss is not None,
        }
        vectors = self._faiss
        if vectors is not None:
            write_whole(folder / INDEX_FILE, lambda tmp: dense_ops.save_faiss(vectors, tmp))
        write_whole(folder / META_FILE, lambda tmp: tmp.write_text(json.dumps(meta), encoding="utf-8"))

    @classmethod
    def load(
        cls, folder: Path, paper: Paper | list[Figure], embedder: Embedder | None = None, config: FusionConfig | None = None
    ) -> FigureIndex | None:
        """The index saved in `folder` for these items, or None when absent, unreadable or stale."""
        items, passages = _items_and_passages(paper)
        embedder = embedder or get_embedder()
        try:
            meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
            documents = [item_document(item, passages) for item in items]
            if meta.get("fingerprint") != fingerprint(documents, embedder.signature):
                return None
            faiss_index = dense_ops.load_faiss(folder / INDEX_FILE) if meta["has_vectors"] else None
        except (OSError, ValueError, KeyError, RuntimeError):
            return None
        owners = np.asarray(meta["owners"], dtype=np.int64)
        main_rows = np.asarray(meta["main_rows"], dtype=np.int64)
        if faiss_index is not None and faiss_index.ntotal != len(owners):
            return None
        return cls(items, documents, faiss_index, owners, main_rows, embedder, config)

    @classmethod
    def load_or_build(
        cls, paper: Paper | list[Figure], folder: Path | None, embedder: Embedder | None = None, config: FusionConfig | None = None
    ) -> FigureIndex:
        """The saved index in `folder` when it is current, else a new one (saved there when possible)."""
        if folder is not None and (index := cls.load(folder, paper, embedder, config)) is not None:
            return index
        index = cls.build(paper, embedder, config)
        if folder is not None:
            with contextlib.suppress(OSError):  # a read-only cache only costs a rebuild next time
                index.save(folder)
        return index


def _items_and_passages(paper: Paper | list[Figure]) -> tuple[list[Figure], list[Passage]]:
    if isinstance(paper, Paper):
        return list(paper.items), paper.passages
    return list(paper), []


def encode_unique(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Embeddings of `texts`, each distinct text encoded once (paragraphs often cite several items)."""
    if not texts:
        return np.zeros((0, 1), dtype=np.float32)
    unique = list(dict.fromkeys(texts))
    vectors = embedder.encode(unique)
    row = {text: i for i, text in enumerate(unique)}
    return vectors[[row[text] for text in texts]]


def _vector_texts(documents: list[ItemDocument]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Texts to embed, the item owning each, and the row of each item's main text."""
    texts: list[str] = []
    owners: list[int] = []
    main_rows: list[int] = []
    for i, document in enumerate(documents):
        main_rows.append(len(texts))
        for text in (document.main, *document.views):
            texts.append(text)
            owners.append(i)
    return texts, np.asarray(owners, dtype=np.int64), np.asarray(main_rows, dtype=np.int64)
