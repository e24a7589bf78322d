"""Lexical retrieval: BM25 (the `bm25s` package) over stemmed words and word bigrams.

Tokens are lower-cased words of two or more characters, English stop words removed, Snowball-
stemmed when PyStemmer is installed, plus adjacent-word bigrams so that phrases ("true
gradient", "mean squared error") count more than their words apart; stemming and bigrams each
raise BM25's top-1 on SPIQA captions.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
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


def single_words(tokens: Iterable[str]) -> frozenset[str]:
    """The words among `tokenize`'s tokens (its word-pair tokens left out)."""
    return frozenset(t for t in tokens if " " not in t)


def rarity(documents: list[frozenset[str]]) -> dict[str, float]:
    """Each word's weight by how few of `documents` hold it (BM25's idf): a word every document
    holds says little about which one is meant."""
    counts = Counter(word for words in documents for word in words)
    return {word: idf(len(documents), c) for word, c in counts.items()}


def idf(documents: int, holding: int) -> float:
    """BM25's weight of a word `holding` of `documents` hold (bm25s's, Lucene's)."""
    return math.log(1 + (documents - holding + 0.5) / (holding + 0.5))


class WordShare:
    """How much of a question's words each document holds: the rarity-weighted share (0..1) of the
    asked words found in it. Unlike BM25 it neither rewards a word's repeats nor penalises a long
    document: it asks only whether the document prints the words that tell it from the others."""

    def __init__(self, documents: list[str]) -> None:
        self._words = [single_words(tokens) for tokens in tokenize(documents)] if documents else []
        self._weight = rarity(self._words)
        self._unseen = idf(len(self._words), 0)

    def shares(self, asked: frozenset[str], unseen: bool = False) -> np.ndarray:
        """Per document, the weighted share of `asked` (stemmed words, as `single_words` gives
        them) it holds; zeros when no asked word is in any document. `unseen`: the asked words no
        document holds count in the whole, as the rarest words, so that a document holding the
        only one of five asked words the documents know does not hold "all" of the question."""
        total = sum(self._weight.get(w, self._unseen if unseen else 0.0) for w in asked)
        if total <= 0:
            return np.zeros(len(self._words))
        return np.array([sum(self._weight.get(w, 0.0) for w in asked & words) / total for words in self._words])


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
