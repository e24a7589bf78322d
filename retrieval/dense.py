"""Dense vectors in FAISS: exact inner product (cosine on unit vectors), or IVF/HNSW for big corpora.

An item owns several vectors (its main text and its views, see `retrieval.documents`); its dense
score is the mean of its main-text cosine and its best cosine over all its vectors: the whole
caption carries the topic, one sentence can match a narrow question better, and the mean beats
either alone (the ablation rows of `python -m benchmarks.retrieval`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:  # FAISS is imported on first use, so importing retrieval stays light
    import faiss

IndexKind = Literal["flat", "ivf", "hnsw"]

# Above this many vectors `auto` switches from exact search to IVF (the issue's ~1M guidance).
FLAT_LIMIT = 1_000_000


def build_faiss(vectors: np.ndarray, kind: IndexKind = "flat") -> faiss.Index:
    """A FAISS inner-product index holding `vectors` (ids = row numbers)."""
    import faiss

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, dim = vectors.shape
    if kind == "ivf":
        nlist = max(1, min(int(4 * np.sqrt(max(n, 1))), max(n // 39, 1)))  # FAISS wants >= 39 points per list
        ivf = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
        ivf.train(vectors)
        ivf.nprobe = min(nlist, 16)
        if n:
            ivf.add(vectors)
        ivf.make_direct_map()
        return ivf
    index: faiss.Index
    if kind == "hnsw":
        hnsw = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efSearch = 128
        index = hnsw
    else:
        index = faiss.IndexFlatIP(dim)
    if n:
        index.add(vectors)
    return index


def choose_kind(setting: str, count: int) -> IndexKind:
    """The index kind for `count` vectors given the `SPIQA_CORPUS_INDEX` setting."""
    if setting in ("flat", "ivf", "hnsw"):
        return setting  # type: ignore[return-value]  # checked against the literal's values just above
    return "flat" if count <= FLAT_LIMIT else "ivf"


def all_scores(index: faiss.Index, query: np.ndarray, start: int = 0, stop: int | None = None) -> np.ndarray:
    """Inner product of `query` with every vector in rows [start, stop) (exact, from stored vectors)."""
    stop = index.ntotal if stop is None else stop
    if stop <= start:
        return np.zeros(0, dtype=np.float32)
    vectors = index.reconstruct_n(start, stop - start)
    return vectors @ np.asarray(query, dtype=np.float32).reshape(-1)


def top_vectors(index: faiss.Index, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ids and scores of the `k` vectors nearest to `query` (fewer when the index is smaller)."""
    k = min(k, index.ntotal)
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    scores, ids = index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), k)
    keep = ids[0] >= 0
    return ids[0][keep], scores[0][keep]


def item_scores(
    vector_scores: np.ndarray, owners: np.ndarray, main_rows: np.ndarray, n_items: int, views: bool = True
) -> np.ndarray:
    """Per item: mean of its main-vector score and its best vector score (see module docstring);
    its main-vector score alone when `views` is off."""
    main = vector_scores[main_rows].astype(np.float64)
    if not views:
        return main
    best = np.full(n_items, -1.0, dtype=np.float64)
    np.maximum.at(best, owners, vector_scores)
    return 0.5 * (main + best)


def save_faiss(index: faiss.Index, path: Path) -> None:
    import faiss

    faiss.write_index(index, str(path))


def load_faiss(path: Path) -> faiss.Index:
    import faiss

    index = faiss.read_index(str(path))
    if isinstance(index, faiss.IndexIVF):
        index.make_direct_map()
    return index
