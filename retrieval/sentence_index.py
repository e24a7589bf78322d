"""`SentenceIndex`: BM25 over one paper's sentences and adjacent sentence pairs, with the word
weights and mean length of the whole paper.

The no-model answer quotes the sentence (or two adjacent sentences) of the paragraphs it reads that
best matches the question. Scored by a BM25 built over those sentences alone, a sentence's score
depended on which paragraphs sat beside it (a word's weight fell when another paragraph of the pool
repeated it), so reading more paragraphs changed which sentence of the same paragraph won. Here the
statistics are the paper's, fixed when the index is built: a sentence scores the same whatever is
read beside it, and any text (a sentence with the words of its heading) is scored against them.
Scores are given as fractions of the best score any sentence or pair of the paper gets for the
question, a scale that does not depend on the pool either.

Words alone miss an answer that says what was asked in other words ("Which frameworks ...?" and
"We use MXNet ... and PyTorch ..."), and they let a sentence that repeats the question's words
without answering it win. So the few best candidates by words are reranked with the similarity of
their MiniLM vectors to the question's (`reranked`): only those few, since encoding a sentence costs
far more than scoring it by words; each vector is kept for the next question about the paper.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from retrieval.embedder import Embedder
from retrieval.lexical import idf, tokenize
from spiqa_demo.paper_text import split_sentences
from spiqa_demo.types import Passage

K1 = 1.2  # BM25's saturation of a repeated word, as `lexical.BM25Index`
B = 0.75  # BM25's length normalisation, as `lexical.BM25Index`
RERANKED = 4  # the best candidates by words that are reranked by their vectors' similarity to the question
CLOSENESS_WEIGHT = 0.7  # added to a reranked candidate's score times its cosine similarity to the question


def passage_sentences(passage: Passage) -> list[str]:
    """The passage's sentences, whitespace collapsed (empty ones left out)."""
    return [s for s in (" ".join(part.split()) for part in split_sentences(passage.text)) if s]


def _words(text: str) -> str:
    # An identifier's words are words: "warmup_steps" is what a question asks as "warmup steps".
    return text.replace("_", " ")


class SentenceIndex:
    """Every sentence and adjacent pair of sentences of `passages` (one paper's), scored by BM25 with
    the statistics of all of them (see the module docstring)."""

    def __init__(self, passages: Sequence[Passage], embedder: Embedder | None = None) -> None:
        self.embedder = embedder
        self._vectors: dict[str, np.ndarray] = {}
        documents: list[str] = []
        for passage in passages:
            sentences = passage_sentences(passage)
            documents += sentences + [f"{a} {b}" for a, b in pairwise(sentences)]
        tokens = tokenize([_words(d) for d in documents]) if documents else []
        self.size = len(tokens)
        self._lengths = np.array([len(t) for t in tokens], dtype=np.float64)
        self._mean_length = float(self._lengths.mean()) if self.size and self._lengths.mean() > 0 else 1.0
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for row, counts in enumerate(Counter(t) for t in tokens):
            for token, count in counts.items():
                rows, tfs = postings.setdefault(token, ([], []))
                rows.append(row)
                tfs.append(count)
        self._postings = {t: (np.array(rows), np.array(tfs, dtype=np.float64)) for t, (rows, tfs) in postings.items()}

    def _weight(self, token: str) -> float:
        held = self._postings.get(token)
        return idf(self.size, 0 if held is None else len(held[0]))

    def _best(self, query: Sequence[str]) -> float:
        """The highest BM25 score of a sentence or pair of the paper for the tokenized `query`."""
        scores = np.zeros(self.size)
        for token in query:
            if token in self._postings:
                rows, tfs = self._postings[token]
                norm = K1 * (1 - B + B * self._lengths[rows] / self._mean_length)
                scores[rows] += self._weight(token) * tfs * (K1 + 1) / (tfs + norm)
        return float(scores.max()) if self.size else 0.0

    def scores(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """Per text, its BM25 score for `question` with the paper's statistics, as a fraction of the
        best score of the paper's sentences and pairs (a text may score above 1: one holding words
        the paper's sentences do not, such as its heading's); of the best text's when no sentence of
        the paper holds a word of the question; zeros when no text does either."""
        query = sorted(set(tokenize([question])[0]))
        if not texts:
            return np.zeros(0)
        weights = {t: self._weight(t) for t in query}
        out = np.zeros(len(texts))
        for i, tokens in enumerate(tokenize([_words(t) for t in texts])):
            counts = Counter(tokens)
            norm = K1 * (1 - B + B * len(tokens) / self._mean_length)
            out[i] = sum(w * counts[t] * (K1 + 1) / (counts[t] + norm) for t, w in weights.items() if counts[t])
        best = self._best(query) or float(out.max())
        return out / best if best > 0 else out

    def closeness(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """Per text (a sentence, or adjacent sentences), the cosine similarity between its MiniLM
        vector and the question's; zeros without an embedder. A text's vector is kept once computed:
        the next question about the paper reads many of the same sentences."""
        if self.embedder is None or not texts:
            return np.zeros(len(texts))
        new = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if new:
            self._vectors.update(zip(new, self.embedder.encode(new)))
        asked = self.embedder.encode([question])[0]
        return np.array([float(self._vectors[t] @ asked) for t in texts])

    def reranked(self, question: str, texts: Sequence[str], scores: np.ndarray) -> np.ndarray:
        """`scores` (of `texts`, higher is better) with the `RERANKED` best raised by
        `CLOSENESS_WEIGHT` times their similarity to the question (`closeness`)."""
        best = np.argsort(-scores, kind="stable")[:RERANKED]
        out = np.array(scores, dtype=np.float64)
        out[best] += CLOSENESS_WEIGHT * self.closeness(question, [texts[i] for i in best])
        return out
