"""How well a question matches a table's structure: its column headings, row names and cells.

A question that names a dataset and a metric ("best on Yelp2018 in ndcg@20") is answered by the
table whose headings hold both, more surely than by a plot whose axis names them; one naming a
method is answered by the table with that row; a number it quotes is a cell. BM25 over a table's
whole text cannot tell a heading from a cell and dilutes both among the numbers, so each part is
matched on its own: the question's words (stemmed as BM25 reads them) found in the headings, and
in the row names, each weighted by how rare the word is among the paper's items (a word every
item has says nothing about which one), plus the question's numbers found among the cells by
value ("0.80" is the cell "0.8"). Items without a structure (figures, tables read from images)
score 0, so where no table has one the signal is flat and changes no ranking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from retrieval.lexical import idf, rarity, single_words, tokenize
from spiqa_demo.types import TableStructure

# A number as printed: not part of a word ("Yelp2018", "F1"), thousands separators allowed.
_VALUE = re.compile(r"(?<![\w.])[-+\u2212]?\d+(?:,\d{3})*(?:\.\d+)?(?![\w])")


def values_in(text: str) -> frozenset[float]:
    """The numbers printed in `text`, by value."""
    found = set()
    for match in _VALUE.findall(text):
        try:
            found.add(float(match.replace(",", "").replace("\u2212", "-")))
        except ValueError:
            continue
    return frozenset(found)


def _words(text: str) -> frozenset[str]:
    """Stemmed words of `text` as BM25 reads them."""
    return single_words(tokenize([text])[0])


@dataclass(frozen=True)
class TableTerms:
    """What a question can match in one item's table structure (all empty without one)."""

    headings: frozenset[str] = frozenset()
    rows: frozenset[str] = frozenset()
    values: frozenset[float] = frozenset()

    @classmethod
    def of(cls, table: TableStructure | None) -> TableTerms:
        if table is None:
            return cls()
        cells = " ".join(c for row in table.body for c in row[1:])
        return cls(
            headings=_words(" ".join(table.column_headings())),
            rows=_words(" ".join(table.row_names)),
            values=values_in(cells),
        )


class TableMatcher:
    """Scores a question against the table structures of one paper's items (see module docstring).

    `documents` are the items' lexical documents: how many of them hold a word sets its weight.
    """

    def __init__(self, terms: list[TableTerms], documents: list[str]) -> None:
        self.terms = terms
        self.active = any(t.headings or t.rows or t.values for t in terms)
        self._weight: dict[str, float] = {}
        if self.active:
            self._weight = rarity([single_words(tokens) for tokens in tokenize(documents)])

    def scores(self, question: str, tokens: list[str]) -> np.ndarray:
        """The structure match of every item for `question`, whose BM25 `tokens` the caller has
        (zeros when no item has a structure): the rarity-weighted share of the question's words
        found in the headings, plus that found in the row names, plus the share of its numbers
        found among the cells. A share of the question, so that how much of it a table holds can be
        told apart from how far it stands above the others (`fusion` z-scores it with a least
        spread). Words no item holds count in the whole, as the rarest words."""
        if not self.active:
            return np.zeros(len(self.terms))
        words = single_words(tokens)
        values = values_in(question)
        unseen = idf(len(self.terms), 0)
        total = sum(self._weight.get(w, unseen) for w in words)
        out = np.zeros(len(self.terms))
        for i, terms in enumerate(self.terms):
            matched = sum(self._weight.get(w, 0.0) for w in words & terms.headings)
            matched += sum(self._weight.get(w, 0.0) for w in words & terms.rows)
            out[i] = (matched / total if total > 0 else 0.0) + (len(values & terms.values) / len(values) if values else 0.0)
        return out
