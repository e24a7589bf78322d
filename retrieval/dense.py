"""Dense vectors in FAISS: exact inner product (cosine on unit vectors) over one paper's items.

An item owns several vectors (its main text and its views, see `retrieval.documents`); its dense
score is the mean of its main-text cosine and its best cosine over all its vectors: the whole
caption carries the topic, one sentence can match a narrow question better, and the mean beats
either alone (the ablation rows of `python -m benchmarks.retrieval`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # FAISS is imported on first use, so importing retrieval stays light
    import faiss


def build_faiss(vectors: np.ndarray) -> faiss.Index:
    """A FAISS exact inner-product index holding `vectors` (ids = row numbers)."""
    import faiss

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, dim = vectors.shape
    index = faiss.IndexFlatIP(dim)
    if n:
        index.add(vectors)
    return index


def all_scores(index: faiss.Index, query: np.ndarray, start: int = 0, stop: int | None = None) -> np.ndarray:
    """Inner product of `query` with every vector in rows [start, stop) (exact, from stored vectors)."""
    stop = index.ntotal if stop is None else stop
    if stop <= start:
        return np.zeros(0, dtype=np.float32)
    vectors = index.reconstruct_n(start, stop - start)
    return vectors @ np.asarray(query, dtype=np.float32).reshape(-1)


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

    return faiss.read_index(str(path))
