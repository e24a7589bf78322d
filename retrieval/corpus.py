"""`CorpusIndex`: one index over the figures, tables and passages of many papers, with per-paper filtering.

For a library of papers (an anchor and the papers it cites), SPIQA-scale evaluation and
multi-paper search. Items are scored with the same signals and fusion as `FigureIndex`; passages
by BM25 (`retrieval.passage_index`); BM25 statistics are corpus-wide. Dense search is exact (FAISS flat
inner product) up to ~1M vectors and IVF above that (`SPIQA_CORPUS_INDEX` = flat | ivf | hnsw |
auto). A search restricted to some papers scores all their items exactly; an unrestricted search
first gathers candidates (nearest vectors and best BM25 documents) and then scores those.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from retrieval import dense as dense_ops
from retrieval.documents import ItemDocument, item_document
from retrieval.embedder import Embedder, get_embedder
from retrieval.fusion import FusionConfig
from retrieval.hits import Hit, PassageHit
from retrieval.index import _atomic_write, _vector_texts, check_query, encode_unique, ranked_hits, score_candidates
from retrieval.lexical import BM25Index
from retrieval.paper_rows import PaperRows
from retrieval.passage_index import PassageIndex
from spiqa_demo.errors import PaperError
from spiqa_demo.types import Figure, Paper, Passage

if TYPE_CHECKING:
    import faiss

ITEMS_FILE = "items.json"
INDEX_FILE = "corpus.faiss"


class CorpusIndex:
    """Dense + BM25 + label retrieval of items and BM25 of passages over many papers;
    `search(..., papers=[...])` and `search_passages(..., papers=[...])` filter."""

    def __init__(
        self,
        keys: list[str],
        items: list[Figure],
        lexical: list[str],
        faiss_index: faiss.Index | None,
        owners: np.ndarray,
        main_rows: np.ndarray,
        embedder: Embedder,
        config: FusionConfig | None = None,
        passages: PassageIndex | None = None,
        papers: list[str] | None = None,
    ) -> None:
        papers = list(dict.fromkeys(papers if papers is not None else keys))
        self.keys = keys  # paper key of each item
        self.items = items
        self.embedder = embedder
        self.config = config or FusionConfig()
        self._faiss = faiss_index
        self._owners = owners
        self._main_rows = main_rows
        self._row_end = np.append(main_rows[1:], len(owners)).astype(np.int64)
        self._lexical = lexical
        self._bm25 = BM25Index(lexical)
        self._rows = PaperRows(papers, keys)
        self.passages = passages if passages is not None else PassageIndex(papers, [], [])

    @property
    def papers(self) -> list[str]:
        """The paper keys (those without figures or tables too), in the order they were added."""
        return list(self._rows.papers)

    def __len__(self) -> int:
        return len(self.items)

    @classmethod
    def build(
        cls,
        papers: Mapping[str, Paper | list[Figure]],
        embedder: Embedder | None = None,
        config: FusionConfig | None = None,
        index_kind: str | None = None,
    ) -> CorpusIndex:
        """Index every item of `papers` ({key: Paper or items}); `index_kind` overrides the setting."""
        from spiqa_demo.settings import get_settings

        embedder = embedder or get_embedder()
        keys: list[str] = []
        items: list[Figure] = []
        documents: list[ItemDocument] = []
        passage_keys: list[str] = []
        passages: list[Passage] = []
        for key, paper in papers.items():
            paper_items = paper.items if isinstance(paper, Paper) else list(paper)
            paper_passages = paper.passages if isinstance(paper, Paper) else []
            keys += [str(key)] * len(paper_items)
            items += paper_items
            documents += [item_document(item, paper_passages) for item in paper_items]
            passage_keys += [str(key)] * len(paper_passages)
            passages += paper_passages
        texts, owners, main_rows = _vector_texts(documents)
        kind = dense_ops.choose_kind(index_kind or get_settings().corpus_index, len(texts))
        faiss_index = dense_ops.build_faiss(encode_unique(embedder, texts), kind) if texts else None
        paper_keys = [str(key) for key in papers]
        return cls(
            keys, items, [d.lexical for d in documents], faiss_index, owners, main_rows, embedder, config,
            PassageIndex(paper_keys, passage_keys, passages), paper_keys,
        )  # fmt: skip

    def search(self, question: str, k: int = 5, papers: Iterable[str] | None = None, candidates: int = 100) -> list[Hit]:
        """The `k` best items over all papers, or over `papers` only (unknown keys raise PaperError)."""
        question = check_query(question, k)
        if not self.items:
            return []
        query = self.embedder.encode([question])[0]
        lexical = self._bm25.scores(question)
        chosen = self._rows.rows(papers) if papers is not None else self._candidates(query, lexical, max(candidates, k))
        if chosen.size == 0:
            return []
        dense = np.array([self._dense_item(int(i), query) for i in chosen])
        bm25 = lexical[chosen]
        items = [self.items[int(i)] for i in chosen]
        signals = score_candidates(question, items, dense, bm25, self.config)
        return ranked_hits(items, signals, k, papers=[self.keys[int(i)] for i in chosen])

    def search_passages(self, question: str, k: int = 5, papers: Iterable[str] | None = None) -> list[PassageHit]:
        """The `k` passages sharing most words with `question`, over all papers or `papers` only."""
        return self.passages.search(check_query(question, k), k, papers)

    def _candidates(self, query: np.ndarray, lexical: np.ndarray, count: int) -> np.ndarray:
        """Items owning the nearest vectors, plus the best BM25 items (unrestricted search)."""
        assert self._faiss is not None  # every item has a main text, so there are vectors when there are items
        ids, _ = dense_ops.top_vectors(self._faiss, query, count * 4)
        from_dense = self._owners[ids]
        top = min(count, lexical.size)
        from_bm25 = np.argpartition(-lexical, top - 1)[:top] if top else np.zeros(0, np.int64)
        from_bm25 = from_bm25[lexical[from_bm25] > 0]
        return np.unique(np.concatenate([from_dense, from_bm25]).astype(np.int64))

    def _dense_item(self, item: int, query: np.ndarray) -> float:
        assert self._faiss is not None  # an item has vectors
        scores = dense_ops.all_scores(self._faiss, query, int(self._main_rows[item]), int(self._row_end[item]))
        one_item = np.zeros(len(scores), dtype=np.int64)
        return float(dense_ops.item_scores(scores, one_item, one_item[:1], 1, self.config.dense_views)[0])

    def save(self, folder: Path) -> None:
        """Write the corpus (vectors, items and their paper keys) to `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        payload = {
            "model": self.embedder.signature,
            "papers": self.papers,
            "keys": self.keys,
            "items": [asdict(item) for item in self.items],
            "passage_keys": self.passages.keys,
            "passages": [asdict(passage) for passage in self.passages.passages],
            "lexical": self._lexical,
            "owners": self._owners.tolist(),
            "main_rows": self._main_rows.tolist(),
        }
        if self._faiss is not None:
            _atomic_write(folder / INDEX_FILE, lambda tmp: dense_ops.save_faiss(self._faiss, tmp))
        _atomic_write(folder / ITEMS_FILE, lambda tmp: tmp.write_text(json.dumps(payload), encoding="utf-8"))

    @classmethod
    def load(cls, folder: Path, embedder: Embedder | None = None, config: FusionConfig | None = None) -> CorpusIndex:
        """A corpus saved by `save`; PaperError when missing, damaged or built with another model."""
        embedder = embedder or get_embedder()
        try:
            payload = json.loads((folder / ITEMS_FILE).read_text(encoding="utf-8"))
            items = [Figure.from_dict(d) for d in payload["items"]]
            papers = list(payload["papers"])
            passages = PassageIndex(papers, payload["passage_keys"], [Passage.from_dict(d) for d in payload["passages"]])
            faiss_index = dense_ops.load_faiss(folder / INDEX_FILE) if items else None
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise PaperError(f"cannot read the corpus index in {folder}: {exc}") from exc
        if payload.get("model") != embedder.signature:
            raise PaperError(f"the corpus in {folder} was built with {payload.get('model')!r}, not {embedder.signature!r}; rebuild it")
        owners = np.asarray(payload["owners"], dtype=np.int64)
        main_rows = np.asarray(payload["main_rows"], dtype=np.int64)
        return cls(payload["keys"], items, payload["lexical"], faiss_index, owners, main_rows, embedder, config, passages, papers)
