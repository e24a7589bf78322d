"""Combine the retrieval signals into one ranking.

Default (`method="zsum"`): each signal is z-scored over the candidate items of the question
(scales differ: cosine vs BM25) and summed with tuned weights (the own-words share, below, is a
0..1 share and added as it is), plus a small kind prior:
- questions that compare or rank results ("which method performs best", "higher accuracy") are
  answered by tables far more often than tables' share of the candidates, on test-A and on the
  held-out test-C alike. Trend words ("as X increases") were not kept: they pointed to figures on
  test-A but to tables on test-C.
- a question that says "table" favours tables; "figure", "plot", "graph", "diagram"... figures.
The table-structure match (`retrieval.table_match`: the question's dataset and metric in a table's
headings, its methods in the row names, its numbers in the cells) is z-scored and added like the
others; it is flat, so it changes nothing, where no item has a structure (SPIQA's captions). It is a
share of the question and z-scored by at least `structure_spread` of it: most items hold no
structure, so one table holding a single common word of a long question ("5FdUTP" in a table of
kinetic parameters, asked how a nucleotide sits in a crystal structure) stood as far above them as a
table holding the whole question, and outranked the figure that answers.
The own-words share (`retrieval.lexical.WordShare` over each item's caption and printed words,
without the citing paragraphs) is added as well: neighbouring figures of one experiment have
near-identical captions and are cited by the same paragraphs, so BM25 over the whole document and
the embedding rate them alike, while the rare words of the question ("hybrid", "dimensions") are
printed in only one of them, in its caption or on its axes and legend. It is the share of all the
question's words (those no item prints count too) and is added as it is, not z-scored: an item
holding the only one of five asked words that any item prints holds little of the question, and
z-scoring would make that spread count as much as a real one. It is off where no item prints
words (SPIQA's JSON: captions only): there BM25 reads the captions alone already (test-A), and
questions written from the citing text (test-B) lost by it.
Items the question names by label ("Table 3") are ranked first (see `retrieval.index`); the
fused score itself leaves labels out, so scores stay comparable.
`method="rrf"` (reciprocal-rank fusion, k=60) is kept for comparison in the ablation.
Weights were fitted on SPIQA test-A captions with 5-fold paper-level cross-validation (the folds
agreed closely, so the weights are not fitted to a few papers); benchmarks/retrieval.py prints
the measured effect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

_RESULTS_INTENT = re.compile(
    r"\b(best|better|worse|worst|outperform\w*|highest|lowest|most|least|compar\w*|perform\w*|"
    r"accura\w*|scores?|results?|metrics?)\b",
    re.IGNORECASE,
)
_SAYS_TABLE = re.compile(r"\btables?\b", re.IGNORECASE)
_SAYS_FIGURE = re.compile(r"\b(fig(ure)?s?|plots?|graphs?|curves?|diagrams?|charts?|images?|illustrat\w*|visuali[sz]\w*)\b", re.IGNORECASE)


@dataclass(frozen=True)
class FusionConfig:
    """Signal weights; `dense=0` or `bm25=0` switch a signal off (used by the ablation)."""

    method: Literal["zsum", "rrf"] = "zsum"
    dense: float = 1.0
    bm25: float = 0.75
    results_table: float = 0.6  # results/comparison question -> table
    kind_word: float = 0.6  # "table" -> table, "figure"/"plot"/... -> figure
    table_structure: float = 0.5  # question words in a table's headings / row names, its numbers in cells
    structure_spread: float = 0.05  # the least spread the structure match is z-scored by (a share of the question)
    own_words: float = 3.0  # times the rarity-weighted share (0..1) of the question's words the item itself prints
    labels: bool = True  # items the question names by label rank first
    dense_views: bool = True  # dense score uses the best view too (False: main text only)
    rrf_k: float = 60.0


def zscore(values: np.ndarray, least_spread: float = 0.0) -> np.ndarray:
    """Values centred and scaled over the candidates (by their spread, or `least_spread` when that is
    larger); all zeros when they do not vary."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values
    spread = max(float(values.std()), least_spread)
    return (values - values.mean()) / spread if spread > 1e-9 else np.zeros_like(values)


def _ranks(values: np.ndarray) -> np.ndarray:
    order = np.argsort(-values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(1, len(values) + 1)
    return ranks


def kind_prior(question: str, kinds: list[str], config: FusionConfig) -> np.ndarray:
    """The prior added to each candidate from what the question asks for (see module docstring)."""
    is_table = np.array([k == "table" for k in kinds], dtype=np.float64)
    prior = np.zeros(len(kinds))
    if config.results_table and _RESULTS_INTENT.search(question):
        prior += config.results_table * is_table
    if config.kind_word:
        if _SAYS_TABLE.search(question):
            prior += config.kind_word * is_table
        if _SAYS_FIGURE.search(question):
            prior += config.kind_word * (1.0 - is_table)
    return prior


def fuse(
    dense: np.ndarray,
    bm25: np.ndarray,
    prior: np.ndarray,
    config: FusionConfig,
    structure: np.ndarray | None = None,
    own: np.ndarray | None = None,
) -> np.ndarray:
    """The fused score of every candidate (higher is better; label hits are ranked separately).
    `structure` is the table-structure match (none: no item has a structure), `own` the own-words
    share (none: not measured)."""
    if config.method == "rrf":
        score = np.zeros(len(dense))
        if config.dense:
            score += config.dense / (config.rrf_k + _ranks(np.asarray(dense, dtype=np.float64)))
        if config.bm25:
            score += config.bm25 / (config.rrf_k + _ranks(np.asarray(bm25, dtype=np.float64)))
    else:
        score = config.dense * zscore(dense) + config.bm25 * zscore(bm25) + prior
        if structure is not None and config.table_structure:
            score = score + config.table_structure * zscore(structure, config.structure_spread)
        if own is not None and config.own_words:
            score = score + config.own_words * own
    return score
