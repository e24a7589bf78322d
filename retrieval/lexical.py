"""Lexical retrieval: BM25 (the `bm25s` package) over stemmed words and word bigrams.

Tokens are lower-cased words of two or more characters, English stop words removed, Snowball-
stemmed when PyStemmer is installed, plus adjacent-word bigrams so that phrases ("true
gradient", "mean squared error") count more than their words apart; stemming and bigrams each
raise BM25's top-1 on SPIQA captions.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import pairwise

import numpy as np

# bm25s cannot index a corpus without any token; empty documents hold this placeholder.
_EMPTY = "\x00"


@lru_cache(maxsize=1)
def _stemmer():
    try:
        import Stemmer
    except ImportError:
        return None
    return Stemmer.Stemmer("english")


def tokenize(texts: list[str]) -> list[list[str]]:
    """Stemmed words and bigrams per text (see module docstring)."""
    import bm25s

    words = bm25s.tokenize(
        [t or "" for t in texts], stopwords="en_plus", stemmer=_stemmer(), return_ids=False, show_progress=False
    )
    return [list(w) + [f"{a} {b}" for a, b in pairwise(w)] for w in words]


class BM25Index:
    """A BM25 index over a fixed list of documents; `scores(query)` rates every document."""

    def __init__(self, documents: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        import bm25s

        self.size = len(documents)
        self._bm25 = None
        if documents:
            self._bm25 = bm25s.BM25(k1=k1, b=b)
            self._bm25.index([tokens or [_EMPTY] for tokens in tokenize(documents)], show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for `query` (zeros when no query word is indexed)."""
        return self.token_scores(tokenize([query])[0])

    def token_scores(self, tokens: list[str]) -> np.ndarray:
        """BM25 score of every document for a query already tokenized by `tokenize`."""
        if self._bm25 is None or not tokens:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float32)
